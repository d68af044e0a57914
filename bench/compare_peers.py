#!/usr/bin/env python3
"""tcplab beside ns-2 2.35 and ns-3 3.44 on the same dumbbell, alternating, in one run.

The dumbbell of tcplab's foundation benchmark (crates/tcplab-sim/benches/dumbbell.rs): N Reno
bulk flows, 100 Mbit/s 20 ms bottleneck with a 100-packet drop-tail queue, 1 Gbit/s 1 ms access
links, 30 s simulated. Its peers:
  * ns-2: bench/ns2_dumbbell.tcl with Debian's `ns` (one-way Agent/TCP/Reno, TCPSink/DelAck);
  * ns-3: bench/ns3_dumbbell.py in its own venv (pip package `ns3`; TcpNewReno with classic
    recovery, device DropTail queues, no queue disc).
Each round runs every simulator once per flow count, in a fresh process, the order of the
simulators rotating from round to round; every run's wall time is the simulation alone (no
set-up). Prints each run, then per flow count the median bottleneck packets per wall-second of
each simulator and the ratios tcplab / ns-2 and tcplab / ns-3 (medians of the per-round
ratios, so a load change between rounds cancels out as far as it can).

With --scale, then runs the scale benchmark (crates/tcplab-sim/benches/scale.rs: 1,000 /
10,000 / 100,000 flows over a 10 Gbit/s bottleneck with a 10,000-packet queue).

The peers are benchmark companions only, never tcplab dependencies. Where they are:
  * NS2_BIN: the ns-2 executable (default `ns` on PATH; `--ns2` overrides);
  * NS3_PYTHON: a Python interpreter with `pip install ns3` (no default; `--ns3-python`
    overrides).
A peer that cannot be found stops the run with a one-line error naming its variable; `--skip
ns-2 ns-3` leaves peers out.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def cargo_bench_exe(name):
    """Builds a bench target (release) and returns its executable's path."""
    p = subprocess.run(
        ["cargo", "bench", "-q", "-p", "tcplab-sim", "--bench", name, "--no-run", "--message-format=json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    for line in p.stdout.splitlines():
        m = json.loads(line)
        if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == name:
            return m["executable"]
    raise SystemExit(f"cargo did not report the {name} bench executable")


def run_tcplab(exe, n, duration):
    if duration != 30:
        raise SystemExit("the tcplab dumbbell bench simulates 30 s")
    p = subprocess.run(
        [exe, str(n)], capture_output=True, text=True, check=True, env=dict(os.environ, TCPLAB_BENCH_REPS="1")
    )
    row = p.stdout.strip().splitlines()[-1].split()
    wall, pkts = float(row[1]), int(row[7])
    return {"wall_s": wall, "pkts": pkts, "pps": pkts / wall}


def run_ns2(ns, n, duration):
    p = subprocess.run(
        [ns, os.path.join(HERE, "ns2_dumbbell.tcl"), str(n), str(duration)],
        capture_output=True,
        text=True,
        check=True,
    )
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("RESULT "))
    kv = dict(x.split("=") for x in line.split()[1:])
    wall, pkts = float(kv["wall_s"]), int(kv["bottleneck_pkts"])
    return {"wall_s": wall, "pkts": pkts, "pps": pkts / wall}


def run_ns3(py, n, duration):
    p = subprocess.run(
        [py, os.path.join(HERE, "ns3_dumbbell.py"), "--child", str(n), "--duration", str(duration)],
        capture_output=True,
        text=True,
    )
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"ns-3 run with {n} flows failed")
    r = json.loads(line[len("RESULT ") :])
    return {"wall_s": r["wall_s"], "pkts": r["bottleneck_pkts"], "pps": r["bottleneck_pkts"] / r["wall_s"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", type=int, nargs="+", default=[16, 128])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=30)
    ap.add_argument(
        "--ns2",
        default=os.environ.get("NS2_BIN", "ns"),
        help="the ns-2 executable (default $NS2_BIN, else `ns` on PATH)",
    )
    ap.add_argument(
        "--ns3-python",
        default=os.environ.get("NS3_PYTHON"),
        help="a Python interpreter with `pip install ns3` (default $NS3_PYTHON)",
    )
    ap.add_argument("--skip", nargs="*", default=[], choices=["ns-2", "ns-3"])
    ap.add_argument(
        "--scale",
        type=int,
        nargs="*",
        metavar="FLOWS",
        help="also run the scale benchmark (default counts 1000 10000 100000)",
    )
    a = ap.parse_args()
    if "ns-2" not in a.skip and shutil.which(a.ns2) is None:
        raise SystemExit(
            f"error: no ns-2 executable {a.ns2!r}: set NS2_BIN (or --ns2) to ns-2's `ns` "
            "(Debian: apt-get install ns2), or pass --skip ns-2"
        )
    if "ns-3" not in a.skip:
        if not a.ns3_python:
            raise SystemExit(
                "error: NS3_PYTHON is not set: set it (or --ns3-python) to a Python "
                "interpreter with `pip install ns3`, or pass --skip ns-3"
            )
        if shutil.which(a.ns3_python) is None:
            raise SystemExit(f"error: NS3_PYTHON={a.ns3_python!r} is not an executable interpreter")

    load = Path("/proc/loadavg").read_text().split()[:3]
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    print(
        f"== {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, commit {head}, {os.cpu_count()} cores, "
        f"load {' '.join(load)}",
        flush=True,
    )
    exe = cargo_bench_exe("dumbbell")
    sims = {"tcplab": lambda n: run_tcplab(exe, n, a.duration)}
    if "ns-2" not in a.skip:
        sims["ns-2"] = lambda n: run_ns2(a.ns2, n, a.duration)
    if "ns-3" not in a.skip:
        sims["ns-3"] = lambda n: run_ns3(a.ns3_python, n, a.duration)
    names = list(sims)
    res = {(s, n): [] for s in names for n in a.flows}
    print(
        f"{'round':>5} {'simulator':>9} {'flows':>6} {'wall s':>8} {'bottleneck pkts':>16} "
        f"{'bottleneck pkt/s':>17}",
        flush=True,
    )
    for r in range(a.rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for n in a.flows:
            for s in order:
                x = sims[s](n)
                res[(s, n)].append(x)
                print(
                    f"{r + 1:>5} {s:>9} {n:>6} {x['wall_s']:>8.3f} {x['pkts']:>16} {x['pps']:>17.0f}",
                    flush=True,
                )
    print()
    print(
        f"medians over {a.rounds} rounds; ratios are medians of the per-round ratios "
        f"(load at the end {' '.join(Path('/proc/loadavg').read_text().split()[:3])})"
    )
    cols = "".join(f" {s + ' pkt/s':>14}" for s in names)
    rats = "".join(f" {'tcplab/' + s:>13}" for s in names[1:])
    print(f"{'flows':>6}{cols}{rats}")
    for n in a.flows:
        med = {s: statistics.median(x["pps"] for x in res[(s, n)]) for s in names}
        ratios = [
            statistics.median(
                t["pps"] / p["pps"] for t, p in zip(res[("tcplab", n)], res[(s, n)], strict=True)
            )
            for s in names[1:]
        ]
        print(
            f"{n:>6}" + "".join(f" {med[s]:>14.0f}" for s in names) + "".join(f" {q:>13.1f}" for q in ratios)
        )

    if a.scale is not None:
        counts = a.scale or [1000, 10000, 100000]
        print(
            f"\n== scale: cargo bench -p tcplab-sim --bench scale -- {' '.join(map(str, counts))}", flush=True
        )
        subprocess.run([cargo_bench_exe("scale")] + [str(c) for c in counts], check=True)


if __name__ == "__main__":
    main()
