"""Packages whose parts load on first use (PEP 562): `import tcplab.sweep` stays light, and
`tcplab.sweep.load` imports `tcplab.sweep.plan` when it is first read.

A package lists the names it exports with the module of each, and its submodules; `attributes`
gives it the module-level `__getattr__` and `__dir__` that resolve them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def attributes(
    package: str,
    exports: Mapping[str, str],
    parts: Iterable[str],
    namespace: Mapping[str, Any],
    aliases: Mapping[str, str] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`: a name of `parts` is that submodule; a name
    of `exports` (or of `aliases`, an old name for an exported one) is read from the submodule
    `exports` names for it; anything else is an AttributeError as Python words it. `namespace`
    is the package's `globals()`, so that `dir()` also lists what it defines itself."""
    parts = tuple(parts)
    aliases = dict(aliases or {})

    def __getattr__(name: str) -> Any:
        if name in parts:
            return importlib.import_module(f"{package}.{name}")
        target = aliases.get(name, name)
        part = exports.get(target)
        if part is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{part}"), target)

    def __dir__() -> list[str]:
        return sorted({*namespace, *exports, *parts})

    return __getattr__, __dir__
