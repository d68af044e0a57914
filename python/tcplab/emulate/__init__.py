"""Emulation: the flows of a scenario run by this machine's own kernel TCP, through the
scenario's network as tcplab models it, in real time (`tcplab emulate`, docs/emulation.md).

Each flow's sender and receiver live in network namespaces this run creates, joined through
TUN devices to the simulator's links (rate, delay, every queue discipline and loss module,
background traffic simulated beside them): the Rust core (`tcplab._core.Emulator`) moves the
real packets through the model as the wall clock reaches each event. The run reports the same
per-flow and per-link tables as a simulation: per flow from a capture at the senders analyzed
with the trace analyzer (the papers' instruments) and from the sender's TCP_INFO, per link the
simulator's own counters; and a self-check of what the emulator achieved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tcplab import lazy

if TYPE_CHECKING:
    from tcplab.emulate.kernel import EmulationError
    from tcplab.emulate.run import EmulationResult, emulate

#: The public names, loaded on first use (`tcplab emulate --help` does not import polars).
EXPORTS = {"EmulationError": "kernel", "EmulationResult": "run", "emulate": "run"}

__all__ = ["EmulationError", "EmulationResult", "emulate"]

#: The submodules, also loaded on first use as attributes.
PARTS = ("cli", "endpoints", "kernel", "netns", "run", "selfcheck", "validate")


__getattr__, __dir__ = lazy.attributes(__name__, EXPORTS, PARTS, globals())
