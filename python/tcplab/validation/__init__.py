"""Validation checks of the simulator against published results.

Each check is a module runnable as ``python -m tcplab.validation.<name>``, with a ``--quick`` form
for CI; ``mathis_table4`` reproduces Mathis, Semke, Mahdavi and Ott 1997, Table 4.
"""
