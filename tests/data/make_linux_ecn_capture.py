"""Records tests/data/linux-ecn.pcap: one real Linux TCP connection with classic ECN
(net.ipv4.tcp_ecn = 1 in its namespaces) from a sender's network namespace through a router's
to a receiver's (veth pairs, offloads off), the router marking the ECT(0) data segments it
forwards CE at random (iptables' statistic match and TOS target in its mangle FORWARD chain),
captured by tcpdump at the receiver's interface, where the marks are seen. The kernel's own
counts go to tests/data/linux-ecn.json: the rule's packet counter (segments marked), the
receiver namespace's IpExt counters of the ECN field of what it received (InNoECTPkts,
InECT0Pkts, InECT1Pkts, InCEPkts), the sender's TCP_INFO (tcpi_options' ECN bits,
tcpi_delivered_ce) and `ss -tin`. Needs root, `ip`, `iptables`, `tcpdump` and `ethtool`.

    sudo .venv/bin/python tests/data/make_linux_ecn_capture.py [--mark 0.02] [--bytes 1000000]

This kernel has no marking qdisc (no sch_red, sch_codel, sch_fq_codel, sch_pie or sch_dualpi2),
hence the iptables marks: they are random, not a queue's, but the kernel's TCP answers them as
it answers any CE (ECE until CWR, one reduction per window). The router receives with GRO off,
so it marks wire packets one by one (marking at the sender's own POSTROUTING would mark its
GSO super-packets, each a burst of segments on the wire). Everything it creates (three
namespaces, two veth pairs, the rule inside the router's namespace) is removed at the end, also
on failure. No traffic leaves the namespaces; the host's sysctls are not touched.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NS_SND, NS_RTR, NS_RCV = "tcplab-ecn-snd", "tcplab-ecn-rtr", "tcplab-ecn-rcv"
IF_SND, IF_RTR_A, IF_RTR_B, IF_RCV = "tlecn-snd", "tlecn-ra", "tlecn-rb", "tlecn-rcv"
ADDR_SND, ADDR_RTR_A, ADDR_RTR_B, ADDR_RCV = "10.232.0.1", "10.232.0.254", "10.232.1.254", "10.232.1.2"
PORT = 5001


def sh(*args: str, ns: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def cleanup() -> None:
    for ns in (NS_SND, NS_RTR, NS_RCV):
        sh("ip", "netns", "del", ns, check=False)  # takes its veth end and iptables rules along


def mark_rule(probability: float) -> list[str]:
    return [
        "FORWARD",
        "-o",
        IF_RTR_B,
        "-p",
        "tcp",
        "--dport",
        str(PORT),
        "-m",
        "ecn",
        "--ecn-ip-ect",
        "2",
        "-m",
        "statistic",
        "--mode",
        "random",
        "--probability",
        str(probability),
        "-j",
        "TOS",
        "--set-tos",
        "0x03/0x03",
    ]


def setup(probability: float) -> None:
    for ns in (NS_SND, NS_RTR, NS_RCV):
        sh("ip", "netns", "add", ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)
    sh(
        "ip",
        "link",
        "add",
        IF_SND,
        "netns",
        NS_SND,
        "type",
        "veth",
        "peer",
        "name",
        IF_RTR_A,
        "netns",
        NS_RTR,
    )
    sh(
        "ip",
        "link",
        "add",
        IF_RTR_B,
        "netns",
        NS_RTR,
        "type",
        "veth",
        "peer",
        "name",
        IF_RCV,
        "netns",
        NS_RCV,
    )
    for ns, dev, addr in (
        (NS_SND, IF_SND, ADDR_SND),
        (NS_RTR, IF_RTR_A, ADDR_RTR_A),
        (NS_RTR, IF_RTR_B, ADDR_RTR_B),
        (NS_RCV, IF_RCV, ADDR_RCV),
    ):
        sh("ip", "addr", "add", f"{addr}/24", "dev", dev, ns=ns)
        sh("ip", "link", "set", dev, "up", ns=ns)
        sh("ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off", ns=ns)
    sh("ip", "route", "add", "default", "via", ADDR_RTR_A, ns=NS_SND)
    sh("ip", "route", "add", "default", "via", ADDR_RTR_B, ns=NS_RCV)
    sh("sysctl", "-q", "-w", "net.ipv4.ip_forward=1", ns=NS_RTR)
    for ns in (NS_SND, NS_RCV):
        # Classic ECN: request it on outgoing SYNs and accept it on incoming ones (ip-sysctl).
        sh("sysctl", "-q", "-w", "net.ipv4.tcp_ecn=1", ns=ns)
    # Only ECT(0) segments, as a marking queue would (RFC 3168 Sec. 5: Not-ECT is dropped,
    # never marked; Linux sends retransmissions and pure ACKs Not-ECT).
    sh("iptables", "-t", "mangle", "-A", *mark_rule(probability), ns=NS_RTR)


def rule_packets() -> int:
    out = sh("iptables", "-t", "mangle", "-L", "FORWARD", "-v", "-x", "-n", ns=NS_RTR).stdout
    rows = [line.split() for line in out.splitlines() if "TOS" in line]
    return int(rows[0][0])


def ip_ext(ns: str) -> dict[str, int]:
    """The namespace's IpExt counters of received packets by ECN field (/proc/net/netstat)."""
    lines = sh("cat", "/proc/net/netstat", ns=ns).stdout.splitlines()
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if names.startswith("IpExt:"):
            table = dict(zip(names.split()[1:], map(int, values.split()[1:]), strict=True))
            return {k: table[k] for k in ("InNoECTPkts", "InECT1Pkts", "InECT0Pkts", "InCEPkts")}
    raise RuntimeError("no IpExt line in /proc/net/netstat")


SERVER = f"""
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("{ADDR_RCV}", {PORT})); s.listen(1); print("ready", flush=True)
c, _ = s.accept(); n = 0
while True:
    b = c.recv(1 << 16)
    if not b: break
    n += len(b)
c.close(); print(n, flush=True)
"""


def tcp_info(sock: socket.socket) -> dict:
    """The fields of struct tcp_info (linux/tcp.h) this check uses."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    u32 = struct.unpack_from("<24I", raw, 8)
    names = ["rto", "ato", "snd_mss", "rcv_mss", "unacked", "sacked", "lost", "retrans", "fackets"]
    names += ["last_data_sent", "last_ack_sent", "last_data_recv", "last_ack_recv", "pmtu"]
    names += ["rcv_ssthresh", "rtt", "rttvar", "snd_ssthresh", "snd_cwnd", "advmss", "reordering"]
    names += ["rcv_rtt", "rcv_space", "total_retrans"]
    info = dict(zip(names, u32, strict=True))
    # tcpi_options (byte 5): TCPI_OPT_ECN 8 (negotiated), TCPI_OPT_ECN_SEEN 16 (a CE or ECE
    # arrived); tcpi_data_segs_out at 156, tcpi_delivered and tcpi_delivered_ce at 192 and 196.
    info["ecn_negotiated"] = bool(raw[5] & 8)
    info["ecn_seen"] = bool(raw[5] & 16)
    (info["data_segs_out"],) = struct.unpack_from("<I", raw, 156)
    info["delivered"], info["delivered_ce"] = struct.unpack_from("<2I", raw, 192)
    return info


def client(nbytes: int, cc: str) -> dict:
    """Runs in the sender's namespace: sends, waits until all is acknowledged, reads TCP_INFO."""
    s = socket.socket()
    # A module that answers ECN (BBR v1 ignores it: tcp_bbr.c has no ECN response).
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    s.connect((ADDR_RCV, PORT))
    s.sendall(bytes(nbytes))
    deadline = time.monotonic() + 60
    while tcp_info(s)["unacked"] and time.monotonic() < deadline:
        time.sleep(0.01)
    info = tcp_info(s)
    ss = subprocess.run(["ss", "-tin", "dst", ADDR_RCV], capture_output=True, text=True).stdout
    s.close()
    return {"tcp_info": info, "ss": ss}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mark", type=float, default=0.02, help="probability of marking an ECT(0) segment CE")
    ap.add_argument("--bytes", type=int, default=1_000_000)
    ap.add_argument("--snaplen", type=int, default=80)
    ap.add_argument("--cc", default="cubic", help="the sender's congestion control module")
    ap.add_argument("--out", type=Path, default=HERE / "linux-ecn")
    ap.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.client:
        json.dump(client(a.bytes, a.cc), sys.stdout)
        return 0
    if os.geteuid() != 0:
        print("error: needs root (network namespaces, iptables, tcpdump)", file=sys.stderr)
        return 2
    pcap = a.out.with_suffix(".pcap")
    cleanup()
    dump = server = None
    try:
        setup(a.mark)
        before = ip_ext(NS_RCV)
        dump = subprocess.Popen(
            ["ip", "netns", "exec", NS_RCV, "tcpdump", "-i", IF_RCV, "-s", str(a.snaplen), "-U"]
            + ["-w", str(pcap), "tcp", "port", str(PORT)],
            stderr=subprocess.PIPE,
            text=True,
        )
        assert dump.stderr is not None
        dump.stderr.readline()  # "listening on ..."
        server = subprocess.Popen(
            ["ip", "netns", "exec", NS_RCV, sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True
        )
        assert server.stdout is not None
        assert server.stdout.readline().strip() == "ready"
        out = sh(sys.executable, __file__, "--client", "--bytes", str(a.bytes), "--cc", a.cc, ns=NS_SND)
        report = json.loads(out.stdout)
        received = int(server.stdout.readline())
        server.wait(timeout=10)
        time.sleep(0.5)
        dump.send_signal(signal.SIGINT)
        dump.wait(timeout=10)
        after = ip_ext(NS_RCV)
        report |= {
            "bytes": a.bytes,
            "received": received,
            "mark_probability": a.mark,
            "cc": a.cc,
            "marked_by_rule": rule_packets(),
            "receiver_ip_ext": {k: after[k] - before[k] for k in after},
            "snaplen": a.snaplen,
            "kernel": os.uname().release,
        }
        a.out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
        print(json.dumps(report["tcp_info"]), report["ss"], sep="\n")
        print(json.dumps({k: report[k] for k in ("marked_by_rule", "receiver_ip_ext")}))
        print(f"wrote {pcap} ({pcap.stat().st_size} bytes) and {a.out.with_suffix('.json')}")
        return 0
    finally:
        for p in (server, dump):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
        cleanup()


if __name__ == "__main__":
    sys.exit(main())
