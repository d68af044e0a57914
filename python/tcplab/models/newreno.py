"""Analytic throughput model for TCP NewReno (Parvez, Mahanti & Williamson, ToN 2010).

Two-parameter loss model: loss events start independently with probability ``p`` per
segment (the loss event rate); inside a loss event each further segment of the drop window is
lost with probability ``q``. Windows are in segments, ``rtt`` and ``rto`` in seconds, ``mss``
in bytes, throughputs in bit/s (the paper's segments/s times 8 * mss).

Domain: the closed forms (Eq. 5, 11, 14, 17 and everything built on them) assume *small q*
(footnote 2: "This approximation assumes q is small"); E[m] = 1 + Wq is only accurate while
W q stays well below W, i.e. q of a few percent. The functions accept any q in [0, 1] but the
results for large q (say q > 0.1, or W q > 1) are extrapolations. ``p`` must be in (0, 1].
Eq. 14 gives W < 4 for large p, where no fast retransmit is possible (p_TO = 1) and the slow
start term 1 + log2(W/4) of Eq. 29 is below 1: the model is only meaningful for W >= 4.

Garbled text: Eq. 26 is unreadable in the extraction (exponents lost); it is rebuilt from
the PFTK derivation it cites, D_TO = RTO (1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6)/(1 - p).
Eq. 29 uses (1 + 2p + 4p^2) RTO in place of D_TO: that is the second-order expansion of
Eq. 26 in p, and :func:`throughput_full` keeps it exactly as printed. The logarithm in Eq.
27-29 is base 2 (slow start doubles the window from 1 to W/4).
"""

from __future__ import annotations

import math

import numpy as np

from tcplab.models._domain import arg, out, positive, probability

__all__ = [
    "cafr_duration",
    "cafr_segments",
    "cafr_segments_polynomial",
    "drop_window_pmf",
    "expected_losses",
    "q_from_packet_loss",
    "throughput_full",
    "throughput_noto",
    "timeout_duration",
    "timeout_probability",
    "window",
]


def _pq(p, q):
    return probability("p", p), probability("q", q, allow_zero=True)


def window(p, q):
    """Eq. 14: average peak window W (segments) from the loss event rate p and the in-event
    segment loss rate q:
    W = (10pq - 5p + sqrt(p (24 + 32q + 49p))) / (p (3 + 4q)).
    As q -> 0 and p -> 0 it tends to Mathis' sqrt(8 / (3p))."""
    p_, q_ = _pq(p, q)
    w = (10 * p_ * q_ - 5 * p_ + np.sqrt(p_ * (24 + 32 * q_ + 49 * p_))) / (p_ * (3 + 4 * q_))
    return out(w, p, q)


def _window_or(w, p_, q_):
    if w is None:
        return np.asarray(window(p_, q_))
    return arg("w", w, 0.0, math.inf, lo_open=True, hi_open=True)


def cafr_segments(p, q, w=None):
    """Eq. 7: segments sent in a congestion-avoidance/fast-recovery period,
    S_CAFR = 1/p + W^2 q / (1 + W q), with W from Eq. 14 unless ``w`` is given."""
    p_, q_ = _pq(p, q)
    w_ = _window_or(w, p_, q_)
    return out(1 / p_ + w_**2 * q_ / (1 + w_ * q_), p, q, w)


def cafr_segments_polynomial(w, q):
    """Eq. 13: the same count built from its parts, S_LI + S_beta + S_FR =
    (3/8 + q/2 - q^2/2) W^2 + (7/4 - 5q/2 + 3q^2/2) W - (1 - 2q + q^2)."""
    w_ = positive("w", w)
    q_ = probability("q", q, allow_zero=True)
    s = (
        (3 / 8 + q_ / 2 - q_**2 / 2) * w_**2
        + (7 / 4 - 5 * q_ / 2 + 3 * q_**2 / 2) * w_
        - (1 - 2 * q_ + q_**2)
    )
    return out(s, w, q)


def cafr_duration(rtt, p, q, w=None):
    """Eq. 18: duration of a CAFR period in seconds, D_CAFR = (W/2 + W q + 5/2) R
    (Eq. 15-17: linear increase (W/2 + 1) R, D_beta = R/2, fast recovery (1 + W q) R)."""
    rtt_ = positive("rtt", rtt)
    p_, q_ = _pq(p, q)
    w_ = _window_or(w, p_, q_)
    return out((w_ / 2 + w_ * q_ + 2.5) * rtt_, rtt, p, q, w)


def throughput_noto(mss, rtt, p, q):
    """Eq. 19, the NoTO model (every loss event ends in fast recovery), in bit/s:
    T = (1/p + W^2 q / (1 + W q)) / ((W/2 + W q + 5/2) R) segments/s, W from Eq. 14.
    With q = 0 and p -> 0 it approaches the square-root law sqrt(3 / (2p)) / R."""
    mss_ = positive("mss", mss)
    rtt_ = positive("rtt", rtt)
    p_, q_ = _pq(p, q)
    w = np.asarray(window(p_, q_))
    t = (1 / p_ + w**2 * q_ / (1 + w * q_)) / ((w / 2 + w * q_ + 2.5) * rtt_)
    return out(8 * mss_ * t, mss, rtt, p, q)


def _binom_pmf(n: int, k: int, q: float) -> float:
    """P[Binomial(n, q) = k], exact for q in {0, 1}, via log-gamma otherwise."""
    if k < 0 or k > n:
        return 0.0
    if q == 0.0:
        return 1.0 if k == 0 else 0.0
    if q == 1.0:
        return 1.0 if k == n else 0.0
    log_c = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
    return math.exp(log_c + k * math.log(q) + (n - k) * math.log1p(-q))


def drop_window_pmf(w, m, q):
    """Eq. 4: A(W, m) = C(W-1, m-1) (1 - q)^(W-m) q^(m-1), the probability of m losses in a
    drop window of W segments whose first segment is lost (exact binomial; W, m integers,
    1 <= m <= W)."""
    w_ = arg("w", w, 1.0, math.inf, hi_open=True, integer=True)
    m_ = arg("m", m, 1.0, math.inf, hi_open=True, integer=True)
    q_ = probability("q", q, allow_zero=True)
    w_b, m_b, q_b = np.broadcast_arrays(w_, m_, q_)
    res = np.array(
        [
            _binom_pmf(int(wi) - 1, int(mi) - 1, float(qi))
            for wi, mi, qi in zip(w_b.flat, m_b.flat, q_b.flat, strict=True)
        ]
    ).reshape(w_b.shape)
    return out(res, w, m, q)


def expected_losses(w, q):
    """Eq. 5 (its closed form): E[m] ~ 1 + (W - 1) q, the mean losses in a drop window
    (the paper then uses 1 + W q)."""
    w_ = arg("w", w, 1.0, math.inf, hi_open=True)
    q_ = probability("q", q, allow_zero=True)
    return out(1 + (w_ - 1) * q_, w, q)


def _p_to_scalar(w: float, p: float, q: float) -> float:
    n = max(int(math.floor(w + 0.5)), 1)
    total = 0.0
    for m in range(1, n - 2):  # m = 1 .. W-3
        total += _binom_pmf(n - 1, m - 1, q) * (1 - p) ** (m * n / 2)
    return min(max(1.0 - total, 0.0), 1.0)


def timeout_probability(p, q, w=None):
    """Eq. 24: probability that a loss event ends in a timeout,
    p_TO = 1 - sum_{m=1}^{W-3} A(W, m) (1 - p)^(m W / 2)
    (direct timeouts, Eq. 22, plus failed fast recoveries, Eq. 23). The binomial needs a whole
    window, so W (Eq. 14 unless given) is rounded to the nearest integer; for W < 4 the sum is
    empty and p_TO = 1 (three duplicate ACKs are impossible)."""
    p_, q_ = _pq(p, q)
    w_ = _window_or(w, p_, q_)
    wb, pb, qb = np.broadcast_arrays(w_, p_, q_)
    res = np.array(
        [
            _p_to_scalar(float(a), float(b), float(c))
            for a, b, c in zip(wb.flat, pb.flat, qb.flat, strict=True)
        ]
    ).reshape(wb.shape)
    return out(res, p, q, w)


def timeout_duration(rto, p):
    """Eq. 26 (rebuilt, see module docstring): expected duration of a series of timeouts,
    D_TO = RTO (1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6) / (1 - p), seconds.
    ``p`` must be in (0, 1) here (the series never ends at p = 1)."""
    rto_ = positive("rto", rto)
    p_ = arg("p", p, 0.0, 1.0, lo_open=True, hi_open=True)
    f = 1 + p_ + 2 * p_**2 + 4 * p_**3 + 8 * p_**4 + 16 * p_**5 + 32 * p_**6
    return out(rto_ * f / (1 - p_), rto, p)


def throughput_full(mss, rtt, p, q, rto, p_to=None, integer_window=False):
    """Eq. 29, the Full model with timeouts, in bit/s:
    T = (1/p + W^2 q/(1 + W q)) / (N R + p_TO ((1 + 2p + 4p^2) RTO + (1 + log2(W/4)) R))
    with N = W/2 + 3/2 + (1 - p_TO)(1 + W q), W from Eq. 14 and p_TO from Eq. 24 unless
    ``p_to`` (the share of loss events that end in a timeout, in [0, 1]) is given, e.g. as
    measured on a flow: what the rest of the model predicts once its timeout probability is
    right.

    ``integer_window``: W is Eq. 14 rounded up to a whole number of segments everywhere in Eq. 29
    (and so in Eq. 24), as the paper's own evaluation evidently does: with it and RTO = 4R every
    model value of Table IV is within 0.5% of the printed one (tests/test_models_newreno.py), where
    the real W of Eq. 14 leaves rows 0.7-10% above it."""
    mss_ = positive("mss", mss)
    rtt_ = positive("rtt", rtt)
    rto_ = positive("rto", rto)
    p_, q_ = _pq(p, q)
    w = np.asarray(window(p_, q_))
    if integer_window:
        w = np.ceil(w)
    if p_to is None:
        p_to = np.asarray(timeout_probability(p_, q_, w))
    else:
        p_to = probability("p_to", p_to, allow_zero=True)
    n = w / 2 + 1.5 + (1 - p_to) * (1 + w * q_)
    denom = n * rtt_ + p_to * ((1 + 2 * p_ + 4 * p_**2) * rto_ + (1 + np.log2(w / 4)) * rtt_)
    t = (1 / p_ + w**2 * q_ / (1 + w * q_)) / denom
    return out(8 * mss_ * t, mss, rtt, p, q, rto, p_to)


def q_from_packet_loss(p, packet_loss, integer_window=False):
    """Eq. 30: q ~ (q~/p - 1) / (W - 1), the in-event loss rate from the loss event rate p and
    the measured packet loss rate q~ (mean losses per event m = q~/p); W is Eq. 14 evaluated
    with q = q~ (rounded up to a whole number with ``integer_window``, as in
    :func:`throughput_full`). Requires q~ >= p (at least one loss per event); raises if the
    result exceeds 1.
    """
    p_ = probability("p", p)
    ql = probability("packet_loss", packet_loss)
    if np.any(ql < p_):
        bad = float(np.broadcast_to(ql, np.broadcast(ql, p_).shape)[ql < p_].flat[0])
        raise ValueError(f"packet_loss: {bad:g} is below the loss event rate p (need >= p)")
    w = np.asarray(window(p_, ql))
    if integer_window:
        w = np.ceil(w)
    q = (ql / p_ - 1) / (w - 1)
    if np.any(q > 1):
        raise ValueError("packet_loss: implies q > 1 (more losses per event than the window)")
    return out(q, p, packet_loss)
