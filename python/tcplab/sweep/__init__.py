"""Sweeps: a base scenario plus axes, expanded into a deterministic list of runs, run into a
results store (locally or on a Dask cluster).

    from tcplab import sweep
    outcome = sweep.run_sweep(sweep.load("sweeps/mathis-fig4.toml"), "fig4.parquet")

The parts: `tcplab.sweep.plan` (the sweep file and its runs: `load`, `parse`, `Sweep`, `run_key`),
`tcplab.sweep.local` and `tcplab.sweep.cluster` (running tasks in local processes or on Dask),
`tcplab.sweep.progress`, `tcplab.sweep.runner` (`run_sweep`) and `tcplab.sweep.cli` (the `tcplab
sweep`, `query`, `fit` and `plot` commands). Every name below is importable from `tcplab.sweep`;
each part is imported on first use, so that `tcplab --help` does not load pydantic or polars.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tcplab import lazy

if TYPE_CHECKING:
    from tcplab.sweep.cluster import (
        CHUNK_SECONDS,
        Chunk,
        check_scheduler,
        dask_client,
        execute_chunk,
        run_on_dask,
        warm,
    )
    from tcplab.sweep.local import execute, pcap_into, run_local
    from tcplab.sweep.plan import MAX_RUNS, Axis, Run, Sweep, SweepError, load, parse, run_key, uniform
    from tcplab.sweep.progress import PlainProgress, progress_bar
    from tcplab.sweep.runner import Outcome, run_sweep

#: Each public name and the part that defines it.
EXPORTS = {
    **dict.fromkeys(
        ("MAX_RUNS", "Axis", "Run", "Sweep", "SweepError", "load", "parse", "run_key", "uniform"), "plan"
    ),
    **dict.fromkeys(("execute", "pcap_into", "run_local"), "local"),
    **dict.fromkeys(
        ("CHUNK_SECONDS", "Chunk", "check_scheduler", "dask_client", "execute_chunk", "run_on_dask", "warm"),
        "cluster",
    ),
    **dict.fromkeys(("PlainProgress", "progress_bar"), "progress"),
    **dict.fromkeys(("Outcome", "run_sweep"), "runner"),
}
#: Names this module had before it was a package, for scripts that used them.
_OLD_NAMES = {"_uniform": "uniform", "_warm": "warm"}

__all__ = ["Axis", "Outcome", "Run", "Sweep", "SweepError", "load", "parse", "run_key", "run_sweep"]

#: The submodules, also loaded on first use as attributes.
PARTS = ("cli", "cluster", "local", "plan", "progress", "runner")


__getattr__, __dir__ = lazy.attributes(__name__, EXPORTS, PARTS, globals(), _OLD_NAMES)
