"""Barakat & Altman 1999, one module per figure group; importing this package registers its items
in report order."""

from tcplab.reproduce.items.barakat import buffers, chain, policies, throughput  # noqa: F401  (the report's order)
