#!/usr/bin/env python3
"""ns-3 3.44's DCTCP reference runs for tcplab's ECN validation (issue: ECN and L4S).

Builds bench/ns3_dctcp/dctcp_cases.cc (one C++ program, with measure.h and fig17.h) with g++
against the `ns3` wheel of the interpreter NS3_PYTHON names, runs each case under `nice -n 10`
and writes, for each, its summary to bench/ns3_dctcp/reference.json and its time series (flow
0's goodput and alpha) to bench/ns3_dctcp/series/<case>.csv. Every case's exact parameters are
in bench/ns3_dctcp/README.md, so that tcplab's side can be built the same way.

    NS3_PYTHON=/path/to/venv/bin/python python3 bench/ns3_dctcp.py [--only NAME ...] [--list]

Cases (names as in reference.json):
  * validation-dctcp-10ms, validation-dctcp-80ms: ns-3's examples/tcp/tcp-validation.cc cases
    dctcp-10ms and dctcp-80ms (one DCTCP flow, 50 Mbit/s, CoDel with ECN and a 1 ms CE
    threshold);
  * red-k<K>-n<N>: N DCTCP flows, 1 Gbit/s, 1 ms base RTT (C x RTT = 83.3 packets of 1500 bytes,
    as the DCTCP paper's 10 Gbit/s and 100 us), RED with min = max = K on the instantaneous queue;
  * codel-ce-n<N>: the same dumbbell through CoDel with ECN and a 0.78 ms CE threshold (65
    packet times at 1 Gbit/s);
  * fig17: ns-3's examples/tcp/dctcp-example.cc (the DCTCP paper's Fig. 17 topology), with its
    1 + 3 + 1 s schedule shortened (README: the measured cost).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "ns3_dctcp")
SOURCES = ("dctcp_cases.cc", "measure.h", "fig17.h")
OUT_JSON = os.path.join(SRC, "reference.json")
OUT_SERIES = os.path.join(SRC, "series")

DUMBBELL = ["--scenario=dumbbell", "--linkRate=1Gbps", "--baseRtt=1ms", "--duration=5", "--warm=1"]

CASES: dict[str, list[str]] = {
    "validation-dctcp-10ms": [
        "--scenario=validation",
        "--linkRate=50Mbps",
        "--baseRtt=10ms",
        "--stopTime=15s",
        "--ceThreshold=1ms",
        "--warm=7",
    ],
    "validation-dctcp-80ms": [
        "--scenario=validation",
        "--linkRate=50Mbps",
        "--baseRtt=80ms",
        "--stopTime=40s",
        "--ceThreshold=1ms",
        "--warm=34",
    ],
}
for _k in (40, 65):
    for _n in (2, 10, 40):
        CASES[f"red-k{_k}-n{_n}"] = DUMBBELL + ["--aqm=red", f"--k={_k}", f"--flows={_n}", "--limit=1000"]
for _n in (2, 10, 40):
    CASES[f"codel-ce-n{_n}"] = DUMBBELL + [
        "--aqm=codel",
        "--ceThreshold=780us",
        f"--flows={_n}",
        "--limit=1000",
    ]
CASES["fig17"] = ["--scenario=fig17", "--startup=0.5", "--convergence=1", "--measurement=0.5"]


def ns3_binary() -> str:
    """Builds the program (once per source text) against NS3_PYTHON's ns3 wheel."""
    py = os.environ.get("NS3_PYTHON")
    if not py:
        raise SystemExit("set NS3_PYTHON to an interpreter with `pip install ns3` (3.44)")
    purelib = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    base = os.path.join(purelib, "ns3")
    inc, lib = os.path.join(base, "include"), os.path.join(base, "lib64")
    if not os.path.isdir(lib):
        lib = os.path.join(base, "lib")
    text = b"".join(pathlib.Path(SRC, name).read_bytes() for name in SOURCES)
    tag = hashlib.sha256(text + base.encode()).hexdigest()[:12]
    out_dir = os.environ.get("NS3_BUILD_DIR", os.path.join(tempfile.gettempdir(), "tcplab-ns3-dctcp"))
    os.makedirs(out_dir, exist_ok=True)
    exe = os.path.join(out_dir, f"dctcp_cases_{tag}")
    if not os.path.exists(exe):
        libs = sorted(
            {
                name[3:].split(".so")[0]
                for name in os.listdir(lib)
                if name.startswith("libns3") and ".so" in name
            }
        )
        cmd = ["nice", "-n", "10", "g++", "-O2", "-std=c++20", "-w", f"-I{inc}", f"-I{SRC}"]
        cmd += [os.path.join(SRC, "dctcp_cases.cc"), "-o", exe, f"-L{lib}", f"-Wl,-rpath,{lib}"]
        cmd += [f"-l{x}" for x in libs]
        t = time.time()
        subprocess.run(cmd, check=True)
        print(f"built {exe} in {time.time() - t:.0f} s", file=sys.stderr)
    return exe


def run_case(exe: str, name: str, args: list[str]) -> dict:
    os.makedirs(OUT_SERIES, exist_ok=True)
    series = os.path.join(OUT_SERIES, f"{name}.csv")
    t = time.time()
    out = subprocess.run(
        ["nice", "-n", "10", exe, *args, f"--series={series}"], capture_output=True, text=True
    )
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None or out.returncode != 0:
        sys.stderr.write(out.stdout[-2000:] + out.stderr[-4000:])
        raise SystemExit(f"ns-3 case {name} failed (exit {out.returncode})")
    doc = json.loads(line[len("RESULT ") :])
    doc["args"] = args
    doc["wall_s"] = round(time.time() - t, 1)  # this machine's, informative only
    return doc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", help="run these cases (others are kept from reference.json)")
    ap.add_argument("--list", action="store_true", help="print the cases and their arguments")
    a = ap.parse_args()
    if a.list:
        for name, args in CASES.items():
            print(name, " ".join(args))
        return
    unknown = sorted(set(a.only or ()) - set(CASES))
    if unknown:
        raise SystemExit(f"--only: unknown case(s) {', '.join(unknown)} (expected: {', '.join(CASES)})")
    doc = {"cases": {}}
    if os.path.exists(OUT_JSON):
        with open(OUT_JSON) as f:
            doc = json.load(f)
    doc["ns3"] = "3.44 (PyPI wheel ns3), bench/ns3_dctcp/dctcp_cases.cc"
    doc["command"] = "NS3_PYTHON=... python3 bench/ns3_dctcp.py" + (
        " --only " + " ".join(a.only) if a.only else ""
    )
    exe = ns3_binary()
    for name, args in CASES.items():
        if a.only and name not in a.only:
            continue
        doc["cases"][name] = run_case(exe, name, args)
        r = doc["cases"][name]
        print(
            f"{name}: goodput {r['goodput_total_bps'] / 1e6:.2f} Mbit/s, alpha "
            f"{sum(r['alpha_mean']) / len(r['alpha_mean']):.4f}, queue p50/p99/max "
            f"{r['queue_pkts']['p50']}/{r['queue_pkts']['p99']}/{r['queue_pkts']['max']}, "
            f"marks {r['marks']}, drops {r['drops']} ({r['wall_s']} s)",
            flush=True,
        )
        tmp = OUT_JSON + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
        os.replace(tmp, OUT_JSON)


if __name__ == "__main__":
    main()
