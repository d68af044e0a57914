"""Records tests/data/linux-loss.pcap: one real Linux TCP connection between two network
namespaces joined by a veth pair, with random loss of the data segments (iptables' statistic
match at the receiver), captured by tcpdump at the sender's interface, and what the kernel
itself reports for the sender's socket once all its data is acknowledged (TCP_INFO and
`ss -tin`) in tests/data/linux-loss.json. Needs root, `ip`, `iptables` and `tcpdump`.

    sudo .venv/bin/python tests/data/make_linux_capture.py [--loss 0.02] [--bytes 1000000]

Everything it creates (two namespaces, the veth pair, the iptables rule inside the receiver's
namespace) is removed at the end, also on failure. No traffic leaves the namespaces.
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
NS_SND, NS_RCV = "tcplab-cap-snd", "tcplab-cap-rcv"
IF_SND, IF_RCV = "tlcap-snd", "tlcap-rcv"
ADDR_SND, ADDR_RCV = "10.231.0.1", "10.231.0.2"
PORT = 5001


def sh(*args: str, ns: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def cleanup() -> None:
    for ns in (NS_SND, NS_RCV):
        sh("ip", "netns", "del", ns, check=False)  # takes its veth end and iptables rules along


def setup(loss: float) -> None:
    sh("ip", "netns", "add", NS_SND)
    sh("ip", "netns", "add", NS_RCV)
    sh("ip", "link", "add", IF_SND, "netns", NS_SND, "type", "veth", "peer", "name", IF_RCV, "netns", NS_RCV)
    for ns, dev, addr in ((NS_SND, IF_SND, ADDR_SND), (NS_RCV, IF_RCV, ADDR_RCV)):
        sh("ip", "addr", "add", f"{addr}/24", "dev", dev, ns=ns)
        sh("ip", "link", "set", dev, "up", ns=ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)
        # Segments of at most one MSS on the wire, as a capture of a real path shows them.
        sh("ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off", ns=ns, check=False)
    sh(
        "iptables",
        "-A",
        "INPUT",
        "-p",
        "tcp",
        "--dport",
        str(PORT),
        "-m",
        "statistic",
        "--mode",
        "random",
        "--probability",
        str(loss),
        "-j",
        "DROP",
        ns=NS_RCV,
    )


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
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    u32 = struct.unpack_from("<24I", raw, 8)
    names = [
        "rto",
        "ato",
        "snd_mss",
        "rcv_mss",
        "unacked",
        "sacked",
        "lost",
        "retrans",
        "fackets",
        "last_data_sent",
        "last_ack_sent",
        "last_data_recv",
        "last_ack_recv",
        "pmtu",
        "rcv_ssthresh",
        "rtt",
        "rttvar",
        "snd_ssthresh",
        "snd_cwnd",
        "advmss",
        "reordering",
        "rcv_rtt",
        "rcv_space",
        "total_retrans",
    ]
    return dict(zip(names, u32, strict=True))


def client(nbytes: int) -> dict:
    """Runs in the sender's namespace: sends, waits until all is acknowledged, reads TCP_INFO."""
    s = socket.create_connection((ADDR_RCV, PORT))
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
    ap.add_argument("--loss", type=float, default=0.02)
    ap.add_argument("--bytes", type=int, default=1_000_000)
    ap.add_argument("--snaplen", type=int, default=80)
    ap.add_argument("--out", type=Path, default=HERE / "linux-loss")
    ap.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.client:
        json.dump(client(a.bytes), sys.stdout)
        return 0
    if os.geteuid() != 0:
        print("error: needs root (network namespaces, iptables, tcpdump)", file=sys.stderr)
        return 2
    pcap = a.out.with_suffix(".pcap")
    cleanup()
    dump = server = None
    try:
        setup(a.loss)
        dump = subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                NS_SND,
                "tcpdump",
                "-i",
                IF_SND,
                "-s",
                str(a.snaplen),
                "-U",
                "-w",
                str(pcap),
                "tcp",
                "port",
                str(PORT),
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        dump.stderr.readline()  # "listening on ..."
        server = subprocess.Popen(
            ["ip", "netns", "exec", NS_RCV, sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True
        )
        assert server.stdout.readline().strip() == "ready"
        out = sh(sys.executable, __file__, "--client", "--bytes", str(a.bytes), ns=NS_SND)
        report = json.loads(out.stdout)
        received = int(server.stdout.readline())
        server.wait(timeout=10)
        time.sleep(0.5)
        dump.send_signal(signal.SIGINT)
        dump.wait(timeout=10)
        report |= {
            "bytes": a.bytes,
            "received": received,
            "loss": a.loss,
            "snaplen": a.snaplen,
            "kernel": os.uname().release,
        }
        a.out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
        print(json.dumps(report["tcp_info"]), report["ss"], sep="\n")
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
