"""Fits of the macroscopic model to sweep results, as Mathis et al. 1997 Table 4.

Window fit (Sec. 3.5, Eq. 3 and Eq. 5): least squares of

    log(BW * RTT / MSS) = log C + k log p

with BW = goodput_bps / 8 (bytes/s), RTT = mean_rtt_s (the RTT the sender sampled, Sec. 3.2),
MSS = mss_bytes, once with k fixed at -1/2 (only C is fitted: log C is the mean of
log(W) + log(p)/2) and once with k free (ordinary least squares). Flows with timeouts are left
out by default, as in Table 4, and so are flows with fewer than `min_ca_events` CA events
(default 50: Mathis et al. sized every run for 50 or more congestion-avoidance cycles, Sec. 3.1;
a flow with a handful of cycles has not reached the equilibrium the model describes).
Confidence intervals are Student-t intervals on log C and k,
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
from collections.abc import Sequence

import numpy as np
import polars as pl

__all__ = [
    "FitError",
    "MIN_CA_EVENTS",
    "ca_proportion",
    "fit",
    "numeric",
    "p_values",
    "require_points",
    "t_quantile",
    "window_frame",
]

DEFAULT_AT = (0.01, 0.033, 0.1)
#: Flows with fewer CA events (congestion-avoidance cycles) than this are left out of the fit.
MIN_CA_EVENTS = 50
_HOP_LOSS = re.compile(r"^network\.path\.hops\.(\d+)\.loss\.(p|n|model)$")


class FitError(ValueError):
    """Data that cannot be fitted as asked (a missing column, no configured p)."""


# ---- Student t quantile -----------------------------------------------------------------------


def t_quantile(q: float, df: float) -> float:
    """The q-quantile of Student's t with `df` degrees of freedom (scipy.stats.t)."""
    from scipy import stats

    if not 0.0 < q < 1.0 or df <= 0:
        raise ValueError(f"t_quantile: need 0 < q < 1 and df > 0, got q={q}, df={df}")
    return float(stats.t.ppf(q, df))


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


def numeric(df: pl.DataFrame, columns: Sequence[str]) -> None:
    """FitError naming the first of `columns` that `df` holds as anything but numbers (a store
    written by hand or by another tool, a column of text): every column a fit reads is checked
    before it is computed with."""
    for col in columns:
        dtype = df.schema.get(col)
        if dtype is not None and not (dtype.is_numeric() or dtype == pl.Null):
            raise FitError(
                f"column {col!r} holds {dtype} values (expected numbers); is this a tcplab results store?"
            )


def p_values(df: pl.DataFrame, p: str = "auto") -> tuple[pl.Series, str]:
    """The p of each row and a description of where it came from (see the module doc)."""
    if p in ("auto", "configured"):
        numeric(df, [c for c in df.columns if _HOP_LOSS.match(c) and not c.endswith(".model")])
        expr = _configured(df)
        if expr is not None:
            values = df.select(expr.alias("p_used")).to_series()
            if p == "configured" or (values.null_count() == 0 and bool((values > 0).all())):
                return values, "configured loss probability (network.path.hops.*.loss)"
        elif p == "configured":
            raise FitError(
                "--p configured: the store has no configured loss probability "
                "(no network.path.hops.<i>.loss.p column); use --p measured"
            )
        p = "measured"
    column = "p" if p == "measured" else p
    if column not in df.columns:
        raise FitError(
            f"--p {p}: no column {column!r} in the results (expected auto, configured, "
            "measured or a column name such as loss_event_rate)"
        )
    numeric(df, [column])
    source = "measured p (CA events per acknowledged segment)" if p == "measured" else f"column {column}"
    return df.get_column(column).cast(pl.Float64).alias("p_used"), source


def window_frame(df: pl.DataFrame, p: str = "auto") -> tuple[pl.DataFrame, str]:
    """`df` plus p_used and window = BW*RTT/MSS (goodput_bps/8 * mean_rtt_s / mss_bytes)."""
    for col in ("goodput_bps", "mean_rtt_s", "mss_bytes", "timeouts"):
        if col not in df.columns:
            raise FitError(f"the results have no column {col!r}; is this a tcplab results store?")
    numeric(df, ["goodput_bps", "mean_rtt_s", "mss_bytes", "timeouts", "ca_events"])
    p_used, source = p_values(df, p)
    out = df.with_columns(
        p_used,
        (pl.col("goodput_bps") / 8.0 * pl.col("mean_rtt_s") / pl.col("mss_bytes"))
        .cast(pl.Float64)
        .alias("window"),
    )
    return out, source


def groups_of(df: pl.DataFrame, by: Sequence[str]) -> list[tuple[dict, pl.DataFrame]]:
    """(key, rows) per distinct value of `by`, keys in sorted order (nulls last)."""
    for col in by:
        if col not in df.columns:
            raise FitError(f"--by {col}: no such column (columns include tcp, ack, flows.0.mss, ...)")
    if not by:
        return [({}, df)]
    parts = df.partition_by(list(by), as_dict=True, maintain_order=True)
    keys = sorted(parts, key=lambda k: tuple((v is None, v) for v in k))
    return [(dict(zip(by, k, strict=True)), parts[k]) for k in keys]


def _fit_one(x: np.ndarray, y: np.ndarray, level: float) -> dict:
    """log C with k = -1/2 (a mean and its t interval), and log C, k free by ordinary least
    squares (scipy.stats.linregress) with t intervals from its standard errors."""
    from scipy import stats

    n = len(x)
    nan = float("nan")
    res = {
        "n": n,
        "c_half": nan,
        "c_half_lo": nan,
        "c_half_hi": nan,
        "k": nan,
        "k_lo": nan,
        "k_hi": nan,
        "c": nan,
        "c_lo": nan,
        "c_hi": nan,
        "r2": nan,
    }
    if n == 0:
        return res
    z = y + 0.5 * x  # k = -1/2: log C = mean(log W + log(p)/2)
    m = float(z.mean())
    res["c_half"] = math.exp(m)
    if n >= 2:
        half = t_quantile(0.5 + level / 2, n - 1) * float(stats.sem(z))
        res["c_half_lo"], res["c_half_hi"] = math.exp(m - half), math.exp(m + half)
    if n >= 2 and float(np.ptp(x)) > 0:
        lr = stats.linregress(x, y)
        k, b = float(lr.slope), float(lr.intercept)
        res["k"], res["c"] = k, math.exp(b)
        if float(np.ptp(y)) > 0:
            res["r2"] = float(lr.rvalue) ** 2
        if n >= 3:
            t = t_quantile(0.5 + level / 2, n - 2)
            se_k, se_b = float(lr.stderr), float(lr.intercept_stderr)
            res["k_lo"], res["k_hi"] = k - t * se_k, k + t * se_k
            res["c_lo"], res["c_hi"] = math.exp(b - t * se_b), math.exp(b + t * se_b)
    return res


def fit(
    df: pl.DataFrame,
    by: Sequence[str] = ("tcp", "ack"),
    p: str = "auto",
    include_timeouts: bool = False,
    level: float = 0.95,
    min_ca_events: int = MIN_CA_EVENTS,
) -> tuple[pl.DataFrame, str]:
    """Table 4, left side: per group, N and the fits with k = -1/2 (c_half and its interval)
    and with k free (k, c and their intervals). Returns (table, description of p).

    Left out, and counted per group: flows with timeouts (`excluded_timeouts`, unless
    `include_timeouts`), flows with fewer than `min_ca_events` CA events (`excluded_few_ca`),
    then flows without a positive p and goodput (`excluded_invalid`)."""
    if not 0 < level < 1:
        raise FitError(f"--level {level}: expected a confidence level between 0 and 1, e.g. 0.95")
    if min_ca_events < 0:
        raise FitError(f"--min-ca-events {min_ca_events}: expected a count >= 0")
    frame, source = window_frame(df, p)
    if min_ca_events and "ca_events" not in frame.columns:
        raise FitError("the results have no column 'ca_events'; is this a tcplab results store?")
    rows = []
    for key, g in groups_of(frame, by):
        timeouts = g.filter(pl.col("timeouts") > 0).height
        if not include_timeouts:
            g = g.filter(pl.col("timeouts") == 0)
        few = 0
        if min_ca_events:
            enough = g.filter(pl.col("ca_events") >= min_ca_events)
            few, g = g.height - enough.height, enough
        ok = g.filter(
            (pl.col("p_used") > 0)
            & (pl.col("window") > 0)
            & pl.col("p_used").is_finite()
            & pl.col("window").is_finite()
        )
        x = np.log(ok.get_column("p_used").to_numpy())
        y = np.log(ok.get_column("window").to_numpy())
        rows.append(
            {
                **key,
                **_fit_one(x, y, level),
                "excluded_timeouts": 0 if include_timeouts else timeouts,
                "excluded_few_ca": few,
                "excluded_invalid": g.height - ok.height,
            }
        )
    return pl.DataFrame(rows), source


def require_points(table: pl.DataFrame) -> None:
    """FitError unless `fit`'s table was fitted over at least 2 flows in all: a fit of one point
    (a one-run store) is no fit, though `fit` returns its row with NaN intervals."""
    fitted = int(table["n"].sum()) if table.height else 0
    if fitted < 2:
        raise FitError(
            f"{fitted} flow{'' if fitted == 1 else 's'} to fit after leaving some out (expected at least 2: "
            "C p^k is fitted over flows at several p, e.g. a sweep's runs; see --min-ca-events, --include-timeouts)"
        )


def _wilson(successes: int, n: int, level: float) -> tuple[float, float]:
    if n == 0:
        return float("nan"), float("nan")
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + level / 2)
    phat = successes / n
    centre = (phat + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def ca_proportion(
    df: pl.DataFrame,
    by: Sequence[str] = ("tcp", "ack"),
    p: str = "auto",
    at: Sequence[float] = DEFAULT_AT,
    width: float = 0.1,
    level: float = 0.95,
) -> tuple[pl.DataFrame, str]:
    """Table 4, right side: per group and chosen p, the proportion of successful W/2 adjustments
    over the flows with |log10(p) - log10(at)| <= width. Returns (table, description of p)."""
    if not (width > 0 and math.isfinite(width)):
        raise FitError(f"--bin-width {width}: expected a positive width in decades of p, e.g. 0.1")
    for a in at:
        if not 0 < a <= 1:
            raise FitError(f"--at {a}: expected probabilities in (0, 1]")
    for col in ("ca_events", "non_ca_events"):
        if col not in df.columns:
            raise FitError(f"the results have no column {col!r}; is this a tcplab results store?")
    numeric(df, ["ca_events", "non_ca_events"])
    p_used, source = p_values(df, p)
    frame = df.with_columns(p_used)
    rows = []
    for key, g in groups_of(frame, by):
        g = g.filter(pl.col("p_used") > 0)
        logp = np.log10(g.get_column("p_used").to_numpy())
        ca = g.get_column("ca_events").to_numpy()
        non = g.get_column("non_ca_events").to_numpy()
        for a in at:
            sel = np.abs(logp - math.log10(a)) <= width + 1e-12
            s, n = int(ca[sel].sum()), int(ca[sel].sum() + non[sel].sum())
            lo, hi = _wilson(s, n, level)
            rows.append(
                {
                    **key,
                    "p": a,
                    "p_lo": a * 10**-width,
                    "p_hi": a * 10**width,
                    "runs": int(sel.sum()),
                    "ca_events": s,
                    "non_ca_events": n - s,
                    "proportion": s / n if n else float("nan"),
                    "lo": lo,
                    "hi": hi,
                }
            )
    return pl.DataFrame(rows), source
