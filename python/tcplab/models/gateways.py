"""Multiple congested gateways, as Mathis et al. (1997) Sec. 6 derive it from Eq. 3.

Floyd's network [Flo91]: 2n gateways, n of them congested; connection 0 crosses all n
congested gateways, each congested gateway is shared with one single-gateway connection.
What fraction B0/B of a congested gateway's bandwidth B does connection 0 get?

Reconstruction (the page carrying the derivation, Eq. 6-11, is missing from the extracted
text; only Eq. 12 and 13 survive, as "B0/B ~ 1/(1 + pn(2n-1))" and "B0/B ~ 1/(1 + n3=2)").
With Eq. 3 for both connections and the same MSS and C (C "drops out"), random (RED-like)
drops with probability p at every congested gateway give connection 0 a loss rate of n p, so

    B_i / B0 = (r0 / r) * sqrt(n p / p) = sqrt(n) * r0 / r,   B0 + B_i = B,
    B0 / B  = 1 / (1 + sqrt(n) * r0 / r).

Eq. 13 (overbuffered drop-tail: RTT dominated by queueing delay, connection 0 waits in n
queues and connection i in one) is the case r0/r = n, giving 1/(1 + n**1.5) -- this matches
the surviving text exactly. Eq. 12 (RTT dominated by propagation) is read as r0/r = 2n - 1,
i.e. B0/B = 1/(1 + sqrt(n) (2n - 1)). The extraction cannot tell sqrt(n)(2n - 1) from
sqrt(n (2n - 1)); the first is chosen because it has the same form as Eq. 13 with a round-trip
ratio of 2n - 1 (connection 0 crossing 2n - 1 inter-gateway links against one), while the
second would need r0/r = sqrt(2n - 1). This reading could NOT be checked against the missing
derivation; :func:`bandwidth_share` takes r0/r explicitly for other topologies. Both forms
give 1/2 for n = 1, as they must.
"""

from __future__ import annotations

import math

import numpy as np

from tcplab.models._domain import arg, out, positive

__all__ = ["bandwidth_share", "share_overbuffered", "share_propagation"]


def _n(n):
    return arg("n", n, 1.0, math.inf, hi_open=True, integer=True)


def bandwidth_share(n, rtt_ratio):
    """Mathis Sec. 6 (general form behind Eq. 12-13): B0/B = 1 / (1 + sqrt(n) * r0/r), the
    fraction of a congested gateway's bandwidth that the connection through all ``n``
    congested gateways receives, given its round-trip time ``rtt_ratio`` = r0/r times that of
    the one-gateway connections (loss rate n p against p, C and MSS equal)."""
    n_ = _n(n)
    r = positive("rtt_ratio", rtt_ratio)
    return out(1.0 / (1.0 + np.sqrt(n_) * r), n, rtt_ratio)


def share_propagation(n):
    """Mathis Eq. 12 (as reconstructed, see module docstring): B0/B ~ 1/(1 + sqrt(n)(2n - 1))."""
    n_ = _n(n)
    return out(1.0 / (1.0 + np.sqrt(n_) * (2 * n_ - 1)), n)


def share_overbuffered(n):
    """Mathis Eq. 13, overbuffered drop-tail gateways: B0/B ~ 1/(1 + n**(3/2))."""
    n_ = _n(n)
    return out(1.0 / (1.0 + n_**1.5), n)
