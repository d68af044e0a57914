"""Parvez, Mahanti & Williamson 2010: the NewReno model against simulation, one module per figure
group; importing this package registers its items in report order. The model's formulas are in
`tcplab.models.newreno` and `tcplab.models.newreno_paper`."""

from tcplab.reproduce.items.parvez import loss, background, window  # noqa: F401  (this order: the report's)
