"""Packet captures and traces: the papers' instruments on pcap/pcapng files
(`tcplab.capture.analysis`: `analyze`, `CaptureAnalysis`, `CaptureError`, `predictions`), a
connection's figures (`tcplab.capture.plots`), the same figures from a run's `--trace-out`
directory (`tcplab.capture.run_plots`) and `tcplab trace` (`tcplab.capture.cli`).

The names below are importable from `tcplab.capture` and loaded on first use (polars and
matplotlib are not imported with the package)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tcplab.capture.analysis import PREDICTION_SCHEMA, CaptureAnalysis, CaptureError, analyze, predictions

EXPORTS = dict.fromkeys(
    ("PREDICTION_SCHEMA", "CaptureAnalysis", "CaptureError", "analyze", "predictions"), "analysis"
)

__all__ = ["CaptureAnalysis", "CaptureError", "analyze", "predictions"]

#: The submodules, also loaded on first use as attributes.
PARTS = ("analysis", "cli", "plots", "run_plots")


def __getattr__(name: str) -> Any:
    if name in PARTS:
        return importlib.import_module(f"{__name__}.{name}")
    part = EXPORTS.get(name)
    if part is None:
        raise AttributeError(f"module 'tcplab.capture' has no attribute {name!r}")
    return getattr(importlib.import_module(f"tcplab.capture.{part}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *EXPORTS, *PARTS})
