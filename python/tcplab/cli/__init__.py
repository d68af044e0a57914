"""The `tcplab` command line: the typer app (`tcplab.cli.commands`) and the helpers every command
shares (`tcplab.cli.common`). `python -m tcplab.cli` is the `tcplab` script.

The names below are loaded on first use: an area's command module imports `tcplab.cli.common`
without building the app (which imports every area's commands)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tcplab import lazy

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


__getattr__, __dir__ = lazy.attributes(__name__, EXPORTS, PARTS, globals())
