"""Figures of sweep results, in the style of Mathis et al. 1997.

window-vs-p   Fig. 4: BW*RTT/MSS (the window in packets) against p on log-log axes, the model
              line with C = 1, flows that had timeouts as open markers.
model-vs-sim  Fig. 3: simulated goodput against the model's bandwidth with C = 1 (bit/s), the
              line y = x, timeouts as open markers.

Groups (`by`, default tcp and ack) get their own colour and marker. The output format follows
the file extension: .png, .svg or .pdf.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import numpy as np
import polars as pl

from tcplab.fit import FitError, _groups, fit, window_frame

__all__ = ["KINDS", "FORMATS", "plot"]

KINDS = ("window-vs-p", "model-vs-sim")
FORMATS = (".png", ".svg", ".pdf")
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "h"]


def _label(key: dict) -> str:
    return ", ".join(f"{v}" if k in ("tcp", "ack") else f"{k}={v}" for k, v in key.items()) or "all flows"


def plot(df: pl.DataFrame, out: str | Path, kind: str = "window-vs-p", by: Sequence[str] = ("tcp", "ack"),
         p: str = "auto", show_fit: bool = False, title: str | None = None) -> Path:
    """Draws `kind` from a results table and writes it to `out`; returns the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tcplab.models import mathis

    out = Path(out)
    if kind not in KINDS:
        raise FitError(f"--kind {kind}: expected one of {', '.join(KINDS)}")
    if out.suffix.lower() not in FORMATS:
        raise FitError(f"{out}: unknown figure format {out.suffix or '(none)'!r}, expected {', '.join(FORMATS)}")
    frame, source = window_frame(df, p)
    frame = frame.filter((pl.col("p_used") > 0) & (pl.col("window") > 0) & pl.col("window").is_finite())
    if frame.height == 0:
        raise FitError("nothing to plot: no flow has both p > 0 and a positive goodput")
    for col in by:
        if col not in frame.columns:
            raise FitError(f"--by {col}: no such column (columns include tcp, ack, flows.0.mss, ...)")
    # Split by the columns that vary; name every group by all of `by` (a single group too).
    groups = _groups(frame, [b for b in by if frame.get_column(b).n_unique() > 1])
    constant = {b: frame.get_column(b)[0] for b in by if frame.get_column(b).n_unique() == 1}

    fig, ax = plt.subplots(figsize=(6.4, 4.8), layout="constrained")
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    lo_p, hi_p = frame["p_used"].min(), frame["p_used"].max()
    for i, (key, g) in enumerate(groups):
        color, marker = colors[i % len(colors)], _MARKERS[i % len(_MARKERS)]
        p_ = g["p_used"].to_numpy()
        if kind == "window-vs-p":
            x, y = p_, g["window"].to_numpy()
        else:
            x = np.asarray(mathis.throughput(mss=g["mss_bytes"].to_numpy(), rtt=g["mean_rtt_s"].to_numpy(), p=p_, c=1.0))
            y = g["goodput_bps"].to_numpy()
        to = g["timeouts"].to_numpy() > 0
        name = _label({b: {**constant, **key}[b] for b in by})
        ax.scatter(x[~to], y[~to], s=22, marker=marker, color=color, alpha=0.85, linewidths=0,
                   label=f"{name}" + (" (no timeouts)" if to.any() else ""))
        if to.any():
            ax.scatter(x[to], y[to], s=22, marker=marker, facecolors="none", edgecolors=color, linewidths=0.9,
                       alpha=0.85, label=f"{name} (timeouts)")
        if show_fit and kind == "window-vs-p":
            table, _ = fit(g, by=(), p=p)
            row = table.row(0, named=True)
            if row["k"] == row["k"]:
                fitted = p_[~to] if (~to).any() else p_  # over the p range it was fitted on
                ps = np.geomspace(fitted.min(), fitted.max(), 50)
                ax.plot(ps, row["c"] * ps ** row["k"], color=color, lw=1.2, ls="--",
                        label=f"fit {name}: C={row['c']:.3g}, k={row['k']:.3f}")

    ax.set_xscale("log")
    ax.set_yscale("log")
    if kind == "window-vs-p":
        ps = np.geomspace(lo_p / 1.5, min(1.0, hi_p * 1.5), 200)
        ax.plot(ps, mathis.average_window(ps, c=1.0), color="black", lw=1.3, label="model, C = 1")
        ax.set_xlabel(f"p  ({source.split(' (')[0]})")
        ax.set_ylabel("BW·RTT/MSS  (window, packets)")
        ax.set_title(title or "Window vs loss (Mathis et al. 1997, Fig. 4)")
    else:
        lo, hi = ax.get_xlim()
        lo, hi = min(lo, ax.get_ylim()[0]), max(hi, ax.get_ylim()[1])
        ax.plot([lo, hi], [lo, hi], color="black", lw=1.3, label="simulation = model")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel(f"model bandwidth MSS/RTT · 1/√p, C = 1  (bit/s; {source.split(' (')[0]})")
        ax.set_ylabel("simulated goodput  (bit/s)")
        ax.set_title(title or "Simulation vs model (Mathis et al. 1997, Fig. 3)")
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.12)
    ax.legend(fontsize=8, loc="lower left" if kind == "window-vs-p" else "upper left", framealpha=0.9)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    try:  # never a half-written figure under the final name
        fig.savefig(tmp, format=out.suffix[1:].lower(), dpi=150)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
        plt.close(fig)
    return out
