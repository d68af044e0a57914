"""Pictures of the analytic models (matplotlib object API, Agg canvas, no pyplot state)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from tcplab.models import cubic, mathis, newreno, pftk

#: q values drawn in the Fig. 4 reproduction (the paper's own q values are not legible in the
#: extracted text; these span the homogeneous case to heavy in-event loss).
FIG4_Q = (0.0, 0.01, 0.05, 0.1, 0.2, 0.5)


def _save(fig: Figure, path: Path) -> Path:
    FigureCanvasAgg(fig)
    path = Path(path)
    fig.savefig(path, dpi=120)
    return path


def plot_window_fig4(path: Path, qs=FIG4_Q) -> Path:
    """Parvez Fig. 4: Eq. 14's W(p, q) against p for several q (log-log), with Mathis'
    sqrt(8/(3p)) for reference."""
    return _save(window_fig4_figure(qs), path)


def window_fig4_figure(qs=FIG4_Q) -> Figure:
    """The figure of :func:`plot_window_fig4`, unsaved."""
    p = np.logspace(-4, 0, 300)
    fig = Figure(figsize=(7, 4.8), layout="constrained")
    ax = fig.add_subplot()
    for q in qs:
        ax.plot(p, newreno.window(p, q), label=f"q = {q:g}")
    ax.plot(p, mathis.peak_window(p), "k:", label="Mathis Eq. 1, sqrt(8/3p)")
    ax.axhline(4, color="grey", linestyle="--", linewidth=1, label="W = 4: below it no fast retransmit")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("loss event rate p")
    ax.set_ylabel("peak window W (segments)")
    ax.set_title("Effect of p and q on W (Parvez et al. Eq. 14, cf. Fig. 4)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    FigureCanvasAgg(fig)
    return fig


def plot_models_vs_p(path: Path, mss: float = 1460, rtt: float = 0.1, rto: float | None = None) -> Path:
    """Throughput against p for Mathis (C = sqrt(3/2)), PFTK simple and full, and NewReno NoTO
    and Full (q = p), at one MSS, RTT and RTO (default 3 RTT). The NewReno Full curve has small
    steps where W crosses a half-integer: Eq. 24 sums over a whole window."""
    rto = 3 * rtt if rto is None else rto
    p = np.logspace(-4, np.log10(0.5), 200)
    curves = [
        ("Mathis Eq. 3, C = sqrt(3/2)", mathis.throughput(mss, rtt, p), "k-"),
        ("PFTK simple (same as Mathis here)", pftk.simple(mss, rtt, p), "C0--"),
        ("PFTK full", pftk.full(mss, rtt, p, rto), "C0-"),
        ("NewReno NoTO (q = p)", newreno.throughput_noto(mss, rtt, p, p), "C3--"),
        ("NewReno Full (q = p)", newreno.throughput_full(mss, rtt, p, p, rto), "C3-"),
        ("CUBIC, RFC 9438 Sec. 5", cubic.throughput(mss, rtt, p), "C2-"),
    ]
    fig = Figure(figsize=(7, 4.8), layout="constrained")
    ax = fig.add_subplot()
    for label, y, style in curves:
        ax.plot(p, y / 1e6, style, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("loss (event) rate p")
    ax.set_ylabel("throughput (Mbit/s)")
    ax.set_title(f"Models against p: MSS {mss:g} B, RTT {rtt * 1e3:g} ms, RTO {rto * 1e3:g} ms")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return _save(fig, path)
