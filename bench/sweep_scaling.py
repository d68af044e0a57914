#!/usr/bin/env python3
"""Sweep throughput with one and two workers, local pool and Dask (issue #11's target: at least
1.8 times the runs per second from 1 to 2 workers, on an idle machine).

`sweeps/bench-500.toml` with `duration = 1000s` (500 runs of about 35 ms each), a fresh store per
measurement, alternating 1 and 2 workers for `--rounds` rounds; the parent's CPU per run from
getrusage. Dask: a local `dask scheduler` and one, then two, `dask worker --nworkers 1 --nthreads 1`
processes started and stopped by this script, measured twice: fresh (the workers import tcplab
during the sweep) and warm (a second sweep on the same workers). For each Dask measurement it
also prints the CPU seconds the scheduler and each worker (with its nanny) used. Prints one table; record it with the machine's load
(it prints the load average before and after) in bench/README.md.

Run from the repository: `.venv/bin/python bench/sweep_scaling.py [--rounds 2] [--no-dask]`.
"""

import argparse
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def measure(workers=None, scheduler=None):
    from tcplab import sweep

    sw = sweep.load(ROOT / "sweeps" / "bench-500.toml", sets={"duration": "1000s"})
    folder = Path(tempfile.mkdtemp(prefix="sweepbench-"))
    try:
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        out = sweep.run_sweep(
            sw, folder / "runs.parquet", workers=workers, scheduler=scheduler, progress=False
        )
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        assert out.done == out.total and not out.failed, (out.done, out.total, out.failed)
        cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
        return out.total / wall, cpu / out.total
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cpu_seconds(procs):
    """CPU seconds (user + system) used so far by each of `procs` with its descendants
    (a `dask worker` runs its worker in a child process under a nanny)."""
    import psutil

    out = []
    for p in procs:
        try:
            root = psutil.Process(p.pid)
            tree = [root] + root.children(recursive=True)
        except psutil.NoSuchProcess:
            out.append(0.0)
            continue
        total = 0.0
        for q in tree:
            try:
                t = q.cpu_times()
                total += t.user + t.system
            except psutil.NoSuchProcess:
                pass
        out.append(total)
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_workers(address, n, timeout=60):
    from distributed import Client

    with Client(address, timeout=timeout) as c:
        c.wait_for_workers(n, timeout=timeout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-dask", action="store_true")
    a = ap.parse_args()
    print(f"load before: {os.getloadavg()}", flush=True)
    res = {}
    for _ in range(a.rounds):
        for w in (1, 2):
            res.setdefault(("local", w), []).append(measure(workers=w))
            print("local", w, res[("local", w)][-1], flush=True)
    if not a.no_dask:
        port = free_port()
        address = f"tcp://127.0.0.1:{port}"
        procs = [
            subprocess.Popen(
                [BIN / "dask", "scheduler", "--port", str(port), "--no-dashboard"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        ]
        try:
            time.sleep(3)
            for _ in range(a.rounds):
                for w in (1, 2):
                    workers = [
                        subprocess.Popen(
                            [
                                BIN / "dask",
                                "worker",
                                address,
                                "--nworkers",
                                "1",
                                "--nthreads",
                                "1",
                                "--no-dashboard",
                            ],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                        )
                        for _ in range(w)
                    ]
                    try:
                        wait_workers(address, w)
                        # Fresh workers, then the same workers again (they have imported
                        # tcplab: the second sweep on an existing cluster).
                        for kind in ("dask", "dask, warm"):
                            c0, t0 = cpu_seconds(procs + workers), time.perf_counter()
                            res.setdefault((kind, w), []).append(measure(scheduler=address))
                            c1, wall = cpu_seconds(procs + workers), time.perf_counter() - t0
                            used = [b - a for a, b in zip(c0, c1, strict=True)]
                            print(kind, w, res[(kind, w)][-1], flush=True)
                            print(
                                f"  CPU seconds in {wall:.2f} s wall: scheduler {used[0]:.2f}, workers (with "
                                f"nannies) {', '.join(f'{u:.2f}' for u in used[1:])}",
                                flush=True,
                            )
                    finally:
                        for p in workers:
                            p.terminate()
                        for p in workers:
                            p.wait(30)
                        time.sleep(2)
        finally:
            for p in procs:
                p.terminate()
                p.wait(30)
    print(f"load after: {os.getloadavg()}")
    print("| | 1 worker, runs/s | 2 workers, runs/s | speed-up | parent CPU per run, 1 / 2 workers |")
    print("|---|---:|---:|---:|---:|")
    for kind in ("local", "dask", "dask, warm"):
        if (kind, 1) not in res:
            continue
        one = [x for x, _ in res[(kind, 1)]]
        two = [x for x, _ in res[(kind, 2)]]
        cpu1 = sum(c for _, c in res[(kind, 1)]) / len(one)
        cpu2 = sum(c for _, c in res[(kind, 2)]) / len(two)
        speed = " / ".join(f"{b / a:.2f}" for a, b in zip(one, two, strict=True))
        print(
            f"| {kind} | {' / '.join(f'{x:.1f}' for x in one)} | {' / '.join(f'{x:.1f}' for x in two)} | "
            f"{speed} | {1e3 * cpu1:.1f} / {1e3 * cpu2:.1f} ms |"
        )


if __name__ == "__main__":
    main()
