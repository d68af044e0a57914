"""TCP slow start through several bottleneck nodes (Barakat & Altman, INRIA RR-3620, 1999).

Model (Sec. 2.2): the source feeds nodes 1..n (rates mu_1 > ... > mu_n, buffers B_i) and then
the main bottleneck (rate mu, buffer B), with mu < mu_n < ... < mu_1 < 2 mu. During slow start
the source emits bursts at 2 mu (mu_0 = 2 mu, or a slower access link mu_A).

Units: rates in bit/s (only their ratios enter the burst sizes, so any common unit works),
buffers, bursts and windows in packets, the minimum round-trip time ``t`` in seconds and
``packet_size`` in bytes (to turn mu T into a pipe size in packets and packets/s into bit/s).

Garbled/ambiguous text: Sec. 7.2 prints "W_S = W_D/2 = min(W_th, 2W_B + (alpha - 1)S_B/2)".
Rebuilt from its derivation (the source sees S_B ACKs in mini-cycle n_B + 1 with Drop Tail and
S_B/2 with Drop-from-Front, each raising the window from 2**n_B by one, capped at W_th as in
Sec. 6) the min is W_D itself; :func:`start_window` returns W_S = W_D / 2 with
W_D = min(W_th, 2 W_B + (alpha - 1) S_B / 2).
"""

from __future__ import annotations

import math

import numpy as np

from tcplab.models._domain import arg, out, positive

__all__ = [
    "ALPHA",
    "burst_to_overflow",
    "double_slow_start",
    "equivalent_node",
    "loss_minicycle",
    "loss_window",
    "min_bottleneck_buffer",
    "min_equivalent_buffer",
    "no_slow_start_loss",
    "overflow_bursts",
    "pipe_size",
    "retransmission_loss",
    "start_window",
    "throughput",
    "two_node_bursts",
    "uniform_rates",
]

#: Sec. 7.2: alpha by drop policy. Random Drop draws alpha uniformly in (0, 1); 0.5 is its mean.
ALPHA = {"drop-tail": 1.0, "drop-from-front": 0.0, "random-drop": 0.5}


def pipe_size(mu, t, packet_size):
    """mu T in packets: the bandwidth-delay product of a ``mu`` bit/s bottleneck and a
    minimum RTT ``t`` seconds with ``packet_size``-byte packets."""
    mu_ = positive("mu", mu)
    t_ = positive("t", t)
    s_ = positive("packet_size", packet_size)
    return out(mu_ * t_ / (8 * s_), mu, t, packet_size)


def burst_to_overflow(rate_in, rate_out, buffer):
    """Eq. 1 (one node): S = rate_in / (rate_in - rate_out) * B packets, the burst sent at
    ``rate_in`` that overflows a buffer of B packets drained at ``rate_out`` < ``rate_in``."""
    rin = positive("rate_in", rate_in)
    rout = positive("rate_out", rate_out)
    b = positive("buffer", buffer)
    if np.any(rout >= rin):
        raise ValueError("rate_out: must be below rate_in (otherwise no queue builds up)")
    return out(rin / (rin - rout) * b, rate_in, rate_out, buffer)


def _chain(mu, mu_i, b_i, mu0):
    mu_ = float(positive("mu", mu))
    rates = np.atleast_1d(positive("mu_i", mu_i)).astype(float)
    bufs = np.atleast_1d(positive("b_i", b_i)).astype(float)
    if rates.ndim != 1 or bufs.shape != rates.shape:
        raise ValueError("b_i: needs one buffer per rate in mu_i")
    first = 2 * mu_ if mu0 is None else float(positive("mu0", mu0))
    upstream = np.concatenate([[first], rates[:-1]])
    if np.any(rates >= upstream) or rates[-1] <= mu_:
        raise ValueError(
            f"mu_i: rates must fall strictly from mu0 = {first:g} towards mu = {mu_:g} "
            "(mu < mu_n < ... < mu_1 < mu0)"
        )
    return mu_, rates, bufs, upstream


def overflow_bursts(mu, mu_i, b_i, b, mu0=None):
    """Eq. 1: bursts (packets, sent at 2 mu) that overflow each buffer.

    Returns ``(S_i, S)``: S_i = mu_{i-1} / (mu_{i-1} - mu_i) * B_i for nodes 1..n (an array)
    and S = mu_n / (mu_n - mu) * B for the main bottleneck. ``mu0`` defaults to 2 mu; pass a
    slower access-link rate mu_A instead where there is one (Sec. 7)."""
    mu_, rates, bufs, upstream = _chain(mu, mu_i, b_i, mu0)
    b_ = float(positive("b", b))
    s_i = upstream / (upstream - rates) * bufs
    s = rates[-1] / (rates[-1] - mu_) * b_
    return s_i, float(s)


def uniform_rates(mu, n):
    """Sec. 5 example: mu_i = 2 mu - i mu / (n + 1), i = 1..n, spread uniformly on (mu, 2mu).
    Then S_i = B_i (2(n + 1) - (i - 1)) and S = B (n + 2)."""
    mu_ = float(positive("mu", mu))
    n_ = int(arg("n", n, 1, math.inf, hi_open=True, integer=True))
    i = np.arange(1, n_ + 1)
    return 2 * mu_ - i * mu_ / (n_ + 1)


def loss_minicycle(s_b):
    """Sec. 4: the slow-start mini-cycle n_B in which a burst first overflows a buffer,
    2**(n_B - 1) < S_B <= 2**n_B (computed exactly from the binary exponent)."""
    s = positive("s_b", s_b)
    mant, exp = np.frexp(s)  # s = mant * 2**exp, 0.5 <= mant < 1
    n = np.where(mant == 0.5, exp - 1, exp)
    return out(n.astype(float), s_b)


def loss_window(s_b):
    """Sec. 4: window W_B at which the slow-start loss happens, W_B = 2**(n_B - 1) + S_B / 2."""
    s = positive("s_b", s_b)
    n = np.asarray(loss_minicycle(s))
    return out(np.exp2(n - 1) + s / 2, s_b)


def double_slow_start(w_b, w_th):
    """Sec. 4: a second slow start happens when W_th > W_B (W_th = W_max/2 = (mu T + B)/2)."""
    wb = positive("w_b", w_b)
    wt = positive("w_th", w_th)
    res = wt > wb
    if np.ndim(res) == 0 and np.ndim(w_b) == 0 and np.ndim(w_th) == 0:
        return bool(res)
    return np.asarray(res)


def equivalent_node(mu, mu_i, b_i, mu0=None):
    """Eq. 2: the equivalent node replacing nodes 1..n, ``(mu', B')`` with mu' = mu_n and
    B' chosen so that a 2 mu burst of min_i S_i fills it: B' = min_i S_i (2 mu - mu') / (2 mu).
    For the Sec. 5 example (B_i = 17) this is B' = 8.5 n (n + 3) / (n + 1)."""
    mu_, rates, bufs, upstream = _chain(mu, mu_i, b_i, mu0)
    s_i = upstream / (upstream - rates) * bufs
    mu_p = float(rates[-1])
    b_p = float(s_i.min() * (2 * mu_ - mu_p) / (2 * mu_))
    return mu_p, b_p


def _two_node(mu, mu_prime, b, b_prime):
    mu_ = positive("mu", mu)
    mup = positive("mu_prime", mu_prime)
    if np.any((mup <= mu_) | (mup >= 2 * mu_)):
        raise ValueError("mu_prime: must lie in (mu, 2 mu)")
    b_ = positive("b", b)
    bp = positive("b_prime", b_prime)
    s_prime = 2 * mu_ / (2 * mu_ - mup) * bp  # Eq. 2
    s = mup / (mup - mu_) * b_  # Eq. 3
    return mu_, mup, b_, bp, s, s_prime


def two_node_bursts(mu, mu_prime, b, b_prime):
    """Eq. 2-3 for the two-node model: ``(S, S')`` with S = mu'/(mu' - mu) B (Eq. 3) and
    S' = 2 mu / (2 mu - mu') B' (Eq. 2), in packets; ``mu_prime`` in (mu, 2 mu)."""
    *_, s, s_prime = _two_node(mu, mu_prime, b, b_prime)
    return out(s, mu, mu_prime, b, b_prime), out(s_prime, mu, mu_prime, b, b_prime)


def throughput(mu, t, b, mu_prime, b_prime, packet_size):
    """Sec. 6: throughput (bit/s) of the two-node model from S (Eq. 3), S' (Eq. 2),
    S_B = min(S, S'), W_B and W_th = (mu T + B) / 2:
    3 (mu T + B) / (4T) if W_B >= W_th, else min((W_B + mu T + B) / (2T), 5 (mu T + B) / (8T))
    packets/s. ``b``, ``b_prime`` in packets; ``mu_prime`` in (mu, 2 mu)."""
    mu_, mup, b_, bp, s, s_prime = _two_node(mu, mu_prime, b, b_prime)
    pipe = np.asarray(pipe_size(mu_, t, packet_size))
    t_ = positive("t", t)
    w_b = np.asarray(loss_window(np.minimum(s, s_prime)))
    w_max = pipe + b_
    thr = np.where(
        w_b >= w_max / 2,
        3 * w_max / (4 * t_),
        np.minimum((w_b + w_max) / (2 * t_), 5 * w_max / (8 * t_)),
    )
    return out(thr * 8 * np.asarray(packet_size, dtype=float), mu, t, b, mu_prime, b_prime, packet_size)


def no_slow_start_loss(mu, t, b, b_prime, packet_size):
    """Eq. 4 (exact form): True when no buffer overflows in slow start for any mu' in
    [mu, 2 mu]: mu T + B < 2**n_B + 2B with 2**(n_B-1) < 2B <= 2**n_B, and the same with B'."""
    pipe = np.asarray(pipe_size(mu, t, packet_size))
    b_ = positive("b", b)
    bp = positive("b_prime", b_prime)
    ok_b = pipe + b_ < np.exp2(np.asarray(loss_minicycle(2 * b_))) + 2 * b_
    ok_bp = pipe + b_ < np.exp2(np.asarray(loss_minicycle(2 * bp))) + 2 * bp
    res = ok_b & ok_bp
    if all(np.ndim(x) == 0 for x in (mu, t, b, b_prime, packet_size)):
        return bool(res)
    return np.asarray(res)


def min_bottleneck_buffer(mu, t, packet_size):
    """Eq. 4 with 2**n_B ~ 2B: B must exceed mu T / 3 packets."""
    return out(np.asarray(pipe_size(mu, t, packet_size)) / 3, mu, t, packet_size)


def min_equivalent_buffer(mu, t, b, packet_size):
    """Eq. 4 with 2**n'_B ~ 2B': B' must exceed (mu T + B) / 4 packets."""
    b_ = positive("b", b)
    return out((np.asarray(pipe_size(mu, t, packet_size)) + b_) / 4, mu, t, b, packet_size)


def retransmission_loss(mu, mu_i, b_i, b, w_th, mu0=None):
    """Eq. 5: for each node 1..n+1 (node n+1 is the main bottleneck, S_{n+1} = S) whether the
    fast retransmission may be lost there: S_i < D mu_{i-1} < Q with D = (S_B + 3) / mu and
    Q = 2 S_B + min(0, W_th - 2 W_B). Node 1 is excluded when the source feeds it at 2 mu or
    faster (``mu0`` None or >= 2 mu). Returns a boolean array of length n + 1; the loss happens
    at the first True node. ``w_th`` is the slow-start threshold in packets."""
    mu_, rates, bufs, upstream = _chain(mu, mu_i, b_i, mu0)
    s_i, s = overflow_bursts(mu, mu_i, b_i, b, mu0)
    w_th_ = float(positive("w_th", w_th))
    sizes = np.concatenate([s_i, [s]])
    feeds = np.concatenate([upstream, [rates[-1]]])
    s_b = float(sizes.min())
    w_b = float(loss_window(s_b))
    q = 2 * s_b + min(0.0, w_th_ - 2 * w_b)
    d_mu = (s_b + 3) * feeds / mu_
    res = (sizes < d_mu) & (d_mu < q)
    if mu0 is None or mu0 >= 2 * mu_:
        res[0] = False
    return res


def start_window(w_th, s_b, alpha):
    """Sec. 7.2: window at the start of congestion avoidance. After a slow-start overflow
    (W_B < W_th: a double slow start) W_S = W_D / 2 with W_D = min(W_th, 2 W_B + (alpha - 1)
    S_B / 2) (see module docstring); without one (W_B >= W_th) W_S = W_th (Sec. 6),
    alpha = 1 Drop Tail, 0 Drop-from-Front, uniform in (0, 1) Random Drop (:data:`ALPHA`).
    ``alpha`` may be a policy name from :data:`ALPHA`."""
    if isinstance(alpha, str):
        if alpha not in ALPHA:
            raise ValueError(f"alpha: {alpha!r} is not one of {sorted(ALPHA)}")
        alpha = ALPHA[alpha]
    a = arg("alpha", alpha, 0.0, 1.0)
    wt = positive("w_th", w_th)
    s = positive("s_b", s_b)
    w_b = np.asarray(loss_window(s))
    w_d = np.minimum(wt, 2 * w_b + (a - 1) * s / 2)
    # Sec. 6 and the end of Sec. 7.2: without a slow-start overflow (W_B >= W_th) congestion
    # avoidance starts at W_th itself, whatever the drop policy.
    return out(np.where(w_b >= wt, wt, w_d / 2), w_th, s_b, alpha)
