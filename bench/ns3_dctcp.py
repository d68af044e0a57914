#!/usr/bin/env python3
"""ns-3 3.44's DCTCP reference runs for tcplab's ECN validation (issue: ECN and L4S).

Builds bench/ns3_dctcp/dctcp_cases.cc (one C++ program, with measure.h and fig17.h) with g++
against the `ns3` wheel of the interpreter NS3_PYTHON names, runs each case under `nice -n 10`
and writes, for each, its summary to bench/ns3_dctcp/reference.json and its time series (flow
0's goodput and alpha) to bench/ns3_dctcp/series/<case>.csv. Every case's exact parameters are
in bench/ns3_dctcp/README.md, so that tcplab's side can be built the same way.

    NS3_PYTHON=/path/to/venv/bin/python python3 bench/ns3_dctcp.py [--only NAME ...] [--list]
    .venv/bin/python bench/ns3_dctcp.py --analysis     # the RED cases beside the DCTCP analysis
    python3 bench/ns3_dctcp.py --check-example          # the validation series vs the example's checks

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
SOURCES = ("dctcp_cases.cc", "measure.h", "cwr.h", "echo.h", "fig17.h")
OUT_JSON = os.path.join(SRC, "reference.json")
OUT_SERIES = os.path.join(SRC, "series")

DUMBBELL = ["--scenario=dumbbell", "--linkRate=1Gbps", "--baseRtt=1ms", "--duration=3", "--warm=1"]

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
# In the order they run (the K = 65 ones first: the analysis' targets are at K = 65).
for _n in (2, 10, 40):
    CASES[f"red-k65-n{_n}"] = DUMBBELL + ["--aqm=red", "--k=65", f"--flows={_n}", "--limit=1000"]


def _codel(n: int, ce: str) -> list[str]:
    return DUMBBELL + ["--aqm=codel", f"--ceThreshold={ce}", f"--flows={n}", "--limit=1000"]


# 780 us is 65 packet times of 1502 bytes at 1 Gbit/s (64 x 12.016 us < 780 us < 65 x 12.016 us):
# on this constant-rate FIFO the CE threshold then marks exactly the packets that arrive behind
# 65 or more, as red-k65 does (at dequeue instead of arrival), and the run is identical to it.
CASES["codel-ce780us-n2"] = _codel(2, "780us")
CASES["codel-ce1ms-n10"] = _codel(10, "1ms")
CASES["fig17"] = ["--scenario=fig17", "--startup=0.3", "--convergence=0.5", "--measurement=0.2"]
CASES["codel-ce1ms-n2"] = _codel(2, "1ms")
for _n in (2, 10, 40):
    CASES[f"red-k40-n{_n}"] = DUMBBELL + ["--aqm=red", "--k=40", f"--flows={_n}", "--limit=1000"]
CASES["codel-ce1ms-n40"] = _codel(40, "1ms")


def ns3_binary() -> str:
    """Builds the program (once per source text) against NS3_PYTHON's ns3 wheel."""
    py = os.environ.get("NS3_PYTHON")
    if not py:
        raise SystemExit("set NS3_PYTHON to an interpreter with `pip install ns3` (3.44)")
    inc, lib, libs = _libs(py)
    text = b"".join(pathlib.Path(SRC, name).read_bytes() for name in SOURCES)
    tag = hashlib.sha256(text + lib.encode()).hexdigest()[:12]
    out_dir = os.environ.get("NS3_BUILD_DIR", os.path.join(tempfile.gettempdir(), "tcplab-ns3-dctcp"))
    os.makedirs(out_dir, exist_ok=True)
    exe = os.path.join(out_dir, f"dctcp_cases_{tag}")
    if not os.path.exists(exe):
        cmd = ["nice", "-n", "10", "g++", "-O2", "-std=c++20", "-w", f"-I{inc}", f"-I{SRC}"]
        cmd += [os.path.join(SRC, "dctcp_cases.cc"), "-o", exe, f"-L{lib}", f"-Wl,-rpath,{lib}"]
        cmd += [f"-l{x}" for x in libs]
        t = time.time()
        subprocess.run(cmd, check=True)
        print(f"built {exe} in {time.time() - t:.0f} s", file=sys.stderr)
    return exe


def run_case(exe: str, name: str, args: list[str], series: bool = True) -> dict:
    os.makedirs(OUT_SERIES, exist_ok=True)
    csv = [f"--series={os.path.join(OUT_SERIES, f'{name}.csv')}"] if series else []
    t = time.time()
    out = subprocess.run(["nice", "-n", "10", exe, *args, *csv], capture_output=True, text=True)
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None or out.returncode != 0:
        sys.stderr.write(out.stdout[-2000:] + out.stderr[-4000:])
        raise SystemExit(f"ns-3 case {name} failed (exit {out.returncode})")
    doc = json.loads(line[len("RESULT ") :])
    doc["args"] = args
    doc["wall_s"] = round(time.time() - t, 1)  # this machine's, informative only
    return doc


def analysis() -> None:
    """The RED dumbbell cases of reference.json beside the DCTCP analysis (tcplab.models.dctcp;
    run with the repository's .venv interpreter, no ns-3 needed): Markdown on stdout."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
    from tcplab.models import dctcp

    with open(OUT_JSON) as f:
        cases = json.load(f)["cases"]
    bdp = dctcp.bdp_packets(1e9, 1e-3, 1500)
    print(
        "| case | Q_max = K + N | ns-3 queue max / p99 | A (N D) | ns-3 p99 - p1 | alpha (Eq. 7) | ns-3 alpha |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for k in (40, 65):
        for n in (2, 10, 40):
            r = cases.get(f"red-k{k}-n{n}")
            if r is None:
                continue
            q = r["queue_pkts"]
            alpha = sum(r["alpha_mean"]) / len(r["alpha_mean"])
            print(
                f"| red-k{k}-n{n} | {dctcp.q_max(bdp, n, k):.0f} | {q['max']} / {q['p99']} | "
                f"{dctcp.queue_amplitude(bdp, n, k):.1f} | {q['p99'] - q['p1']} | "
                f"{dctcp.alpha(dctcp.critical_window(bdp, n, k)):.3f} | {alpha:.3f} |"
            )


# tcp-validation.cc's own checks of its cases (its comments and its trace sinks): (case, what,
# time range (lo, hi) in s, value range (lo, hi)); throughput in Mbit/s on 200 ms samples.
EXAMPLE_CHECKS = [
    ("validation-dctcp-10ms", "goodput", (5.6, 15), (48, 49)),
    ("validation-dctcp-10ms", "alpha", (5.6, 15), (0, 0.1)),
    ("validation-dctcp-10ms", "alpha", (7, 15), (0.049, 0.09)),
    ("validation-dctcp-80ms", "goodput", (0, 14), (0, 20)),
    ("validation-dctcp-80ms", "goodput", (0, 30), (0, 48)),
    ("validation-dctcp-80ms", "goodput", (32, 40), (47.5, 48.5)),
    ("validation-dctcp-80ms", "alpha", (0, 7.5), (0.1, 1)),
    ("validation-dctcp-80ms", "alpha", (11, 30), (0, 0.01)),
    ("validation-dctcp-80ms", "alpha", (34, 40), (0.015, 0.025)),
]


def _libs(py: str) -> tuple[str, str, list[str]]:
    """The ns3 wheel's include and library directories and its libraries, for NS3_PYTHON."""
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
    libs = sorted({n[3:].split(".so")[0] for n in os.listdir(lib) if n.startswith("libns3") and ".so" in n})
    return inc, lib, libs


def _time_average(path: str, lo: float, hi: float, initial: float) -> float:
    """The time average over [lo, hi] of a step function given as 'time value' lines."""
    area, last, cur = 0.0, lo, initial
    with open(path) as f:
        for line in f:
            t, v = map(float, line.split()[:2])
            if t <= lo:
                cur = v
                continue
            if t >= hi:
                break
            area += cur * (t - last)
            last, cur = t, v
    return (area + cur * (hi - last)) / (hi - lo)


def upstream_example(source: str) -> dict:
    """ns-3's own examples/tcp/tcp-validation.cc (the file at `source`, from an ns-3.44
    checkout), built against the wheel and run with the two DCTCP cases' command lines: its own
    --validate verdict, and goodput (mean of its 200 ms throughput samples) and time-averaged
    alpha over the same windows as validation-dctcp-*. Not stored in the repository: ns-3's
    source is GPL-2.0 and BSD, and is fetched from ns-3's repository."""
    py = os.environ.get("NS3_PYTHON")
    if not py:
        raise SystemExit("set NS3_PYTHON to an interpreter with `pip install ns3` (3.44)")
    inc, lib, libs = _libs(py)
    work = tempfile.mkdtemp(prefix="tcplab-ns3-tcp-validation-")
    exe = os.path.join(work, "tcp-validation")
    cmd = ["nice", "-n", "10", "g++", "-O2", "-std=c++20", "-w", f"-I{inc}", source, "-o", exe]
    subprocess.run(cmd + [f"-L{lib}", f"-Wl,-rpath,{lib}"] + [f"-l{x}" for x in libs], check=True)
    out = {}
    for case, rtt, stop, window in (
        ("dctcp-10ms", "10ms", "15s", (7, 14)),
        ("dctcp-80ms", "80ms", "40s", (34, 39)),
    ):
        args = [
            "--firstTcpType=dctcp",
            "--linkRate=50Mbps",
            f"--baseRtt={rtt}",
            "--queueUseEcn=1",
            f"--stopTime={stop}",
        ]
        verdict = subprocess.run(
            ["nice", "-n", "10", exe, *args, f"--validate={case}"],
            capture_output=True,
            text=True,
            cwd=work,
        )
        subprocess.run(["nice", "-n", "10", exe, *args], capture_output=True, text=True, cwd=work, check=True)
        with open(os.path.join(work, "tcp-validation-first-tcp-throughput.dat")) as f:
            thr = [tuple(map(float, ln.split())) for ln in f if ln.strip()]
        samples = [v for t, v in thr if window[0] < t <= window[1] + 1e-9]
        out[f"validation-{case}"] = {
            "args": args,
            "validate_exit": verdict.returncode,
            "window": list(window),
            "goodput_bps": sum(samples) / len(samples) * 1e6,
            "alpha_mean": _time_average(
                os.path.join(work, "tcp-validation-first-dctcp-alpha.dat"), *window, 1.0
            ),
        }
        r = out[f"validation-{case}"]
        print(
            f"upstream {case}: --validate exit {r['validate_exit']}, goodput {r['goodput_bps'] / 1e6:.3f} Mbit/s, alpha {r['alpha_mean']:.4f}"
        )
    return out


def check_example() -> bool:
    """The two validation cases' series against tcp-validation.cc's own criteria: whether this
    rebuild behaves as the example that ns-3 validates. Samples are 200 ms apart (alpha: its
    value at the sample; goodput: the 200 ms ending there); the ranges are open as in the
    example's checks, and only samples after the flow started (t > 5 s) count."""
    ok = True
    for name, what, (t_lo, t_hi), (v_lo, v_hi) in EXAMPLE_CHECKS:
        with open(os.path.join(OUT_SERIES, f"{name}.csv")) as f:
            rows = [
                dict(zip(("t", "goodput", "alpha"), map(float, ln.split(",")), strict=True))
                for ln in f.read().split()[1:]
            ]
        picked = [r for r in rows if t_lo < r["t"] < t_hi and r["t"] > 5.0]
        vals = [r[what] / 1e6 if what == "goodput" else r[what] for r in picked]
        bad = [(r["t"], v) for r, v in zip(picked, vals, strict=True) if not v_lo <= v <= v_hi]
        ok &= not bad
        print(
            f"{name}: {what} in [{v_lo}, {v_hi}] for {t_lo} < t < {t_hi}: "
            + ("ok" if not bad else f"{len(bad)} of {len(vals)} samples outside, first {bad[0]}")
            + f" (range seen {min(vals):.4g} .. {max(vals):.4g})"
        )
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", help="run these cases (others are kept from reference.json)")
    ap.add_argument("--list", action="store_true", help="print the cases and their arguments")
    ap.add_argument(
        "--analysis", action="store_true", help="the RED cases beside the DCTCP analysis (no ns-3 run)"
    )
    ap.add_argument(
        "--check-example",
        action="store_true",
        help="the validation series against tcp-validation.cc's own criteria (no ns-3 run)",
    )
    ap.add_argument(
        "--recovery",
        choices=["classic", "linux-cwr", "linux-cwr-bytes", "ns3-cwr", "ns3-cwr-entry-once"],
        help="run the cases with TcpClassicRecovery (the ECE reduction at once, as tcplab's) and store "
        "them under classic_recovery in reference.json: a counterfactual beside the cases as stated; "
        "linux-cwr: PRR in CWR as Linux's tcp_cwnd_reduction (bench/ns3_dctcp/cwr.h), stored under "
        "linux_cwr_recovery (linux-cwr-bytes: the same in bytes); ns3-cwr: TcpPrrRecovery's CWR restated (the same run), ns3-cwr-entry-once: "
        "with the entering ACK counted once (ns3_cwr_recovery, ns3_cwr_entry_once_recovery)",
    )
    ap.add_argument(
        "--ack-every-segment",
        action="store_true",
        help="run the cases with DelAckCount 1 (an ACK per segment; the validation cases delay ACKs) and "
        "store them under ack_every_segment (with --recovery: classic_recovery_ack_every_segment)",
    )
    ap.add_argument(
        "--no-bql",
        action="store_true",
        help="validation cases: the bottleneck's device ring without Dynamic Queue Limits (a fixed "
        "3-packet DropTail, as tcplab's device_queue = 3); stored under no_bql (with "
        "--ack-every-segment: ack_every_segment_no_bql)",
    )
    ap.add_argument(
        "--dctcp-echo",
        choices=["prior", "linux"],
        help="fig17: the receivers' CE echo instead of TcpDctcp's (bench/ns3_dctcp/echo.h): on a change "
        "of CE state the delayed ACK covers the data received so far, with the old state (prior: "
        "tcplab's ack = \"delayed\"); linux: and the segment is acknowledged at once (Linux's DCTCP); "
        "stored under dctcp_echo_prior / dctcp_echo_linux",
    )
    ap.add_argument(
        "--upstream-example",
        metavar="TCP_VALIDATION_CC",
        help="instead of the cases: ns-3's own examples/tcp/tcp-validation.cc (its path in an ns-3.44 checkout)",
    )
    a = ap.parse_args()
    if a.upstream_example and not os.path.isfile(a.upstream_example):
        raise SystemExit(f"--upstream-example: {a.upstream_example!r} is not a file")
    if a.check_example:
        raise SystemExit(0 if check_example() else 1)
    if a.analysis:
        analysis()
        return
    if a.list:
        for name, args in CASES.items():
            print(name, " ".join(args))
        return
    unknown = sorted(set(a.only or ()) - set(CASES))
    if unknown:
        raise SystemExit(f"--only: unknown case(s) {', '.join(unknown)} (expected: {', '.join(CASES)})")
    if a.upstream_example:  # ns-3's own example only, added to reference.json
        _store({"upstream_example": upstream_example(a.upstream_example)})
        return
    exe = ns3_binary()
    for name, args in CASES.items():
        if a.only and name not in a.only:
            continue
        if a.no_bql and not name.startswith("validation-"):
            continue  # only the validation cases have BQL
        if a.dctcp_echo and name != "fig17":
            continue  # only fig17 runs the receiver of echo.h
        if a.recovery or a.ack_every_segment or a.no_bql or a.dctcp_echo:
            extra = [f"--recovery={a.recovery}"] if a.recovery else []
            if a.ack_every_segment:  # fig17 sets its own DelAckCount (dctcp-example.cc's 2)
                extra += ["--fig17DelAckCount=1" if name == "fig17" else "--ns3::TcpSocket::DelAckCount=1"]
            extra += ["--noBql=1"] if a.no_bql else []
            extra += [f"--dctcpEcho={a.dctcp_echo}"] if a.dctcp_echo else []
            on = (
                (f"{(a.recovery or '').replace('-', '_')}_recovery", a.recovery),
                ("ack_every_segment", a.ack_every_segment),
                ("no_bql", a.no_bql),
            )
            key = "_".join(k for k, flag in on if flag) or f"dctcp_echo_{a.dctcp_echo}"
            r = run_case(exe, name, [*args, *extra], series=False)
            print(f"{name} ({' '.join(extra)}): alpha {sum(r['alpha_mean']) / len(r['alpha_mean']):.4f}")
            _store({key: {name: r}})
            continue
        r = run_case(exe, name, args)
        print(
            f"{name}: goodput {r['goodput_total_bps'] / 1e6:.2f} Mbit/s, alpha "
            f"{sum(r['alpha_mean']) / len(r['alpha_mean']):.4f}, queue p50/p99/max "
            f"{r['queue_pkts']['p50']}/{r['queue_pkts']['p99']}/{r['queue_pkts']['max']}, "
            f"marks {r['marks']}, drops {r['drops']} ({r['wall_s']} s)",
            flush=True,
        )
        _store({"cases": {name: r}})


#: The counterfactual runs' keys in reference.json (beside "cases").
COUNTERFACTUALS = (
    "classic_recovery",
    "ack_every_segment",
    "classic_recovery_ack_every_segment",
    "no_bql",
    "ack_every_segment_no_bql",
    "classic_recovery_ack_every_segment_no_bql",
    "linux_cwr_recovery_ack_every_segment_no_bql",
    "linux_cwr_bytes_recovery_ack_every_segment_no_bql",
    "ns3_cwr_recovery_ack_every_segment_no_bql",
    "ns3_cwr_entry_once_recovery_ack_every_segment_no_bql",
    "dctcp_echo_prior",
    "dctcp_echo_linux",
)


def _store(update: dict) -> None:
    """Merges `update` into reference.json (re-read first: one key per case or section)."""
    doc: dict = {"cases": {}}
    if os.path.exists(OUT_JSON):
        with open(OUT_JSON) as f:
            doc = json.load(f)
    doc["ns3"] = "3.44 (PyPI wheel ns3), bench/ns3_dctcp/dctcp_cases.cc"
    doc["command"] = "NS3_PYTHON=... python3 bench/ns3_dctcp.py [--only CASE ...] [--upstream-example FILE]"
    for key, value in update.items():
        if key in ("cases", *COUNTERFACTUALS):
            doc.setdefault(key, {}).update(value)
        else:
            doc[key] = value
    tmp = OUT_JSON + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, OUT_JSON)


if __name__ == "__main__":
    main()
