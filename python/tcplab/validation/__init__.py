"""Validation checks of the simulator against published results and reference simulators:
`tcplab validate ns2` (ns2ref: ns-2's tcpVariants traces event by event), `tcplab validate red`
(red: RED against ns-2 2.35), `tcplab validate mathis-table4` (mathis_table4: Mathis, Semke,
Mahdavi and Ott 1997, Table 4). Each is also `python -m tcplab.validation.<name>`.
"""
