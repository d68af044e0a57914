"""tcplab.run and `tcplab run`: the Python API, the CLI, overrides, traces, determinism."""

from __future__ import annotations

import json
import math

import polars as pl
import pytest

import tcplab
from tcplab import _core

ONE_HOP = """
duration = "20s"
warmup = "5s"
[network.path]
hops = [{ rate = "10Mbit/s", delay = "20ms", queue = { limit = 30 } }]
[[flows]]
tcp = "reno"
"""


def test_run_returns_polars_tables_with_the_documented_columns():
    r = tcplab.run(ONE_HOP)
    assert isinstance(r.flows, pl.DataFrame) and isinstance(r.links, pl.DataFrame)
    for col in [
        "goodput_bps",
        "mean_rtt_s",
        "mss_bytes",
        "segments_sent",
        "segments_retransmitted",
        "ca_events",
        "timeouts",
        "other_losses",
        "loss_events",
        "p",
    ]:
        assert col in r.flows.columns
    f = r.flows.row(0, named=True)
    # A single Reno flow fills a 10 Mbit/s link: goodput = payload share of the line rate.
    assert 0.9 * 10e6 * 1460 / 1500 < f["goodput_bps"] <= 10e6 * 1460 / 1500
    links = {k["link"]: k for k in r.links.iter_rows(named=True)}
    assert links["hop0.fwd"]["utilization"] > 0.95
    assert links["hop0.fwd"]["drops_queue"] > 0  # drop-tail overflow drives the CA cycle


def test_dict_scenarios_and_overrides_by_keyword_and_by_path():
    import tomllib

    doc = tomllib.loads(ONE_HOP)
    a = tcplab.run(doc, flows__0__tcp="tahoe", seed=3)
    b = tcplab.run(ONE_HOP, sets={"flows.0.tcp": "tahoe", "seed": 3})
    assert a.flows["tcp"][0] == "tahoe"
    assert a.to_json() == b.to_json()
    resolved = tcplab.resolve(ONE_HOP, sets={"flows.0.mss": 536})
    assert resolved["flows"][0]["mss"] == 536
    assert resolved["flows"][0]["ack"] == "delayed"  # defaults are filled in


def test_a_flows_count_runs_that_many_flows_and_resolves_compactly():
    from tcplab.simulation import flow_specs

    r = tcplab.run(ONE_HOP, flows__0__count=3, duration="5s", warmup="1s")
    assert r.flows["flow"].to_list() == [0, 1, 2]
    resolved = tcplab.resolve(ONE_HOP, flows__0__count=3)
    assert len(resolved["flows"]) == 1 and resolved["flows"][0]["count"] == 3
    assert len(flow_specs(resolved)) == 3
    # count = 1 is left out of the resolved scenario, so run keys are what they were before.
    assert "count" not in tcplab.resolve(ONE_HOP)["flows"][0]
    with pytest.raises(tcplab.ScenarioError, match=r"^flows: every \[\[flows\]\] table has count = 0"):
        tcplab.run(ONE_HOP, flows__0__count=0)


def test_same_seed_same_bytes_different_seed_different_losses():
    lossy = ONE_HOP.replace("limit = 30 }", 'limit = 30 }, loss = { model = "bernoulli", p = "1%" }')
    assert tcplab.run(lossy, seed=5).to_json() == tcplab.run(lossy, seed=5).to_json()
    assert tcplab.run(lossy, seed=5).to_json() != tcplab.run(lossy, seed=6).to_json()


def test_traces_are_opt_in_and_bounded():
    r = tcplab.run(ONE_HOP)
    assert r.trace("cwnd").height == 0
    r = tcplab.run(ONE_HOP, sets={"trace.cwnd": True, "trace.queue": True, "trace.max_points": 500})
    cw, q = r.trace("cwnd"), r.trace("queue")
    assert cw.columns == ["time_s", "time_ns", "flow", "cwnd_bytes", "ssthresh_bytes"]
    assert 0 < cw.height <= 500 and 0 < q.height <= 500
    assert r.truncated
    assert not tcplab.run(ONE_HOP, sets={"trace.cwnd": True}).truncated
    assert set(q["link_name"].unique()) <= {"hop0.fwd", "hop0.rev"}
    with pytest.raises(KeyError, match="cwnd"):
        r.trace("nope")


def test_predictions_use_table1_constants():
    r = tcplab.run(ONE_HOP, flows__0__ack="immediate")
    row = r.with_predictions().row(0, named=True)
    assert row["mathis_c"] == 1.22
    expected = row["mss_bytes"] * 8 / row["mean_rtt_s"] * 1.22 / math.sqrt(row["p"])
    assert row["mathis_bps"] == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"flows.0.mss": 0}, "flows[0].mss"),
        ({"flows.0.tcp": "cubic"}, "flows[0].tcp"),
        ({"network.path.hops.0.rate": 0}, "network.path.hops[0].rate"),
        ({"network.path.hops.0.delay": "-5ms"}, "network.path.hops[0].delay"),
        ({"network.path.hops.0.loss": {"model": "bernoulli", "p": 1.5}}, "network.path.hops[0].loss.p"),
        ({"flows.0.colour": "red"}, "flows[0].colour"),
        ({"warmup": "30s"}, "warmup"),
        ({"flows.3.tcp": "reno"}, "flows has 1 entries"),
    ],
)
def test_bad_input_is_a_scenario_error_naming_the_field(bad, field):
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(ONE_HOP, sets=bad)
    assert field in str(e.value)
    assert isinstance(e.value, ValueError)


def test_the_binding_parses_units_exactly_as_the_shared_vectors_say(root):
    vectors = json.loads((root / "tests/data/unit_vectors.json").read_text())
    for v in vectors:
        if v.get("error"):
            with pytest.raises(ValueError):
                _core.parse_quantity(v["kind"], v["text"])
        else:
            assert _core.parse_quantity(v["kind"], v["text"]) == pytest.approx(v["value"], rel=1e-12), v


def test_schema_is_json_schema_of_the_scenario(cli):
    out = cli("schema")
    assert out.returncode == 0
    schema = json.loads(out.stdout)
    assert {"duration", "network", "flows"} <= set(schema["properties"])


def test_cli_run_prints_the_tables_and_json(cli, root):
    out = cli("run", "scenarios/quickstart.toml", "--set", "duration=15s", "--set", "warmup=3s")
    assert out.returncode == 0, out.stderr
    assert "Flows" in out.stdout and "Mathis" in out.stdout and "hop1.fwd" in out.stdout
    out = cli("run", "scenarios/quickstart.toml", "--set", "duration=15s", "--json")
    doc = json.loads(out.stdout)
    assert {"flows", "links"} <= set(doc)
    assert doc["flows"][0]["tcp"] == "reno"


def test_cli_out_writes_parquet_and_nothing_on_error(cli, tmp_path):
    target = tmp_path / "r.parquet"
    ok = cli("run", "scenarios/quickstart.toml", "--set", "duration=15s", "--out", str(target))
    assert ok.returncode == 0, ok.stderr
    df = pl.read_parquet(target)
    assert df.height == 1 and "mathis_bps" in df.columns
    # a one-row results store: inputs, seed and links, like a sweep's rows
    assert {
        "run_key",
        "seed",
        "duration",
        "flows.0.mss",
        "network.path.hops.1.rate",
        "link.hop1.fwd.utilization",
        "events",
    } <= set(df.columns)
    assert df["seed"][0] == 1 and df["duration"][0] == 15.0
    assert (target.stat().st_mode & 0o777) == 0o666 & ~_umask()
    # One run's one flow is no fit: one line (issue #36), where query and plot read the store.
    r = cli("fit", str(target), "--min-ca-events", "0")
    assert r.returncode == 2 and r.stderr.startswith("error: 1 flow to fit"), r.stderr
    for args in (
        ["query", str(target), "SELECT seed FROM runs"],
        ["plot", str(target), "-o", str(tmp_path / "plots" / "f.png")],
    ):
        r = cli(*args)
        assert r.returncode == 0, (args, r.stderr)
    (tmp_path / "plots" / "f.png").unlink()
    (tmp_path / "plots").rmdir()
    bad = tmp_path / "bad.parquet"
    err = cli("run", "scenarios/quickstart.toml", "--set", "flows.0.mss=0", "--out", str(bad))
    assert err.returncode != 0
    assert list(tmp_path.iterdir()) == [target]  # no partial or temporary file left behind


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_cli_tables_fit_80_columns_when_piped(cli):
    import os
    import re
    import subprocess
    import sys

    from conftest import ROOT

    env = dict(os.environ)
    env.pop("COLUMNS", None)  # piped, no COLUMNS: rich's 80 columns, as in the `make run` log
    for scenario, sets in (
        ("quickstart.toml", ["--set", "duration=15s"]),
        ("dumbbell.toml", ["--set", "duration=25s"]),
    ):
        args = ["run", f"scenarios/{scenario}", *sets]
        r = subprocess.run(
            [sys.executable, "-m", "tcplab.cli", *args], capture_output=True, text=True, env=env, cwd=ROOT
        )
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert max(len(line) for line in lines) <= 80, r.stdout
        doc = json.loads(cli(*args, "--json").stdout)
        # every flow's losses (CA+nonCA+other) and the bottleneck's figures appear whole on one line
        for f in doc["flows"]:
            cell = f"{f['ca_events']}+{f['non_ca_events']}+{f['other_losses']}"
            assert any(re.search(rf"(^|\s){re.escape(cell)}(\s|$)", line) for line in lines), cell
        busiest = max(doc["links"], key=lambda k: k["packets_sent"])
        assert any(busiest["link"] in line and str(busiest["packets_sent"]) in line for line in lines)
        # headers are not split inside a word
        assert "packe" not in r.stdout.replace("packets", "")
    # a terminal narrower than the table: the rows are printed vertically, never cut
    env["COLUMNS"] = "50"
    r = subprocess.run(
        [sys.executable, "-m", "tcplab.cli", "run", "scenarios/dumbbell.toml", "--set", "duration=25s"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert max(len(line) for line in r.stdout.splitlines()) <= 50
    assert "bottleneck.fwd" in r.stdout and "…" not in r.stdout
    wide = cli("run", "scenarios/dumbbell.toml", "--set", "duration=25s", "--wide")
    assert "mean cwnd" in wide.stdout and "mean cwnd" not in r.stdout


def test_cli_version_stdin_and_check(cli, root, tmp_path):
    import subprocess
    import sys

    r = cli("--version")
    assert r.returncode == 0 and r.stdout == f"tcplab {tcplab.__version__}\n"
    text = (root / "scenarios" / "quickstart.toml").read_text()
    r = subprocess.run(
        [sys.executable, "-m", "tcplab.cli", "run", "-", "--set", "duration=12s", "--json"],
        input=text,
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["duration_s"] == 12.0
    r = subprocess.run(
        [sys.executable, "-m", "tcplab.cli", "run", "-"], input="", capture_output=True, text=True
    )
    assert (
        r.returncode == 2
        and r.stderr == "error: <stdin>: no scenario on standard input (expected TOML text)\n"
    )
    r = subprocess.run(
        [sys.executable, "-m", "tcplab.cli", "run", "-", "--set", "flows.0.mss=0"],
        input=text,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stderr.startswith("error: <stdin>: flows[0].mss")
    r = cli("check", "scenarios/quickstart.toml")
    assert (
        r.returncode == 0
        and r.stdout == "scenarios/quickstart.toml: a valid scenario (1 flow, 60 s, seed 1)\n"
    )
    r = cli("check", "sweeps/mathis-table4-quick.toml")
    assert r.returncode == 0 and "a valid sweep of" in r.stdout
    r = cli("check", "scenarios/quickstart.toml", "--set", "flows.0.tcp=vegas")
    assert r.returncode == 2 and "flows[0].tcp" in r.stderr and r.stderr.count("\n") == 1
    bad = tmp_path / "bad-sweep.toml"
    bad.write_text('[sweep]\nbase = "x.toml"\n[[axis]]\npath = "seed"\nvalues = [1]\n')
    r = cli("check", str(bad))
    assert r.returncode == 2 and "sweep.base: cannot read" in r.stderr and r.stderr.count("\n") == 1
    r = cli("check", str(tmp_path / "missing.toml"))
    assert r.returncode == 2 and "no such scenario or sweep file" in r.stderr


BAD_CLI = [
    (["--set", "flows.0.colour=red"], "flows[0].colour"),
    (["--set", "network.path.hops.1.loss={model='bernoulli', p=1.5}"], "network.path.hops[1].loss.p"),
    (["--set", "network.path.hops.0.delay=-1ms"], "network.path.hops[0].delay"),
    (["--set", "network.path.hops.1.rate=0"], "network.path.hops[1].rate"),
    (["--set", "flows.0.tcp=vegas"], "flows[0].tcp"),
    (["--set", "nonsense"], "--set"),
]


@pytest.mark.parametrize("args, field", BAD_CLI)
def test_cli_bad_input_is_one_clear_line(cli, args, field):
    out = cli("run", "scenarios/quickstart.toml", *args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("error:") and field in lines[0]
    assert "Traceback" not in out.stderr and "panicked" not in out.stderr


def test_cli_malformed_toml_and_missing_file(cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('duration = "10s"\n[network.path\n')
    out = cli("run", str(bad))
    assert out.returncode == 2 and "malformed TOML: line 2" in out.stderr
    out = cli("run", str(tmp_path / "missing.toml"))
    assert out.returncode == 2 and "no such scenario file" in out.stderr
    assert "Traceback" not in out.stderr


def test_background_traffic_is_reported_per_group(root):
    r = tcplab.run(root / "scenarios/parvez-background.toml", duration="20s", warmup="5s")
    t = r.traffic
    assert set(t["name"]) == {"http", "ftp"}
    assert dict(zip(t["name"], t["sources"], strict=True)) == {"http": 75, "ftp": 25}
    assert (t["goodput_bps"] > 0).all()
    assert r.flows.height == 2  # foreground flows one by one, background in aggregate
    assert tcplab.run(ONE_HOP).traffic.is_empty()


def test_flow_start_windows_draw_per_flow_and_deterministically():
    two = ONE_HOP + '[[flows]]\ntcp = "reno"\n'
    sets = {"flows.0.start": ["1s", "3s"], "flows.1.start": ["1s", "3s"], "trace.cwnd": True}
    r = tcplab.run(two, sets=sets)
    first = r.trace("cwnd").group_by("flow").agg(pl.col("time_s").min()).sort("flow")["time_s"].to_list()
    assert all(1.0 <= t <= 3.0 for t in first) and first[0] != first[1]
    assert tcplab.run(two, sets=sets).to_json() == r.to_json()
    # A flow's draw does not depend on the other flows (its own stream, "flow:<i>:start").
    alone = tcplab.run(ONE_HOP, sets={"flows.0.start": ["1s", "3s"], "trace.cwnd": True})
    assert alone.trace("cwnd")["time_s"].min() == first[0]
    with pytest.raises(tcplab.ScenarioError, match=r"flows\[0\]\.start"):
        tcplab.run(ONE_HOP, sets={"flows.0.start": ["3s", "1s"]})


NS2_LOSSY = """
duration = "120s"
warmup = "10s"
[network.path]
hops = [{ rate = "100Mbit/s", delay = "30ms", queue = { limit = 10000 }, loss = { model = "bernoulli", p = "%s" } }]
[[flows]]
profile = "ns2"
tcp = "%s"
ack = "immediate"
mss = 1000
rwnd = "1MB"
"""


@pytest.mark.parametrize("tcp", ["reno", "sack"])
def test_ns2_flows_carry_mathis_instruments(tcp):
    """The ns-2 agents report through the same instruments as the native senders: mean RTT,
    mean window, CA events and p are there, so the Mathis prediction works on them."""
    r = tcplab.run(NS2_LOSSY % ("1%", tcp))
    f = r.with_predictions().row(0, named=True)
    assert 0.06 <= f["mean_rtt_s"] < 0.07  # 60 ms propagation, no queue
    assert f["mean_cwnd_bytes"] > 2000 and f["ca_events"] >= 20
    assert f["p"] == pytest.approx(f["ca_events"] * f["mss_bytes"] / f["bytes_acked"], rel=1e-12)
    assert math.isfinite(f["mathis_bps"]) and f["mathis_bps"] > 0


def test_ns2_and_native_sack_agree_on_the_instruments_and_the_fit():
    """Same path, same loss rates: ns-2's Sack1 agent and the native SACK sender measure p
    within 15% of each other at each rate (seen: within 6%), and `fit` uses every ns2 run
    (before, their p was 0 and the fit excluded them) with C within 10% (seen: 3%)."""
    from tcplab.fit import fit

    frames = {}
    for profile in ('profile = "ns2"\n', ""):
        rows = [
            tcplab.run((NS2_LOSSY % (p, "sack")).replace('profile = "ns2"\n', profile)).flows
            for p in ("0.5%", "1%", "2%")
        ]
        frames[profile or "native"] = pl.concat(rows)
    ns2, native = frames['profile = "ns2"\n'], frames["native"]
    for a, b in zip(ns2.get_column("p"), native.get_column("p"), strict=True):
        assert a == pytest.approx(b, rel=0.15)
    fits = {
        k: fit(v, by=["tcp"], include_timeouts=True)[0].row(0, named=True)
        for k, v in (("ns2", ns2), ("native", native))
    }
    assert fits["ns2"]["n"] == 3 and fits["ns2"]["excluded_invalid"] == 0
    assert fits["ns2"]["c_half"] == pytest.approx(fits["native"]["c_half"], rel=0.10)


def test_a_result_shows_its_figures_in_a_repl_and_in_jupyter():
    r = tcplab.run(ONE_HOP, duration="8s", warmup="2s")
    text = repr(r)
    lines = text.splitlines()
    assert lines[0] == (
        f"RunResult: 8 s simulated (measured from 2 s), seed {r.seed}, {r.events:,} events, "
        "1 flow, 2 link directions"
    )
    f = r.flows.row(0, named=True)
    assert lines[1].startswith(f"  flow 0 reno/{f['ack']}: goodput {f['goodput_bps'] / 1e6:.3f} Mbit/s")
    html = r._repr_html_()
    assert html.startswith("<p><b>RunResult: 8 s simulated") and "Mathis Mbit/s" in html and "<table" in html
