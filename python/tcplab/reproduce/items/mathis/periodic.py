"""Mathis et al. 1997: Table 1 (C by simulation, periodic loss) and Tables 2-3 (phase effects)."""

from __future__ import annotations

import math

from tcplab.reproduce.core import Check, Context, Item, Job, Outcome, pct, register, rel
from tcplab.reproduce.items.mathis.table4 import PAPER

# ---- Table 1: C by simulation, periodic loss ------------------------------------------------------

TABLE1 = {"immediate": math.sqrt(3 / 2), "delayed": math.sqrt(3 / 4)}  # 1.22 and 0.87, derived (Eq. 1-3)
TABLE1_P = (1e-4, 3e-4, 1e-3)
RTT_T1 = 0.060  # the shipped path: 30 ms one way


def _t1_points(quick: bool):
    return [(ack, p) for ack in TABLE1 for p in ((1e-3,) if quick else TABLE1_P)]


def _t1_jobs(quick: bool) -> list[Job]:
    jobs = []
    for ack, p in _t1_points(quick):
        cycle = RTT_T1 / math.sqrt(p)  # a nominal CA cycle (C = 1)
        jobs.append(
            Job(
                "mathis/queueless-random-loss.toml",
                {
                    "network.path.hops.0.loss": {"model": "periodic", "p": p},
                    "network.path.hops.0.rate": "10Gbit/s",
                    "flows.0.tcp": "sack",
                    "flows.0.ack": ack,
                    "warmup": f"{20 * cycle:.4g}s",
                    "duration": f"{(20 + (60 if quick else 120)) * cycle:.4g}s",
                },
            )
        )
    return jobs


def _t1_evaluate(ctx: Context) -> Outcome:
    head = ["ACK strategy", "p", "W = BW RTT / MSS", "C = W sqrt(p)", "Table 1", "difference", "timeouts"]
    body: list[list[str]] = []
    cs: dict[str, list[float]] = {ack: [] for ack in TABLE1}
    for i, (ack, p) in enumerate(_t1_points(ctx.quick)):
        f = ctx.rows(i).row(0, named=True)
        w = f["goodput_bps"] * f["mean_rtt_s"] / 8 / f["mss_bytes"]
        c = w * math.sqrt(p)
        cs[ack].append(c)
        body.append(
            [
                ack,
                f"{p:g}",
                f"{w:.1f}",
                f"{c:.3f}",
                f"{TABLE1[ack]:.2f}",
                pct(rel(c, TABLE1[ack])),
                str(f["timeouts"]),
            ]
        )
    checks = []
    for ack, vals in cs.items():
        mean = sum(vals) / len(vals)
        checks.append(
            Check(
                f"{ack} ACKs: mean C over the runs",
                round(mean, 3),
                f"within 10% of Table 1's {TABLE1[ack]:.2f}",
                abs(rel(mean, TABLE1[ack])) <= 0.10,
            )
        )
    ratio = (sum(cs["immediate"]) / len(cs["immediate"])) / (sum(cs["delayed"]) / len(cs["delayed"]))
    checks.append(
        Check(
            "C with an ACK per segment over C with delayed ACKs",
            round(ratio, 3),
            "within 10% of sqrt(2) = 1.414",
            abs(rel(ratio, math.sqrt(2))) <= 0.10,
        )
    )
    worst = max(abs(rel(c, TABLE1[a])) for a in cs for c in cs[a])
    checks.append(Check("every run's C against Table 1's, worst", pct(worst), "within 10%", worst <= 0.10))
    explanation = (
        "Table 1's periodic-loss constants are derived for the ideal sawtooth, whose cycles deliver "
        "exactly 1/p packets and neglect the data sent during recovery; the simulated window W is "
        "the delivered data (goodput) times the mean RTT, so the round trip spent in each fast recovery "
        "makes C a little smaller than the derivation's, the more so the larger p (the difference "
        "column)."
    )
    notes = (
        "One SACK flow on the queueless path of `queueless-random-loss.toml` (10 Gbit/s, 30 ms one way, MSS "
        "1460) with periodic loss (every round(1/p)-th packet) instead of random loss, 120 nominal cycles "
        "measured after 20. C = W sqrt(p), W from the goodput and the mean RTT."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        notes=notes,
        numbers={ack: v for ack, v in cs.items()},
    )


register(
    Item(
        "mathis-table1",
        PAPER,
        "Table 1",
        "C by simulation for periodic loss, both ACK schemes",
        "The constant C of the model for periodic loss, derived from the sawtooth: sqrt(3/2) = 1.22 with an ACK per "
        "segment, sqrt(3/4) = 0.87 with delayed ACKs (random loss: 1.31 and 0.93, the Table 4 item).",
        ("mathis/queueless-random-loss.toml",),
        _t1_jobs,
        _t1_evaluate,
        quick="p = 0.001 only, 60 cycles",
    )
)


# ---- Tables 2-3: phase effects ---------------------------------------------------------------------

C_TABLE2 = 0.8  # footnote 11: the C of every model entry of Tables 2-3
C_TABLE1 = 0.87  # Table 1, delayed ACKs: the receivers of these flows (the item's reading)
MIN_RTTS = (0.2214, 0.2312)  # propagation + service RTT of the two flows (the scenario's)
PHASE_RATE, PHASE_HEADER = 800e3, 40  # the scenario's bottleneck rate (bit/s) and header bytes

#: Tables 2 (queue 15) and 3 (queue 100), per (queue limit, discipline, flow): kb/s, p, TCP RTT ms,
#: losses "CA+timeouts+other", TCP model kb/s (C = 0.8) with its error as the paper prints it.
PAPER_T23 = {
    (15, "droptail", 1): (133, 0.0124, 325, "103+37+76", "177 (34%)"),
    (15, "droptail", 2): (648, 0.0010, 315, "41+0+2", "638 (2%)"),
    (15, "red", 1): (430, 0.0024, 304, "64+0+1", "432 (1%)"),
    (15, "red", 2): (368, 0.0032, 307, "73+0+1", "370 (1%)"),
    (100, "droptail", 1): (244, 0.0008, 1029, "12+0+3", "222 (10%)"),
    (100, "droptail", 2): (556, 0.0001, 1029, "5+0+0", "518 (7%)"),
    (100, "red", 1): (401, 0.0027, 304, "68+0+0", "404 (1%)"),
    (100, "red", 2): (397, 0.0028, 307, "69+0+0", "395 (1%)"),
}
PHASE_CASES = [(limit, disc) for limit in (15, 100) for disc in ("droptail", "red")]
#: The ACK policy Sec. 3.3 leaves open: delayed ACKs (the item's: C = 0.8 was fitted on delayed-ACK
#: data, footnote 11 and Fig. 6), then an ACK per segment, tried beside it.
PHASE_ACKS = ("delayed", "immediate")
#: The control of the queue-100 RED RTT: RED's thresholds of queue 15 (5 and 10 packets) at queue 100.
PHASE_CONTROL = {
    "network.dumbbell.bottleneck.queue.red.min_th": 5,
    "network.dumbbell.bottleneck.queue.red.max_th": 10,
}


def _mathis(mss, rtt, p, c):
    return mss * 8 / rtt * c / math.sqrt(p) if p > 0 else math.inf


def _phase_sets(limit: int, disc: str, ack: str) -> dict:
    return {
        "network.dumbbell.bottleneck.queue.limit": limit,
        "network.dumbbell.bottleneck.queue.discipline": disc,
        "flows.0.ack": ack,
        "flows.1.ack": ack,
    }


def _phase_jobs(quick: bool) -> list[Job]:
    return [
        Job("mathis/phase-effects.toml", _phase_sets(limit, disc, ack))
        for ack in PHASE_ACKS
        for limit, disc in PHASE_CASES
    ] + [Job("mathis/phase-effects.toml", {**_phase_sets(100, "red", PHASE_ACKS[0]), **PHASE_CONTROL})]


def _share(flows: list[dict]) -> float:
    g = [f["goodput_bps"] for f in flows]
    return min(g) / max(g)


def _phase_summary(ctx: Context, first: int) -> dict:
    """The numbers the alternatives table compares, from the four cases' runs starting at job `first`."""
    runs = {case: ctx.rows(first + j).to_dicts() for j, case in enumerate(PHASE_CASES)}

    def model_err(f):
        tm = _mathis(f["mss_bytes"], f["mean_rtt_s"], f["p"], C_TABLE2)
        return abs(tm - f["goodput_bps"]) / f["goodput_bps"] if math.isfinite(tm) else math.nan

    return {
        "red_err": max(model_err(f) for q in (15, 100) for f in runs[(q, "red")]),
        "p_dt15": [f["p"] for f in runs[(15, "droptail")]],
        "rtt_red15": [f["mean_rtt_s"] * 1e3 for f in runs[(15, "red")]],
        "rtt_red100": [f["mean_rtt_s"] * 1e3 for f in runs[(100, "red")]],
        "share_dt15": _share(runs[(15, "droptail")]),
    }


def _phase_evaluate(ctx: Context) -> Outcome:
    head = [
        "queue",
        "discipline",
        "flow",
        "kb/s (paper)",
        "CA+timeouts+other (paper)",
        "p (paper)",
        "RTT ms (paper)",
        "TCP model C=0.8 kb/s (err) [paper]",
        f"TCP model C={C_TABLE1} kb/s (err)",
        "link model C=0.8 kb/s (err)",
    ]
    body, shares, errs = [], {}, {}
    for i, (limit, disc) in enumerate(PHASE_CASES):
        df = ctx.rows(i)
        flows = df.to_dicts()
        shares[(limit, disc)] = _share(flows)
        drop_rate = df["link.bottleneck.fwd.drop_rate"][0]
        qdelay = df["link.bottleneck.fwd.mean_queue_delay_s"][0]
        for f in flows:
            n = f["flow"] + 1
            pk, pp, prtt, plosses, pmodel = PAPER_T23[(limit, disc, n)]
            bw = f["goodput_bps"]
            tm = _mathis(f["mss_bytes"], f["mean_rtt_s"], f["p"], C_TABLE2)
            tm1 = _mathis(f["mss_bytes"], f["mean_rtt_s"], f["p"], C_TABLE1)
            lm = _mathis(f["mss_bytes"], MIN_RTTS[f["flow"]] + qdelay, drop_rate, C_TABLE2)
            errs[(limit, disc, n)] = (
                (abs(tm - bw) / bw, abs(tm1 - bw) / bw) if math.isfinite(tm) else (math.nan,) * 2
            )
            err = lambda m: f"{m / 1e3:.0f} ({abs(m - bw) / bw:.0%})" if math.isfinite(m) else "no CA events"  # noqa: B023 -- called in this iteration only
            body.append(
                [
                    str(limit),
                    disc,
                    str(n),
                    f"{bw / 1e3:.0f} ({pk})",
                    f"{f['ca_events']}+{f['timeouts']}+{f['other_losses']} ({plosses})",
                    f"{f['p']:.4f} ({pp:.4f})",
                    f"{f['mean_rtt_s'] * 1e3:.0f} ({prtt})",
                    f"{err(tm)} [{pmodel}]",
                    err(tm1),
                    err(lm),
                ]
            )
    paper_share = lambda limit, disc: (
        min(PAPER_T23[(limit, disc, 1)][0], PAPER_T23[(limit, disc, 2)][0])
        / max(PAPER_T23[(limit, disc, 1)][0], PAPER_T23[(limit, disc, 2)][0])
    )
    alts = {ack: _phase_summary(ctx, j * len(PHASE_CASES)) for j, ack in enumerate(PHASE_ACKS)}
    mine = alts[PHASE_ACKS[0]]
    control = ctx.rows(len(PHASE_ACKS) * len(PHASE_CASES)).to_dicts()
    rtt_control = [f["mean_rtt_s"] * 1e3 for f in control]
    err_control = max(
        abs(_mathis(f["mss_bytes"], f["mean_rtt_s"], f["p"], C_TABLE2) - f["goodput_bps"]) / f["goodput_bps"]
        for f in control
    )
    q100 = ctx.rows(PHASE_CASES.index((100, "red")))
    # one packet's time on the bottleneck, from the run's own sizes and the scenario's rate
    f0 = q100.row(0, named=True)
    pkt_s = (f0["mss_bytes"] + PHASE_HEADER) * 8 / PHASE_RATE
    q100_pk = q100["link.bottleneck.fwd.mean_queue_delay_s"][0] / pkt_s
    paper_rtt = [PAPER_T23[(15, "red", n)][2] for n in (1, 2)]
    paper_p = [PAPER_T23[(15, "droptail", n)][1] for n in (1, 2)]

    def rel_all(xs, refs):
        return max(abs(rel(x, r)) for x, r in zip(xs, refs, strict=True))

    red_err8 = [errs[(q, "red", n)][0] for q in (15, 100) for n in (1, 2)]
    checks = [
        Check(
            "queue 15, drop-tail: the smaller flow's share of the larger's goodput (phase effect; paper "
            f"{paper_share(15, 'droptail'):.2f})",
            round(shares[(15, "droptail")], 3),
            "below 0.3",
            shares[(15, "droptail")] < 0.3,
        ),
        Check(
            "queue 15, RED: the same share (the phase effect disappears; paper "
            f"{paper_share(15, 'red'):.2f})",
            round(shares[(15, "red")], 3),
            "above 0.8",
            shares[(15, "red")] > 0.8,
        ),
        Check(
            f"queue 100, RED: the same share (paper {paper_share(100, 'red'):.2f})",
            round(shares[(100, "red")], 3),
            "above 0.8",
            shares[(100, "red")] > 0.8,
        ),
        Check(
            "RED: the TCP model with the paper's C = 0.8 against the goodput, worst flow (paper: 1%)",
            f"{max(red_err8):.0%}",
            "within 5%",
            max(red_err8) <= 0.05,
        ),
        Check(
            "queue 15, drop-tail: p of both flows against the paper's .0124 / .0010, worst",
            pct(rel_all(mine["p_dt15"], paper_p)),
            "within 25%",
            rel_all(mine["p_dt15"], paper_p) <= 0.25,
        ),
        Check(
            "queue 15, RED: both flows' RTT against the paper's 304 / 307 ms, worst",
            pct(rel_all(mine["rtt_red15"], paper_rtt)),
            "within 5%",
            rel_all(mine["rtt_red15"], paper_rtt) <= 0.05,
        ),
        Check(
            "queue 100, RED: both flows' RTT against the paper's 304 / 307 ms, worst",
            pct(rel_all(mine["rtt_red100"], paper_rtt)),
            "within 5%",
            rel_all(mine["rtt_red100"], paper_rtt) <= 0.05,
        ),
        Check(
            "control, queue 100 with RED's queue-15 thresholds (5 and 10 packets): both flows' RTT against the "
            "paper's queue-100 RTTs, worst",
            pct(rel_all(rtt_control, paper_rtt)),
            "within 5%",
            rel_all(rtt_control, paper_rtt) <= 0.05,
            paper=False,
        ),
        Check(
            "the same control: the TCP model with C = 0.8 against the goodput, worst flow",
            f"{err_control:.0%}",
            "within 5%",
            err_control <= 0.05,
            paper=False,
        ),
    ]
    alt_table = [
        [
            "ACK policy",
            "RED: worst C = 0.8 model error (paper 1%)",
            "queue 15 drop-tail: p (paper .0124 / .0010)",
            "queue 15 drop-tail: share (paper 0.21)",
            "queue 15 RED: RTT ms (paper 304 / 307)",
            "queue 100 RED: RTT ms (paper 304 / 307)",
        ]
    ] + [
        [
            ack + (" (the item's)" if ack == PHASE_ACKS[0] else ""),
            f"{a['red_err']:.0%}",
            " / ".join(f"{x:.4f}" for x in a["p_dt15"]),
            f"{a['share_dt15']:.2f}",
            " / ".join(f"{x:.0f}" for x in a["rtt_red15"]),
            " / ".join(f"{x:.0f}" for x in a["rtt_red100"]),
        ]
        for ack, a in alts.items()
    ]
    dt = ctx.rows(0).to_dicts()
    starved = min(dt, key=lambda f: f["goodput_bps"])
    paper_to = PAPER_T23[(15, "droptail", starved["flow"] + 1)][3].split("+")[1]
    dt100 = ctx.rows(PHASE_CASES.index((100, "droptail"))).to_dicts()
    measured = f"in {float(f0['duration']) - float(f0['warmup']):.0f} s"
    explanation = (
        "Sec. 3.3 does not state the receivers' ACK policy; its model entries use C = 0.8, which footnote 11 "
        "says was fitted on the paper's own simulations, and Fig. 6's data (delayed ACKs) is where C near 0.8 "
        "comes from. The item runs delayed ACKs for that reason and shows an ACK per segment beside it (the "
        "table of the ACK policy the paper leaves open): the worst RED model error with C = 0.8 is "
        f"{alts['delayed']['red_err']:.0%} with delayed ACKs and {alts['immediate']['red_err']:.0%} with an ACK "
        f"per segment. With drop-tail the starved flow (flow {starved['flow'] + 1}) takes {starved['timeouts']} "
        f"timeouts (paper {paper_to}) at queue 15; at queue 100 the flows see "
        + " and ".join(str(f["ca_events"]) for f in dt100)
        + f" CA events {measured}, few for p and the model. The queue-100 RED RTTs are "
        f"{' / '.join(f'{x:.0f}' for x in mine['rtt_red100'])} ms against the paper's "
        f"{' / '.join(str(x) for x in paper_rtt)}, the paper's queue-15 values: the scenario's RED thresholds "
        f"are tcplab's defaults, a third and two thirds of the limit ({100 / 3:.0f} and {200 / 3:.0f} packets at "
        f"queue 100), where RED holds a mean queue of {q100_pk:.0f} packets ({pkt_s * 1e3:.0f} ms each on the "
        "bottleneck). With the queue-15 thresholds ("
        f"{PHASE_CONTROL['network.dumbbell.bottleneck.queue.red.min_th']} and "
        f"{PHASE_CONTROL['network.dumbbell.bottleneck.queue.red.max_th']} packets) kept at queue 100, the control "
        f"run's RTTs are {' / '.join(f'{x:.0f}' for x in rtt_control)} ms and the model with C = 0.8 is within "
        f"{err_control:.0%} of both flows (with the scaled thresholds the flows see "
        + " and ".join(str(f["ca_events"]) for f in q100.to_dicts())
        + f" CA events {measured}): the control reproduces Table 3's RED, which suggests that its RED kept the "
        "queue-15 thresholds; the paper does not state them."
    )
    notes = (
        "Two SACK flows, 800 kbit/s bottleneck with 100 ms delay, access delays 5 ms and 9.9 ms (minimum RTTs "
        "221.4 and 231.2 ms), 1000-byte packets, delayed ACKs (`--set flows.N.ack=delayed`; the scenario file "
        "has an ACK per segment, the alternatives table runs both), 100 s warm-up + 500 s measured, seed 1. "
        "Each cell: tcplab (paper). TCP model: each flow's own p (CA events per acked segment) and mean RTT; "
        "link model: the link's drop rate and min RTT + mean queueing delay. RED: min_th and max_th at 1/3 and "
        "2/3 of the limit; the control: 5 and 10 packets at queue 100."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        notes=notes,
        extra=[("The ACK policy the paper leaves open", alt_table)],
        numbers={
            "shares": {f"{k[0]}-{k[1]}": v for k, v in shares.items()},
            "alternatives": alts,
            "control_rtt_ms": rtt_control,
        },
    )


register(
    Item(
        "mathis-tables2-3",
        PAPER,
        "Tables 2-3",
        "phase effects with drop-tail, and RED",
        "Two flows whose RTTs differ by 4.9 ms share an 800 kbit/s bottleneck: with drop-tail (queue 15) one is "
        "starved (133 vs 648 kb/s) and the link model misses both; with RED both get about half and the TCP model "
        "predicts each within a few percent. Table 3 repeats with a 100-packet queue.",
        ("mathis/phase-effects.toml",),
        _phase_jobs,
        _phase_evaluate,
    )
)
