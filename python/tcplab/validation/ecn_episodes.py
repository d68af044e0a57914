"""The ECE responses of docs/validation/ecn.md's kernel runs, read from a capture at the
senders: the kernel's from the emulated run's capture, tcplab's from the simulated run's
capture at the sender's node (`trace.pcap`), so that both sides are measured by one reader.

The sender's CWR state is followed as Linux keeps it (net/ipv4/tcp_input.c): an ACK with ECE
in the Open state enters CWR (`tcp_try_to_open` -> `tcp_enter_cwr`) with high_seq = snd_nxt
(`tcp_init_cwnd_reduction`); the state ends on the first ACK with snd_una above high_seq
(`tcp_fastretrans_alert`, "CWR is to be held something *above* high_seq is ACKed"), and an
ECE on that same ACK enters CWR again at once (the state's exit is checked before the ECE
is). For each reduction:

* *second*: it was entered on the very ACK that ended the one before, so one marking episode
  cut the window twice: the receiver still echoed ECE when the reduction's round ended because
  the segment carrying CWR, or one after it, arrived CE (`tcp_ecn_accept_cwr` clears the
  echo, `__tcp_ecn_check_ce` sets it again). A reduction entered on a later ACK, even one
  of the next round, is not counted as second;
* *held*: the ACK that entered CWR released no data before the next ACK arrived;
* the data in flight, in segments, just after the segment carrying CWR left: at a step
  queue it decides whether that segment finds the queue above the threshold and so whether
  a second reduction follows.

`summary` keeps, per window: reductions, second reductions, held entries and, per flight
when CWR left, (first reductions, of them followed by a second one).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

#: TCP flags.
CWR, ECE = 0x80, 0x40
#: libpcap's magic numbers (microsecond and nanosecond timestamps) and link types.
MAGIC_US, MAGIC_NS = 0xA1B2C3D4, 0xA1B23C4D
LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_IPV4 = 1, 101, 228


class EpisodeError(ValueError):
    """A file that is not a libpcap capture of IPv4 TCP this reader takes."""


@dataclass(frozen=True)
class Packet:
    time_s: float
    src: tuple[bytes, int]
    dst: tuple[bytes, int]
    seq: int
    ack: int
    length: int
    flags: int


def read_capture(path: Path) -> list[Packet]:
    """The IPv4 TCP packets of a libpcap file (Ethernet or raw IP frames)."""
    data = Path(path).read_bytes()
    if len(data) < 24:
        raise EpisodeError(f"{path}: not a libpcap file (shorter than its 24-byte header)")
    magic, linktype = struct.unpack_from("<I", data)[0], struct.unpack_from("<I", data, 20)[0]
    if magic not in (MAGIC_US, MAGIC_NS):
        raise EpisodeError(f"{path}: magic {magic:#x} (expected libpcap, little-endian)")
    if linktype not in (LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_IPV4):
        raise EpisodeError(f"{path}: link type {linktype} (expected Ethernet 1 or raw IPv4 101 / 228)")
    unit = 1e-9 if magic == MAGIC_NS else 1e-6
    out, off = [], 24
    while off + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack_from("<IIII", data, off)
        frame = data[off + 16 : off + 16 + caplen]
        off += 16 + caplen
        ip = frame[14:] if linktype == LINKTYPE_ETHERNET else frame
        if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
            continue
        ihl, total = (ip[0] & 15) * 4, struct.unpack_from(">H", ip, 2)[0]
        tcp = ip[ihl:]
        if len(tcp) < 20:
            continue
        sport, dport, seq, ack = struct.unpack_from(">HHII", tcp)
        length = total - ihl - (tcp[12] >> 4) * 4
        out.append(
            Packet(sec + frac * unit, (ip[12:16], sport), (ip[16:20], dport), seq, ack, length, tcp[13])
        )
    return out


def _unwrap(prev: int | None, value: int) -> int:
    """A 32-bit sequence number as a position near `prev` (wraps followed)."""
    if prev is None:
        return value
    d = (value - prev) % (1 << 32)
    return prev + (d - (1 << 32) if d >= 1 << 31 else d)


def reductions(packets: list[Packet], mss: int) -> list[dict]:
    """Every CWR episode of every connection whose data the capture holds, in time order
    (`conn`: the connection's number in order of appearance)."""
    if mss <= 0:
        raise ValueError(f"mss: {mss} (expected a segment size > 0 bytes)")
    senders = {p.src for p in packets if p.length > 0}
    conns: dict[tuple, dict] = {}
    out: list[dict] = []
    for p in packets:
        data = p.src in senders and p.length > 0
        key = (p.src, p.dst) if p.src in senders else (p.dst, p.src)
        if key[0] not in senders:
            continue
        if key not in conns:
            conns[key] = {
                "id": len(conns),
                "base": None,
                "last": None,
                "nxt": 0,
                "una": 0,
                "cwr": None,
                "ep": None,
            }
        c = conns[key]
        if data:
            raw = _unwrap(c["last"], p.seq)
            c["last"] = raw
            if c["base"] is None:
                c["base"] = raw
            c["nxt"] = max(c["nxt"], raw - c["base"] + p.length)
            ep = c["ep"]
            if ep is not None and ep["released"] is None:
                ep["released"] = True
            if ep is not None and p.flags & CWR and ep["cwr_flight"] is None:
                ep["cwr_flight"] = -(-(c["nxt"] - c["una"]) // mss)
            continue
        if p.src in senders or c["base"] is None:
            continue
        acked = _unwrap(c["last"], p.ack) - c["base"]
        c["una"] = max(c["una"], acked)
        if c["ep"] is not None and c["ep"]["released"] is None:
            c["ep"]["released"] = False
        ended = c["cwr"] is not None and c["una"] > c["cwr"]
        if ended:
            c["cwr"] = None
        if c["cwr"] is None and p.flags & ECE:
            c["cwr"] = c["nxt"]
            c["ep"] = {
                "conn": c["id"],
                "time_s": p.time_s,
                "second": ended,
                "flight": -(-(c["nxt"] - c["una"]) // mss),
                "released": None,
                "cwr_flight": None,
            }
            out.append(c["ep"])
    return out


def summary(eps: list[dict], start: float, end: float) -> dict:
    """The window's reductions (`start` <= the entering ACK < `end`): counts of all, second
    and held ones, and per flight when CWR left {flight: [first reductions, followed by a
    second]} (keys as strings, JSON's)."""
    inside = [i for i, e in enumerate(eps) if start <= e["time_s"] < end]
    after: dict[int, int] = {}  # each reduction's next one of the same connection
    last: dict[int, int] = {}
    for i, e in enumerate(eps):
        if e["conn"] in last:
            after[last[e["conn"]]] = i
        last[e["conn"]] = i
    flights: dict[int, list[int]] = {}
    for i in inside:
        e = eps[i]
        if e["second"] or e["cwr_flight"] is None:
            continue
        followed = i in after and eps[after[i]]["second"]
        row = flights.setdefault(e["cwr_flight"], [0, 0])
        row[0] += 1
        row[1] += followed
    return {
        "reductions": len(inside),
        "second": sum(eps[i]["second"] for i in inside),
        "held": sum(eps[i]["released"] is False for i in inside),
        "cwr_flight": {str(f): flights[f] for f in sorted(flights)},
    }


def from_capture(pcap: Path, start: float, end: float, mss: int) -> dict:
    """`summary` of a capture at the senders between `start` and `end` (its own clock)."""
    return summary(reductions(read_capture(pcap), mss), start, end)


def mean_cwr_flight(s: dict) -> float:
    """The mean flight (segments) when the segment carrying CWR left, first reductions only;
    NaN without any."""
    n = sum(v[0] for v in s["cwr_flight"].values())
    return sum(int(f) * v[0] for f, v in s["cwr_flight"].items()) / n if n else float("nan")
