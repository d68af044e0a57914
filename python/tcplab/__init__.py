"""tcplab: a TCP congestion-control laboratory.

Simulate TCP over modeled networks (`run`), predict it with analytic models (`tcplab.models`),
and compare the two. Importing the package stays light: the compiled simulator, polars and the
subpackages (`tcplab.sweep`, `tcplab.results`, `tcplab.plots`, ...) are loaded on first use, so
`import tcplab; tcplab.sweep.load(...)` works without importing `tcplab.sweep` first.
docs/api.md lists the public API.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from tcplab import (
        advise,
        capture,
        cli,
        columns,
        emulate,
        fit,
        models,
        plots,
        report,
        reproduce,
        results,
        simulation,
        sweep,
        tables,
        units,
        validation,
    )
    from tcplab.simulation import RunResult, RunWarning, ScenarioError, resolve, run

__all__ = ["run", "resolve", "RunResult", "RunWarning", "ScenarioError", "__version__"]

#: The subpackages and modules that `tcplab.<name>` loads on first use.
SUBMODULES = (
    "advise",
    "capture",
    "cli",
    "columns",
    "emulate",
    "fit",
    "models",
    "plots",
    "report",
    "reproduce",
    "results",
    "simulation",
    "sweep",
    "tables",
    "units",
    "validation",
)


def __getattr__(name: str) -> Any:
    if name in ("run", "resolve", "RunResult", "RunWarning", "ScenarioError"):
        from tcplab import simulation

        return getattr(simulation, name)
    if name in SUBMODULES:
        return importlib.import_module(f"tcplab.{name}")
    raise AttributeError(f"module 'tcplab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *SUBMODULES})
