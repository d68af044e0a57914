"""Barakat & Altman 1999: what the items share (the paper's path, ns-2's Tahoe on a generated path,
its window cycles, figure helpers).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

PAPER = "barakat"
MU, T, SIZE = 1.5e6, 0.560, 512
NS = range(1, 9)
KINDS = ("full", "two", "one")


def chain(hops, duration: str) -> dict:
    """Sec. 5's path: the delay on the last hop makes T = 560 ms with the service times."""
    svc = sum((SIZE + 40) * 8 / r for r, _ in hops)
    d = (T - svc) / 2
    spec = [{"rate": r, "delay": 0.0, "queue": {"limit": b}} for r, b in hops]
    spec[-1]["delay"] = round(d, 9)
    return {
        "seed": 1,
        "duration": duration,
        "warmup": "100s",
        "network": {"chain": {"hops": spec}},
        "flows": [{"tcp": "tahoe", "ack": "immediate", "mss": SIZE - 40, "header_bytes": 40}],
    }


# ---- shared by Figs 9-11, Eq. 4, Figs 5-8 and Fig. 2: ns-2's Tahoe on a generated path ---------------

MSS = SIZE - 40
PIPE = MU * T / (8 * SIZE)  # mu T in packets, 205.1
WARMUP = 100.0


def ns2_path(
    hops, duration: str, discipline: str = "droptail", trace: bool = True, waiting: bool = False
) -> dict:
    """`chain` with ns-2's Tahoe agent (`profile = "ns2"`, a 1000-packet receive window) and ns-2's
    buffer sizes: the paper's B (an ns-2 DropTail `limit_`, the packets at the node with the one
    being sent) is tcplab's `limit = B - 1` (docs/ns2-profile.md); with `waiting`, B counts the
    packets waiting only (`limit = B`). `discipline` goes on every hop with a buffer; a `None`
    buffer is an access link's (1000 packets, drop-tail, never full)."""
    sc = chain([(r, 1000 if b is None else b) for r, b in hops], duration)
    for (_, b), h in zip(hops, sc["network"]["chain"]["hops"], strict=True):
        if b is not None:
            h["queue"]["limit"] = b if waiting else b - 1
            h["queue"]["discipline"] = discipline
    sc["flows"][0].update({"profile": "ns2", "rwnd": 1000 * MSS})
    if trace:
        sc["trace"] = {"cwnd": True}
    return sc


def window_events(cw) -> list[tuple[float, float, float]]:
    """Tahoe's loss reactions from a cwnd trace: (time, cwnd before, ssthresh after) in packets,
    every time cwnd falls or ssthresh changes (a timeout at cwnd 1 only changes ssthresh)."""
    if cw.height == 0:
        return []
    cw = cw.sort("time_ns")
    c = cw["cwnd_bytes"].to_numpy() / MSS
    s = cw["ssthresh_bytes"].fill_null(2**50).to_numpy() / MSS
    t = cw["time_s"].to_numpy()
    idx = np.nonzero((c[1:] < c[:-1] - 1e-9) | (s[1:] != s[:-1]))[0] + 1
    return [(float(t[i]), float(c[i - 1]), float(s[i])) for i in idx]


def tahoe_cycles(cw, gap: float = 20.0, after: float = WARMUP) -> list[dict]:
    """TCP cycles after the warm-up: each starts with a congestion-avoidance loss (an event more than
    `gap` s after the previous one) at W_max; the events within the next `gap` s are its slow-start
    losses and timeouts. W_D is the window at the first of those (None: no slow-start loss), W_S
    the threshold congestion avoidance starts from (the last event's ssthresh), `rtx_lost` a
    timeout that set ssthresh to 2 (the retransmission lost, Sec. 7)."""
    ev = window_events(cw)
    cycles: list[dict[str, Any]] = []
    cur: dict[str, Any] | None = None
    last = -math.inf
    for t, c, s in ev:
        if t - last > gap:
            if cur is not None:
                cycles.append(cur)
            cur = {"t": t, "w_max": c, "after": [], "w_s": s}
        elif cur is not None:
            cur["after"].append((t, c, s))
            cur["w_s"] = s
        last = t
    if cur is not None:
        cycles.append(cur)
    out = [cyc for cyc in cycles if cyc["t"] > after]
    for cyc in out:
        cyc["w_d"] = cyc["after"][0][1] if cyc["after"] else None
        cyc["rtx_lost"] = any(s <= 2.0 for _, _, s in cyc["after"])
        cyc["losses"] = len(cyc["after"])
    return out[:-1] if len(out) > 1 else out  # the last may be cut by the end of the run


def kbps(row) -> float:
    """Throughput in kbit/s of 512-byte packets (the paper's unit): ns-2 flows deliver `mss` bytes per packet."""
    return row["goodput_bps"] * SIZE / MSS / 1e3


def med(xs) -> float:
    xs = [x for x in xs if x is not None]
    return float(np.median(xs)) if xs else math.nan


def new_figure(ncols: int = 1, nrows: int = 1, w: float = 6.4, h: float = 4.0):
    from matplotlib.figure import Figure

    return Figure(figsize=(w * ncols, h * nrows), layout="constrained")


def cwnd_xy(cw, t0: float, t1: float):
    import polars as pl

    x = cw.filter((pl.col("time_s") >= t0) & (pl.col("time_s") <= t1))
    return x["time_s"].to_numpy(), x["cwnd_bytes"].to_numpy() / MSS
