"""ECE responses read from a capture at the sender (`tcplab.validation.ecn_episodes`): known
answers from a scripted capture (Linux's CWR state: entry on ECE in Open, end on the first
ACK above high_seq, a second entry on that same ACK), the same from raw-IP and Ethernet frames
and across a sequence-number wrap, and tcplab's own capture of the kernel page's step cell."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest

from tcplab.validation import ecn_episodes, ecn_kernel

MSS = 1000
SENDER = (bytes([10, 0, 0, 1]), 10000)
RECEIVER = (bytes([10, 128, 0, 1]), 5001)
ACK, PSH = 0x10, 0x08


def frame(src, dst, seq: int, ack: int, length: int, flags: int) -> bytes:
    tcp = struct.pack(
        ">HHIIBBHHH", src[1], dst[1], seq % (1 << 32), ack % (1 << 32), 5 << 4, flags, 65535, 0, 0
    )
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 2, 20 + 20 + length, 0, 0, 64, 6, 0, src[0], dst[0])
    return ip + tcp + bytes(length)


def write_pcap(path: Path, events, isn: int = 0, ethernet: bool = False) -> Path:
    """`events`: (time s, "D" data segment number / "A" cumulative ACK in segments, flags)."""
    out = [struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1 if ethernet else 101)]
    for t, kind, n, flags in events:
        if kind == "D":
            f = frame(SENDER, RECEIVER, isn + n * MSS, 1, MSS, flags | ACK | PSH)
        else:
            f = frame(RECEIVER, SENDER, 1, isn + n * MSS, 0, flags | ACK)
        if ethernet:
            f = bytes(12) + b"\x08\x00" + f
        ns = round(t * 1e9)
        out.append(struct.pack("<IIII", ns // 10**9, ns % 10**9, len(f), len(f)) + f)
    path.write_bytes(b"".join(out))
    return path


ECE, CWR = ecn_episodes.ECE, ecn_episodes.CWR

#: Segments 0-9 out; an ACK of 2 releases 10 and 11 (snd_nxt 12). The ECE on the 1-segment
#: ACK of 3 enters CWR (high_seq 12, flight 9) and releases nothing before the next ACK (held);
#: the next ACK releases 12 with CWR (flight 13 - 4 = 9). The ACK of 12 is not above high_seq;
#: the ACK of 13 is, and carries ECE: the state ends and a second reduction starts on it
#: (high_seq 13), whose CWR segment 13 leaves at once (flight 1). An ACK without ECE ends it.
#: Later an ECE on the ACK of 15 starts a new episode (high_seq 16, CWR on 16: flight 2),
#: ended by the ACK of 17.
SCRIPT = (
    [(0.0, "D", n, 0) for n in range(10)]
    + [(1.0, "A", 2, 0), (1.0, "D", 10, 0), (1.0, "D", 11, 0)]
    + [(1.1, "A", 3, ECE), (1.2, "A", 4, ECE), (1.2, "D", 12, CWR), (1.3, "A", 12, ECE)]
    + [(1.4, "A", 13, ECE), (1.4, "D", 13, CWR), (1.5, "A", 14, 0), (1.5, "D", 14, 0), (1.5, "D", 15, 0)]
    + [(2.0, "A", 15, ECE), (2.0, "D", 16, CWR), (2.5, "A", 17, 0)]
)


def test_reductions_of_a_scripted_capture(tmp_path):
    eps = ecn_episodes.reductions(ecn_episodes.read_capture(write_pcap(tmp_path / "a.pcap", SCRIPT)), MSS)
    got = [(e["time_s"], e["second"], e["released"], e["flight"], e["cwr_flight"]) for e in eps]
    assert got == [(1.1, False, False, 9, 9), (1.4, True, True, 0, 1), (2.0, False, True, 1, 2)]
    assert ecn_episodes.summary(eps, 0.0, 10.0) == {
        "reductions": 3,
        "second": 1,
        "held": 1,
        "cwr_flight": {"2": [1, 0], "9": [1, 1]},
    }
    # The window counts the reductions entered in it; the first one's follower is not its own.
    assert ecn_episodes.summary(eps, 1.35, 10.0) == {
        "reductions": 2,
        "second": 1,
        "held": 0,
        "cwr_flight": {"2": [1, 0]},
    }
    assert ecn_episodes.mean_cwr_flight(ecn_episodes.summary(eps, 0.0, 10.0)) == 5.5


def test_ethernet_frames_and_a_sequence_wrap_give_the_same_answer(tmp_path):
    raw = ecn_episodes.from_capture(write_pcap(tmp_path / "a.pcap", SCRIPT), 0.0, 10.0, MSS)
    wrapped = write_pcap(tmp_path / "b.pcap", SCRIPT, isn=(1 << 32) - 5 * MSS, ethernet=True)
    assert ecn_episodes.from_capture(wrapped, 0.0, 10.0, MSS) == raw


def test_bad_input_is_refused_by_name(tmp_path):
    short, zeros = tmp_path / "short", tmp_path / "zeros"
    short.write_bytes(b"abc")
    zeros.write_bytes(bytes(24))
    with pytest.raises(ecn_episodes.EpisodeError, match="not a libpcap file"):
        ecn_episodes.read_capture(short)
    with pytest.raises(ecn_episodes.EpisodeError, match="magic 0x0"):
        ecn_episodes.read_capture(zeros)
    with pytest.raises(ValueError, match="mss: 0"):
        ecn_episodes.reductions([], 0)
    assert math.isnan(ecn_episodes.mean_cwr_flight({"cwr_flight": {}}))


def test_tcplab_step_cell_cuts_twice_per_marking_episode():
    # The kernel page's reno 10 ms step cell, one flow: every marking episode's CWR segment
    # finds the step queue above its threshold, so each is followed by a second reduction.
    row = {"rtt_ms": 10, "aqm": "step", "flows": 1, "cc": "reno", "seed": 1}
    e = ecn_kernel.simulate_cell(row, quick=True)["episodes"]
    first = e["reductions"] - e["second"]
    assert first > 0 and e["second"] == first
    assert all(followed == n for n, followed in e["cwr_flight"].values())
