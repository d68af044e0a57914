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

Why the duration: PI2 updates p' every 16 ms and settles within seconds, but a Reno flow's cycle
after a loss lasts half its window in round trips (several seconds at 50 and 100 ms), so after a
20 s warm-up each cell measures 40 s or 2000 base round trips, whichever is longer (the quick
form: 20 s after 8 s, two cells).
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
#: Targets (issue #32): the Classic / L4S rate ratio within [0.5, 2]; L queue p99 under 2 ms.
RATIO_LO, RATIO_HI, L_P99_MS = 0.5, 2.0, 2.0
ACCESS_MS = 1.0


def durations(quick: bool, rtt_ms: int = 0) -> tuple[float, float]:
    """(duration, warm-up) in seconds: a 20 s warm-up, then at least 40 s and 2000 base round
    trips (100 s at 50 ms, 200 s at 100 ms); quick: 20 s after 8 s."""
    if quick:
        return (20.0, 8.0)
    return (20.0 + max(40.0, 2.0 * rtt_ms), 20.0)


def scenario(rtt_ms: int, classic: str, rtt_scaling: str, quick: bool, ack: str = "delayed") -> dict:
    """A dumbbell at 100 Mbit/s with DualPI2 (its defaults), base RTT `rtt_ms` (1 ms access links
    at 1 Gbit/s), a Not-ECT `classic` flow and a Prague flow; the bottleneck's packets traced."""
    duration, warmup = durations(quick, rtt_ms)
    prague: dict[str, Any] = {"algorithm": "prague", "rtt_scaling": rtt_scaling}
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
        "flows": [
            {"tcp": "reno", "cc": SIM_CC[classic], "mss": MSS, "rwnd": "64MiB", "ack": ack},
            {"tcp": "reno", "cc": prague, "ecn": "accecn", "mss": MSS, "rwnd": "64MiB", "start": "10ms"},
        ],
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


def measure(res: Any, warmup_s: float) -> dict:
    """Goodputs, the trace's sojourn percentiles and the links table's L and C columns."""
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
    return row


def grid(quick: bool) -> list[tuple[int, str, str, str]]:
    """(rtt_ms, classic cc, Prague's rtt_scaling, the Classic receiver's `ack`) of every cell:
    every RTT with `none` and delayed ACKs (the targets' grid); at 5 ms also Linux's default
    `rate`; and one trace of the Classic side: Reno at 10 ms with an ACK for every segment."""
    cells = [(r, c, "none", "delayed") for c in CLASSIC for r in RTT_MS]
    cells += [(5, c, "rate", "delayed") for c in CLASSIC]
    cells += [(10, "reno", "none", "immediate")]
    if quick:
        cells = [x for x in cells if x[0] in (5, 20) and x[1] == "cubic"]
    return cells


def _in_grid(r: dict) -> bool:
    """A cell of the targets' grid (no RTT scaling, delayed ACKs)."""
    return r["rtt_scaling"] == "none" and r["ack"] == "delayed"


def _label(r: dict) -> str:
    return r["classic"] + (", ACK every segment" if r["ack"] != "delayed" else "")


def run(quick: bool, log: Callable[[str], None]) -> list[dict]:
    from tcplab.models import dualq
    from tcplab.simulation import run as simulate

    _, warmup = durations(quick)
    rows = []
    for rtt, classic, scaling, ack in grid(quick):
        m = measure(simulate(scenario(rtt, classic, scaling, quick, ack)), warmup)
        m.update(rtt_ms=rtt, classic=classic, rtt_scaling=scaling, ack=ack)
        m["model_base"] = float(dualq.rate_ratio(dualq.K_DEFAULT, rtt / 1e3, rtt / 1e3))
        m["model_seen"] = float(dualq.rate_ratio(dualq.K_DEFAULT, m["l4s_rtt_s"], m["classic_rtt_s"]))
        rows.append(m)
        log(
            f"dualq {classic} ({ack} ACKs) + prague ({scaling}) rtt {rtt} ms: ratio {m['ratio']:.2f} "
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


def _span(xs: list, fmt: str) -> str:
    """'a to b' of the values (one value alone; '—' without any)."""
    if not xs:
        return "—"
    lo, hi = min(xs), max(xs)
    return format(lo, fmt) if lo == hi else f"{format(lo, fmt)} to {format(hi, fmt)}"


def _rtt_alone(base: list[dict]) -> str:
    """Where the longer Classic RTT alone takes the model's ratio (RTTs seen) below 0.5."""
    below = sorted({r["rtt_ms"] for r in base if r["model_seen"] < RATIO_LO})
    if not below:
        return ", which alone keeps the model's ratio (RTTs seen) at or above 0.5 at every RTT"
    return f", which alone takes the model's ratio (RTTs seen) below 0.5 at {', '.join(map(str, below))} ms"


def _remedy(rows: list[dict]) -> str:
    """The `rate` rows' ratios against the `none` rows' at the same RTT, in words."""
    parts = []
    for r in rows:
        if r["rtt_scaling"] == "none":
            continue
        same = [x for x in rows if _in_grid(x) and (x["classic"], x["rtt_ms"]) == (r["classic"], r["rtt_ms"])]
        if same:
            parts.append(f"{r['classic']} at {r['rtt_ms']} ms: {same[0]['ratio']:.2f} -> {r['ratio']:.2f}")
    return f" ({'; '.join(parts)})" if parts else ""


def _acks(rows: list[dict]) -> str:
    """The trace cell with an ACK for every segment against the same cell with delayed ACKs."""
    for r in rows:
        if r["ack"] == "delayed":
            continue
        same = [x for x in rows if _in_grid(x) and (x["classic"], x["rtt_ms"]) == (r["classic"], r["rtt_ms"])]
        if same and r["w_c_model"] > 0 and same[0]["w_c_model"] > 0:
            d, i = same[0], r
            return (
                f". {i['classic']}'s shortfall is its receiver's delayed ACKs: with an ACK for every "
                f"segment (the row `{_label(i)}`), {i['classic']}'s window at {i['rtt_ms']} ms is "
                f"{i['w_c'] / i['w_c_model']:.2f} x its response, against {d['w_c'] / d['w_c_model']:.2f} "
                f"with delayed ACKs, and the ratio {i['ratio']:.2f} against {d['ratio']:.2f}: a window "
                "growing by half a segment per round trip, Mathis et al.'s b = 2, whose response is "
                "sqrt(3 / (2 b p)), 1 / sqrt(2) = 0.71 of the b = 1 response the model takes"
            )
    return ""


def _departures(rows: list[dict]) -> str:
    """Each side's window over its response, as ranges over the `none` rows, in words."""
    base = [r for r in rows if _in_grid(r)]
    out = []
    for c in CLASSIC:
        xs = [r["w_c"] / r["w_c_model"] for r in base if r["classic"] == c and r["w_c_model"] > 0]
        if xs:
            out.append(f"{c}'s window is {_span(xs, '.2f')} x its Reno response")
    ys = [r["w_l"] / r["w_l_model"] for r in base if r["w_l_model"] > 0]
    if ys:
        out.append(f"Prague's {_span(ys, '.2f')} x 2 / p_L")
    return ": " + ", ".join(out) if out else ""


def section(rows: list[dict], quick: bool) -> list[str]:
    _, warmup = durations(quick)
    span = (
        "20 s after an 8 s warm-up (the quick form)"
        if quick
        else f"measured after a {warmup:g} s warm-up for 40 s, or 2000 base round trips where that "
        "is longer (100 s at 50 ms, 200 s at 100 ms): PI2 settles within seconds, while a Reno "
        "flow's cycle after a loss lasts half its window in round trips (several seconds at 50 "
        "and 100 ms), and the window must hold several"
    )
    lines = [
        "## 4. DualPI2: one Classic and one L4S flow (RFC 9332)",
        "",
        f"A {RATE} bottleneck with DualPI2 at its defaults (docs/queues.md: target 15 ms, tupdate "
        "16 ms, alpha 0.16, beta 3.2, k = 2, a 1 ms step for the L queue, `recur` marking), a "
        "Not-ECT Classic flow (CUBIC or Reno: the C queue drops it at p_C = p'^2) and a TCP "
        'Prague flow (`cc = "prague"`, `ecn = "accecn"`: ECT(1), the L queue marks it at '
        "p_CL = 2 p' and the step), the same base RTT for both (1 ms access links), "
        f"{span} (`tcplab.validation.ecn_dualq`). Ratio: Classic / L4S goodput. Model: "
        "`tcplab model dualq` (r_C / r_L = (sqrt(3/2) k / 2) RTT_L / RTT_C) with the base RTTs, "
        "and with each flow's mean RTT as it saw it. Delays: the sojourn of every dequeued "
        "packet of each queue, from the bottleneck's packet trace. Sent / drops / marks: the "
        "links table's DualPI2 columns (`l_packets`, `l_drops`, `l_marks` and `c_*`). Prague's "
        "`rtt_scaling`: `none` (the default) everywhere, and at 5 ms also `rate` (Linux's "
        "default: a flow behaving as one of RTT 25 ms).",
        "",
        "| Classic | RTT | rtt_scaling | Classic Mbit/s | L4S Mbit/s | ratio | model (base / seen) "
        "| L p50 / p99 ms | C p50 / p99 ms | L sent / drops / marks | C sent / drops / marks |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {_label(r)} | {r['rtt_ms']} ms | {r['rtt_scaling']} | {r['classic_bps'] / 1e6:.1f} | "
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
    missed = [r for r in rows if _in_grid(r) and not RATIO_LO <= r["ratio"] <= RATIO_HI]
    lines += [
        "",
        f"The columns' p99 (`l_sojourn_p99_s`, `c_sojourn_p99_s`, a histogram) is within {worst:.1%} "
        "of the trace's in every cell.",
        "",
        "Where the ratio comes from, measured: each flow's mean RTT; the probabilities it saw (p_L "
        "= L marks / L packets, p_C = C drops / C arrivals) and the coupling they show, p_L / "
        "sqrt(p_C) (2 if only the coupled marks count; the step's marks raise it); the Classic "
        "flow's loss events in the window; and each window, goodput x mean RTT in segments of "
        f"{MSS} bytes, over its response: Reno's sqrt(3/2) / sqrt(p_C) (Mathis et al.; CUBIC is "
        "compared with it too, as the model does) and the scalable 2 / p_L.",
        "",
        "| Classic | RTT | rtt_scaling | RTT C / L ms | p_C | p_L | p_L / sqrt(p_C) | Classic loss events "
        "| W_C / response | W_L / response |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {_label(r)} | {r['rtt_ms']} ms | {r['rtt_scaling']} | {r['classic_rtt_s'] * 1e3:.1f} / "
            f"{r['l4s_rtt_s'] * 1e3:.1f} | {_f(r['p_c'], '.2e')} | {_f(r['p_l'], '.2e')} | "
            f"{_f(r['k_seen'], '.2f')} | {r['classic_loss_events']} | "
            f"{_f(r['w_c'], '.0f')} / {_f(r['w_c_model'], '.0f')} | {_f(r['w_l'], '.0f')} / {_f(r['w_l_model'], '.0f')} |"
        )
    base = [r for r in rows if _in_grid(r)]
    lines += [
        "",
        "The model's ratio does not depend on the RTT when both flows see the same one; they do "
        "not: the Classic flow's packets wait in the C queue near the 15 ms target while "
        "Prague's wait well under the 1 ms step, so the Classic RTT is the longer by about the "
        "target" + _rtt_alone(base) + ". "
        "This is the RTT dependence of RFC 9332 App. C.1; Prague's `rtt_scaling` (the rows "
        "`rate`) is the sender's remedy"
        + _remedy(rows)
        + f". In {sum(r['ratio'] < r['model_seen'] for r in base)} of the {len(base)} cells without "
        "it the measured ratio is below even the model with the RTTs seen; the second table says "
        "which side departs from its response"
        + _departures(rows)
        + _acks(rows)
        + "; with p_C = p'^2 the Classic flow sees few losses at the longer RTTs "
        f"({_span([r['classic_loss_events'] for r in base if r['rtt_ms'] >= 50], 'd')} loss events "
        "in the window at 50 and 100 ms), so its p_C, and p_L / sqrt(p_C), are the least certain "
        "numbers there."
        + (
            " Outside [0.5, 2]: "
            + ", ".join(f"{r['classic']} at {r['rtt_ms']} ms ({r['ratio']:.2f})" for r in missed)
            + "."
            if missed
            else " Every cell is within [0.5, 2]."
        ),
        "",
        "The Appendix A known answers (p', p_CL and p_C of scripted delays, the classifier, "
        "`recur`'s marks, the overload rules) are the unit tests of "
        "crates/tcplab-sim/src/net/queue/dualpi2/tests.rs, exact; docs/queues.md lists what was "
        "checked against the pseudocode.",
        "",
    ]
    return lines


def part(quick: bool, log: Callable[[str], None]) -> tuple[list[str], list[tuple[str, str, bool, str]]]:
    """Part 4 of docs/validation/ecn.md: its lines and its rows of the targets table."""
    rows = run(quick, log)
    return section(rows, quick), [("4. DualPI2", *c) for c in checks(rows)]
