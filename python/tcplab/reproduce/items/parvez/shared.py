"""Parvez et al. 2010: what the items share (the scenarios, the models on a flow, the foreground
flows of a run and the notes on them).
"""

from __future__ import annotations

import math

from tcplab.models.newreno_paper import pftk_with_q

PAPER = "parvez"
BURSTY = "parvez/bursty.toml"
BERNOULLI = "parvez/bernoulli.toml"
BACKGROUND = "parvez/background.toml"
EMULATION = "parvez/emulation.toml"
#: Eq. 29 evaluated as the paper does: W (Eq. 14) rounded up to a whole number of segments.
WHOLE_W = True


def flow_models(
    f: dict, q: float | None = None, p_to: float | None = None, whole_w: bool = True
) -> tuple[float, float]:
    """(NewReno Full model, PFTK full) in bit/s from the flow's own loss event rate p, mean RTT R
    and RTO = 3R, q = p unless given (Sec. IV-A), p_TO from Eq. 24 unless given. The NewReno
    model as the paper evaluates it: W of Eq. 14 rounded up to whole segments (what reproduces
    every model value of its Table IV, parvez-table4) unless `whole_w` is False (the real W of
    Eq. 14, tcplab.models.newreno's default, which `tcplab advise` evaluates)."""
    from tcplab.models import newreno, pftk

    p, r = f["loss_event_rate"], f["mean_rtt_s"]
    if not (p > 0 and r > 0):
        return math.nan, math.nan
    nr = float(
        newreno.throughput_full(
            f["mss_bytes"], r, p, p if q is None else q, 3 * r, p_to=p_to, integer_window=WHOLE_W and whole_w
        )
    )
    pf = float(pftk.full(f["mss_bytes"], r, p, 3 * r))
    return nr, pf


def err(model: float, sim: float) -> float:
    return abs(sim - model) / sim if sim > 0 and math.isfinite(model) else math.nan


def mean(xs) -> float:
    xs = [x for x in xs if math.isfinite(x)]
    return sum(xs) / len(xs) if xs else math.nan


# ---- Figs 6-8: the senders the paper leaves open ------------------------------------------------------

#: What every foreground flow of Figs 6-8 shares: the paper's packet size and start times, one ACK
#: per segment (its Sec. II-B assumption; ns-2's TCPSink), and ns-2's timer (the paper's
#: simulator: Jacobson's estimator on a 10 ms tick, minrto_ 200 ms).
NS2_TIMERS = {
    "ack": "immediate",
    "mss": 960,
    "header_bytes": 40,
    "start": ["5s", "7s"],
    "min_rto": "200ms",
    "rto_estimator": "jacobson88",
    "clock_tick": "10ms",
}
#: ssthresh = cwnd / 2 on a loss, as ns-2's agents (`slowdown`) and BSD set it.
SSTHRESH_FROM_CWND = {"algorithm": "aimd", "ssthresh_rule": "cwnd"}


def newreno_flow(timer: str = "slow_but_steady", partial: bool = True) -> dict:
    """A native NewReno flow with ns-2's timers and ssthresh from cwnd: `timer` the partial-ACK
    timer rule (ns-2's newreno_changes1_ 0 "slow_but_steady", 1 "impatient"), `partial` the
    window deflation on a partial ACK (ns-2's partial_window_deflation_)."""
    tcp = {"variant": "newreno", "partial_ack_timer": timer, "partial_deflation": partial}
    return {**NS2_TIMERS, "tcp": tcp, "cc": SSTHRESH_FROM_CWND}


#: The reading the items use: Slow-but-Steady with partial window deflation. Fig. 6's text: the
#: throughput falls "roughly linearly" with m "since the duration of fast recovery is
#: proportional to the number of drops", and the model's fast recovery lasts m RTTs (Eq. 17), so
#: the timer does not expire inside a recovery; footnote 1: partial deflation (RFC 3782's
#: recommendation, and the model's new segments during fast recovery, Eq. 7).
CHOSEN = "Slow-but-Steady, partial deflation (the reading used)"
#: The NewReno senders the paper leaves open, chosen one first: (label, flow table).
SENDERS: tuple[tuple[str, dict], ...] = (
    (CHOSEN, newreno_flow()),
    (
        "ns-2's agent as its tcpVariants suite sets it (Slow-but-Steady, full deflation)",
        {**NS2_TIMERS, "profile": "ns2", "tcp": "newreno"},
    ),
    ("Impatient, partial deflation (ns-2 2.35's defaults, RFC 6582)", newreno_flow("impatient")),
    ("Slow-but-Steady, full deflation", newreno_flow(partial=False)),
    ("Impatient, full deflation", newreno_flow("impatient", partial=False)),
)
#: The Reno flow beside the chosen NewReno in Figs 7-8: ns-2's timers, ssthresh from cwnd.
RENO_FLOW = {**NS2_TIMERS, "tcp": "reno", "cc": SSTHRESH_FROM_CWND}


def reduction_rate(f: dict) -> float:
    """Loss events counted as window reductions (fast retransmits and timeouts) per segment sent:
    another reading of "all the losses in a single window of data are counted as one loss event"
    (Sec. IV-A), where a retransmission lost after a timeout is a loss in a window of its own.
    tcplab's `loss_event_rate` counts one event per loss episode (instruments/episode.rs)."""
    n = f["segments_sent"]
    return (f["fast_retransmits"] + f["timeouts"]) / n if n else math.nan


# ---- Fig 6: bursty loss -----------------------------------------------------------------------------

FIG6 = {0.0005: tuple(range(1, 21)), 0.01: tuple(range(1, 11))}
FIG6_QUICK = {0.0005: (1, 5, 10, 20), 0.01: (1, 4, 10)}
#: The points the other senders run at in the quick form (every point in the full form), and how
#: many of SENDERS the quick form runs (the chosen one, ns-2's agent, ns-2 2.35's defaults).
FIG6_ALT_QUICK = {0.0005: (1, 20), 0.01: (1, 10)}
SENDERS_QUICK = 3
LOSS = "network.dumbbell.bottleneck.loss"
#: The loss model's one choice, undone once: a burst counted in arrivals alone, without the
#: one-RTT span (p, m, sets).
FIG6_NO_SPAN = (0.01, 10, {LOSS: {"model": "bursty", "p": 0.01, "m": 10}})


# ---- Figs 10-13: the background-traffic variations (shared parts) -----------------------------------------


def timeout_share(f: dict) -> float:
    """The share of a flow's loss events that ended in a timeout: Mathis' non-CA episodes over all
    episodes (instruments.rs). An episode is non-CA when a timeout or a second window cut falls
    in it; ns-2's NewReno agent cuts its window once per episode (no fast retransmit before the
    ACK passes `recover`), so for the NewReno flow these are the episodes with a timeout."""
    n = f["ca_events"] + f["non_ca_events"]
    return f["non_ca_events"] / n if n else math.nan


def foreground(df) -> dict:
    """The two foreground flows of one run, the models on each and their errors. Besides the paper's
    inputs (q = p, p_TO from Eq. 24), two diagnostics of the NewReno model on the NewReno flow:
    with the flow's measured share of loss events that ended in a timeout in place of Eq. 24's
    p_TO (how much of the error is the timeout probability), and with q from Eq. 30, taking the
    flow's retransmissions per segment sent as its packet loss rate (how much the burstiness of
    the losses explains)."""
    from tcplab.models import newreno

    fl = {f["tcp"]: f for f in df.to_dicts()}
    nr, reno = fl["newreno"], fl["reno"]
    m_nr, pf_nr = flow_models(nr)
    _, pf_reno = flow_models(reno)
    p = nr["loss_event_rate"]
    plr = nr["segments_retransmitted"] / nr["segments_sent"] if nr["segments_sent"] else math.nan
    try:
        q = float(newreno.q_from_packet_loss(p, max(plr, p), integer_window=WHOLE_W))
    except ValueError:
        q = math.nan
    m_q = flow_models(nr, q)[0] if math.isfinite(q) else math.nan
    to = timeout_share(nr)
    pto = (
        float(newreno.timeout_probability(p, p, math.ceil(newreno.window(p, p)) if WHOLE_W else None))
        if p > 0
        else math.nan
    )
    m_to = flow_models(nr, p_to=to)[0] if math.isfinite(to) else math.nan
    pf_reno_to = pftk_with_q(reno, timeout_share(reno))
    return {
        "nr": nr,
        "reno": reno,
        "model": m_nr,
        "pftk": pf_nr,
        "pftk_reno": pf_reno,
        "e_model": err(m_nr, nr["goodput_bps"]),
        "e_pftk": err(pf_nr, nr["goodput_bps"]),
        "e_model_real_w": err(flow_models(nr, whole_w=False)[0], nr["goodput_bps"]),
        "e_pftk_reno": err(pf_reno, reno["goodput_bps"]),
        "per_event": plr / p if p > 0 else math.nan,
        "model_q": m_q,
        "e_model_q": err(m_q, nr["goodput_bps"]),
        "to_meas": to,
        "pto_eq24": pto,
        "model_to": m_to,
        "e_model_to": err(m_to, nr["goodput_bps"]),
        "reno_to_meas": timeout_share(reno),
        "over": m_nr / nr["goodput_bps"] - 1,
        "e_pftk_reno_to": err(pf_reno_to, reno["goodput_bps"]),
        "pftk_q_reno": min(1.0, 3 * math.sqrt(3 * reno["loss_event_rate"] / 8)),
        "p": p,
    }


FG_HEAD = [
    "NewReno kb/s",
    "p",
    "NewReno loss events ending in a timeout: measured (Eq. 24)",
    "NewReno model kb/s (err)",
    "PFTK kb/s (err)",
    "Reno kb/s",
    "PFTK (Reno) kb/s (err)",
    "NewReno rtx per loss event",
    "NewReno model, measured timeout share kb/s (err)",
    "NewReno model, q (Eq. 30) kb/s (err)",
]


def fg_cells(g: dict) -> list[str]:
    nr, reno = g["nr"], g["reno"]
    return [
        f"{nr['goodput_bps'] / 1e3:.0f}",
        f"{nr['loss_event_rate']:.4f}",
        f"{g['to_meas']:.0%} ({g['pto_eq24']:.0%})",
        f"{g['model'] / 1e3:.0f} ({g['e_model']:.0%})",
        f"{g['pftk'] / 1e3:.0f} ({g['e_pftk']:.0%})",
        f"{reno['goodput_bps'] / 1e3:.0f}",
        f"{g['pftk_reno'] / 1e3:.0f} ({g['e_pftk_reno']:.0%})",
        f"{g['per_event']:.2f}",
        f"{g['model_to'] / 1e3:.0f} ({g['e_model_to']:.0%})",
        f"{g['model_q'] / 1e3:.0f} ({g['e_model_q']:.0%})",
    ]


def averages(gs: list[dict]) -> dict:
    return {
        k: mean(g[k] for g in gs)
        for k in (
            "e_model",
            "e_pftk",
            "e_pftk_reno",
            "e_model_q",
            "e_model_to",
            "e_pftk_reno_to",
            "e_model_real_w",
        )
    }


def avg_cells(a: dict, paper: tuple) -> list[str]:
    """The average row's model cells, with the paper's (NewReno model, PFTK, PFTK on Reno) where given."""

    def cell(x, ref):
        return f"{x:.1%}" + (f" (paper {ref:.1%})" if ref is not None else "")

    return [
        "",
        "",
        "",
        cell(a["e_model"], paper[0]),
        cell(a["e_pftk"], paper[1]),
        "",
        cell(a["e_pftk_reno"], paper[2]),
        "",
        cell(a["e_model_to"], None),
        cell(a["e_model_q"], None),
    ]


def span(gs: list[dict], key: str, fmt: str = ".0%") -> str:
    xs = [g[key] for g in gs if math.isfinite(g[key])]
    lo, hi = min(xs), max(xs)
    return f"{lo:{fmt}}" if f"{lo:{fmt}}" == f"{hi:{fmt}}" else f"{lo:{fmt}}-{hi:{fmt}}"


def burst_note(gs: list[dict], a: dict) -> str:
    """Where the NewReno model's error goes: its timeout probability (Eq. 24 with q = p) against the
    flow's measured share, the two diagnostic columns, and the Reno flow's timeouts."""
    over = [g for g in gs if g["over"] > 0.05]
    ratio = mean(g["to_meas"] / g["pto_eq24"] for g in over) if over else math.nan
    return (
        " Where the error comes from: the NewReno flow's loss events end in a timeout "
        f"{span(gs, 'to_meas')} of the time, where Eq. 24 with q = p gives {span(gs, 'pto_eq24')}"
        + (
            f" ({ratio:.1f} times Eq. 24 on average in the {_runs(len(over))} where the model overestimates by "
            "more than 5%)"
            if over
            else ""
        )
        + ". With the measured share in place of Eq. 24's p_TO and everything else as before (the \"measured "
        f"timeout share\" column) the model's average error is {a['e_model_to']:.1%}, against {a['e_model']:.1%}. "
        f"The timeouts go with bursty losses at small windows: the flow retransmits {span(gs, 'per_event', '.1f')} "
        "segments per loss event, so its losses are not the q = p of the model's inputs, and with q from Eq. 30 "
        "(the last column; the retransmissions include segments a timeout resent that were not lost, so this q "
        f"is if anything too high) Eq. 24's p_TO rises and the average error is {a['e_model_q']:.1%}. Neither "
        "diagnostic is the paper's method: Sec. IV-A feeds both models the loss event rate per segment "
        "transmission (all losses in one window one event), the sender's mean RTT, RTO = 3R and q = p \"unless "
        "stated otherwise\", and only Sec. IV-B (Fig. 6) and Table IV's starred row state otherwise; the main "
        "columns here use exactly those inputs. The Reno flow's loss episodes are non-CA (a timeout or a second "
        f"window cut in them) {span(gs, 'reno_to_meas')} of the time, against PFTK's timeout probability "
        f"Q = min(1, 3 sqrt(3p/8)) of {span(gs, 'pftk_q_reno')}; with that share as Q (pricing every second cut "
        f"as a timeout) PFTK's average error on the Reno flow is {a['e_pftk_reno_to']:.1%} against "
        f"{a['e_pftk_reno']:.1%}."
    )


def ratio_range(paper_model: float, paper_pftk: float) -> tuple[float, float]:
    """The average PFTK / NewReno model ratio the paper's two average errors allow when PFTK
    overestimates in every run (as the paper says it does): (1 + e_PFTK) / (1 +- e_model)."""
    return (1 + paper_pftk) / (1 + paper_model), (1 + paper_pftk) / (1 - paper_model)


def ratio_note(gs: list[dict], paper_model: float, paper_pftk: float) -> tuple[str, float]:
    """PFTK over the NewReno model, a function of p alone on the paper's inputs (q = p, RTO = 3R
    scale both models by R alike): tcplab's average against the range the paper's averages allow."""
    r = mean(g["pftk"] / g["model"] for g in gs)
    lo, hi = ratio_range(paper_model, paper_pftk)
    where = "within it" if lo <= r <= hi else ("above it" if r > hi else "below it")
    return (
        f" PFTK over the NewReno model depends on p alone with the paper's inputs (q = p; RTO = 3R, so R "
        f"scales both alike), so the paper's averages ({paper_model:.1%} and {paper_pftk:.0%}, PFTK "
        f"overestimating) put its runs' average ratio between {lo:.2f} and {hi:.2f}; tcplab's is {r:.2f}, "
        f"{where}."
    ), r


def pftk_checks(
    gs: list[dict], paper_model: float, paper_pftk: float, label: str, control: dict | None = None
) -> list:
    """PFTK's average error on the NewReno flow against the paper's (within 5 points), and where it
    is off, the measured reason. PFTK's error is the PFTK / NewReno model ratio r (a function of p
    alone on the paper's inputs) times the model's, so one of two measurements must hold:
    r with the paper's model error gives the paper's PFTK error within 5 points (PFTK's difference
    is the model's, which the item's other reasons cover); or `control`, the foreground of the same
    set-up at a lighter load, has r inside the range the paper's two averages allow and there both
    models' errors are within 5 points of the paper's (the difference is the load, which the paper
    does not give). Without a control only the first can hold. Neither holding fails the reason:
    tcplab's r merely differing from the paper's is not a reason."""
    from tcplab.reproduce.core import Check

    e = mean(g["e_pftk"] for g in gs)
    checks = [
        Check(
            f"{label}PFTK's average error on the NewReno flow (the paper: {paper_pftk:.1%})",
            f"{e:.1%}",
            "within 5 points",
            abs(e - paper_pftk) <= 0.05,
        )
    ]
    if abs(e - paper_pftk) > 0.05:
        r = mean(g["pftk"] / g["model"] for g in gs)
        lo, hi = ratio_range(paper_model, paper_pftk)
        via_model = r * (1 + paper_model) - 1
        name = (
            f"{label}PFTK over the NewReno model r, average over the runs (a function of p alone on these "
            f"inputs); r (1 + the paper's {paper_model:.1%}) - 1"
        )
        value = f"{r:.3f}; {via_model:.1%}"
        expect = f"the second within 5 points of {paper_pftk:.1%} (PFTK's difference is the model's)"
        holds = abs(via_model - paper_pftk) <= 0.05
        if control is None:
            expect += "; no lighter-load control is run for this figure"
        else:
            rc = control["pftk"] / control["model"]
            name += f"; the control at a lighter load (p = {control['p']:.4f}): its r, NewReno model and PFTK errors"
            value += f"; {rc:.3f}, {control['e_model']:.1%}, {control['e_pftk']:.1%}"
            expect += (
                f", or the control's r within {lo:.3f} to {hi:.3f} (the range the paper's two averages allow) "
                f"and its errors each within 5 points of the paper's {paper_model:.1%} and {paper_pftk:.1%} "
                "(the difference is the load)"
            )
            holds = holds or (
                lo <= rc <= hi
                and abs(control["e_model"] - paper_model) <= 0.05
                and abs(control["e_pftk"] - paper_pftk) <= 0.05
            )
        checks.append(Check(name, value, expect, holds, paper=False))
    return checks


def by_p(gs: list[dict]) -> str:
    light = [g["e_model"] for g in gs if g["nr"]["loss_event_rate"] < 0.025]
    heavy = [g["e_model"] for g in gs if g["nr"]["loss_event_rate"] >= 0.025]
    return (
        "The NewReno model's error against the foreground flow's loss event rate p: "
        + (
            f"{mean(light):.0%} on average where p is below 2.5% ({_runs(len(light))})"
            if light
            else "no run has p below 2.5%"
        )
        + (f", {mean(heavy):.0%} where it is 2.5% or more ({_runs(len(heavy))})" if heavy else "")
        + "."
    )


def _runs(n: int) -> str:
    return f"{n} run" + ("" if n == 1 else "s")
