"""Mathis, Semke, Mahdavi & Ott 1997, one module per figure group; importing this package registers
its items in report order."""

from tcplab.reproduce.items.mathis import table4, periodic, queueing, equilibrium  # noqa: F401  (the report's order)
