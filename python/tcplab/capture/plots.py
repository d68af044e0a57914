"""Figures of one connection of a capture (``tcplab trace plot``): the time-sequence graph
of Jacobson's Figs. 3-9 and tcptrace (data segments, the ACK line, the receive window's edge,
retransmissions and SACK blocks marked), the bytes in flight (the window estimate), and the RTT
samples, drawn as a simulated run's (`tcplab.capture.draw`). The global matplotlib backend is
left alone.
"""

from __future__ import annotations

import polars as pl
from matplotlib.figure import Figure

from tcplab.capture import draw

__all__ = ["plot"]


def plot(a, *, conn: int, direction: int = 0, kind: str = "seq") -> Figure:
    """A Figure of connection `conn`'s data direction `direction` from a CaptureAnalysis made
    with ``conn=conn``."""
    rows = a.connections.filter((pl.col("conn") == conn) & (pl.col("dir") == direction))
    if rows.height == 0:
        have = a.connections.filter(pl.col("conn") == conn)["dir"].to_list()
        raise ValueError(
            f"connection {conn} carried no data in direction {direction}"
            + (f" (it did in direction {have[0]})" if have else "")
        )
    r = rows.row(0, named=True)
    fig = Figure(figsize=(9, 5.6), layout="constrained")
    ax = fig.add_subplot()
    title = f"{a.path}: connection {conn}, {r['src']} -> {r['dst']}"
    if a.summary.get("records_truncated"):
        title += " (records truncated)"
    seg = a.segments.filter(pl.col("dir") == direction)
    if kind == "seq":
        draw.seq(
            ax,
            data=seg.filter(pl.col("kind") == "data"),
            acks=seg.filter(pl.col("kind") == "ack"),
            window_edge=True,
            sack=True,
        )
    elif kind == "cwnd":
        ax.step(
            seg["time_s"],
            seg["flight_bytes"],
            where="post",
            color="black",
            lw=1,
            label="bytes in flight (snd_max - snd_una)",
        )
        ax.axhline(
            r["mean_flight_bytes"],
            color="tab:blue",
            ls="--",
            lw=1,
            label=f"time average {r['mean_flight_bytes']:.0f} B",
        )
        ax.set_ylabel(draw.FLIGHT[1])
    elif kind == "rtt":
        rtt = a.rtt.filter(pl.col("dir") == direction)
        names = {
            "karn": "RTT samples, Karn's rule: unambiguous ACKs",
            "timestamp": "RTT samples from TCP timestamps",
        }
        for source, color in (("karn", "black"), ("timestamp", "tab:orange")):
            s = rtt.filter(pl.col("source") == source)
            if s.height:
                ax.scatter(
                    s["time_s"], s["rtt_s"] * 1e3, s=4, color=color, label=f"{names[source]} ({s.height:,})"
                )
        if rtt.height:
            top = float(rtt["rtt_s"].max()) * 1e3
            ax.set_ylim(0, top * 1.08)
            ax.axhline(top, color="0.5", lw=0.6, ls=":", label=f"largest sample {top:.1f} ms")
        ax.set_ylabel("RTT (ms)")
    else:
        raise ValueError(f"kind {kind!r}: expected seq, cwnd or rtt")
    if seg.height == 0:
        raise ValueError(f"connection {conn} has no segments in the window")
    if a.start > 0 or a.end is not None:  # --from / --to: the window, not the whole capture
        ax.set_xlim(a.start, a.end if a.end is not None else float(seg["time_s"].max()))
    ax.set_xlabel("time after the capture's first packet (s)")
    ax.set_title(title, fontsize=9)
    fig.suptitle({"seq": draw.SEQ[0], "cwnd": draw.FLIGHT[0], "rtt": "Round-trip times"}[kind])
    fig.legend(loc="outside lower center", ncols=3, fontsize=8)
    ax.grid(alpha=0.3)
    return fig
