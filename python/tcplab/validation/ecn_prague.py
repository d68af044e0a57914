"""docs/validation/ecn.md, part 4's control: TCP Prague alone at a steady marking probability,
to measure its own response to p_L (the scalable W = 2 / p_L of RFC 9332's model) apart from the
Classic flow's cycle.

The L queue is DualPI2's with `curq = "max"` (PI2 acts on the L queue's own delay, as App. A.2
and Linux allow, so it settles p_CL = 2 p' where the queue holds the 15 ms target) and its step
moved out of reach (10 s), so every mark is a coupled one, at a probability that barely moves;
`marking = "recur"` (evenly spaced, the grid's) and `"random"` (Linux's draws). Prague's
`rtt_scaling = "none"`, so its increase is one segment per round trip at every RTT.

The window is the balance of Prague's rules: the additive increase over the unmarked packets,
(1 - p_L) segments per round trip, against f reductions of W alpha / 2 per round trip, f the
reductions counted (`ecn_reductions`) per round trip: W = 2 (1 - p_L) / (f alpha). The model's
2 / p_L takes f = 1 and alpha = p_L. But a response is held for a round trip (Linux's CWR state:
no other until snd_una passes the snd_nxt of the response), and the next waits for the next
mark: c = W p_L marks per round trip come 1 / c round trips apart, and the wait is half of that
when they are evenly spaced (`recur`), all of it when they are random. So a reduction of c / 2
segments comes every 1 + 1 / (2 c) round trips (1 + 1 / c), and the increase matches it at
c = 1 + sqrt(2) (1 + sqrt(3)): W p_L / 2 = 1.21 (1.37).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

#: The balance point of a once-per-round-trip response, W p_L / 2 = c / 2 (module doc).
EXPECTED = {"recur": (1 + math.sqrt(2)) / 2, "random": (1 + math.sqrt(3)) / 2}


def durations(quick: bool, rtt_ms: int) -> tuple[float, float]:
    """(duration, warm-up) in seconds. Alone, Prague leaves slow start at its first mark with
    alpha = 1 (a halving) and then adds a segment per round trip up to a window of the whole
    path (970 segments at 100 ms, reached after about 100 s, traced), so the warm-up is 1000
    base round trips (at least 20 s) and the window 2000 (at least 40 s); quick: 20 s after 8 s."""
    if quick:
        return (20.0, 8.0)
    warm = max(20.0, 1.0 * rtt_ms)
    return (warm + max(40.0, 2.0 * rtt_ms), warm)


def scenario(rtt_ms: int, marking: str, quick: bool) -> dict:
    """Part 4's dumbbell (`ecn_dualq.scenario`) with the Prague flow alone, PI2 on the L queue's
    delay and no step."""
    from tcplab.validation import ecn_dualq

    sc = ecn_dualq.scenario(rtt_ms, "cubic", "none", quick)
    duration, warmup = durations(quick, rtt_ms)
    sc.update(name=f"prague-alone-{marking}-rtt{rtt_ms}", duration=f"{duration:g}s", warmup=f"{warmup:g}s")
    sc.pop("trace")
    sc["flows"] = sc["flows"][1:]
    queue = {"curq": "max", "step_threshold": "10s", "marking": marking}
    sc["network"]["dumbbell"]["bottleneck"]["queue"] = {"discipline": "dualpi2", "dualpi2": queue}
    return sc


def response(flow: dict, link: dict, window_s: float, mss: int, ai: float = 1.0) -> dict:
    """Prague's window against its responses, from the flows table's row of the Prague flow and
    the bottleneck's: p_L, W (goodput x mean RTT, segments), f (reductions per round trip),
    alpha (its time average), W p_L / 2, and W over the balance 2 ai (1 - p_L) / (f alpha),
    `ai` the increase per round trip in segments (1 without RTT scaling)."""
    rtt = flow["mean_rtt_s"]
    p = link["l_marks"] / link["l_packets"] if link["l_packets"] else float("nan")
    w = flow["goodput_bps"] * rtt / (8 * mss)
    f = flow["ecn_reductions"] * rtt / window_s if rtt else float("nan")
    alpha = flow["ecn_alpha_mean"] if flow["ecn_alpha_mean"] is not None else float("nan")
    balance = 2 * ai * (1 - p) / (f * alpha) if f > 0 and alpha > 0 else float("nan")
    return {"p_l": p, "w_l": w, "f": f, "alpha": alpha, "w_p_2": w * p / 2, "w_balance": w / balance}


def cells(quick: bool) -> list[tuple[int, str]]:
    from tcplab.validation import ecn_dualq

    if quick:
        return [(10, "recur")]
    return [(r, m) for m in ("recur", "random") for r in ecn_dualq.RTT_MS]


def run(quick: bool, log: Callable[[str], None]) -> list[dict]:
    from tcplab.simulation import run as simulate
    from tcplab.validation import ecn_dualq

    rows = []
    for rtt, marking in cells(quick):
        duration, warmup = durations(quick, rtt)
        res = simulate(scenario(rtt, marking, quick))
        links = res.links
        link = links.filter(links["link"] == "bottleneck.fwd").row(0, named=True)
        m: dict[str, Any] = response(res.flows.row(0, named=True), link, duration - warmup, ecn_dualq.MSS)
        m.update(rtt_ms=rtt, marking=marking, rtt_l_s=res.flows["mean_rtt_s"][0], util=link["utilization"])
        m["step_marks"] = link["marks_threshold"]
        rows.append(m)
        log(f"prague alone ({marking}) rtt {rtt} ms: W p_L / 2 {m['w_p_2']:.2f}, f {m['f']:.2f}")
    return rows


def span(xs: list[float], fmt: str = ".2f") -> str:
    """'a to b' of the values as `fmt` writes them (one value when both read the same; '—'
    without any)."""
    if not xs:
        return "—"
    lo, hi = format(min(xs), fmt), format(max(xs), fmt)
    return lo if lo == hi else f"{lo} to {hi}"


def _f_near(near: list[dict], far: list[dict]) -> str:
    """How the runs off the expected value compare in f with those on it, by marking."""
    parts = []
    for m in sorted({r["marking"] for r in far}):
        on = [r["f"] for r in near if r["marking"] == m]
        off = [r["f"] for r in far if r["marking"] == m]
        if on:
            rtts = ", ".join(str(r["rtt_ms"]) for r in near if r["marking"] == m)
            parts.append(f"{m} f {span(off)} against {span(on)} at {rtts} ms")
    return "; fewer responses per round trip than where it holds: " + "; ".join(parts) if parts else ""


def section(rows: list[dict]) -> list[str]:
    lines = [
        "### Prague's own response: the flow alone at a steady p_L",
        "",
        "The control (`tcplab.validation.ecn_prague`): the Prague flow alone (`rtt_scaling = "
        '"none"`), PI2 acting on the L queue\'s delay (`curq = "max"`) so p_L holds steady where '
        "the L queue stays at the 15 ms target, the step out of reach (10 s), `recur` and `random` "
        "marking, warm-up 1000 base round trips (the additive increase from the slow-start exit "
        "to the whole path's window takes about that long at 100 ms). W_L: goodput x mean RTT; f: "
        "reductions (`ecn_reductions`) per round trip of the mean RTT; alpha: its time average "
        "(`ecn_alpha_mean`); balance: 2 (1 - p_L) / (f alpha), the window at which the increase "
        "over the unmarked packets pays for f reductions of W alpha / 2 per round trip; expected: "
        "the balance point of a response held for a round trip and then taken at the next mark, "
        f"(1 + sqrt(2)) / 2 = {EXPECTED['recur']:.2f} with evenly spaced marks, (1 + sqrt(3)) / 2 "
        f"= {EXPECTED['random']:.2f} with random ones (the module's doc).",
        "",
        "| marking | RTT | RTT seen ms | utilization | p_L | step marks | W_L | W_L p_L / 2 (expected) "
        "| f | alpha / p_L | W_L / balance |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['marking']} | {r['rtt_ms']} ms | {r['rtt_l_s'] * 1e3:.1f} | {r['util']:.3f} | "
            f"{r['p_l']:.2e} | {r['step_marks']} | {r['w_l']:.0f} | {r['w_p_2']:.2f} "
            f"({EXPECTED[r['marking']]:.2f}) | {r['f']:.2f} | {r['alpha'] / r['p_l']:.2f} | "
            f"{r['w_balance']:.2f} |"
        )
    near = [r for r in rows if abs(r["w_p_2"] / EXPECTED[r["marking"]] - 1) <= 0.03]
    far = [r for r in rows if r not in near]
    lines += [
        "",
        f"W_L / balance is {min(r['w_balance'] for r in rows):.2f} to {max(r['w_balance'] for r in rows):.2f}: "
        "alone, the window is the balance of Prague's own rules. W_L p_L / 2 is within 3% of the "
        f"expected value in {len(near)} of {len(rows)} runs"
        + (
            "; above it in "
            + ", ".join(f"{r['marking']} at {r['rtt_ms']} ms ({r['w_p_2']:.2f}, f {r['f']:.2f})" for r in far)
            + _f_near(near, far)
            if far
            else ""
        )
        + ".",
    ]
    return [*lines, ""]
