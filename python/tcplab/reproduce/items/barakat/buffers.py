"""Barakat & Altman 1999, Sec. 6, Eq. 4: buffer dimensioning."""

from __future__ import annotations

import math

from tcplab.reproduce.core import Check, Context, Item, Job, Outcome, fmt, register
from tcplab.reproduce.items.barakat.shared import MU, PAPER, PIPE, SIZE, T, kbps, ns2_path, tahoe_cycles

# ---- Sec. 6, Eq. 4: buffer dimensioning -----------------------------------------------------------

B_SCAN = (60, 62, 63, 64, 65, 66, 68, 70, 72, 80)  # the bottleneck alone (mu' = 2 mu): Eq. 4 gives B >= 65
BP_SCAN = (58, 60, 61, 62, 63, 64, 65, 66, 68, 78, 80, 90)  # mu' = 1.02 mu with B = 100: Eq. 1 gives B' >= 63
MU_NEAR, B_BIG = 1.02 * MU, 100


#: The readings of the paper's B (unstated): the packets waiting (`limit = B`, the item's: the
#: equations count the packet being sent in mu T), or ns-2's DropTail `limit_` (`limit = B - 1`).
READINGS = (True, False)
READING = {
    True: "B packets waiting (limit = B)",
    False: "ns-2's limit_ = B with the one being sent (limit = B - 1)",
}


def _jobs_buffers(quick: bool) -> list[Job]:
    dur = "700s" if quick else "2000s"
    return [
        job
        for w in READINGS
        for job in [Job(ns2_path([(MU, b)], dur, waiting=w), traces=("cwnd",)) for b in B_SCAN]
        + [Job(ns2_path([(MU_NEAR, bp), (MU, B_BIG)], dur, waiting=w), traces=("cwnd",)) for bp in BP_SCAN]
    ]


def _ss_loss_model(b: float, s_b: float) -> bool:
    """Sec. 4: a slow-start loss when W_B < W_th = (mu T + B) / 2."""
    from tcplab.models import multibottleneck as mb

    return bool(float(mb.loss_window(s_b)) < (PIPE + b) / 2)


def _first_clear(scan, lossy) -> float:
    """The smallest size of `scan` from which on no size loses in slow start (NaN: none)."""
    ok = [x for j, x in enumerate(scan) if not any(lossy[y] for y in scan[j:])]
    return float(ok[0]) if ok else math.nan


def _evaluate_buffers(ctx: Context) -> Outcome:
    from tcplab.models import multibottleneck as mb

    head = [
        "path",
        "buffer scanned",
        "Eq. 1 burst S_B",
        "W_B",
        "W_th",
        "model: slow-start loss",
        "cycles",
        "cycles with a slow-start loss",
        "kb/s",
    ]
    body, share, model = [], {}, {}
    i = 0
    alt_share: dict[tuple[bool, str, int], float] = {}
    for w in READINGS[1:]:  # the other readings' runs come after the item's
        for part, scan in (("B", B_SCAN), ("B'", BP_SCAN)):
            for x in scan:
                k = len(B_SCAN) + len(BP_SCAN) + i
                cy = tahoe_cycles(ctx.trace(k, "cwnd"))
                alt_share[w, part, x] = sum(bool(c["after"]) for c in cy) / len(cy) if cy else math.nan
                i += 1
    i = 0
    for part, scan in (("B", B_SCAN), ("B'", BP_SCAN)):
        for x in scan:
            if part == "B":
                b, s_b, label = x, 2.0 * x, "mu alone (mu' = 2 mu)"
            else:
                b = B_BIG
                s, s_p = (float(v) for v in mb.two_node_bursts(MU, MU_NEAR, B_BIG, x))
                s_b, label = min(s, s_p), f"mu' = {MU_NEAR / 1e6:.2f} Mbit/s, B = {B_BIG}"
            cy = tahoe_cycles(ctx.trace(i, "cwnd"))
            share[part, x] = sum(bool(c["after"]) for c in cy) / len(cy) if cy else math.nan
            model[part, x] = _ss_loss_model(b, s_b)
            body.append(
                [
                    label,
                    f"{part} = {x}",
                    f"{s_b:.1f}",
                    f"{float(mb.loss_window(s_b)):.1f}",
                    f"{(PIPE + b) / 2:.1f}",
                    "yes" if model[part, x] else "no",
                    str(len(cy)),
                    f"{share[part, x]:.0%}",
                    f"{kbps(ctx.rows(i).row(0, named=True)):.0f}",
                ]
            )
            i += 1
    sim_b = _first_clear(B_SCAN, {x: share["B", x] > 0 for x in B_SCAN})
    sim_bp = _first_clear(BP_SCAN, {x: share["B'", x] > 0 for x in BP_SCAN})
    eq4_b = _first_clear(B_SCAN, {x: not mb.no_slow_start_loss(MU, T, x, 1e6, SIZE) for x in B_SCAN})
    eq4_bp = _first_clear(BP_SCAN, {x: not mb.no_slow_start_loss(MU, T, B_BIG, x, SIZE) for x in BP_SCAN})
    mod_bp = _first_clear(BP_SCAN, {x: model["B'", x] for x in BP_SCAN})
    approx_b = float(mb.min_bottleneck_buffer(MU, T, SIZE))
    approx_bp = float(mb.min_equivalent_buffer(MU, T, B_BIG, SIZE))
    extra = [
        (
            "The smallest buffer without a slow-start loss",
            [
                [
                    "buffer",
                    "simulation",
                    "Eq. 4 exact (2^n_B kept)",
                    "Eq. 1 at the simulated mu'",
                    "Eq. 4 approximated (2^n_B = 2B)",
                ],
                [
                    "B, the bottleneck fed at 2 mu",
                    fmt(sim_b, 0),
                    fmt(eq4_b, 0),
                    fmt(eq4_b, 0),
                    f"> mu T / 3 = {approx_b:.1f}",
                ],
                [
                    f"B', mu' -> mu (B = {B_BIG})",
                    fmt(sim_bp, 0),
                    fmt(eq4_bp, 0),
                    fmt(mod_bp, 0),
                    f"> (mu T + B) / 4 = {approx_bp:.1f}",
                ],
            ],
        )
    ]
    above = [
        f"{p} = {x}" for (p, x), v in share.items() if x > (approx_b if p == "B" else approx_bp) and v != 0
    ]
    below = [f"{p} = {x}" for (p, x), v in share.items() if x < (eq4_b if p == "B" else mod_bp) and v != 1]
    n_above = sum(x > approx_b for x in B_SCAN) + sum(x > approx_bp for x in BP_SCAN)
    n_below = sum(x < eq4_b for x in B_SCAN) + sum(x < mod_bp for x in BP_SCAN)
    alt = {
        w: (
            _first_clear(B_SCAN, {x: alt_share[w, "B", x] > 0 for x in B_SCAN}),
            _first_clear(BP_SCAN, {x: alt_share[w, "B'", x] > 0 for x in BP_SCAN}),
        )
        for w in READINGS[1:]
    }
    extra.append(
        (
            "The reading of B the paper leaves open: the smallest buffer without a slow-start loss in each",
            [
                [
                    "reading of B",
                    "B (Eq. 4 exact: " + fmt(eq4_b, 0) + ")",
                    f"B' (Eq. 1-4 at mu': {fmt(mod_bp, 0)})",
                ]
            ]
            + [[READING[READINGS[0]] + " (the item's)", fmt(sim_b, 0), fmt(sim_bp, 0)]]
            + [[READING[w], fmt(alt[w][0], 0), fmt(alt[w][1], 0)] for w in READINGS[1:]],
        )
    )
    checks = [
        Check(
            "the smallest B and B' without a slow-start loss against Eq. 4 (exact) and Eq. 1-4 at mu'",
            f"{fmt(sim_b, 0)} / {fmt(sim_bp, 0)}",
            f"equal: {fmt(eq4_b, 0)} / {fmt(mod_bp, 0)}",
            sim_b == eq4_b and sim_bp == mod_bp,
        ),
        Check(
            "the paper's rule B > mu T / 3, B' > (mu T + B) / 4 is enough: scanned sizes above it with a "
            "slow-start loss",
            f"{', '.join(above) or 'none'} (of {n_above})",
            "none",
            n_above > 0 and not above,
        ),
        Check(
            "below the exact bound (Eq. 4 for B; Eq. 1-4 at the simulated mu' for B') every cycle loses in slow "
            "start: sizes where some cycle does not",
            f"{', '.join(below) or 'none'} (of {n_below})",
            "none",
            n_below > 0 and not below,
        ),
    ]
    edge_keys = [k for k, v in share.items() if (v > 0) != model[k]]
    edge = [f"{p} = {x}" for p, x in edge_keys]
    off = {
        w: [f"{p} = {x}" for (ww, p, x), v in alt_share.items() if ww == w and (v > 0) != model[p, x]]
        for w in alt
    }
    explanation = (
        "The exact form of Eq. 4 (with 2^n_B, not its approximation 2B) puts the smallest bottleneck buffer at "
        f"B = {fmt(eq4_b, 0)} for mu T = {PIPE:.1f} packets: with 2B > 2^7 = 128 the first burst that can fill B "
        "is in mini-cycle 8, which slow start does not reach with a full-size burst since (mu T + B)/2 < 2^7 + B. "
        f"The simulation's thresholds are {fmt(sim_b, 0)} for B and {fmt(sim_bp, 0)} for B' at mu' = "
        f"{MU_NEAR / 1e6:.2f} Mbit/s (Eq. 1-4 at that mu': {fmt(mod_bp, 0)})"
        + (f"; they differ from the equations at {', '.join(edge)}" if edge else "")
        + ". The paper does not say whether B counts the packet being sent. The item reads B as the packets "
        "waiting (`limit = B`): the equations count the packet in service in mu T and the burst as a fluid "
        "filling B. With ns-2's DropTail `limit_` (the packet being sent counted in B, `limit = B - 1`, the "
        "reading of the Figs 9-11 item) the thresholds are "
        + "; ".join(f"{fmt(alt[w][0], 0)} and {fmt(alt[w][1], 0)}" for w in alt)
        + " (the alternatives table"
        + "".join(f"; the equations and these runs differ at {', '.join(off[w])}" for w in alt if off[w])
        + "). The paper's own rule, with the "
        f"approximation 2^n_B = 2B (B > mu T / 3 = {approx_b:.1f}, B' > (mu T + B)/4 = {approx_bp:.1f} for mu' = mu), "
        f"is {approx_b - eq4_b:.1f} and more packets conservative. For the "
        f"equivalent node the exact bound at mu' = mu is B' = {fmt(eq4_bp, 0)}; the simulation sits just above mu "
        "(so that congestion avoidance still fills B, not B'), where the burst that fills B' is "
        f"2 mu/(2 mu - mu') B' = {2 * MU / (2 * MU - MU_NEAR):.3f} B'. The paper states the bound without a "
        "simulation of it, so the comparison is with its equations."
    )
    notes = (
        "Sec. 6's two extremes of mu' in [mu, 2 mu], mu = 1.5 Mbit/s, T = 560 ms, 512-byte packets, ns-2's "
        f"Tahoe and ns-2's buffer sizes (as in Figs 9-11). mu' = 2 mu: the bottleneck fed by the source directly, "
        f"B = {', '.join(map(str, B_SCAN))}. mu' -> mu: mu' = {MU_NEAR / 1e6:.2f} Mbit/s with B' = "
        f"{', '.join(map(str, BP_SCAN))} before mu with B = {B_BIG} (> mu T / 3, so B never overflows in slow "
        "start); each size with both readings of B (the alternatives table). 2000 s per run (the quick form: 700 s); a cycle has a slow-start loss when a loss follows the "
        "congestion-avoidance loss within 20 s (cwnd trace). Model: `tcplab.models.multibottleneck` "
        "(`no_slow_start_loss` is Eq. 4's exact form, `min_bottleneck_buffer`, `min_equivalent_buffer` its "
        "approximation, `two_node_bursts` and `loss_window` Eq. 1-3)."
    )
    return Outcome(
        [head] + body,
        checks,
        explanation,
        notes=notes,
        extra=extra,
        numbers={
            "smallest_b": {"sim": sim_b, "eq4": eq4_b, "approx": approx_b},
            "smallest_b_prime": {"sim": sim_bp, "eq1": mod_bp, "eq4": eq4_bp, "approx": approx_bp},
            "smallest_b_limit_minus_one": {"b": alt[False][0], "b_prime": alt[False][1]},
            "ss_loss_share": {f"{p}={x}": v for (p, x), v in share.items()},
        },
    )


register(
    Item(
        "barakat-buffers",
        PAPER,
        "Sec. 6, Eq. 4",
        "buffer dimensioning",
        "No loss in slow start for any mu' in [mu, 2 mu] needs mu T + B < 2^n_B + 2B and mu T + B < 2^n'_B + 2B' "
        "(Eq. 4), approximately B > mu T / 3 and B' > (mu T + B) / 4 (the shaded region of Fig. 6).",
        (),
        _jobs_buffers,
        _evaluate_buffers,
        quick="700 s per run instead of 2000 s (3 to 6 cycles instead of 12 to 21)",
    )
)
