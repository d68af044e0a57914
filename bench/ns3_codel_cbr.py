#!/usr/bin/env python3
"""CoDel with a CBR flow beside TCP: tcplab with and without a device queue against ns-3 3.44.

ns-3's point-to-point device keeps its own queue (a DropTailQueue) under the traffic-control
layer's queue disc, with flow control: the device queue is stopped when it cannot take another
packet and woken when its head leaves for the wire (`NetDeviceQueue::PacketEnqueued` /
`PacketDequeued`, net-device-queue-interface.h), and each wake runs the queue disc again. With a
device queue of one packet, the queue disc is asked for its next packet when the packet ahead
of it starts its serialization, one packet-time early, and CoDel measures the sojourn time and
chooses its drops at that dequeue. tcplab's link option `device_queue = N` models that
(docs/queues.md, "Device queue"); this script compares tcplab with `device_queue = 1` and without
one against ns-3 with a one-packet device queue, on a dumbbell where that matters: TCP bulk flows
and a UDP CBR flow of smaller packets through a CoDel bottleneck.

The path: each source on its own 100 Mbit/s, 1 ms access link to router r1; r1 -> r2 10 Mbit/s,
20 ms, CoDel with its defaults (target 5 ms, interval 100 ms) and a 1000-packet limit in both
directions; r2 -> each receiver 100 Mbit/s, 1 ms (RTT 44 ms). The TCP flows start 0.1 s apart,
the CBR flow at 0; 60 s simulated, everything measured after the first 10 s. TCP settings as in
bench/ns3_compare.py (CUBIC, SACK with PRR and no RACK, MSS 1448 with timestamps: 1500-byte IP
packets, IW 10, min RTO 200 ms, an ACK every second segment or after 40 ms). The CBR flow sends
IP packets of `size` bytes at `rate` (ns-3: OnOffApplication always on, its payload size - 28
bytes and its rate scaled so that the packet rate is the same). Where ns-3's TCP is not the
linux profile's, tcplab takes ns-3's rule: its retransmission timer is RFC 6298's with G = 1 ms
(ns-3's ClockGranularity: rto_granularity = 1ms) restarted only by an ACK of new data
(rto_restart_on_retransmit = false), an ACK grows the window by the data it newly delivered
(ns-3's `currentDelivered` in TcpSocketBase::ReceivedAck: ack_counting = "delivered"), so a
cumulative ACK that covers segments SACKed earlier does not count them again, and a new fast
recovery may start as soon as the cumulative ACK reaches the last one's recovery point (RFC
6675 Sec. 5.1, ns-3's `m_highRxAckMark >= m_recover`: reentry = "rfc6675").

With --rfc ns-3 also writes its bottleneck queue disc's events (`--trace`), and
bench/ns3_codel_replay.py replays its CoDel decisions against RFC 8289's pseudocode.

ns-3's PRR (TcpPrrRecovery, tcp-prr-recovery.cc in 3.44) adds one segment to DeliveredData on
every duplicate ACK while prr_delivered < RecoverFS (lines 74-77), on top of the SACKed bytes
it already counts, and takes RFC 6675's pipe for RecoverFS. Two runs take that apart both ways
round: tcplab with `prr_rules = "ns3"` (ns-3's arithmetic, docs/tcp-family.md), and ns-3 with
`--prrRfc=1`: TcpPrrRfc in bench/ns3_codel_cbr.cc, ns-3's class with RFC 6937's DeliveredData (no added segment),
everything else as shipped.

On the ACK that ends a fast recovery ns-3 sets cwnd = ssthresh and then grows the window by the
cumulative ACK's segments, those SACKed earlier included (tcp-socket-base.cc lines 2207-2208,
2247, 2254 in 3.44); tcplab's SACK recovery grows nothing on that ACK by default. Two more tcplab
runs take ns-3's rule (`recovery_exit_growth = "ns3"`, docs/tcp-family.md): alone, and with
ns-3's PRR arithmetic too. ns-3's CUBIC (TcpCubic::IncreaseWindow, tcp-cubic.cc lines 216-231)
adds at most one segment per ACK and keeps the rest of its credit for the next ACKs, where
tcplab's (Linux's `tcp_cong_avoid_ai`) adds every whole cnt at once: the last run takes ns-3's
rule as well (`cc = { algorithm = "cubic", increase = "ns3" }`).

Measured over the 50 s, at the bottleneck's r1 -> r2 direction:
  * drops: the queue disc's drops (CoDel's at dequeue and overflows), and how many were CBR;
  * sojourn p50 / p99: the time each packet the queue disc dequeued (let go, or dropped at
    dequeue) spent in it. ns-3: the QueueDisc SojournTime trace, which covers both. tcplab:
    from the link's packet trace; a packet left the discipline, without a device queue, at its
    `dequeue` (start of serialization) or its sojourn `drop`; with a device queue of one, at
    the later of its `enqueue` and the previous packet's `dequeue` (when the one-packet ring
    had room: net/link.rs, whose known-answer tests check that rule), or at its sojourn `drop`;
  * CBR delay mean / p99: from the CBR packet's arrival at the bottleneck's queue disc to its
    last bit at r2 (ns-3: queue disc Enqueue to the r2 device's MacRx, matched by packet uid;
    tcplab: `enqueue` to `receive`);
  * goodput: the TCP flows' bytes delivered, Mbit/s; timeouts: the TCP senders' retransmission
    timeouts, every expiry of the timer (ns-3: where the socket's RTO doubles, in
    TcpSocketBase::ReTxTimeout, so the repeated timeouts of one CA_LOSS episode count too).

With --rto-events DIR every timeout of both sides is written out with the sender's state just
before it (what was outstanding and SACKed, whether the segment at snd_una had been
retransmitted since the recovery or the last timeout began, the timer's value, the time since
snd_una last advanced): ns-3's as DIR/ns3_<flows>_<bytes>.csv (the program's --rtoLog), and for
tcplab each scenario of the last column as DIR/tcplab_<flows>_<bytes>.toml, for
`cargo run --release -p tcplab-sim --example rto_events -- FILE.toml`, which writes the same
columns.

ns-3's side is a C++ program (bench/ns3_codel_cbr.cc) built once with g++ against the `ns3`
wheel's headers and libraries (faster than its Python bindings): NS3_PYTHON names an interpreter with
`pip install ns3` (3.44); the build goes to $NS3_BUILD_DIR (default: a directory under the
system's temporary directory). tcplab runs from the repository's .venv (`maturin develop`).

    NS3_PYTHON=/path/to/venv/bin/python python3 bench/ns3_codel_cbr.py [--quick] [--markdown] [--rfc]

ns-3's packets on the wire carry a 2-byte PPP header that tcplab's do not (0.13% of a 1500-byte
packet's serialization, 1% of a 200-byte one's).
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

import ns3_codel_replay as replay

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TCPLAB_PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
DURATION, WARMUP = 60.0, 10.0
# (TCP flows, CBR IP packet bytes, CBR rate bit/s)
SCENARIOS = [
    (2, 200, 1_000_000),
    (2, 500, 1_000_000),
    (4, 200, 1_000_000),
    (4, 500, 2_000_000),
    (8, 200, 1_000_000),
]

# ns-3's program, built by ns3_binary().
with open(os.path.join(HERE, "ns3_codel_cbr.cc")) as _f:
    CPP = _f.read()


def ns3_binary():
    """Builds the ns-3 program (once per source text) against NS3_PYTHON's ns3 wheel."""
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
    out_dir = os.environ.get("NS3_BUILD_DIR", os.path.join(tempfile.gettempdir(), "tcplab-ns3-codel-cbr"))
    os.makedirs(out_dir, exist_ok=True)
    tag = hashlib.sha256((CPP + base).encode()).hexdigest()[:12]
    exe = os.path.join(out_dir, f"codel_cbr_{tag}")
    if not os.path.exists(exe):
        src = exe + ".cc"
        with open(src, "w") as f:
            f.write(CPP)
        libs = sorted(
            {
                name[3:].split(".so")[0]
                for name in os.listdir(lib)
                if name.startswith("libns3") and ".so" in name
            }
        )
        cmd = [
            "g++",
            "-O2",
            "-std=c++20",
            "-w",
            f"-I{inc}",
            src,
            "-o",
            exe,
            f"-L{lib}",
            f"-Wl,-rpath,{lib}",
        ] + [f"-l{x}" for x in libs]
        t = time.time()
        subprocess.run(cmd, check=True)
        print(f"built {exe} in {time.time() - t:.0f} s", file=sys.stderr)
    return exe


def run_ns3(exe, ntcp, size, rate, devq=1, trace=None, prr_rfc=False, rto_log=None):
    out = subprocess.run(
        [
            exe,
            f"--ntcp={ntcp}",
            f"--cbrSize={size}",
            f"--cbrRate={rate}",
            f"--devq={devq}",
            f"--duration={DURATION}",
            f"--warm={WARMUP}",
        ]
        + ([f"--trace={trace}"] if trace else [])
        + (["--prrRfc=1"] if prr_rfc else [])
        + ([f"--rtoLog={rto_log}"] if rto_log else []),
        capture_output=True,
        text=True,
    )
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        sys.stderr.write(out.stdout[-2000:] + out.stderr[-4000:])
        raise SystemExit(f"ns-3 run failed (exit {out.returncode})")
    return json.loads(line[len("RESULT ") :])


def scenario(ntcp, size, rate, devq, ns3_codel=False, ns3_prr=False, ns3_exit=False, ns3_cubic=False):
    neck = {"rate": "10Mbit/s", "delay": "20ms", "queue": {"discipline": "codel", "limit": 1000}}
    if ns3_codel:
        # ns-3's CoDel arithmetic (bench/ns3_codel_replay.py): the Newton approximation of
        # 1/sqrt(count), and no drop while fewer than 1500 bytes (MinBytes) remain.
        neck["queue"]["codel"] = {"control_law": "newton", "maxpacket": 1499}
    if devq:
        neck["device_queue"] = devq
    flow = {
        "profile": "linux",
        "cc": "cubic",
        "ack": "delayed",
        "delack_timeout": "40ms",
        "frto": False,
        # A new recovery may start once snd_una reaches the last recovery point (RFC 6675 Sec.
        # 5.1, ns-3's rule; tcplab's default is RFC 6582's strict one): docs/tcp-family.md.
        "tcp": {"variant": "sack", "prr": True, "rack": False, "reentry": "rfc6675"},
        # ns-3's rules where they are not the linux profile's (module doc).
        "ack_counting": "delivered",
        "rto_granularity": "1ms",
        "rto_restart_on_retransmit": False,
    }
    if ns3_prr:
        # ns-3's PRR arithmetic (tcp-prr-recovery.cc; docs/tcp-family.md, `prr_rules`).
        flow["tcp"] = {**flow["tcp"], "prr_rules": "ns3"}
    if ns3_exit:
        # ns-3's growth on the ACK that ends a recovery (tcp-socket-base.cc; docs/tcp-family.md,
        # `recovery_exit_growth`).
        flow["tcp"] = {**flow["tcp"], "recovery_exit_growth": "ns3"}
    if ns3_cubic:
        # ns-3's CUBIC: at most one segment per ACK, the rest kept (tcp-cubic.cc;
        # docs/tcp-family.md, `increase`).
        flow["cc"] = {"algorithm": "cubic", "increase": "ns3"}
    return {
        "seed": 1,
        "duration": f"{DURATION:g}s",
        "warmup": f"{WARMUP:g}s",
        "network": {
            "dumbbell": {
                "bottleneck": neck,
                "access_rate": "100Mbit/s",
                "access_delay": "1ms",
                "access_queue": {"limit": 1000},
            }
        },
        "flows": [{**flow, "start": f"{0.1 * i:.1f}s"} for i in range(ntcp)],
        "traffic": [
            {"kind": "cbr", "name": "cbr", "rate": f"{rate}bit/s", "packet": f"{size}B", "start": "0s"}
        ],
        "trace": {"links": ["bottleneck.fwd"], "max_points": 50_000_000},
    }


def toml_value(x):
    """A scenario value as inline TOML (the scenarios here hold strings, numbers, booleans,
    lists and tables only)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, (int, float)):
        return repr(x)
    if isinstance(x, str):
        return json.dumps(x)
    if isinstance(x, list):
        return "[" + ", ".join(toml_value(e) for e in x) + "]"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k} = {toml_value(e)}" for k, e in x.items()) + "}"
    raise TypeError(f"no TOML for {x!r}")


def write_rto_events(out_dir, exe, ntcp, size, rate):
    """--rto-events: ns-3's timeouts as CSV, and tcplab's scenario (the last column's) as TOML."""
    os.makedirs(out_dir, exist_ok=True)
    run_ns3(exe, ntcp, size, rate, 1, rto_log=os.path.join(out_dir, f"ns3_{ntcp}_{size}.csv"))
    sc = scenario(ntcp, size, rate, 1, ns3_prr=True, ns3_exit=True, ns3_cubic=True)
    sc.pop("trace")
    with open(os.path.join(out_dir, f"tcplab_{ntcp}_{size}.toml"), "w") as f:
        f.write("".join(f"{k} = {toml_value(v)}\n" for k, v in sc.items()))


# Runs inside tcplab's .venv: the measures above from the bottleneck's packet trace.
TCPLAB_CHILD = r"""
import json, sys
import tcplab
sc, devq, warm = json.loads(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
r = tcplab.run(sc)
p = r.trace("packets")
ev = p["event"].cast(str).to_list(); t = p["time_ns"].to_list(); kind = p["kind"].cast(str).to_list()
flow = p["flow"].to_list(); seq = p["seq"].to_list(); ret = p["retransmit"].to_list()
W = int(warm * 1e9)
waiting = []          # packets in the discipline or the ring, oldest first: (key, enqueue ns)
sojourn, cbr_delay = [], []
enq_cbr = {}
drops = cbr_drops = sojourn_drops = 0
prev_start = None     # start of the previous packet's serialization
for i in range(len(ev)):
    key = (flow[i], kind[i], seq[i])
    if ev[i] == "enqueue":
        waiting.append((key, t[i]))
        if kind[i] == "udp" and t[i] >= W:
            enq_cbr[key] = t[i]
    elif ev[i] == "drop":
        if t[i] >= W:
            drops += 1
            cbr_drops += kind[i] == "udp"
            sojourn_drops += p["cause"][i] == "sojourn"
        j = next((j for j, w in enumerate(waiting) if w[0] == key), None)
        if j is not None:
            enq = waiting.pop(j)[1]
            # Dropped at the discipline's dequeue: ns-3's SojournTime counts these too.
            if p["cause"][i] == "sojourn" and t[i] >= W:
                sojourn.append(t[i] - enq)
    elif ev[i] == "dequeue":
        j = next(j for j, w in enumerate(waiting) if w[0] == key)
        enq = waiting.pop(j)[1]
        left = t[i] if devq == 0 else max(enq, prev_start if prev_start is not None else enq)
        if devq == 0 and t[i] >= W:
            sojourn.append(left - enq)
        elif devq == 1 and left >= W:
            sojourn.append(left - enq)
        prev_start = t[i]
    elif ev[i] == "receive" and kind[i] == "udp" and key in enq_cbr:
        cbr_delay.append(t[i] - enq_cbr.pop(key))
def pct(v, q):
    v = sorted(v)
    return v[int(q * (len(v) - 1) + 0.5)] / 1e9 if v else 0.0
fl = r.flows
good = sum(fl["goodput_bps"].to_list()) / 1e6
timeouts = sum(fl["timeouts"].to_list())
print("RESULT " + json.dumps({"drops": drops, "cbr_drops": cbr_drops, "sojourn_drops": sojourn_drops,
      "sojourn_p50": pct(sojourn, 0.5), "sojourn_p99": pct(sojourn, 0.99),
      "cbr_delay_mean": sum(cbr_delay) / len(cbr_delay) / 1e9 if cbr_delay else 0.0,
      "cbr_delay_p99": pct(cbr_delay, 0.99), "goodput_mbps": good, "dequeued": len(sojourn),
      "timeouts": timeouts}))
"""


def run_tcplab(ntcp, size, rate, devq, ns3_codel=False, ns3_prr=False, ns3_exit=False, ns3_cubic=False):
    sc = scenario(ntcp, size, rate, devq, ns3_codel, ns3_prr, ns3_exit, ns3_cubic)
    out = subprocess.run(
        [TCPLAB_PYTHON, "-c", TCPLAB_CHILD, json.dumps(sc), str(devq), str(WARMUP)],
        capture_output=True,
        text=True,
    )
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        sys.stderr.write(out.stderr[-4000:])
        raise SystemExit("tcplab run failed")
    return json.loads(line[len("RESULT ") :])


METRICS = [
    ("drops", "drops", 1),
    ("CBR drops", "cbr_drops", 1),
    ("sojourn p50 ms", "sojourn_p50", 1e3),
    ("sojourn p99 ms", "sojourn_p99", 1e3),
    ("CBR delay mean ms", "cbr_delay_mean", 1e3),
    ("CBR delay p99 ms", "cbr_delay_p99", 1e3),
    ("TCP goodput Mbit/s", "goodput_mbps", 1),
    ("TCP timeouts", "timeouts", 1),
]
TARGETS = ("drops", "sojourn_p50", "sojourn_p99", "cbr_delay_mean")
# The runs of each scenario, in the table's order.
SIDES = ("ns3", "tcplab1", "tcplab0", "tcplab1n", "tcplab1p", "ns3rfc", "tcplab1x", "tcplab1px", "tcplab1pxc")


def markdown(rows):
    lines = [
        "| TCP flows | CBR | measure | ns-3 (device queue 1) | tcplab device_queue = 1 | ratio | "
        "tcplab no device queue | ratio | tcplab device_queue = 1, ns-3's CoDel arithmetic | ratio | "
        "tcplab device_queue = 1, ns-3's PRR arithmetic | ratio | ns-3, PRR with RFC 6937's DeliveredData | "
        "tcplab device_queue = 1 / it | tcplab device_queue = 1, ns-3's exit growth | ratio | "
        "tcplab device_queue = 1, ns-3's PRR arithmetic and exit growth | ratio | "
        "tcplab device_queue = 1, ns-3's PRR arithmetic, exit growth and CUBIC increase | ratio |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        cbr = f"{r['size']} B, {r['rate'] / 1e6:g} Mbit/s"
        for label, key, scale in METRICS:
            ns3, one, zero, newton, prr, rfc, ext, prr_ext, prr_ext_cubic = (r[s][key] * scale for s in SIDES)
            ratio = lambda x: f"{x / ns3:.3f}" if ns3 else "-"  # noqa: B023 -- called in this iteration only
            ratio_rfc = f"{one / rfc:.3f}" if rfc else "-"
            fmt = (lambda x: f"{x:.0f}") if scale == 1 and key != "goodput_mbps" else (lambda x: f"{x:.3f}")
            mark = " *" if key in TARGETS else ""
            lines.append(
                f"| {r['ntcp']} | {cbr} | {label}{mark} | {fmt(ns3)} | {fmt(one)} | {ratio(one)} | "
                f"{fmt(zero)} | {ratio(zero)} | {fmt(newton)} | {ratio(newton)} | {fmt(prr)} | {ratio(prr)} | "
                f"{fmt(rfc)} | {ratio_rfc} | {fmt(ext)} | {ratio(ext)} | {fmt(prr_ext)} | {ratio(prr_ext)} | "
                f"{fmt(prr_ext_cubic)} | {ratio(prr_ext_cubic)} |"
            )
    return "\n".join(lines)


def rfc_markdown(rows):
    lines = [
        "| TCP flows | CBR | dequeues | ns-3 drops | decisions unlike RFC 8289's (replay drops) | "
        "first at | decisions unlike RFC 8289's with ns-3's arithmetic |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        rfc, ns3 = r["rfc"]["rfc"], r["rfc"]["ns3"]
        first = f"{rfc['first'][0]:.3f} s" if rfc["first"] else "-"
        lines.append(
            f"| {r['ntcp']} | {r['size']} B, {r['rate'] / 1e6:g} Mbit/s | {rfc['dequeues']} | {rfc['ns3_drops']} | "
            f"{rfc['differ']} ({rfc['replay_drops']}) | {first} | {ns3['differ']} |"
        )
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the first scenario only")
    ap.add_argument("--markdown", action="store_true", help="print the table as markdown")
    ap.add_argument("--save", help="write the measurements as JSON")
    ap.add_argument("--ns3-only", action="store_true", help="run ns-3's side only (with --save)")
    ap.add_argument(
        "--rfc",
        action="store_true",
        help="trace ns-3's CoDel and replay its decisions against RFC 8289 (bench/ns3_codel_replay.py)",
    )
    ap.add_argument(
        "--rto-events",
        metavar="DIR",
        help="write every timeout of ns-3 and tcplab's scenarios to DIR (module doc) and stop",
    )
    ap.add_argument(
        "--reuse-ns3",
        metavar="FILE",
        help="take ns-3's side from FILE (a --save of an earlier run) and run tcplab's",
    )
    a = ap.parse_args()
    if a.rto_events:
        exe = ns3_binary()
        for ntcp, size, rate in SCENARIOS[:1] if a.quick else SCENARIOS:
            write_rto_events(a.rto_events, exe, ntcp, size, rate)
        return
    old = {}
    if a.reuse_ns3:
        with open(a.reuse_ns3) as f:
            old = {(r["ntcp"], r["size"], r["rate"]): r["ns3"] for r in json.load(f)}
    exe = None if old else ns3_binary()
    rows = []
    t0 = time.time()
    for ntcp, size, rate in SCENARIOS[:1] if a.quick else SCENARIOS:
        ns3 = old.get((ntcp, size, rate))
        r = {"ntcp": ntcp, "size": size, "rate": rate}
        if a.rfc:
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "codel.txt")
                fresh = run_ns3(exe or ns3_binary(), ntcp, size, rate, 1, trace=path)
                ns3 = ns3 or fresh
                dequeues = replay.read_dequeues(path)
                r["rfc"] = {m: replay.replay(dequeues, m) for m in ("rfc", "ns3")}
        r["ns3"] = ns3 or run_ns3(exe or ns3_binary(), ntcp, size, rate, 1)
        r["ns3rfc"] = run_ns3(exe or ns3_binary(), ntcp, size, rate, 1, prr_rfc=True)
        rows.append(r)
        if a.ns3_only:
            print(json.dumps(r), flush=True)
            continue
        r["tcplab1"] = run_tcplab(ntcp, size, rate, 1)
        r["tcplab0"] = run_tcplab(ntcp, size, rate, 0)
        r["tcplab1n"] = run_tcplab(ntcp, size, rate, 1, ns3_codel=True)
        r["tcplab1p"] = run_tcplab(ntcp, size, rate, 1, ns3_prr=True)
        r["tcplab1x"] = run_tcplab(ntcp, size, rate, 1, ns3_exit=True)
        r["tcplab1px"] = run_tcplab(ntcp, size, rate, 1, ns3_prr=True, ns3_exit=True)
        r["tcplab1pxc"] = run_tcplab(ntcp, size, rate, 1, ns3_prr=True, ns3_exit=True, ns3_cubic=True)
        worst = max(abs(r["tcplab1"][k] / r["ns3"][k] - 1) for k in TARGETS if r["ns3"][k])
        print(
            f"{ntcp} TCP + CBR {size} B: "
            + "; ".join(
                f"{k} ns-3 {r['ns3'][k]:.4g} tcplab(1) {r['tcplab1'][k]:.4g} tcplab(0) {r['tcplab0'][k]:.4g}"
                for _, k, _ in METRICS
            )
            + f"; worst |ratio - 1| of the targets with device_queue = 1: {worst:.3f}",
            flush=True,
        )
    print(f"{time.time() - t0:.0f} s", file=sys.stderr)
    if a.save:
        with open(a.save, "w") as f:
            json.dump(rows, f, indent=1)
    if a.markdown and not a.ns3_only:
        print(markdown(rows))
    if a.markdown and a.rfc:
        print()
        print(rfc_markdown(rows))


if __name__ == "__main__":
    main()
