"""Jacobson & Karels 1988, one module per figure group; importing this package registers its items
in report order."""

from tcplab.reproduce.items.jacobson import startup, conversations, appendices  # noqa: F401  (the report's order)
