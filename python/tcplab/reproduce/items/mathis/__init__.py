"""Mathis, Semke, Mahdavi & Ott 1997, one module per figure group; importing this package registers
its items in report order."""

import importlib

#: The modules in report order: each registers its items when imported.
MODULES = ("table4", "periodic", "gateways", "queueing", "equilibrium", "implications")

for _module in MODULES:
    importlib.import_module(f"{__name__}.{_module}")
