"""Parvez et al. 2010: the anatomy of the NewReno flow's timeouts (Figs 9, 10, 13) and Eq. 29 term
by term.
"""

from __future__ import annotations

import math

from tcplab.models.newreno_paper import EQ29_TERMS, eq29, eq29_model_terms, model_measured_timeouts
from tcplab.reproduce.core import Check, Context, Job
from tcplab.reproduce.items.parvez.shared import BERNOULLI, err, foreground

# ---- The anatomy of the NewReno flow's timeouts (Figs 9, 10, 13) ------------------------------------------

#: Traces of the foreground NewReno flow (flow 0): its packets on its own access and egress links
#: (a transmission is lost when it never reaches the egress link) and ns-2's sender variables.
TRACE_SETS = {
    "trace.cwnd": True,
    "trace.links": ["access0.fwd", "egress0.fwd"],
    "trace.max_points": 5_000_000,
}
TRACE_KEEP = ("packets", "ns2_vars")
#: The control: the same two ns-2 agents under Bernoulli loss (bernoulli.toml with profile = "ns2"),
#: at an imposed rate that gives a loss event rate near the background runs' (about 3%).
CONTROL_P = 0.04
CONTROL_SETS = {
    "network.dumbbell.bottleneck.loss.p": CONTROL_P,
    "flows.0.profile": "ns2",
    "flows.1.profile": "ns2",
}
TO_CLASSES = (
    ("b", "fewer than 3 duplicate ACKs"),
    ("d", "the whole window lost"),
    ("e", "a backed-off repeat (its retransmission lost again)"),
    ("a", "a retransmission lost in fast recovery"),
    ("c", "the timer expiring in fast recovery (retransmission not lost)"),
    ("f", "3 duplicate ACKs, but a second fast retransmit in one window refused (ns-2's bugFix_ check)"),
)


def control_job() -> Job:
    return Job(BERNOULLI, {**CONTROL_SETS, **TRACE_SETS}, traces=TRACE_KEEP)


def _traced(job: Job) -> Job:
    return Job(job.scenario, {**job.sets, **TRACE_SETS}, traces=TRACE_KEEP)


def timeout_anatomy(packets, ns2_vars, flow: dict, warmup_s: float, end_s: float) -> dict:
    """The loss events and timeouts of an ns-2 NewReno flow (flow 0) from its traces.

    Loss events as the instruments count them (instruments.rs): from the first fast retransmit or
    timeout until the ACK covers everything sent before it; a fast retransmit is the retransmission
    of ack_ + 1 at the third duplicate ACK, a timeout a rise of backoff_. For each event starting
    after the warm-up (and 5 s before the end, so its packets' fates are known): its window W (the
    packets outstanding, maxseq_ - ack_) and its losses m (those of them whose last transmission
    never reached the egress link). Each first timeout (backoff_ 1 -> 2) is classed by the state
    before it; later ones in a row are backed-off repeats. Eq. 24's rule on an event's own (W, m):
    a timeout if m > W - 3 (Eq. 22), else with probability 1 - (1 - p)^(mW/2) (Eq. 23)."""
    import bisect
    import collections

    import numpy as np
    import polars as pl

    v = ns2_vars.filter(pl.col("flow") == 0).sort("time_ns")
    pk = packets.filter((pl.col("flow") == 0) & (pl.col("kind") == "data"))
    sends = pk.filter((pl.col("link_name") == "access0.fwd") & (pl.col("event") == "enqueue")).sort("time_ns")
    recvs = pk.filter((pl.col("link_name") == "egress0.fwd") & (pl.col("event") == "receive")).sort("time_ns")
    series = {
        str(k[0]): (g["time_ns"].to_numpy(), g["value"].to_numpy())
        for k, g in v.group_by(["var"], maintain_order=True)
    }

    def before(var, t):
        ts, vs = series[var]
        i = np.searchsorted(ts, t, side="left") - 1
        return vs[i] if i >= 0 else math.nan

    def after(var, t):
        ts, vs = series[var]
        i = np.searchsorted(ts, t, side="right") - 1
        return vs[i] if i >= 0 else math.nan

    tx = collections.defaultdict(list)
    for t, s in zip(sends["time_ns"].to_list(), sends["seq"].to_list(), strict=True):
        tx[s].append(t)
    arrived = set()
    for t, s in zip(recvs["time_ns"].to_list(), recvs["seq"].to_list(), strict=True):
        k = bisect.bisect_right(tx[s], t) - 1
        if k >= 0:
            arrived.add((s, tx[s][k]))

    def lost(s, t):  # the last transmission of packet s before t never arrived
        k = bisect.bisect_left(tx[s], t) - 1
        return k >= 0 and (s, tx[s][k]) not in arrived

    bt, bv = series["backoff_"]
    timeouts = [(bt[i], bv[i - 1]) for i in range(1, len(bt)) if bv[i] > bv[i - 1]]
    to_times = [t for t, _ in timeouts]
    frs = sorted(
        {
            t
            for t, s, r in zip(
                sends["time_ns"].to_list(), sends["seq"].to_list(), sends["retransmit"].to_list(), strict=True
            )
            if r and after("dupacks_", t) == 3 and before("dupacks_", t) == 2 and s == before("ack_", t) + 1
        }
    )
    at, av = series["ack_"]

    def covered(level, t0):
        i = np.searchsorted(at, t0, side="right")
        idx = np.nonzero(av[i:] >= level)[0]
        return at[i + idx[0]] if len(idx) else math.inf

    lo, hi = warmup_s * 1e9, (end_s - 5) * 1e9
    events, ep = [], None
    for t, kind in sorted([(t, "FR") for t in frs] + [(t, "TO") for t in to_times]):
        if ep is not None and ep["end"] <= t:
            events.append(ep)
            ep = None
        if ep is None:
            a, m = int(before("ack_", t)), int(before("maxseq_", t))
            ep = {
                "start": t,
                "w": m - a,
                "m": sum(lost(s, t) for s in range(a + 1, m + 1)),
                "end": covered(m, t),
                "to": False,
            }
        ep["to"] = ep["to"] or kind == "TO"
    if ep is not None:
        events.append(ep)
    # Eq. 29's cycles: each loss event with what follows it until the next one starts (its recovery,
    # then for a timeout the timer waits and slow start, then congestion avoidance): its duration
    # and the packets the ACKs newly cover in it (ack_ is in packets).
    for e, nxt in zip(events, events[1:], strict=False):
        e["dur"] = (nxt["start"] - e["start"]) / 1e9
        e["pk"] = int(before("ack_", nxt["start"])) - int(before("ack_", e["start"]))
        e["wait"] = 0.0
    events = [e for e in events if lo <= e["start"] < hi]

    starts = [e["start"] for e in events]
    classes: collections.Counter[str] = collections.Counter()
    # seconds the flow waited for its timers: from the last ACK of new data or timeout to each timeout
    wait = 0.0
    for t, b0 in timeouts:
        k = np.searchsorted(at, t, side="left") - 1
        j = bisect.bisect_left(to_times, t) - 1
        w_t = (t - max(at[k] if k >= 0 else 0, to_times[j] if j >= 0 else 0)) / 1e9
        ei = bisect.bisect_right(starts, t) - 1
        if ei >= 0 and "dur" in events[ei] and t < events[ei]["start"] + events[ei]["dur"] * 1e9:
            events[ei]["wait"] += w_t
        if not lo <= t < hi:
            continue
        wait += w_t
        if b0 > 1:
            classes["e"] += 1
            continue
        a, m, dup = int(before("ack_", t)), int(before("maxseq_", t)), before("dupacks_", t)
        k = bisect.bisect_left(frs, t) - 1
        in_recovery = k >= 0 and a < before("maxseq_", frs[k]) and not any(frs[k] < x < t for x in to_times)
        if in_recovery:
            classes["a" if lost(a + 1, t) else "c"] += 1
        elif dup >= 3:
            classes["f"] += 1
        elif m > a and all(lost(s, t) for s in range(a + 1, m + 1)):
            classes["d"] += 1
        else:
            classes["b"] += 1

    from tcplab.models import newreno

    p = flow["loss_event_rate"]
    w_model = math.ceil(float(newreno.window(p, p)))

    def rule(w, m):
        w = max(int(w), 1)
        return 1.0 if m > w - 3 else 1 - (1 - p) ** (m * w / 2)

    n = len(events)
    small = [e for e in events if e["w"] <= 3]
    timed_out = [e for e in events if e["to"]]
    clean = [e for e in events if not e["to"]]

    def mean(es, key):
        return sum(e[key] for e in es) / len(es) if es else math.nan

    r = flow["mean_rtt_s"]
    cyc = [e for e in events if "dur" in e]
    cyc_to, cyc_fr = [e for e in cyc if e["to"]], [e for e in cyc if not e["to"]]
    for e in cyc_to:
        e["rest"] = e["dur"] - e["wait"]
    measured = {
        "S": mean(cyc, "pk"),
        "Q": len(cyc_to) / len(cyc) if cyc else math.nan,
        "A": mean(cyc_fr, "dur") / r,
        "Z": mean(cyc_to, "wait") / r,
        "B": mean(cyc_to, "rest") / r,
        "Y": mean(cyc_fr, "pk"),
        "R": mean(cyc_to, "pk"),
        "bps": 8 * flow["mss_bytes"] * sum(e["pk"] for e in cyc) / sum(e["dur"] for e in cyc)
        if cyc
        else math.nan,
    }
    return {
        "eq29": {"measured": measured, "model": eq29_model_terms(p, w_model)},
        "p": p,
        "events": n,
        "to_share": sum(e["to"] for e in events) / n if n else math.nan,
        "rule_share": sum(rule(e["w"], e["m"]) for e in events) / n if n else math.nan,
        "eq24": float(newreno.timeout_probability(p, p, w_model)),
        "w_model": w_model,
        "m_mean": sum(e["m"] for e in events) / n if n else math.nan,
        "m_qp": 1 + p * (w_model - 1),
        "w_mean": sum(e["w"] for e in events) / n if n else math.nan,
        "small_share": len(small) / n if n else math.nan,
        "m_to": mean(timed_out, "m"),
        "m_clean": mean(clean, "m"),
        "w_to": mean(timed_out, "w"),
        "w_clean": mean(clean, "w"),
        "timeouts": sum(classes.values()),
        "classes": dict(classes),
        "wait": wait / sum(e["to"] for e in events) if any(e["to"] for e in events) else math.nan,
        "d_to": (1 + 2 * p + 4 * p * p) * 3 * flow["mean_rtt_s"],
    }


def anatomy_of(ctx: Context, i: int) -> dict:
    df = ctx.rows(i)
    g = foreground(df)
    a = timeout_anatomy(
        ctx.trace(i, "packets"), ctx.trace(i, "ns2_vars"), g["nr"], df["warmup"][0], df["duration"][0]
    )
    f = g["nr"]
    a["eq29_bps"] = {
        keys: eq29(
            {**a["eq29"]["model"], **{k: a["eq29"]["measured"][k] for k in keys}},
            f["mss_bytes"],
            f["mean_rtt_s"],
        )
        for keys in ("SQAZB", "QZ", "SQZ")
    }
    n = f["ca_events"] + f["non_ca_events"]
    a["rtx_per_event"] = f["segments_retransmitted"] / n if n else math.nan
    return {
        **a,
        "sim": g["nr"]["goodput_bps"],
        "model": g["model"],
        "e_model": g["e_model"],
        "e_model_to_wait": err(
            model_measured_timeouts(g["nr"], a["to_share"], a["wait"]), g["nr"]["goodput_bps"]
        ),
    }


#: The title of the anatomy table in the items that keep the NewReno flow's traces.
ANATOMY_TITLE = (
    "The NewReno flow's loss events and timeouts, from its traces (timeouts after the warm-up, by cause)"
)

ANATOMY_HEAD = [
    "run",
    "p",
    "NewReno kb/s",
    "NewReno model kb/s (err)",
    "loss events",
    "packets lost per event (q = p: Eq. 5)",
    "lost per event / window, events ending in a timeout",
    "lost per event / window, the others",
    "events at a window of 3 or less",
    "events ending in a timeout (Eq. 24, q = p)",
    "Eq. 24's rule on each event's own W and m",
    "s waiting for timers per event ending in a timeout (model: (1+2p+4p^2) 3R)",
    "NewReno model error with the measured timeout share and waits",
    "timeouts",
] + [f"{name}" for _, name in TO_CLASSES]


def anatomy_row(label: str, a: dict) -> list[str]:
    n = a["timeouts"]
    return [
        label,
        f"{a['p']:.4f}",
        f"{a['sim'] / 1e3:.0f}",
        f"{a['model'] / 1e3:.0f} ({a['e_model']:.0%})",
        str(a["events"]),
        f"{a['m_mean']:.2f} ({a['m_qp']:.2f})",
        f"{a['m_to']:.2f} / {a['w_to']:.1f}",
        f"{a['m_clean']:.2f} / {a['w_clean']:.1f}",
        f"{a['small_share']:.0%}",
        f"{a['to_share']:.0%} ({a['eq24']:.0%})",
        f"{a['rule_share']:.0%}",
        f"{a['wait']:.2f} ({a['d_to']:.2f})",
        f"{a['e_model_to_wait']:.0%}",
        str(n),
    ] + [f"{a['classes'].get(c, 0)} ({a['classes'].get(c, 0) / n:.0%})" if n else "0" for c, _ in TO_CLASSES]


def anatomy_checks(runs: list[dict], control: dict, paper: float) -> list[Check]:
    """What the explanation of Figs 9, 10 and 13 rests on, checked on the traced runs and the control;
    `paper` is the figure's (smallest) average error of the NewReno model."""
    within = sum(a["to_share"] <= a["rule_share"] + 0.05 for a in runs)
    return [
        Check(
            f"control (the same agents, Bernoulli loss {CONTROL_P:.0%}, p = {control['p']:.4f}): the NewReno "
            "model's error with the paper's inputs",
            f"{control['e_model']:.1%}",
            f"at most {paper + 0.05:.1%} (the paper's {paper:.1%} + 5 points)",
            control["e_model"] <= paper + 0.05,
            paper=False,
        ),
        Check(
            "control: packets lost per loss event against q = p's (Eq. 5 with W of Eq. 14)",
            f"{control['m_mean']:.2f} vs {control['m_qp']:.2f}",
            "within 0.2",
            abs(control["m_mean"] - control["m_qp"]) <= 0.2,
            paper=False,
        ),
        Check(
            "every run: the NewReno flow's share of loss events ending in a timeout against Eq. 24's own rule on "
            "each loss event's window W and losses m (the sender times out no more than the model's mechanism "
            "says for the losses it gets)",
            f"{within} of {len(runs)} runs",
            "at most the rule's + 5 points in every run",
            within == len(runs),
            paper=False,
        ),
    ]


def anatomy_note(runs: list[dict], control: dict) -> str:
    import collections

    c: collections.Counter[str] = collections.Counter()
    for a in runs:
        c.update(a["classes"])
    n = sum(c.values())

    def share(*ks):
        return sum(c.get(k, 0) for k in ks) / n if n else math.nan

    def span(key, fmt=".0%"):
        lo, hi = min(a[key] for a in runs), max(a[key] for a in runs)
        return f"{lo:{fmt}}" if f"{lo:{fmt}}" == f"{hi:{fmt}}" else f"{lo:{fmt}}-{hi:{fmt}}"

    return (
        " How the flow's timeouts come about: the anatomy table, from the NewReno flow's traces in every run and in "
        f"a control, the same two ns-2 agents under Bernoulli loss at {CONTROL_P:.0%}. Of its {n} timeouts over "
        f"the runs, {share('b', 'd'):.0%} come with fewer than 3 duplicate ACKs or the whole window lost (several "
        f"losses in a small window), {share('e'):.0%} are backed-off repeats, and only {share('a', 'c', 'f'):.0%} "
        f"are NewReno's own recovery failing ({share('a'):.0%} a retransmission lost in fast recovery, "
        f"{share('c'):.0%} the timer expiring in a long recovery: the ns-2 agent restarts it on every partial ACK, "
        "Slow-but-Steady, as the model's m RTTs of recovery assume). Its loss events lose "
        f"{span('m_mean', '.2f')} packets each, where q = p gives {span('m_qp', '.2f')} (Eq. 5 with W of Eq. 14), "
        f"and {span('small_share')} of them come at a window of 3 or less; those that end in a timeout lose "
        f"{span('m_to', '.1f')} packets of a window of {span('w_to', '.1f')} on average, the others "
        f"{span('m_clean', '.1f')} of {span('w_clean', '.1f')}. Eq. 24's own rule (a timeout when more "
        "than W - 3 of a window's W packets are lost, else with probability 1 - (1-p)^(mW/2)) applied to each "
        f"loss event's own window and losses gives {span('rule_share')} timeouts, against the "
        f"{span('to_share')} measured (Eq. 24 with q = p: {span('eq24')}): given the losses it gets, the sender "
        "times out no more than the model's mechanism says. "
        f"Under Bernoulli loss the same agents lose {control['m_mean']:.2f} packets per event (q = p: "
        f"{control['m_qp']:.2f}), the NewReno flow times out in {control['to_share']:.0%} of its loss events at "
        f"p = {control['p']:.4f} (Eq. 24: {control['eq24']:.0%}; {control['small_share']:.0%} of them at a window "
        "of 3 or less, which Eq. 24, taking every loss event at the window W, leaves out), and the model with the "
        f"paper's inputs is {control['e_model']:.1%} off its throughput. The paper names neither its ns-2 version "
        "nor its agents' settings; ns-2's defaults since 2004 (tcpTick_ 10 ms, minrto_ 200 ms, maxburst_ 0, as "
        "here) also have Limited Transmit (singledup_ 1), the Impatient timer (newreno_changes1_ 1) and partial "
        "window deflation (partial_window_deflation_ 1), which the scenario's agents (the tcpVariants suite's "
        "settings) do not; the last two act only once fast recovery has begun, so on at most the "
        f"{share('a', 'c', 'f'):.0%} of timeouts that come in or just after it, and the Impatient timer would add "
        "timeouts, not remove them."
        + (
            " So the excess timeouts are the loss process of the congested queue, which the input q = p does not "
            "describe: its overflows (or RED's drops at "
            "a high average queue) take several packets of one window, and when that window is small the flow "
            "cannot recover without a timeout; the model's q = p input does not price this. The paper reports "
            "neither its flows' packet loss rates nor its links' drop rates for these runs and gives its background "
            "only by its means, so how bursty its drops were cannot be rebuilt; its small errors with q = p say its "
            "foreground flows lost about one packet per loss event or kept larger windows, which tcplab's background "
            "at these loss event rates does not give."
            if any(a["to_share"] > a["eq24"] + 0.05 for a in runs)
            else " Here the flow's timeouts are within 5 points of Eq. 24's in every run: several losses in a window cost "
            "a timeout only when the window is small, and at these loss event rates it seldom is."
        )
    )


# ---- Eq. 29 term by term (Fig 10) ------------------------------------------------------------------------

EQ29_HEAD = (
    ["run", "p", "W", "NewReno kb/s", "NewReno model kb/s (err)"]
    + [f"{k}: {name}, measured (model)" for k, name in EQ29_TERMS]
    + [
        "retransmissions per loss event",
        "Eq. 29, all five measured (err)",
        "Eq. 29, Q and Z measured (err)",
        "Eq. 29, S, Q and Z measured (err)",
    ]
)


def _signed(x: float) -> str:
    return f"{x:+.1%}"


def eq29_row(label: str, a: dict) -> list[str]:
    me, mo = a["eq29"]["measured"], a["eq29"]["model"]
    cells = [f"{me[k]:.2f} ({mo[k]:.2f})" for k, _ in EQ29_TERMS]
    return (
        [
            label,
            f"{a['p']:.4f}",
            str(a["w_model"]),
            f"{a['sim'] / 1e3:.0f}",
            f"{a['model'] / 1e3:.0f} ({a['model'] / a['sim'] - 1:+.0%})",
        ]
        + cells
        + [f"{a['rtx_per_event']:.2f}"]
        + [
            f"{a['eq29_bps'][k] / 1e3:.0f} ({_signed(a['eq29_bps'][k] / a['sim'] - 1)})"
            for k in ("SQAZB", "QZ", "SQZ")
        ]
    )


def eq29_checks(runs: list[dict], control: dict, paper: dict) -> list[Check]:
    """What the term-by-term explanation rests on: in the run the model is furthest off, Eq. 29 with
    the measured timeout terms (Q, Z) in the model's place is within the paper's largest average
    error + 5 points of the measured throughput, or, where it is not, with the measured numerator
    (S) too within 5%. (Eq. 29 with all five terms measured is the measured throughput by
    construction, so it is shown in the terms table and not checked.)"""
    worst = max(runs, key=lambda a: a["e_model"])
    limit = max(v[0] for v in paper.values()) + 0.05
    qz, sqz = worst["eq29_bps"]["QZ"] / worst["sim"] - 1, worst["eq29_bps"]["SQZ"] / worst["sim"] - 1
    return [
        Check(
            f"the run the model is furthest off (p = {worst['p']:.4f}, {worst['e_model']:.0%}): Eq. 29 with the "
            "measured timeout share Q and timer waits Z; with the measured numerator S too",
            f"{_signed(qz)}; {_signed(sqz)}",
            f"the first within {limit:.1%} (the paper's largest average + 5 points), or the second within 5% "
            "(what Q and Z leave is the numerator)",
            abs(qz) <= limit or abs(sqz) <= 0.05,
            paper=False,
        )
    ]


def eq29_note(runs: list[dict], control: dict, worst: dict, paper: dict) -> str:
    me, mo = worst["eq29"]["measured"], worst["eq29"]["model"]
    every = runs + [control]
    e_all = max(abs(a["eq29_bps"]["SQAZB"] / a["sim"] - 1) for a in every)
    over = [
        mo_s / me_s for mo_s, me_s in ((a["eq29"]["model"]["S"], a["eq29"]["measured"]["S"]) for a in every)
    ]
    qz, sqz = worst["eq29_bps"]["QZ"] / worst["sim"] - 1, worst["eq29_bps"]["SQZ"] / worst["sim"] - 1
    others = [a for a in runs if a is not worst]
    qz_others = [a["eq29_bps"]["QZ"] / a["sim"] - 1 for a in others]
    repeats = worst["classes"].get("e", 0) / worst["timeouts"] if worst["timeouts"] else math.nan
    c_over = control["eq29"]["model"]["S"] / control["eq29"]["measured"]["S"]
    limit = max(v[0] for v in paper.values()) + 0.05
    return (
        " Eq. 29 term by term (the last table): it is S / (R ((1 - Q) A + Q (Z + B))), S the packets sent per loss "
        "event (1/p + W^2 q/(1 + W q)), Q the share of loss events ending in a timeout (Eq. 24), A the RTTs of a "
        "cycle whose loss event ends in fast recovery (W/2 + 3/2 + 1 + W q: congestion avoidance and m RTTs of "
        "recovery), Z the RTTs waiting for timers in a cycle ending in a timeout ((1 + 2p + 4p^2) RTO / R) and B "
        "the rest of such a cycle (slow start and congestion avoidance, 1 + log2(W/4) + W/2 + 3/2). Measured on "
        "the NewReno flow's cycles (each loss event with what follows until the next starts; S from the packets "
        "its ACKs newly cover), all five together are its measured throughput (within "
        f"{e_all:.1%}: by construction, so not a check). The model's "
        f"S exceeds the measured one in every run ({min(over):.2f}-{max(over):.2f} times): p is loss events per "
        "segment sent, so 1/p already holds the retransmissions and the segments fast recovery sends, and the "
        "model counts them all as new data and adds W^2 q/(1 + W q) for fast recovery (the control, at p = "
        f"{control['p']:.4f}: {c_over:.2f} times; the run at p = {worst['p']:.4f}: {mo['S'] / me['S']:.2f} times). "
        "The flow's cycles are also shorter than the model's (A below it in "
        f"{sum(a['eq29']['measured']['A'] < a['eq29']['model']['A'] for a in every)} of the {len(every)} (the runs "
        "and the control), B, the slow start and congestion avoidance after a timeout, in "
        f"{sum(a['eq29']['measured']['B'] < a['eq29']['model']['B'] for a in every)} of {len(every)}), which offsets "
        "it: with only Q and Z measured Eq. 29 is "
        + (f"{min(qz_others):+.1%} to {max(qz_others):+.1%} off the other runs" if others else "")
        + f". In the run the model is furthest off (p = {worst['p']:.4f}, {worst['e_model']:.0%}) "
        + (
            f"the measured Q and Z bring Eq. 29 to {_signed(qz)} of it: there the timeout terms account for the "
            "error."
            if abs(qz) <= limit
            else f"the loss process moves three terms: Q is {me['Q']:.2f} against Eq. 24's {mo['Q']:.2f} (bursty losses "
            f"at small windows, as above), Z is {me['Z']:.1f} RTTs against {mo['Z']:.1f} ({repeats:.0%} of its "
            "timeouts are backed-off repeats: the retransmission a timeout sends is dropped again), and S is "
            f"{me['S']:.1f} packets against {mo['S']:.1f} ({worst['rtx_per_event']:.1f} retransmissions per loss "
            "event, and the fast recovery term counted on top); A and B, "
            f"{me['A']:.1f} and {me['B']:.1f} RTTs against {mo['A']:.1f} and {mo['B']:.1f}, offset each other "
            f"instead of S (all five measured: {_signed(worst['eq29_bps']['SQAZB'] / worst['sim'] - 1)}). With the "
            f"measured Q and Z Eq. 29 is {_signed(qz)} off that run; with S measured too, {_signed(sqz)}. So the "
            "part of Eq. 29 that breaks there, beyond its timeout probability and timer waits, is its numerator: at "
            f"a loss event rate of {worst['p']:.0%} the packets sent per loss event are few and a large part of them "
            "are retransmissions, which 1/p + W^2 q/(1 + W q) counts as new data. The paper gives no loss event "
            "rates for these runs, so they need not have reached such rates (its small errors suggest they did "
            "not)."
        )
        + ' Hence "explained": every term of Eq. 29 is measured on the flow\'s cycles, and where the model is off '
        "the terms that move are the timeouts and the timer waits (the measured reason above) and, where those "
        "do not suffice, the numerator, all set by the loss process of the congested queues, which the paper "
        "does not give enough to rebuild."
    )
