"""Hostile and mistaken inputs (issue: no hang, no traceback, no silent wrong number): each one is
one error line naming what is wrong, or a clear warning, from the command line and from Python."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import tcplab
from tcplab.simulation import ScenarioError

ROOT = Path(__file__).resolve().parent.parent
QUICKSTART = ROOT / "scenarios" / "quickstart.toml"
TCPLAB = [sys.executable, "-m", "tcplab.cli"]


def cli(*args: object, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*TCPLAB, *map(str, args)], capture_output=True, text=True, timeout=timeout)


def one_line_error(r: subprocess.CompletedProcess, *parts: str) -> str:
    """The command failed with exit 2 and one line on stderr containing `parts`, no traceback."""
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.stderr
    for part in parts:
        assert part in r.stderr, r.stderr
    return r.stderr


# ---- hangs ---------------------------------------------------------------------------------------


def test_a_zero_timeout_on_a_1ns_clock_is_refused_not_run_forever():
    sets = {"flows.0.rto_estimator": "jacobson88", "flows.0.clock_tick": "1ns", "flows.0.min_rto": "0"}
    args = [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]
    r = cli("run", QUICKSTART, *args, timeout=30)
    one_line_error(r, "flows[0].min_rto: 0s with clock_tick 0.000000001s", "expected min_rto >= 0.000001s")
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.max_rto: 0s \(expected at least"):
        tcplab.run(
            QUICKSTART, sets={"flows.0.min_rto": "0", "flows.0.rto_granularity": "1ns"}, flows__0__max_rto=0
        )


def test_a_parking_lot_of_2e9_gateways_is_refused_at_once():
    doc = {
        "duration": "1s",
        "network": {"parking_lot": {"n": 2_000_000_000, "congested": {"rate": "10Mbit/s", "delay": "10ms"}}},
        "flows": [{}],
    }
    with pytest.raises(ScenarioError, match=r"^network\.parking_lot\.n: a network of up to 4000000002 nodes"):
        tcplab.run(doc)


# ---- tracebacks ----------------------------------------------------------------------------------


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_an_endless_input_file_is_one_error_line(tmp_path):
    one_line_error(cli("run", "/dev/zero"), "/dev/zero: larger than 64 MiB")
    one_line_error(cli("check", "/dev/zero"), "/dev/zero: larger than 64 MiB")
    one_line_error(cli("sweep", "/dev/zero", "--out", tmp_path / "s"), "/dev/zero: larger than 64 MiB")
    assert not (tmp_path / "s").exists()
    with pytest.raises(ScenarioError, match="larger than 64 MiB"):
        tcplab.run("/dev/zero")
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('[sweep]\nbase = "/dev/zero"\n[[axis]]\npath = "seed"\nvalues = [1, 2]\n')
    one_line_error(cli("check", sweep), "sweep.base: /dev/zero: larger than 64 MiB")
    with open("/dev/zero", "rb") as zero:
        r = subprocess.run([*TCPLAB, "run", "-"], stdin=zero, capture_output=True, text=True)
    one_line_error(r, "<stdin>: larger than 64 MiB")


@pytest.mark.parametrize("where", ["/proc/tcplab-store", "/sys/tcplab/store"])
def test_a_sweep_into_an_unwritable_place_fails_before_it_starts(tmp_path, where):
    if not Path("/" + where.split("/")[1]).is_dir():
        pytest.skip(f"no {where}")
    sweep = ROOT / "sweeps" / "bench-500.toml"
    r = cli("sweep", sweep, "--out", where, "--workers", "1", "--no-progress")
    one_line_error(r, f"--out {where}: cannot write here (")
    r = cli("run", QUICKSTART, "--out", where + ".parquet")
    one_line_error(r, f"--out {where}.parquet: cannot write here (")


def _store(tmp_path: Path, n: int = 20, **columns) -> Path:
    rng = np.random.default_rng(1)
    p = np.exp(rng.uniform(math.log(1e-3), math.log(0.1), n))
    rtt = 0.1
    window = 1.2 * p**-0.5
    df = pl.DataFrame(
        {
            "run_key": [f"k{i}" for i in range(n)],
            "flow": 0,
            "tcp": "reno",
            "ack": "delayed",
            "mss_bytes": 1460,
            "goodput_bps": window * 1460 / rtt * 8,
            "mean_rtt_s": rtt,
            "timeouts": 0,
            "ca_events": 60,
            "non_ca_events": 0,
            "p": p,
            "network.path.hops.0.loss.p": p,
            "network.path.hops.0.loss.model": "bernoulli",
        }
    ).with_columns(**{k: pl.Series(v) for k, v in columns.items()})
    store = tmp_path / "store"
    store.mkdir()
    df.write_parquet(store / "part-a.parquet")
    return store


def test_fit_and_plot_check_the_types_of_the_columns_they_read(tmp_path):
    n = 20
    store = _store(tmp_path, n, **{"network.path.hops.0.loss.p": ["0.01"] * n})
    one_line_error(
        cli("fit", store), "column 'network.path.hops.0.loss.p' holds String values (expected numbers)"
    )
    one_line_error(cli("plot", store, "--out", tmp_path / "f.png"), "holds String values")
    assert not (tmp_path / "f.png").exists()
    (store / "part-a.parquet").unlink()
    store.rmdir()
    store = _store(tmp_path, n, goodput_bps=["fast"] * n)
    one_line_error(cli("fit", store, "--p", "measured"), "column 'goodput_bps' holds String values")


# ---- accepted, but wrong or silent ---------------------------------------------------------------


def test_fit_refuses_one_flow_and_a_nan_bin_width(tmp_path):
    one = _store(tmp_path, 1)
    one_line_error(cli("fit", one), "1 flow to fit", "expected at least 2")
    (one / "part-a.parquet").unlink()
    one.rmdir()
    store = _store(tmp_path, 20)
    assert cli("fit", store, "--json").returncode == 0
    one_line_error(cli("fit", store, "--bin-width", "nan"), "--bin-width nan: expected a positive width")
    one_line_error(cli("fit", store, "--bin-width", "inf"), "--bin-width inf: expected a positive width")


def test_a_transfer_done_before_warm_up_warns_in_python_as_on_the_command_line():
    # Reported as a TypeError from the Python API; not reproduced since, held here. The API
    # issues the command line's warning as a RunWarning and shows it in its views.
    with pytest.warns(tcplab.RunWarning, match="the measurement window is empty"):
        r = tcplab.run(QUICKSTART, flows__0__bytes="10KB")
    assert r.window_s == 0 and r.warnings[0].startswith("the measurement window is empty")
    assert "goodput - Mbit/s" in repr(r) and "warning: the measurement window is empty" in repr(r)
    assert "<b>warning:</b> the measurement window is empty" in r._repr_html_()
    assert math.isnan(r.with_predictions()["ratio"][0])
    assert '"goodput_bps": null' in r.to_json()
    cli_run = cli("run", QUICKSTART, "--set", "flows.0.bytes=10KB")
    assert cli_run.returncode == 0 and "warning: the measurement window is empty" in cli_run.stdout


def test_a_subnormal_loss_rate_is_an_error_not_an_overflow_warning():
    r = cli("model", "mathis", "--json", "--loss", "5e-324", "--rtt", "100ms", "--mss", "1460")
    one_line_error(r, "model mathis: the inputs overflow a float", "--loss 4.94066e-324")
    assert r.stdout == ""
    r = cli("model", "mathis", "--json", "--loss", "1e-300", "--rtt", "100ms", "--mss", "1460")
    assert r.returncode == 0 and r.stderr == ""


def test_header_bytes_past_ip_is_refused_naming_the_field():
    r = cli("run", QUICKSTART, "--set", f"flows.0.header_bytes={2**32 - 1}")
    one_line_error(r, "flows[0].header_bytes: 4294967295 (expected 20 to")


def test_a_nan_from_python_is_named_by_its_field():
    doc = tcplab.resolve(QUICKSTART)
    doc["duration"] = float("nan")
    with pytest.raises(ScenarioError, match=r"^duration: nan is not a number \(expected a finite number\)$"):
        tcplab.run(doc)
    doc = tcplab.resolve(QUICKSTART)
    doc["flows"][0]["mss"] = float("inf")
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.mss: inf is not a number"):
        tcplab.resolve(doc)


# ---- faults a user's run can meet ----------------------------------------------------------------


def _small_sweep(tmp_path: Path, runs: int, duration: str = "2s") -> Path:
    """A sweep of `runs` short runs; its first n runs are those of the sweep of n."""
    sweep = tmp_path / f"small-{runs}.toml"
    values = ", ".join(f"{0.001 * 1.01**i:.6g}" for i in range(runs))
    sweep.write_text(
        f"""[sweep]
name = "small"
base = "{ROOT / "scenarios" / "queueless-random-loss.toml"}"
[set]
duration = "{duration}"
warmup = "1s"
[[axis]]
path = "network.path.hops.0.loss.p"
values = [{values}]
"""
    )
    return sweep


def _stored_keys(store: Path) -> list[str]:
    from tcplab import results

    return results.load(store).get_column("run_key").to_list()


def test_a_corrupt_or_truncated_part_file_is_named(tmp_path):
    store = _store(tmp_path, 20)
    part = store / "part-a.parquet"
    good = part.read_bytes()
    for broken in (good[: len(good) // 2], b"", b"PAR1" + bytes(100)):
        part.write_bytes(broken)
        for args in (
            ("query", store, "SELECT count(*) FROM runs"),
            ("fit", store),
            ("plot", store, "--out", tmp_path / "f.png"),
        ):
            one_line_error(cli(*args), f"{part}: not a Parquet file")
        assert not (tmp_path / "f.png").exists()


def _mount_small_tmpfs(where: Path, size: str) -> None:
    where.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], check=True)


@pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0,
    reason="mounts a small tmpfs: Linux, as root",
)
def test_a_full_disk_stops_the_sweep_cleanly_and_it_resumes(tmp_path):
    disk = tmp_path / "disk"
    _mount_small_tmpfs(disk, "1m")
    try:
        store = disk / "runs"
        r = cli("sweep", _small_sweep(tmp_path, 30), "--out", store, "--workers", "2", "--no-progress")
        assert r.returncode == 0, r.stderr
        first = set(_stored_keys(store))
        # Leave 8 KiB: the next batch of runs does not fit.
        st = os.statvfs(disk)
        (disk / "filler").write_bytes(bytes(st.f_bavail * st.f_frsize - 8192))
        sweep = _small_sweep(tmp_path, 90)
        r = cli("sweep", sweep, "--out", store, "--workers", "2", "--no-progress", timeout=300)
        one_line_error(r, f"{store}: cannot write the results store (No space left on device)", "re-run")
        kept = _stored_keys(store)
        assert len(kept) == len(set(kept)) and set(kept) >= first  # whole parts only, each run once
        assert not list(store.glob(".*.tmp"))
        (disk / "filler").unlink()
        r = cli("sweep", sweep, "--out", store, "--workers", "2", "--no-progress", timeout=300)
        assert r.returncode == 0, r.stderr
        assert f"{len(set(kept))} already stored" in r.stderr
        keys = _stored_keys(store)
        assert len(keys) == len(set(keys)) == 90
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def test_ctrl_c_stops_a_sweep_with_130_and_keeps_what_finished(tmp_path):
    import signal
    import time

    # Runs long enough that the first part file (written 2 s after the first run ends) comes
    # long before the last run. 400 runs of 2 s ended within a second of it on an idle machine,
    # and 400 of 20 s ended before it on a loaded one. At 3000 s the whole sweep takes about 18 s
    # of wall time on two idle cores, nine times the flush delay, so the order does not rest on
    # the machine's load; stopped, it ends after a few seconds.
    sweep = _small_sweep(tmp_path, 400, duration="3000s")
    store = tmp_path / "runs"
    proc = subprocess.Popen(
        [*TCPLAB, "sweep", str(sweep), "--out", str(store), "--workers", "2", "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while not any(store.glob("*.parquet")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole group
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "re-run the same command to resume" in err
    keys = _stored_keys(store)
    assert 0 < len(keys) == len(set(keys)) < 400
    # Nothing of the sweep left running (its worker processes get 10 s to exit).
    for _ in range(100):
        leftover = subprocess.run(["pgrep", "-a", "-g", str(proc.pid)], capture_output=True, text=True).stdout
        if not leftover:
            break
        time.sleep(0.1)
    assert leftover == "", leftover


HALF_A_RESULT = """
import concurrent.futures as cf, struct, sys, time
from tcplab.sweep import local

pools = []

class Kept(cf.ProcessPoolExecutor):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        pools.append(self)

cf.ProcessPoolExecutor = Kept
base, n = sys.argv[1], int(sys.argv[2])
tasks = [(f"run{i}", base, {"duration": "60s", "seed": i + 1}) for i in range(n)]
runs = local.run_local(iter(tasks), 2)
next(runs)
queue = pools[0]._result_queue
# What a worker stopped in the middle of writing its result leaves: a header announcing
# 1000 bytes and 10 of them. Holding the write lock keeps the workers from adding more.
queue._wlock.acquire()
queue._writer._send(struct.pack("!i", 1000) + b"x" * 10)
time.sleep(0.5)
started = time.monotonic()
runs.close()  # what a Ctrl-C does to the sweep's loop
print(f"stopped in {time.monotonic() - started:.1f} s")
"""


def test_stopping_a_sweep_does_not_wait_for_half_a_result(tmp_path):
    # A Ctrl-C under load once left `tcplab sweep` waiting for ever: a worker stopped while
    # writing its result, and the pool's manager thread waited for the rest of the message.
    script = tmp_path / "half.py"
    script.write_text(HALF_A_RESULT)
    r = subprocess.run(
        [sys.executable, str(script), str(QUICKSTART), "40"], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0 and "stopped in" in r.stdout, r.stderr[-2000:]


def test_ctrl_c_stops_a_reproduction_with_130_and_a_readable_store(tmp_path):
    import signal
    import time

    out = tmp_path / "rep"
    proc = subprocess.Popen(
        [*TCPLAB, "reproduce", "mathis", "--quick", "--out", str(out), "--workers", "2", "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while (
        not any((out / "store").glob("**/*.parquet")) and time.monotonic() < deadline and proc.poll() is None
    ):
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "re-run the same command to resume" in err
    for store in {p.parent for p in (out / "store").glob("**/*.parquet")}:
        keys = _stored_keys(store)
        assert len(keys) == len(set(keys))
    for _ in range(100):
        leftover = subprocess.run(["pgrep", "-a", "-g", str(proc.pid)], capture_output=True, text=True).stdout
        if not leftover:
            break
        time.sleep(0.1)
    assert leftover == "", leftover


@pytest.mark.filterwarnings("ignore::tcplab.simulation.RunWarning")  # its runs are meant to be empty
def test_run_json_is_written_record_by_record_and_is_the_same_document():
    """`tcplab run --json` streams the document (a million flows would hold ~3 GB of JSON and a
    dict per flow: docs/limits.md): the bytes are those of one json.dumps, NaN as null."""
    import io
    import json

    from tcplab.simulation import json_records

    for sets in ({}, {"flows.0.bytes": "10KB"}):  # the second: a transfer done before warm-up, NaNs
        r = tcplab.run(ROOT / "scenarios" / "dumbbell.toml", duration="6s", warmup="2s", sets=sets)
        whole = json.dumps(
            {
                **{t: json_records(getattr(r, t)) for t in ("flows", "links", "totals", "traffic")},
                **{k: getattr(r, k) for k in ("seed", "duration_s", "warmup_s", "window_s", "events")},
                "warnings": r.warnings,
            },
            sort_keys=True,
            allow_nan=False,
        )
        out = io.StringIO()
        r.write_json(out)
        assert out.getvalue() == r.to_json() == whole
    assert "null" in whole
