"""docs/validation/ecn.md, part 4: DualPI2 (RFC 9332) coexistence, one Classic flow and one
scalable flow (TCP Prague over AccECN) through the coupled dual queue.

At 100 Mbit/s and a base RTT of 5, 10, 20, 50 and 100 ms (the same for both flows), a CUBIC or a
Reno flow (Not-ECT: the C queue drops its packets with p_C = p'^2) shares the bottleneck with a
Prague flow (ECT(1): the L queue marks it with p_CL = 2 p' and at the 1 ms step). Measured over
the window after the warm-up:

* each flow's goodput and the Classic / L4S ratio, beside `tcplab.models.dualq.rate_ratio`
  (k = 2) with the base RTTs and with each flow's mean RTT;
* the L and C queues' sojourn times, from the bottleneck's packet trace: per flow (a flow's
  packets keep to one queue and leave it in order), the k-th departure (a dequeue, or a drop at
  dequeue) is the k-th enqueue; p50 and p99 of the dequeued packets' waits, by the queue the
  packet's ECN field chose (ECT(1) and CE: L).

* where the ratio comes from: the probabilities each flow saw (the links table's DualPI2
  columns), the Classic flow's loss events, and each window against its response.

* each ratio as the product of its measured factors: the model's at k = 2 and one RTT, the RTT
  ratio, the coupling seen over k, the Classic window over its response and Prague's over 2 / p_L
  (an identity: the factors are the measured windows, RTTs and probabilities).

Prague runs with its default `rtt_scaling` ("rate", tcp_prague.c's) in the targets' grid and
with "none" beside it at every RTT.

Why the duration: PI2 updates p' every 16 ms and settles within seconds, but a Reno flow's cycle
after a loss lasts half its window in round trips (several seconds at 50 and 100 ms), and
Prague, which leaves slow start at its first mark with alpha = 1, adds one segment per round trip
from there (its window at 100 ms grows from about 160 to 550 segments between 5 and 60 s,
traced). So each cell measures 40 s or 2000 base round trips, whichever is longer, after 20 s or
600 base round trips (the quick form: 20 s after 8 s, two cells).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from typing import Any

RATE = "100Mbit/s"
MSS = 1448
RTT_MS = (5, 10, 20, 50, 100)
CLASSIC = ("cubic", "reno")
#: The simulator's name of each Classic controller (Reno is `aimd`).
SIM_CC = {"cubic": "cubic", "reno": "aimd"}
#: Prague's `rtt_scaling` in the targets' grid: its default (the key left out), "rate".
DEFAULT = "default"
#: Its target RTT (tcp_prague.c's `prague_rtt_target`).
TARGET_RTT_S = 0.025
#: Targets (issue #32): the Classic / L4S rate ratio within [0.5, 2]; L queue p99 under 2 ms.
RATIO_LO, RATIO_HI, L_P99_MS = 0.5, 2.0, 2.0
ACCESS_MS = 1.0
#: The endpoints of a cell: Linux's (`profile = "linux"`, the targets' grid) or tcplab's default
#: RFC endpoints (one trace cell).
LINUX, RFC = "linux", "rfc"


def durations(quick: bool, rtt_ms: int = 0) -> tuple[float, float]:
    """(duration, warm-up) in seconds: a warm-up of 20 s or 600 base round trips (60 s at
    100 ms), then at least 40 s and 2000 base round trips (100 s at 50 ms, 200 s at 100 ms);
    quick: 20 s after 8 s."""
    if quick:
        return (20.0, 8.0)
    warm = max(20.0, 0.6 * rtt_ms)
    return (warm + max(40.0, 2.0 * rtt_ms), warm)


def scenario(rtt_ms: int, classic: str, rtt_scaling: str, quick: bool, endpoints: str = LINUX) -> dict:
    """A dumbbell at 100 Mbit/s with DualPI2 (its defaults), base RTT `rtt_ms` (1 ms access links
    at 1 Gbit/s), a Not-ECT `classic` flow and a Prague flow (`rtt_scaling` left at its default
    for DEFAULT); the bottleneck's packets traced. `endpoints`: LINUX, both flows with
    `profile = "linux"`; RFC, the Classic flow on tcplab's default endpoints (Reno, RFC 5681's
    growth per ACK, delayed ACKs) and Prague on the same."""
    duration, warmup = durations(quick, rtt_ms)
    prague: dict[str, Any] = {"algorithm": "prague"}
    if rtt_scaling != DEFAULT:
        prague["rtt_scaling"] = rtt_scaling
    flows: list[dict[str, Any]] = [
        {"cc": {"algorithm": SIM_CC[classic]}, "mss": MSS, "rwnd": "64MiB"},
        {"cc": prague, "ecn": "accecn", "mss": MSS, "rwnd": "64MiB", "start": "10ms"},
    ]
    for f in flows:
        if endpoints == LINUX:
            f["profile"] = "linux"
        else:
            f["tcp"] = "reno"
    return {
        "name": f"dualq-{classic}-prague-{rtt_scaling}-rtt{rtt_ms}",
        "seed": 1,
        "duration": f"{duration:g}s",
        "warmup": f"{warmup:g}s",
        "network": {
            "dumbbell": {
                "bottleneck": {
                    "rate": RATE,
                    "delay": f"{rtt_ms / 2 - 2 * ACCESS_MS:g}ms",
                    "queue": {"discipline": "dualpi2"},
                },
                "access_rate": "1Gbit/s",
                "access_delay": f"{ACCESS_MS:g}ms",
            }
        },
        "flows": flows,
        "trace": {"links": ["bottleneck.fwd"], "max_points": 50_000_000},
    }


def _quantile(xs: list[float], q: float) -> float:
    """The ceil(q n)-th smallest value (nan when empty)."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s), max(1, math.ceil(q * len(s)))) - 1]


def lane_delays(trace: Any, warmup_s: float) -> dict[str, list[float]]:
    """Sojourn times (s) of the packets dequeued after `warmup_s`, by queue ("L", "C"): per
    flow, the k-th departure (a dequeue, or a drop at dequeue) is the k-th enqueue."""
    import polars as pl

    k = pl.int_range(pl.len()).over("flow").alias("k")
    ev = pl.col("event")
    arrivals = trace.filter(ev == "enqueue").select("flow", "ecn", t0="time_s").with_columns(k)
    gone = trace.filter((ev == "dequeue") | ((ev == "drop") & (pl.col("cause") == "sojourn")))
    gone = gone.select("flow", "event", "time_s").with_columns(k)
    waits = (
        gone.join(arrivals, on=["flow", "k"], how="left")
        .filter((pl.col("event") == "dequeue") & (pl.col("time_s") >= warmup_s))
        .with_columns(wait=pl.col("time_s") - pl.col("t0"), l4s=pl.col("ecn").is_in(["ect1", "ce"]))
    )
    return {
        "L": waits.filter(pl.col("l4s"))["wait"].to_list(),
        "C": waits.filter(~pl.col("l4s"))["wait"].to_list(),
    }


def measure(res: Any, warmup_s: float, window_s: float, rtt_scaling: str = DEFAULT) -> dict:
    """Goodputs, the trace's sojourn percentiles, the links table's L and C columns, Prague's
    response (`ecn_prague.response`) and the ratio's factors."""
    from tcplab.validation import ecn_prague

    fl = res.flows
    flows = fl["goodput_bps"].to_list()
    lanes = lane_delays(res.trace("packets"), warmup_s)
    links = res.links
    link = links.filter(links["link"] == "bottleneck.fwd").row(0, named=True)
    row: dict[str, Any] = {"classic_bps": flows[0], "l4s_bps": flows[1], "ratio": flows[0] / flows[1]}
    row["classic_rtt_s"], row["l4s_rtt_s"] = fl["mean_rtt_s"].to_list()
    row["classic_loss_events"] = fl["loss_events"][0]
    for lane, xs in lanes.items():
        row[f"{lane}_n"] = len(xs)
        row[f"{lane}_mean_ms"] = statistics.fmean(xs) * 1e3 if xs else float("nan")
        row[f"{lane}_p50_ms"] = _quantile(xs, 0.50) * 1e3
        row[f"{lane}_p99_ms"] = _quantile(xs, 0.99) * 1e3
        p = lane.lower()
        for k in ("packets", "drops", "marks"):
            row[f"{lane}_{k}"] = link[f"{p}_{k}"]
        row[f"{lane}_col_mean_ms"] = link[f"{p}_sojourn_mean_s"] * 1e3
        row[f"{lane}_col_p99_ms"] = link[f"{p}_sojourn_p99_s"] * 1e3
    # The probabilities each flow saw (marks per L packet, drops per C packet), the coupling
    # they show (p_L / sqrt(p_C), k = 2 if only the coupled marks count), and each window
    # (goodput x its mean RTT, in segments) against its response: Reno's sqrt(3/2) / sqrt(p_C)
    # (Mathis et al.), the scalable 2 / p_L.
    row["p_l"] = row["L_marks"] / row["L_packets"] if row["L_packets"] else float("nan")
    c_in = row["C_packets"] + row["C_drops"]
    row["p_c"] = row["C_drops"] / c_in if c_in else float("nan")
    row["k_seen"] = row["p_l"] / math.sqrt(row["p_c"]) if row["p_c"] > 0 else float("nan")
    w_c = row["classic_bps"] * row["classic_rtt_s"] / (8 * MSS)
    w_l = row["l4s_bps"] * row["l4s_rtt_s"] / (8 * MSS)
    row["w_c"], row["w_l"] = w_c, w_l
    row["w_c_model"] = math.sqrt(1.5 / row["p_c"]) if row["p_c"] > 0 else float("nan")
    row["w_l_model"] = 2 / row["p_l"] if row["p_l"] > 0 else float("nan")
    # Prague's increase per round trip: with its default scaling, (srtt / 25 ms)^2 below 25 ms
    # (`prague_rate_scaled_ai_ack_increase`, after the 500 rounds that the warm-up holds).
    ai = 1.0
    if rtt_scaling == DEFAULT and row["l4s_rtt_s"] < TARGET_RTT_S:
        ai = (row["l4s_rtt_s"] / TARGET_RTT_S) ** 2
    row["ai"] = ai
    prague = ecn_prague.response(fl.row(1, named=True), link, window_s, MSS, ai)
    row.update(f=prague["f"], alpha=prague["alpha"], w_balance=prague["w_balance"])
    row["step_marks"] = link["marks_threshold"]
    # ratio = model(k = 2, one RTT) x RTT_L / RTT_C x (p_L / sqrt(p_C)) / k x W_C / its response
    # / (W_L / 2 / p_L): each window is goodput x its RTT, so the product is the measured ratio.
    row["f_rtt"] = row["l4s_rtt_s"] / row["classic_rtt_s"]
    row["f_k"] = row["k_seen"] / 2
    row["f_c"] = w_c / row["w_c_model"]
    row["f_l"] = w_l / row["w_l_model"]
    return row


def grid(quick: bool) -> list[tuple[int, str, str, str]]:
    """(rtt_ms, classic cc, Prague's rtt_scaling, endpoints) of every cell: every RTT with
    Prague's default on Linux endpoints (the targets' grid); every RTT with `none`; and one
    trace of the Classic side: Reno at 10 ms on tcplab's default RFC endpoints."""
    cells = [(r, c, s, LINUX) for s in (DEFAULT, "none") for c in CLASSIC for r in RTT_MS]
    cells += [(10, "reno", DEFAULT, RFC)]
    if quick:
        cells = [x for x in cells if x[0] in (5, 20) and x[1] == "cubic" and x[2] == DEFAULT]
    return cells


def _in_grid(r: dict) -> bool:
    """A cell of the targets' grid (Prague's default, Linux endpoints)."""
    return r["rtt_scaling"] == DEFAULT and r["endpoints"] == LINUX


def _label(r: dict) -> str:
    return r["classic"] + (", RFC endpoints" if r["endpoints"] != LINUX else "")


def _scaling(r: dict) -> str:
    return "rate (default)" if r["rtt_scaling"] == DEFAULT else r["rtt_scaling"]


def run(quick: bool, log: Callable[[str], None]) -> list[dict]:
    from tcplab.models import dualq
    from tcplab.simulation import run as simulate

    rows = []
    for rtt, classic, scaling, endpoints in grid(quick):
        duration, warmup = durations(quick, rtt)
        sc = scenario(rtt, classic, scaling, quick, endpoints)
        m = measure(simulate(sc), warmup, duration - warmup, scaling)
        m.update(rtt_ms=rtt, classic=classic, rtt_scaling=scaling, endpoints=endpoints)
        m["model_base"] = float(dualq.rate_ratio(dualq.K_DEFAULT, rtt / 1e3, rtt / 1e3))
        m["model_seen"] = float(dualq.rate_ratio(dualq.K_DEFAULT, m["l4s_rtt_s"], m["classic_rtt_s"]))
        rows.append(m)
        log(
            f"dualq {classic} ({endpoints} endpoints) + prague ({scaling}) rtt {rtt} ms: ratio {m['ratio']:.2f} "
            f"(model {m['model_base']:.2f} / {m['model_seen']:.2f}), L p99 {m['L_p99_ms']:.2f} ms, "
            f"C p99 {m['C_p99_ms']:.2f} ms"
        )
    return rows


def checks(rows: list[dict]) -> list[tuple[str, bool, str]]:
    out = []
    for r in rows:
        if not _in_grid(r):
            continue
        cell = f"{r['classic']} + Prague, {r['rtt_ms']} ms"
        ok = RATIO_LO <= r["ratio"] <= RATIO_HI
        out.append((f"{cell}: Classic / L4S rate in [0.5, 2]", ok, f"{r['ratio']:.2f}"))
        out.append((f"{cell}: L queue p99 < 2 ms", r["L_p99_ms"] < L_P99_MS, f"{r['L_p99_ms']:.2f} ms"))
    return out


def _f(x: float, fmt: str) -> str:
    return "—" if x != x else format(x, fmt)


def _rtt_alone(base: list[dict]) -> str:
    """Where the longer Classic RTT alone takes the model's ratio (RTTs seen) below 0.5."""
    below = sorted({r["rtt_ms"] for r in base if r["model_seen"] < RATIO_LO})
    if not below:
        return ", which alone keeps the model's ratio (RTTs seen) at or above 0.5 at every RTT"
    return f", which alone takes the model's ratio (RTTs seen) below 0.5 at {', '.join(map(str, below))} ms"


def _twin(rows: list[dict], r: dict, scaling: str) -> dict | None:
    """The cell of `rows` with r's Classic, RTT and endpoints and Prague's `scaling`."""
    for x in rows:
        if (x["classic"], x["rtt_ms"], x["endpoints"], x["rtt_scaling"]) == (
            r["classic"],
            r["rtt_ms"],
            r["endpoints"],
            scaling,
        ):
            return x
    return None


def _scaling_effect(rows: list[dict]) -> str:
    """Each grid cell's ratio and f with `none` -> with the default, in words."""
    parts = []
    for r in rows:
        t = _twin(rows, r, "none") if _in_grid(r) else None
        if t is not None:
            parts.append(
                f"{r['classic']} at {r['rtt_ms']} ms {t['ratio']:.2f} -> {r['ratio']:.2f} (f {t['f']:.2f} -> {r['f']:.2f})"
            )
    return "; ".join(parts)


def _endpoints(rows: list[dict]) -> str:
    """The trace cell on tcplab's default RFC endpoints against the same cell on Linux's."""
    for r in rows:
        if r["endpoints"] == LINUX:
            continue
        same = [x for x in rows if _in_grid(x) and (x["classic"], x["rtt_ms"]) == (r["classic"], r["rtt_ms"])]
        if same and r["w_c_model"] > 0 and same[0]["w_c_model"] > 0:
            d, i = same[0], r
            return (
                f"The endpoints. On tcplab's default RFC endpoints (the row `{_label(i)}`), "
                f"{i['classic']}'s window at {i['rtt_ms']} ms is {i['f_c']:.2f} x its response, against "
                f"{d['f_c']:.2f} on Linux's, and the ratio {i['ratio']:.2f} against {d['ratio']:.2f}: RFC "
                "5681's increase of SMSS^2 / cwnd per ACK grows the window by half a segment per round "
                "trip when the receiver delays its ACKs (Mathis et al.'s b = 2, whose response is "
                "sqrt(3 / (2 b p)), 1 / sqrt(2) = 0.71 of the b = 1 response the model takes), where "
                "Linux's `tcp_cong_avoid_ai` counts the segments each ACK acknowledges and grows by "
                "one. Prague is tcp_prague.c's, so the grid runs Linux's Classic senders beside it."
            )
    return ""


def _factors(r: dict) -> str:
    return (
        f"RTT {r['f_rtt']:.2f}, coupling {r['f_k']:.2f}, Classic window {r['f_c']:.2f}, "
        f"Prague window {r['f_l']:.2f}"
    )


def _why(rows: list[dict]) -> list[str]:
    """The paragraph after the tables: every number from the rows."""
    from tcplab.validation import ecn_prague

    base = [r for r in rows if _in_grid(r)]
    none = [r for r in rows if r["rtt_scaling"] == "none"]
    missed = [r for r in base if not RATIO_LO <= r["ratio"] <= RATIO_HI]
    steps = sum(r["step_marks"] for r in rows)
    fast = [r for r in rows if r["l4s_rtt_s"] < 0.025 and _in_grid(r)]
    endpoints = _endpoints(rows)
    return [
        "Prague's window. The step never fired in these runs "
        f"({steps} step marks in {len(rows)} cells): every mark is a coupled one. W_L / (2 / p_L) is "
        f"{ecn_prague.span([r['f_l'] for r in none], '.2f')} with `none` and {ecn_prague.span([r['f_l'] for r in base], '.2f')} "
        "with the default, and W_L / balance is "
        f"{ecn_prague.span([r['w_balance'] for r in rows if r['w_balance'] == r['w_balance']], '.2f')}: the window "
        "is where Prague's own increase pays for its reductions, at f = "
        f"{ecn_prague.span([r['f'] for r in none], '.2f')} reductions per round trip with `none` (2 / p_L takes "
        "one per round trip, and alpha = p_L, which holds: alpha / p_L "
        f"{ecn_prague.span([r['alpha'] / r['p_l'] for r in rows if r['p_l'] > 0], '.2f')}). The control below "
        "measures Prague alone at a steady p_L against the W_L p_L / 2 = (1 + sqrt(2)) / 2 = "
        f"{ecn_prague.EXPECTED['recur']:.2f} of a response held for a round trip (the CWR state) and "
        "then taken at the next of evenly spaced marks; in the grid, p_L also follows the Classic "
        "flow's cycle. Both are the kernel's rules as tcplab models them (tcp_prague.c; "
        "docs/tcp-family.md), where the model assumes one response per round trip.",
        "",
        "The default `rtt_scaling` (`rate`): below 25 ms Prague grows as a 25 ms flow would "
        "(ai = (srtt / 25 ms)^2 per round trip) and skips a CE response within 25 ms of the last "
        "(`prague_enter_cwr`), while the CWR state it enters still holds the next one off for a round "
        "trip; at the RTTs where Prague's own mean RTT is below 25 ms ("
        + ", ".join(f"{r['classic']} {r['rtt_ms']} ms: {r['l4s_rtt_s'] * 1e3:.1f} ms" for r in fast)
        + ") that lowers f, and Prague's share rises or falls with the balance of the two: "
        + _scaling_effect(rows)
        + ". At 50 and 100 ms the scaling does not apply (srtt above the target).",
        "",
        "The RTT. The Classic flow's packets wait in the C queue near the 15 ms target while "
        "Prague's wait well under the 1 ms step, so the Classic RTT is the longer by about the target"
        + _rtt_alone(base)
        + " (RFC 9332 App. C.1's RTT dependence).",
        "",
        *([endpoints, ""] if endpoints else []),
        (
            "The coupling seen, p_L / sqrt(p_C), is below k = 2 wherever p' varies in time: p_L is "
            "the L packets' mean of 2 p' and p_C the C packets' mean of p'^2, which is at least the "
            "square of the mean. Outside [0.5, 2], with each cell's factors: "
            + "; ".join(
                f"{r['classic']} at {r['rtt_ms']} ms, {r['ratio']:.2f} ({_factors(r)})" for r in missed
            )
            + "."
            if missed
            else "Every cell is within [0.5, 2]."
        ),
    ]


def section(rows: list[dict], quick: bool) -> list[str]:
    from tcplab.models import dualq

    span = (
        "20 s after an 8 s warm-up (the quick form)"
        if quick
        else "measured after a warm-up of 20 s or 600 base round trips (60 s at 100 ms) for 40 s or "
        "2000 base round trips where that is longer (100 s at 50 ms, 200 s at 100 ms): PI2 settles "
        "within seconds, while a Reno flow's cycle after a loss lasts half its window in round "
        "trips, and Prague adds a segment per round trip after it leaves slow start at its first "
        "mark (at 100 ms its window grows for about 60 s)"
    )
    lines = [
        "## 4. DualPI2: one Classic and one L4S flow (RFC 9332)",
        "",
        f"A {RATE} bottleneck with DualPI2 at its defaults (docs/queues.md: target 15 ms, tupdate "
        "16 ms, alpha 0.16, beta 3.2, k = 2, a 1 ms step for the L queue, `recur` marking), a "
        "Not-ECT Classic flow (CUBIC or Reno: the C queue drops it at p_C = p'^2) and a TCP "
        'Prague flow (`cc = "prague"`, `ecn = "accecn"`: ECT(1), the L queue marks it at '
        'p_CL = 2 p\' and the step), both Linux endpoints (`profile = "linux"`: SACK with RACK and '
        "PRR, Linux's delayed ACKs, the window grown by the segments each ACK acknowledges), the "
        "same base RTT for both (1 ms access links), "
        f"{span} (`tcplab.validation.ecn_dualq`). Prague's `rtt_scaling`: its default, `rate` "
        "(tcp_prague.c's: below 25 ms, a flow growing as one of RTT 25 ms), in the targets' grid; "
        "`none` beside it at every RTT. Ratio: Classic / L4S goodput. Model: `tcplab model "
        "dualq` (r_C / r_L = (sqrt(3/2) k / 2) RTT_L / RTT_C) with the base RTTs, and with each "
        "flow's mean RTT as it saw it. Delays: the sojourn of every dequeued packet of each queue, "
        "from the bottleneck's packet trace. Sent / drops / marks: the links table's DualPI2 "
        "columns (`l_packets`, `l_drops`, `l_marks` and `c_*`).",
        "",
        "| Classic | RTT | rtt_scaling | Classic Mbit/s | L4S Mbit/s | ratio | model (base / seen) "
        "| L p50 / p99 ms | C p50 / p99 ms | L sent / drops / marks | C sent / drops / marks |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {_label(r)} | {r['rtt_ms']} ms | {_scaling(r)} | {r['classic_bps'] / 1e6:.1f} | "
            f"{r['l4s_bps'] / 1e6:.1f} | {r['ratio']:.2f} | {r['model_base']:.2f} / {r['model_seen']:.2f} | "
            f"{r['L_p50_ms']:.2f} / {r['L_p99_ms']:.2f} | {r['C_p50_ms']:.2f} / {r['C_p99_ms']:.2f} | "
            f"{r['L_packets']} / {r['L_drops']} / {r['L_marks']} | "
            f"{r['C_packets']} / {r['C_drops']} / {r['C_marks']} |"
        )
    worst = max(
        (
            abs(r[f"{x}_col_p99_ms"] / r[f"{x}_p99_ms"] - 1)
            for r in rows
            for x in ("L", "C")
            if r[f"{x}_p99_ms"] > 0
        ),
        default=float("nan"),
    )
    lines += [
        "",
        f"The columns' p99 (`l_sojourn_p99_s`, `c_sojourn_p99_s`, a histogram) is within {worst:.1%} "
        "of the trace's in every cell.",
        "",
        "Where the ratio comes from, measured: each flow's mean RTT; the probabilities it saw (p_L "
        "= L marks / L packets, p_C = C drops / C arrivals) and the coupling they show, p_L / "
        "sqrt(p_C) (2 if only the coupled marks count; the step's marks raise it); the Classic "
        "flow's loss events in the window; each window, goodput x mean RTT in segments of "
        f"{MSS} bytes, over its response: Reno's sqrt(3/2) / sqrt(p_C) (Mathis et al.; CUBIC is "
        "compared with it too, as the model does) and the scalable 2 / p_L; and Prague's "
        "reductions (`ecn_reductions`) per round trip of its mean RTT, f, its alpha's time average "
        "(`ecn_alpha_mean`) and its window over the balance 2 ai (1 - p_L) / (f alpha), the window "
        "at which its increase over the unmarked packets, ai segments per round trip (1; with the "
        "default below 25 ms, (RTT_L / 25 ms)^2), pays for f reductions of W alpha / 2 per round "
        "trip.",
        "",
        "| Classic | RTT | rtt_scaling | RTT C / L ms | p_C | p_L | p_L / sqrt(p_C) | Classic loss events "
        "| W_C / response | W_L / response | f | alpha / p_L | W_L / balance |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {_label(r)} | {r['rtt_ms']} ms | {_scaling(r)} | {r['classic_rtt_s'] * 1e3:.1f} / "
            f"{r['l4s_rtt_s'] * 1e3:.1f} | {_f(r['p_c'], '.2e')} | {_f(r['p_l'], '.2e')} | "
            f"{_f(r['k_seen'], '.2f')} | {r['classic_loss_events']} | "
            f"{_f(r['w_c'], '.0f')} / {_f(r['w_c_model'], '.0f')} | {_f(r['w_l'], '.0f')} / {_f(r['w_l_model'], '.0f')} | "
            f"{_f(r['f'], '.2f')} | {_f(r['alpha'] / r['p_l'], '.2f')} | {_f(r['w_balance'], '.2f')} |"
        )
    k_model = float(dualq.rate_ratio(dualq.K_DEFAULT, 1.0, 1.0))
    lines += [
        "",
        f"Each ratio is the product of its measured factors: the model's {k_model:.2f} (k = 2, one "
        "RTT) x RTT_L / RTT_C x (p_L / sqrt(p_C)) / 2 x (W_C / its response) / (W_L / (2 / p_L)).",
        "",
        "| Classic | RTT | rtt_scaling | ratio | RTT_L / RTT_C | (p_L / sqrt(p_C)) / 2 "
        "| W_C / response | W_L / (2 / p_L) |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {_label(r)} | {r['rtt_ms']} ms | {_scaling(r)} | {r['ratio']:.2f} | {r['f_rtt']:.2f} | "
            f"{_f(r['f_k'], '.2f')} | {_f(r['f_c'], '.2f')} | {_f(r['f_l'], '.2f')} |"
        )
    lines += ["", *_why(rows), ""]
    lines += [
        "The Appendix A known answers (p', p_CL and p_C of scripted delays, the classifier, "
        "`recur`'s marks, the overload rules) are the unit tests of "
        "crates/tcplab-sim/src/net/queue/dualpi2/tests.rs, exact; docs/queues.md lists what was "
        "checked against the pseudocode.",
        "",
    ]
    return lines


def part(quick: bool, log: Callable[[str], None]) -> tuple[list[str], list[tuple[str, str, bool, str]]]:
    """Part 4 of docs/validation/ecn.md: its lines (the grid, then Prague alone:
    `tcplab.validation.ecn_prague`) and its rows of the targets table."""
    from tcplab.validation import ecn_prague

    rows = run(quick, log)
    control = ecn_prague.section(ecn_prague.run(quick, log))
    return [*section(rows, quick), *control], [("4. DualPI2", *c) for c in checks(rows)]
