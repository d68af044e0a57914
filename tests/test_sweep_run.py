"""Running sweeps: rows, determinism, resume after a kill or Ctrl-C, and the example sweeps."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tcplab import results
from tcplab import sweep as sw

ROOT = Path(__file__).resolve().parents[1]
TCPLAB = Path(sys.executable).with_name("tcplab")
BASE = (ROOT / "scenarios" / "queueless-random-loss.toml").as_posix()

SMALL = f"""
[sweep]
name = "small"
seed = 3
base = "{BASE}"
replicates = 2
[set]
duration = "8s"
warmup = "1s"
[[axis]]
zip = {{ "flows.0.tcp" = ["reno", "tahoe"], "flows.0.ack" = ["delayed", "immediate"] }}
[[axis]]
path = "network.path.hops.0.loss.p"
log_uniform = [1e-3, 0.1]
count = 3
"""


def small(tmp_path: Path) -> Path:
    f = tmp_path / "small.toml"
    f.write_text(SMALL)
    return f


def test_rows_hold_every_input_and_output(tmp_path):
    spec = sw.load(small(tmp_path))
    out = sw.run_sweep(spec, tmp_path / "runs.parquet", workers=2, progress=False)
    assert (out.total, out.done, out.skipped, out.failed, out.interrupted) == (12, 12, 0, {}, False)
    df = results.load(tmp_path / "runs.parquet")
    assert df.height == 12 and df["run_key"].n_unique() == 12
    assert set(df["run_key"]) == {r.key for r in spec.runs()}
    for col in (
        "seed",
        "duration",
        "flows.0.mss",
        "flows.0.tcp",
        "network.path.hops.0.loss.p",
        "network.path.hops.0.delay",
        "network.path.hops.0.rate",
        "flows.0.rwnd",
        "goodput_bps",
        "mean_rtt_s",
        "ca_events",
        "non_ca_events",
        "timeouts",
        "p",
        "mathis_bps",
        "events",
        "link.hop0.fwd.drops_loss",
        "link.hop0.rev.packets_sent",
    ):
        assert col in df.columns, col
    assert df.schema["duration"] == pl.Float64 and set(df["duration"]) == {8.0}  # seconds
    assert set(df["network.path.hops.0.delay"]) == {0.03}
    assert set(df["network.path.hops.0.rate"]) == {100_000_000}  # bit/s
    assert set(df["flows.0.mss"]) == {1460}
    assert df.schema["network.path.hops.0.loss.p"] == pl.Float64
    # the stored outputs are those of a direct run of the same scenario
    row = df.row(0, named=True)
    (run,) = [r for r in spec.runs() if r.key == row["run_key"]]
    direct = __import__("tcplab").run(BASE, run.sets).flows.row(0, named=True)
    assert {k: row[k] for k in direct} == direct
    # the zipped axis kept its pairs
    assert set(zip(df["flows.0.tcp"], df["flows.0.ack"], strict=True)) == {
        ("reno", "delayed"),
        ("tahoe", "immediate"),
    }


def test_same_sweep_gives_byte_identical_rows_and_a_rerun_skips(tmp_path):
    f = small(tmp_path)
    a = sw.run_sweep(sw.load(f), tmp_path / "a.parquet", workers=2, progress=False)
    b = sw.run_sweep(sw.load(f), tmp_path / "b.parquet", workers=1, progress=False)
    assert a.done == b.done == 12
    da, db = results.load(tmp_path / "a.parquet"), results.load(tmp_path / "b.parquet")
    assert_frame_equal(da, db, check_exact=True)
    assert da.hash_rows().to_list() == db.hash_rows().to_list()
    again = sw.run_sweep(sw.load(f), tmp_path / "a.parquet", workers=2, progress=False)
    assert (again.done, again.skipped) == (0, 12)
    assert_frame_equal(results.load(tmp_path / "a.parquet"), da, check_exact=True)


def test_query_runs_sql_over_the_store(tmp_path):
    sw.run_sweep(sw.load(small(tmp_path)), tmp_path / "runs.parquet", workers=2, progress=False)
    df = results.query(
        tmp_path / "runs.parquet",
        'SELECT "flows.0.tcp" AS tcp, count(*) AS n, count(DISTINCT seed) AS seeds FROM runs GROUP BY 1 ORDER BY 1',
    )
    assert df.to_dicts() == [{"tcp": "reno", "n": 6, "seeds": 2}, {"tcp": "tahoe", "n": 6, "seeds": 2}]
    r = subprocess.run(
        [TCPLAB, "query", tmp_path / "runs.parquet", "SELECT count(*) AS n FROM runs", "--format", "csv"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and r.stdout == "n\n12\n"
    r = subprocess.run(
        [TCPLAB, "query", tmp_path / "runs.parquet", "SELECT nope FROM runs"], capture_output=True, text=True
    )
    assert r.returncode == 2 and r.stderr.startswith("error: query: ") and "nope" in r.stderr
    assert "Traceback" not in r.stderr


SLOW = f"""
[sweep]
name = "slow"
base = "{BASE}"
[set]
duration = "180s"
warmup = "1s"
"network.path.hops.0.delay" = "2ms"
[[axis]]
path = "network.path.hops.0.loss.p"
values = [0.0002, 0.0003, 0.0004, 0.0005, 0.0006, 0.0007, 0.0008, 0.0009]
[[axis]]
path = "seed"
values = [1, 2, 3, 4, 5]
"""


def _start(sweep_file: Path, store: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [TCPLAB, "sweep", sweep_file, "--out", store, "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _wait_for_runs(proc: subprocess.Popen, store: Path, n: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if len(results.Store(store).keys()) >= n:
                return
        except (OSError, results.StoreError):  # not created yet, or a file compacted away as we read
            pass
        if proc.poll() is not None:
            pytest.fail(f"the sweep ended before it could be interrupted: {proc.communicate()}")
        time.sleep(0.05)
    pytest.fail(f"no {n} finished runs within {timeout}s")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)


@pytest.mark.parametrize("how", ["SIGKILL", "SIGINT"])
def test_a_killed_sweep_resumes_without_duplicates_or_gaps(tmp_path, how):
    f = tmp_path / "slow.toml"
    f.write_text(SLOW)
    store = tmp_path / "runs.parquet"
    plan = {r.key for r in sw.load(f).runs()}
    assert len(plan) == 40
    proc = _start(f, store)
    try:
        _wait_for_runs(proc, store, 4)
        os.killpg(proc.pid, getattr(signal, how))  # the whole session: parent and workers
        _, err = proc.communicate(timeout=60)
    finally:
        _stop(proc)
    if how == "SIGINT":  # Ctrl-C: a clean stop that compacts what finished and says how to resume
        assert proc.returncode == 130, err
        assert "stopped: re-run the same command to resume" in err and "Traceback" not in err
        assert not list(store.glob("run-*.parquet")) and len(list(store.glob("part-*.parquet"))) == 1
    else:
        assert proc.returncode == -signal.SIGKILL
    partial = results.load(store)  # whatever is there is readable, and complete runs only
    stored = set(partial["run_key"])
    assert 4 <= len(stored) < 40 and stored <= plan and partial.height == len(stored)
    r = subprocess.run(
        [TCPLAB, "sweep", f, "--out", store, "--workers", "2"], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    assert f"{len(stored)} already stored" in r.stderr
    final = results.load(store)
    assert final.height == 40 and final["run_key"].n_unique() == 40 and set(final["run_key"]) == plan
    assert not list(tmp_path.glob("runs.parquet/.*.tmp"))


def test_example_sweeps_run_shortened(tmp_path):
    """Every file in sweeps/ parses, validates, and runs (shortened: 3 s runs, a few points)."""
    files = sorted((ROOT / "sweeps").glob("*.toml"))
    assert files
    for f in files:
        spec = sw.load(f)
        full = spec.runs()
        assert len(full) >= 1
        spec.fixed.update({"duration": "3s", "warmup": "0.5s"})
        for i, axis in enumerate(spec.axes):
            if axis.random:
                spec.axes[i] = sw.Axis(
                    axis.label,
                    axis.kind,
                    axis.paths,
                    low=axis.low,
                    high=axis.high,
                    count=1,
                    per_point=False,
                    integer=axis.integer,
                    unit=axis.unit,
                )
            else:  # a zipped run length (duration, warmup) gives way to the short one
                keep = [j for j, path in enumerate(axis.paths) if path not in ("duration", "warmup")]
                spec.axes[i] = sw.Axis(
                    axis.label,
                    axis.kind,
                    tuple(axis.paths[j] for j in keep),
                    values=tuple(tuple(v[j] for j in keep) for v in axis.values[:2]),
                )
        out = sw.run_sweep(spec, tmp_path / f"{f.stem}.parquet", workers=2, progress=False)
        assert out.failed == {} and out.done == len(spec.runs()) >= 1, f


def test_run_sweep_from_a_script_without_a_main_guard(tmp_path):
    """A script (or notebook cell) that calls run_sweep at top level: the workers must not run it
    again (with spawn they would import it as __mp_main__ and start workers of their own)."""
    script = tmp_path / "unguarded.py"
    marks = tmp_path / "marks.txt"
    script.write_text(
        "from tcplab import sweep as sw\n"
        f"open({str(marks)!r}, 'a').write('ran\\n')\n"
        f"spec = sw.parse({SMALL!r}, 'small.toml')\n"
        f"out = sw.run_sweep(spec, {str(tmp_path / 'runs.parquet')!r}, workers=2, progress=False)\n"
        "print(out.done, out.failed)\n"
    )
    r = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "12 {}"
    assert marks.read_text() == "ran\n"  # the script ran once, not once per worker
    assert "__main__" in sys.modules  # and the caller's __main__ is intact after a sweep
    assert sys.modules["__main__"].__dict__.get("__file__", "") == getattr(
        sys.modules["__main__"], "__file__", ""
    )


def test_progress_is_plain_lines_when_stderr_is_not_a_terminal(tmp_path):
    f = small(tmp_path)
    r = subprocess.run(
        [TCPLAB, "sweep", f, "--out", tmp_path / "runs.parquet", "-j", "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert lines[0] == "small: 0/12 runs, 0 s, 0.00 runs/s"
    assert any(line.startswith("small: 12/12 runs, ") for line in lines)
    assert not any(c in r.stderr for c in "\r\x1b━")  # no bar, no escape codes


def test_sweep_trace_out_writes_each_runs_traces(tmp_path):
    f = small(tmp_path)
    traces = tmp_path / "traces"
    r = subprocess.run(
        [
            TCPLAB,
            "sweep",
            f,
            "--out",
            tmp_path / "runs.parquet",
            "-j",
            "2",
            "--no-progress",
            "--set",
            "trace.cwnd=true",
            "--trace-out",
            traces,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    keys = set(results.load(tmp_path / "runs.parquet")["run_key"])
    assert {d.name for d in traces.iterdir()} == keys
    for d in traces.iterdir():
        assert [p.name for p in d.iterdir()] == ["cwnd.parquet"]
        cwnd = pl.read_parquet(d / "cwnd.parquet")
        assert cwnd.height > 0 and {"time_s", "flow", "cwnd_bytes", "ssthresh_bytes"} <= set(cwnd.columns)


def test_sweep_trace_out_puts_each_runs_pcap_capture_in_its_folder(tmp_path, monkeypatch):
    """A relative `trace.pcap` file goes to DIR/<run key>/, not to one file every run overwrites
    in the working directory; the run keys do not change."""
    from tcplab.capture import analyze

    f = small(tmp_path)
    monkeypatch.chdir(tmp_path)
    traces = tmp_path / "traces"
    r = subprocess.run(
        [
            TCPLAB,
            "sweep",
            f,
            "--out",
            tmp_path / "runs.parquet",
            "-j",
            "2",
            "--no-progress",
            "--set",
            'trace.pcap={link = "hop0.fwd", file = "hop0.pcap"}',
            "--trace-out",
            traces,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    runs = results.load(tmp_path / "runs.parquet")
    keys = set(runs["run_key"])
    assert {d.name for d in traces.iterdir()} == keys
    assert not (tmp_path / "hop0.pcap").exists()
    sent = {}
    for d in traces.iterdir():
        cap = analyze(d / "hop0.pcap", start=1.0).connections  # the runs' 1 s warm-up
        sent[d.name] = int(cap["segments_sent"].sum())
    for row in runs.iter_rows(named=True):  # each capture is its own run's
        assert sent[row["run_key"]] == row["segments_sent"] > 0


def test_mathis_fig4_runs_reach_50_cycles_everywhere():
    """Every run of sweeps/mathis-fig4.toml is long enough for the paper's 50 cycles with a
    margin: nominal cycles = measured time / (sqrt(4/(3p)) RTTs), RTT = 2 x delay (delayed ACKs)."""
    import math

    runs = sw.load(ROOT / "sweeps" / "mathis-fig4.toml").runs()
    assert len(runs) == 120
    cycles = []
    for r in runs:
        hop = r.resolved["network"]["path"]["hops"][0]
        cycle_s = math.sqrt(4 / (3 * hop["loss"]["p"])) * 2 * hop["delay"]
        cycles.append((r.resolved["duration"] - r.resolved["warmup"]) / cycle_s)
    assert min(cycles) >= 75, min(cycles)
