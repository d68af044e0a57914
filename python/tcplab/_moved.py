"""Old module paths that keep working: each is the module at its new path, with a
DeprecationWarning naming it."""

from __future__ import annotations

import importlib
import sys
import warnings
from types import ModuleType

#: Old module path -> new one.
MOVED = {
    "tcplab.capture_plots": "tcplab.capture.plots",
    "tcplab.run_plots": "tcplab.capture.run_plots",
    "tcplab.trace_cli": "tcplab.capture.cli",
    "tcplab.sweep_cli": "tcplab.sweep.cli",
    "tcplab.ns2ref": "tcplab.validation.ns2ref",
}


def moved(old: str) -> ModuleType:
    """Imports the new module, warns, and puts it in sys.modules under the old path too (so that
    `from tcplab import ns2ref` and `import tcplab.ns2ref` both give it)."""
    new = MOVED[old]
    warnings.warn(
        f"{old} is now {new}; import it from there (the old path will be removed)",
        DeprecationWarning,
        stacklevel=3,
    )
    module = importlib.import_module(new)
    sys.modules[old] = module
    return module
