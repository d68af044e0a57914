"""Barakat & Altman 1999, Figs 9-11: Drop Tail, Random Drop and Drop-from-Front."""

from __future__ import annotations

import math

from tcplab.reproduce.core import Check, Context, Item, Job, Outcome, fmt, pct, register, rel
from tcplab.reproduce.items.barakat.shared import (
    MU,
    PAPER,
    PIPE,
    WARMUP,
    T,
    cwnd_xy,
    kbps,
    med,
    new_figure,
    ns2_path,
    tahoe_cycles,
)

# ---- Figs 9-11: Drop Tail, Random Drop and Drop-from-Front ---------------------------------------

MU_A, MU_P, B_P = 2.7e6, 2.2e6, 15
#: Sec. 7.2's two numbers at B = 18 (kb/s): Drop Tail and Random Drop.
PAPER_DT18, PAPER_RD18 = 717, 829
POLICIES = (("drop-tail", "droptail"), ("random-drop", "random_drop"), ("drop-from-front", "drop_front"))
BS_911 = range(10, 21)


#: The readings of the set-up the paper leaves open, (T, B): T = 560 ms as the two-way propagation
#: delay (Sec. 5's simulations: "the sum of the propagation delays ... is always equal to T"; Sec. 7.2:
#: "T chosen as before") or as the minimum RTT, propagation and service times (Sec. 3's definition);
#: B as ns-2's DropTail limit, the packet being sent counted (tcplab's limit = B - 1), or as the
#: packets waiting (limit = B). The first is the item's; the others run with Drop Tail only.
READINGS = (
    ("propagation", False),
    ("propagation", True),
    ("service", False),
    ("service", True),
)
T_LABEL = {"propagation": "two-way propagation", "service": "propagation + service times"}
B_LABEL = {False: "B with the one being sent (limit = B - 1)", True: "B waiting (limit = B)"}


def path_911(b: int, discipline: str, duration: str, t_reading: str = "propagation", waiting: bool = False):
    """Sec. 7.2's path with bottleneck buffer `b` under a reading of T and B (`READINGS`)."""
    sc = ns2_path([(MU_A, None), (MU_P, B_P), (MU, b)], duration, discipline, waiting=waiting)
    if t_reading == "propagation":
        sc["network"]["chain"]["hops"][-1]["delay"] = T / 2
    return sc


def _jobs_911(quick: bool) -> list[Job]:
    dur = "1500s" if quick else "3000s"
    alt = "400s" if quick else "1500s"  # the outcome is decided in each cycle: a few cycles are enough
    return [Job(path_911(b, d, dur), traces=("cwnd",)) for b in BS_911 for _, d in POLICIES] + [
        Job(path_911(b, "droptail", alt, t, w), traces=("cwnd",)) for t, w in READINGS[1:] for b in BS_911
    ]


def model_911(b: int):
    """Sec. 7.2's model at bottleneck buffer `b`: S_B, W_B, W_th, Eq. 5 at each node, and W_D and W_S
    for each policy (dicts by label)."""
    from tcplab.models import multibottleneck as mb

    s_i, s = mb.overflow_bursts(MU, [MU_P], [B_P], b, mu0=MU_A)
    s_b = min(s, float(s_i[0]))
    w_th = (PIPE + b) / 2
    w_b = float(mb.loss_window(s_b))
    eq5 = mb.retransmission_loss(MU, [MU_P], [B_P], b, w_th, mu0=MU_A)
    w_d = {a: min(w_th, 2 * w_b + (mb.ALPHA[a] - 1) * s_b / 2) for a, _ in POLICIES}
    w_s = {a: float(mb.start_window(w_th, s_b, a)) for a, _ in POLICIES}
    return s_b, w_b, w_th, eq5, w_d, w_s


def _evaluate_911(ctx: Context) -> Outcome:
    head = [
        "B",
        "S_B (Eq. 1)",
        "Eq. 5 (node mu', node mu)",
        "policy",
        "kb/s",
        "cycles",
        "retransmission lost",
        "W_D sim",
        "W_D model",
        "W_S sim",
        "W_S model",
    ]
    body, thr, lost, wd, wd_model, ws, nloss, eq5_mu = [], {}, {}, {}, {}, {}, {}, {}
    i = 0
    for b in BS_911:
        s_b, w_b, w_th, eq5, w_d_m, w_s_m = model_911(b)
        for a, _ in POLICIES:
            cy = tahoe_cycles(ctx.trace(i, "cwnd"))
            thr[b, a] = kbps(ctx.rows(i).row(0, named=True))
            lost[b, a] = sum(c["rtx_lost"] for c in cy) / len(cy) if cy else math.nan
            wd[b, a] = med([c["w_d"] for c in cy])
            wd_model[b, a] = w_d_m[a]
            ws[b, a] = med([c["w_s"] for c in cy])
            nloss[b, a] = med([c["losses"] for c in cy])
            eq5_mu[b] = bool(eq5[-1])
            body.append(
                [
                    str(b) if a == "drop-tail" else "",
                    f"{s_b:.1f}" if a == "drop-tail" else "",
                    ", ".join("yes" if x else "no" for x in eq5) if a == "drop-tail" else "",
                    a,
                    f"{thr[b, a]:.0f}",
                    str(len(cy)),
                    f"{lost[b, a]:.0%}",
                    fmt(wd[b, a], 0),
                    f"{w_d_m[a]:.1f}",
                    fmt(ws[b, a], 1),
                    f"{w_s_m[a]:.1f}",
                ]
            )
            i += 1
    dt_lost = [b for b in BS_911 if lost[b, "drop-tail"] >= 0.5]
    others_lost = max(lost[b, a] for b in BS_911 for a in ("random-drop", "drop-from-front"))
    better = [
        b
        for b in dt_lost
        if thr[b, "random-drop"] > thr[b, "drop-tail"] and thr[b, "drop-from-front"] > thr[b, "drop-tail"]
    ]
    order = [b for b in BS_911 if wd[b, "drop-tail"] >= wd[b, "random-drop"] >= wd[b, "drop-from-front"]]
    errs = {k: rel(wd[k], wd_model[k]) for k in wd}
    worst_k = max(errs, key=lambda k: abs(errs[k]) if math.isfinite(errs[k]) else math.inf)
    checks = [
        Check(
            "Drop Tail loses the retransmission (a timeout to ssthresh 2 in at least half the cycles) for "
            "some B",
            ", ".join(map(str, dt_lost)) or "none",
            "at least one B (the paper: 13, 16, 18)",
            bool(dt_lost),
        ),
        Check(
            "where Drop Tail loses it, Random Drop and Drop-from-Front both give more throughput",
            f"{len(better)} of {len(dt_lost)}",
            "every such B",
            bool(dt_lost) and len(better) == len(dt_lost),
        ),
        Check(
            "Random Drop and Drop-from-Front never lose the retransmission (worst share of cycles)",
            f"{others_lost:.0%}",
            "0%",
            others_lost == 0,
        ),
        Check(
            "the window at the slow-start loss's detection falls with alpha: W_D(DT) >= W_D(RD) >= W_D(DF)",
            f"{len(order)} of {len(BS_911)} B",
            "every B",
            len(order) == len(BS_911),
        ),
        Check(
            "W_D against the paper's min(W_th, 2 W_B + (alpha - 1) S_B / 2), worst B and policy",
            f"{pct(errs[worst_k])} (B = {worst_k[0]}, {worst_k[1]})",
            "within 15%",
            all(math.isfinite(e) and abs(e) <= 0.15 for e in errs.values()),
        ),
    ]
    paper = {(18, "drop-tail"): PAPER_DT18, (18, "random-drop"): PAPER_RD18}
    checks += [
        Check(
            "the B where Drop Tail loses the retransmission (the paper: 13, 16, 18)",
            ", ".join(map(str, dt_lost)) or "none",
            "the paper's",
            dt_lost == [b for b in (13, 16, 18) if b in BS_911],
        ),
        Check(
            f"B = 18: Drop Tail and Random Drop kb/s against the paper's {PAPER_DT18} and {PAPER_RD18}, worst",
            pct(max(abs(rel(thr[k], v)) for k, v in paper.items())),
            "within 10%",
            all(abs(rel(thr[k], v)) <= 0.10 for k, v in paper.items()),
        ),
    ]
    # The readings the paper leaves open (Drop Tail only; the item's is the first): the B that lose
    # the retransmission.
    alt_lost: dict[tuple[str, bool], list[int]] = {READINGS[0]: dt_lost}
    for reading in READINGS[1:]:
        alt_lost[reading] = []
        for b in BS_911:
            cy = tahoe_cycles(ctx.trace(i, "cwnd"))
            if cy and sum(c["rtx_lost"] for c in cy) / len(cy) >= 0.5:
                alt_lost[reading].append(b)
            i += 1
    paper_lost = [b for b in (13, 16, 18) if b in BS_911]
    d_svc = path_911(18, "droptail", "1s", "service")["network"]["chain"]["hops"][-1]["delay"]
    # B whose Drop Tail outcome changes with the reading; the throughput wherever it is lost.
    unsettled = [b for b in BS_911 if len({b in lost_b for lost_b in alt_lost.values()}) > 1]
    # The cost on the item's reading only: the other readings' runs are too short for a throughput.
    cost = [thr[b, "drop-tail"] for b in dt_lost]
    cost_err = max((abs(rel(v, PAPER_DT18)) for v in cost), default=math.inf)
    alt_table = [
        [
            "T = 560 ms as",
            "B as",
            "Drop Tail loses the retransmission at B",
            "of the paper's 13, 16, 18",
            "others",
        ]
    ] + [
        [
            T_LABEL[t] + (" (the item's)" if (t, w) == READINGS[0] else ""),
            B_LABEL[w],
            ", ".join(map(str, alt_lost[t, w])) or "none",
            f"{sum(b in alt_lost[t, w] for b in paper_lost)} of {len(paper_lost)}",
            ", ".join(str(b) for b in alt_lost[t, w] if b not in paper_lost) or "none",
        ]
        for t, w in READINGS
    ]
    checks += [
        Check(
            "the B that lose the retransmission turn on single-packet timing: B whose Drop Tail outcome "
            "changes between the readings of T and B the paper leaves open",
            ", ".join(map(str, unsettled)) or "none",
            "at least one",
            bool(unsettled),
            paper=False,
        ),
        Check(
            "wherever Drop Tail loses the retransmission (every B), its throughput against the paper's "
            f"{PAPER_DT18} kb/s, worst",
            pct(max((rel(v, PAPER_DT18) for v in cost), key=abs)) if cost else "none lost",
            "within 10%",
            cost_err <= 0.10,
            paper=False,
        ),
    ]
    extra = [
        (
            "The paper's two numbers (Sec. 7.2, B = 18)",
            [["quantity", "tcplab", "paper", "difference"]]
            + [
                [f"B = {b}, {a}, kb/s", f"{thr[b, a]:.0f}", str(v), pct(rel(thr[b, a], v))]
                for (b, a), v in paper.items()
            ]
            + [
                [
                    "Drop Tail kb/s where it loses the retransmission (tcplab's B)",
                    ", ".join(f"{thr[b, 'drop-tail']:.0f}" for b in dt_lost) or "-",
                    f"{PAPER_DT18} (B = 18)",
                    "-",
                ]
            ],
        )
    ]
    figs = []
    try:
        fig = new_figure(3, 1, 4.6, 3.8)
        b = 18 if 18 in dt_lost else (dt_lost[0] if dt_lost else 18)
        for j, (a, _) in enumerate(POLICIES[:2]):
            ax = fig.add_subplot(1, 3, j + 1)
            k = list(BS_911).index(b) * 3 + j
            x, y = cwnd_xy(ctx.trace(k, "cwnd"), WARMUP, WARMUP + 400)
            ax.plot(x, y, lw=0.7)
            ax.set_title(f"Fig {9 + j}: {a}, B = {b}")
            ax.set_xlabel("time (s)")
            ax.set_ylabel("cwnd (packets)")
        ax = fig.add_subplot(1, 3, 3)
        for a, _ in POLICIES:
            ax.plot(list(BS_911), [thr[b, a] for b in BS_911], "o-", ms=3, label=a)
        ax.plot([18, 18], [PAPER_DT18, PAPER_RD18], "kx", label="paper, B = 18 (DT, RD)")
        ax.set_title("Fig 11: throughput against B")
        ax.set_xlabel("B (packets)")
        ax.set_ylabel("kbit/s (512-byte packets)")
        ax.legend(fontsize=7)
        figs.append(fig)
    except Exception:  # noqa: BLE001
        pass
    from tcplab.models import multibottleneck as mb

    df_err = [rel(wd[b, "drop-from-front"], wd_model[b, "drop-from-front"]) for b in BS_911]
    df_alt = []
    for b in BS_911:
        s_b = model_911(b)[0]
        alt = min((PIPE + b) / 2, 2 ** float(mb.loss_minicycle(s_b)) + MU / MU_P * s_b)
        df_alt.append(rel(wd[b, "drop-from-front"], alt))
    dt_thr = ", ".join(f"{thr[b, 'drop-tail']:.0f}" for b in dt_lost) or "-"
    # a third slow start: congestion avoidance from well below W_D / 2 without a lost retransmission
    third = [
        b for b in BS_911 if lost[b, "drop-tail"] < 0.5 and ws[b, "drop-tail"] < 0.75 * wd[b, "drop-tail"] / 2
    ]
    explanation = (
        "The mechanism of Sec. 7 is reproduced: with Drop Tail the packet retransmitted after the slow-start loss is "
        f"lost again for B = {', '.join(map(str, dt_lost)) or 'none'} (the paper: 13, 16 and 18), a timeout follows "
        "that sets ssthresh to 2 (W_S = 2 in the table: congestion avoidance from 2 packets, no second slow "
        f"start to half the window) and the throughput drops to {dt_thr} kb/s (the paper's {PAPER_DT18} at B = "
        "18); Random Drop and Drop-from-Front lose it in "
        + ("none of their cycles. " if others_lost == 0 else f"up to {others_lost:.0%} of their cycles. ")
        + f"At B = 18 Drop Tail gives {thr[18, 'drop-tail']:.0f} kb/s and Random Drop "
        f"{thr[18, 'random-drop']:.0f} (the paper: {PAPER_DT18} and {PAPER_RD18}). The paper leaves two readings open: T = 560 ms "
        "is the minimum RTT with the service times in Sec. 3 but the sum of the links' propagation delays in the "
        'simulations of Sec. 5, which Sec. 7.2 takes "as before"; and whether B counts the packet being sent. '
        "The item reads T as the two-way propagation delay, as the simulation sections state it, and B as ns-2's "
        "DropTail limit (the alternatives table has the four readings, Drop Tail only). "
        + (
            "Which B lose the retransmission is the paper's under none of them: "
            + "; ".join(
                f"{T_LABEL[t]}, {B_LABEL[w].split(' (')[0]}: {', '.join(map(str, alt_lost[t, w])) or 'none'}"
                for t, w in READINGS
            )
            + " (the paper: 13, 16, 18). Whether the bottleneck is still full when the retransmission arrives "
            "turns on single packets: the outcome at B = "
            + (", ".join(map(str, unsettled)) or "none")
            + f" changes between readings that move the RTT by the service times ({1e3 * (T - 2 * d_svc):.1f} ms) "
            "or the buffer by one packet, so the paper's list is not pinned down by what it states of its ns set-up (Eq. 5 is only "
            + (
                f"necessary: it holds at the bottleneck for every one of the {len(eq5_mu)} B, see the table). "
                if all(eq5_mu.values())
                else f"necessary: it holds at the bottleneck for {sum(eq5_mu.values())} of the {len(eq5_mu)} B, see "
                "the table). "
            )
            + "What does not turn on them is the cost: wherever Drop Tail loses the retransmission it gets "
            f"{min(cost):.0f} to {max(cost):.0f} kb/s (the paper: {PAPER_DT18}). "
            if dt_lost != paper_lost and cost
            else ""
        )
        + "The window at which the slow-start loss is detected falls with alpha as the paper's "
        "W_D = min(W_th, 2 W_B + (alpha - 1) S_B / 2) says (Drop-from-Front detects it after about S_B/2 ACKs); the "
        f"simulated Drop-from-Front W_D is {pct(min(df_err))} to {pct(max(df_err))} from it because S_B/2 assumes "
        "a buffer fed at 2 mu: the head dropped when the bottleneck overflows is the packet after the "
        f"(mu/mu') S_B = {MU / MU_P:.2f} S_B it has sent by then, and the simulation is {pct(min(df_alt))} to "
        f"{pct(max(df_alt))} from W_D = 2^n_B + (mu/mu') S_B. "
        + (
            f"For B = {', '.join(map(str, third))} Drop Tail reacts to "
            + ", ".join(f"{nloss[b, 'drop-tail']:.0f}" for b in third)
            + " losses per cycle (median; the cwnd trace) and starts congestion avoidance from W_S = "
            + ", ".join(f"{ws[b, 'drop-tail']:.0f}" for b in third)
            + ", below three quarters of W_D / 2 ("
            + ", ".join(f"{wd[b, 'drop-tail'] / 2:.0f}" for b in third)
            + "), so there the paper's "
            '"Drop Tail is best when the retransmission is not lost" does not hold. '
            if third
            else ""
        )
        + "The throughput of Fig. 11 is a plot: only the two B = 18 numbers are compared."
    )
    notes = (
        "Sec. 7.2's path: an access link mu_A = 2.7 Mbit/s (a 1000-packet buffer, never full), mu' = 2.2 Mbit/s "
        "with B' = 15, mu = 1.5 Mbit/s with B = 10..20 packets; T = 560 ms, 512-byte packets (472 + 40), an ACK "
        'per packet, ns-2\'s Tahoe (`profile = "ns2"`: a timeout after a lost retransmission sets ssthresh to 2, '
        "as in the paper's ns; tcplab's native Tahoe takes ssthresh from the flight size and hides the effect). "
        "T is the two-way propagation delay (280 ms on the last link; the service times add to it). "
        "The paper's B is ns-2's DropTail limit (the packets at the node including the one being sent): "
        "tcplab's `limit = B - 1`. The policy is on both mu' and mu (\"supplying the two nodes with RD "
        'buffers"). 3000 s (the quick form: 1500 s), cycles after 100 s; the other readings of T and B with '
        "Drop Tail, 1500 s (the quick form: 400 s); W_D, W_S: medians over the cycles "
        "from the cwnd trace (W_S = the "
        "threshold congestion avoidance starts from; 2 when the retransmission is lost). Model: "
        "`tcplab.models.multibottleneck` (`overflow_bursts` with mu0 = mu_A, `start_window`, "
        "`retransmission_loss`); kb/s count 512-byte packets. Random Drop's alpha is its mean, 0.5."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        figures=figs,
        notes=notes,
        extra=[("The readings of T and B the paper leaves open (Drop Tail)", alt_table), *extra],
        numbers={
            "throughput_kbps": {f"{b}/{a}": v for (b, a), v in thr.items()},
            "retransmission_lost": {f"{b}/{a}": v for (b, a), v in lost.items()},
            "w_d": {f"{b}/{a}": v for (b, a), v in wd.items()},
            "w_s": {f"{b}/{a}": v for (b, a), v in ws.items()},
        },
    )


register(
    Item(
        "barakat-figs9-11",
        PAPER,
        "Figs 9-11",
        "Drop Tail, Random Drop and Drop-from-Front",
        "Through mu_A = 2.7, mu' = 2.2 (B' = 15) and mu = 1.5 Mbit/s (B = 10..20), the retransmission after the "
        "slow-start loss is itself lost with Drop Tail for some B (13, 16, 18): a timeout, no second slow start, "
        "717 kb/s at B = 18 against 829 with Random Drop (Figs 9-10). Random Drop and Drop-from-Front avoid it, "
        "but cost throughput where the problem does not exist: W_S = min(W_th, 2 W_B + (alpha - 1) S_B / 2) / 2 "
        "falls with alpha (Fig. 11).",
        ("barakat/barakat-drop-policies.toml",),
        _jobs_911,
        _evaluate_911,
        quick="1500 s per run instead of 3000 s (about 11 cycles); the other readings of T and B 400 s instead "
        "of 1500 s",
    )
)
