"""Packet captures and traces: the papers' instruments on pcap/pcapng files
(`tcplab.capture.analysis`: `analyze`, `CaptureAnalysis`, `CaptureError`, `predictions`), a
connection's figures (`tcplab.capture.plots`), the same figures from a run's `--trace-out`
directory (`tcplab.capture.run_plots`), the drawing both share (`tcplab.capture.draw`) and
`tcplab trace` (`tcplab.capture.cli`).

The names below are importable from `tcplab.capture` and loaded on first use (polars and
matplotlib are not imported with the package)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tcplab import lazy

if TYPE_CHECKING:
    from tcplab.capture.analysis import PREDICTION_SCHEMA, CaptureAnalysis, CaptureError, analyze, predictions

EXPORTS = dict.fromkeys(
    ("PREDICTION_SCHEMA", "CaptureAnalysis", "CaptureError", "analyze", "predictions"), "analysis"
)

__all__ = ["CaptureAnalysis", "CaptureError", "analyze", "predictions"]

#: The submodules, also loaded on first use as attributes.
PARTS = ("analysis", "cli", "draw", "plots", "run_plots")


__getattr__, __dir__ = lazy.attributes(__name__, EXPORTS, PARTS, globals())
