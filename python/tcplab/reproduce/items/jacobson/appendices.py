"""Jacobson & Karels 1988: idle restart (App. C) and the window adjustment constants (App. D)."""

from __future__ import annotations

import math
from typing import cast

import numpy as np
import polars as pl

from tcplab.reproduce.core import Check, Context, Item, Job, Outcome, fmt, pct, register, rel
from tcplab.reproduce.items.jacobson.startup import PAPER, rtt_series

# ---- App. C: idle restart ----------------------------------------------------------------------------

IDLE = "jacobson/idle-restart.toml"
IDLE_CASES = [(8, True), (8, False), (100, True), (100, False)]  # (queue limit, idle restart)


#: The set-ups App. C leaves open, tried with the 100-packet queue and no idle restart (the path of
#: its warning: a window dumped into a queue that holds it, the RTT jumping): the timer's rule (App.
#: A's rto = R + 4V or the SIGCOMM '88 text's R + 2V, footnote 21), its clock (BSD's 500 ms, or
#: 100 ms with a 200 ms floor), the window dumped after an idle period (with responses as large), the
#: ACK policy. (label, the traffic's sets, the clock in s, the variance's gain); the first is the item's.
TCP = "traffic.0.tcp"
IDLE_OPEN: tuple[tuple[str, dict, float, int], ...] = (
    ("App. A's R + 4V, 500 ms clock, 16 KB window, an ACK every other packet (the item's)", {}, 0.5, 4),
    ("R + 2V (the SIGCOMM '88 version)", {f"{TCP}.rto_estimator": "sigcomm88"}, 0.5, 2),
    (
        "R + 2V on a 100 ms clock, 200 ms floor",
        {f"{TCP}.rto_estimator": "sigcomm88", f"{TCP}.clock_tick": "100ms", f"{TCP}.min_rto": "200ms"},
        0.1,
        2,
    ),
    (
        "a 32 KB window (64 packets) and 32 KB responses",
        {f"{TCP}.rwnd": "32KiB", "traffic.0.response_mean": "32KiB"},
        0.5,
        4,
    ),
    ("an ACK for every packet", {f"{TCP}.ack": "immediate"}, 0.5, 4),
)


def _idle_sets(quick: bool, q: int, on: bool) -> dict:
    return {
        **({"duration": "600s", "flows.0.start": "595s"} if quick else {}),
        "network.dumbbell.bottleneck.queue.limit": q,
        "traffic.0.tcp.idle_restart": on,
        "trace.links": ["bottleneck.fwd", "bottleneck.rev"],
    }


def _idle_jobs(quick: bool) -> list[Job]:
    return [Job(IDLE, _idle_sets(quick, q, on), traces=True) for q, on in IDLE_CASES] + [
        Job(IDLE, {**_idle_sets(quick, 100, False), **sets}, traces=True) for _, sets, _, _ in IDLE_OPEN[1:]
    ]


def min_rto(rtt: np.ndarray, tick: float, gain: int) -> float:
    """The smallest rto (s) App. A's integer estimator computes from RTT samples (s) on a `tick`
    clock, with rto = a + 4v (`gain` 4) or the SIGCOMM '88 version's a + 2v (`gain` 2)."""
    from tcplab.models import jacobson as jm

    if not len(rtt):
        return math.nan
    ticks = np.maximum(np.ceil(np.round(np.asarray(rtt) / tick, 9)), 1).astype(np.int64)
    sa, sv, _ = jm.rto_series(int(t) for t in ticks)
    rto = (sa >> 3) + (sv if gain == 4 else sv >> 1)
    return float(np.min(rto)) * tick


def _ack_gap(pk: pl.DataFrame, conn: int) -> float:
    """The longest interval between two ACKs of `conn` reaching the sender's side of the gateway while
    data is outstanding (sent past the first ACK's point): the sender's retransmit timer restarts on
    every ACK of new data, so a timeout with nothing lost needs a gap longer than rto."""
    data = pk.filter(
        (pl.col("link_name") == "bottleneck.fwd")
        & (pl.col("kind") == "data")
        & (pl.col("flow") == conn)
        & ((pl.col("event") == "enqueue") | (pl.col("event") == "drop"))
    ).sort("time_ns")
    acks = pk.filter(
        (pl.col("link_name") == "bottleneck.rev")
        & (pl.col("event") == "receive")
        & (pl.col("kind") == "ack")
        & (pl.col("flow") == conn)
    ).sort("time_ns")
    if data.height == 0 or acks.height < 2:
        return math.nan
    sent_end = np.maximum.accumulate((data["seq"] + data["len"]).to_numpy())
    at = acks["time_s"].to_numpy()
    idx = np.searchsorted(data["time_s"].to_numpy(), at, side="right") - 1
    top = np.where(idx >= 0, sent_end[np.maximum(idx, 0)], 0)
    outstanding = top > acks["ack"].to_numpy()
    gaps = np.diff(at)[outstanding[:-1]]
    return float(gaps.max()) if len(gaps) else math.nan


def _idle_counts(pk: pl.DataFrame, tick: float, gain: int) -> dict:
    """What the gateway's packet trace shows of the HTTP connection (foreground flows come first)."""
    conn = 1
    if pk.is_empty():
        return {k: math.nan for k in ("ack_gap", "min_rto", "rtt", "rtt_p90")} | {
            "sent": 0,
            "retransmitted": 0,
            "drops": 0,
        }
    data = pk.filter(
        (pl.col("link_name") == "bottleneck.fwd") & (pl.col("kind") == "data") & (pl.col("flow") == conn)
    )
    arrived = data.filter((pl.col("event") == "enqueue") | (pl.col("cause") == "overflow"))
    _, rtt = rtt_series(pk, conn, "bottleneck.fwd", "bottleneck.rev")
    return {
        "ack_gap": _ack_gap(pk, conn),
        "min_rto": min_rto(rtt, tick, gain),
        "sent": arrived.height,
        "retransmitted": int(arrived["retransmit"].sum()),
        "drops": data.filter(pl.col("event") == "drop").height,
        "rtt": float(np.mean(rtt)) if len(rtt) else math.nan,
        "rtt_p90": float(np.quantile(rtt, 0.9)) if len(rtt) else math.nan,
    }


def _idle_evaluate(ctx: Context) -> Outcome:
    got = {case: _idle_counts(ctx.trace(i, "packets"), 0.5, 4) for i, case in enumerate(IDLE_CASES)}
    alts = [got[(100, False)]] + [
        _idle_counts(ctx.trace(len(IDLE_CASES) + j, "packets"), tick, gain)
        for j, (_, _, tick, gain) in enumerate(IDLE_OPEN[1:])
    ]
    head = [
        "queue (packets)",
        "idle restart",
        "data packets sent",
        "dropped at the gateway",
        "retransmitted",
        "mean RTT s",
        "90th percentile RTT s",
    ]
    body = [
        [
            str(q),
            "yes" if on else "no",
            str(got[(q, on)]["sent"]),
            str(got[(q, on)]["drops"]),
            str(got[(q, on)]["retransmitted"]),
            fmt(got[(q, on)]["rtt"], 3),
            fmt(got[(q, on)]["rtt_p90"], 3),
        ]
        for q, on in IDLE_CASES
    ]

    def share(t):
        return t["retransmitted"] / t["sent"] if t["sent"] else math.nan

    small_on, small_off = got[(8, True)], got[(8, False)]
    big_on, big_off = got[(100, True)], got[(100, False)]
    cut = share(small_on) / share(small_off) if share(small_off) else math.nan
    rtt = big_on["rtt"] / big_off["rtt"]
    checks = [
        Check(
            "8-packet queue: retransmitted share with idle restart over without",
            fmt(cut, 2),
            "at most 0.5 (the burst after an idle period overflows the queue)",
            cut <= 0.5,
        ),
        Check(
            "100-packet queue: mean RTT with idle restart over without",
            fmt(rtt, 2),
            "at most 0.7 (the burst queues behind itself)",
            rtt <= 0.7,
            paper=False,
        ),
        Check(
            "100-packet queue, no idle restart: the longest interval between ACKs while data is outstanding, "
            "against the smallest rto App. A computes from the run's RTTs (500 ms clock)",
            f"{big_off['ack_gap']:.2f} s vs {big_off['min_rto']:.2f} s",
            "shorter (the timer, restarted by every ACK, cannot expire)",
            big_off["ack_gap"] < big_off["min_rto"],
            paper=False,
        ),
        Check(
            "100-packet queue, no idle restart: retransmissions of packets the gateway did not drop (the "
            "paper's spurious timeouts as the RTT jumps)",
            f"{big_off['retransmitted'] - big_off['drops']}",
            "at least 1",
            big_off["retransmitted"] - big_off["drops"] >= 1,
        ),
    ]
    spurious = [a["retransmitted"] - a["drops"] for a in alts]
    held = [a["ack_gap"] < a["min_rto"] for a in alts]
    checks.append(
        Check(
            "the set-ups the paper leaves open (100-packet queue, no idle restart): set-ups whose longest interval "
            "between ACKs while data is outstanding is shorter than their timer's smallest rto",
            f"{sum(held)} of {len(alts)}",
            "every one (a timer restarted by every ACK cannot expire while ACKs come closer than rto)",
            all(held),
            paper=False,
        )
    )
    open_head = [
        "set-up (100-packet queue, no idle restart)",
        "data packets sent",
        "dropped",
        "retransmitted without a drop",
        "mean RTT s",
        "longest ACK interval s",
        "smallest rto s",
    ]
    open_body = [
        [
            label,
            str(a["sent"]),
            str(a["drops"]),
            str(x),
            fmt(a["rtt"], 3),
            fmt(a["ack_gap"], 2),
            fmt(a["min_rto"], 2),
        ]
        for (label, _, _, _), a, x in zip(IDLE_OPEN, alts, spurious, strict=True)
    ]
    explanation = (
        "The mechanism is the paper's: after an idle period longer than the retransmit timeout the sender "
        "without idle restart sends its whole window at once into the empty pipe. Through the 8-packet queue that "
        f"burst overflows it: {small_off['drops']} packets dropped and {share(small_off):.1%} of the packets "
        f"retransmitted, against {small_on['drops']} and {share(small_on):.1%} with the restart. Through the "
        f"100-packet queue {big_off['drops']} packets are dropped without the restart ({big_on['drops']} with it), "
        "and the burst queues behind itself: the mean RTT is "
        f"{big_off['rtt']:.2f} s against {big_on['rtt']:.2f} s. What the paper warns of on such a path, spurious "
        "retransmit timeouts as the RTT jumps faster than rto can follow, "
        + (
            "does not happen here (no retransmission without a drop): tcplab's timer, like 4.3BSD's, restarts on "
            "every ACK that acknowledges new data, and while data is outstanding the ACKs are at most "
            f"{big_off['ack_gap']:.2f} s apart, against an rto of at least {big_off['min_rto']:.2f} s. "
            if big_off["retransmitted"] == big_off["drops"]
            else f"happens here too ({big_off['retransmitted'] - big_off['drops']} retransmissions without a drop). "
        )
        + "App. C leaves the set-up of its warning open: the timer's rule and clock, the window, the ACK policy. "
        f"Tried on the same path (the table of the set-ups the paper leaves open), they give {', '.join(map(str, spurious))} "
        "retransmissions without a drop, and in each the longest interval between ACKs is "
        + ", ".join(f"{a['ack_gap']:.2f}" for a in alts)
        + " s against a smallest rto of "
        + ", ".join(f"{a['min_rto']:.2f}" for a in alts)
        + " s. "
        + "Not checked here: the first half of App. C (rto = R + 4V, not R + 2V, so that slow start's doubling "
        "RTT does not outrun the timer); Figs 5-6 check App. A's timer on measured RTTs."
    )
    notes = (
        "One persistent connection serving 16 KB responses with exponential think times (5 s mean, "
        "longer than rto) over 56 kbit/s, 10 ms, with an 8- or a 100-packet queue; Jacobson's sender (slow "
        "start and congestion avoidance, App. A's timer on a 500 ms clock), a receiver that ACKs every other "
        "packet; idle restart (App. C: cwnd = 1 packet when nothing is in flight and nothing was sent for an "
        "rto) on and off. 2000 s per case. Counted from the gateway's packet trace: data packets arriving at "
        "it, their drops and retransmissions, and the RTT of packets sent once from the gateway to the ACK's "
        "return through it."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        notes=notes,
        extra=[("The set-ups the paper leaves open, where its warning applies", [open_head] + open_body)],
        numbers={
            **{f"q{q}_{'restart' if on else 'no_restart'}": got[(q, on)] for q, on in IDLE_CASES},
            "open": {label: a for (label, _, _, _), a in zip(IDLE_OPEN, alts, strict=True)},
        },
    )


register(
    Item(
        "jacobson-appc",
        PAPER,
        "App. C",
        "idle restart",
        "A connection that has sent nothing for an rto and has nothing in flight restarts with slow start "
        "(cwnd = 1): otherwise an application's idle period (the paper's SMTP and NNTP negotiation) is followed by a "
        "window dumped into an empty pipe with no ACK clock.",
        (IDLE,),
        _idle_jobs,
        _idle_evaluate,
        quick="600 s per run instead of 2000 s",
    )
)


# ---- App. D: the window adjustment constants --------------------------------------------------------

CONSTANTS = "jacobson/window-constants.toml"
DU = [(0.5, 1.0), (0.5, 0.25), (0.875, 1.0), (0.875, 0.25)]
PIPES = (7, 19)  # queue limits: the window peaks at 13 and 25 packets


def _constants_jobs(quick: bool) -> list[Job]:
    sets = {"duration": "800s"} if quick else {}
    return [
        Job(
            CONSTANTS,
            {**sets, "network.dumbbell.bottleneck.queue.limit": q, "flows.0.cc.d": d, "flows.0.cc.u": u},
            traces=True,
        )
        for q in PIPES
        for d, u in DU
    ]


def aimd_cycle_loss_rate(d: float, u: float, w: float, extra: float = 0.0) -> float:
    """Drops per packet of an AIMD window that climbs from d W to W by u per round trip, sending
    its window each round, and loses one packet at W: 1 / (sum of the windows) =
    2u / ((1 - d^2) W^2), App. D's "O(w^2) packets between drops" with its constants; `extra`
    windows of W added to each cycle's packets (the rounds of detection and recovery)."""
    return 1.0 / ((1 - d * d) * w * w / (2 * u) + extra * w)


def _constants_evaluate(ctx: Context) -> Outcome:
    res = {}
    i = 0
    for q in PIPES:
        for d, u in DU:
            f = ctx.rows(i).row(0, named=True)
            ss = (
                ctx.trace(i, "cwnd")
                .filter(pl.col("time_s") > float(f["warmup"]))["ssthresh_bytes"]
                .drop_nulls()
            )
            w = (
                float(cast(float, ss.median())) / 512 / d if ss.len() else math.nan
            )  # the window each decrease started from
            p = f["loss_events"] / f["segments_sent"] if f["segments_sent"] else math.nan
            res[(q, d, u)] = {
                "w": w,
                "p": p,
                "climb": aimd_cycle_loss_rate(d, u, w),
                "cycle": aimd_cycle_loss_rate(d, u, w, 2.0),
                "timeouts": f["timeouts"],
            }
            i += 1
    head = [
        "queue",
        "d",
        "u",
        "window at a drop W",
        "drops per packet",
        "climb only: 2u / ((1 - d^2) W^2)",
        "tcplab / climb",
        "climb + 2 W per cycle",
        "tcplab / that",
    ]
    body = [
        [
            str(q),
            fmt(d, 3),
            fmt(u, 2),
            fmt(r["w"], 1),
            pct(r["p"]).lstrip("+"),
            pct(r["climb"]).lstrip("+"),
            fmt(r["p"] / r["climb"], 2),
            pct(r["cycle"]).lstrip("+"),
            fmt(r["p"] / r["cycle"], 2),
        ]
        for (q, d, u), r in res.items()
    ]
    base = res[(PIPES[0], 0.5, 1.0)]
    by_u = [
        (
            res[(q, d, 1.0)]["p"] / res[(q, d, 0.25)]["p"],
            res[(q, d, 1.0)]["cycle"] / res[(q, d, 0.25)]["cycle"],
        )
        for q in PIPES
        for d in (0.5, 0.875)
    ]
    by_w = [res[(PIPES[0], d, u)]["p"] / res[(PIPES[1], d, u)]["p"] for d, u in DU]
    w_ratio = (res[(PIPES[1], 0.5, 1.0)]["w"] / base["w"]) ** 2
    by_d = [res[(q, 0.875, u)]["p"] / res[(q, 0.5, u)]["p"] for q in PIPES for u in (1.0, 0.25)]
    fit = [r["p"] / r["cycle"] for r in res.values()]
    checks = [
        Check(
            "d = 1/2, u = 1, window about 13: drops per packet",
            pct(base["p"]).lstrip("+"),
            "0.5% to 2% (the paper: windows of 8-12 packets, about 1%)",
            0.005 <= base["p"] <= 0.02,
        ),
        Check(
            "window 13 against 25: drops per packet, each (d, u)",
            ", ".join(fmt(x, 2) for x in by_w),
            f"every ratio within 35% of (25/13)^2 = {w_ratio:.2f} (O(w^2) packets between drops)",
            all(abs(rel(x, w_ratio)) <= 0.35 for x in by_w),
        ),
        Check(
            "u = 1 against u = 1/4: drops per packet, each d and pipe",
            ", ".join(fmt(x, 2) for x, _ in by_u),
            "every ratio above 1.5 and within 20% of the climb + 2 W model's "
            f"({', '.join(fmt(m, 2) for _, m in by_u)})",
            all(x > 1.5 and abs(rel(x, m)) <= 0.20 for x, m in by_u),
        ),
        Check(
            "d = 7/8 against d = 1/2: drops per packet, each u and pipe",
            ", ".join(fmt(x, 2) for x in by_d),
            "every ratio above 1.5 (a gentler decrease returns to the cliff sooner)",
            all(x > 1.5 for x in by_d),
        ),
    ]
    climb = [r["p"] / r["climb"] for r in res.values()]
    explanation = (
        "App. D's arithmetic holds: with d = 1/2 and u = 1 a window converging to about 13 packets sees "
        f"{base['p']:.1%} drops per packet (the paper: 8-12 packets, about 1%); doubling the window divides the "
        f"drop rate by {min(by_w):.1f} to {max(by_w):.1f} (w^2: {w_ratio:.1f}); d = 7/8 drops {min(by_d):.1f} to "
        f"{max(by_d):.1f} times as often as 1/2; a smaller increase drops less often, u = 1/4 "
        f"{min(x for x, _ in by_u):.1f} to {max(x for x, _ in by_u):.1f} times less than u = 1, not the 4 times "
        f"of the climb alone. The climb's closed form 2u/((1 - d^2) W^2) is {min(climb):.2f} to {max(climb):.2f} "
        "of tcplab's rate, lowest where the climb is short (d = 7/8, u = 1: two rounds): a cycle is also the round "
        "in which the drop is detected and the round of fast recovery, about two windows of packets that do not "
        "depend on u. Adding 2 W to every cycle (found by reading these runs, not derived) brings every run to "
        f"{min(fit):.2f}-{max(fit):.2f} of the model, and predicts the u ratios. The paper's remark that u = 1 is "
        "'about 4 times too aggressive' once gateways drop at the knee needs such gateways (RED, Mathis Tables "
        "2-3), not this one."
    )
    notes = (
        "One Reno connection (fast recovery returns the window to d W, so each cycle is App. D's W -> d W -> W) "
        "through a drop-tail gateway: 230.4 kbit/s, 40 ms each way, 512 data bytes, an ACK per packet, a queue "
        "of 7 or 19 packets (the window peaks at about 13 or 25), 2000 s with the first 100 measured out. The "
        "window at a drop is ssthresh / d (ssthresh = d x FlightSize at the drop); drops per packet count "
        "loss events (one per window reduction) over the data packets sent."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        notes=notes,
        numbers={f"q{q}_d{d}_u{u}": r for (q, d, u), r in res.items()},
    )


register(
    Item(
        "jacobson-appd",
        PAPER,
        "App. D",
        "the window constants varied",
        "Why d = 1/2 and u = 1 packet per round trip: halving returns to a window known to work; an additive "
        "increase gives O(w^2) packets between drops, so windows of 8-12 packets see about 1% drops with u = 1.",
        (CONSTANTS,),
        _constants_jobs,
        _constants_evaluate,
        quick="800 s per run instead of 2000 s",
    )
)
