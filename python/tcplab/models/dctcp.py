"""DCTCP's steady state: Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, Sec. 3.3-3.4.

The analysis: N long-lived flows with the same round-trip time share a bottleneck of capacity
C; the switch marks every packet that arrives while the queue is above K (a step threshold);
every sender runs DCTCP (alpha <- (1 - g) alpha + g F once per window of data, Eq. 1, and
cwnd <- cwnd (1 - alpha/2) when marks arrived, Eq. 2). The flows are assumed **synchronized**:
they all add one segment per round trip in the same round trip and all see the marks of the
same round trip. The queue is then Q(t) = N W(t) - C x RTT (Eq. 3), and the windows follow a
periodic sawtooth. Every quantity below is a function of C x RTT (in packets), N and K. The
labels Eq. 3-12 number the results in the order Sec. 3.3 states them; they could not be checked
against the paper's printed numbering (below), so each formula is re-derived here from the
assumptions above and the tests check it against that derivation:

* W* = (C x RTT + K) / N: the window at which the queue reaches K (Sec. 3.3, from Eq. 3 with
  Q = K). Marking starts one round trip later, so the window peaks at W* + 1.
* alpha: the fraction of packets marked in one cycle. The packets sent while the window grows
  from W1 to W2 are S(W1, W2) = (W2^2 - W1^2) / 2 (Eq. 4); the marked ones are those of the
  last round trip, from W* to W* + 1, and a cycle runs from (W* + 1)(1 - alpha/2) to W* + 1:
  alpha = S(W*, W* + 1) / S((W* + 1)(1 - alpha/2), W* + 1) (Eq. 5), that is
  alpha^2 (1 - alpha/4) = (2 W* + 1) / (W* + 1)^2 (Eq. 6). :func:`alpha_exact` solves Eq. 6;
  for large W* its right side is about 2/W*, so alpha ~ sqrt(2 / W*) (Eq. 7, :func:`alpha`).
* D = (W* + 1) alpha / 2: each window's amplitude, the reduction (Eq. 8).
* A = N D ~ (1/2) sqrt(2 N (C x RTT + K)): the queue's amplitude (Eq. 9; the closed form uses
  alpha ~ sqrt(2/W*) and W* + 1 ~ W*).
* T_C = D round trips: the period, one segment per round trip from the trough back to the peak
  (Eq. 10), about (1/2) sqrt(2 (C x RTT + K) / N).
* Q_max = N (W* + 1) - C x RTT = K + N (Eq. 11).
* Q_min = Q_max - A ~ K + N - (1/2) sqrt(2 N (C x RTT + K)) (Eq. 12).

Guidelines (Sec. 3.4):

* K > (C x RTT) / 7 keeps Q_min > 0 for every N: Q_min of Eq. 12 is smallest at
  N = (C x RTT + K) / 8, where it is K - (C x RTT + K) / 8, positive iff 7 K > C x RTT.
* g small enough that alpha averages over a whole cycle: (1 - g)^T_C > 1/2 with T_C at its
  largest, N = 1. With T_C = (1/2) sqrt(2 (C x RTT + K)) and ln(1 - g) ~ -g this is
  g < 2 ln 2 / sqrt(2 (C x RTT + K)) = 1.386 / sqrt(2 (C x RTT + K)) (:func:`g_bound`; the
  exact root of the inequality is :func:`g_bound_exact`).

Domain. Synchronized flows and a queue that never empties (Q_min > 0). Where Q_min <= 0 the
link idles in each cycle and Eq. 3 no longer describes the trough. W* < 2 has no alpha <= 1 in
Eq. 7 (the flows sit at their smallest windows). The N of Q_max = K + N is the synchronized
flows' common extra segment: where N is as large as K, Q_max and A rest most on that
assumption. Units: capacity in bit/s, RTT in seconds, the packet size in bytes, queues,
windows, K and C x RTT in packets.

The text of the paper was not available where this module was written; the formulas are those
the derivation above gives, and tests/test_models_ecn.py checks each against it (and the
guidelines against their derivations), with the paper's example (10 Gbit/s, 100 us, 1500-byte
packets, N = 2, 10, 40, K = 40, 65).
"""

from __future__ import annotations

import math

import numpy as np

from tcplab.models._domain import arg, out, positive

__all__ = [
    "G_DEFAULT",
    "alpha",
    "alpha_exact",
    "bdp_packets",
    "critical_window",
    "g_bound",
    "g_bound_exact",
    "k_guideline",
    "period_rtts",
    "q_max",
    "q_min",
    "queue_amplitude",
    "queue_amplitude_closed",
    "window_amplitude",
]

#: RFC 8257 Sec. 4.2 and the paper's experiments: g = 1/16.
G_DEFAULT = 1.0 / 16.0


def bdp_packets(capacity, rtt, packet_size=1500):
    """C x RTT in packets of ``packet_size`` bytes (capacity bit/s, rtt s)."""
    c, r, s = positive("capacity", capacity), positive("rtt", rtt), positive("packet_size", packet_size)
    return out(c * r / (8.0 * s), capacity, rtt, packet_size)


def _bdp_n_k(bdp, n, k):
    return (
        positive("bdp", bdp),
        arg("n", n, 1.0, math.inf, hi_open=True, integer=True),
        arg("k", k, 0.0, math.inf, hi_open=True),
    )


def critical_window(bdp, n, k):
    """W* = (C x RTT + K) / N, segments (Sec. 3.3)."""
    b, n_, k_ = _bdp_n_k(bdp, n, k)
    return out((b + k_) / n_, bdp, n, k)


def alpha(w):
    """alpha ~ sqrt(2 / W*) (Eq. 7); W* >= 2 (below it no alpha <= 1 solves Eq. 6)."""
    w_ = arg("w", w, 2.0, math.inf, hi_open=True)
    return out(np.sqrt(2.0 / w_), w)


def alpha_exact(w):
    """The root in (0, 1] of alpha^2 (1 - alpha/4) = (2 W* + 1) / (W* + 1)^2 (Eq. 6), W* >= 1.

    The left side rises on [0, 1] from 0 to 3/4, and the right side is at most 3/4 for W* >= 1,
    so the root is unique; found by bisection to double precision.
    """
    w_ = arg("w", w, 1.0, math.inf, hi_open=True)
    rhs = (2.0 * w_ + 1.0) / (w_ + 1.0) ** 2
    lo, hi = np.zeros_like(rhs), np.ones_like(rhs)
    for _ in range(80):
        mid = (lo + hi) / 2.0
        below = mid * mid * (1.0 - mid / 4.0) < rhs
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return out((lo + hi) / 2.0, w)


def window_amplitude(bdp, n, k):
    """D = (W* + 1) alpha / 2 with alpha ~ sqrt(2/W*), segments (Eq. 8)."""
    w = np.asarray(critical_window(bdp, n, k))
    return out((w + 1.0) * np.asarray(alpha(w)) / 2.0, bdp, n, k)


def queue_amplitude(bdp, n, k):
    """A = N D, packets (Eq. 9, before its closed form)."""
    _, n_, _ = _bdp_n_k(bdp, n, k)
    return out(n_ * np.asarray(window_amplitude(bdp, n, k)), bdp, n, k)


def queue_amplitude_closed(bdp, n, k):
    """A ~ (1/2) sqrt(2 N (C x RTT + K)), packets (Eq. 9's closed form)."""
    b, n_, k_ = _bdp_n_k(bdp, n, k)
    return out(0.5 * np.sqrt(2.0 * n_ * (b + k_)), bdp, n, k)


def period_rtts(bdp, n, k):
    """T_C = D round trips (Eq. 10): one segment per round trip from trough to peak."""
    return window_amplitude(bdp, n, k)


def q_max(bdp, n, k):
    """Q_max = N (W* + 1) - C x RTT = K + N, packets (Eq. 11)."""
    b, n_, k_ = _bdp_n_k(bdp, n, k)
    return out(n_ * ((b + k_) / n_ + 1.0) - b, bdp, n, k)


def q_min(bdp, n, k):
    """Q_min = Q_max - A, packets (Eq. 12); negative means the queue empties each cycle."""
    return out(np.asarray(q_max(bdp, n, k)) - np.asarray(queue_amplitude(bdp, n, k)), bdp, n, k)


def k_guideline(bdp):
    """The smallest K of Sec. 3.4, (C x RTT) / 7, packets."""
    b = positive("bdp", bdp)
    return out(b / 7.0, bdp)


def g_bound(bdp, k):
    """Sec. 3.4: g < 1.386 / sqrt(2 (C x RTT + K)) (2 ln 2 written 1.386)."""
    b, k_ = positive("bdp", bdp), arg("k", k, 0.0, math.inf, hi_open=True)
    return out(2.0 * math.log(2.0) / np.sqrt(2.0 * (b + k_)), bdp, k)


def g_bound_exact(bdp, k):
    """The g solving (1 - g)^T_C = 1/2 with T_C = (1/2) sqrt(2 (C x RTT + K)) (N = 1):
    1 - 2^(-1/T_C). The approximation of :func:`g_bound` is above it by O(g^2)."""
    b, k_ = positive("bdp", bdp), arg("k", k, 0.0, math.inf, hi_open=True)
    t_c = 0.5 * np.sqrt(2.0 * (b + k_))
    return out(1.0 - np.exp2(-1.0 / t_c), bdp, k)
