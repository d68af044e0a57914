"""Jacobson & Karels, "Congestion Avoidance and Control" (SIGCOMM '88): loss sensitivity and
the App. A retransmit-timer estimator.

Windows are in packets; the estimator works on integer clock *ticks*.

RTT estimator specification (App. A.2, the final timer code), one update per RTT sample
``m`` (a non-negative integer number of ticks)::

    m  -= (sa >> 3);    # m is now the error m - a          (sa = 8a, gain 1/8)
    sa += m;
    if (m < 0) m = -m;
    m  -= (sv >> 2);    # |err| - v                          (sv = 4v, gain 1/4)
    sv += m;
    rto = (sa >> 3) + sv;   # = a + 4v, in ticks

``>>`` is an arithmetic (floor) shift on non-negative state. The paper leaves the initial
state open; here the *first* sample m0 initialises ``sa = m0 << 3`` and ``sv = m0 << 1``
(a = m0, v = m0/2, rto = 3 m0: the 4.3BSD-Reno/RFC 6298 choice) unless an explicit initial
state is given, in which case every sample (the first included) goes through the update.
No minimum/maximum clamp and no backoff are applied (neither is part of App. A).

Converting seconds to ticks (:func:`rto_series_seconds`): a sample lasting ``d`` seconds is
``ceil(d / tick)`` ticks, at least 1 (a timed segment counts every tick it spans, as a BSD
t_rtt counter started at 1 does); rto in seconds is rto_ticks * tick.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from tcplab.models._domain import arg, out, positive

__all__ = [
    "RttEstimator",
    "damage_degradation",
    "equilibration_packets",
    "loss_sensitivity_threshold",
    "rto_series",
    "rto_series_seconds",
]


def damage_degradation(p, w):
    """Footnote 6: throughput factor (1 + 2 p w)**-1 of a window-``w`` RFC 793 TCP (w at most
    the bandwidth-delay product, packets) under damage loss probability ``p`` in [0, 1].
    E.g. p = 1 %, w = 8 gives 0.86 ("degrades TCP throughput by 14%")."""
    p_ = arg("p", p, 0.0, 1.0)
    w_ = positive("w", w)
    return out(1.0 / (1.0 + 2.0 * p_ * w_), p, w)


def equilibration_packets(w):
    """Sec. 3 (after footnote 6): packets for the window to regain its pre-loss size ``w``
    after a loss, "roughly w**2/3" (the paper's figure, implemented as printed; summing the
    linear regrowth from w/2 to w round trip by round trip gives 3w^2/8, the same order)."""
    w_ = positive("w", w)
    return out(w_**2 / 3.0, w)


def loss_sensitivity_threshold(w):
    """Loss rate at which congestion avoidance starts to feel damage loss: "on the order of the
    window equilibration length", 1 / (w**2 / 3) = 3 / w**2 (about 5% for an 8-packet
    Arpanet window)."""
    w_ = positive("w", w)
    return out(3.0 / w_**2, w)


@dataclass
class RttEstimator:
    """App. A integer mean/deviation estimator. ``sa`` = 8 * a and ``sv`` = 4 * v, in ticks.

    ``initialized`` False means the next sample seeds the state (sa = m << 3, sv = m << 1).
    """

    sa: int = 0
    sv: int = 0
    initialized: bool = False

    @property
    def rto(self) -> int:
        """Retransmit timeout in ticks: (sa >> 3) + sv, i.e. a + 4v."""
        return (self.sa >> 3) + self.sv

    def update(self, m: int) -> int:
        """Feed one RTT sample of ``m`` ticks (integer >= 0); return the new rto in ticks."""
        if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 0:
            raise ValueError(f"m: {m!r} is outside the integers >= 0 (RTT sample in ticks)")
        m = int(m)
        if not self.initialized:
            self.sa, self.sv, self.initialized = m << 3, m << 1, True
            return self.rto
        m -= self.sa >> 3
        self.sa += m
        if m < 0:
            m = -m
        m -= self.sv >> 2
        self.sv += m
        return self.rto


def rto_series(samples: Iterable[int], sa: int | None = None, sv: int | None = None):
    """Run :class:`RttEstimator` over integer tick samples.

    Returns ``(sa, sv, rto)``, three int64 arrays with the state after each sample. With
    ``sa``/``sv`` both None the first sample seeds the state; otherwise the estimator starts
    from the given scaled state (both required, integers >= 0) and updates on every sample.
    """
    if (sa is None) != (sv is None):
        raise ValueError("sa/sv: give both initial values or neither")
    if sa is None:
        est = RttEstimator()
    else:
        for name, value in (("sa", sa), ("sv", sv)):
            if not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"{name}: {value!r} is outside the integers >= 0")
        assert sa is not None and sv is not None  # both or neither, checked above
        est = RttEstimator(int(sa), int(sv), True)
    rows = []
    for m in samples:
        est.update(m)
        rows.append((est.sa, est.sv, est.rto))
    if not rows:
        raise ValueError("samples: empty input")
    table = np.array(rows, dtype=np.int64)
    return table[:, 0], table[:, 1], table[:, 2]


def rto_series_seconds(samples, tick):
    """App. A estimator on RTT samples in seconds with a clock of ``tick`` seconds.

    Each sample becomes max(1, ceil(sample / tick)) ticks (see module docstring); returns
    ``(ticks, rto_seconds)``: the integer samples and rto * tick after each sample."""
    tick_ = float(positive("tick", tick))
    secs = np.atleast_1d(arg("samples", samples, 0.0, math.inf, hi_open=True))
    # Round the quotient to 1e-9 before ceil so that 0.3 / 0.1 counts as 3 ticks, not 4.
    ticks = np.maximum(np.ceil(np.round(secs / tick_, 9)), 1).astype(np.int64)
    _, _, rto = rto_series(int(t) for t in ticks.ravel())
    return ticks.ravel(), rto.astype(float) * tick_
