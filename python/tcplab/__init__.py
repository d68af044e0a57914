"""tcplab: a TCP congestion-control laboratory.

Simulate TCP over modeled networks (`run`), predict it with analytic models (`tcplab.models`),
and compare the two. Importing the package stays light: the compiled simulator is loaded on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from tcplab.simulation import RunResult, ScenarioError, resolve, run

__all__ = ["run", "resolve", "RunResult", "ScenarioError", "__version__"]


def __getattr__(name: str) -> Any:
    if name in ("run", "resolve", "RunResult", "ScenarioError"):
        from tcplab import simulation

        return getattr(simulation, name)
    raise AttributeError(f"module 'tcplab' has no attribute {name!r}")
