"""ACK sizes of docs/validation/ecn.md's kernel runs: how many segments each ACK newly
acknowledges, for the kernel's receiver (from the capture at the senders, taken with each run
and reduced to a histogram stored beside its other measures) and for tcplab's (from the
simulated run's packet trace on the bottleneck's reverse direction).

A receiver that acknowledges every second full segment (RFC 9293 Sec. 3.8.6.3, Linux's
`__tcp_ack_snd_check`) gives ACKs of 1 or 2 segments; an ACK of more is a stretch ACK. Each
histogram counts, over the measurement window, the ACKs that advance the cumulative ACK by
their size in segments, ceil(advance / MSS), with `CAP` or more counted as `CAP`; ACKs that
advance nothing (duplicates, window updates) are left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

#: Sizes from this many segments up are counted together.
CAP = 32
#: A stretch ACK newly acknowledges more than this many segments.
STRETCH = 2


def histogram(acks_by_flow: Iterable[Sequence[int]], mss: int) -> dict[str, int]:
    """{segments: ACKs} (keys as strings, JSON's) from each flow's cumulative ACK numbers in
    arrival order (bytes, one stream per flow)."""
    if mss <= 0:
        raise ValueError(f"mss: {mss} (expected a segment size > 0 bytes)")
    counts: Counter[int] = Counter()
    for acks in acks_by_flow:
        highest = None
        for a in acks:
            if highest is not None and a > highest:
                counts[min(-(-(a - highest) // mss), CAP)] += 1
            if highest is None or a > highest:
                highest = a
    return {str(n): counts[n] for n in sorted(counts)}


def stretch_shares(hist: dict[str, int]) -> tuple[float, float]:
    """(share of the ACKs acknowledging more than `STRETCH` segments, share of the segments
    acknowledged by them); NaN for an empty histogram."""
    acks = sum(hist.values())
    segments = sum(int(n) * c for n, c in hist.items())
    if not acks:
        return float("nan"), float("nan")
    big = {int(n): c for n, c in hist.items() if int(n) > STRETCH}
    return sum(big.values()) / acks, sum(n * c for n, c in big.items()) / segments


def single_share(hist: dict[str, int]) -> float:
    """The share of the ACKs acknowledging exactly 1 segment; NaN for an empty histogram."""
    acks = sum(hist.values())
    return hist.get("1", 0) / acks if acks else float("nan")


def from_capture(pcap: Path, flows: int, warmup: float, duration: float, mss: int) -> dict[str, int]:
    """The kernel's side: the ACKs of every connection in an emulated run's capture at the
    senders (simulated-time stamps) between `warmup` and `duration`."""
    from tcplab.capture import analyze
    from tcplab.emulate.run import first_packet_s

    first = first_packet_s(pcap)
    if first is None or duration - first <= max(warmup - first, 0.0):
        return {}
    start, end = max(warmup - first, 0.0), duration - first
    streams = []
    for conn in range(flows):
        seg = analyze(pcap, start=start, end=end, conn=conn).segments
        streams.append(seg.filter(seg["kind"] == "ack")["seq"].to_list())
    return histogram(streams, mss)


def from_trace(packets, warmup: float, mss: int) -> dict[str, int]:
    """tcplab's side: the ACKs entering the bottleneck's reverse direction (its `packets`
    trace's `enqueue` events of kind `ack`) from `warmup` on, per flow."""
    import polars as pl

    acks = packets.filter(
        (pl.col("event") == "enqueue") & (pl.col("kind") == "ack") & (pl.col("time_s") >= warmup)
    ).sort(["flow", "time_ns"], maintain_order=True)
    return histogram((g["ack"].to_list() for _, g in acks.group_by("flow", maintain_order=True)), mss)
