"""Parvez, Mahanti & Williamson 2010 (TCP NewReno): equations, Table IV, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcplab.models import newreno as nr
from tcplab.models.newreno_paper import PAPER_TABLE_IV, table_iv_model_kbps

# Table IV (Calgary to Japan): imposed PLR, actual LER p, RTT (ms), measured and model Kbps, from
# the table the reproduction item parvez-table4 prints (tcplab.reproduce.items.parvez).
TABLE_IV = [(r[0], r[3], r[4], r[6], r[7]) for r in PAPER_TABLE_IV]
# Our Full model (Eq. 29) with q = p, RTO = 3R (the paper's simulation setting, Sec. IV-A;
# the Internet section does not state its RTO) and 1448-byte segments (the Segsize of the
# emulation, Sec. V; Sec. VI does not state one), in Kbit/s (1000 bit/s) -- the values and
# per-row errors recorded in docs/models.md and the item's table.
OURS_KBPS = [500.7, 398.5, 315.5, 209.6, 161.7, 188.2, 145.5]


def _full_kbps(p: float, rtt_ms: float, q: float | None = None) -> float:
    return table_iv_model_kbps(p, rtt_ms, q)


@pytest.mark.parametrize(
    ("row", "ours"), list(zip(TABLE_IV, OURS_KBPS, strict=True)), ids=[r[0] for r in TABLE_IV]
)
def test_table_iv_model_column(row, ours: float) -> None:
    """Table IV "Model" column from the measured LER and RTT with q = p, RTO = 3R.

    With the real W of Eq. 14 our values are 0.7 % to 10.0 % above the paper's column (mean
    4.8 %), always high: the rows 6-10 % high (3, 5, 6) are the three whose W rounds down. The
    paper's column is Eq. 29 at W rounded up and RTO = 4R
    (test_table_iv_model_column_is_eq29_with_whole_windows_and_rto_4r). This test pins the
    real-W numbers (to 0.05 Kbps) so docs/models.md stays true, and checks each stays within
    10.05 % of the paper's column -- the documented worst row, not a tolerance to be loosened."""
    _, p, rtt, _, paper = row
    got = _full_kbps(p, rtt)
    assert got == pytest.approx(ours, abs=0.05)
    assert abs(got - paper) / paper < 0.1005


def test_table_iv_ordering_matches_paper() -> None:
    """Rows rank the same way in our model column as in the paper's."""
    ours = [_full_kbps(p, rtt) for _, p, rtt, _, _ in TABLE_IV]
    paper = [row[4] for row in TABLE_IV]
    assert np.argsort(ours).tolist() == np.argsort(paper).tolist()


def test_table_iv_starred_row_with_the_real_window() -> None:
    """Table IV row 1, '382*': PLR 6.21 %, LER 0.98 %, q from Eq. 30. With the real W of Eq. 14
    and RTO = 3R we get q = 0.391 and 404 Kbps, 5.8 % above 382 (6.6 % above the measured 379);
    the paper's evaluation (whole W, RTO = 4R) gives 383.4
    (test_table_iv_starred_row_with_whole_windows_and_rto_4r)."""
    q = nr.q_from_packet_loss(p=0.0098, packet_loss=0.0621)
    assert q == pytest.approx(0.391, abs=5e-4)
    assert _full_kbps(0.0098, 229, q) == pytest.approx(404.0, abs=0.1)


@pytest.mark.parametrize("row", TABLE_IV, ids=[r[0] for r in TABLE_IV])
def test_table_iv_model_column_is_eq29_with_whole_windows_and_rto_4r(row) -> None:
    """The paper's own evaluation of Eq. 29 behind Table IV: W of Eq. 14 rounded up to a whole
    number of segments everywhere (integer_window=True), RTO = 4R, 1448-byte segments. Every
    row within 0.5% of the printed column (the inputs are printed to 3-4 digits), where the
    real W with RTO = 3R or 4R leaves rows up to 10% (7%) above it."""
    _, p, rtt, _, paper = row
    r = rtt / 1000
    got = nr.throughput_full(1448, r, p, p, 4 * r, integer_window=True) / 1000
    assert abs(got / paper - 1) <= 0.005


def test_table_iv_starred_row_with_whole_windows_and_rto_4r() -> None:
    """Row 1's 382* (PLR 6.21%, q from Eq. 30) with the same evaluation: W rounded up in Eq. 30
    too gives q = 0.381 and 383.4 Kbps, 0.4% from the printed 382."""
    q = nr.q_from_packet_loss(0.0098, 0.0621, integer_window=True)
    assert q == pytest.approx((0.0621 / 0.0098 - 1) / (math.ceil(nr.window(0.0098, 0.0621)) - 1), rel=1e-12)
    assert q == pytest.approx(0.3812, abs=1e-4)
    got = nr.throughput_full(1448, 0.229, 0.0098, q, 4 * 0.229, integer_window=True) / 1000
    assert got == pytest.approx(383.4, abs=0.1)
    assert abs(got / 382 - 1) <= 0.005


def test_integer_window_is_eq29_at_the_rounded_up_window() -> None:
    """integer_window=True is Eq. 29 evaluated by hand at W = ceil(Eq. 14): p = 0.01, q = 0 gives
    W = 14.83, so W = 15, p_TO from Eq. 24 at W = 15."""
    p, rtt, rto, mss = 0.01, 0.1, 0.3, 1000
    w = 15.0
    assert math.ceil(nr.window(p, 0.0)) == w
    pto = nr.timeout_probability(p, 0.0, w)
    n = w / 2 + 1.5 + (1 - pto)
    hand = (
        8 * mss * (1 / p) / (n * rtt + pto * ((1 + 2 * p + 4 * p * p) * rto + (1 + math.log2(w / 4)) * rtt))
    )
    assert nr.throughput_full(mss, rtt, p, 0.0, rto, integer_window=True) == pytest.approx(hand, rel=1e-12)
    assert nr.throughput_full(mss, rtt, p, 0.0, rto, integer_window=True) != nr.throughput_full(
        mss, rtt, p, 0.0, rto
    )


def test_eq14_window_and_limits() -> None:
    """Eq. 14 by hand at p = 0.01, q = 0: (-0.05 + sqrt(0.01 * 24.49)) / 0.03 = 14.829;
    and W -> sqrt(8/(3p)) (Mathis Eq. 1) as p -> 0 with q = 0."""
    assert nr.window(0.01, 0.0) == pytest.approx((-0.05 + math.sqrt(0.2449)) / 0.03, rel=1e-12)
    p = 1e-8
    assert nr.window(p, 0.0) / math.sqrt(8 / (3 * p)) == pytest.approx(1.0, abs=1e-3)
    # Fig. 4: W falls with p; for small p it falls with q too.
    p = np.logspace(-4, -1, 20)
    assert np.all(np.diff(nr.window(p, 0.01)) < 0)
    assert nr.window(1e-4, 0.1) < nr.window(1e-4, 0.01) < nr.window(1e-4, 0.0)


def test_eq14_approximately_solves_eq7_equals_eq13() -> None:
    """W of Eq. 14 balances Eq. 7 against Eq. 13 up to the neglected high-order terms: the two
    segment counts agree within 3 % for small p and q."""
    for p, q in [(1e-4, 0.0), (1e-3, 0.01), (1e-4, 0.02)]:
        w = nr.window(p, q)
        s7 = nr.cafr_segments(p, q)
        s13 = nr.cafr_segments_polynomial(w, q)
        assert abs(s7 - s13) / s7 < 0.03, (p, q, s7, s13)


def test_eq18_duration() -> None:
    assert nr.cafr_duration(0.1, 0.01, 0.0, w=10.0) == pytest.approx((5 + 2.5) * 0.1)
    assert nr.cafr_duration(0.1, 0.01, 0.1, w=10.0) == pytest.approx((5 + 1 + 2.5) * 0.1)


def test_eq4_binomial_and_eq5_mean() -> None:
    """A(W, m) is a pmf over m = 1..W, and its exact mean is 1 + (W - 1) q (Eq. 5)."""
    w, q = 20, 0.07
    m = np.arange(1, w + 1)
    a = nr.drop_window_pmf(w, m, q)
    assert a.sum() == pytest.approx(1.0, abs=1e-12)
    assert (m * a).sum() == pytest.approx(nr.expected_losses(w, q), rel=1e-12)
    # By hand: A(4, 2) = C(3, 1) (1 - q)^2 q.
    assert nr.drop_window_pmf(4, 2, 0.1) == pytest.approx(3 * 0.81 * 0.1)
    assert nr.drop_window_pmf(5, 1, 0.0) == 1.0


def test_eq24_timeout_probability() -> None:
    """With q = 0 only m = 1 occurs: p_TO = 1 - (1 - p)^(W/2). For W < 4 no fast retransmit
    is possible and p_TO = 1. p_TO grows with q."""
    assert nr.timeout_probability(0.01, 0.0, w=20) == pytest.approx(1 - 0.99**10, rel=1e-12)
    assert nr.timeout_probability(0.01, 0.0, w=3.2) == 1.0
    assert nr.timeout_probability(0.01, 0.2, w=20) > nr.timeout_probability(0.01, 0.05, w=20)


def test_eq26_timeout_duration_and_eq29_expansion() -> None:
    """Eq. 26: D_TO = RTO f(p)/(1 - p); Eq. 29's (1 + 2p + 4p^2) is its expansion to p^2
    (difference O(p^3): 8.2e-6 at p = 0.01)."""
    p = 0.01
    d = nr.timeout_duration(1.0, p)
    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    assert d == pytest.approx(f / (1 - p), rel=1e-12)
    assert abs(d - (1 + 2 * p + 4 * p**2)) < 10 * p**3
    with pytest.raises(ValueError, match="p: 1 is outside"):
        nr.timeout_duration(1.0, 1.0)


def test_noto_approaches_square_root_law_as_q_to_0() -> None:
    """Eq. 19 with q -> 0: (1/p) / ((W/2 + 5/2) R) -> sqrt(3/(2p)) / R as p -> 0; at fixed
    small p the q -> 0 limit is continuous."""
    rtt, mss = 0.1, 1000
    sqrt_law = lambda p: 8 * mss * math.sqrt(3 / (2 * p)) / rtt  # noqa: E731
    ratios = [nr.throughput_noto(mss, rtt, p, 0.0) / sqrt_law(p) for p in (1e-3, 1e-5, 1e-7)]
    assert ratios[0] < ratios[1] < ratios[2] < 1
    assert ratios[2] > 0.99
    # Continuity at q = 0 (the approach is not monotone: at p = 1e-4 Eq. 19 peaks near
    # q = 3e-3, 0.13 % above its q = 0 value, an artefact of Eq. 14's truncation).
    p = 1e-4
    at0 = nr.throughput_noto(mss, rtt, p, 0.0)
    gaps = [abs(nr.throughput_noto(mss, rtt, p, q) - at0) for q in (1e-3, 1e-4, 1e-5, 1e-6)]
    assert all(a > b for a, b in zip(gaps, gaps[1:], strict=False))
    assert gaps[-1] / at0 < 1e-5
    assert nr.throughput_noto(mss, rtt, p, 0.1) < at0


def test_full_below_noto_and_properties() -> None:
    p = np.logspace(-4, -1, 15)
    full = nr.throughput_full(1460, 0.1, p, p, 0.3)
    noto = nr.throughput_noto(1460, 0.1, p, p)
    assert np.all(full < noto)
    assert np.all(np.diff(full) < 0) and np.all(np.diff(noto) < 0)
    rtt = np.linspace(0.02, 0.5, 10)
    assert np.all(np.diff(nr.throughput_full(1460, rtt, 0.01, 0.01, 3 * rtt)) < 0)


def test_full_with_a_given_timeout_probability() -> None:
    """Eq. 29 with p_TO given instead of Eq. 24: the default when it is Eq. 24's value, and the
    printed formula worked by hand at p_TO = 0 and 1 (p = 0.01, q = 0: W = 14.829)."""
    p, rtt, rto, mss = 0.01, 0.1, 0.3, 1000
    assert nr.throughput_full(mss, rtt, p, p, rto, p_to=nr.timeout_probability(p, p)) == pytest.approx(
        nr.throughput_full(mss, rtt, p, p, rto), rel=1e-12
    )
    w = (-5 * p + math.sqrt(p * (24 + 49 * p))) / (3 * p)
    assert w == pytest.approx(14.8291, abs=1e-4)
    no_to = 8 * mss * (1 / p) / ((w / 2 + 1.5 + 1) * rtt)
    all_to = (
        8
        * mss
        * (1 / p)
        / ((w / 2 + 1.5) * rtt + (1 + 2 * p + 4 * p * p) * rto + (1 + math.log2(w / 4)) * rtt)
    )
    assert nr.throughput_full(mss, rtt, p, 0.0, rto, p_to=0.0) == pytest.approx(no_to, rel=1e-12)
    assert nr.throughput_full(mss, rtt, p, 0.0, rto, p_to=1.0) == pytest.approx(all_to, rel=1e-12)
    assert no_to == pytest.approx(806_894, rel=1e-5)  # 100 segments of 8000 bits per (W/2 + 5/2) R = 0.9915 s
    with pytest.raises(ValueError, match="p_to"):
        nr.throughput_full(mss, rtt, p, p, rto, p_to=1.5)


def test_eq30_q_from_packet_loss() -> None:
    """Eq. 30: q = (q~/p - 1)/(W - 1), W = Eq. 14 at q = q~; m = 1 gives q = 0."""
    assert nr.q_from_packet_loss(0.01, 0.01) == 0.0
    w = nr.window(0.005, 0.02)
    assert nr.q_from_packet_loss(0.005, 0.02) == pytest.approx(3 / (w - 1), rel=1e-12)
    with pytest.raises(ValueError, match="packet_loss"):
        nr.q_from_packet_loss(0.02, 0.01)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: nr.window(0.0, 0.1), "p: 0 is outside (0, 1]"),
        (lambda: nr.window(0.1, 1.2), "q: 1.2 is outside [0, 1]"),
        (lambda: nr.throughput_full(1460, 0.1, 0.01, 0.01, rto=0), "rto: 0 is outside (0, inf)"),
        (lambda: nr.drop_window_pmf(10.5, 1, 0.1), "w: 10.5 is outside an integer in [1, inf)"),
        (lambda: nr.throughput_noto(1460, float("inf"), 0.01, 0.0), "rtt: inf is outside"),
    ],
)
def test_bad_input(call, message: str) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)


def test_ratio_band_edges() -> None:
    """`ratio_band`'s band is a run of grid rates where PFTK / NewReno exceeds the limit, bounded by
    rates where it does not (or by the grid's ends), and it holds the rates asked about."""
    from tcplab.models import pftk
    from tcplab.models.newreno_paper import ratio_band

    limit = 1.05
    ps = [p for p in (1e-4 * (1100 ** (i / 2000)) for i in range(2001)) if float(nr.window(p, p)) >= 4]

    def over(p: float) -> bool:
        pftk_bps = float(pftk.full(1000, 0.1, p, 0.3))
        return pftk_bps / float(nr.throughput_full(1000, 0.1, p, p, 0.3, integer_window=True)) > limit

    lo, hi = ratio_band(limit, [0.02])
    i, j = ps.index(lo), ps.index(hi)
    assert i > 0 and lo <= 0.02 <= hi
    assert all(over(p) for p in ps[i : j + 1])
    assert not over(ps[i - 1])
    assert j == len(ps) - 1 or not over(ps[j + 1])
    # a rate outside every band gives NaNs
    assert all(math.isnan(x) for x in ratio_band(1e9, [0.02]))
