"""Parvez et al. 2010, Sec. IV: the background's variations, on-off UDP (Fig 11), system scaling
(Fig 12) and the bottleneck's buffer size (Fig 13). Figs 9-10 are in
`tcplab.reproduce.items.parvez.background`.
"""

from __future__ import annotations

import math

from tcplab.models.newreno_paper import pftk_over_newreno_max, ratio_band
from tcplab.reproduce.core import Check, Context, Item, Job, Outcome, register
from tcplab.reproduce.items.parvez.anatomy import (
    ANATOMY_HEAD,
    ANATOMY_TITLE,
    CONTROL_P,
    TRACE_KEEP,
    TRACE_SETS,
    anatomy_checks,
    anatomy_note,
    anatomy_of,
    anatomy_row,
    control_job,
)
from tcplab.reproduce.items.parvez.open_setups import AGENTS, TICK, open_note, open_row, open_table
from tcplab.reproduce.items.parvez.shared import (
    BACKGROUND,
    BERNOULLI,
    FG_HEAD,
    PAPER,
    averages,
    avg_cells,
    burst_note,
    by_p,
    fg_cells,
    foreground,
    mean,
    ratio_note,
    ratio_range,
    span,
)

# ---- Fig 11: on-off UDP background ----------------------------------------------------------------------

UDP = "parvez/udp-background.toml"
# The number of on-off UDP sources (the paper does not give it): the item's reading, 2-10 sources,
# and the heavier loads tried beside it (drop-tail only), shown in the alternatives table.
FIG11 = (2, 4, 6, 8, 10)
FIG11_QUICK = {"droptail": FIG11, "red": (6,)}
FIG11_ALT = {"5-25 sources": (5, 10, 15, 20, 25)}
PAPER_FIG11 = {"droptail": (0.031, 0.090), "red": (0.10, 0.10)}  # RED: "each below 10%" (not shown)


def _udp_points(quick: bool):
    if quick:
        return [(q, n) for q, ns in FIG11_QUICK.items() for n in ns]
    return [(q, n) for q in ("droptail", "red") for n in FIG11]


def _udp_alt_points():
    return [(label, n) for label, ns in FIG11_ALT.items() for n in ns]


def _udp_job(q: str, n: int) -> Job:
    return Job(UDP, {"network.dumbbell.bottleneck.queue.discipline": q, "traffic.2.count": n})


def _udp_jobs(quick: bool) -> list[Job]:
    return [_udp_job(q, n) for q, n in _udp_points(quick)] + [
        _udp_job("droptail", n) for _, n in _udp_alt_points()
    ]


def _udp_mbps(df) -> float:
    """UDP delivered in the measurement window, Mbit/s: the datagram bytes the group's receivers got."""
    return df["group.udp.goodput_bps"][0] / 1e6


def _udp_evaluate(ctx: Context) -> Outcome:
    head = ["queue", "UDP sources", "UDP Mbit/s", "link drop rate"] + FG_HEAD
    body: list[list] = []
    gs: dict[str, list] = {q: [] for q in PAPER_FIG11}
    for i, (q, n) in enumerate(_udp_points(ctx.quick)):
        df = ctx.rows(i)
        g = foreground(df)
        gs[q].append(g)
        body.append(
            [q, str(n), f"{_udp_mbps(df):.1f}", f"{df['link.bottleneck.fwd.drop_rate'][0]:.2%}"] + fg_cells(g)
        )
    avg = {q: averages(gs[q]) for q in gs}
    body.append(
        ["droptail", "average error", "", ""] + avg_cells(avg["droptail"], PAPER_FIG11["droptail"] + (None,))
    )
    body.append(["red", "average error", "", ""] + avg_cells(avg["red"], (None, None, None)))
    dt, red = avg["droptail"], avg["red"]
    n_main = len(_udp_points(ctx.quick))
    alt_g: dict[str, list] = {}
    for j, (label, _) in enumerate(_udp_alt_points()):
        alt_g.setdefault(label, []).append(foreground(ctx.rows(n_main + j)))
    alt_rows = [["drop-tail, UDP sources", "NewReno model error (paper 3.1%)", "PFTK error (paper 9.0%)"]]
    alt_rows.append(
        [f"{FIG11[0]}-{FIG11[-1]} sources (the item's)", f"{dt['e_model']:.1%}", f"{dt['e_pftk']:.1%}"]
    )
    for label, runs in alt_g.items():
        a_alt = averages(runs)
        alt_rows.append([label, f"{a_alt['e_model']:.1%}", f"{a_alt['e_pftk']:.1%}"])
    checks = [
        Check(
            "drop-tail: NewReno model's average error on the NewReno flow (the paper: 3.1%)",
            f"{dt['e_model']:.1%}",
            "within 3 points",
            abs(dt["e_model"] - 0.031) <= 0.03,
        ),
        Check(
            "drop-tail: PFTK's average error on the NewReno flow (the paper: 9.0%)",
            f"{dt['e_pftk']:.1%}",
            "within 3 points",
            abs(dt["e_pftk"] - 0.090) <= 0.03,
        ),
        Check(
            "drop-tail: the NewReno model's average error below PFTK's on the NewReno flow (the paper: 3.1% "
            "against 9.0%)",
            f"{dt['e_model']:.1%} vs {dt['e_pftk']:.1%}",
            "NewReno model < PFTK",
            dt["e_model"] < dt["e_pftk"],
        ),
        Check(
            "RED: NewReno model's average error on the NewReno flow",
            f"{red['e_model']:.1%}",
            "at most 15% (the paper: below 10%, not shown; + 5 points)",
            red["e_model"] <= 0.15,
        ),
        Check(
            "RED: the NewReno model's average error below PFTK's on the NewReno flow",
            f"{red['e_model']:.1%} vs {red['e_pftk']:.1%}",
            "NewReno model < PFTK",
            red["e_model"] < red["e_pftk"],
        ),
    ]
    pf_lo = min(g["e_pftk"] for g in gs["droptail"])
    pf_hi = max(g["e_pftk"] for g in gs["droptail"])
    everything = gs["droptail"] + gs["red"]
    explanation = (
        f"NewReno model average errors: drop-tail {dt['e_model']:.1%} (paper 3.1%), RED {red['e_model']:.1%} "
        f"(paper: below 10%); PFTK on NewReno {dt['e_pftk']:.1%} and {red['e_pftk']:.1%} (paper 9.0% and below "
        "10%). "
        + by_p(everything)
        + burst_note(everything, averages(everything))
        + " The paper gives neither the number of UDP sources nor the means of their "
        f"on and off periods: the item runs {FIG11[0]}-{FIG11[-1]} sources with ns-2's default means (500 ms "
        "each), the UDP column is what they delivered. The averages depend on the load (the alternatives "
        "table): PFTK overestimates the NewReno flow by more as the load grows (the paper's reason: events with "
        "several losses take NewReno several RTTs of fast recovery, which PFTK does not price), from "
        f"{pf_lo:.0%} to {pf_hi:.0%} with drop-tail over the item's loads. The item's reading is the load range "
        "on which the paper's two drop-tail averages hold together, when both do; the paper's text allows any."
    )
    notes = (
        "15 Mbit/s bottleneck, 150-packet queue (drop-tail, or RED with thresholds at 1/3 and 2/3), two "
        "foreground flows (NewReno, Reno; ns-2's agents) with 75 ms RTT, 24 HTTP and 8 FTP background "
        "sources (as in Fig 9), and 2-10 on-off UDP sources (5-25 in the alternatives table): 1 Mbit/s when on, 1 KB packets, 70 ms RTT, "
        "Pareto on and off periods (shape 1.2, means 500 ms). 1000 s with the last 750 s measured. Models as "
        "in Figs 7-8 (q = p, RTO = 3R). The full form has 15 runs."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        extra=[
            ("The number of UDP sources the paper leaves open: average errors on the NewReno flow", alt_rows)
        ],
        notes=notes,
        numbers={
            q: {"newreno_model": a["e_model"], "pftk_newreno": a["e_pftk"], "pftk_reno": a["e_pftk_reno"]}
            for q, a in avg.items()
        },
    )


register(
    Item(
        "parvez-fig11",
        PAPER,
        "Fig 11",
        "on-off UDP background traffic",
        "Two flows (NewReno, Reno) on a 15 Mbit/s link with 24 HTTP and 8 FTP sources and a varying number of on-off "
        "CBR UDP sources (1 Mbit/s, Pareto periods): the NewReno model's average error is 3.1% with drop-tail, PFTK's "
        "9.0%; with RED (not shown) both are below 10%.",
        (UDP,),
        _udp_jobs,
        _udp_evaluate,
        quick="RED with 15 UDP sources only (drop-tail as in the full form)",
    )
)

# ---- Fig 12: system scaling --------------------------------------------------------------------------------

FIG12 = (1, 2, 3, 4)  # k: 15k Mbit/s, a 50k-packet queue, 90k HTTP + 10k FTP background sources
FIG12_QUICK = (1, 2, 4)
PAPER_FIG12 = (0.051, 0.11, 0.17)  # average errors: NewReno model, PFTK on NewReno, PFTK on Reno


#: The control: k = 1 with half the background (45 HTTP + 5 FTP sessions), a lighter load than the
#: paper's counts give here; the paper states the counts, not the load nor the loss rates.
FIG12_CONTROL = {"traffic.0.count": 45, "traffic.1.count": 5}
#: Fig 12's queue discipline is not stated ("the initial experimental setup"): RED tried beside AGENTS.
FIG12_RED = ("RED as the bottleneck's queue (the section does not name its discipline)",
             {"network.dumbbell.bottleneck.queue.discipline": "red"})  # fmt: skip


def _scale_sets(k: int) -> dict:
    return {
        "network.dumbbell.bottleneck.rate": f"{15 * k}Mbit/s",
        "network.dumbbell.bottleneck.queue.limit": 50 * k,
        "traffic.0.count": 90 * k,
        "traffic.1.count": 10 * k,
    }


def _scale_open(quick: bool) -> list[tuple[str, str, Job]]:
    """The set-ups the paper leaves open, at k = 1 (the quick form without the 100 ms tick)."""
    return [
        ("droptail", label, Job(BACKGROUND, {**_scale_sets(1), **sets}))
        for label, sets in (*AGENTS, FIG12_RED)
        if not quick or label != TICK
    ]


def _scale_jobs(quick: bool) -> list[Job]:
    main = [Job(BACKGROUND, _scale_sets(k)) for k in (FIG12_QUICK if quick else FIG12)]
    control = Job(BACKGROUND, {**_scale_sets(1), **FIG12_CONTROL})
    return main + [control] + [j for _, _, j in _scale_open(quick)]


def _scale_evaluate(ctx: Context) -> Outcome:
    head = ["bottleneck", "queue", "background", "link drop rate", "NewReno / Reno"] + FG_HEAD
    body, gs = [], []
    for i, k in enumerate(FIG12_QUICK if ctx.quick else FIG12):
        df = ctx.rows(i)
        g = foreground(df)
        gs.append(g)
        g["ratio"] = g["nr"]["goodput_bps"] / g["reno"]["goodput_bps"]
        body.append(
            [
                f"{15 * k} Mbit/s",
                f"{50 * k} packets",
                f"{90 * k} HTTP + {10 * k} FTP",
                f"{df['link.bottleneck.fwd.drop_rate'][0]:.2%}",
                f"{g['ratio']:.2f}",
            ]
            + fg_cells(g)
        )
    a = averages(gs)
    ratio = mean(g["ratio"] for g in gs)
    rnote, pf_ratio = ratio_note(gs, PAPER_FIG12[0], PAPER_FIG12[1])
    hi12 = ratio_range(*PAPER_FIG12[:2])[1]
    p_lo, p_hi = ratio_band(hi12, [g["p"] for g in gs])
    body.append(["average error", "", "", "", f"{ratio:.2f}"] + avg_cells(a, PAPER_FIG12))
    n_main = len(gs)
    gc = foreground(ctx.rows(n_main))
    reno_above = sum(g["reno_to_meas"] > g["pftk_q_reno"] for g in gs)
    control_ok = abs(gc["e_model"] - PAPER_FIG12[0]) <= 0.05 and abs(gc["e_pftk"] - PAPER_FIG12[1]) <= 0.05
    open_rows, holding = open_table(
        ctx, n_main + 1, _scale_open(ctx.quick), {"droptail": gs[0]}, {"droptail": PAPER_FIG12}
    )
    open_rows.append(
        open_row(
            "droptail", "control: half the background (45 HTTP + 5 FTP; not a reading)", gc, PAPER_FIG12
        )[0]
    )
    checks = [
        Check(
            "NewReno model's average error on the NewReno flow (the paper: 5.1%)",
            f"{a['e_model']:.1%}",
            "within 5 points",
            abs(a["e_model"] - PAPER_FIG12[0]) <= 0.05,
        ),
        Check(
            "PFTK's average error on the NewReno flow (the paper: 11%)",
            f"{a['e_pftk']:.1%}",
            "within 5 points",
            abs(a["e_pftk"] - PAPER_FIG12[1]) <= 0.05,
        ),
        Check(
            "PFTK's average error on the Reno flow (the paper: 17%)",
            f"{a['e_pftk_reno']:.1%}",
            "within 5 points",
            abs(a["e_pftk_reno"] - PAPER_FIG12[2]) <= 0.05,
        ),
        Check(
            "the NewReno model's average error below PFTK's on the NewReno flow (the paper: 5.1% against 11%)",
            f"{a['e_model']:.1%} vs {a['e_pftk']:.1%}",
            "NewReno model < PFTK",
            a["e_model"] < a["e_pftk"],
        ),
        Check(
            "NewReno's throughput over Reno's, averaged over the rates",
            f"{ratio:.2f}",
            '1.10 to 1.45 (the paper: "typically 20-35% higher", 0.1 either side)',
            1.10 <= ratio <= 1.45,
        ),
        Check(
            f"control: k = 1 with half the background (p = {gc['p']:.4f}): the NewReno model's and PFTK's errors "
            "on the NewReno flow (the models behave as the paper's at a lighter load: the difference is the loss "
            "event rate)",
            f"{gc['e_model']:.1%} / {gc['e_pftk']:.1%}",
            f"each within 5 points of the paper's {PAPER_FIG12[0]:.1%} and {PAPER_FIG12[1]:.0%}",
            control_ok,
            paper=False,
        ),
        Check(
            "every run: the Reno flow's share of loss episodes with a timeout or a second window cut against "
            "PFTK's timeout probability Q = min(1, 3 sqrt(3p/8)) (PFTK prices fewer of them than the flow takes)",
            f"{reno_above} of {len(gs)} runs above",
            "above in every run",
            reno_above == len(gs),
            paper=False,
        ),
    ]
    explanation = (
        f"Average errors: NewReno model {a['e_model']:.1%} (paper 5.1%), PFTK on NewReno {a['e_pftk']:.1%} "
        f"(paper 11%), PFTK on Reno {a['e_pftk_reno']:.1%} (paper 17%). " + by_p(gs) + " NewReno gets "
        f"{ratio:.2f} times Reno's throughput on average (paper: 1.20-1.35)."
        + rnote
        + (
            f" PFTK over the NewReno model is above {hi12:.2f} at every p from {p_lo:.2%} to {p_hi:.2%}, which "
            f"holds all of tcplab's runs (p = {span(gs, 'p', '.2%')}), so at these loss event rates the paper's "
            "two averages cannot both hold."
            if pf_ratio > hi12 and math.isfinite(p_lo)
            else ""
        )
        + f" With the paper's inputs the NewReno model's average error is {a['e_model']:.1%} "
        + ("within" if abs(a["e_model"] - PAPER_FIG12[0]) <= 0.05 else "not within")
        + f" 5 points of the paper's 5.1%, PFTK's on the NewReno flow {a['e_pftk']:.1%} "
        + ("within" if abs(a["e_pftk"] - PAPER_FIG12[1]) <= 0.05 else "not within")
        + " 5 points of 11%. The control (the last row of the second table), k = 1 with half the background, "
        f"has p = {gc['p']:.2%}: there the NewReno model is {gc['e_model']:.1%} off and PFTK {gc['e_pftk']:.1%} "
        f"(paper 5.1% and 11%), PFTK on the Reno flow {gc['e_pftk_reno']:.1%} (paper 17%). The paper gives its "
        "background by counts and means, not its load nor the flows' loss rates"
        + (
            "; tcplab's counts give loss event rates at which PFTK's error on the NewReno flow cannot be the "
            "paper's, and a lighter load gives it."
            if pf_ratio > hi12 and control_ok
            else "."
        )
        + f" PFTK on the Reno flow: the flow's loss episodes have a timeout or a second window cut "
        f"{span(gs, 'reno_to_meas')} of the time, where PFTK's Q is {span(gs, 'pftk_q_reno')} ({reno_above} of "
        f"{len(gs)} runs above), and in the control it is {gc['e_pftk_reno']:.1%} off"
        + (
            ": the Reno flow's difference is not only the load."
            if abs(gc["e_pftk_reno"] - PAPER_FIG12[2]) > 0.05
            else "."
        )
        + open_note("k = 1 (15 Mbit/s, 90 HTTP + 10 FTP)", holding)
        + burst_note(gs, a)
    )
    notes = (
        "The set-up of Fig 9 (background.toml, drop-tail) scaled in steps k = 1..4: a 15k Mbit/s bottleneck "
        "with a 50k-packet queue and 100k background sources (90% HTTP, 10% FTP); two foreground flows "
        "(NewReno, Reno; ns-2's agents) with 75 ms RTT; 1000 s with the last 750 s measured. Models as in "
        "Figs 7-8 (q = p, RTO = 3R). At k = 1 the set-ups the paper leaves open, and a control with half the "
        "background (45 HTTP + 5 FTP), are run beside the item's reading."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        notes=notes,
        extra=[
            (
                "The set-ups the paper leaves open, at k = 1"
                + (" (quick form: without the 100 ms tick)" if ctx.quick else "")
                + ", and the control",
                open_rows,
            )
        ],
        numbers={
            "newreno_model": a["e_model"],
            "pftk_newreno": a["e_pftk"],
            "pftk_reno": a["e_pftk_reno"],
            "control_newreno_model": gc["e_model"],
            "control_pftk_newreno": gc["e_pftk"],
            "newreno_over_reno": ratio,
            "pftk_over_newreno_model": pf_ratio,
            "newreno_model_measured_timeouts": a["e_model_to"],
        },
    )


register(
    Item(
        "parvez-fig12",
        PAPER,
        "Fig 12",
        "system scaling",
        "The bottleneck (15 to 60 Mbit/s), its queue (50 to 200 packets) and the background (100 to 400 sources, "
        "90% HTTP) scaled together: NewReno gets 20-35% more than Reno; the NewReno model's average error is 5.1%, "
        "PFTK's 11% on NewReno and 17% on Reno.",
        (BACKGROUND,),
        _scale_jobs,
        _scale_evaluate,
        quick="15, 30 and 60 Mbit/s (not 45); the 100 ms tick is tried in the full form only",
    )
)

# ---- Fig 13: bottleneck buffer size ----------------------------------------------------------------------

FIG13 = (25, 50, 75, 100, 125, 150)  # queue limit, packets
FIG13_QUICK = (25, 75, 150)
PAPER_FIG13 = (0.029, 0.28, None)  # average errors: NewReno model, PFTK on NewReno (PFTK on Reno not given)


def _buffer_sets(b: int) -> dict:
    return {"network.dumbbell.bottleneck.queue.limit": b, "traffic.0.count": 50, "traffic.1.count": 50}


def _buffer_open() -> list[tuple[str, str, Job]]:
    """The set-ups the paper leaves open, at the smallest queue (25 packets, both forms)."""
    return [
        ("droptail", label, Job(BACKGROUND, {**_buffer_sets(FIG13[0]), **sets})) for label, sets in AGENTS
    ]


def _buffer_jobs(quick: bool) -> list[Job]:
    sizes = FIG13_QUICK if quick else FIG13
    main = [Job(BACKGROUND, {**_buffer_sets(b), **TRACE_SETS}, traces=TRACE_KEEP) for b in sizes]
    return main + [control_job()] + [j for _, _, j in _buffer_open()]


def _buffer_evaluate(ctx: Context) -> Outcome:
    head = ["queue", "link drop rate"] + FG_HEAD
    body, gs = [], []
    sizes = FIG13_QUICK if ctx.quick else FIG13
    for i, b in enumerate(sizes):
        df = ctx.rows(i)
        g = foreground(df)
        gs.append(g)
        body.append([f"{b} packets", f"{df['link.bottleneck.fwd.drop_rate'][0]:.2%}"] + fg_cells(g))
    a = averages(gs)
    body.append(["average error", ""] + avg_cells(a, PAPER_FIG13))
    runs = [anatomy_of(ctx, i) for i in range(len(sizes))]
    control = anatomy_of(ctx, len(sizes))
    tries = _buffer_open()
    tried = [foreground(ctx.rows(len(sizes) + 1 + j)) for j in range(len(tries))]
    open_rows, holding = open_table(
        ctx, len(sizes) + 1, tries, {"droptail": gs[0]}, {"droptail": PAPER_FIG13}, f", {sizes[0]} packets"
    )
    anatomy = (
        [ANATOMY_HEAD]
        + [anatomy_row(f"queue {b} packets", a) for b, a in zip(sizes, runs, strict=True)]
        + [anatomy_row(f"control: Bernoulli {CONTROL_P:.0%}", control)]
    )
    bursty = sum(a["m_mean"] >= a["m_qp"] + 0.5 for a in runs)
    above = sum(a["to_share"] > control["to_share"] for a in runs)
    checks = (
        [
            Check(
                "the NewReno model's average error below PFTK's on the NewReno flow (the paper: 2.9% against 28%)",
                f"{a['e_model']:.1%} vs {a['e_pftk']:.1%}",
                "NewReno model < PFTK",
                a["e_model"] < a["e_pftk"],
            ),
            Check(
                "with the measured timeout share in Eq. 24's place, the NewReno model's average error against its "
                "error with the paper's inputs (the error is the timeouts)",
                f"{a['e_model_to']:.1%} vs {a['e_model']:.1%}",
                "at most half",
                a["e_model_to"] <= a["e_model"] / 2,
                paper=False,
            ),
            Check(
                "NewReno model's and PFTK's average errors on the NewReno flow (the paper: 2.9% and 28%)",
                f"{a['e_model']:.1%} / {a['e_pftk']:.1%}",
                "each within 5 points",
                abs(a["e_model"] - PAPER_FIG13[0]) <= 0.05 and abs(a["e_pftk"] - PAPER_FIG13[1]) <= 0.05,
            ),
        ]
        + anatomy_checks(runs, control, PAPER_FIG13[0])
        + [
            Check(
                "every run: the NewReno flow's packets lost per loss event against q = p's",
                f"{bursty} of {len(runs)} runs",
                "at least half a packet more in every run",
                bursty == len(runs),
                paper=False,
            ),
            Check(
                f"every run: its share of loss events ending in a timeout against the control's ({control['to_share']:.0%} "
                f"at p = {control['p']:.4f}; the runs' p: {span(gs, 'p', '.4f')})",
                f"{above} of {len(runs)} runs above",
                "above in every run",
                above == len(runs),
                paper=False,
            ),
        ]
    )
    over = sum(g["pftk"] > g["nr"]["goodput_bps"] for g in gs)
    checks.append(
        Check(
            'PFTK overestimates the NewReno flow (the paper: "the PFTK model overestimates the throughput")',
            f"{over} of {len(gs)} queue sizes",
            "at every queue size",
            over == len(gs),
        )
    )
    rnote, pf_ratio = ratio_note(gs, PAPER_FIG13[0], PAPER_FIG13[1])
    real_max, real_at = pftk_over_newreno_max(False)
    whole_max, _ = pftk_over_newreno_max(True)
    need = ratio_range(PAPER_FIG13[0], PAPER_FIG13[1])[0]
    explanation = (
        f"Average errors: NewReno model {a['e_model']:.1%} (paper 2.9%), PFTK on NewReno {a['e_pftk']:.1%} "
        f"(paper 28%), PFTK on Reno {a['e_pftk_reno']:.1%} (not given). "
        + by_p(gs)
        + rnote
        + f" (With the real W of Eq. 14 the ratio never exceeds {real_max:.3f} (at p = {real_at:.2%}) while W >= 4, "
        f"short of the {need:.3f} the paper's averages need; with W rounded up, as the paper's Table IV "
        f"evaluates Eq. 29, it reaches {whole_max:.3f}: the figure's own numbers point the same way.)"
        + (
            " So tcplab's runs are at loss event rates the paper's averages allow, and at those rates tcplab's "
            "NewReno flow gets less than the model where the paper's got about as much: the difference is in its "
            "timeouts, as follows."
            if need <= pf_ratio <= ratio_range(*PAPER_FIG13[:2])[1]
            else ""
        )
        + burst_note(gs, a)
        + f" The NewReno model's average error with the paper's inputs is {a['e_model']:.1%} against the paper's "
        "2.9% (+ 5 points: 7.9%), so the figure is not reproduced; the rest says why, from measurements."
        + anatomy_note(runs, control)
        + " At the smallest queue, where the model is furthest off, the foreground agents' settings the paper "
        "does not state (the last table) give: "
        + "; ".join(
            f"{label}: timeouts in {g['to_meas']:.0%} of loss events (as run: {gs[0]['to_meas']:.0%}), the "
            f"NewReno model {g['e_model']:.1%} off (as run: {gs[0]['e_model']:.1%})"
            for (_, label, _), g in zip(tries, tried, strict=True)
        )
        + "."
        + open_note(f"a {sizes[0]}-packet queue", holding)
        + (
            ' Hence "explained": the difference is in the loss process of the background traffic (the measured '
            "reasons above), which the paper does not give enough to rebuild."
            if not holding
            else ""
        )
    )
    notes = (
        "The set-up of Fig 9 (background.toml, drop-tail, 15 Mbit/s) with 50 HTTP and 50 FTP background "
        "sources and the bottleneck's queue from 25 to 150 packets; two foreground flows (NewReno, Reno; "
        "ns-2's agents) with 75 ms RTT; 1000 s with the last 750 s measured. Models as in Figs 7-8 (q = p, "
        f"RTO = 3R). The main runs and a control (bernoulli.toml with both flows ns-2's agents, {CONTROL_P:.0%} loss) keep "
        "the NewReno flow's traces for the anatomy of its timeouts."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        notes=notes,
        extra=[
            (
                ANATOMY_TITLE,
                anatomy,
            ),
            (f"The set-ups the paper leaves open, at a {sizes[0]}-packet queue (both forms)", open_rows),
        ],
        numbers={
            "newreno_model": a["e_model"],
            "pftk_newreno": a["e_pftk"],
            "pftk_reno": a["e_pftk_reno"],
            "pftk_over_newreno_model": pf_ratio,
            "newreno_model_measured_timeouts": a["e_model_to"],
            "ratio_max_real_w": real_max,
            "ratio_max_whole_w": whole_max,
            "newreno_model_limited_transmit": tried[0]["e_model"],
            "anatomy": [
                {k: a[k] for k in ("p", "to_share", "rule_share", "eq24", "m_mean", "m_qp")} for a in runs
            ],
            "control": {k: control[k] for k in ("p", "to_share", "eq24", "m_mean", "m_qp")},
        },
    )


register(
    Item(
        "parvez-fig13",
        PAPER,
        "Fig 13",
        "bottleneck buffer size",
        "100 background sources (50 HTTP, 50 FTP) on the 15 Mbit/s link with its queue from 25 to 150 packets: the "
        "NewReno model's average error is 2.9%, PFTK's on the NewReno flow 28% (it overestimates).",
        (BACKGROUND, BERNOULLI),
        _buffer_jobs,
        _buffer_evaluate,
        quick="queues of 25, 75 and 150 packets",
    )
)
