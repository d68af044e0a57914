"""The drawing that a capture's figures (`tcplab trace plot capture.pcap`) and a simulated run's
(`tcplab plot DIR --kind seq|cwnd`, `tcplab trace plot DIR`) share, so that the same quantity is
drawn the same way, in the same unit and under the same label, whichever command draws it.

Sequence numbers are in bytes from the first byte of the stream: TCP numbers bytes, a capture
has no fixed segment size (a segment may be any length up to the MSS, and offloads make larger
ones), and the ACK line and the receive window's edge are bytes too; bytes are the one unit
every source gives exactly. Windows are in bytes for the same reason. A simulator's cwnd is the
sender's own variable; a capture shows only the bytes in flight (snd_max - snd_una), an
estimate of it: the two are drawn under different titles and labels (`CWND`, `FLIGHT`).
"""

from __future__ import annotations

from typing import Any

import polars as pl

__all__ = ["CWND", "FLIGHT", "SEQ", "SEQ_YLABEL", "cwnd", "seq", "zoom"]

SEQ_YLABEL = "sequence (bytes from the first byte of the stream)"

#: (figure title, y label) of each kind of figure.
SEQ = ("Sequence numbers", SEQ_YLABEL)
CWND = ("Congestion window: the simulated sender's cwnd and ssthresh", "window (bytes)")
FLIGHT = (
    "Bytes in flight: the capture's estimate of the window (not the sender's cwnd)",
    "bytes in flight, snd_max - snd_una (bytes)",
)


def seq(
    ax: Any,
    *,
    data: pl.DataFrame,
    acks: pl.DataFrame | None = None,
    drops: pl.DataFrame | None = None,
    window_edge: bool = False,
    sack: bool = False,
    color: str | None = None,
    prefix: str = "",
    data_label: str = "data",
    ack_label: str = "ACK",
) -> None:
    """The time-sequence graph of one data direction: each data segment a vertical bar from its
    first to its last byte (`data`: time_s, seq, len, retransmit), retransmissions circled,
    drops crossed (`drops`: time_s, seq), the cumulative ACK as a step line (`acks`: time_s and
    `ack`, or `seq` as the capture names it), and with a capture's ACKs the receive window's
    edge (`window_edge`) and SACK blocks (`sack`). One flow of several: `color` draws it all
    in that colour and `prefix` ("flow 3 ") starts its labels."""
    base = color or "black"
    marks = color or "red"
    new = data.filter(~pl.col("retransmit"))
    rtx = data.filter(pl.col("retransmit"))
    ax.vlines(
        new["time_s"], new["seq"], new["seq"] + new["len"], color=base, lw=1, label=f"{prefix}{data_label}"
    )
    if rtx.height or color is None:
        ax.scatter(
            rtx["time_s"],
            rtx["seq"],
            marker="o",
            facecolors="none",
            edgecolors=marks,
            s=24,
            zorder=3,
            label=f"{prefix}retransmission ({rtx.height})",
        )
    if drops is not None and drops.height:
        ax.scatter(
            drops["time_s"],
            drops["seq"],
            marker="x",
            color=marks,
            s=24,
            zorder=4,
            label=f"{prefix}dropped or lost ({drops.height})",
        )
    if acks is not None and acks.height:
        value = "ack" if "ack" in acks.columns else "seq"
        ax.step(
            acks["time_s"],
            acks[value],
            where="post",
            color=color or "tab:blue",
            lw=1 if color is None else 0.7,
            ls="-" if color is None else "--",
            label=f"{prefix}{ack_label}",
        )
        if window_edge:
            ax.step(
                acks["time_s"],
                acks["window_edge"],
                where="post",
                color="tab:green",
                lw=0.8,
                label=f"{prefix}receive window edge",
            )
        if sack:
            blocks = acks.filter(pl.col("sack_end") > pl.col("sack_start"))
            if blocks.height:
                ax.vlines(
                    blocks["time_s"],
                    blocks["sack_start"],
                    blocks["sack_end"],
                    color="tab:purple",
                    lw=2,
                    label=f"{prefix}SACK block",
                )
    ax.set_ylabel(SEQ_YLABEL)


def cwnd(ax: Any, g: pl.DataFrame, *, prefix: str = "", scale: float = 1.0) -> Any:
    """A simulated sender's cwnd (solid) and ssthresh (dashed, same colour) against time, from
    the cwnd trace's rows of one flow; returns the cwnd line."""
    (line,) = ax.step(g["time_s"], g["cwnd_bytes"] / scale, where="post", lw=1.0, label=f"{prefix}cwnd")
    ss = g.filter(pl.col("ssthresh_bytes").is_not_null())
    if ss.height:
        ax.step(
            ss["time_s"],
            ss["ssthresh_bytes"] / scale,
            where="post",
            lw=0.8,
            ls="--",
            color=line.get_color(),
            label=f"{prefix}ssthresh",
        )
    return line


def zoom(df: pl.DataFrame, start: float | None, end: float | None) -> pl.DataFrame:
    """The rows of `df` with time_s in [start, end] (either bound may be None: open)."""
    if "time_s" not in df.columns or (start is None and end is None):
        return df
    keep = pl.lit(True)
    if start is not None:
        keep &= pl.col("time_s") >= start
    if end is not None:
        keep &= pl.col("time_s") <= end
    return df.filter(keep)
