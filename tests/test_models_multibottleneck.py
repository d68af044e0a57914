"""Barakat & Altman 1999: Sec. 4-7 known answers, dimensioning rules, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from tcplab.models import multibottleneck as mb

MU = 1.5e6  # bit/s, the paper's T1 bottleneck
T = 0.56  # s, GEO satellite path
SIZE = 512  # bytes per packet


@pytest.mark.parametrize("n", range(1, 11))
def test_section_5_uniform_rates(n: int) -> None:
    """Sec. 5: mu_i = 2mu - i mu/(n+1) gives S_i = B_i (2(n+1) - (i-1)) and S = B (n+2)."""
    rates = mb.uniform_rates(MU, n)
    s_i, s = mb.overflow_bursts(MU, rates, [17] * n, 20)
    i = np.arange(1, n + 1)
    assert np.allclose(s_i, 17 * (2 * (n + 1) - (i - 1)), rtol=1e-12)
    assert s == pytest.approx(20 * (n + 2), rel=1e-12)
    # S_n = 17 (n + 3) is the smallest S_i ...
    assert s_i.min() == pytest.approx(17 * (n + 3), rel=1e-12) == s_i[-1]
    # ... and the overflow moves to node n (S_n < S) exactly for n >= 4.
    assert (s_i[-1] < s) == (n >= 4)
    # Equivalent node (Eq. 2): mu' = mu_n = mu + mu/(n+1), B' = 8.5 n (n+3)/(n+1).
    mu_p, b_p = mb.equivalent_node(MU, rates, [17] * n)
    assert mu_p == pytest.approx(MU + MU / (n + 1), rel=1e-12)
    assert b_p == pytest.approx(8.5 * n * (n + 3) / (n + 1), rel=1e-12)
    # The equivalent node needs the same burst as node n: S' = min S_i.
    _, s_prime = mb.two_node_bursts(MU, mu_p, 20, b_p)
    assert s_prime == pytest.approx(s_i.min(), rel=1e-12)


def test_section_5_single_node_burst() -> None:
    """Sec. 5/6: a bottleneck fed directly at 2 mu overflows with a burst of 2B (40 for
    B = 20); S falls to 2B as mu' -> 2 mu and S' to 2B' as mu' -> mu."""
    assert mb.burst_to_overflow(2 * MU, MU, 20) == pytest.approx(40.0)
    s, s_prime = mb.two_node_bursts(MU, 1.999999 * MU, 20, 30)
    assert s == pytest.approx(40.0, rel=1e-5)
    s, s_prime = mb.two_node_bursts(MU, 1.000001 * MU, 20, 30)
    assert s_prime == pytest.approx(60.0, rel=1e-5)


@pytest.mark.parametrize(
    ("s_b", "n_b", "w_b"),
    [(1.0, 0, 1.0), (2.0, 1, 2.0), (3.0, 2, 3.5), (40.0, 6, 52.0), (64.0, 6, 64.0), (65.0, 7, 96.5)],
)
def test_section_4_minicycle_and_loss_window(s_b: float, n_b: int, w_b: float) -> None:
    """Sec. 4: 2^(n_B - 1) < S_B <= 2^n_B and W_B = 2^(n_B - 1) + S_B/2 (powers of 2 exact)."""
    assert mb.loss_minicycle(s_b) == n_b
    assert mb.loss_window(s_b) == pytest.approx(w_b)


def test_double_slow_start_condition() -> None:
    assert mb.double_slow_start(w_b=50, w_th=60) is True
    assert mb.double_slow_start(w_b=60, w_th=50) is False
    assert mb.double_slow_start([50, 70], 60).tolist() == [True, False]


def test_section_6_throughput_cases() -> None:
    """Sec. 6: 3 W_max/(4T) without a slow-start loss; (W_B + W_max)/(2T) capped at
    5 W_max/(8T) with one. W_max = mu T + B in packets."""
    pipe = mb.pipe_size(MU, T, SIZE)
    assert pipe == pytest.approx(205.078125)
    to_bits = 8 * SIZE
    # Big buffers: no loss in slow start.
    big = mb.throughput(MU, T, b=200, mu_prime=1.5 * MU, b_prime=200, packet_size=SIZE)
    assert big == pytest.approx(3 * (pipe + 200) / (4 * T) * to_bits)
    # Small B: S = 3B = 30 -> W_B = 16 + 15 = 31 < W_th ~ 107.5.
    small = mb.throughput(MU, T, b=10, mu_prime=1.5 * MU, b_prime=200, packet_size=SIZE)
    assert small == pytest.approx((31 + pipe + 10) / (2 * T) * to_bits)
    # Between: the 5/8 cap binds (W_B above W_th/2 but below W_th).
    mid = mb.throughput(MU, T, b=25, mu_prime=1.9 * MU, b_prime=200, packet_size=SIZE)
    assert mid == pytest.approx(5 * (pipe + 25) / (8 * T) * to_bits)


def test_eq4_buffer_dimensioning() -> None:
    """Eq. 4: B > mu T / 3 and B' > (mu T + B)/4; "for B = mu T, one half the pipe size is
    enough" for B'. The exact form agrees with the approximation away from the boundary."""
    pipe = mb.pipe_size(MU, T, SIZE)
    assert mb.min_bottleneck_buffer(MU, T, SIZE) == pytest.approx(pipe / 3)
    assert mb.min_equivalent_buffer(MU, T, pipe, SIZE) == pytest.approx(pipe / 2)
    assert mb.no_slow_start_loss(MU, T, b=pipe, b_prime=0.6 * pipe, packet_size=SIZE) is True
    assert mb.no_slow_start_loss(MU, T, b=0.2 * pipe, b_prime=pipe, packet_size=SIZE) is False
    assert mb.no_slow_start_loss(MU, T, b=pipe, b_prime=0.3 * pipe, packet_size=SIZE) is False


def test_eq5_retransmission_loss_section_7_2() -> None:
    """Sec. 7.2 scenario: mu = 1.5 Mb/s, mu' = 2.2 Mb/s, access link 2.7 Mb/s (< 2 mu), B' = 15,
    T = 560 ms, 512-byte packets. Fig. 11 shows the retransmission lost with Drop Tail for
    B = 13, 16, 18; Eq. 5 is a necessary condition, so it must hold there (at the bottleneck)."""
    pipe = mb.pipe_size(MU, T, SIZE)
    for b in (13, 16, 18):
        w_th = (pipe + b) / 2
        nodes = mb.retransmission_loss(MU, [2.2e6], [15], b, w_th, mu0=2.7e6)
        assert nodes.shape == (2,)
        assert nodes[-1]


def test_eq5_no_loss_when_ca_starts_before_next_minicycle() -> None:
    """Sec. 7: if W_th < 2^n_B, Q < S_B <= every S_i and the condition cannot hold; node 1
    is never flagged when the source feeds it at 2 mu."""
    rates = mb.uniform_rates(MU, 3)
    s_i, s = mb.overflow_bursts(MU, rates, [17] * 3, 20)
    n_b = mb.loss_minicycle(min(s_i.min(), s))
    nodes = mb.retransmission_loss(MU, rates, [17] * 3, 20, w_th=2**n_b - 1)
    assert not nodes.any()


def test_section_7_2_start_window_by_policy() -> None:
    """Sec. 7.2: W_S = W_D/2, W_D = min(W_th, 2W_B + (alpha - 1) S_B/2): Drop Tail (alpha 1)
    keeps 2W_B, Drop-from-Front (0) loses S_B/2, Random Drop lies between."""
    s_b, w_th = 40.0, 500.0
    w_b = mb.loss_window(s_b)  # 32 + 20 = 52
    assert mb.start_window(w_th, s_b, "drop-tail") == pytest.approx(w_b)
    assert mb.start_window(w_th, s_b, "drop-from-front") == pytest.approx((2 * w_b - 20) / 2)
    dt, rd, df = (mb.start_window(w_th, s_b, a) for a in ("drop-tail", "random-drop", "drop-from-front"))
    assert dt > rd > df
    assert mb.start_window(60.0, s_b, 1.0) == 30.0  # capped by W_th
    # No slow-start overflow (W_B = 52 >= W_th = 50): congestion avoidance starts at W_th,
    # the same for every policy (Sec. 7.2's last paragraph).
    assert [mb.start_window(50.0, s_b, a) for a in ("drop-tail", "random-drop", "drop-from-front")] == [
        50.0
    ] * 3


def test_cli_start_window_agrees_with_double_slow_start() -> None:
    """The issue's case: "double slow start: no" (W_B = 123.5 >= W_th = 112.5) and W_S = W_th."""
    from tcplab.models import catalog

    rows = {
        r.key: r.value
        for r in catalog.MODELS["multibottleneck"].compute(
            {"mu": 1.5e6, "rtt": 0.56, "b": 20, "mu_prime": 1.8e6, "b_prime": 47.6, "packet_size": 512}
        )
    }
    assert not rows["double_slow_start"]
    assert rows["w_th"] == pytest.approx(112.5, rel=1e-3)
    for policy in ("drop_tail", "random_drop", "drop_from_front"):
        assert rows[f"w_s_{policy}"] == pytest.approx(rows["w_th"])


def test_section_7_worst_deterioration_is_20_percent() -> None:
    """Sec. 7: losing the retransmission drops the average window from (W'_th + W_max)/2 to
    W_max/2; with W'_th = W_max/4 that is 1 - 1/(1 + 0.25) = 20 %. Reproduced from the
    Sec. 6 throughput: min((W_B + W_max)/2T, 5 W_max/8T) against W_max/2T."""
    pipe = mb.pipe_size(MU, T, SIZE)
    thr = mb.throughput(MU, T, b=25, mu_prime=1.9 * MU, b_prime=200, packet_size=SIZE)
    lost = (pipe + 25) / (2 * T) * 8 * SIZE
    assert 1 - lost / thr == pytest.approx(0.2)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: mb.overflow_bursts(MU, [1.2 * MU, 1.4 * MU], [10, 10], 20), "mu_i: rates must fall"),
        (lambda: mb.overflow_bursts(MU, [1.2 * MU], [10, 10], 20), "b_i: needs one buffer"),
        (lambda: mb.burst_to_overflow(MU, 2 * MU, 10), "rate_out: must be below rate_in"),
        (lambda: mb.two_node_bursts(MU, 2.5 * MU, 10, 10), "mu_prime: must lie in (mu, 2 mu)"),
        (lambda: mb.start_window(100, 40, "red"), "alpha: 'red' is not one of"),
        (lambda: mb.start_window(100, 40, 1.5), "alpha: 1.5 is outside [0, 1]"),
        (lambda: mb.pipe_size(MU, 0, SIZE), "t: 0 is outside (0, inf)"),
    ],
)
def test_bad_input(call, message: str) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)
