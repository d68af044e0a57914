"""Fits of the macroscopic model to sweep results, as Mathis et al. 1997 Table 4.

Window fit (Sec. 3.5, Eq. 3 and Eq. 5): least squares of

    log(BW * RTT / MSS) = log C + k log p

with BW = goodput_bps / 8 (bytes/s), RTT = mean_rtt_s (the RTT the sender sampled, Sec. 3.2),
MSS = mss_bytes, once with k fixed at -1/2 (only C is fitted: log C is the mean of
log(W) + log(p)/2) and once with k free (ordinary least squares). Flows with timeouts are left
out by default, as in Table 4. Confidence intervals are Student-t intervals on log C and k,
so the interval of C is [exp(lo), exp(hi)], not symmetric.

Proportion of successful W/2 adjustments (Sec. 3.4, Fig. 8, right side of Table 4):
ca_events / (ca_events + non_ca_events), pooled over the flows whose p lies within a bin around
each chosen p (default within 0.1 decade, a factor 10**0.1 = 1.26 either side), with a Wilson
score interval on the pooled counts. All flows count here, with or without timeouts.

Which p (the `p` argument):
  "configured"  the loss probability the scenario sets on the path: 1 - prod(1 - p_i) over the
                hops with a loss model (`network.path.hops.<i>.loss.p`, or 1/n for periodic
                loss given by n);
  "measured"    the flow's own p: CA events per acknowledged segment (the `p` column);
  "auto"        configured when every flow has a configured loss probability > 0, else measured;
  any other name: that column (e.g. "loss_event_rate").
"""

from __future__ import annotations

import math
import re
from typing import Sequence

import numpy as np
import polars as pl

__all__ = ["FitError", "ca_proportion", "fit", "p_values", "t_quantile", "window_frame"]

DEFAULT_AT = (0.01, 0.033, 0.1)
_HOP_LOSS = re.compile(r"^network\.path\.hops\.(\d+)\.loss\.(p|n|model)$")


class FitError(ValueError):
    """Data that cannot be fitted as asked (a missing column, no configured p)."""


# ---- Student t quantile (numpy has none; scipy is not a dependency) ----------------------------


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b) by its continued fraction (modified Lentz)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - _betainc(b, a, 1.0 - x)
    ln_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return math.exp(ln_front) * h / a


def _t_cdf(t: float, df: float) -> float:
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(q: float, df: float) -> float:
    """The q-quantile of Student's t with `df` degrees of freedom (bisection on the CDF)."""
    if not 0.0 < q < 1.0 or df <= 0:
        raise ValueError(f"t_quantile: need 0 < q < 1 and df > 0, got q={q}, df={df}")
    if q < 0.5:
        return -t_quantile(1.0 - q, df)
    lo, hi = 0.0, 1.0
    while _t_cdf(hi, df) < q:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _t_cdf(mid, df) < q else (lo, mid)
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


# ---- which p -----------------------------------------------------------------------------------


def _configured(df: pl.DataFrame) -> pl.Expr | None:
    hops: dict[int, dict[str, str]] = {}
    for col in df.columns:
        if m := _HOP_LOSS.match(col):
            hops.setdefault(int(m.group(1)), {})[m.group(2)] = col
    terms = []
    for cols in hops.values():
        if "p" not in cols and "n" not in cols:
            continue
        p = pl.col(cols["p"]).cast(pl.Float64) if "p" in cols else pl.lit(None, pl.Float64)
        if "n" in cols:
            p = p.fill_null(1.0 / pl.col(cols["n"]).cast(pl.Float64))
        if "model" in cols:  # a hop without a loss model has no loss
            p = pl.when(pl.col(cols["model"]).is_null()).then(0.0).otherwise(p)
        terms.append(p.fill_null(0.0))
    if len(terms) <= 1:  # one lossy hop: its p exactly
        return terms[0] if terms else None
    survive = 1.0 - terms[0]
    for t in terms[1:]:
        survive = survive * (1.0 - t)
    return 1.0 - survive


def p_values(df: pl.DataFrame, p: str = "auto") -> tuple[pl.Series, str]:
    """The p of each row and a description of where it came from (see the module doc)."""
    if p in ("auto", "configured"):
        expr = _configured(df)
        if expr is not None:
            values = df.select(expr.alias("p_used")).to_series()
            if p == "configured" or (values.null_count() == 0 and bool((values > 0).all())):
                return values, "configured loss probability (network.path.hops.*.loss)"
        elif p == "configured":
            raise FitError("--p configured: the store has no configured loss probability "
                           "(no network.path.hops.<i>.loss.p column); use --p measured")
        p = "measured"
    column = "p" if p == "measured" else p
    if column not in df.columns:
        raise FitError(f"--p {p}: no column {column!r} in the results (expected auto, configured, "
                       "measured or a column name such as loss_event_rate)")
    source = "measured p (CA events per acknowledged segment)" if p == "measured" else f"column {column}"
    return df.get_column(column).cast(pl.Float64).alias("p_used"), source


def window_frame(df: pl.DataFrame, p: str = "auto") -> tuple[pl.DataFrame, str]:
    """`df` plus p_used and window = BW*RTT/MSS (goodput_bps/8 * mean_rtt_s / mss_bytes)."""
    for col in ("goodput_bps", "mean_rtt_s", "mss_bytes", "timeouts"):
        if col not in df.columns:
            raise FitError(f"the results have no column {col!r}; is this a tcplab results store?")
    p_used, source = p_values(df, p)
    out = df.with_columns(p_used, (pl.col("goodput_bps") / 8.0 * pl.col("mean_rtt_s") / pl.col("mss_bytes"))
                          .cast(pl.Float64).alias("window"))
    return out, source


def _groups(df: pl.DataFrame, by: Sequence[str]) -> list[tuple[dict, pl.DataFrame]]:
    for col in by:
        if col not in df.columns:
            raise FitError(f"--by {col}: no such column (columns include tcp, ack, flows.0.mss, ...)")
    if not by:
        return [({}, df)]
    keys = df.select(by).unique().sort(by, nulls_last=True)
    out = []
    for key in keys.iter_rows(named=True):
        mask = pl.lit(True)
        for col, value in key.items():
            mask = mask & (pl.col(col).is_null() if value is None else pl.col(col) == value)
        out.append((key, df.filter(mask)))
    return out


def _fit_one(x: np.ndarray, y: np.ndarray, level: float) -> dict:
    n = len(x)
    nan = float("nan")
    res = {"n": n, "c_half": nan, "c_half_lo": nan, "c_half_hi": nan, "k": nan, "k_lo": nan, "k_hi": nan,
           "c": nan, "c_lo": nan, "c_hi": nan, "r2": nan}
    if n == 0:
        return res
    z = y + 0.5 * x  # k = -1/2: log C = mean(log W + log(p)/2)
    m = float(z.mean())
    res["c_half"] = math.exp(m)
    if n >= 2:
        half = t_quantile(0.5 + level / 2, n - 1) * float(z.std(ddof=1)) / math.sqrt(n)
        res["c_half_lo"], res["c_half_hi"] = math.exp(m - half), math.exp(m + half)
    sxx = float(((x - x.mean()) ** 2).sum())
    if n >= 2 and sxx > 0:
        k = float(((x - x.mean()) * (y - y.mean())).sum()) / sxx
        b = float(y.mean()) - k * float(x.mean())
        res["k"], res["c"] = k, math.exp(b)
        sse = float(((y - b - k * x) ** 2).sum())
        syy = float(((y - y.mean()) ** 2).sum())
        res["r2"] = 1.0 - sse / syy if syy > 0 else nan
        if n >= 3:
            s = math.sqrt(sse / (n - 2))
            t = t_quantile(0.5 + level / 2, n - 2)
            se_k, se_b = s / math.sqrt(sxx), s * math.sqrt(1.0 / n + float(x.mean()) ** 2 / sxx)
            res["k_lo"], res["k_hi"] = k - t * se_k, k + t * se_k
            res["c_lo"], res["c_hi"] = math.exp(b - t * se_b), math.exp(b + t * se_b)
    return res


def fit(df: pl.DataFrame, by: Sequence[str] = ("tcp", "ack"), p: str = "auto", include_timeouts: bool = False,
        level: float = 0.95) -> tuple[pl.DataFrame, str]:
    """Table 4, left side: per group, N and the fits with k = -1/2 (c_half and its interval)
    and with k free (k, c and their intervals). Returns (table, description of p)."""
    if not 0 < level < 1:
        raise FitError(f"--level {level}: expected a confidence level between 0 and 1, e.g. 0.95")
    frame, source = window_frame(df, p)
    rows = []
    for key, g in _groups(frame, by):
        timeouts = g.filter(pl.col("timeouts") > 0).height
        if not include_timeouts:
            g = g.filter(pl.col("timeouts") == 0)
        ok = g.filter((pl.col("p_used") > 0) & (pl.col("window") > 0)
                      & pl.col("p_used").is_finite() & pl.col("window").is_finite())
        x = np.log(ok.get_column("p_used").to_numpy())
        y = np.log(ok.get_column("window").to_numpy())
        rows.append({**key, **_fit_one(x, y, level),
                     "excluded_timeouts": 0 if include_timeouts else timeouts,
                     "excluded_invalid": g.height - ok.height})
    return pl.DataFrame(rows), source


def _wilson(successes: int, n: int, level: float) -> tuple[float, float]:
    if n == 0:
        return float("nan"), float("nan")
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + level / 2)
    phat = successes / n
    centre = (phat + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def ca_proportion(df: pl.DataFrame, by: Sequence[str] = ("tcp", "ack"), p: str = "auto",
                  at: Sequence[float] = DEFAULT_AT, width: float = 0.1, level: float = 0.95) -> tuple[pl.DataFrame, str]:
    """Table 4, right side: per group and chosen p, the proportion of successful W/2 adjustments
    over the flows with |log10(p) - log10(at)| <= width. Returns (table, description of p)."""
    if width <= 0:
        raise FitError(f"--bin-width {width}: expected a positive width in decades of p, e.g. 0.1")
    for a in at:
        if not 0 < a <= 1:
            raise FitError(f"--at {a}: expected probabilities in (0, 1]")
    for col in ("ca_events", "non_ca_events"):
        if col not in df.columns:
            raise FitError(f"the results have no column {col!r}; is this a tcplab results store?")
    p_used, source = p_values(df, p)
    frame = df.with_columns(p_used)
    rows = []
    for key, g in _groups(frame, by):
        g = g.filter(pl.col("p_used") > 0)
        logp = np.log10(g.get_column("p_used").to_numpy())
        ca = g.get_column("ca_events").to_numpy()
        non = g.get_column("non_ca_events").to_numpy()
        for a in at:
            sel = np.abs(logp - math.log10(a)) <= width + 1e-12
            s, n = int(ca[sel].sum()), int(ca[sel].sum() + non[sel].sum())
            lo, hi = _wilson(s, n, level)
            rows.append({**key, "p": a, "p_lo": a * 10**-width, "p_hi": a * 10**width, "runs": int(sel.sum()),
                         "ca_events": s, "non_ca_events": n - s,
                         "proportion": s / n if n else float("nan"), "lo": lo, "hi": hi})
    return pl.DataFrame(rows), source
