"""The scalable response W = 2/p beside the classic ECN response of Mathis et al.

A scalable congestion control (RFC 9331 Sec. 1; RFC 9332 Sec. 2.1) keeps its window
inversely proportional to the marking probability p, so the number of marks per round trip does
not shrink as the window grows. DCTCP's is W = 2/p: in congestion avoidance the window grows one
segment per round trip, and once per round trip it is cut by W alpha / 2 with alpha the fraction
of marked packets; with marks at random with probability p, alpha tends to p, and the balance
1 = W p / 2 gives W = 2/p segments, that is p W = 2 marks per round trip (RFC 9332 Sec. 2.1 uses
the same relation for its coupling).

A classic ECN sender (RFC 3168) treats a mark as a loss: at most one reduction, a halving, per
window. Mathis et al. 1997 (Eq. 3) applies with p the mark rate and C = sqrt(3/2):
W = sqrt(3/2) / sqrt(p) segments, rate = MSS/RTT x W.

Domain. W = 2/p holds for marks spread at random (a probabilistic AQM such as the L queue of
DualPI2 at its native ramp or PI2); under a step threshold the marks come in bursts once per
sawtooth, and the DCTCP analysis (Alizadeh et al. 2010, Sec. 3.3: alpha = the fraction marked
~ sqrt(2/W)) gives W = 2/p^2 instead (:func:`step_window`, derived here from that relation).
Both relations need windows of a few segments or more.
"""

from __future__ import annotations

import math

import numpy as np

from tcplab.models._domain import out, positive, probability

__all__ = ["classic_window", "rate", "scalable_window", "step_window"]

_C = math.sqrt(1.5)


def scalable_window(p):
    """W = 2/p segments (DCTCP's scalable response, RFC 9332 Sec. 2.1), p in (0, 1]."""
    p_ = probability("p", p)
    return out(2.0 / p_, p)


def classic_window(p, c=_C):
    """W = C / sqrt(p) segments with C = sqrt(3/2) (Mathis et al. 1997 Eq. 3, p the mark rate)."""
    p_, c_ = probability("p", p), positive("c", c)
    return out(c_ / np.sqrt(p_), p, c)


def step_window(p):
    """W = 2/p^2 segments: the DCTCP analysis' alpha ~ sqrt(2/W) with the marked fraction p =
    alpha, for synchronized flows behind a step threshold (derived from Sec. 3.3)."""
    p_ = probability("p", p)
    return out(2.0 / p_**2, p)


def rate(mss, rtt, window):
    """A window's rate in bit/s: 8 x MSS x W / RTT."""
    m, r, w = positive("mss", mss), positive("rtt", rtt), positive("window", window)
    return out(8.0 * m * w / r, mss, rtt, window)
