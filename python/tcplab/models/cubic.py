"""CUBIC's response function (RFC 9438 Sec. 5), beside Reno's square-root law.

Under periodic loss (one congestion event every 1/p packets, the model of Mathis et al. 1997
Sec. 2) CUBIC's window climbs from beta W_max back to W_max along W(t) = C (t - K)^3 + W_max
in K = cbrt(W_max (1 - beta) / C) seconds. Integrating it over one epoch:

* packets per epoch: K W_max (3 + beta) / (4 RTT) = 1/p, so
  W_max = (C / (1 - beta))^(1/4) (4 RTT / ((3 + beta) p))^(3/4);
* the average window, W_max (3 + beta) / 4 =
  (C (3 + beta) / (4 (1 - beta)))^(1/4) RTT^(3/4) / p^(3/4) (RFC 9438 Sec. 5.1);
* the Reno-friendly estimate W_est grows alpha = 3 (1 - beta) / (1 + beta) segments per RTT, so
  its average is sqrt(alpha (1 + beta) / (2 (1 - beta) p)) = sqrt(3 / (2p)), Reno's (Sec. 4.3);
* CUBIC runs at the larger of the two (Sec. 4.2-4.3); its throughput is that window x MSS/RTT.

So CUBIC's rate goes as p^(-3/4) RTT^(-1/4) where the curve dominates (large windows, long
RTTs), and as Reno's p^(-1/2) RTT^(-1) elsewhere. Units: ``mss`` bytes, ``rtt`` seconds, ``c``
segments per second cubed, windows in segments, rates in bit/s.
"""

from __future__ import annotations

import numpy as np

from tcplab.models._domain import arg, out, positive, probability

__all__ = ["BETA", "C", "average_window", "k_seconds", "reno_friendly_window", "throughput", "w_max"]

#: RFC 9438 Sec. 4.6 and 5: beta_cubic and C.
BETA = 0.7
C = 0.4


def _beta(beta):
    return arg("beta", beta, 0.0, 1.0, lo_open=True, hi_open=True)


def w_max(rtt, p, c=C, beta=BETA):
    """The window at each loss under periodic loss, segments."""
    r, p_, c_, b = positive("rtt", rtt), probability("p", p), positive("c", c), _beta(beta)
    return out((c_ / (1 - b)) ** 0.25 * (4 * r / ((3 + b) * p_)) ** 0.75, rtt, p, c, beta)


def k_seconds(rtt, p, c=C, beta=BETA):
    """K: seconds from a reduction back to W_max (RFC 9438 Figure 2)."""
    w = np.asarray(w_max(rtt, p, c, beta))
    c_, b = positive("c", c), _beta(beta)
    return out(np.cbrt(w * (1 - b) / c_), rtt, p, c, beta)


def average_window(rtt, p, c=C, beta=BETA):
    """AVG_W_cubic of RFC 9438 Sec. 5.1, segments: (C (3+beta) / (4 (1-beta)))^(1/4)
    RTT^(3/4) / p^(3/4)."""
    r, p_, c_, b = positive("rtt", rtt), probability("p", p), positive("c", c), _beta(beta)
    return out((c_ * (3 + b) / (4 * (1 - b))) ** 0.25 * r**0.75 / p_**0.75, rtt, p, c, beta)


def reno_friendly_window(p, beta=BETA):
    """AVG_W_est of Sec. 5.1, segments: sqrt(alpha (1+beta) / (2 (1-beta) p)) with alpha =
    3 (1-beta)/(1+beta), which is Reno's sqrt(3/(2p)) for every beta."""
    p_, b = probability("p", p), _beta(beta)
    alpha = 3 * (1 - b) / (1 + b)
    return out(np.sqrt(alpha * (1 + b) / (2 * (1 - b) * p_)), p, beta)


def throughput(mss, rtt, p, c=C, beta=BETA):
    """CUBIC's rate, bit/s: max(AVG_W_cubic, AVG_W_est) x MSS / RTT."""
    m, r = positive("mss", mss), positive("rtt", rtt)
    w = np.maximum(np.asarray(average_window(rtt, p, c, beta)), np.asarray(reno_friendly_window(p, beta)))
    return out(8 * m * w / r, mss, rtt, p, c, beta)
