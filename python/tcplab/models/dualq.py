"""The DualQ Coupled AQM's coupling and the rate balance it predicts (RFC 9332).

RFC 9332 Sec. 2.1 (Eq. 1) and Sec. 2.4: the base probability p' drives both queues, linearly
for the L4S queue and squared for the Classic one, p_CL = k p' and p_C = p'^2, so that
p_C = (p_L / k)^2 with k the coupling factor (2 in App. A's pseudocode, `k = 2`). The square
undoes the square root of the Classic response, so the two windows move together:

* Classic (Reno, Mathis et al. 1997 Eq. 3 with C = sqrt(3/2)):
  W_C = sqrt(3/2) / sqrt(p_C) = sqrt(3/2) k / p_L segments, rate W_C / RTT_C;
* scalable (DCTCP, W = 2/p, :mod:`tcplab.models.scalable`): W_L = 2 / p_L, rate W_L / RTT_L.

The predicted ratio of the rates is therefore r_C / r_L = (sqrt(3/2) k / 2) (RTT_L / RTT_C),
whatever p_L is: **with k = 2 and equal RTTs the Classic (Reno) flow gets sqrt(3/2) ~ 1.22 times
the scalable flow's rate**; the k that balances them is 2 / sqrt(3/2) ~ 1.63. (Derived here from
the two response functions; RFC 9332 chooses k = 2 for Classic flows that are Reno or CUBIC in its
Reno-friendly mode, and discusses the choice in Sec. 2.4 and App. C.)

Domain: both flows in congestion avoidance with these steady-state responses (Reno-like Classic,
marks at random for the scalable flow), and p_L <= 1: a p_C above 1/k^2 has no p_L <= 1.
"""

from __future__ import annotations

import math

import numpy as np

from tcplab.models._domain import arg, out, positive, probability

__all__ = ["K_DEFAULT", "RENO_C", "balancing_k", "classic_probability", "l4s_probability", "rate_ratio"]

#: RFC 9332 App. A: k = 2.
K_DEFAULT = 2.0
#: Mathis et al. 1997 Table 1 (periodic loss, every segment ACKed).
RENO_C = math.sqrt(1.5)


def _k(k):
    return positive("k", k)


def classic_probability(p_l, k=K_DEFAULT):
    """p_C = (p_L / k)^2 (RFC 9332 Sec. 2.1 Eq. 1)."""
    p, k_ = probability("p_l", p_l), _k(k)
    return out((p / k_) ** 2, p_l, k)


def l4s_probability(p_c, k=K_DEFAULT):
    """p_L = k sqrt(p_C), the inverse of Eq. 1; p_C must be at most 1/k^2 (p_L <= 1)."""
    k_ = _k(k)
    p = arg("p_c", p_c, 0.0, 1.0, lo_open=True)
    limit = 1.0 / k_**2
    if np.any(p > limit):
        first = float(np.asarray(p)[p > limit].flat[0])
        raise ValueError(
            f"p_c: {first:g} is above 1/k^2 = {float(np.max(limit)):g} (p_L = k sqrt(p_C) would exceed 1)"
        )
    return out(k_ * np.sqrt(p), p_c, k)


def rate_ratio(k=K_DEFAULT, rtt_l=1.0, rtt_c=1.0, c=RENO_C):
    """r_C / r_L = (C k / 2) (RTT_L / RTT_C): the Classic flow's rate over the scalable one's."""
    k_, rl, rc, c_ = _k(k), positive("rtt", rtt_l), positive("rtt_classic", rtt_c), positive("c", c)
    return out(c_ * k_ / 2.0 * rl / rc, k, rtt_l, rtt_c, c)


def balancing_k(c=RENO_C):
    """The coupling factor that equalizes the rates at equal RTTs: 2 / C (~1.63 for Reno)."""
    c_ = positive("c", c)
    return out(2.0 / c_, c)
