"""A real Dask cluster on localhost (a scheduler and two workers, separate processes) runs a
small sweep; its rows are identical to the local pool's."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from tcplab import results
from tcplab import sweep as sw

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SWEEP = f"""
[sweep]
name = "dask"
seed = 11
base = "{(ROOT / "scenarios" / "queueless-random-loss.toml").as_posix()}"
seeds = [1, 2]
[set]
duration = "6s"
warmup = "1s"
[[axis]]
path = "flows.0.tcp"
values = ["reno", "tahoe"]
[[axis]]
path = "network.path.hops.0.loss.p"
log_uniform = [1e-3, 0.1]
count = 4
draw = "per-point"
"""


def _spawn(*args: str, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [BIN / "dask", *args], stdout=subprocess.DEVNULL, stderr=log.open("w"), start_new_session=True
    )


def _end(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


@pytest.fixture
def cluster(tmp_path):
    """(scheduler address) of a scheduler and two single-threaded workers; always torn down."""
    from distributed import Client

    file = tmp_path / "scheduler.json"
    procs = [
        _spawn(
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(file),
            log=tmp_path / "scheduler.log",
        )
    ]
    try:
        deadline = time.monotonic() + 60
        while not file.exists() or not file.read_text().strip():
            if time.monotonic() > deadline or procs[0].poll() is not None:
                pytest.fail(
                    "the Dask scheduler did not start: " + (tmp_path / "scheduler.log").read_text()[-2000:]
                )
            time.sleep(0.1)
        address = json.loads(file.read_text())["address"]
        for i in range(2):
            procs.append(
                _spawn(
                    "worker",
                    "--scheduler-file",
                    str(file),
                    "--nworkers",
                    "1",
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                    "--memory-limit",
                    "0",
                    "--name",
                    f"w{i}",
                    log=tmp_path / f"worker{i}.log",
                )
            )
        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=90)
        yield address
    finally:
        for proc in reversed(procs):
            _end(proc)


def test_dask_cluster_and_local_pool_give_identical_rows(tmp_path, cluster):
    f = tmp_path / "dask.toml"
    f.write_text(SWEEP)
    r = subprocess.run(
        [BIN / "tcplab", "sweep", f, "--out", tmp_path / "dask.parquet", "--scheduler", cluster],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "16 runs done" in r.stderr
    local = sw.run_sweep(sw.load(f), tmp_path / "local.parquet", workers=2, progress=False)
    assert local.done == 16
    a, b = results.load(tmp_path / "dask.parquet"), results.load(tmp_path / "local.parquet")
    assert a.height == 16
    assert_frame_equal(a, b, check_exact=True)
    assert a.hash_rows().to_list() == b.hash_rows().to_list()


def test_unreachable_scheduler_is_a_clear_error(tmp_path):
    f = tmp_path / "dask.toml"
    f.write_text(SWEEP)
    r = subprocess.run(
        [BIN / "tcplab", "sweep", f, "--out", tmp_path / "o.parquet", "--scheduler", "tcp://127.0.0.1:9"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "3s"},
    )
    assert r.returncode == 2
    assert (
        r.stderr.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
        and "Traceback" not in r.stderr
    )


def test_workers_import_the_simulator_while_the_plan_is_made(cluster):
    """`run_sweep` has a cluster's workers import what a run needs as soon as it connects
    (`_warm`, an unawaited `Client.run`, which Dask accepts only for a coroutine)."""
    from distributed import Client

    def imported() -> bool:
        return "tcplab.simulation" in sys.modules and "tcplab.results" in sys.modules

    with Client(cluster, timeout=30) as client:
        assert list(client.run(imported).values()) == [False, False]  # fresh workers
        sw._warm(client)
        deadline = time.monotonic() + 60
        while list(client.run(imported).values()) != [True, True]:
            assert time.monotonic() < deadline, "the workers did not import tcplab.simulation"
            time.sleep(0.2)


def test_a_worker_killed_during_the_sweep_changes_no_row(tmp_path, cluster):
    """SIGKILL one worker process while the sweep runs (its nanny starts a new one): Dask runs
    its tasks again elsewhere, and the store holds every run once, rows identical to a local
    pool's (issue #36)."""
    from distributed import Client

    f = tmp_path / "dask.toml"
    f.write_text(SWEEP.replace("count = 4", "count = 12"))
    store = tmp_path / "dask.parquet"
    proc = subprocess.Popen(
        [BIN / "tcplab", "sweep", f, "--out", store, "--scheduler", cluster, "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def die() -> None:  # run on a worker (pickled by value: the workers cannot import tests/)
        os.kill(os.getpid(), signal.SIGKILL)

    killed = None
    with Client(cluster, timeout=30) as client:
        deadline = time.monotonic() + 120
        while killed is None and time.monotonic() < deadline and proc.poll() is None:
            busy = [w for w, tasks in client.processing().items() if tasks]
            if busy:
                killed = busy[0]
                with contextlib.suppress(Exception):  # the worker dies under the call
                    client.run(die, workers=[killed], wait=False)
            time.sleep(0.05)
    _, err = proc.communicate(timeout=300)
    assert killed is not None, "the sweep ended before a worker was busy"
    assert proc.returncode == 0, err
    assert "48 runs done" in err and "0 failed" in err
    local = sw.run_sweep(sw.load(f), tmp_path / "local.parquet", workers=2, progress=False)
    assert local.done == 48
    a, b = results.load(store), results.load(tmp_path / "local.parquet")
    assert a.height == 48 and a["run_key"].n_unique() == 48
    assert_frame_equal(a, b, check_exact=True)


def test_ctrl_c_during_a_sweep_on_dask_exits_130_and_leaves_nothing_running(tmp_path, cluster):
    """Ctrl-C while the cluster runs the sweep: exit 130, the store readable with each finished
    run once, and no task of it left on the cluster (issue #36)."""
    from distributed import Client

    f = tmp_path / "dask.toml"
    # 800 runs of 60 s simulated: the cluster is still busy when the Ctrl-C comes, on an idle
    # machine too (160 runs of 20 s could all end first).
    f.write_text(SWEEP.replace("count = 4", "count = 200").replace('duration = "6s"', 'duration = "60s"'))
    store = tmp_path / "dask.parquet"
    proc = subprocess.Popen(
        [BIN / "tcplab", "sweep", f, "--out", store, "--scheduler", cluster, "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with Client(cluster, timeout=30) as client:
        deadline = time.monotonic() + 120
        while not any(client.processing().values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, err
        assert "Traceback" not in err and "re-run the same command to resume" in err
        deadline = time.monotonic() + 30
        while any(client.processing().values()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(client.processing().values()), client.processing()
    keys = results.load(store)["run_key"].to_list() if store.exists() else []
    assert len(keys) == len(set(keys)) < 800
