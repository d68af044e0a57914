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
    fig = Figure(figsize=(9, 4.8), layout="constrained")
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
    fig.legend(loc="outside right upper", fontsize=8)
    FigureCanvasAgg(fig)
    return fig


def newreno_steps(p) -> list[tuple[float, int, int]]:
    """Where the NewReno Full curve (q = p) steps: Eq. 24 sums A(W, m) over m = 1 .. W - 3 of a
    whole window, so :func:`newreno.timeout_probability` rounds Eq. 14's W to the nearest
    integer, and p_TO (and Eq. 29's throughput) jumps where that integer changes (W crossing
    4.5: the sum loses its m = 2 term; crossing 3.5: it is empty and p_TO = 1). Returns
    (p after the step, whole window before, after) for the two changes that show: to 4 and to 3
    segments (at larger windows one term more or less moves the sum by about 1%)."""
    p = np.asarray(p, dtype=float)
    whole = np.floor(np.asarray(newreno.window(p, p)) + 0.5).astype(int)
    return [
        (float(p[i]), int(whole[i - 1]), int(whole[i]))
        for i in range(1, len(p))
        if whole[i] != whole[i - 1] and whole[i] in (3, 4)
    ]


def plot_models_vs_p(path: Path, mss: float = 1460, rtt: float = 0.1, rto: float | None = None) -> Path:
    """Throughput against p for Mathis (C = sqrt(3/2)), PFTK simple and full, and NewReno NoTO
    and Full (q = p), at one MSS, RTT and RTO (default 3 RTT). The NewReno Full curve steps where
    the whole window of Eq. 24 changes (:func:`newreno_steps`); the steps are marked."""
    return _save(models_vs_p_figure(mss, rtt, rto), path)


def models_vs_p_figure(mss: float = 1460, rtt: float = 0.1, rto: float | None = None) -> Figure:
    """The figure of :func:`plot_models_vs_p`, unsaved. Mathis' curve is a wide grey band under
    the others: PFTK simple equals it here and CUBIC's Reno-friendly region follows it, so a thin
    line of it would be hidden. One legend, below the axes."""
    rto = 3 * rtt if rto is None else rto
    p = np.logspace(-4, np.log10(0.5), 400)
    fig = Figure(figsize=(7.5, 6.2), layout="constrained")
    ax = fig.add_subplot()
    ax.plot(
        p,
        mathis.throughput(mss, rtt, p) / 1e6,
        color="0.55",
        lw=7,
        alpha=0.45,
        solid_capstyle="butt",
        zorder=1,
        label="Mathis Eq. 3, C = sqrt(3/2) (wide band)",
    )
    curves = [
        ("PFTK simple (equals Mathis here)", pftk.simple(mss, rtt, p), "C0--"),
        ("PFTK full", pftk.full(mss, rtt, p, rto), "C0-"),
        ("NewReno NoTO (q = p)", newreno.throughput_noto(mss, rtt, p, p), "C3--"),
        ("NewReno Full (q = p)", newreno.throughput_full(mss, rtt, p, p, rto), "C3-"),
        ("CUBIC, RFC 9438 Sec. 5", cubic.throughput(mss, rtt, p), "C2:"),
    ]
    for label, y, style in curves:
        ax.plot(p, y / 1e6, style, lw=1.4, zorder=2, label=label)
    steps = newreno_steps(p)
    for i, (at, _, _) in enumerate(steps):
        ax.axvline(
            at,
            color="C3",
            lw=0.8,
            ls=(0, (1, 3)),
            zorder=0,
            label="NewReno Full steps: Eq. 24 needs a whole W (Eq. 14's W rounds "
            + ", ".join(f"{b} -> {a}" for _, b, a in steps)
            + ")"
            if i == 0
            else "_nolegend_",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("loss (event) rate p")
    ax.set_ylabel("throughput (Mbit/s)")
    ax.set_title(f"Models against p: MSS {mss:g} B, RTT {rtt * 1e3:g} ms, RTO {rto * 1e3:g} ms")
    ax.grid(True, which="both", alpha=0.3)
    fig.legend(loc="outside lower center", ncols=2, fontsize=8)
    FigureCanvasAgg(fig)
    return fig
