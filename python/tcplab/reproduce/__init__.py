"""`tcplab reproduce`: the tables and figures of the four papers, one command, one report.

    from tcplab import reproduce
    rep = reproduce.reproduce("mathis", "out", quick=True)   # writes out/report.{md,html}, results.json
    [r.status for r in rep.reports]

See `tcplab.reproduce.core` for what an item is and `tcplab.reproduce.runner` for the output folder.
"""

from tcplab.reproduce.core import PAPERS, Check, Item, Job, Outcome, ReproduceError, items, scenario_names
from tcplab.reproduce.runner import Reproduction, reproduce

__all__ = [
    "PAPERS",
    "Check",
    "Item",
    "Job",
    "Outcome",
    "ReproduceError",
    "Reproduction",
    "items",
    "reproduce",
    "scenario_names",
]
