"""ACK sizes of the ECN kernel validation (`tcplab.validation.ecn_acks`): known answers from
scripted ACK streams, and the capture and the trace of one simulated run giving the same
histogram."""

from __future__ import annotations

import math

import polars as pl
import pytest

from tcplab.emulate.run import first_packet_s
from tcplab.simulation import run
from tcplab.validation import ecn_acks, ecn_kernel

MSS = 1448


def test_each_ack_counts_the_segments_it_newly_acknowledges():
    # 2, 2, a duplicate (left out), 10 segments, then 100 bytes (a partial segment: 1).
    acks = [0, 2 * MSS, 4 * MSS, 4 * MSS, 14 * MSS, 14 * MSS + 100]
    assert ecn_acks.histogram([acks], MSS) == {"1": 1, "2": 2, "10": 1}


def test_sizes_from_the_cap_up_are_counted_together_and_old_acks_are_ignored():
    acks = [0, 40 * ecn_acks.CAP * MSS, 3 * MSS, 40 * ecn_acks.CAP * MSS + MSS]
    assert ecn_acks.histogram([acks], MSS) == {"1": 1, str(ecn_acks.CAP): 1}


def test_flows_are_counted_apart():
    # Each stream's first ACK only sets its start: flow 1's 5-segment jump from flow 0's last
    # ACK number is no ACK of 5.
    assert ecn_acks.histogram([[0, 2 * MSS], [7 * MSS, 8 * MSS]], MSS) == {"1": 1, "2": 1}


def test_a_segment_size_of_zero_is_refused_by_name():
    with pytest.raises(ValueError, match="mss: 0"):
        ecn_acks.histogram([[0, 1]], 0)


def test_stretch_shares_of_acks_and_of_segments():
    acks, segments = ecn_acks.stretch_shares({"1": 2, "2": 4, "5": 2})
    assert acks == pytest.approx(2 / 8)
    assert segments == pytest.approx(10 / (2 + 8 + 10))
    assert all(math.isnan(x) for x in ecn_acks.stretch_shares({}))
    assert ecn_acks.single_share({"1": 2, "2": 4, "5": 2}) == pytest.approx(2 / 8)
    assert math.isnan(ecn_acks.single_share({}))


def test_the_trace_counts_acks_entering_the_link_after_warmup():
    rows = [
        # (time_s, event, kind, flow, ack)
        (0.5, "enqueue", "ack", 0, 1 * MSS),  # before warm-up: no ACK counted from it
        (1.0, "enqueue", "ack", 0, 2 * MSS),
        (1.1, "dequeue", "ack", 0, 2 * MSS),  # the same ACK leaving the queue
        (1.2, "enqueue", "data", 0, 0),
        (1.3, "enqueue", "ack", 1, 5 * MSS),
        (1.4, "enqueue", "ack", 0, 6 * MSS),
        (1.5, "enqueue", "ack", 1, 6 * MSS),
    ]
    frame = pl.DataFrame(rows, schema=["time_s", "event", "kind", "flow", "ack"], orient="row").with_columns(
        time_ns=(pl.col("time_s") * 1e9).cast(pl.UInt64)
    )
    assert ecn_acks.from_trace(frame, 1.0, MSS) == {"1": 1, "4": 1}


def test_a_capture_and_the_trace_of_one_run_give_the_same_sizes(tmp_path):
    sc = ecn_kernel.scenario(10, "codel", 2, "cubic", 1, True)
    pcap = tmp_path / "acks.pcap"
    sc["trace"] = {"links": ["bottleneck.rev"], "pcap": {"link": "bottleneck.rev", "file": str(pcap)}}
    duration, warmup = ecn_kernel.durations(True)
    r = run(sc)
    from_trace = ecn_acks.from_trace(r.trace("packets"), warmup, MSS)
    from_capture = ecn_acks.from_capture(pcap, 2, warmup, duration, MSS)
    assert sum(from_trace.values()) > 1000
    assert from_capture == from_trace
    # tcplab's Linux receiver acknowledges every second segment: no stretch ACKs.
    assert ecn_acks.stretch_shares(from_trace)[0] == 0.0


def test_a_capture_without_packets_has_no_sizes(tmp_path):
    empty = tmp_path / "empty.pcap"
    empty.write_bytes(b"")
    assert first_packet_s(empty) is None
    assert ecn_acks.from_capture(empty, 1, 2.0, 8.0, MSS) == {}


def test_the_kernel_table_shows_stretch_acks_beside_tcplabs():
    cell = {"cc": "reno", "rtt_ms": 10, "aqm": "step", "flows": 1, "late_p99_ms": 0.1, "load": 1.0}
    base = {"goodput_bps": 10e6, "marks_per_s": 10.0, "mean_queue_pkts": 5.0, "drops": 0}
    rows = [
        dict(
            cell,
            seed=s,
            endpoints_realtime=2,
            linux=dict(base, ack_hist={"2": 8, "6": s}),
            tcplab=dict(base, ack_hist={"2": 10}),
        )
        for s in (1, 3)
    ]
    (c,) = ecn_kernel.summarize(rows)
    assert c["stretch_runs"] == 2
    mean, lo, hi, sim = c["stretch_acks"]
    assert (lo, hi, sim) == pytest.approx((1 / 9, 3 / 11, 0.0))
    assert mean == pytest.approx((1 / 9 + 3 / 11) / 2)
    page = "\n".join(ecn_kernel.section({"rows": rows}))
    assert "| reno | 10 | step | 1 | 2 | 0.1919 (0.1111 - 0.2727) | 0.0000 |" in page
    assert c["single_acks"] == pytest.approx((0.0, 0.0, 0.0, 0.0))
    assert "sink threads all ran at SCHED_FIFO: 2 of 2" in page
    # Runs stored before ACK sizes were: said so, not shown as zero.
    old = [dict(r, linux=base, tcplab=base) for r in rows]
    assert "No ACK sizes stored" in "\n".join(ecn_kernel.section({"rows": old}))
