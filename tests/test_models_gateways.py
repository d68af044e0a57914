"""Mathis Sec. 6: multiple congested gateways (Eq. 12 and 13)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcplab.models import gateways, mathis


def test_eq13_overbuffered_drop_tail() -> None:
    """Eq. 13: B0/B ~ 1/(1 + n^(3/2)); n = 4 -> 1/9."""
    assert gateways.share_overbuffered(4) == pytest.approx(1 / 9)
    assert gateways.share_overbuffered(1) == 0.5


def test_eq12_as_reconstructed() -> None:
    """Eq. 12 read as 1/(1 + sqrt(n)(2n - 1)) (see gateways docstring: the extracted radical's
    extent is ambiguous and the derivation page is missing); n = 4 -> 1/15, n = 1 -> 1/2."""
    assert gateways.share_propagation(4) == pytest.approx(1 / 15)
    assert gateways.share_propagation(1) == 0.5


def test_general_share_derives_from_eq3() -> None:
    """B0/B from Eq. 3 directly: connection 0 sees loss n p and RTT r0, the others p and r;
    the two share a gateway of bandwidth B. C and MSS drop out."""
    n, r, r0, p = 3, 0.05, 0.2, 0.004
    for c in (0.87, 1.31):
        b0 = mathis.throughput(1460, r0, n * p, c=c)
        bi = mathis.throughput(1460, r, p, c=c)
        assert gateways.bandwidth_share(n, r0 / r) == pytest.approx(b0 / (b0 + bi), rel=1e-12)
    assert gateways.share_overbuffered(n) == pytest.approx(gateways.bandwidth_share(n, n))
    assert gateways.share_propagation(n) == pytest.approx(gateways.bandwidth_share(n, 2 * n - 1))


def test_share_falls_with_n() -> None:
    n = np.arange(1, 20)
    for f in (gateways.share_overbuffered, gateways.share_propagation):
        s = f(n)
        assert np.all(np.diff(s) < 0) and np.all((s > 0) & (s <= 0.5))
    # Propagation-dominated RTTs (2n - 1) penalise connection 0 more than queueing (n).
    assert np.all(gateways.share_propagation(n[1:]) < gateways.share_overbuffered(n[1:]))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: gateways.share_overbuffered(0), "n: 0 is outside an integer in [1, inf)"),
        (lambda: gateways.share_propagation(2.5), "n: 2.5 is outside an integer in [1, inf)"),
        (lambda: gateways.bandwidth_share(2, -1), "rtt_ratio: -1 is outside (0, inf)"),
    ],
)
def test_bad_input(call, message: str) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)
    assert math.isfinite(gateways.share_overbuffered(1))
