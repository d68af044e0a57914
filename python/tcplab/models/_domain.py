"""Argument checking shared by the model modules.

Every model function accepts scalars or numpy arrays (broadcast together), checks each
argument against its domain and raises ``ValueError("name: value is outside (lo, hi]")``
naming the first offending value. Results come back as a Python float when every input
was a scalar and as a numpy array otherwise.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

INF = math.inf


def _fmt(x: float) -> str:
    return f"{x:g}" if math.isfinite(x) else str(x)


def _interval(lo: float, hi: float, lo_open: bool, hi_open: bool) -> str:
    left = "(" if lo_open else "["
    right = ")" if hi_open else "]"
    lo_s = "-inf" if lo == -INF else _fmt(lo)
    hi_s = "inf" if hi == INF else _fmt(hi)
    return f"{left}{lo_s}, {hi_s}{right}"


def arg(
    name: str,
    value: Any,
    lo: float = -INF,
    hi: float = INF,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
    integer: bool = False,
) -> np.ndarray:
    """Return ``value`` as a float array after checking every element lies in the interval."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: {value!r} is not a number") from None
    if array.size == 0:
        raise ValueError(f"{name}: empty input")
    bad = np.isnan(array)
    if lo_open:
        bad |= array <= lo
    else:
        bad |= array < lo
    if hi_open:
        bad |= array >= hi
    else:
        bad |= array > hi
    if integer:
        bad |= np.isfinite(array) & (array != np.round(array))
    if bad.any():
        first = float(array[bad].flat[0])
        what = "an integer in " if integer else ""
        raise ValueError(f"{name}: {_fmt(first)} is outside {what}{_interval(lo, hi, lo_open, hi_open)}")
    return array


def probability(name: str, value: Any, *, allow_zero: bool = False) -> np.ndarray:
    """A probability in (0, 1], or [0, 1] with ``allow_zero``."""
    return arg(name, value, 0.0, 1.0, lo_open=not allow_zero)


def positive(name: str, value: Any) -> np.ndarray:
    """A finite number > 0."""
    return arg(name, value, 0.0, INF, lo_open=True, hi_open=True)


def out(result: Any, *inputs: Any) -> Any:
    """Float when every input was a scalar, else an ndarray (broadcast shape)."""
    if all(np.ndim(x) == 0 for x in inputs):
        return float(np.asarray(result))
    return np.asarray(result, dtype=float)
