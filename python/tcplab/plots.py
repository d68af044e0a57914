"""Figures of results, in the style of Mathis et al. 1997, and of a run's traces.

Sweep results (a results store):

window-vs-p   Fig. 4: BW*RTT/MSS (the window in packets) against p on log-log axes, the model
              line with C = 1, the Table 1 constants and PFTK as reference lines, flows that had
              timeouts as open markers.
model-vs-sim  Fig. 3: simulated goodput against the model's bandwidth with C = 1 (bit/s), the
              line y = x, timeouts as open markers.

Groups (`by`, default tcp and ack) get their own colour and marker, labelled with units
(`delay = 10 ms`). With more than `MAX_GROUPS` groups and several `by` columns, the figure is
faceted by the first column (one panel per value); a legend never lists more than `MAX_GROUPS`
groups.

A run's traces (`tcplab run --trace-out DIR`, or `RunResult.trace(...)`):

cwnd          every flow's cwnd (and ssthresh, dashed) against time, in packets of its MSS
queue         the queue of every link direction that held packets, against time
seq           data segments sent (sequence number in packets against time), drops marked x

Every function returns the matplotlib Figure (built without pyplot: no global backend is
switched and no figure is left open); with `out`, it is also written there, in the format of
the file extension (.png, .svg or .pdf).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
import polars as pl

from tcplab.fit import FitError, fit, groups_of, window_frame

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tcplab.simulation import RunResult

__all__ = [
    "KINDS",
    "TRACE_KINDS",
    "FORMATS",
    "MAX_GROUPS",
    "label",
    "load_traces",
    "plot",
    "plot_trace",
    "run_context",
    "save",
]

KINDS = ("window-vs-p", "model-vs-sim")
TRACE_KINDS = ("cwnd", "queue", "seq")
FORMATS = (".png", ".svg", ".pdf")
MAX_GROUPS = 8
#: The resolution of the figures written (`tcplab plot` and `tcplab trace plot`).
DPI = 150
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "h"]

_DURATIONS = {
    "delay",
    "duration",
    "warmup",
    "min_rto",
    "max_rto",
    "clock_tick",
    "rto",
    "start",
    "interval",
    "mean_rtt_s",
    "initial_rto",
    "delayed_ack_timeout",
}
_RATES = {"rate", "rate_bps", "goodput_bps"}
_SIZES = {"mss", "mss_bytes", "rwnd", "bytes", "size", "limit_bytes", "initial_ssthresh", "header_bytes"}


def _short(col: str) -> str:
    """The last component of a dotted path (two if the last is a single letter: loss.p)."""
    parts = [x for x in col.split(".") if not x.isdigit()]
    if not parts:
        return col
    return ".".join(parts[-2:]) if len(parts[-1]) == 1 and len(parts) > 1 else parts[-1]


def _with_unit(name: str, value) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value is None:
        return str(value)
    leaf = name.split(".")[-1]
    if leaf in _DURATIONS:
        return f"{value * 1e3:g} ms" if abs(value) < 1 else f"{value:g} s"
    if leaf in _RATES:
        for scale, unit in ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
            if abs(value) >= scale:
                return f"{value / scale:g} {unit}"
        return f"{value:g} bit/s"
    if leaf in _SIZES:
        return f"{value:g} B"
    return f"{value:g}" if isinstance(value, float) else str(value)


def label(key: Mapping[str, object]) -> str:
    """A group's legend label: tcp and ack by value, other inputs as `delay = 10 ms`."""
    parts = []
    for k, v in key.items():
        if k in ("tcp", "ack"):
            parts.append(str(v))
        else:
            parts.append(f"{_short(k)} = {_with_unit(_short(k), v)}")
    return ", ".join(parts) or "all flows"


def _unique_legend(axes) -> tuple[list, list[str]]:
    """The legend entries of every panel, each label once (one legend per figure)."""
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    return handles, labels


def _tick_text(v: float, si: bool) -> str:
    if v == 0 or not math.isfinite(v):
        return "0"
    if si:
        for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
            if abs(v) >= scale:
                return f"{v / scale:g}{prefix}"
    return f"{v:g}"


def readable_log_ticks(axis, si: bool = False) -> None:
    """Plain tick labels on a log axis (`60`, `0.02`, `2M` with `si`, never `6×10¹`): every
    decade, and 2 and 5 times it only when the axis spans less than two decades, so that
    neighbouring labels do not run into each other."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    if axis.get_scale() != "log":
        return
    lo, hi = sorted(axis.get_view_interval())
    few = lo > 0 and hi / lo < 100
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if few else (1.0,)))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: _tick_text(v, si)))
    axis.set_minor_formatter(NullFormatter())


def _figure(ncols: int = 1, nrows: int = 1) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(6.4 * min(ncols, 3) ** 0.8, 4.8 * nrows**0.8 + 1.2), layout="constrained")


def save(fig: Figure, out: str | Path) -> Path:
    """Writes `fig` to `out` (format from the extension) through a temporary file: never a
    half-written figure under the final name."""
    out = Path(out)
    if out.suffix.lower() not in FORMATS:
        raise FitError(
            f"{out}: unknown figure format {out.suffix or '(none)'!r}, expected {', '.join(FORMATS)}"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        fig.savefig(tmp, format=out.suffix[1:].lower(), dpi=DPI)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return out


def _reference_lines(ax, frame: pl.DataFrame, lo_p: float, hi_p: float) -> None:
    """Mathis Table 1's constants for the ACK policies in `frame`, and PFTK's full model."""
    from tcplab.models import mathis, pftk

    ps = np.geomspace(lo_p / 1.5, min(1.0, hi_p * 1.5), 200)
    ax.plot(ps, mathis.average_window(ps, c=1.0), color="black", lw=1.3, label="Mathis model, C = 1")
    acks = (
        set(frame.get_column("ack").unique().to_list())
        if "ack" in frame.columns
        else {"immediate", "delayed"}
    )
    styles = iter([(0, (4, 2)), (0, (1, 1.5)), (0, (6, 2, 1, 2)), (0, (2, 2))])
    for ack, every in (("immediate", "every"), ("delayed", "delayed")):
        if ack not in acks:
            continue
        for loss in ("periodic", "random"):
            c = mathis.constant(loss, every)
            ax.plot(
                ps,
                mathis.average_window(ps, c=c),
                color="0.45",
                lw=0.9,
                ls=next(styles),
                label=f"Table 1: C = {c:.2f} ({loss} loss, {'delayed ACKs' if every == 'delayed' else 'ACK each'})",
            )
    rtt = float(cast(float, frame.get_column("mean_rtt_s").median()))
    if rtt > 0 and math.isfinite(rtt):
        b = 2.0 if acks == {"delayed"} else 1.0
        rto = 1.0  # RFC 6298's minimum, the simulator's default
        w = np.asarray(pftk.full(mss=1.0, rtt=rtt, p=ps, rto=max(rto, rtt), b=b)) * rtt / 8.0
        ax.plot(
            ps,
            w,
            color="tab:brown",
            lw=1.0,
            ls="-.",
            label=f"PFTK full, b = {b:g}, RTT = {rtt * 1e3:.3g} ms, T0 = {max(rto, rtt):g} s",
        )


def plot(
    df: pl.DataFrame,
    out: str | Path | None = None,
    kind: str = "window-vs-p",
    by: Sequence[str] = ("tcp", "ack"),
    p: str = "auto",
    show_fit: bool = False,
    title: str | None = None,
    reference: bool = True,
) -> Figure:
    """Draws `kind` from a results table; writes it to `out` if given; returns the Figure."""
    from tcplab.models import mathis

    if kind not in KINDS:
        raise FitError(
            f"--kind {kind}: expected one of {', '.join(KINDS + TRACE_KINDS)} "
            f"({', '.join(TRACE_KINDS)} take a run's traces)"
        )
    if out is not None and Path(out).suffix.lower() not in FORMATS:
        raise FitError(
            f"{out}: unknown figure format {Path(out).suffix or '(none)'!r}, expected {', '.join(FORMATS)}"
        )
    frame, source = window_frame(df, p)
    frame = frame.filter((pl.col("p_used") > 0) & (pl.col("window") > 0) & pl.col("window").is_finite())
    if frame.height == 0:
        raise FitError("nothing to plot: no flow has both p > 0 and a positive goodput")
    for col in by:
        if col not in frame.columns:
            raise FitError(f"--by {col}: no such column (columns include tcp, ack, flows.0.mss, ...)")
    varying = [b for b in by if frame.get_column(b).n_unique() > 1]
    constant = {b: frame.get_column(b)[0] for b in by if b not in varying}
    n_groups = len(groups_of(frame, varying))
    facet = varying[0] if n_groups > MAX_GROUPS and len(varying) > 1 else None
    panels = groups_of(frame, [facet]) if facet else [({}, frame)]
    inner = [b for b in varying if b != facet]

    ncols = min(2, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig = _figure(ncols, nrows)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True).ravel()
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    import matplotlib as mpl

    colors = mpl.rcParams["axes.prop_cycle"].by_key()["color"]
    lo_p, hi_p = cast(float, frame["p_used"].min()), cast(float, frame["p_used"].max())
    hidden = 0
    for ax, (panel_key, pf) in zip(axes, panels, strict=False):
        groups = groups_of(pf, inner)
        for i, (key, g) in enumerate(groups):
            color, marker = colors[i % len(colors)], _MARKERS[i % len(_MARKERS)]
            p_ = g["p_used"].to_numpy()
            if kind == "window-vs-p":
                x, y = p_, g["window"].to_numpy()
            else:
                x = np.asarray(
                    mathis.throughput(
                        mss=g["mss_bytes"].to_numpy(), rtt=g["mean_rtt_s"].to_numpy(), p=p_, c=1.0
                    )
                )
                y = g["goodput_bps"].to_numpy()
            to = g["timeouts"].to_numpy() > 0
            shown = i < MAX_GROUPS  # the legend lists at most MAX_GROUPS groups
            name = label({b: {**constant, **panel_key, **key}[b] for b in by if b != facet})
            ax.scatter(
                x[~to],
                y[~to],
                s=22,
                marker=marker,
                color=color,
                alpha=0.85,
                linewidths=0,
                label=(name + (" (no timeouts)" if to.any() else "")) if shown else "_nolegend_",
            )
            if to.any():
                ax.scatter(
                    x[to],
                    y[to],
                    s=22,
                    marker=marker,
                    facecolors="none",
                    edgecolors=color,
                    linewidths=0.9,
                    alpha=0.85,
                    label=f"{name} (timeouts)" if shown else "_nolegend_",
                )
            if show_fit and kind == "window-vs-p":
                table, _ = fit(g, by=(), p=p, min_ca_events=0)
                row = table.row(0, named=True)
                if row["k"] == row["k"]:
                    fitted = p_[~to] if (~to).any() else p_  # over the p range it was fitted on
                    ps = np.geomspace(fitted.min(), fitted.max(), 50)
                    ax.plot(
                        ps,
                        row["c"] * ps ** row["k"],
                        color=color,
                        lw=1.2,
                        ls="--",
                        label=f"fit: C = {row['c']:.3g}, k = {row['k']:.3f}" if shown else "_nolegend_",
                    )
        ax.set_xscale("log")
        ax.set_yscale("log")
        if kind == "window-vs-p":
            if reference:
                _reference_lines(ax, pf, lo_p, hi_p)
            else:
                ps = np.geomspace(lo_p / 1.5, min(1.0, hi_p * 1.5), 200)
                ax.plot(
                    ps, mathis.average_window(ps, c=1.0), color="black", lw=1.3, label="Mathis model, C = 1"
                )
            ax.set_xlabel(f"p  ({source.split(' (')[0]})")
            ax.set_ylabel("BW·RTT/MSS  (window, packets)")
        else:
            lo, hi = ax.get_xlim()
            lo, hi = min(lo, ax.get_ylim()[0]), max(hi, ax.get_ylim()[1])
            ax.plot([lo, hi], [lo, hi], color="black", lw=1.3, label="simulation = model (C = 1)")
            ax.set_xlim(lo, hi)
            ax.set_ylim(lo, hi)
            ax.set_xlabel(f"model bandwidth MSS/RTT · 1/√p, C = 1  (bit/s; {source.split(' (')[0]})")
            ax.set_ylabel("simulated goodput  (bit/s)")
        if facet:
            ax.set_title(label({facet: panel_key[facet]}), fontsize=10)
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", alpha=0.12)
        hidden = max(hidden, len(groups) - MAX_GROUPS)
        readable_log_ticks(ax.xaxis, si=kind == "model-vs-sim")
        readable_log_ticks(ax.yaxis, si=kind == "model-vs-sim")
    if len(panels) > 1:  # one axis label per figure: a panel is too narrow for it
        xlabel, ylabel = axes[0].get_xlabel(), axes[0].get_ylabel()
        for ax in axes:
            ax.set_xlabel("")
            ax.set_ylabel("")
        fig.supxlabel(xlabel, fontsize=10)
        fig.supylabel(ylabel, fontsize=10)
    handles, labels = _unique_legend(axes[: len(panels)])
    if hidden:
        from matplotlib.lines import Line2D

        handles.append(Line2D([], [], ls="none"))
        labels.append(f"... {hidden} more groups (narrow --by)")
    fig.legend(handles, labels, fontsize=7, loc="outside lower center", ncols=2 if ncols > 1 else 1)
    default = (
        "Window vs loss (Mathis et al. 1997, Fig. 4)"
        if kind == "window-vs-p"
        else "Simulation vs model (Mathis et al. 1997, Fig. 3)"
    )
    fig.suptitle(title or default)
    if out is not None:
        save(fig, out)
    return fig


def load_traces(path: str | Path) -> dict[str, pl.DataFrame]:
    """The traces of a `--trace-out` directory (or one trace file), by name; with them, when
    the directory has them, the run's `links` table and its one-row `run` table (what
    `plot_trace` reads to choose the links that matter and to say where a trace stopped)."""
    from tcplab.simulation import TRACES

    path = Path(path)
    if not path.exists():
        raise FitError(f"{path}: no such trace directory or file")
    files = (
        [path]
        if path.is_file()
        else [path / f"{n}.parquet" for n in (*TRACES, *CONTEXT) if (path / f"{n}.parquet").exists()]
    )
    out = {}
    for f in files:
        if f.stem not in TRACES and not (f.stem in CONTEXT and f.parent == path):
            raise FitError(f"{f}: not a trace file (expected {', '.join(n + '.parquet' for n in TRACES)})")
        try:
            out[f.stem] = pl.read_parquet(f)
        except (pl.exceptions.PolarsError, OSError) as e:
            raise FitError(f"{f}: not a Parquet trace ({str(e).splitlines()[0]})") from None
    return out


#: The run's tables a `--trace-out` directory keeps beside its traces (`run_context`).
CONTEXT = ("run", "links")


def run_context(result) -> dict[str, pl.DataFrame]:
    """A RunResult's one-row `run` table (duration, warm-up, whether a trace was truncated) and
    its `links` table: what `plot_trace` needs besides the traces, written beside them by
    `tcplab run --trace-out`."""
    run = pl.DataFrame(
        {
            "duration_s": [float(result.duration_s)],
            "warmup_s": [float(result.warmup_s)],
            "traces_truncated": [bool(result.truncated)],
        }
    )
    return {"run": run, "links": result.links}


def _time_average(df: pl.DataFrame, key: str, value: str, end: float) -> dict[str, float]:
    """Each `key`'s time-average of the step function `value` up to `end`."""
    out = {}
    for (k,), g in df.sort("time_s").partition_by(key, as_dict=True, maintain_order=True).items():
        t = g["time_s"].to_numpy()
        v = g[value].to_numpy().astype(float)
        widths = np.diff(np.append(t, max(end, float(t[-1]))))
        span = max(end, float(t[-1])) - float(t[0])
        out[str(k)] = float((v * widths).sum() / span) if span > 0 else float(v.max())
    return out


def _queue_order(df: pl.DataFrame, traces: Mapping[str, pl.DataFrame], end: float) -> tuple[list[str], str]:
    """The link directions that held packets, the ones that matter first: with the run's links
    table, the shared links (the bottleneck first: most queue drops, then the highest mean
    queue), then the others by mean queue; without it, every link by its time-average queue."""
    means = _time_average(df, "link_name", "packets", end)
    busy = [n for n, v in df.group_by("link_name").agg(pl.col("packets").max()).iter_rows() if v > 0]
    busy = [str(n) for n in busy]
    links = traces.get("links")
    if links is not None and links.height and {"link", "shared", "drops_queue"} <= set(links.columns):
        info = {str(r["link"]): r for r in links.iter_rows(named=True)}

        def rank(name: str):
            r = info.get(name, {})
            return (not r.get("shared", False), -(r.get("drops_queue") or 0), -means.get(name, 0.0), name)

        return sorted(busy, key=rank), "shared links first, most queue drops first"
    return sorted(busy, key=lambda n: (-means.get(n, 0.0), n)), "largest time-average queue first"


def _left_out(shown: int, total: int, what: str, order: str, names: Sequence[str]) -> str | None:
    if total <= shown:
        return None
    rest = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
    return f"showing {shown} of {total} {what} ({order}); left out: {rest}"


def _truncation(traces: Mapping[str, pl.DataFrame], df: pl.DataFrame) -> str | None:
    """A note when this trace stopped at trace.max_points before the run's end. The run says
    that a trace did; each trace is capped at the same number of records, so the ones that
    stopped are those with the most."""
    from tcplab.simulation import TRACES

    run = traces.get("run")
    if run is None or not run.height or not run["traces_truncated"][0]:
        return None
    if df.height < max(traces[n].height for n in TRACES if n in traces):
        return None
    last = float(cast(float, df["time_s"].max())) if df.height else 0.0
    return (
        f"trace stops at {last:.4g} s of a {float(run['duration_s'][0]):.4g} s run: "
        "trace.max_points reached (raise it to record the rest)"
    )


def plot_trace(
    traces: Mapping[str, pl.DataFrame] | str | Path | RunResult,
    kind: str = "cwnd",
    out: str | Path | None = None,
    title: str | None = None,
    mss: int | None = None,
    flows: Sequence[int] | None = None,
    start: float | None = None,
    end: float | None = None,
) -> Figure:
    """Draws a run's trace: `traces` is a `--trace-out` directory, a RunResult or {name: frame}
    (e.g. {"cwnd": result.trace("cwnd")}, with the `run` and `links` frames of `run_context`
    if at hand). cwnd is in bytes (in packets of `mss` bytes if given), sequence numbers in
    bytes, as `tcplab trace plot` draws a capture (`tcplab.capture.draw`). `flows` keeps those
    flows (cwnd, seq); `start` and `end` (seconds) zoom on a stretch of the run.

    At most `MAX_GROUPS` lines are drawn: the queues of the links that matter (the shared links,
    the bottleneck first, then the others by mean queue), the first flows' windows; a note
    above the axes names what was left out, and says where a trace stopped at
    `trace.max_points`. The legend is outside the axes."""
    from tcplab.capture import draw
    from tcplab.simulation import TRACES, RunResult

    if kind not in TRACE_KINDS:
        raise FitError(f"--kind {kind}: expected one of {', '.join(TRACE_KINDS)} for traces")
    if out is not None and Path(out).suffix.lower() not in FORMATS:
        raise FitError(
            f"{out}: unknown figure format {Path(out).suffix or '(none)'!r}, expected {', '.join(FORMATS)}"
        )
    if start is not None and end is not None and end <= start:
        raise FitError(f"--to {end:g}s: expected a time after --from {start:g}s")
    if isinstance(traces, RunResult):
        traces = {**{n: traces.trace(n) for n in TRACES}, **run_context(traces)}
    elif not isinstance(traces, Mapping):
        traces = load_traces(traces)
    need = {"cwnd": "cwnd", "queue": "queue", "seq": "packets"}[kind]
    df = traces.get(need)
    enable = {"cwnd": "trace.cwnd=true", "queue": "trace.queue=true", "seq": SEQ_LINKS}[kind]
    if df is None or df.height == 0:
        raise FitError(f"--kind {kind}: no {need} trace recorded (run with --set '{enable}' --trace-out DIR)")
    if flows is not None and kind != "queue":
        df = df.filter(pl.col("flow").is_in(list(flows)))
        if df.height == 0:
            raise FitError(f"flow {', '.join(map(str, flows))} has no {need} records (is there such a flow?)")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 6), layout="constrained")
    ax = fig.subplots()
    notes = []
    run = traces.get("run")
    last = float(cast(float, df["time_s"].max()))
    stop = float(run["duration_s"][0]) if run is not None and run.height else last
    shown_df = draw.zoom(df, start, end)
    if kind == "cwnd":
        scale, unit = (mss, "packets") if mss else (1, "bytes")
        groups = sorted(shown_df.partition_by("flow", as_dict=True).items())
        for flow, g in groups[:MAX_GROUPS]:
            draw.cwnd(ax, g, prefix=f"flow {flow[0]} ", scale=scale)
        rest = [f"flow {f[0]}" for f, _ in groups[MAX_GROUPS:]]
        notes.append(_left_out(MAX_GROUPS, len(groups), "flows", "the first by index", rest))
        ax.set_ylabel(f"window ({unit})")
    elif kind == "queue":
        names, order = _queue_order(df, traces, stop)
        for i, name in enumerate(names[:MAX_GROUPS]):  # the one that matters most on top
            g = shown_df.filter(pl.col("link_name").cast(pl.String) == name)
            ax.step(g["time_s"], g["packets"], where="post", lw=1.0, label=name, zorder=3 - i / 100)
        notes.append(
            _left_out(MAX_GROUPS, len(names), "link directions that queued", order, names[MAX_GROUPS:])
        )
        ax.set_ylabel("queue (packets waiting)")
    else:
        from tcplab.capture.run_plots import draw_flows

        drawn = draw_flows(ax, df, MAX_GROUPS, start, end)
        rest = [f"flow {f}" for f in drawn[MAX_GROUPS:]]
        notes.append(_left_out(MAX_GROUPS, len(drawn), "flows", "the first by index", rest))
    notes.append(_truncation(traces, df))
    if run is not None and run.height or start is not None or end is not None:
        ax.set_xlim(start or 0.0, end if end is not None else stop)
        if notes[-1] and (end is None or last <= end):
            ax.axvline(last, color="red", lw=0.8, ls=":", label="trace.max_points reached")
    ax.set_xlabel("time (s)")
    ax.grid(True, alpha=0.3)
    fig.legend(fontsize=7, loc="outside lower center", ncols=4)
    shown = [n for n in notes if n]
    if shown:
        import textwrap

        text = "\n".join(line for n in shown for line in textwrap.wrap(n, 110))
        ax.set_title(text, fontsize=7.5, loc="left", color="firebrick")
    default = {"cwnd": draw.CWND[0], "queue": "Queue length", "seq": draw.SEQ[0]}[kind]
    if flows is not None and kind != "queue":
        default += f" (flow {', '.join(map(str, flows))})"
    fig.suptitle(title or default)
    if out is not None:
        save(fig, out)
    return fig


#: What the seq figure needs recorded: the links a flow's data enters and its ACKs reach the
#: sender on (in a path, the first hop's two directions).
SEQ_LINKS = 'trace.links=["hop0.fwd","hop0.rev"]'
