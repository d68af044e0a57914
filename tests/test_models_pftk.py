"""PFTK (Padhye et al. 1998) as Parvez et al. Table I prints it, with b and Wmax."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcplab.models import mathis, pftk


def test_simple_is_table_i() -> None:
    """Table I, Reno "Simple": sqrt(3/(2p)) / R segments/s (b = 1, no Wmax)."""
    mss, rtt, p = 1000, 0.2, 0.02
    expected = 8 * mss * math.sqrt(3 / (2 * p)) / rtt
    assert pftk.simple(mss, rtt, p) == pytest.approx(expected, rel=1e-12)
    # ... which is Mathis Eq. 3 with C = sqrt(3/2).
    assert pftk.simple(mss, rtt, p) == pytest.approx(mathis.throughput(mss, rtt, p), rel=1e-12)


def test_full_is_table_i_by_hand() -> None:
    """Table I, Reno "Full", hand-evaluated at R = 0.1 s, RTO = 0.4 s, p = 0.05:
    sqrt(2p/3) = 0.182574, min(1, 3 sqrt(3p/8)) = 0.410792, p(1 + 32p^2) = 0.054,
    denominator = 0.0182574 + 0.4 * 0.410792 * 0.054 = 0.0271305 -> 36.859 segments/s."""
    seg_per_s = pftk.full(mss=1, rtt=0.1, p=0.05, rto=0.4) / 8
    assert seg_per_s == pytest.approx(36.859, rel=1e-4)


def test_b_and_wmax() -> None:
    """b segments per ACK enters as b p (simple falls by sqrt(b)); Wmax caps at Wmax/R."""
    mss, rtt, p = 1460, 0.1, 0.01
    assert pftk.simple(mss, rtt, p, b=2) == pytest.approx(pftk.simple(mss, rtt, p) / math.sqrt(2))
    # The timeout term's min(1, 3 sqrt(3bp/8)) saturates at large b p.
    assert pftk.full(mss, rtt, 0.5, 1.0, b=2) < pftk.full(mss, rtt, 0.5, 1.0, b=1)
    wmax = 10 * mss  # 10 segments
    assert pftk.simple(mss, rtt, 1e-6, wmax=wmax) == pytest.approx(8 * wmax / rtt)
    assert pftk.full(mss, rtt, 1e-6, 0.3, wmax=wmax) == pytest.approx(8 * wmax / rtt)
    assert pftk.full(mss, rtt, 0.2, 0.3, wmax=wmax) == pftk.full(mss, rtt, 0.2, 0.3)


def test_full_tends_to_simple_as_timeouts_vanish() -> None:
    """With RTO -> 0 the timeout term disappears and full == simple; as p -> 0 the timeout
    term is O(p) against O(sqrt(p)), so the ratio tends to 1 as well."""
    p = np.logspace(-5, -1, 9)
    assert np.allclose(pftk.full(1460, 0.1, p, rto=0.0), pftk.simple(1460, 0.1, p), rtol=1e-12)
    ratio = pftk.full(1460, 0.1, p, rto=0.3) / pftk.simple(1460, 0.1, p)
    assert np.all(ratio < 1) and np.all(np.diff(ratio) < 0)
    assert ratio[0] > 0.99
    assert pftk.full(1460, 0.1, 1e-9, 0.3) / pftk.simple(1460, 0.1, 1e-9) > 0.9995


def test_throughput_falls_with_p_and_rtt() -> None:
    p = np.logspace(-6, 0, 40)
    for f in (lambda x: pftk.simple(1460, 0.1, x), lambda x: pftk.full(1460, 0.1, x, 0.3)):
        assert np.all(np.diff(f(p)) < 0)
    rtt = np.linspace(0.01, 1, 30)
    assert np.all(np.diff(pftk.full(1460, rtt, 0.01, 3 * rtt)) < 0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pftk.simple(1460, 0.1, 2.0), "p: 2 is outside (0, 1]"),
        (lambda: pftk.simple(1460, -0.1, 0.1), "rtt: -0.1 is outside (0, inf)"),
        (lambda: pftk.simple(1460, 0.1, 0.1, b=0.5), "b: 0.5 is outside [1, inf)"),
        (lambda: pftk.full(1460, 0.1, 0.1, rto=-1), "rto: -1 is outside [0, inf)"),
        (lambda: pftk.full(1460, 0.1, 0.1, 0.3, wmax=0), "wmax: 0 is outside (0, inf]"),
    ],
)
def test_bad_input(call, message: str) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)
