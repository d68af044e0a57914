"""Analytic TCP throughput models (pure Python + numpy; no compiled extension needed).

Submodules, one per source:

* :mod:`tcplab.models.mathis` -- Mathis et al. 1997, the square-root model and its inverse.
* :mod:`tcplab.models.pftk` -- Padhye et al. 1998, simple and full formulas (Parvez Table I).
* :mod:`tcplab.models.newreno` -- Parvez, Mahanti & Williamson 2010, NoTO and Full models.
* :mod:`tcplab.models.newreno_paper` -- the NewReno model evaluated as Parvez et al. do: Eq. 29 term
  by term, Table IV's model column.
* :mod:`tcplab.models.multibottleneck` -- Barakat & Altman 1999, several bottleneck nodes.
* :mod:`tcplab.models.gateways` -- Mathis Sec. 6, multiple congested gateways.
* :mod:`tcplab.models.jacobson` -- Jacobson & Karels 1988, damage loss, equilibration, RTO.
* :mod:`tcplab.models.cubic` -- RFC 9438 Sec. 5, CUBIC's response function beside Reno's.
* :mod:`tcplab.models.dctcp` -- Alizadeh et al. 2010 Sec. 3.3-3.4, DCTCP's steady state.
* :mod:`tcplab.models.scalable` -- the scalable response W = 2/p beside classic ECN's.
* :mod:`tcplab.models.dualq` -- RFC 9332, the DualQ coupling and the rate balance it predicts.

All functions take SI units (bytes, seconds, bit/s), broadcast over numpy arrays and raise
``ValueError`` naming the parameter when an argument is outside its domain.
"""

__all__ = [
    "cubic",
    "dctcp",
    "dualq",
    "gateways",
    "jacobson",
    "mathis",
    "multibottleneck",
    "newreno",
    "newreno_paper",
    "pftk",
    "scalable",
]


def __getattr__(name: str) -> object:
    """`tcplab.models.mathis` etc. without importing the submodule first (loaded on first use)."""
    if name in __all__ or name in ("catalog", "catalog_ecn", "cli", "plots"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'tcplab.models' has no attribute {name!r}")
