#!/usr/bin/env python3
"""ns-3 counterpart of tcplab's foundation benchmark (crates/tcplab-sim/benches/dumbbell.rs).

Scenario, as in the tcplab benchmark: N bulk TCP Reno flows, each from its own sender over its
own 1 Gbit/s, 1 ms access link to router r1; r1 -> r2 is a 100 Mbit/s, 20 ms bottleneck with a
100-packet drop-tail queue; r2 -> each receiver over its own 1 Gbit/s, 1 ms link. 1460-byte
segments, delayed ACKs (every 2nd segment, 200 ms timer), 64 MiB buffers, 30 s simulated,
static (global) routing.

ns-3 settings chosen to match tcplab's defaults (tcp = "reno"):
  * congestion control TcpNewReno: +1 MSS per ACK in slow start and MSS*MSS/cwnd per ACK in
    congestion avoidance, i.e. tcplab's default per-ACK window growth (TcpLinuxReno, which
    exists in 3.44, counts ACKed segments like RFC 3465 byte counting, tcplab's "abc").
    Loss recovery TcpClassicRecovery (cwnd = ssthresh + inflation, not PRR). ns-3's fast
    recovery is NewReno style (stays in recovery over partial ACKs); tcplab's Reno leaves it
    on the first new ACK, so loss dynamics, drops and packet counts differ by a few per cent;
  * SACK, timestamps and limited transmit off (tcplab's Reno defaults: 40-byte headers),
    initial cwnd 1 segment, min RTO 1 s, window scaling on (needed for 64 MiB windows);
  * queues: the PointToPoint device queue is a DropTailQueue of 100p on the bottleneck
    (1000p on access links, tcplab's access-queue default) and there is NO traffic-control
    queue disc: Ipv4AddressHelper.Assign installs ns-3's default FqCoDel root queue disc on
    every device, so it is removed again with TrafficControlHelper.Uninstall. The device queue
    is then the only queue, as in tcplab.

Measured per N, each run in a fresh process (so peak RSS is per N): wall time of
Simulator::Run() only, packets transmitted by the r1->r2 device (read from the device queue's
counters after the run: enqueued - still queued; no per-packet callback into Python), drops at
the bottleneck, goodput (bytes received by the PacketSinks) and peak RSS (ru_maxrss).
ns-3 has no public event counter, so events are not reported.

Usage (with an interpreter that has `pip install ns3`, the one bench/compare_peers.py takes
from $NS3_PYTHON):
    "$NS3_PYTHON" bench/ns3_dumbbell.py [--flows 1 16 128] [--reps 3] [--duration 30]
                    [--count queue|native-trace|python-trace]
--count native-trace also counts PhyTxEnd with a C++ callback (cross-check of the queue
counters); --count python-trace counts PhyTxEnd with a Python callback (one call from C++ into
Python per bottleneck packet), to show what tracing through cppyy costs.
"""

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import time

BOTTLENECK_BPS = 100e6
WIRE_BYTES = 1460 + 40 + 2  # payload + IPv4/TCP headers + PPP header on the ns-3 link


def vm_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def child(n, duration, count_mode):
    t_import = time.perf_counter()
    import cppyy
    from ns import ns

    t_setup = time.perf_counter()
    cppyy.cppdef(
        r"""
        #include <functional>
        namespace tcplab_bench {
        uint64_t g_phy_tx = 0;
        uint64_t g_tc_drops = 0;
        void CountTcDrop(ns3::Ptr<const ns3::Packet>) { ++g_tc_drops; }
        bool ConnectTcDrops(ns3::Ptr<ns3::Node> n) {
            // With no queue disc, a packet meeting a full (stopped) device queue is dropped by
            // the traffic-control layer, not by the device queue. Drops are rare: C++ counter.
            return n->GetObject<ns3::TrafficControlLayer>()->TraceConnectWithoutContext(
                "TcDrop", ns3::MakeCallback(&CountTcDrop));
        }
        std::function<void()> g_py_cb;
        void CountTx(ns3::Ptr<const ns3::Packet>) { ++g_phy_tx; }
        void CallPy(ns3::Ptr<const ns3::Packet>) { g_py_cb(); }
        ns3::Ptr<ns3::Queue<ns3::Packet>> TxQueue(ns3::Ptr<ns3::NetDevice> d) {
            return ns3::DynamicCast<ns3::PointToPointNetDevice>(d)->GetQueue();
        }
        void ConnectNative(ns3::Ptr<ns3::NetDevice> d) {
            d->TraceConnectWithoutContext("PhyTxEnd", ns3::MakeCallback(&CountTx));
        }
        void ConnectPy(ns3::Ptr<ns3::NetDevice> d, std::function<void()> f) {
            g_py_cb = f;
            d->TraceConnectWithoutContext("PhyTxEnd", ns3::MakeCallback(&CallPy));
        }
        uint64_t SinkRx(ns3::Ptr<ns3::Application> a) {
            return ns3::DynamicCast<ns3::PacketSink>(a)->GetTotalRx();
        }
        }
        """
    )
    B = cppyy.gbl.tcplab_bench

    def cfg(path, value):
        ns.Config.SetDefault(path, value)

    cfg("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TcpNewReno.GetTypeId()))
    cfg("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TcpClassicRecovery.GetTypeId()))
    cfg("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1460))
    cfg("ns3::TcpSocket::SndBufSize", ns.UintegerValue(64 << 20))
    cfg("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(64 << 20))
    cfg("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(1))
    cfg("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
    cfg("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.MilliSeconds(200)))
    cfg("ns3::TcpSocketBase::Sack", ns.BooleanValue(False))
    cfg("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    cfg("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(False))
    cfg("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))
    cfg("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(1)))

    senders, receivers, routers = ns.NodeContainer(), ns.NodeContainer(), ns.NodeContainer()
    senders.Create(n)
    receivers.Create(n)
    routers.Create(2)
    r1, r2 = routers.Get(0), routers.Get(1)
    stack = ns.InternetStackHelper()
    for c in (senders, receivers, routers):
        stack.Install(c)

    access = ns.PointToPointHelper()
    access.SetDeviceAttribute("DataRate", ns.StringValue("1Gbps"))
    access.SetChannelAttribute("Delay", ns.StringValue("1ms"))
    access.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue("1000p"))
    neck = ns.PointToPointHelper()
    neck.SetDeviceAttribute("DataRate", ns.StringValue("100Mbps"))
    neck.SetChannelAttribute("Delay", ns.StringValue("20ms"))
    neck.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue("100p"))

    addr = ns.Ipv4AddressHelper()
    tc = ns.TrafficControlHelper()
    mask = ns.Ipv4Mask("255.255.255.0")

    def link(helper, a, b, net):
        devs = helper.Install(a, b)
        addr.SetBase(ns.Ipv4Address(net), mask)
        ifaces = addr.Assign(devs)
        tc.Uninstall(devs)  # Assign installed the default FqCoDel queue disc: remove it
        return devs, ifaces

    neck_devs, _ = link(neck, r1, r2, "10.0.0.0")
    sink_addrs = []
    for i in range(n):
        link(access, senders.Get(i), r1, f"10.1.{i}.0")
        _, ifs = link(access, r2, receivers.Get(i), f"10.2.{i}.0")
        sink_addrs.append(ifs.GetAddress(1))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    port = 9
    sinks = ns.ApplicationContainer()
    for i in range(n):
        bulk = ns.BulkSendHelper(
            "ns3::TcpSocketFactory",
            ns.InetSocketAddress(sink_addrs[i], port).ConvertTo(),
        )
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(1460 * 64))
        apps = bulk.Install(senders.Get(i))
        apps.Start(ns.Seconds(0))
        sink = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory",
            ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo(),
        )
        sinks.Add(sink.Install(receivers.Get(i)))
    sinks.Start(ns.Seconds(0))

    neck_dev = neck_devs.Get(0)  # r1's end: the r1 -> r2 direction
    queue = B.TxQueue(neck_dev)
    py_count = [0]
    if not B.ConnectTcDrops(r1):
        raise SystemExit("could not connect TrafficControlLayer TcDrop trace")
    if count_mode == "native-trace":
        B.ConnectNative(neck_dev)
    elif count_mode == "python-trace":

        def on_tx():
            py_count[0] += 1

        B.ConnectPy(neck_dev, on_tx)

    ns.Simulator.Stop(ns.Seconds(duration))
    rss_before = vm_kib("VmRSS") / 1024.0
    t_run = time.perf_counter()
    ns.Simulator.Run()
    t_end = time.perf_counter()

    enq = queue.GetTotalReceivedPackets()
    tx = enq - queue.GetNPackets()  # dequeued = handed to the PHY (last one may be mid-wire)
    drops = queue.GetTotalDroppedPackets() + B.g_tc_drops
    goodput_bytes = sum(B.SinkRx(sinks.Get(i)) for i in range(n))
    out = {
        "flows": n,
        "count": count_mode,
        "import_s": t_setup - t_import,
        "setup_s": t_run - t_setup,
        "wall_s": t_end - t_run,
        "bottleneck_pkts": int(tx),
        "bottleneck_drops": int(drops),
        "phy_tx_native": int(B.g_phy_tx) if count_mode == "native-trace" else None,
        "phy_tx_python": py_count[0] if count_mode == "python-trace" else None,
        "goodput_bytes": int(goodput_bytes),
        "rss_before_run_mib": rss_before,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }
    ns.Simulator.Destroy()
    print("RESULT " + json.dumps(out), flush=True)


def run_child(n, duration, count_mode):
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        str(n),
        "--duration",
        str(duration),
        "--count",
        count_mode,
    ]
    p = subprocess.run(cmd, capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    sys.stderr.write(p.stdout + p.stderr)
    raise SystemExit(f"ns-3 child for {n} flows failed (exit {p.returncode})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", type=int, nargs="+", default=[1, 16, 128])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--duration", type=float, default=30.0, help="simulated seconds")
    ap.add_argument("--count", choices=["queue", "native-trace", "python-trace"], default="queue")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true", help="also print every run as JSON")
    a = ap.parse_args()
    if importlib.util.find_spec("ns") is None:
        raise SystemExit(
            f"error: {sys.executable} has no ns-3 (`pip install ns3`): run this script "
            "with the interpreter NS3_PYTHON names"
        )
    if a.child is not None:
        child(a.child, a.duration, a.count)
        return

    print(
        f"ns-3 dumbbell: TcpNewReno + TcpClassicRecovery, device DropTail 100p, no queue "
        f"disc, {a.duration:g} s simulated, median of {a.reps} (fresh process per run), "
        f"counting: {a.count}",
        flush=True,
    )
    print(
        f"{'flows':>6} {'wall s':>9} {'bottleneck pkts':>16} {'bottleneck pkt/s':>16} "
        f"{'peak MiB':>9} {'util %':>7} {'goodput Mb/s':>13} {'drops':>7} {'walls':>24}",
        flush=True,
    )
    for n in a.flows:
        runs = []
        for _ in range(a.reps):
            r = run_child(n, a.duration, a.count)
            runs.append(r)
            if a.json:
                print(json.dumps(r), file=sys.stderr, flush=True)
        walls = sorted(r["wall_s"] for r in runs)
        wall = statistics.median(walls)
        r = runs[-1]
        pkts = r["bottleneck_pkts"]
        util = 100.0 * pkts * WIRE_BYTES * 8 / (BOTTLENECK_BPS * a.duration)
        goodput = r["goodput_bytes"] * 8 / a.duration / 1e6
        peak = max(x["peak_mib"] for x in runs)
        print(
            f"{n:>6} {wall:>9.3f} {pkts:>16} {pkts / wall:>16.0f} {peak:>9.1f} {util:>7.2f} "
            f"{goodput:>13.2f} {r['bottleneck_drops']:>7} "
            f"{'/'.join(f'{w:.2f}' for w in walls):>24}",
            flush=True,
        )
        for key in ("phy_tx_native", "phy_tx_python"):
            if r.get(key) is not None:
                print(f"{'':>6} {key} = {r[key]} (queue counters: {pkts})", flush=True)


if __name__ == "__main__":
    main()
