"""Mathis et al. 1997 Table 4, short form (`python -m tcplab.validation.mathis_table4 --quick`).

The quick design: every variant (Tahoe, Reno, NewReno, SACK, FACK) with an ACK per segment and
with delayed ACKs, MSS 1460, one-way delay 10/30/100 ms, four p per delay log-uniform in
[1e-4, 3e-3] (where most runs keep their self-clock), 40 nominal CA cycles each: about 9-12 runs
without timeouts per row. The success proportions come from one run per (variant, delay) at
exactly p = 0.01, 0.033 and 0.1 (>= 1500 RTTs, hundreds of loss events each).

Tolerances, wider than the full run's because the sample is small and covers 1.5 decades of p:

* C (Eq. 3) within 20% of the paper's row (full run: 15%). The standard error of log C over ~10
  runs of 40 cycles is ~2-3%, and tcplab sits 6-15% under the paper at this design (see
  docs/validation/mathis.md, Table 4), so a further regression of ~5-10% fails.
* k in [-0.60, -0.44] (full run: [-0.56, -0.48]): over 1.5 decades the slope's standard error is
  ~0.02-0.03.
* The delayed-ACK ratio C(no DA) / C(DA) within 15% of sqrt(2) for every variant.
* Success proportions within 0.10 of the paper's at p = 0.01 (observed |diff| <= 0.06), and the
  paper's ordering: FACK keeps its self-clock longest (first at p = 0.1 for both receivers, and
  at least Reno's at 0.033), NewReno at least Reno's at p = 0.033 (its fix of Reno's multiple-loss
  timeouts), delayed ACKs lower every proportion at p = 0.1 except FACK's.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tcplab.validation import mathis_table4 as t4

SWEEPS = Path(__file__).resolve().parents[1] / "sweeps"


@pytest.fixture(scope="module")
def quick(reproduced_quick):
    """The quick design's table from the session's `tcplab reproduce all --quick` store (the same
    runs `t4.run(t4.QUICK, ...)` makes: the item's jobs are the two sweeps' runs)."""
    from tcplab import results

    df = results.load(reproduced_quick[3] / "store" / "mathis-table4.parquet")
    keys = {kind: [r.key for r in t4.sweep(t4.QUICK, kind).runs()] for kind in ("fit", "success")}
    return t4.compute(
        df.filter(pl.col("run_key").is_in(keys["fit"])),
        df.filter(pl.col("run_key").is_in(keys["success"])),
        t4.QUICK,
    )


def test_committed_sweep_files_match_the_designs():
    for design in (t4.FULL, t4.QUICK):
        for kind in ("fit", "success"):
            path = t4.sweep_path(design, kind, SWEEPS)
            assert path.read_text() == t4.sweep_text(design, kind), (
                f"{path} is stale: python -m tcplab.validation.mathis_table4 --write-sweeps"
            )


def test_the_package_sweep_runs_what_the_committed_file_runs():
    """The installed package runs the sweep from its own copy of the base scenario: same run keys."""
    from tcplab.sweep import load

    for kind in ("fit", "success"):
        committed = [r.key for r in load(t4.sweep_path(t4.QUICK, kind, SWEEPS)).runs()]
        assert committed == [r.key for r in t4.sweep(t4.QUICK, kind).runs()]


def test_quick_fit_c_and_k(quick):
    for tcp, ack in t4.ROWS:
        row, paper = quick.row(tcp, ack), t4.PAPER[(tcp, ack)]
        assert row["n"] >= 6, f"{tcp}/{ack}: only {row['n']} runs without timeouts"
        assert abs(row["c_half"] / paper.c_half - 1) <= 0.20, (
            f"{tcp}/{ack}: C = {row['c_half']:.3f}, paper {paper.c_half}"
        )
        assert -0.60 <= row["k"] <= -0.44, f"{tcp}/{ack}: k = {row['k']:.3f}"


def test_quick_delayed_acks_divide_c_by_sqrt2(quick):
    for tcp in t4.VARIANTS:
        ratio = quick.row(tcp, "immediate")["c_half"] / quick.row(tcp, "delayed")["c_half"]
        assert abs(ratio / math.sqrt(2) - 1) <= 0.15, f"{tcp}: C(no DA)/C(DA) = {ratio:.3f}"


def test_quick_success_proportions_and_ordering(quick):
    prop = lambda tcp, ack, p: quick.proportion(tcp, ack, p)["proportion"]  # noqa: E731
    for tcp, ack in t4.ROWS:
        ours, paper = prop(tcp, ack, 0.01), t4.PAPER[(tcp, ack)].success[0]
        assert abs(ours - paper) <= 0.10, f"{tcp}/{ack} at p=0.01: {ours:.3f}, paper {paper}"
    for ack in t4.ACKS:
        others = {t: prop(t, ack, 0.1) for t in t4.VARIANTS if t != "fack"}
        assert prop("fack", ack, 0.1) > max(others.values()), (
            f"{ack}: FACK {prop('fack', ack, 0.1):.3f} vs {others}"
        )
        assert prop("fack", ack, 0.033) >= prop("reno", ack, 0.033)
        assert prop("newreno", ack, 0.033) >= prop("reno", ack, 0.033)
    for tcp in ("sack", "reno", "newreno", "tahoe"):
        assert prop(tcp, "delayed", 0.1) < prop(tcp, "immediate", 0.1), tcp


def test_quick_table_prints_every_cell(quick):
    cells = quick.cells()
    assert len(cells) == 10 * 7  # N, C, k, C (Eq. 5), three proportions per row
    text = quick.text()
    assert "Reno DA" in text and "0.939" in text  # the paper's value beside ours
    md = quick.markdown()
    assert md.count("\n") == 11  # header, rule, ten rows


def _synthetic(c: float, k: float) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Rows shaped like a results store with W = c * p**k exactly (and no timeouts)."""
    rows = []
    for tcp, ack in t4.ROWS:
        for p in np.geomspace(1e-4, 3e-3, 6):
            w = c * p**k
            rows.append(
                {
                    "run_key": f"{tcp}{ack}{p}",
                    "flow": 0,
                    "tcp": tcp,
                    "ack": ack,
                    "network.path.hops.0.loss.p": p,
                    "goodput_bps": w * 1460 * 8 / 0.06,
                    "mean_rtt_s": 0.06,
                    "mss_bytes": 1460,
                    "timeouts": 0,
                    "p": p,
                    "ca_events": 90,
                    "non_ca_events": 10,
                }
            )
    fit_rows = pl.DataFrame(rows)
    success = pl.DataFrame(
        [
            {**r, "network.path.hops.0.loss.p": p0, "run_key": r["run_key"] + str(p0)}
            for r in rows[:1]
            for p0 in t4.AT
        ]
    )
    return fit_rows, success


def test_the_checks_can_fail():
    """A simulator whose windows are 50% too large, or whose slope is -0.6, is flagged."""
    runs, success = _synthetic(2.0, -0.5)
    table = t4.compute(runs, success, t4.QUICK)
    assert any("C (Eq. 3)" in b for b in table.failures())
    runs, _ = _synthetic(1.3, -0.65)
    table = t4.compute(runs, success, t4.QUICK)
    assert table.row("reno", "immediate")["k"] == pytest.approx(-0.65)
    assert any("k (Eq. 5)" in b for b in table.failures())


@pytest.mark.parametrize("scale, k, code", [(1.0, -0.5, 0), (1.5, -0.5, 1), (1.0, -0.7, 1)])
def test_main_exits_non_zero_when_a_check_fails(monkeypatch, tmp_path, capsys, scale, k, code):
    """`python -m tcplab.validation.mathis_table4 --quick` is a check: its exit code says whether it held."""
    parts = []
    for tcp, ack in t4.ROWS:  # each row at the paper's C (times scale)
        rows, success = _synthetic(scale * t4.PAPER[(tcp, ack)].c_half, k)
        parts.append(rows.filter((pl.col("tcp") == tcp) & (pl.col("ack") == ack)))
    runs = pl.concat(parts)
    runs = runs.with_columns(duration=pl.lit(100.0), warmup=pl.lit(10.0))
    success = success.with_columns(duration=pl.lit(100.0), warmup=pl.lit(10.0))

    def fake_run(design, out, *args, **kwargs):
        table = t4.compute(runs, success, design)
        table.seconds = 0.0
        return table

    monkeypatch.setattr(t4, "run", fake_run)
    monkeypatch.setattr(t4.Table4, "ordering", lambda self: [])  # one synthetic success run: no ordering
    assert t4.main(["--quick", "--out", str(tmp_path)]) == code
    err = capsys.readouterr().err
    assert ("outside the expected tolerance (C within 20%, k in [-0.6, -0.44]" in err) == bool(code)


def test_the_ordering_is_checked_where_the_design_says():
    runs, success = _synthetic(1.0, -0.5)
    table = t4.compute(runs, success, t4.QUICK)
    flags = lambda order: [b for b in table.failures() if "FACK is not first" in b]  # noqa: E731
    fake = [
        {"ack": "immediate", "p": 0.033, "tcplab": ["NewReno", "FACK"], "fack_first": False},
        {"ack": "immediate", "p": 0.1, "tcplab": ["FACK", "NewReno"], "fack_first": True},
    ]
    t4.Table4.ordering, saved = (lambda self: fake), t4.Table4.ordering
    try:
        assert flags(fake) == []  # the quick design checks p = 0.1 only
        fake[1]["fack_first"] = False
        assert len(flags(fake)) == 1
        table.design = t4.FULL
        assert len(flags(fake)) == 2  # the full design checks 0.033 and 0.1
    finally:
        t4.Table4.ordering = saved
