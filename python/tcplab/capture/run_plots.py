"""One flow of a simulated run, drawn as `tcplab trace plot` draws a captured connection, from
the simulator's own traces (``tcplab run SCENARIO --trace-out DIR``): the time-sequence graph
(data segments where the flow's data enters the network, retransmissions, the ACK line where
its ACKs reach the sender, and every drop of its data on any recorded link, which no capture
at the sender can show), the sender's cwnd and ssthresh, and Karn RTT samples matched from
those two links. docs/pcap.md, "A simulated run".
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from matplotlib.figure import Figure

__all__ = ["LINKS_HINT", "RunTraceError", "flow_frames", "plot"]

#: How to record what the seq and rtt figures need.
LINKS_HINT = (
    'record the flow\'s links: tcplab run SCENARIO --set \'trace.links=["hop0.fwd","hop0.rev"]\' '
    "--trace-out DIR (the link its data enters and the link its ACKs reach the sender on; names as "
    "in the links table of `tcplab run`)"
)


class RunTraceError(ValueError):
    """A run directory without the trace a figure needs (the message says which option adds it)."""


def _read(directory: Path, name: str) -> pl.DataFrame | None:
    f = directory / f"{name}.parquet"
    if not f.exists():
        return None
    try:
        return pl.read_parquet(f)
    except (pl.exceptions.PolarsError, OSError) as e:
        raise RunTraceError(f"{f}: not a Parquet trace ({str(e).splitlines()[0]})") from None


def _first_link(df: pl.DataFrame, last: bool) -> str:
    """The link whose first event of `df` is earliest (last=False) or latest (last=True): the
    sender's first hop sees the flow's first segment first; the final hop of the way back sees
    its first ACK last. Ties go to the lower link index."""
    g = df.group_by("link", "link_name").agg(pl.col("time_ns").min().alias("t"))
    g = g.sort(["t", "link"], descending=[last, False])
    return str(g["link_name"][0])


def flow_frames(directory: Path, flow: int) -> dict[str, pl.DataFrame]:
    """The flow's frames from a `--trace-out` directory: `sent` (data segments at the link the
    data enters: enqueued, lost, or dropped on arrival), `drops` (its data dropped or lost on
    any recorded link), `acks` (ACKs received at the link they reach the sender on), `rtt`
    (Karn samples, the capture analyzer's rule) and `cwnd`; a frame the directory cannot give is absent."""
    if not directory.is_dir():
        raise RunTraceError(f"{directory}: not a directory (expected a `tcplab run --trace-out DIR` folder)")
    out: dict[str, pl.DataFrame] = {}
    cw = _read(directory, "cwnd")
    if cw is not None:
        out["cwnd"] = cw.filter(pl.col("flow") == flow)
    pk = _read(directory, "packets")
    if pk is None:
        return out
    return out | packet_frames(pk, flow)


def packet_frames(packets: pl.DataFrame, flow: int) -> dict[str, pl.DataFrame]:
    """`flow_frames`' frames that come from a packets trace (all but `cwnd`)."""
    out: dict[str, pl.DataFrame] = {}
    pk = packets.filter(pl.col("flow") == flow).with_columns(
        pl.col("event").cast(pl.String), pl.col("kind").cast(pl.String), pl.col("link_name").cast(pl.String)
    )
    data = pk.filter(pl.col("kind") == "data")
    if data.height:
        link = _first_link(data, last=False)
        at = data.filter(pl.col("link_name") == link)
        keys = ["time_ns", "seq", "retransmit"]
        arrived = at.filter(pl.col("event").is_in(["enqueue", "lost"]))
        # A drop-tail drop refuses the arrival (no enqueue); a drop of a waiting packet repeats one.
        refused = at.filter(pl.col("event") == "drop").join(arrived.select(keys), on=keys, how="anti")
        out["sent"] = pl.concat([arrived, refused]).sort("time_ns", "seq")
        out["drops"] = data.filter(pl.col("event").is_in(["drop", "lost"])).sort("time_ns")
        out["data_link"] = pl.DataFrame({"link": [link]})
    acks = pk.filter((pl.col("kind") == "ack") & (pl.col("event") == "receive"))
    if acks.height:
        link = _first_link(acks, last=True)
        out["acks"] = acks.filter(pl.col("link_name") == link).sort("time_ns")
        out["ack_link"] = pl.DataFrame({"link": [link]})
    if "sent" in out and "acks" in out:
        out["rtt"] = _karn(out["sent"], out["acks"])
    return out


def draw_flows(ax, packets: pl.DataFrame, most: int, start: float | None, end: float | None) -> list[int]:
    """Draws the time-sequence graph of the first `most` flows with data in a packets trace
    (one colour each when there are several), zoomed on [start, end]; returns every flow with
    data, in order (the caller names the ones left out)."""
    import matplotlib as mpl

    from tcplab.capture import draw

    kinds = packets.get_column("kind").cast(pl.String)
    with_data = sorted(set(packets.filter(kinds == "data").get_column("flow").to_list()))
    colors = mpl.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, flow in enumerate(with_data[:most]):
        fr = {k: draw.zoom(v, start, end) for k, v in packet_frames(packets, flow).items()}
        several = len(with_data) > 1
        draw.seq(
            ax,
            data=fr["sent"],
            acks=fr.get("acks"),
            drops=fr["drops"],
            color=colors[i % len(colors)] if several else None,
            prefix=f"flow {flow} " if several else "",
            data_label=f"data at {fr['data_link']['link'][0]}",
            ack_label=f"ACK at {fr['ack_link']['link'][0]}" if "ack_link" in fr else "ACK",
        )
    return with_data


def _karn(sent: pl.DataFrame, acks: pl.DataFrame) -> pl.DataFrame:
    """Karn samples by the capture analyzer's rule (`trace/analyze/direction.rs`), so a run and
    its capture at the sender give the same samples: one per ACK that advances the cumulative
    ACK, from the last new segment it covers, unless a retransmission since that segment was
    sent repeated bytes below its end. An ACK and a segment at the same nanosecond: the ACK first
    (it is what released the segment)."""
    from collections import deque

    ev = pl.concat(
        [
            sent.select(
                "time_ns",
                pl.lit(1).alias("order"),
                "seq",
                (pl.col("seq") + pl.col("len")).alias("end"),
                "retransmit",
            ),
            acks.select(
                "time_ns",
                pl.lit(0).alias("order"),
                pl.col("ack").alias("seq"),
                pl.col("ack").alias("end"),
                pl.lit(False).alias("retransmit"),
            ),
        ]
    ).sort("time_ns", "order", maintain_order=True)
    karn: deque[list] = deque()  # [end, time sent, retransmitted since]
    snd_una, times, rtts = 0, [], []
    for t, order, start, end, rtx in ev.iter_rows():
        if order == 1:
            if rtx:
                for k in karn:
                    if k[0] > start:
                        k[2] = True
            else:
                karn.append([end, t, False])
        elif end > snd_una:
            snd_una, last = end, None
            while karn and karn[0][0] <= end:
                last = karn.popleft()
            if last is not None and not last[2]:
                times.append(t)
                rtts.append(t - last[1])
    return pl.DataFrame(
        {"time_s": [x / 1e9 for x in times], "rtt_s": [x / 1e9 for x in rtts]},
        schema={"time_s": pl.Float64, "rtt_s": pl.Float64},
    )


def plot(
    directory: str | Path, *, flow: int = 0, kind: str = "seq", start: float = 0.0, end: float | None = None
) -> Figure:
    """A Figure of flow `flow` of the run traced in `directory`: kind seq, cwnd or rtt, over
    [start, end] seconds of simulated time. seq and cwnd are `tcplab plot DIR --kind seq|cwnd
    --flow N`'s figures (`tcplab.plots.plot_trace`), the same drawing as a capture's."""
    from tcplab.fit import FitError
    from tcplab.plots import plot_trace

    directory = Path(directory)
    if kind in ("seq", "cwnd"):
        if not directory.is_dir():
            raise RunTraceError(
                f"{directory}: not a directory (expected a `tcplab run --trace-out DIR` folder)"
            )
        try:
            return plot_trace(directory, kind, flows=[flow], start=start or None, end=end)
        except FitError as e:
            raise RunTraceError(f"{directory}: {e}") from None
    if kind != "rtt":
        raise RunTraceError(f"--kind {kind!r}: expected seq, cwnd or rtt")
    fr = flow_frames(directory, flow)
    if "sent" not in fr:
        have = (
            "no packets trace"
            if not (directory / "packets.parquet").exists()
            else f"no data segments of flow {flow} in the packets trace"
        )
        raise RunTraceError(f"{directory}: {have}: {LINKS_HINT}")
    if "rtt" not in fr:
        raise RunTraceError(f"{directory}: no ACKs of flow {flow} in the packets trace: {LINKS_HINT}")
    from tcplab.capture import draw

    r = draw.zoom(fr["rtt"], start, end)
    fig = Figure(figsize=(9, 5))
    ax = fig.add_subplot()
    ax.scatter(r["time_s"], r["rtt_s"] * 1e3, s=4, color="black", label=f"karn ({r.height})")
    ax.set_ylabel("RTT (ms)")
    ax.set_xlabel("time (s)")
    ax.set_title(f"{directory}: flow {flow}", fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    return fig
