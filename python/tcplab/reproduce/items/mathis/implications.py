"""Mathis et al. 1997 Sec. 7 (Figs 14-15): what loss on a shared link does to a modem user and to a
Research and Education user."""

from __future__ import annotations

import math

from tcplab.reproduce.core import Check, Context, Item, Job, Outcome, fmt, register
from tcplab.reproduce.items.mathis.table4 import PAPER

MODEM, RE = "mathis/modem-user.toml", "mathis/re-user.toml"
LOSS = "network.path.hops.0.loss.p"

# ---- Fig. 14: the modem user -------------------------------------------------------------------------

#: Loss rates on link L (0: the left edge, where the modem's own queue is the only loss).
MODEM_P = (0.0, 0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3)
#: The paper's numbers (Sec. 7): at the left edge p is roughly 4% with an average window of about
#: 5 packets and a round trip of about 1.2 s; 3% on L has an insignificant effect; the round
#: trip falls toward the unloaded 400 ms as L's loss rises; the utilization does not start to
#: fall until L's loss rate approaches 10%.
PAPER_P, PAPER_W, PAPER_RTT, UNLOADED_RTT = 0.04, 5.0, 1.2, 0.4
#: The stated tolerances (the paper's "roughly" and "about"): p within a factor 1.5, the window
#: within one packet, the round trip within 25%; "insignificant" as within 10% of the goodput;
#: the utilization has "started to fall" at the first p on L that brings the goodput below 90%
#: of the left edge's, and "approaches 10%" is that point in [7%, 15%]; "down toward 400 ms" as
#: below half the left edge's round trip at the largest p on L.
P_FACTOR, W_TOL, RTT_TOL, SAME, KNEE = 1.5, 1.0, 0.25, 0.10, (0.07, 0.15)
#: The paper's window: between 6 and 7 packets at most (5 queued, the rest in flight).
PAPER_PEAK = 7.0
#: The control behind a measured reason: the modem's 5 packets counted with the one being sent
#: (a limit of 4 waiting).
LIMIT4 = {"network.path.hops.1.queue.limit": 4, LOSS: 0.0}
#: The modem's mean queueing delay (store column).
MODEM_QUEUE = "link.hop1.fwd.mean_queue_delay_s"


def _modem_sets(p: float) -> dict:
    return {LOSS: p, "duration": "3100s"}


def _modem_jobs() -> list[Job]:
    return [
        Job(MODEM, {**_modem_sets(p), "trace.cwnd": True} if p == 0 else _modem_sets(p), traces=p == 0)
        for p in MODEM_P
    ]


def _control_jobs() -> list[Job]:
    return [Job(MODEM, {**_modem_sets(0.0), **LIMIT4})]


# ---- Fig. 15: the R&E user ---------------------------------------------------------------------------

RE_MSS = (536, 1460, 4312)
#: Eq. 14's bounds as the paper prints them (for 1 Mbit/s at a 100 ms round trip).
PAPER_BOUND = {536: 0.0018, 1460: 0.014, 4312: 0.11}
RE_RATE, RE_RTT = 1e6, 0.100
#: Loss rates on L as multiples of each MSS's bound: the rate crosses 1 Mbit/s among them.
RE_FACTORS = (0.125, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)
#: The paper's R&E user at 3% loss with 536-byte segments: "no more than about 250 kb/s".
AT_3PCT = 250e3


def re_points() -> list[tuple[int, float]]:
    return [(m, _bound(m) * f) for m in RE_MSS for f in RE_FACTORS] + [(536, 0.03)]


def _bound(mss: int) -> float:
    from tcplab.models import mathis

    return float(mathis.loss_for_rate(mss, RE_RTT, RE_RATE))


def _re_sets(mss: int, p: float) -> dict:
    return {"flows.0.mss": mss, LOSS: round(p, 6), "duration": "650s"}


def _last_digit(x: float) -> float:
    """One unit of the last digit of `x` as printed with two significant digits (0.0018: 0.0001)."""
    return 10 ** (math.floor(math.log10(x)) - 1)


def _jobs(quick: bool) -> list[Job]:
    """The same in the quick form: every run together simulates in about a second."""
    return _modem_jobs() + [Job(RE, _re_sets(m, p)) for m, p in re_points()] + _control_jobs()


def _crossing(points: list[tuple[float, float]], level: float) -> float:
    """The p where the goodput falls through `level`, interpolated on log p and log goodput
    between the last point above and the first below (NaN when it does not cross)."""
    points = sorted(points)
    for (p0, g0), (p1, g1) in zip(points, points[1:], strict=False):
        if g0 >= level > g1 and g1 > 0:
            t = (math.log(g0) - math.log(level)) / (math.log(g0) - math.log(g1))
            return math.exp(math.log(p0) + t * (math.log(p1) - math.log(p0)))
    return math.nan


def peak_windows(cwnd, warmup: float, mss: int) -> list[float]:
    """The window (packets) just before each reduction after `warmup`, from a cwnd trace."""
    import polars as pl

    if cwnd.is_empty():
        return []
    t = cwnd.sort("time_ns").with_columns(pl.col("cwnd_bytes").shift(1).alias("before"))
    t = t.with_columns((pl.col("cwnd_bytes") < pl.col("before")).alias("down"))
    # the first decrease of each run of decreases (rate halving lowers the window step by step)
    t = t.with_columns(pl.col("down").shift(1, fill_value=False).alias("was_down"))
    t = t.filter((pl.col("time_s") > warmup) & pl.col("down") & ~pl.col("was_down"))
    return [b / mss for b in t["before"].to_list()]


def _share_to(f: dict) -> float:
    """The share of the flow's loss episodes that were not one W/2 adjustment (Mathis' non-CA)."""
    n = f["ca_events"] + f["non_ca_events"]
    return f["non_ca_events"] / n if n else math.nan


def _near(points: list[tuple[float, dict]], p: float) -> tuple[float, dict]:
    """The (p, run) whose p is nearest `p` on a log scale (the first when `p` is not a number)."""
    if not (p > 0):
        return points[0]
    return min(points, key=lambda x: abs(math.log(x[0] / p)))


def _evaluate(ctx: Context) -> Outcome:
    rows = ctx.rows().to_dicts()
    mp, rp = MODEM_P, re_points()
    modem, re_rows = rows[: len(mp)], rows[len(mp) : len(mp) + len(rp)]
    (limit4,) = rows[len(mp) + len(rp) :]
    checks: list[Check] = []

    # The modem user.
    left = modem[0]
    w_left = left["mean_window_bytes"] / left["mss_bytes"]
    g_left = left["goodput_bps"]
    head = ["p on L", "goodput kbit/s", "of the left edge", "flow's p (CA events)", "mean window pkts",
            "mean RTT s", "timeouts"]  # fmt: skip
    body = [
        [
            f"{p:g}",
            fmt(f["goodput_bps"] / 1e3, 2),
            fmt(f["goodput_bps"] / g_left),
            fmt(f["p"], 4),
            fmt(f["mean_window_bytes"] / f["mss_bytes"], 2),
            fmt(f["mean_rtt_s"]),
            str(f["timeouts"]),
        ]
        for p, f in zip(mp, modem, strict=True)
    ]
    p_ok = lambda f: PAPER_P / P_FACTOR <= f["p"] <= PAPER_P * P_FACTOR  # noqa: E731
    w_ok = lambda f: abs(f["mean_window_bytes"] / f["mss_bytes"] - PAPER_W) <= W_TOL  # noqa: E731
    checks.append(
        Check(
            "modem, left edge (no loss on L): the flow's p (CA events per segment)",
            round(left["p"], 4),
            f"roughly {PAPER_P:.0%}: within a factor {P_FACTOR} ({PAPER_P / P_FACTOR:.3f} to {PAPER_P * P_FACTOR:.3f})",
            p_ok(left),
        )
    )
    checks.append(
        Check(
            "modem, left edge: average window (packets)",
            round(w_left, 2),
            f"about {PAPER_W:g}: within {W_TOL:g} packet",
            w_ok(left),
        )
    )
    checks.append(
        Check(
            "modem, left edge: mean RTT (s)",
            round(left["mean_rtt_s"], 3),
            f"about {PAPER_RTT:g} s: within {RTT_TOL:.0%}",
            abs(left["mean_rtt_s"] / PAPER_RTT - 1) <= RTT_TOL,
        )
    )
    at3 = modem[mp.index(0.03)]
    checks.append(
        Check(
            "modem, 3% loss on L: goodput over the left edge's",
            round(at3["goodput_bps"] / g_left, 3),
            f"an insignificant effect: within {SAME:.0%} (at least {1 - SAME:.2f})",
            at3["goodput_bps"] / g_left >= 1 - SAME,
        )
    )
    knee = next(
        (p for p, f in zip(mp, modem, strict=True) if f["goodput_bps"] < (1 - SAME) * g_left), math.nan
    )
    checks.append(
        Check(
            f"modem: the first p on L whose goodput is below {1 - SAME:.0%} of the left edge's",
            knee,
            f"the utilization starts to fall as p approaches 10%: in [{KNEE[0]:g}, {KNEE[1]:g}]",
            KNEE[0] <= knee <= KNEE[1],
        )
    )
    right = modem[-1]
    checks.append(
        Check(
            f"modem, {mp[-1]:g} loss on L: mean RTT over the left edge's",
            round(right["mean_rtt_s"] / left["mean_rtt_s"], 3),
            f"down toward the unloaded {UNLOADED_RTT:g} s: below 0.5",
            right["mean_rtt_s"] < left["mean_rtt_s"] / 2,
        )
    )
    # The measured reasons for the modem: the window overshoots the paper's 6-7 packets before the
    # loss is signalled, and the paper's numbers hold with the 5 packets counted with the one being
    # sent; the RTT's fall is held up by the delayed-ACK timer, which adds its 200 ms to every RTT.
    peaks = peak_windows(ctx.trace(0, "cwnd"), 100.0, left["mss_bytes"])
    peak = sum(peaks) / len(peaks) if peaks else math.nan
    checks.append(
        Check(
            "modem, left edge: mean window just before each reduction (packets, cwnd trace)",
            round(peak, 2),
            f"above the paper's {PAPER_PEAK:g} (the loss is signalled a round trip and three duplicate ACKs, "
            "each a 277 ms packet time, after the queue overflows)",
            peak > PAPER_PEAK,
            paper=False,
        )
    )
    checks.append(
        Check(
            "modem, left edge, the 5 packets counted with the one being sent (4 waiting): p and window",
            f"p {limit4['p']:.4f}, W {limit4['mean_window_bytes'] / limit4['mss_bytes']:.2f}",
            "both within the paper's tolerances above",
            p_ok(limit4) and w_ok(limit4),
            paper=False,
        )
    )
    q_left, q_right = left[MODEM_QUEUE], right[MODEM_QUEUE]
    checks.append(
        Check(
            f"modem: mean queueing delay at the modem, {mp[-1]:g} loss on L over the left edge's",
            round(q_right / q_left, 3) if q_left > 0 else math.nan,
            "below 0.1: the queue's part of the RTT is gone; what remains is the fixed part (the unloaded "
            "400 ms, the receiver's 200 ms delayed-ACK timer, the ns1 timer's 100 ms tick on the samples)",
            q_left > 0 and q_right / q_left < 0.1,
            paper=False,
        )
    )

    # The R&E user.
    by_mss: dict[int, list[tuple[float, float]]] = {m: [] for m in RE_MSS}
    runs: dict[int, list[tuple[float, dict]]] = {m: [] for m in RE_MSS}
    re_body = []
    for (m, p), f in zip(rp[:-1], re_rows[:-1], strict=True):
        by_mss[m].append((p, f["goodput_bps"]))
        runs[m].append((p, f))
        re_body.append(
            [
                str(m),
                f"{p:.4g}",
                fmt(p / _bound(m), 3),
                fmt(f["goodput_bps"] / 1e6),
                fmt(f["mean_window_bytes"] / f["mss_bytes"], 1),
                fmt(_share_to(f)),
                str(f["timeouts"]),
            ]
        )
    re_head = ["MSS", "p on L", "p / Eq. 14's bound", "goodput Mbit/s", "mean window pkts", "non-CA share",
               "timeouts"]  # fmt: skip
    bounds = {m: _bound(m) for m in RE_MSS}
    for m in RE_MSS:
        printed = PAPER_BOUND[m]
        checks.append(
            Check(
                f"R&E, MSS {m}: Eq. 14's bound on p for 1 Mbit/s at 100 ms",
                round(bounds[m], 5),
                f"the paper's {printed:g} within one unit of its last printed digit",
                abs(bounds[m] - printed) < _last_digit(printed),
            )
        )
    cross = {m: _crossing(by_mss[m], RE_RATE) for m in RE_MSS}
    bound_head = ["MSS", "Eq. 14's bound (C = 1)", "paper", "simulated p at 1 Mbit/s", "over the bound"]
    bound_body = [
        [str(m), f"{bounds[m]:.4g}", f"{PAPER_BOUND[m]:g}", f"{cross[m]:.4g}", fmt(cross[m] / bounds[m])]
        for m in RE_MSS
    ]
    for m in RE_MSS:
        checks.append(
            Check(
                f"R&E, MSS {m}: the simulated p at 1 Mbit/s over Eq. 14's bound",
                round(cross[m] / bounds[m], 3),
                "at most 1 (the bound holds: C < 1 with delayed ACKs) and at least 0.4 "
                "(the model agrees with the simulation: C^2 of Table 1's 0.87 is 0.75)",
                0.4 <= cross[m] / bounds[m] <= 1.0,
            )
        )
    ratios = [cross[a] / cross[b] for a, b in zip(RE_MSS[1:], RE_MSS, strict=False)]
    checks.append(
        Check(
            "R&E: each factor of about 3 in MSS raises the tolerable loss rate (simulated p at 1 Mbit/s)",
            ", ".join(f"{r:.1f}x" for r in ratios),
            "by nearly an order of magnitude: each at least 5x",
            all(r >= 5 for r in ratios),
        )
    )
    at = re_rows[-1]
    checks.append(
        Check(
            "R&E, MSS 536 at 3% loss: goodput (kbit/s)",
            round(at["goodput_bps"] / 1e3, 1),
            f"no more than about {AT_3PCT / 1e3:g} kbit/s: at most that",
            at["goodput_bps"] <= AT_3PCT,
        )
    )
    # The measured reason for the largest segments: Eq. 14 with the constants measured at the run
    # nearest the 1 Mbit/s point (C = W sqrt(p), the RTT) in place of C = 1 and 100 ms puts the
    # bound where the simulated rate crosses 1 Mbit/s: the model holds, its constants do not.
    # With 4312 bytes the window there is under 5 packets (footnote 26: fast retransmit fails).
    p_big, big = _near(runs[4312], cross[4312])
    c_big = big["mean_window_bytes"] / big["mss_bytes"] * math.sqrt(p_big)
    predicted = bounds[4312] * (c_big * RE_RTT / big["mean_rtt_s"]) ** 2
    checks.append(
        Check(
            "R&E, MSS 4312: Eq. 14 with the measured C and RTT (run nearest 1 Mbit/s) over the simulated p "
            "at 1 Mbit/s",
            f"{predicted / cross[4312]:.2f} (C = {c_big:.2f}, RTT {big['mean_rtt_s'] * 1e3:.0f} ms, window "
            f"{big['mean_window_bytes'] / big['mss_bytes']:.1f} packets)",
            f"within a factor {P_FACTOR} (the tolerance on the modem's p)",
            1 / P_FACTOR <= predicted / cross[4312] <= P_FACTOR,
            paper=False,
        )
    )
    figs = _figures(mp, modem, by_mss, bounds)
    notes = (
        'Two simulations of the section\'s two users, both FACK-RH (`tcp = "fack"`) with the ns1 profile of '
        "Table 4, loss at random on link L. The modem user (`modem-user.toml`): link L, then a 28.8 kbit/s modem "
        "with 5 packets of queue, 1000-byte packets, 3000 s measured after 100 s. The R&E user (`re-user.toml`): "
        "link L only, 100 ms round trip, delayed ACKs, MSS 536, 1460 and 4312, p at multiples of each MSS's "
        "Eq. 14 bound, 600 s measured after 50 s. Chosen here because the extracted text lacks Sec. 7's opening "
        "(and the figures' axes): link L's rate (10 Mbit/s) and the split of the delays (50 ms on L, 5 ms on the "
        "modem link, which make the stated 400 ms unloaded round trip), the R&E user's path (L alone, never the "
        "bottleneck), the ns1 profile, a 200 ms delayed-ACK timer. Stated in the text and kept: 28.8 kbit/s, "
        "1000-byte packets, the 5-packet modem queue (read as 5 waiting, as ns counts it), FACK-RH, delayed ACKs, "
        "RTT 100 ms, the three MSS."
    )
    explanation = (
        "**The modem.** The paper's p and window are its own arithmetic (a window of 6-7 packets at most, "
        "halved: about 5 on average, and C = 1.2 gives 4%). In the simulation the queue overflows a round trip "
        "(about 1.2 s) and three duplicate ACKs (277 ms each) before the sender hears of it, so the window "
        "grows past the 6-7 packets the path holds before it is halved: the windows at the reductions are "
        "the first measured reason, and the sawtooth is larger and slower than the paper assumed (a larger "
        "average window, fewer losses per packet). The paper notes that the section's results are very "
        "sensitive to the 5-packet queue: counted with the packet being sent, the same simulation gives the "
        "paper's p and window (second reason). The round trip falls from the left edge's as L's loss rises, "
        "but not to half of it: the modem's queue, the part that falls, is gone at the right edge (third "
        "reason); what remains is fixed, and larger than the paper's 400 ms by the receiver's delayed-ACK "
        "timer, which every segment waits for (the paper's own reason for an ACK per segment), and by the "
        "ns1 timer's 100 ms tick on the RTT samples. **The R&E user.** With 536 and 1460 bytes the model "
        "agrees with the simulation as the paper says; with 4312 bytes the rate crosses 1 Mbit/s at a loss "
        "rate well below Eq. 14's 11%. There the window is under 5 packets, where the paper's footnote 26 "
        "says fast retransmit fails, so C is well below 1, and the 4352-byte packets lengthen the RTT; Eq. 14 "
        "with the C and RTT measured there in place of 1 and 100 ms puts the bound at the simulated "
        "crossing (fourth reason). The paper "
        'itself qualifies the 11% ("in practice, we need to consider the actual value of C ... the details '
        "of the particular TCP implementation\"); its figure's numbers are not in the extracted text."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        notes=notes,
        figures=figs,
        extra=[
            ("Fig. 15: the R&E user against loss on L", [re_head] + re_body),
            ("Eq. 14's bounds against the simulated loss rate at 1 Mbit/s", [bound_head] + bound_body),
        ],
        numbers={
            "modem_left_p": left["p"],
            "modem_left_window": w_left,
            "modem_peak_window": peak,
            "modem_knee": knee,
            "re_crossing": {str(m): cross[m] for m in RE_MSS},
        },
    )


def _figures(mp, modem, by_mss, bounds):
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.figure import Figure

        fig = Figure(figsize=(10, 4))
        a, b = fig.subplots(1, 2)
        a.plot([max(p, 1e-3) for p in mp], [f["goodput_bps"] / 1e3 for f in modem], "o-")
        a.set_xscale("log")
        a.set_xlabel("loss on link L (0 drawn at 0.001)")
        a.set_ylabel("modem goodput, kbit/s")
        a.set_title("Fig. 14: the modem user")
        for m, pts in by_mss.items():
            pts = sorted(pts)
            line = b.plot([p for p, _ in pts], [g / 1e6 for _, g in pts], "o-", label=f"MSS {m}")
            b.axvline(bounds[m], ls=":", color=line[0].get_color())
        b.axhline(RE_RATE / 1e6, color="grey", lw=0.8)
        b.set_xscale("log")
        b.set_yscale("log")
        b.set_xlabel("loss on link L (dotted: Eq. 14's bounds)")
        b.set_ylabel("R&E goodput, Mbit/s")
        b.set_title("Fig. 15: the R&E user")
        b.legend()
        fig.tight_layout()
        return [fig]
    except Exception:  # noqa: BLE001 - a figure that cannot be drawn is left out, not fatal
        return []


register(
    Item(
        "mathis-sec7",
        PAPER,
        "Sec. 7, Figs 14-15",
        "loss on a shared link: the modem user and the R&E user",
        "A modem user (28.8 kbit/s, a 5-packet modem queue, 1000-byte packets, an unloaded RTT of about 400 ms, "
        "FACK-RH) is held by its own modem's losses to p of about 4% and a 5-packet average window; up to about "
        "3% loss on link L changes nothing, the RTT falls from about 1.2 s toward 400 ms, and the utilization "
        "falls only as L's loss approaches 10%. An R&E user (RTT 100 ms) who needs 1 Mbit/s needs p below "
        "Eq. 14's bound, (MSS / (BW RTT))^2: 0.18%, 1.4% and 11% with 536-, 1460- and 4312-byte segments, and "
        "the simulation agrees (Fig. 15).",
        (MODEM, RE),
        _jobs,
        _evaluate,
        quick="the same as the full form (its runs simulate in about a second in all)",
    )
)
