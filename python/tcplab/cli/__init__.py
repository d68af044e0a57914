"""The `tcplab` command line: the typer app (`tcplab.cli.commands`) and the helpers every command
shares (`tcplab.cli.common`). `python -m tcplab.cli` is the `tcplab` script.

The names below are loaded on first use: an area's command module imports `tcplab.cli.common`
without building the app (which imports every area's commands)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tcplab.cli.commands import DEFAULT_TRACES, app, main, traces_enabled, write_traces
    from tcplab.cli.common import (
        ctrl_c,
        ctrl_c_seen,
        fail,
        interrupted,
        parse_sets,
        read_scenario_arg,
        remember_ctrl_c,
        write_atomically,
    )

EXPORTS = {
    **dict.fromkeys(("DEFAULT_TRACES", "app", "main", "traces_enabled", "write_traces"), "commands"),
    **dict.fromkeys(
        (
            "ctrl_c",
            "ctrl_c_seen",
            "fail",
            "interrupted",
            "parse_sets",
            "read_scenario_arg",
            "remember_ctrl_c",
            "write_atomically",
        ),
        "common",
    ),
}

__all__ = sorted(EXPORTS)

#: The submodules, also loaded on first use as attributes.
PARTS = ("commands", "common")


def __getattr__(name: str) -> Any:
    if name in PARTS:
        return importlib.import_module(f"{__name__}.{name}")
    part = EXPORTS.get(name)
    if part is None:
        raise AttributeError(f"module 'tcplab.cli' has no attribute {name!r}")
    return getattr(importlib.import_module(f"tcplab.cli.{part}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *EXPORTS, *PARTS})
