"""Packet captures analyzed with the papers' instruments (``tcplab trace analyze``).

:func:`analyze` reads a pcap or pcapng file in the Rust core (``tcplab._core.analyze_capture``)
and returns a :class:`CaptureAnalysis`: one row per data direction of every TCP connection
(goodput, RTT, retransmissions by cause, Mathis' CA / non-CA events and p, Parvez's loss events),
as polars frames built from Arrow batches, and, with :meth:`CaptureAnalysis.with_predictions`,
the Mathis, PFTK and Parvez NoTO / Full predictions from each direction's measured p, RTT and
RTO, with the notes of any model whose stated domain the measurements leave; for a connection
with ECN, Mathis' prediction again from the marking rate (CE marks per data segment) as its p.
docs/pcap.md has every column.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

__all__ = ["CaptureAnalysis", "CaptureError", "analyze", "predictions"]


class CaptureError(ValueError):
    """A file that cannot be analyzed: not a capture, unreadable, no TCP in it."""


@dataclass
class CaptureAnalysis:
    path: str
    connections: pl.DataFrame
    segments: pl.DataFrame
    rtt: pl.DataFrame
    summary: dict[str, Any] = field(default_factory=dict)
    #: The window analyzed, seconds after the first packet (`end` None: to the last packet).
    start: float = 0.0
    end: float | None = None

    @property
    def warnings(self) -> list[str]:
        """What makes the analysis less than it seems: a truncated file, skipped records, ...
        (connections that start mid-stream are in `notes`)."""
        return [w for w in self.summary.get("warnings", []) if not _mid_stream(w)]

    @property
    def notes(self) -> list[str]:
        """Information, not a fault: connections whose handshake the capture does not hold (it
        began mid-stream, or it is a simulation's without `handshake = true`),
        summarized in one line; sequence numbers then count from the first byte seen."""
        n = sum(_mid_stream(w) for w in self.summary.get("warnings", []))
        if not n:
            return []
        return [
            f"{n} connection direction{'s' if n != 1 else ''} without a handshake in the capture (a "
            "simulation's capture has none; else it began mid-stream): bytes count from the first one seen"
        ]

    @property
    def complete(self) -> bool:
        """False when the file ended inside a record (the analysis covers what came before)."""
        return not self.summary.get("truncated_file", False)

    def with_predictions(self) -> pl.DataFrame:
        """The connections with the models' predictions beside the measured goodput."""
        rows = [predictions(r) for r in self.connections.iter_rows(named=True)]
        extra = (
            pl.DataFrame(rows, schema=PREDICTION_SCHEMA, orient="row")
            if rows
            else pl.DataFrame(schema=PREDICTION_SCHEMA)
        )
        return pl.concat([self.connections, extra], how="horizontal")


def _mid_stream(warning: str) -> bool:
    return ": no handshake in the capture" in warning


def analyze(
    path: str | Path,
    *,
    start: float = 0.0,
    end: float | None = None,
    conn: int | None = None,
    max_points: int = 1_000_000,
) -> CaptureAnalysis:
    """Analyze the capture at `path` over [start, end] seconds after its first packet; keep
    the packets and RTT samples of connection `conn` (for plots)."""
    from tcplab import _core

    if start < 0 or not math.isfinite(start):
        raise CaptureError(f"--from: {start} (expected a time >= 0 after the capture's first packet)")
    if end is not None and (not math.isfinite(end) or end <= start):
        raise CaptureError(f"--to: {end} (expected a time after --from = {start})")
    p = Path(path)
    if not p.is_file():
        raise CaptureError(f"{path}: no such file")
    try:
        tables, summary = _core.analyze_capture(str(p), start, end, conn, max_points)
    except _core.ScenarioError as e:
        raise CaptureError(str(e)) from None
    frames = {name: pl.DataFrame(t) for name, t in tables.items()}
    # The packets and RTT samples kept for plots, in the window the rest was measured over.
    inside = pl.col("time_s") >= start
    if end is not None:
        inside = inside & (pl.col("time_s") <= end)
    segments, rtt = (frames[n].filter(inside) for n in ("segments", "rtt"))
    return CaptureAnalysis(str(p), frames["connections"], segments, rtt, dict(summary), start, end)


#: The prediction columns `with_predictions` adds, in order.
PREDICTION_SCHEMA = {
    "acks_per_segment": pl.Float64,
    "mathis_c": pl.Float64,
    "mathis_bps": pl.Float64,
    "rto_used_s": pl.Float64,
    "pftk_full_bps": pl.Float64,
    "q": pl.Float64,
    "parvez_noto_bps": pl.Float64,
    "parvez_full_bps": pl.Float64,
    "p_ecn": pl.Float64,
    "mathis_ecn_bps": pl.Float64,
    "model_notes": pl.Utf8,
}


def _predict(name: str, params: dict, columns: dict, out: dict, notes: list) -> None:
    """Evaluates model `name` into `out` (its results' keys to `out`'s columns), its domain
    notes into `notes`; a model that refuses its inputs leaves one note instead."""
    from tcplab.models.catalog import run_model

    try:
        res, n = run_model(name, params)
    except ValueError as e:
        notes.append(f"{name}: {e}")
        return
    for key, column in columns.items():
        out[column] = res[key]
    notes += n


def predictions(r: dict[str, Any]) -> dict[str, Any]:
    """The models' predictions for one direction row of `connections`.

    Mathis (Eq. 3) takes Mathis' p (CA events per acknowledged segment) and the mean RTT, with
    C = sqrt(3/2) for an ACK per segment and sqrt(3/4) for delayed ACKs (measured: ACKs per
    data segment above or below 0.75). PFTK Full and Parvez NoTO / Full take Parvez's p (loss
    events per segment sent), the RTT, and the RTO measured on the capture's timeouts (else
    RFC 6298's estimate from the RTT samples, else 3 RTT); Parvez's q comes from the packet loss
    rate by Eq. 30. A model that cannot be evaluated gives NaN and a note.
    """
    nan = float("nan")
    out: dict[str, Any] = {k: nan for k in PREDICTION_SCHEMA}
    notes: list[str] = []
    rtt = r["ts_mean_rtt_s"] if r["ts_rtt_samples"] else r["mean_rtt_s"]
    mss = r["mss_bytes"]
    segs = r["segments_sent"] - r["segments_retransmitted"]
    b = r["acks"] / segs if segs else nan
    out["acks_per_segment"] = b
    if not (rtt and math.isfinite(rtt)):
        out["model_notes"] = "no RTT samples: no model can be evaluated"
        return out
    rto = next(
        (x for x in (r["rto_s"], r["rto_estimate_s"]) if x is not None and math.isfinite(x) and x > 0),
        3 * rtt,
    )
    out["rto_used_s"] = rto
    c = math.sqrt(1.5) if (math.isfinite(b) and b >= 0.75) else math.sqrt(0.75)
    out["mathis_c"] = c
    if r["ca_events"] > 0 and math.isfinite(r["p"]) and r["p"] > 0:
        _predict(
            "mathis",
            {"mss": mss, "rtt": rtt, "loss": r["p"], "c": c},
            {"throughput": "mathis_bps"},
            out,
            notes,
        )
    else:
        notes.append("mathis: no CA events in the window (p = 0): the model needs periodic halvings")
    p = r["loss_event_rate"]
    if r["loss_events"] > 0 and math.isfinite(p) and 0 < p < 1:
        bb = b if (math.isfinite(b) and b > 0) else 1.0
        _predict(
            "pftk",
            {"mss": mss, "rtt": rtt, "loss": p, "rto": rto, "b": max(1.0, 1 / bb)},
            {"full": "pftk_full_bps"},
            out,
            notes,
        )
        ql = max(r["packet_loss_rate"], p)
        _predict(
            "newreno",
            {"mss": mss, "rtt": rtt, "loss": p, "packet_loss": ql, "rto": rto},
            {"q": "q", "noto": "parvez_noto_bps", "full": "parvez_full_bps"},
            out,
            notes,
        )
    else:
        notes.append("pftk, newreno: no loss events in the window")
    _ecn_prediction(r, mss, rtt, c, out, notes)
    out["model_notes"] = "; ".join(notes)
    return out


def ecn_p(r: dict[str, Any]) -> tuple[float, str | None]:
    """The p of the models under ECN for one direction row, and a note on where it comes from.

    The marking rate (CE marks per data segment) where the capture saw marks, i.e. downstream
    of the marking queue, or wherever it is under AccECN, whose ACKs carry the receiver's own
    count (`accecn_ce_packets`). A capture upstream of it (at the sender) sees no CE, only the echo:
    then the sender's reductions for ECN (CWR segments after an ECE) per acknowledged segment
    stand for the marks, as Mathis' CA events per acknowledged segment do for losses. NaN for a
    direction that was not ECN-capable, or saw neither.
    """
    nan = float("nan")
    capable = r["ect0_segments"] + r["ect1_segments"] + r["ce_segments"]
    if r["ce_segments"] > 0 or r["accecn_ce_packets"] > 0:
        return r["marking_rate"], None
    if r["ecn_reductions"] > 0 and r["bytes_acked"] > 0:
        return r["ecn_reductions"] * r["mss_bytes"] / r["bytes_acked"], (
            "mathis (ECN): no CE mark at this capture point (upstream of the marking queue?): "
            "p from the sender's CWR reductions per acknowledged segment"
        )
    if capable > 0:
        return nan, "mathis (ECN): ECN-capable, but no CE mark or reduction for ECN in the window"
    return nan, None


def _ecn_prediction(r: dict[str, Any], mss: float, rtt: float, c: float, out: dict, notes: list) -> None:
    """Mathis Eq. 3 with the ECN p (`ecn_p`) into `out["mathis_ecn_bps"]`."""
    p, note = ecn_p(r)
    out["p_ecn"] = p
    if note:
        notes.append(note)
    if math.isfinite(p) and p > 0:
        _predict(
            "mathis",
            {"mss": mss, "rtt": rtt, "loss": p, "c": c},
            {"throughput": "mathis_ecn_bps"},
            out,
            notes,
        )
