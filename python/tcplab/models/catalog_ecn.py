"""The ECN models of `tcplab model`: dctcp, scalable and dualq (registered by catalog.py).

Kept apart from catalog.py (the classic-TCP models) for the file's size; catalog.py adds
:func:`models` to its MODELS.
"""

from __future__ import annotations

from typing import Any

from tcplab.models import dctcp, dualq, scalable
from tcplab.models.catalog import Model, Param, Row

_PAPER = "Alizadeh et al. 2010 Sec. 3.3"


# ---------------------------------------------------------------------------------- dctcp
def _dctcp(a: dict[str, Any]) -> list[Row]:
    n, k, g = a["flows"], a["k"], a["g"]
    if not 0 < g <= 1:
        raise ValueError(f"--g: {g:g} is outside (0, 1] (DCTCP's gain; 1/16 by default)")
    bdp = dctcp.bdp_packets(a["capacity"], a["rtt"], a["packet_size"])
    w = dctcp.critical_window(bdp, n, k)
    if w < 2:
        raise ValueError(
            f"--flows: {n} flows leave W* = (C x RTT + K)/N = {w:.3g} segments, below 2: "
            "alpha ~ sqrt(2/W*) has no value <= 1 there (at most (C x RTT + K)/2 flows)"
        )
    d = dctcp.window_amplitude(bdp, n, k)
    g_max = dctcp.g_bound(bdp, k)
    k_min = dctcp.k_guideline(bdp)
    return [
        Row("bdp", "C x RTT", bdp, "packets", "Sec. 3.3"),
        Row("w_star", "critical window W* = (C RTT + K)/N", w, "segments", "Sec. 3.3"),
        Row("alpha", "alpha ~ sqrt(2/W*)", dctcp.alpha(w), "", "Eq. 7"),
        Row("alpha_exact", "alpha, root of Eq. 6", dctcp.alpha_exact(w), "", "Eq. 6"),
        Row("window_amplitude", "window amplitude D = (W*+1) alpha/2", d, "segments", "Eq. 8"),
        Row(
            "queue_amplitude", "queue amplitude A = N D", dctcp.queue_amplitude(bdp, n, k), "packets", "Eq. 9"
        ),
        Row(
            "queue_amplitude_closed",
            "A ~ (1/2) sqrt(2N(C RTT + K))",
            dctcp.queue_amplitude_closed(bdp, n, k),
            "packets",
            "Eq. 9",
        ),
        Row("period_rtts", "period T_C = D", d, "RTT", "Eq. 10"),
        Row("period", "period T_C x RTT", d * a["rtt"], "s", "Eq. 10"),
        Row("q_max", "Q_max = K + N", dctcp.q_max(bdp, n, k), "packets", "Eq. 11"),
        Row("q_min", "Q_min = Q_max - A", dctcp.q_min(bdp, n, k), "packets", "Eq. 12"),
        Row("k_min", "K guideline (C RTT)/7", k_min, "packets", "Sec. 3.4"),
        Row("k_ok", "K > (C RTT)/7", bool(k > k_min), "", "Sec. 3.4"),
        Row("g_max", "g bound 1.386/sqrt(2(C RTT + K))", g_max, "", "Sec. 3.4"),
        Row("g_max_exact", "g with (1-g)^T_C = 1/2, N = 1", dctcp.g_bound_exact(bdp, k), "", "Sec. 3.4"),
        Row("g_ok", "g below the bound", bool(g < g_max), "", "Sec. 3.4"),
    ]


def _dctcp_domain(a: dict[str, Any], out: dict[str, Any]) -> list[str]:
    notes = []
    if out["q_min"] <= 0:
        notes.append(
            f"Q_min = {out['q_min']:.3g} packets: the queue empties in each cycle, the link idles and "
            f"Q(t) = N W(t) - C x RTT no longer holds in the trough (K below the guideline; {_PAPER})"
        )
    gap = out["alpha"] / out["alpha_exact"] - 1
    if gap > 0.05:
        notes.append(
            f"W* = {out['w_star']:.3g} segments is small: alpha ~ sqrt(2/W*) is {100 * gap:.0f}% above the "
            "root of Eq. 6, and D, A, T_C and Q_min use it (the approximation needs W* >> 1)"
        )
    if a["flows"] >= a["k"]:
        notes.append(
            f"N = {a['flows']} >= K = {a['k']:g}: the N of Q_max = K + N is the synchronized flows' "
            "common extra segment per round trip, so Q_max and A rest most on the synchronized-flows "
            f"assumption here ({_PAPER})"
        )
    if not out["g_ok"]:
        notes.append(
            f"g = {a['g']:g} is above {out['g_max']:.3g}: alpha does not average over a whole cycle "
            "(Sec. 3.4), while the analysis takes it constant"
        )
    return notes


# ------------------------------------------------------------------------------- scalable
def _scalable(a: dict[str, Any]) -> list[Row]:
    p, mss, rtt = a["mark"], a["mss"], a["rtt"]
    w_l, w_c = scalable.scalable_window(p), scalable.classic_window(p)
    return [
        Row("w_scalable", "scalable window W = 2/p", w_l, "segments", "RFC 9332 Sec. 2.1"),
        Row("rate_scalable", "scalable rate", scalable.rate(mss, rtt, w_l), "bit/s", "RFC 9332 Sec. 2.1"),
        Row("marks_per_rtt", "marks per round trip p W", p * w_l, "", "RFC 9331 Sec. 1"),
        Row("w_classic", "classic ECN window sqrt(3/2)/sqrt(p)", w_c, "segments", "Mathis Eq. 3"),
        Row("rate_classic", "classic ECN rate (Reno)", scalable.rate(mss, rtt, w_c), "bit/s", "Mathis Eq. 3"),
        Row("ratio", "scalable / classic rate", w_l / w_c, "", "derived"),
        Row(
            "w_step",
            "DCTCP window behind a step, 2/p^2",
            scalable.step_window(p),
            "segments",
            "Alizadeh Sec. 3.3 (derived)",
        ),
    ]


def _scalable_domain(a: dict[str, Any], out: dict[str, Any]) -> list[str]:
    if out["w_classic"] < 2:
        return [
            f"the classic window {out['w_classic']:.3g} is below 2 segments: the sawtooth of Mathis et al. "
            "1997 (halvings once per window) has no room there"
        ]
    return []


# ---------------------------------------------------------------------------------- dualq
def _dualq(a: dict[str, Any]) -> list[Row]:
    k, rtt, mss = a["k"], a["rtt"], a["mss"]
    rtt_c = rtt if a["rtt_classic"] is None else a["rtt_classic"]
    dualq.rate_ratio(k, rtt, rtt_c)  # checks k, rtt and rtt_classic, each by its own name
    if (a["p_l"] is None) == (a["p_c"] is None):
        raise ValueError("--p-l: give exactly one of --p-l (L4S marking) or --p-c (Classic)")
    if a["p_l"] is not None:
        p_l = a["p_l"]
        p_c = dualq.classic_probability(p_l, k)
    else:
        p_c = a["p_c"]
        p_l = dualq.l4s_probability(p_c, k)
    w_l, w_c = scalable.scalable_window(p_l), scalable.classic_window(p_c)
    return [
        Row("p_l", "L4S marking p_L", p_l, "", "RFC 9332 Sec. 2.1"),
        Row("p_c", "Classic drop/mark p_C = (p_L/k)^2", p_c, "", "RFC 9332 Eq. 1"),
        Row("p_base", "base probability p' = p_L/k", p_l / k, "", "RFC 9332 Sec. 2.4"),
        Row("w_scalable", "scalable window 2/p_L", w_l, "segments", "RFC 9332 Sec. 2.1"),
        Row("rate_scalable", "scalable rate", scalable.rate(mss, rtt, w_l), "bit/s", "RFC 9332 Sec. 2.1"),
        Row("w_classic", "Reno window sqrt(3/2)/sqrt(p_C)", w_c, "segments", "Mathis Eq. 3"),
        Row("rate_classic", "Reno rate", scalable.rate(mss, rtt_c, w_c), "bit/s", "Mathis Eq. 3"),
        Row("ratio", "Classic / scalable rate", dualq.rate_ratio(k, rtt, rtt_c), "", "derived"),
        Row("k_balance", "k for equal rates (equal RTTs)", dualq.balancing_k(), "", "derived"),
    ]


def _dualq_domain(a: dict[str, Any], out: dict[str, Any]) -> list[str]:
    if out["w_classic"] < 2:
        return [f"the Reno window {out['w_classic']:.3g} is below 2 segments: outside its sawtooth model"]
    return []


_MSS = Param("mss", "size", "segment size (bytes, e.g. 1460 or 1.5KB)", 1460)


def models() -> tuple[Model, ...]:
    """The three ECN models, in `tcplab model --list` order."""
    return (
        Model(
            "dctcp",
            "DCTCP's steady state: W*, alpha, window and queue amplitude, period, Q_max = K + N, guidelines",
            "Alizadeh et al. 2010 Sec. 3.3-3.4",
            (
                Param("capacity", "rate", "bottleneck capacity C (e.g. 10Gbit/s)"),
                Param("rtt", "duration", "round-trip time without queueing (e.g. 100us)"),
                Param("flows", "integer", "number of synchronized flows N"),
                Param("k", "number", "marking threshold K (packets)"),
                Param("g", "number", "DCTCP's gain g", dctcp.G_DEFAULT),
                Param("packet_size", "size", "packet size for C x RTT in packets (bytes)", 1500),
            ),
            _dctcp,
            {"n": "flows", "bdp": "capacity", "w": "flows"},
            _dctcp_domain,
        ),
        Model(
            "scalable",
            "the scalable response W = 2/p beside classic ECN's (Mathis, p = the mark rate)",
            "RFC 9331 Sec. 1, RFC 9332 Sec. 2.1, Mathis et al. 1997 Eq. 3",
            (
                _MSS,
                Param("rtt", "duration", "round-trip time (e.g. 20ms)"),
                Param("mark", "probability", "marking probability p"),
            ),
            _scalable,
            {"p": "mark"},
            _scalable_domain,
        ),
        Model(
            "dualq",
            "DualQ coupling p_C = (p_L/k)^2 and the Classic (Reno) / scalable rate balance",
            "RFC 9332 Sec. 2.1, 2.4, App. A",
            (
                _MSS,
                Param("rtt", "duration", "round-trip time of the scalable flow (e.g. 20ms)"),
                Param(
                    "rtt_classic", "duration", "round-trip time of the Classic flow (default: --rtt)", None
                ),
                Param("p_l", "probability", "L4S marking probability p_L (or give --p-c)", None),
                Param("p_c", "probability", "Classic drop/mark probability p_C (or give --p-l)", None),
                Param("k", "number", "coupling factor k", dualq.K_DEFAULT),
            ),
            _dualq,
            {"p_l": "p_l", "p_c": "p_c"},
            _dualq_domain,
        ),
    )
