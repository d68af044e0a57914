"""Parvez, Mahanti & Williamson 2010's NewReno model evaluated as the paper does: Eq. 29 term by
term, the model with measured timeouts, PFTK with a given timeout share, PFTK over the NewReno
model, and Table IV's model column (with the table as printed).
"""

from __future__ import annotations

import math

__all__ = [
    "EQ29_TERMS",
    "PAPER_TABLE_IV",
    "TABLE_IV_ROW1",
    "TABLE_IV_SEGSIZE",
    "eq29",
    "eq29_model_terms",
    "model_measured_timeouts",
    "pftk_over_newreno_max",
    "pftk_with_q",
    "ratio_band",
    "table_iv_model_kbps",
]

#: Eq. 29's terms, one letter each (what `eq29` takes): S packets the ACKs newly cover per loss event (the
#: numerator, 1/p + W^2 q/(1 + W q)), Q the share of loss events ending in a timeout (p_TO), A the duration
#: in RTTs of a cycle whose loss event ends in fast recovery (D_CAFR / R = W/2 + 3/2 + 1 + W q), Z the time
#: in RTTs waiting for timers in a cycle whose loss event ends in a timeout
#: (D_TO / R = (1 + 2p + 4p^2) RTO / R) and B the rest of such a cycle in RTTs (slow start and congestion
#: avoidance, (D_SS + D_CA) / R = 1 + log2(W/4) + W/2 + 3/2).
EQ29_TERMS = (
    ("S", "packets per loss event (numerator)"),
    ("Q", "share ending in a timeout (p_TO)"),
    ("A", "RTTs per cycle ending in fast recovery (D_CAFR / R)"),
    ("Z", "RTTs waiting for timers per timeout cycle (D_TO / R)"),
    ("B", "RTTs of slow start and congestion avoidance per timeout cycle ((D_SS + D_CA) / R)"),
)


def eq29_model_terms(p: float, w: float, rto_over_r: float = 3) -> dict:
    """Eq. 29's terms (EQ29_TERMS) as the model gives them for loss event rate p and window W, q = p."""
    from tcplab.models import newreno

    q = p
    return {
        "S": 1 / p + w * w * q / (1 + w * q),
        "Q": float(newreno.timeout_probability(p, q, w)),
        "A": w / 2 + 1.5 + 1 + w * q,
        "Z": (1 + 2 * p + 4 * p * p) * rto_over_r,
        "B": 1 + math.log2(w / 4) + w / 2 + 1.5,
    }


def eq29(t: dict, mss: int, r: float) -> float:
    """Eq. 29 in bit/s from its terms: S / (R ((1 - Q) A + Q (Z + B)))."""
    return 8 * mss * t["S"] / (r * ((1 - t["Q"]) * t["A"] + t["Q"] * (t["Z"] + t["B"])))


def model_measured_timeouts(f: dict, p_to: float, wait: float) -> float:
    """Eq. 29 (W rounded up, q = p) with the measured share of loss events ending in a timeout as p_TO and
    the measured time waiting for timers per such event in place of (1 + 2p + 4p^2) RTO, written out
    here: (1/p + W^2 q/(1 + W q)) / (N R + p_TO (wait + (1 + log2(W/4)) R)), N = W/2 + 3/2 + (1 - p_TO)(1 + W q)."""
    from tcplab.models import newreno

    p, r = f["loss_event_rate"], f["mean_rtt_s"]
    if not (p > 0 and r > 0 and math.isfinite(p_to) and math.isfinite(wait)):
        return math.nan
    w = math.ceil(float(newreno.window(p, p)))
    n = w / 2 + 1.5 + (1 - p_to) * (1 + w * p)
    return (
        8
        * f["mss_bytes"]
        * (1 / p + w * w * p / (1 + w * p))
        / (n * r + p_to * (wait + (1 + math.log2(w / 4)) * r))
    )


def pftk_with_q(f: dict, q_to: float) -> float:
    """PFTK full (Table I) on a flow with its timeout probability Q = min(1, 3 sqrt(3p/8)) replaced
    by `q_to`, written out here: 8 MSS / (R sqrt(2p/3) + RTO Q p (1 + 32p^2)), RTO = 3R."""
    p, r = f["loss_event_rate"], f["mean_rtt_s"]
    if not (p > 0 and r > 0 and math.isfinite(q_to)):
        return math.nan
    return 8 * f["mss_bytes"] / (r * math.sqrt(2 * p / 3) + 3 * r * q_to * p * (1 + 32 * p * p))


def pftk_over_newreno_max(whole_w: bool) -> tuple[float, float]:
    """(largest PFTK full / NewReno Full, the p where it is) over the model's domain W >= 4 (Eq. 14),
    both models on the same p and R with q = p and RTO = 3R, the paper's inputs; W rounded up to
    whole segments or not. The ratio does not depend on R or the segment size (RTO being 3R)."""
    from tcplab.models import newreno, pftk

    def ratio(p: float) -> float:
        return float(pftk.full(1000, 0.1, p, 0.3)) / float(
            newreno.throughput_full(1000, 0.1, p, p, 0.3, integer_window=whole_w)
        )

    ps = [p for p in (1e-4 * (1200 ** (i / 400)) for i in range(401)) if float(newreno.window(p, p)) >= 4]
    best = max(ps, key=ratio)
    fine = [best * (1 + (i - 500) / 10000) for i in range(1001)]
    best = max((p for p in fine if float(newreno.window(p, p)) >= 4), key=ratio)
    return ratio(best), best


def ratio_band(limit: float, inside: list[float]) -> tuple[float, float]:
    """The widest band of loss event rates around the rates `inside` where PFTK / NewReno model
    (q = p, RTO = 3R, W rounded up) exceeds `limit` at every point of a grid of 2000 rates from
    0.01% to 11% (W >= 4); NaNs if some rate in `inside` is not in one such band."""
    from tcplab.models import newreno, pftk

    ps = [p for p in (1e-4 * (1100 ** (i / 2000)) for i in range(2001)) if float(newreno.window(p, p)) >= 4]
    over = [
        float(pftk.full(1000, 0.1, p, 0.3))
        / float(newreno.throughput_full(1000, 0.1, p, p, 0.3, integer_window=True))
        > limit
        for p in ps
    ]
    # each rate with the one before it; the sentinel (inf, False) closes a band reaching the last rate
    bands, lo = [], None
    for prev, p, o in zip([math.nan, *ps], [*ps, math.inf], [*over, False], strict=True):
        if o and lo is None:
            lo = p
        elif not o and lo is not None:
            bands.append((lo, prev))
            lo = None
    for a, b in bands:
        if all(a <= x <= b for x in inside):
            return a, b
    return math.nan, math.nan


# ---- Table IV: Internet experiments, the model column --------------------------------------------------

#: Table IV (Calgary to Japan) as printed: imposed PLR, timeouts, fast recoveries, LER, RTT (ms),
#: duration (s), measured and model Kbps. Row 1's PLR 6.21% and starred model value 382 are in the text.
PAPER_TABLE_IV = (
    ("0.00%", 7, 27, 0.0098, 229, 106.34, 379, 497),
    ("0.50%", 5, 39, 0.0127, 245, 120.12, 335, 394),
    ("1.00%", 9, 58, 0.0193, 237, 134.84, 299, 297),
    ("1.50%", 24, 87, 0.0319, 253, 195.73, 206, 202),
    ("2.50%", 59, 100, 0.0457, 256, 277.23, 145, 147),
    ("2.00%", 26, 76, 0.0293, 300, 302.13, 133, 173),
    ("3.00%", 59, 119, 0.0512, 260, 290.15, 139, 141),
)
TABLE_IV_ROW1 = (0.0621, 382)  # packet loss rate of row 1, the paper's model with q from Eq. 30
TABLE_IV_SEGSIZE = 1448  # Sec. V's Segsize; Sec. VI gives none


def table_iv_model_kbps(
    p: float, rtt_ms: float, q: float | None = None, rto_factor: float = 3, whole_w: bool = False
) -> float:
    """The Full model (Eq. 29) on Table IV's inputs: q = p unless given, RTO = 3R unless another
    factor is given (Sec. IV-A's simulation setting; Sec. VI states none), the real W of Eq. 14
    unless `whole_w` (rounded up to whole segments), 1448-byte segments, in Kbit/s (1000 bit/s)."""
    from tcplab.models import newreno

    r = rtt_ms / 1000
    return (
        float(
            newreno.throughput_full(
                TABLE_IV_SEGSIZE, r, p, p if q is None else q, rto_factor * r, integer_window=whole_w
            )
        )
        / 1000
    )
