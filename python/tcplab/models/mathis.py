"""The macroscopic (square-root) model of TCP congestion avoidance.

Mathis, Semke, Mahdavi and Ott, "The Macroscopic Behavior of the TCP Congestion Avoidance
Algorithm", CCR 27(3), 1997.

Units: ``mss`` in bytes, ``rtt`` in seconds, rates in bit/s, windows in packets (segments),
``p`` is the congestion-signal probability per acknowledged packet, in (0, 1].

Equation 5 in the extracted text reads ``BW = MSS/RTT * C p^k`` with the radical/division
glyphs lost; "k is roughly -1/2" (Table 4 fits -0.508 ... -0.542) only reduces to Eq. 3 if the
form is ``BW = MSS/RTT * C * p**k``, so that is what :func:`throughput` implements.
"""

from __future__ import annotations

import math

import numpy as np

from tcplab.models._domain import arg, out, positive, probability

__all__ = [
    "C_PERIODIC_DELAYED_ACK",
    "C_PERIODIC_PER_SEGMENT_ACK",
    "C_RANDOM_DELAYED_ACK",
    "C_RANDOM_PER_SEGMENT_ACK",
    "TABLE_1",
    "average_window",
    "constant",
    "equilibrium_packets",
    "equilibrium_round_trips",
    "equilibrium_signals",
    "loss_for_rate",
    "overshoot_window",
    "peak_window",
    "throughput",
]

#: Table 1, periodic loss (derived in Sec. 2), every segment ACKed: C = sqrt(3/2) ~ 1.22.
C_PERIODIC_PER_SEGMENT_ACK = math.sqrt(3.0 / 2.0)
#: Table 1, periodic loss, delayed ACKs (window opens MSS/2 per RTT): C = sqrt(3/4) ~ 0.87.
C_PERIODIC_DELAYED_ACK = math.sqrt(3.0 / 4.0)
#: Table 1, random loss (Ott et al. [OKM96a]), every segment ACKed.
C_RANDOM_PER_SEGMENT_ACK = 1.31
#: Table 1, random loss, delayed ACKs.
C_RANDOM_DELAYED_ACK = 0.93

#: Table 1 keyed by (loss derivation, ACK strategy).
TABLE_1: dict[tuple[str, str], float] = {
    ("periodic", "every"): C_PERIODIC_PER_SEGMENT_ACK,
    ("periodic", "delayed"): C_PERIODIC_DELAYED_ACK,
    ("random", "every"): C_RANDOM_PER_SEGMENT_ACK,
    ("random", "delayed"): C_RANDOM_DELAYED_ACK,
}


def constant(loss: str = "periodic", ack: str = "every") -> float:
    """Table 1: the constant C for a loss derivation ('periodic' | 'random') and an ACK
    strategy ('every' segment ACKed | 'delayed' ACKs)."""
    try:
        return TABLE_1[(loss, ack)]
    except KeyError:
        raise ValueError(
            f"loss/ack: ({loss!r}, {ack!r}) is not in Table 1; expected loss in "
            "('periodic', 'random') and ack in ('every', 'delayed')"
        ) from None


def _c_k(c, k):
    c_ = positive("c", c)
    k_ = arg("k", k, -math.inf, 0.0, hi_open=True)
    return c_, k_


def throughput(mss, rtt, p, c=C_PERIODIC_PER_SEGMENT_ACK, k=-0.5):
    """Mathis Eq. 3 (k = -1/2) and Eq. 5 (general k): BW = MSS/RTT * C * p**k, in bit/s.

    ``mss`` bytes, ``rtt`` seconds (> 0), ``p`` in (0, 1], ``c`` > 0 (Table 1; default the
    derived sqrt(3/2)), ``k`` < 0 (Table 4 fits -0.51 ... -0.54).
    """
    mss_ = positive("mss", mss)
    rtt_ = positive("rtt", rtt)
    p_ = probability("p", p)
    c_, k_ = _c_k(c, k)
    return out(8.0 * mss_ / rtt_ * c_ * p_**k_, mss, rtt, p, c, k)


def average_window(p, c=C_PERIODIC_PER_SEGMENT_ACK, k=-0.5):
    """Average window in packets, BW*RTT/MSS = C * p**k (Eq. 3/5; App. B: "the average window
    size in packets will tend to C/sqrt(p)")."""
    p_ = probability("p", p)
    c_, k_ = _c_k(c, k)
    return out(c_ * p_**k_, p, c, k)


def peak_window(p, delayed_ack=False):
    """Peak window W of the periodic sawtooth, Eq. 1: W = sqrt(8 / (3p)) packets.

    With delayed ACKs the window opens by 1/2 per RTT, a cycle lasts W round trips and
    carries 3W^2/4 packets, so W = sqrt(4 / (3p)) (footnote 2: the change "always reduces C by
    sqrt(2)"; this variant is derived here, it is not printed in the paper).
    """
    p_ = probability("p", p)
    num = 4.0 if delayed_ack else 8.0
    return out(np.sqrt(num / (3.0 * p_)), p)


def loss_for_rate(mss, rtt, rate, c=1.0, k=-0.5):
    """Eq. 14, the inverse model: the largest p that sustains ``rate`` bit/s.

    Eq. 14 inverts the bound of Eq. 4 (C = 1): p < (MSS / (BW * RTT))**2. With general C and k
    it is p = (BW * RTT / (8 * MSS * C)) ** (1/k). Results above 1 are capped at 1 (every loss
    rate sustains the rate, and the model says nothing useful there).
    """
    mss_ = positive("mss", mss)
    rtt_ = positive("rtt", rtt)
    rate_ = positive("rate", rate)
    c_, k_ = _c_k(c, k)
    p = (rate_ * rtt_ / (8.0 * mss_ * c_)) ** (1.0 / k_)
    return out(np.minimum(p, 1.0), mss, rtt, rate, c, k)


def equilibrium_signals(p, c=1.0):
    """App. B: congestion signals needed to bring a slow-start overshoot down to equilibrium.

    Slow start overshoots to a window of about 1/p packets; each congestion signal halves it,
    so it takes log2((1/p) / (C/sqrt(p))) = log2(1 / (C sqrt(p))) signals (0 if the overshoot
    is already below the equilibrium window). C defaults to 1 as in the paper's example.
    """
    p_ = probability("p", p)
    c_ = positive("c", c)
    return out(np.maximum(np.log2(1.0 / (c_ * np.sqrt(p_))), 0.0), p, c)


def equilibrium_packets(p, c=1.0):
    """App. B: packets delivered while reaching equilibrium, (1/p) * log2(1 / (C sqrt(p))).

    Each congestion signal arrives after about 1/p packets. For p = 1/256 (C = 1) this is
    256 * 4 = 1024, "roughly 1000 packets".
    """
    p_ = probability("p", p)
    return out(equilibrium_signals(p_, c) / p_, p, c)


def equilibrium_round_trips(p, c=1.0):
    """App. B: round trips spent reaching equilibrium (derived here; the paper gives packets).

    After j signals the window is about 2**-j / p, so delivering the next 1/p packets takes 2**j
    round trips; summing over the n = log2(1/(C sqrt(p))) signals gives 2**n - 1 =
    1/(C sqrt(p)) - 1 round trips (15 for p = 1/256, C = 1). Window growth between signals
    is neglected, as in App. B.
    """
    n = np.asarray(equilibrium_signals(p, c))
    return out(np.exp2(n) - 1.0, p, c)


def overshoot_window(p):
    """App. B: window (packets) when slow start first loses a packet, about 1/p (256 for
    p = 1/256, i.e. 1/sqrt(p) times the equilibrium window with C = 1)."""
    p_ = probability("p", p)
    return out(1.0 / p_, p)
