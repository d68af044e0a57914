"""The PFTK model of TCP Reno throughput, as Parvez et al. (2010) Table I gives it.

Padhye, Firoiu, Towsley and Kurose, "Modeling TCP Throughput: A Simple Model and its
Empirical Validation", SIGCOMM 1998. Table I of Parvez et al. prints the b = 1 forms without a
receiver window; here ``b`` (segments acknowledged per ACK, 2 with delayed ACKs) and the
receiver-window cap ``wmax`` are parameters, as in PFTK itself:

* simple: B = 1/R * sqrt(3 / (2 b p))                                     [segments/s]
* full:   B = min(Wmax/R, 1 / (R sqrt(2 b p / 3)
                  + RTO min(1, 3 sqrt(3 b p / 8)) p (1 + 32 p^2)))          [segments/s]

Results here are in bit/s (segments/s * 8 * mss). ``wmax`` is the receiver window in bytes
(PFTK's Wmax in packets is wmax/mss), so the cap is 8 * wmax / R bit/s. PFTK applies the cap
to its full formula; applying it to the simple formula too is this module's choice (the
default ``wmax = inf`` leaves both exactly as Table I prints them).
"""

from __future__ import annotations

import math

import numpy as np

from tcplab.models._domain import arg, out, positive, probability

__all__ = ["full", "simple"]


def _common(mss, rtt, p, b, wmax):
    mss_ = positive("mss", mss)
    rtt_ = positive("rtt", rtt)
    p_ = probability("p", p)
    b_ = arg("b", b, 1.0, math.inf, hi_open=True)
    wmax_ = arg("wmax", wmax, 0.0, math.inf, lo_open=True)
    return mss_, rtt_, p_, b_, wmax_


def simple(mss, rtt, p, b=1.0, wmax=math.inf):
    """PFTK simple model (Parvez Table I, "Simple (NoTO)", Reno column), in bit/s:
    min(8 wmax / R, 8 mss / R * sqrt(3 / (2 b p))).

    ``mss`` bytes, ``rtt`` seconds, ``p`` loss (event) rate in (0, 1], ``b`` >= 1 segments
    per ACK, ``wmax`` receiver window in bytes (> 0, default unlimited).
    """
    mss_, rtt_, p_, b_, wmax_ = _common(mss, rtt, p, b, wmax)
    rate = 8.0 * mss_ / rtt_ * np.sqrt(3.0 / (2.0 * b_ * p_))
    return out(np.minimum(rate, 8.0 * wmax_ / rtt_), mss, rtt, p, b, wmax)


def full(mss, rtt, p, rto, b=1.0, wmax=math.inf):
    """PFTK full model with timeouts (Parvez Table I, "Full Model", Reno column), in bit/s:
    8 mss * min(wmax/(mss R), 1 / (R sqrt(2bp/3) + RTO min(1, 3 sqrt(3bp/8)) p (1 + 32 p^2))).

    ``rto`` seconds (> 0) is the first timeout of a series (PFTK's T0). As RTO -> 0 this tends
    to :func:`simple`.
    """
    mss_, rtt_, p_, b_, wmax_ = _common(mss, rtt, p, b, wmax)
    rto_ = arg("rto", rto, 0.0, math.inf, hi_open=True)
    denom = rtt_ * np.sqrt(2.0 * b_ * p_ / 3.0) + rto_ * np.minimum(
        1.0, 3.0 * np.sqrt(3.0 * b_ * p_ / 8.0)
    ) * p_ * (1.0 + 32.0 * p_**2)
    rate = 8.0 * mss_ / denom
    return out(np.minimum(rate, 8.0 * wmax_ / rtt_), mss, rtt, p, rto, b, wmax)
