"""Parvez, Mahanti & Williamson 2010: the NewReno model against simulation, one module per figure
group; importing this package registers its items in report order. The model's formulas are in
`tcplab.models.newreno` and `tcplab.models.newreno_paper`."""

import importlib

#: The modules in report order: each registers its items when imported.
MODULES = ("loss", "bernoulli", "background", "variations", "window", "emulation")

for _module in MODULES:
    importlib.import_module(f"{__name__}.{_module}")
