"""The Table 4 fit on synthetic data with known C and k, the t quantile, p selection and binning."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from tcplab import fit as F


def synthetic(
    c: float, k: float, n: int = 400, noise: float = 0.05, seed: int = 1, mss: int = 1460
) -> pl.DataFrame:
    """Flows with window = BW*RTT/MSS = c p^k exactly (noise = 0) or with lognormal noise."""
    rng = np.random.default_rng(seed)
    p = np.exp(rng.uniform(math.log(1e-4), math.log(0.1), n))
    rtt = rng.uniform(0.01, 0.6, n)
    window = c * p**k * np.exp(rng.normal(0.0, noise, n))
    goodput_bps = window * mss / rtt * 8.0
    return pl.DataFrame(
        {
            "tcp": "reno",
            "ack": "delayed",
            "flow": 0,
            "mss_bytes": mss,
            "goodput_bps": goodput_bps,
            "mean_rtt_s": rtt,
            "timeouts": 0,
            "ca_events": 60,
            "non_ca_events": 0,
            "p": p,
            "network.path.hops.0.loss.p": p,
            "network.path.hops.0.loss.model": "bernoulli",
        }
    )


@pytest.mark.parametrize(
    "q, df, expected",
    [
        (0.975, 1, 12.706204736),
        (0.975, 2, 4.302652730),
        (0.975, 10, 2.228138852),
        (0.995, 5, 4.032142984),
        (0.975, 1000, 1.962339),
        (0.9, 3, 1.637744354),
        (0.025, 10, -2.228138852),
    ],
)
def test_t_quantile_matches_tables(q, df, expected):
    assert F.t_quantile(q, df) == pytest.approx(expected, rel=1e-7)


def test_exact_data_gives_exact_c_and_k():
    table, source = F.fit(synthetic(0.75, -0.52, noise=0.0))
    row = table.row(0, named=True)
    assert source.startswith("configured")
    assert (
        row["n"] == 400
        and row["k"] == pytest.approx(-0.52, abs=1e-12)
        and row["c"] == pytest.approx(0.75, rel=1e-10)
    )
    assert row["r2"] == pytest.approx(1.0)
    exact = synthetic(0.93, -0.5, noise=0.0)
    row = F.fit(exact)[0].row(0, named=True)
    assert row["c_half"] == pytest.approx(0.93, rel=1e-12)


def test_noisy_data_intervals_cover_the_truth_at_the_stated_rate():
    covered_k = covered_c = covered_half = 0
    trials = 200
    for seed in range(trials):
        row = F.fit(synthetic(1.1, -0.53, n=12, noise=0.1, seed=seed))[0].row(0, named=True)
        covered_k += row["k_lo"] <= -0.53 <= row["k_hi"]
        covered_c += row["c_lo"] <= 1.1 <= row["c_hi"]
        h = F.fit(synthetic(1.1, -0.5, n=12, noise=0.1, seed=seed))[0].row(0, named=True)
        covered_half += h["c_half_lo"] <= 1.1 <= h["c_half_hi"]
    for covered in (covered_k, covered_c, covered_half):
        assert 0.9 * trials <= covered <= 0.99 * trials  # 95% intervals: 190 expected


def test_groups_timeouts_and_invalid_rows():
    a = synthetic(0.9, -0.5, n=50, noise=0.0)
    b = synthetic(1.3, -0.55, n=30, noise=0.0).with_columns(pl.lit("tahoe").alias("tcp"))
    bad = a.head(5).with_columns(timeouts=pl.lit(3), goodput_bps=pl.lit(1.0))  # would spoil the fit
    zero = a.head(2).with_columns(goodput_bps=pl.lit(0.0))
    df = pl.concat([a, b, bad, zero])
    table, _ = F.fit(df, by=["tcp"])
    rows = {r["tcp"]: r for r in table.iter_rows(named=True)}
    assert (
        rows["reno"]["n"] == 50
        and rows["reno"]["excluded_timeouts"] == 5
        and rows["reno"]["excluded_invalid"] == 2
    )
    assert rows["reno"]["c"] == pytest.approx(0.9) and rows["tahoe"]["k"] == pytest.approx(-0.55)
    with_to = F.fit(df, by=["tcp"], include_timeouts=True)[0].row(0, named=True)
    assert with_to["n"] == 55 and with_to["c"] != pytest.approx(0.9)
    with pytest.raises(F.FitError, match="--by colour: no such column"):
        F.fit(df, by=["colour"])


def test_flows_with_few_ca_events_are_left_out_and_counted():
    ok = synthetic(0.9, -0.5, n=40, noise=0.0)
    young = synthetic(3.0, -0.3, n=7, noise=0.0, seed=2).with_columns(
        ca_events=pl.lit(3)
    )  # would spoil the fit
    df = pl.concat([ok, young])
    row = F.fit(df)[0].row(0, named=True)
    assert F.MIN_CA_EVENTS == 50
    assert row["n"] == 40 and row["excluded_few_ca"] == 7 and row["c"] == pytest.approx(0.9)
    row = F.fit(df, min_ca_events=0)[0].row(0, named=True)
    assert row["n"] == 47 and row["excluded_few_ca"] == 0 and row["c"] != pytest.approx(0.9)
    row = F.fit(df.with_columns(ca_events=pl.lit(50)))[0].row(0, named=True)
    assert row["n"] == 47  # the minimum itself is enough
    with pytest.raises(F.FitError, match="--min-ca-events"):
        F.fit(df, min_ca_events=-1)


def test_which_p():
    df = synthetic(1.0, -0.5, n=10, noise=0.0).with_columns((pl.col("p") * 0.5).alias("p"))
    conf, src = F.p_values(df, "auto")
    assert src.startswith("configured") and conf.to_list() == df["network.path.hops.0.loss.p"].to_list()
    meas, src = F.p_values(df, "measured")
    assert src.startswith("measured") and meas.to_list() == df["p"].to_list()
    col, src = F.p_values(df.with_columns(loss_event_rate=pl.lit(0.2)), "loss_event_rate")
    assert set(col) == {0.2} and src == "column loss_event_rate"
    # no configured loss (e.g. a drop-tail dumbbell): auto falls back to measured, configured is an error
    plain = df.drop("network.path.hops.0.loss.p", "network.path.hops.0.loss.model")
    assert F.p_values(plain, "auto")[1].startswith("measured")
    with pytest.raises(F.FitError, match="no configured loss probability"):
        F.p_values(plain, "configured")
    with pytest.raises(F.FitError, match="--p nope: no column 'nope'"):
        F.p_values(df, "nope")
    # two lossy hops combine as 1 - (1 - p0)(1 - p1); a hop without a loss model adds nothing
    two = pl.DataFrame(
        {
            "network.path.hops.0.loss.p": [0.1],
            "network.path.hops.0.loss.model": ["bernoulli"],
            "network.path.hops.1.loss.p": [0.2],
            "network.path.hops.1.loss.model": ["bernoulli"],
            "network.path.hops.2.loss.p": [None],
            "network.path.hops.2.loss.model": [None],
            "network.path.hops.3.loss.n": [4],
            "network.path.hops.3.loss.p": [None],
            "network.path.hops.3.loss.model": ["periodic"],
            "p": [0.5],
        }
    )
    assert F.p_values(two, "configured")[0][0] == pytest.approx(1 - 0.9 * 0.8 * 0.75)


def test_ca_proportion_bins_in_log_p_and_pools_events():
    df = pl.DataFrame(
        {
            "tcp": "reno",
            "ack": "delayed",
            "p": [0.01, 0.0125, 0.008, 0.0126, 0.033, 0.1, 0.2],
            "ca_events": [90, 80, 10, 1000, 5, 1, 7],
            "non_ca_events": [10, 20, 0, 1000, 5, 3, 7],
        }
    )
    table, src = F.ca_proportion(df, p="measured", at=[0.01, 0.033, 0.1, 0.001], width=0.1)
    rows = {r["p"]: r for r in table.iter_rows(named=True)}
    # 0.0126 is 0.1004 decades above 0.01: outside; 0.0125 (0.097) and 0.008 (0.097) inside
    assert rows[0.01]["runs"] == 3 and rows[0.01]["ca_events"] == 180 and rows[0.01]["non_ca_events"] == 30
    assert rows[0.01]["proportion"] == pytest.approx(180 / 210)
    assert rows[0.01]["lo"] < rows[0.01]["proportion"] < rows[0.01]["hi"]
    assert rows[0.033]["proportion"] == 0.5 and rows[0.1]["proportion"] == 0.25
    assert rows[0.001]["runs"] == 0 and math.isnan(rows[0.001]["proportion"])
    with pytest.raises(F.FitError, match="--bin-width"):
        F.ca_proportion(df, p="measured", width=0)


def _narrow() -> dict:
    import os

    env = dict(os.environ)
    env.pop("COLUMNS", None)  # piped: rich's default of 80 columns
    return env


def test_cli_fit_json_and_errors(tmp_path):
    import json
    import subprocess
    import sys

    store = tmp_path / "s.parquet"
    store.mkdir()
    synthetic(0.8, -0.51, n=40, noise=0.02).with_columns(run_key=pl.lit("k")).write_parquet(
        store / "part-x.parquet"
    )
    tcplab = [sys.executable, "-m", "tcplab.cli"]
    r = subprocess.run([*tcplab, "fit", store, "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["fit"][0]["n"] == 40 and out["fit"][0]["k"] == pytest.approx(-0.51, abs=0.02)
    assert [row["p"] for row in out["ca_proportion"]] == [0.01, 0.033, 0.1]
    young = synthetic(0.8, -0.51, n=4).with_columns(run_key=pl.lit("y"), ca_events=pl.lit(2), p=pl.lit(0.5))
    young.write_parquet(store / "part-y.parquet")
    r = subprocess.run([*tcplab, "fit", store], capture_output=True, text=True, env=_narrow())
    assert r.returncode == 0, r.stderr
    assert "4 flows with fewer than 50 CA events left out" in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    r = subprocess.run(
        [*tcplab, "fit", store, "--json", "--min-ca-events", "0", "--by", ""], capture_output=True, text=True
    )
    out = json.loads(r.stdout)
    assert out["fit"][0]["n"] == 44 and out["min_ca_events"] == 0
    # NaN (no interval of k from two flows) is null, never the non-JSON NaN
    two = tmp_path / "two.parquet"
    synthetic(0.8, -0.51, n=2).with_columns(run_key=pl.lit("k")).write_parquet(two)
    r = subprocess.run([*tcplab, "fit", two, "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "NaN" not in r.stdout and "Infinity" not in r.stdout
    row = json.loads(r.stdout)["fit"][0]
    assert row["n"] == 2 and row["k_lo"] is None and row["c_lo"] is None
    # One flow is no fit: refused (tests/test_reliability.py)
    one = tmp_path / "one.parquet"
    synthetic(0.8, -0.51, n=1).with_columns(run_key=pl.lit("k")).write_parquet(one)
    r = subprocess.run([*tcplab, "fit", one, "--json"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("error: 1 flow to fit")
    r = subprocess.run(
        [*tcplab, "fit", store, "--p", "configured", "--by", "colour"], capture_output=True, text=True
    )
    assert (
        r.returncode == 2
        and r.stderr == "error: --by colour: no such column (columns include tcp, ack, flows.0.mss, ...)\n"
    )
    r = subprocess.run([*tcplab, "fit", tmp_path / "missing.parquet"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "no such results store" in r.stderr
