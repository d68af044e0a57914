"""Jacobson & Karels 1988: footnote 6, equilibration, and the App. A RTO estimator."""

from __future__ import annotations

import numpy as np
import pytest

from tcplab.models import jacobson as jk


def test_footnote_6_damage_loss() -> None:
    """Footnote 6: 1 % damage loss on an 8-packet Arpanet window degrades throughput by 14 %:
    1/(1 + 2 * 0.01 * 8) = 0.862."""
    factor = jk.damage_degradation(0.01, 8)
    assert factor == pytest.approx(1 / 1.16)
    assert round(1 - factor, 2) == 0.14
    assert jk.damage_degradation(0.0, 8) == 1.0


def test_equilibration_and_5_percent_threshold() -> None:
    """ "equilibration takes roughly w^2/3 packets so, for the Arpanet, the loss sensitivity
    threshold is about 5%. At this high loss rate, the empty window effect ... has already
    degraded throughput by 44%." (w = 8)."""
    assert jk.equilibration_packets(8) == pytest.approx(64 / 3)
    threshold = jk.loss_sensitivity_threshold(8)
    assert threshold == pytest.approx(3 / 64)
    assert round(threshold, 2) == 0.05
    assert round(1 - jk.damage_degradation(0.05, 8), 2) == 0.44


def test_rto_estimator_hand_computed() -> None:
    """App. A integer estimator, samples 10, 12, 8, 20 ticks, by hand:

    m=10 seeds: sa = 80, sv = 20, rto = 10 + 20 = 30
    m=12: err = 12 - (80>>3) = 2, sa = 82; 2 - (20>>2) = -3, sv = 17; rto = (82>>3) + 17 = 27
    m=8:  err = 8 - 10 = -2, sa = 80; 2 - (17>>2) = -2, sv = 15; rto = 10 + 15 = 25
    m=20: err = 20 - 10 = 10, sa = 90; 10 - (15>>2) = 7, sv = 22; rto = 11 + 22 = 33
    """
    sa, sv, rto = jk.rto_series([10, 12, 8, 20])
    assert sa.tolist() == [80, 82, 80, 90]
    assert sv.tolist() == [20, 17, 15, 22]
    assert rto.tolist() == [30, 27, 25, 33]


def test_rto_estimator_from_zero_state() -> None:
    """Explicit initial state sa = sv = 0 (the bare App. A code), by hand for 10, 10:
    m=10: err = 10, sa = 10; 10 - 0 = 10, sv = 10; rto = (10>>3) + 10 = 11
    m=10: err = 10 - 1 = 9, sa = 19; 9 - (10>>2) = 7, sv = 17; rto = 2 + 17 = 19"""
    sa, sv, rto = jk.rto_series([10, 10], sa=0, sv=0)
    assert sa.tolist() == [10, 19] and sv.tolist() == [10, 17] and rto.tolist() == [11, 19]


def test_rto_converges_to_mean_plus_small_bias_on_constant_samples() -> None:
    """Constant RTT: sa converges to 8m and sv decays until (sv >> 2) stops it; rto ends
    within a few ticks above m (App. A: "half a tick of bias in each")."""
    _, sv, rto = jk.rto_series([20] * 200)
    assert rto[-1] >= 20 and rto[-1] <= 24
    assert sv[-1] <= 3


def test_gains_one_eighth_and_one_quarter() -> None:
    """A step from 100 to 200 ticks: a moves by err/8, 4v moves by (|err| - v)."""
    est = jk.RttEstimator()
    est.update(100)
    sa0, sv0 = est.sa, est.sv
    est.update(200)
    assert est.sa - sa0 == 100  # scaled by 8: a += 100/8
    assert est.sv - sv0 == 100 - (sv0 >> 2)


def test_rto_series_seconds() -> None:
    """100 ms samples on a 500 ms clock count as 1 tick; 0.3 s on a 0.1 s tick is 3 ticks."""
    ticks, rto = jk.rto_series_seconds([0.1, 0.1], tick=0.5)
    assert ticks.tolist() == [1, 1]
    assert rto.tolist() == [1.5, 1.5]  # seed: 1 + 2 = 3 ticks; then err 0, sv 2 - 0 = 2
    ticks, _ = jk.rto_series_seconds([0.3, 0.31], tick=0.1)
    assert ticks.tolist() == [3, 4]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: jk.damage_degradation(1.5, 8), "p: 1.5 is outside [0, 1]"),
        (lambda: jk.equilibration_packets(0), "w: 0 is outside (0, inf)"),
        (lambda: jk.RttEstimator().update(-1), "m: -1 is outside"),
        (lambda: jk.RttEstimator().update(1.5), "m: 1.5 is outside"),
        (lambda: jk.rto_series([]), "samples: empty input"),
        (lambda: jk.rto_series([1], sa=8), "sa/sv"),
        (lambda: jk.rto_series_seconds([0.1], tick=0), "tick: 0 is outside (0, inf)"),
    ],
)
def test_bad_input(call, message: str) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)


def test_vectorised_helpers() -> None:
    out = jk.damage_degradation(np.array([0.0, 0.01]), 8)
    assert isinstance(out, np.ndarray) and out[0] == 1.0
