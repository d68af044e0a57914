"""Parvez et al. 2010, Sec. IV: bursty loss (Fig 6) and Bernoulli loss (Figs 7-8)."""

from __future__ import annotations

import math

from tcplab.reproduce.core import Check, Context, Item, Job, Outcome, register
from tcplab.reproduce.items.parvez.shared import (
    BERNOULLI,
    BURSTY,
    FIG6,
    FIG6_ABLATIONS,
    FIG6_QUICK,
    LOSS,
    NATIVE_FLOW,
    PAPER,
    WHOLE_W,
    err,
    flow_models,
    mean,
    timeout_share,
)


def _bursty_points(quick: bool):
    return [(p, m) for p, ms in (FIG6_QUICK if quick else FIG6).items() for m in ms]


def _bursty_jobs(quick: bool) -> list[Job]:
    jobs = [Job(BURSTY, {f"{LOSS}.p": p, f"{LOSS}.m": m}) for p, m in _bursty_points(quick)]
    jobs += [
        Job(BURSTY, {f"{LOSS}.p": p, f"{LOSS}.m": m, **sets}, traces="trace.cwnd" in sets)
        for _, p, m, sets in FIG6_ABLATIONS
    ]
    return jobs


def _ssthresh_raised_by_timeouts(cwnd) -> tuple[int, int]:
    """(timeouts that raised ssthresh, timeouts) in a cwnd trace: a timeout is a drop of cwnd to
    one segment; it raised ssthresh when ssthresh after it exceeds ssthresh before it."""
    if cwnd.is_empty():
        return 0, 0
    mss = NATIVE_FLOW["mss"]
    rows = cwnd.sort("time_ns").to_dicts()
    raised = total = 0
    for before, after in zip(rows, rows[1:], strict=False):
        if after["cwnd_bytes"] == mss and before["cwnd_bytes"] > mss:
            total += 1
            raised += after["ssthresh_bytes"] > before["ssthresh_bytes"]
    return raised, total


def _bursty_evaluate(ctx: Context) -> Outcome:
    from tcplab.models import newreno

    head = [
        "p (imposed)",
        "m",
        "sim kb/s",
        "loss event rate",
        "packet loss rate",
        "q (Eq. 30)",
        "R ms",
        "timeouts",
        "NewReno model kb/s (err)",
        "PFTK kb/s (err)",
    ]
    points = _bursty_points(ctx.quick)
    body, errs, errs_pf, sim = [], [], [], {}
    by_p: dict[float, list] = {}
    for i, (p0, m) in enumerate(points):
        df = ctx.rows(i)
        f = df.row(0, named=True)
        plr = df["link.bottleneck.fwd.drops_loss"][0] / df["link.bottleneck.fwd.packets_in"][0]
        p = f["loss_event_rate"]
        try:
            q = float(newreno.q_from_packet_loss(p, max(plr, p), integer_window=WHOLE_W))
        except ValueError:
            q = math.nan
        nr, pf = flow_models(f, q if math.isfinite(q) else None)
        bw = f["goodput_bps"]
        sim[(p0, m)] = f
        errs.append(err(nr, bw))
        errs_pf.append(err(pf, bw))
        by_p.setdefault(p0, []).append((m, bw))
        body.append(
            [
                f"{p0:.2%}",
                str(m),
                f"{bw / 1e3:.0f}",
                f"{p:.5f}",
                f"{plr:.5f}",
                f"{q:.4f}",
                f"{f['mean_rtt_s'] * 1e3:.1f}",
                str(f["timeouts"]),
                f"{nr / 1e3:.0f} ({errs[-1]:.0%})",
                f"{pf / 1e3:.0f} ({errs_pf[-1]:.0%})",
            ]
        )
    avg, avg_pf = mean(errs), mean(errs_pf)
    per_p: dict[float, tuple[float, float]] = {}
    for (p0, _), e, e_pf in zip(points, errs, errs_pf, strict=True):
        a_, b_ = per_p.get(p0, (0.0, 0.0))
        per_p[p0] = (
            a_ + e / sum(q0 == p0 for q0, _ in points),
            b_ + e_pf / sum(q0 == p0 for q0, _ in points),
        )
    worse = [p0 for p0, (e, e_pf) in per_p.items() if e >= e_pf]
    drop = {p0: pts[-1][1] / pts[0][1] for p0, pts in by_p.items()}
    # The ablations: the shipped scenario's two choices undone, one at a time.
    abl_head = ["variation", "p", "m", "sim kb/s (as shipped)", "timeouts (as shipped)", "loss events"]
    abl, ratios = [], []
    for j, (label, p0, m, _) in enumerate(FIG6_ABLATIONS):
        f = ctx.rows(len(points) + j).row(0, named=True)
        ref = sim[(p0, m)]
        ratios.append(f["goodput_bps"] / ref["goodput_bps"])
        abl.append(
            [
                label,
                f"{p0:.2%}",
                str(m),
                f"{f['goodput_bps'] / 1e3:.0f} ({ref['goodput_bps'] / 1e3:.0f})",
                f"{f['timeouts']} ({ref['timeouts']})",
                str(f["loss_events"]),
            ]
        )
    raised, rtos = _ssthresh_raised_by_timeouts(ctx.trace(len(points), "cwnd"))
    raised_eq4, rtos_eq4 = _ssthresh_raised_by_timeouts(ctx.trace(len(points) + 1, "cwnd"))
    checks = [
        Check(
            "NewReno model: average error over every (p, m)",
            f"{avg:.1%}",
            'at most 15% (the paper gives no average for Fig. 6; it says the model "tracks this trend '
            'well"; its Bernoulli average is 9.0%)',
            avg <= 0.15,
        ),
        Check(
            "the NewReno model's average error below PFTK's (the paper's point)",
            f"{avg:.1%} vs {avg_pf:.1%}",
            "NewReno < PFTK",
            avg < avg_pf,
        ),
        Check(
            "at every p, the NewReno model's average error over m below PFTK's (the model 'tracks this trend "
            "well', PFTK does not): the p where it is not",
            ", ".join(f"{p0:.2%} ({per_p[p0][0]:.1%} vs {per_p[p0][1]:.1%})" for p0 in worse) or "none",
            "none",
            not worse,
        ),
    ]
    checks += [
        Check(
            f"p = {p0:.2%}: throughput at the largest m over m = 1 (decreases with m, as in Fig. 6)",
            f"{d:.2f}",
            "below 0.8",
            d < 0.8,
        )
        for p0, d in drop.items()
    ]
    # The two scenario choices undone (the second table) are measurements shown, not checks: they say
    # why the scenario is as it is, not why the models' errors differ from the paper's.
    explanation = (
        "PFTK ignores the number of losses per event, so its error grows with m; the NewReno model's q "
        f"(Eq. 30 from the measured packet loss rate) carries it. Average errors: NewReno model {avg:.1%}, PFTK "
        f"{avg_pf:.1%}. Two choices of the scenario decide this figure, and the second table undoes each once. "
        "(1) The sender is tcplab's model of ns-2's NewReno agent (`profile = \"ns2\"`) with the settings of ns-2's "
        "tcpVariants suite, the ones it is validated against: the retransmit timer restarted on every partial ACK "
        "(Slow-but-Steady) and full window deflation. The paper does not name its settings; ns-2 2.35's defaults "
        "are Impatient with partial deflation (`newreno_changes1_` 1, `partial_window_deflation_` 1), which the "
        "profile does not model, so this sender probably differs from the paper's. tcplab's native NewReno is "
        "Impatient (RFC 6582): its timer expires inside the m-RTT recovery. At p = 0.05%, m = 5 it gets "
        f"{ratios[0]:.2f} times the ns-2 agent's throughput, and its (bounded) cwnd trace has ssthresh rise on "
        f'{raised} of {rtos} timeouts (tcplab\'s `rto_in_recovery = "no_raise"`: a timeout inside the recovery '
        "keeps at most the recovery's ssthresh, as Linux does). With RFC 5681's Eq. 4 alone "
        "(`flight_size`), FlightSize on that timeout counts the new data the inflated window sent during the "
        f"recovery (ns-2 halves cwnd_, which inflation leaves alone): ssthresh rises on {raised_eq4} of "
        f"{rtos_eq4} timeouts and the flow gets {ratios[1]:.2f} times the ns-2 agent's throughput. (2) A burst "
        "ends one RTT after its first drop, as the model's loss "
        "event does (Sec. II-B). Counted in arrivals alone, a burst that catches a flow in a timeout takes its "
        "next retransmissions one backed-off RTO apart, and at p = 1% and m = 10 the flow keeps "
        f"{ratios[2]:.0%} of its throughput. The paper says only that m back-to-back packets are dropped. "
        "R is the sender's mean RTT sample (ns-2's 10 ms tick; long recoveries lengthen it); RTO = 3R as the "
        "paper. Average errors per p (NewReno model vs PFTK): "
        + ", ".join(f"{p0:.2%}: {e:.1%} vs {e_pf:.1%}" for p0, (e, e_pf) in per_p.items())
        + (
            "; the NewReno model is not the closer one at "
            + ", ".join(f"{p0:.2%}" for p0 in worse)
            + ", the reverse of the paper's point there, and the scenario's two choices above do not account "
            "for it: not explained."
            if worse
            else ": the model is the closer one at every p, as in the paper."
        )
    )
    notes = (
        "One NewReno flow (tcplab's model of ns-2's agent, `profile = \"ns2\"`), 45 Mbit/s, 75 ms RTT, loss "
        "events at rate p per packet each dropping m back-to-back packets within one RTT (tcplab's `bursty` "
        'loss model on the bottleneck, `span = "75ms"`), 1000 s with the last 750 s measured. Model inputs '
        "from the flow: "
        "loss event rate p (events per segment sent), mean RTT R, RTO = 3R, and q from Eq. 30 with the packet "
        "loss rate measured at the link."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        notes=notes,
        extra=[("The scenario's two choices undone, one at a time", [abl_head] + abl)],
        numbers={
            "average_error_newreno": avg,
            "average_error_pftk": avg_pf,
            "ablation_ratios": ratios,
            "native_timeouts_raising_ssthresh": [raised, rtos],
        },
    )


register(
    Item(
        "parvez-fig6",
        PAPER,
        "Fig 6",
        "bursty loss: throughput against the losses per event",
        "One NewReno flow with loss events at p = 0.05% (m = 1..20) and p = 1% (m = 1..10), m packets dropped per "
        "event: the simulated throughput falls with m, the NewReno model with q from Eq. 30 follows it, PFTK does not.",
        (BURSTY,),
        _bursty_jobs,
        _bursty_evaluate,
        quick="m = 1, 5, 10, 20 at 0.05% and 1, 4, 10 at 1%; the two variations in both forms",
    )
)


# ---- Figs 7-8: Bernoulli loss -------------------------------------------------------------------------

FIG7 = (0.0001, 0.0003, 0.001, 0.003, 0.01, 0.02, 0.03, 0.05, 0.1)
FIG7_QUICK = (0.0001, 0.001, 0.01, 0.03, 0.1)


def _bern_jobs(quick: bool) -> list[Job]:
    return [
        Job(BERNOULLI, {"network.dumbbell.bottleneck.loss.p": p}) for p in (FIG7_QUICK if quick else FIG7)
    ]


def _bern_evaluate(ctx: Context) -> Outcome:
    from tcplab.models import newreno

    head = [
        "imposed loss",
        "NewReno kb/s",
        "LER / PLR",
        "NewReno loss events ending in a timeout: measured (Eq. 24)",
        "NewReno model kb/s (err)",
        "PFTK kb/s (err)",
        "Reno kb/s",
        "LER / PLR",
        "PFTK (Reno) kb/s (err)",
    ]
    body, e_nr, e_pf, e_reno, points = [], [], [], [], []
    for i, p0 in enumerate(FIG7_QUICK if ctx.quick else FIG7):
        df = ctx.rows(i)
        fl = {f["tcp"]: f for f in df.to_dicts()}
        nr, reno = fl["newreno"], fl["reno"]
        m_nr, pf_nr = flow_models(nr)
        _, pf_reno = flow_models(reno)
        e_nr.append(err(m_nr, nr["goodput_bps"]))
        e_pf.append(err(pf_nr, nr["goodput_bps"]))
        e_reno.append(err(pf_reno, reno["goodput_bps"]))
        points.append(
            {
                "imposed": p0,
                "mss_bytes": nr["mss_bytes"],
                "loss_event_rate": nr["loss_event_rate"],
                "mean_rtt_s": nr["mean_rtt_s"],
                "error_newreno": e_nr[-1],
                "error_pftk_newreno": e_pf[-1],
                "error_pftk_reno": e_reno[-1],
                "error_newreno_real_w": err(flow_models(nr, whole_w=False)[0], nr["goodput_bps"]),
            }
        )
        plr = lambda f: f["segments_retransmitted"] / f["segments_sent"]  # noqa: E731
        p = nr["loss_event_rate"]
        pto = float(newreno.timeout_probability(p, p, math.ceil(newreno.window(p, p)) if WHOLE_W else None))
        body.append(
            [
                f"{p0:.2%}",
                f"{nr['goodput_bps'] / 1e3:.0f}",
                f"{nr['loss_event_rate']:.2%} / {plr(nr):.2%}",
                f"{timeout_share(nr):.0%} ({pto:.0%})",
                f"{m_nr / 1e3:.0f} ({e_nr[-1]:.0%})",
                f"{pf_nr / 1e3:.0f} ({e_pf[-1]:.0%})",
                f"{reno['goodput_bps'] / 1e3:.0f}",
                f"{reno['loss_event_rate']:.2%} / {plr(reno):.2%}",
                f"{pf_reno / 1e3:.0f} ({e_reno[-1]:.0%})",
            ]
        )
    a_nr, a_pf, a_reno = mean(e_nr), mean(e_pf), mean(e_reno)
    body.append(
        [
            "average error",
            "",
            "",
            "",
            f"{a_nr:.1%} (paper 9.0%)",
            f"{a_pf:.1%} (paper 11%)",
            "",
            "",
            f"{a_reno:.1%} (paper 25%)",
        ]
    )
    checks = [
        Check(
            "NewReno model on the NewReno flow: average error",
            f"{a_nr:.1%}",
            "at most 14% (the paper's 9.0% + 5 points)",
            a_nr <= 0.14,
        ),
        Check(
            "NewReno model on the NewReno flow: largest error",
            f"{max(e_nr):.1%}",
            "at most 20% (the paper's 15% + 5 points)",
            max(e_nr) <= 0.20,
        ),
    ]
    worst = (FIG7_QUICK if ctx.quick else FIG7)[max(range(len(e_nr)), key=lambda j: e_nr[j])]
    explanation = (
        f"The average error of the NewReno model, {a_nr:.1%}, against the paper's 9.0%; its largest "
        f"error is {max(e_nr):.0%} (imposed loss {worst:.0%}; paper: at most 15%). At high loss rates "
        "most loss events end in a timeout, and the model's RTO = 3R (the paper's approximation) is then "
        "what decides: the simulated sender's RTO is Jacobson's a + 4v with a 200 ms floor, and backs "
        "off exponentially on repeated timeouts. PFTK's errors: "
        f"{a_pf:.1%} on NewReno (paper 11%), {a_reno:.1%} on Reno (paper 25%)."
    )
    notes = (
        "Two foreground flows (NewReno, Reno), 15 Mbit/s, 75 ms RTT, Bernoulli loss on the bottleneck at the "
        "imposed rate, a buffer large enough for no congestion loss, ns-2's timers, 1000 s with the last 750 s "
        "measured. LER: loss events per segment sent (the model's p); PLR: retransmitted segments per segment "
        "sent. Models with q = p, R the flow's mean RTT, RTO = 3R (Sec. IV-A); the NewReno model with W (Eq. 14) "
        "rounded up to whole segments, as the paper evaluates Eq. 29 (parvez-table4). Error = |sim - model| / sim."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        notes=notes,
        numbers={
            "average_error_newreno": a_nr,
            "average_error_pftk_newreno": a_pf,
            "average_error_pftk_reno": a_reno,
            "points": points,
        },
    )


register(
    Item(
        "parvez-figs7-8",
        PAPER,
        "Figs 7-8",
        "Bernoulli loss: the models against simulation",
        "Two flows (NewReno, Reno) with Bernoulli loss from 0.01% to 10%: the NewReno model's error is 0-15%, 9.0% on "
        "average; PFTK applied to NewReno averages 11%, to Reno 25%. Fig. 8: loss event rate and packet loss rate "
        "against the imposed rate.",
        (BERNOULLI,),
        _bern_jobs,
        _bern_evaluate,
        quick="5 loss rates instead of 9",
    )
)
