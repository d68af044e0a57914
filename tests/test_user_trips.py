"""What a new user tripped over (issue #16): numbers over an empty or short measurement window,
a finite transfer's own rate, the usable window beside cwnd, values the core cannot represent,
bare numbers where a unit was forgotten, budgets, unreadable files, Ctrl-C."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tcplab

PATH = """
name = "trips"
seed = 1
duration = "%s"
warmup = "%s"
[network.path]
hops = [ { rate = "100Mbit/s", delay = "1ms", queue = { limit = 1000 } },
         { rate = "10Mbit/s", delay = "24ms", queue = { limit = 42 } } ]
"""
TCLI = [sys.executable, "-m", "tcplab.cli"]


def test_a_run_that_ends_before_warmup_has_an_empty_window_and_says_so():
    with pytest.warns(tcplab.RunWarning, match="measurement window is empty"):
        r = tcplab.run(PATH % ("150s", "10s") + '[[flows]]\ntcp = "reno"\nbytes = "1MB"\n')
    assert r.duration_s < 10 and r.window_s == 0.0
    f = r.flows.row(0, named=True)
    assert math.isnan(f["goodput_bps"]) and math.isnan(f["active_goodput_bps"]) and f["bytes_delivered"] == 0
    assert all(math.isnan(u) for u in r.links["utilization"])
    assert len(r.warnings) == 1 and "measurement window is empty" in r.warnings[0]
    doc = json.loads(r.to_json())  # still JSON: NaN is null
    assert doc["flows"][0]["goodput_bps"] is None and doc["warnings"] == r.warnings


def test_a_finite_transfer_reports_its_own_rate_beside_the_window_rate():
    text = PATH % ("150s", "10s") + '[[flows]]\ntcp = "reno"\nbytes = "20MB"\n[[flows]]\ntcp = "reno"\n'
    r = tcplab.run(text)
    done, endless = r.flows.row(0, named=True), r.flows.row(1, named=True)
    assert done["completion_time_s"] is not None and done["completion_time_s"] < 100
    assert done["active_s"] == pytest.approx(done["completion_time_s"] - 10, abs=1e-9)
    assert done["active_goodput_bps"] == pytest.approx(done["bytes_delivered"] * 8 / done["active_s"])
    assert done["goodput_bps"] == pytest.approx(done["bytes_delivered"] * 8 / 140)
    assert done["active_goodput_bps"] > 1.5 * done["goodput_bps"]
    assert (
        endless["active_s"] == pytest.approx(140) and endless["active_goodput_bps"] == endless["goodput_bps"]
    )
    assert r.warnings == []


def test_the_usable_window_is_capped_by_the_receive_window_and_acked_bytes_are_whole():
    r = tcplab.run(PATH % ("30s", "5s") + '[[flows]]\ntcp = "reno"\nrwnd = "16KiB"\n')
    f = r.flows.row(0, named=True)
    assert f["mean_window_bytes"] == pytest.approx(16384, rel=1e-6)
    assert f["mean_cwnd_bytes"] > 10 * 16384  # cwnd keeps growing past the receive window
    assert isinstance(f["bytes_acked"], int) and f["bytes_acked"] % f["mss_bytes"] == 0


def test_a_run_too_short_for_an_rtt_sample_warns_instead_of_failing(tmp_path: Path):
    text = PATH % ("40ms", "0s") + '[[flows]]\ntcp = "reno"\n'
    with pytest.warns(tcplab.RunWarning, match="no RTT sample"):
        r = tcplab.run(text)
    assert any("no RTT sample" in w for w in r.warnings)
    scenario = tmp_path / "short.toml"
    scenario.write_text(text)
    out = subprocess.run([*TCLI, "run", str(scenario)], capture_output=True, text=True)
    assert out.returncode == 0 and "warning:" in out.stdout and "Traceback" not in out.stderr


@pytest.mark.parametrize(
    "key, value, field, expected",
    [
        ("network.path.hops.1.rate", 1e30, "network.path.hops[1].rate", "at most 1e13 bit/s"),
        ("network.path.hops.1.delay", 1e12, "network.path.hops[1].delay", "at most 1e9 s"),
        ("duration", 1e15, "duration", "at most 1e9 s"),
        ("network.path.hops.1.rate", 10, "network.path.hops[1].rate", "write the unit"),
        ("network.path.hops.1.rate", "10", "network.path.hops[1].rate", "write the unit"),
        ("network.path.hops.1.queue.limit", 10**12, "network.path.hops[1].queue.limit", "1 to 10000000"),
        (
            "network.path.hops.1.queue",
            {"limit_bytes": "100GB"},
            "network.path.hops[1].queue.limit_bytes",
            "at most",
        ),
        ("trace.max_points", 10**12, "trace.max_points", "1 to 50000000"),
        ("trace.links", ["nonexistent"], "trace.links[0]", "expected one of hop0.fwd"),
    ],
)
def test_values_past_the_core_or_a_forgotten_unit_are_refused(key, value, field, expected):
    text = PATH % ("10s", "1s") + '[[flows]]\ntcp = "reno"\n'
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(text, sets={key: value})
    assert str(e.value).startswith(field + ":") and expected in str(e.value)


def test_a_bare_rate_is_still_si_when_plausible_and_an_explicit_unit_is_taken_at_its_word():
    text = PATH % ("2s", "1s") + '[[flows]]\ntcp = "reno"\n'
    assert (
        tcplab.resolve(text, sets={"network.path.hops.1.rate": 2_000_000})["network"]["path"]["hops"][1][
            "rate"
        ]
        == 2_000_000
    )
    assert (
        tcplab.resolve(text, sets={"network.path.hops.1.rate": "9600bit/s"})["network"]["path"]["hops"][1][
            "rate"
        ]
        == 9600
    )


def test_connection_budget_is_checked_before_anything_is_built():
    text = PATH % ("10s", "1s") + '[[flows]]\ntcp = "reno"\n[[traffic]]\nkind = "ftp"\ncount = 1000000000\n'
    start = time.monotonic()
    with pytest.raises(tcplab.ScenarioError, match=r"connections .* \(expected at most 1000000\)"):
        tcplab.run(text)
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("content", [b'name = "x"\xff\xfe', "name = 'x'\n".encode("utf-16")])
def test_a_scenario_that_is_not_utf8_is_one_error_line(tmp_path: Path, content: bytes):
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    with pytest.raises(tcplab.ScenarioError, match="not UTF-8 text"):
        tcplab.run(path)
    out = subprocess.run([*TCLI, "run", str(path)], capture_output=True, text=True)
    assert out.returncode == 2 and out.stderr.startswith("error: ") and "Traceback" not in out.stderr


def test_an_output_path_that_cannot_be_written_is_one_error_line(tmp_path: Path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(PATH % ("2s", "1s") + '[[flows]]\ntcp = "reno"\n')
    blocker = tmp_path / "file"
    blocker.write_text("")
    out = subprocess.run(
        [*TCLI, "run", str(scenario), "--out", str(blocker / "sub" / "r.parquet")],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "cannot write here" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.skipif(os.name != "posix", reason="SIGINT")
def test_ctrl_c_stops_a_long_run_from_the_cli(tmp_path: Path):
    scenario = tmp_path / "long.toml"
    scenario.write_text(PATH % ("100000s", "1s") + '[[flows]]\ntcp = "reno"\n')
    p = subprocess.Popen(
        [*TCLI, "run", str(scenario)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    time.sleep(3)  # past imports and into the simulation
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail("the run did not stop on SIGINT")
    assert p.returncode == 130 and "interrupted" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "args, expected",
    [
        (["mathis", "--rtt", "100ms", "--loss", "20%"], ["below 4"]),
        (["mathis", "--rtt", "100ms", "--inverse", "--rate", "100kbit/s"], ["below 4"]),
        (["newreno", "--rtt", "100ms", "--loss", "1%", "--q", "0.39"], ["not small", "exceeds NoTO"]),
        (["mathis", "--rtt", "100ms", "--loss", "1%"], []),
        (["newreno", "--rtt", "100ms", "--loss", "1%"], []),
    ],
)
def test_models_outside_their_stated_domain_say_so(args, expected):
    out = subprocess.run([*TCLI, "model", *args, "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    warnings = json.loads(out.stdout)["warnings"]
    assert len(warnings) == len(expected) and all(e in w for e, w in zip(expected, warnings, strict=True))
    table = subprocess.run([*TCLI, "model", *args], capture_output=True, text=True)
    assert table.stderr.count("warning: ") == len(expected)


def test_ns2ref_without_its_reference_folder_is_one_error_line():
    env = {**os.environ, "NS2_TCPVARIANTS": "/nonexistent"}
    out = subprocess.run([sys.executable, "-m", "tcplab.ns2ref"], capture_output=True, text=True, env=env)
    assert out.returncode == 2 and out.stderr.startswith("error: no ns-2 tcpVariants reference")
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("address", ["nonsense", "tcp://bad host:zz", "tcp://127.0.0.1:99999"])
def test_a_malformed_scheduler_address_is_refused_before_anything_starts(tmp_path: Path, address: str):
    sweep = Path(__file__).resolve().parents[1] / "sweeps" / "bench-500.toml"
    store = tmp_path / "s.parquet"
    out = subprocess.run(
        [*TCLI, "sweep", str(sweep), "-o", str(store), "--scheduler", address],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "not a scheduler address" in out.stderr and "Traceback" not in out.stderr
    assert not store.exists()


@pytest.mark.parametrize(
    "edit", [("replicates = 2", "replicates = 1000000000"), ("count = 250", "count = 1000000000")]
)
def test_a_sweep_too_large_to_expand_is_refused_up_front(tmp_path: Path, edit):
    text = (Path(__file__).resolve().parents[1] / "sweeps" / "bench-500.toml").read_text().replace(*edit)
    text = text.replace('"../scenarios/', '"' + str(Path(__file__).resolve().parents[1] / "scenarios") + "/")
    path = tmp_path / "big.toml"
    path.write_text(text)
    start = time.monotonic()
    out = subprocess.run(
        [*TCLI, "sweep", str(path), "-o", str(tmp_path / "s.parquet"), "--dry-run"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "runs (expected at most 1,000,000" in out.stderr
    assert time.monotonic() - start < 30


@pytest.mark.parametrize(
    "args, flag",
    [
        (["mathis", "--rtt", "100", "--loss", "1%"], "--rtt"),
        (
            [
                "multibottleneck",
                "--mu",
                "1.5",
                "--rtt",
                "560ms",
                "--b",
                "20",
                "--mu-prime",
                "1.8Mbit/s",
                "--b-prime",
                "15",
            ],
            "--mu",
        ),
        (["jacobson", "--loss", "1%", "--window", "8", "--samples", "0.1,0.12"], "--samples"),
    ],
)
def test_model_durations_and_rates_take_their_unit_on_the_command_line(args, flag):
    out = subprocess.run([*TCLI, "model", *args], capture_output=True, text=True)
    assert out.returncode == 2 and out.stderr.startswith(f"error: {flag}:") and "has no unit" in out.stderr


def test_the_packaged_data_dictionary_is_the_docs():
    from tcplab import columns

    assert json.loads(columns.FILE.read_text()) == columns.from_docs(columns.DOC.read_text()), (
        "python/tcplab/columns.json is stale: python -m tcplab.columns"
    )


def test_result_files_carry_the_version_and_the_meaning_of_every_column(tmp_path: Path):
    import pyarrow.parquet as pq

    scenario = tmp_path / "s.toml"
    scenario.write_text(PATH % ("3s", "1s") + '[[flows]]\ntcp = "reno"\n')
    out = tmp_path / "r.parquet"
    run = subprocess.run([*TCLI, "run", str(scenario), "--out", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    meta = pq.read_metadata(out).metadata
    assert meta[b"tcplab.version"] == tcplab.__version__.encode()
    described = json.loads(meta[b"tcplab.columns"])
    assert set(described) == set(pq.read_schema(out).names)
    assert described["goodput_bps"]["unit"] == "bit/s"
    assert described["link.hop1.fwd.utilization"]["meaning"].startswith("fraction of the window")
    assert described["network.path.hops.0.rate"]["unit"] == "SI"
