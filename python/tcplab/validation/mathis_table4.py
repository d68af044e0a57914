"""Mathis, Semke, Mahdavi and Ott 1997, Table 4: every TCP variant on the queueless random-loss path.

    python -m tcplab.validation.mathis_table4 [--quick] [--workers N] [--out DIR] [--sensitivity]

Sec. 3.1's experiment: one flow over a lossy, high-bandwidth link that never sustains a queue, with
constant delay and independent (Bernoulli) loss; MSS 536, 1460 and 4312 bytes, one-way delay 3 to
300 ms, p uniform in log(p) over 3e-5 .. 0.3. For Tahoe, Reno, NewReno, SACK and FACK (FACK-RH,
App. A), each with an ACK per segment and with delayed ACKs, this fits (Sec. 3.5)

    log W = log C + k log p,   W = BW * RTT / MSS (goodput, the sender's mean sampled RTT)

with k = -1/2 (Eq. 3) and with k free (Eq. 5) over the runs without timeouts, and gives the
proportion of successful W/2 adjustments (CA events / all downward window adjustments, Sec. 3.4)
at p = 0.01, 0.033 and 0.1, beside the paper's row.

Two sweeps per design, generated here and kept in sweeps/ (`write_sweeps`):

* the fit sweep: for each (MSS, delay), `draws` values of p drawn log-uniformly (fresh draws per
  (MSS, delay), as the paper's Fig. 4), each run long enough for 60 nominal congestion-avoidance
  cycles after a warmup of 10 (a cycle carries 1/p packets, i.e. lasts RTT / (C sqrt(p)); sized
  with C = 1; the paper: "50 or more cycles", footnote 4), at least 20 s;
* the success sweep: every (MSS, delay) at exactly p = 0.01, 0.033 and 0.1, at least 2000 RTTs,
  so that each proportion pools many events (the fit sweep has only a few runs near each p).

The simulator options are those of the paper's simulator as far as it can be known (the paper
only says "ns version 1"): ssthresh from cwnd, a Jacobson estimator on ns's 100 ms tick with ns's
floor of two ticks. See `PROFILES`. The report's item `mathis-table4` (`tcplab reproduce mathis`,
docs/validation/mathis.md) runs these designs with the discussion, the timer experiment and the
sensitivity table; this command is the quick look at the table alone.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import polars as pl

__all__ = ["PAPER", "PROFILES", "Design", "FULL", "QUICK", "Table4", "compute", "main", "run",
           "sweep_text", "write_sweeps"]

#: Where `--write-sweeps` writes the sweep files (run from a checkout's root) and the base they
#: name, relative to that folder. Running needs neither: the base is the package's copy
#: (`tcplab/reproduce/scenarios/mathis/queueless-random-loss.toml`, equal to the checkout's
#: scenarios/queueless-random-loss.toml; tests/test_reproduce.py holds them equal).
SWEEPS = Path("sweeps")
BASE = "../scenarios/queueless-random-loss.toml"
PACKAGE_BASE = "mathis/queueless-random-loss.toml"

VARIANTS = ("fack", "sack", "reno", "newreno", "tahoe")  # the paper's row order
ACKS = ("immediate", "delayed")
LABEL = {"fack": "FACK", "sack": "SACK", "reno": "Reno", "newreno": "NewReno", "tahoe": "Tahoe"}
AT = (0.01, 0.033, 0.1)


@dataclass(frozen=True)
class PaperRow:
    n: int
    c_half: float  # Eq. 3 (k = -1/2)
    c_half_ci: float  # the +- the paper prints
    k: float  # Eq. 5
    c: float
    c_ci: float
    success: tuple[float, float, float]  # at p = .01, .033, .1


#: Table 4 of the paper (rows without a DA suffix: an ACK for every segment).
PAPER: dict[tuple[str, str], PaperRow] = {
    ("fack", "immediate"): PaperRow(16, 1.352, 0.090, -0.513, 1.205, 0.047, (0.996, 0.985, 0.738)),
    ("sack", "immediate"): PaperRow(11, 1.346, 0.052, -0.508, 1.247, 0.033, (0.992, 0.822, 0.497)),
    ("reno", "immediate"): PaperRow(12, 1.331, 0.054, -0.521, 1.096, 0.009, (0.935, 0.765, 0.331)),
    ("newreno", "immediate"): PaperRow(12, 1.357, 0.055, -0.516, 1.167, 0.020, (0.983, 0.896, 0.517)),
    ("tahoe", "immediate"): PaperRow(11, 1.254, 0.079, -0.534, 0.920, 0.015, (0.974, 0.796, 0.367)),
    ("fack", "delayed"): PaperRow(15, 0.928, 0.086, -0.519, 0.783, 0.045, (1.000, 0.929, 0.725)),
    ("sack", "delayed"): PaperRow(10, 0.938, 0.036, -0.518, 0.792, 0.012, (0.952, 0.664, 0.112)),
    ("reno", "delayed"): PaperRow(10, 0.939, 0.046, -0.524, 0.752, 0.015, (0.919, 0.595, 0.157)),
    ("newreno", "delayed"): PaperRow(11, 0.935, 0.045, -0.526, 0.738, 0.006, (0.942, 0.635, 0.176)),
    ("tahoe", "delayed"): PaperRow(11, 0.883, 0.076, -0.542, 0.596, 0.012, (0.919, 0.590, 0.173)),
}
ROWS = [(t, a) for a in ACKS for t in VARIANTS]

#: Simulator options. "ns1" is the main one: the paper used "ns version 1" (Sec. 3) and says
#: nothing more about its timers or ssthresh. ns's TCP agents halve the window (cwnd), not the
#: flight size; their retransmit timer is Jacobson's estimator on a coarse clock, `tcpTick_` =
#: 100 ms in ns's 1997 defaults (ns-default.tcl), floored at two ticks (TcpAgent::rtt_timeout).
#: The others are for the sensitivity table only.
PROFILES: dict[str, dict[str, Any]] = {
    "ns1": {"flows.0.cc.ssthresh_rule": "cwnd", "flows.0.rto_estimator": "jacobson88",
            "flows.0.clock_tick": "100ms", "flows.0.min_rto": "200ms"},
    "ns1-flightsize": {"flows.0.cc.ssthresh_rule": "flight_size", "flows.0.rto_estimator": "jacobson88",
                       "flows.0.clock_tick": "100ms", "flows.0.min_rto": "200ms"},
    "bsd-500ms": {"flows.0.cc.ssthresh_rule": "cwnd", "flows.0.rto_estimator": "jacobson88",
                  "flows.0.clock_tick": "500ms", "flows.0.min_rto": "1s"},
    "tcplab-default": {"flows.0.cc.ssthresh_rule": "flight_size", "flows.0.rto_estimator": "rfc6298",
                       "flows.0.min_rto": "1s"},
}
PROFILE_TEXT = {
    "ns1": "ssthresh = cwnd/2, Jacobson88 on a 100 ms tick, min RTO 200 ms (main)",
    "ns1-flightsize": "as ns1 but ssthresh = FlightSize/2 (RFC 5681)",
    "bsd-500ms": "ssthresh = cwnd/2, Jacobson88 on BSD's 500 ms tick, min RTO 1 s",
    "tcplab-default": "tcplab defaults: FlightSize/2, RFC 6298 fine clock, min RTO 1 s",
}


@dataclass(frozen=True)
class Design:
    """What to simulate. `draws` values of p per (MSS, delay) in the fit sweep."""

    name: str
    mss: tuple[int, ...] = (536, 1460, 4312)
    delays_ms: tuple[float, ...] = (3, 10, 30, 100, 300)
    draws: int = 8
    p_range: tuple[float, float] = (3e-5, 0.3)
    cycles: float = 60  # measured congestion-avoidance cycles (nominal, C = 1)
    warmup_cycles: float = 10
    min_measure_s: float = 20.0
    success_at: tuple[float, ...] = AT
    success_rtts: float = 2000  # success sweep: measure at least this many RTTs
    variants: tuple[str, ...] = VARIANTS
    acks: tuple[str, ...] = ACKS
    profile: str = "ns1"
    seed: int = 1997  # seeds the draws of p (not the simulations)
    explicit_p: tuple[tuple[int, float, float], ...] = ()  # (mss, delay_ms, p) instead of draws
    c_tolerance: float = 0.15  # C (Eq. 3) within this fraction of the paper's row
    k_range: tuple[float, float] = (-0.56, -0.48)  # k (Eq. 5) inside this interval
    fack_first_at: tuple[float, ...] = (0.033, 0.1)  # p where FACK must keep its self-clock longest


#: The full regeneration: 10 variants x 15 (MSS, delay) x 8 draws = 1200 fit runs, plus
#: 10 x 15 x 3 = 450 success runs.
FULL = Design("mathis-table4")

#: The CI version: one MSS, three delays, p in the range where most runs keep their self-clock,
#: four p per delay; one run per (variant, p0) for the success proportion.
QUICK = Design("mathis-table4-quick", mss=(1460,), delays_ms=(10, 30, 100), draws=4, p_range=(1e-4, 3e-3),
               cycles=40, warmup_cycles=8, min_measure_s=10.0, success_rtts=1500,
               c_tolerance=0.20, k_range=(-0.60, -0.44), fack_first_at=(0.1,))


def _uniform(*identity: Any) -> float:
    digest = hashlib.sha256(json.dumps(identity, separators=(",", ":")).encode()).digest()
    return (int.from_bytes(digest[:8], "big") >> 11) * 2.0**-53


def _sig(x: float, digits: int = 4) -> float:
    return float(f"{x:.{digits}g}")


def _window(p: float, delay_ms: float, design: Design, success: bool) -> tuple[float, float]:
    """(warmup, duration) in seconds: a nominal cycle lasts RTT / sqrt(p) (C = 1)."""
    rtt = 2 * delay_ms / 1000
    cycle = rtt / math.sqrt(p)
    warmup = max(design.warmup_cycles * cycle, 5.0)
    measure = max(design.cycles * cycle, design.min_measure_s)
    if success:
        measure = max(measure, design.success_rtts * rtt)
    return _sig(warmup, 3), _sig(warmup + measure, 3)


def fit_points(design: Design) -> list[tuple[int, float, float]]:
    """(mss, delay_ms, p) of the fit sweep."""
    if design.explicit_p:
        return list(design.explicit_p)
    lo, hi = design.p_range
    out = []
    for mss in design.mss:
        for d in design.delays_ms:
            for i in range(design.draws):
                u = _uniform("mathis-table4", design.seed, mss, d, i)
                out.append((mss, d, float(f"{math.exp(math.log(lo) + u * math.log(hi / lo)):.6g}")))
    return out


def _toml_list(values: Sequence[Any]) -> str:
    items = [json.dumps(v) if isinstance(v, str) else repr(v) for v in values]
    lines, line = [], "  "
    for it in items:
        if len(line) + len(it) + 2 > 100:
            lines.append(line.rstrip())
            line = "  "
        line += it + ", "
    lines.append(line.rstrip())
    return "[\n" + "\n".join(lines) + "\n]"


def sweep_text(design: Design, kind: str = "fit", base: str = BASE) -> str:
    """The sweep file (TOML) of `design`: kind "fit" (random p) or "success" (p at `success_at`)."""
    if kind == "fit":
        points = [(m, d, p) + _window(p, d, design, False) for m, d, p in fit_points(design)]
    elif kind == "success":
        points = [(m, d, p) + _window(p, d, design, True)
                  for m in design.mss for d in design.delays_ms for p in design.success_at]
    else:
        raise ValueError(f"kind {kind!r}: expected fit or success")
    name = design.name + ("" if kind == "fit" else "-success")
    opts = PROFILES[design.profile]
    head = [
        f"# Generated by tcplab.validation.mathis_table4 (design {design.name!r}, profile {design.profile!r});",
        "# do not edit: `python -m tcplab.validation.mathis_table4 --write-sweeps` rewrites it.",
        "# Mathis et al. 1997 Sec. 3.1 / Table 4: one flow on the queueless random-loss path.",
    ]
    if kind == "fit":
        head.append(f"# p log-uniform over [{design.p_range[0]:g}, {design.p_range[1]:g}], {design.draws} fresh draws per "
                    "(MSS, delay);")
        head.append(f"# each run measures {design.cycles:g} nominal CA cycles (RTT/sqrt(p)) after {design.warmup_cycles:g}, "
                    f"and at least {design.min_measure_s:g} s.")
    else:
        head.append("# p exactly at the points of Table 4's right-hand columns, for the proportion of successful")
        head.append(f"# W/2 adjustments; each run measures at least {design.success_rtts:g} RTTs.")
    lines = head + [
        "",
        "[sweep]",
        f'name = "{name}"',
        f'base = "{base}"',
        "",
        "[set]",
        '"network.path.hops.0.rate" = "10Gbit/s"   # >10x the largest window-limited rate (footnote 5)',
    ]
    lines += [f'"{k}" = {json.dumps(v)}' for k, v in opts.items()]
    lines += ["", "[[axis]]  # variant x receiver"]
    rows = [(t, a) for a in design.acks for t in design.variants]
    lines.append(f'zip.\"flows.0.tcp\" = {_toml_list([t for t, _ in rows])}')
    lines.append(f'zip.\"flows.0.ack\" = {_toml_list([a for _, a in rows])}')
    lines += ["", "[[axis]]  # (MSS, one-way delay, p, warmup, duration), one entry per point"]
    cols: list[tuple[str, list]] = [("flows.0.mss", [m for m, *_ in points]),
            ("network.path.hops.0.delay", [f"{d:g}ms" for _, d, *_ in points]),
            ("network.path.hops.0.loss.p", [p for _, _, p, *_ in points]),
            ("warmup", [f"{w:g}s" for *_, w, _ in points]),
            ("duration", [f"{t:g}s" for *_, t in points])]
    for path, values in cols:
        lines.append(f'zip."{path}" = {_toml_list(values)}')
    return "\n".join(lines) + "\n"


def sweep_path(design: Design, kind: str, folder: Path = SWEEPS) -> Path:
    return Path(folder) / f"{design.name}{'' if kind == 'fit' else '-success'}.toml"


def sweep(design: Design, kind: str):
    """The parsed sweep of `design` (a `tcplab.sweep.Sweep`), its base the package's copy of the
    queueless random-loss scenario: the same runs, keys and numbers as the committed file."""
    from tcplab.reproduce.core import scenario_dir
    from tcplab.sweep import parse

    name = f"{design.name}{'' if kind == 'fit' else '-success'}"
    return parse(sweep_text(design, kind, base=PACKAGE_BASE), f"<sweep {name}>", scenario_dir())


def write_sweeps(designs: Sequence[Design] = (FULL, QUICK), folder: Path = SWEEPS) -> list[Path]:
    out = []
    for d in designs:
        for kind in ("fit", "success"):
            path = sweep_path(d, kind, folder)
            path.write_text(sweep_text(d, kind))
            out.append(path)
    return out


# ---- running and fitting -----------------------------------------------------------------------


def _run_sweep(sw, store: Path, workers: int | None, progress: bool):
    from tcplab import results
    from tcplab.sweep import run_sweep

    outcome = run_sweep(sw, results.Store(store), workers=workers, progress=progress)
    if outcome.interrupted:
        raise KeyboardInterrupt
    if outcome.failed:
        key, err = next(iter(outcome.failed.items()))
        raise RuntimeError(f"{len(outcome.failed)} runs failed, e.g. {key}: {err}")
    keys = {r.key for r in sw.runs()}
    df = results.load(store)
    return df.filter(pl.col("run_key").is_in(list(keys))), outcome


@dataclass
class Table4:
    """The fits and proportions of one design and profile, with the paper's values beside them."""

    design: Design
    fit: pl.DataFrame  # per (tcp, ack): tcplab.fit.fit columns, configured p
    fit_measured: pl.DataFrame  # the same with p measured (CA events per acknowledged segment)
    success: pl.DataFrame  # per (tcp, ack, p): tcplab.fit.ca_proportion columns
    runs: pl.DataFrame  # the fit sweep's rows
    success_runs: pl.DataFrame
    seconds: float = 0.0
    sim_seconds: dict[str, float] = field(default_factory=dict)

    def row(self, tcp: str, ack: str, measured: bool = False) -> dict:
        f = (self.fit_measured if measured else self.fit).filter((pl.col("tcp") == tcp) & (pl.col("ack") == ack))
        return f.row(0, named=True) if f.height else {}

    def proportion(self, tcp: str, ack: str, p: float) -> dict:
        s = self.success.filter((pl.col("tcp") == tcp) & (pl.col("ack") == ack) & ((pl.col("p") - p).abs() < 1e-12))
        return s.row(0, named=True) if s.height else {}

    # ---- the side-by-side table --------------------------------------------------------------
    def cells(self) -> list[dict]:
        """One entry per cell of Table 4: row, quantity, tcplab, paper, difference, check."""
        out = []
        for tcp, ack in ROWS:
            if tcp not in self.design.variants or ack not in self.design.acks:
                continue
            paper, ours = PAPER[(tcp, ack)], self.row(tcp, ack)
            label = LABEL[tcp] + (" DA" if ack == "delayed" else "")

            def add(q, mine, ref, diff, check="", unit=""):
                out.append({"row": label, "tcp": tcp, "ack": ack, "quantity": q, "tcplab": mine, "paper": ref,  # noqa: B023 -- called in this iteration only
                            "difference": diff, "unit": unit, "check": check})

            n = ours.get("n", 0)
            add("N", n, paper.n, n - paper.n)
            c = ours.get("c_half", math.nan)
            rel = c / paper.c_half - 1
            d = self.design
            add("C (Eq. 3)", c, paper.c_half, rel, "ok" if abs(rel) <= d.c_tolerance else "OFF", "rel")
            k = ours.get("k", math.nan)
            add("k (Eq. 5)", k, paper.k, k - paper.k, "ok" if d.k_range[0] <= k <= d.k_range[1] else "OFF")
            c5 = ours.get("c", math.nan)
            add("C (Eq. 5)", c5, paper.c, c5 / paper.c - 1, "", "rel")
            for p0, ref in zip(AT, paper.success, strict=True):
                if p0 not in self.design.success_at:
                    continue
                s = self.proportion(tcp, ack, p0).get("proportion", math.nan)
                add(f"W/2 ok p={p0:g}", s, ref, s - ref)
        return out

    def ordering(self) -> list[dict]:
        """The paper's ordering of the right-hand columns: for each receiver and p, FACK keeps its
        self-clock longest (its proportion is the largest of the variants)."""
        out: list[dict] = []
        if "fack" not in self.design.variants:
            return out
        for ack in self.design.acks:
            for p0 in self.design.success_at:
                vals = {t: self.proportion(t, ack, p0).get("proportion", math.nan) for t in self.design.variants}
                ref = {t: PAPER[(t, ack)].success[AT.index(p0)] for t in self.design.variants} if p0 in AT else {}
                rank = sorted(vals, key=lambda t: -vals[t])
                paper_rank = sorted(ref, key=lambda t: -ref[t]) if ref else []
                out.append({"ack": ack, "p": p0, "tcplab": [LABEL[t] for t in rank],
                            "paper": [LABEL[t] for t in paper_rank],
                            "fack_first": rank[0] == "fack" or vals["fack"] >= max(vals.values()) - 1e-12,
                            "paper_fack_first": bool(paper_rank) and paper_rank[0] == "fack"})
        return out

    def failures(self) -> list[str]:
        bad = [f"{c['row']} {c['quantity']}: tcplab {_fmt(c['tcplab'])}, paper {_fmt(c['paper'])}"
               for c in self.cells() if c["check"] == "OFF"]
        bad += [f"{o['ack']} p={o['p']:g}: FACK is not first ({' > '.join(o['tcplab'])})"
                for o in self.ordering() if not o["fack_first"] and o["p"] in self.design.fack_first_at]
        return bad

    # ---- formatting --------------------------------------------------------------------------
    def text(self) -> str:
        """The long side-by-side table: one line per cell."""
        lines = [f"{'row':<11} {'quantity':<16} {'tcplab':>8} {'paper':>8} {'difference':>11}  check"]
        for c in self.cells():
            lines.append(f"{c['row']:<11} {c['quantity']:<16} {_fmt(c['tcplab']):>8} {_fmt(c['paper']):>8} "
                         f"{_diff(c):>11}  {c['check']}")
        lines.append("")
        for o in self.ordering():
            lines.append(f"ordering {o['ack']:<9} p={o['p']:<5g} tcplab: {' > '.join(o['tcplab'])}"
                         + (f"   paper: {' > '.join(o['paper'])}" if o["paper"] else "")
                         + ("" if o["fack_first"] else "   FACK NOT FIRST"))
        return "\n".join(lines)

    def markdown(self) -> str:
        """A compact Table 4: each cell `tcplab (paper, difference)`, then the fit with measured p."""
        d = self.design
        head = ["Row", "N", "C (Eq. 3) ± CI", "k", "C (Eq. 5)"] + [f"W/2 ok p={p:g}" for p in d.success_at]
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["--:"] * (len(head) - 1)) + "|"]
        cells = self.cells()
        for tcp, ack in ROWS:
            if tcp not in d.variants or ack not in d.acks:
                continue
            paper, ours = PAPER[(tcp, ack)], self.row(tcp, ack)
            mine = {c["quantity"]: c for c in cells if c["tcp"] == tcp and c["ack"] == ack}
            label = LABEL[tcp] + (" DA" if ack == "delayed" else "")
            ci = (ours.get("c_half_hi", math.nan) - ours.get("c_half_lo", math.nan)) / 2
            row = [label, f"{ours.get('n', 0)} ({paper.n})",
                   f"{_fmt(ours.get('c_half'))} ± {_fmt(ci)} ({paper.c_half:.3f} ± {paper.c_half_ci:.3f}, {_diff(mine['C (Eq. 3)'])})",
                   f"{_fmt(ours.get('k'))} ({paper.k:.3f}, {_diff(mine['k (Eq. 5)'])})",
                   f"{_fmt(ours.get('c'))} ({paper.c:.3f}, {_diff(mine['C (Eq. 5)'])})"]
            for p0 in d.success_at:
                c = mine.get(f"W/2 ok p={p0:g}")
                row.append(f"{_fmt(c['tcplab'])} ({_fmt(c['paper'])}, {_diff(c)})" if c else "")
            lines.append("| " + " | ".join(row) + " |")
        return "\n".join(lines)

    def markdown_measured(self) -> str:
        """C and k with p measured by the flow (CA events per acknowledged segment)."""
        lines = ["| Row | N | C (Eq. 3), configured p | C (Eq. 3), measured p | k, configured p | k, measured p |",
                 "|---|--:|--:|--:|--:|--:|"]
        for tcp, ack in ROWS:
            if tcp not in self.design.variants or ack not in self.design.acks:
                continue
            a, b = self.row(tcp, ack), self.row(tcp, ack, measured=True)
            lines.append(f"| {LABEL[tcp]}{' DA' if ack == 'delayed' else ''} | {a.get('n', 0)} | {_fmt(a.get('c_half'))} | "
                         f"{_fmt(b.get('c_half'))} | {_fmt(a.get('k'))} | {_fmt(b.get('k'))} |")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"design": self.design.name, "profile": self.design.profile, "cells": self.cells(),
                "ordering": self.ordering(), "fit": self.fit.to_dicts(), "fit_measured_p": self.fit_measured.to_dicts(),
                "success": self.success.to_dicts(), "seconds": self.seconds}


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, int):
        return str(x)
    return "-" if not math.isfinite(x) else f"{x:.3f}"


def _diff(c: dict) -> str:
    d = c["difference"]
    if isinstance(d, int):
        return f"{d:+d}"
    if d is None or not math.isfinite(d):
        return "-"
    return f"{100 * d:+.1f}%" if c["unit"] == "rel" else f"{d:+.3f}"


def compute(runs: pl.DataFrame, success_runs: pl.DataFrame, design: Design) -> Table4:
    """Fits the fit sweep's rows and pools the success sweep's rows (no simulation)."""
    from tcplab.fit import ca_proportion, fit

    # Every run is sized for design.cycles nominal CA cycles (RTT/sqrt(p) each, C = 1), so the
    # fit keeps them all rather than applying `tcplab fit`'s default minimum of measured cycles.
    fitted, _ = fit(runs, by=("tcp", "ack"), p="configured", min_ca_events=0)
    fitted_m, _ = fit(runs, by=("tcp", "ack"), p="measured", min_ca_events=0)
    success, _ = ca_proportion(success_runs, by=("tcp", "ack"), p="configured", at=design.success_at, width=0.01)
    return Table4(design, fitted, fitted_m, success, runs, success_runs)


def run(design: Design = FULL, out: str | Path | None = None, workers: int | None = None,
        progress: bool = False) -> Table4:
    """Runs (or resumes) both sweeps of `design` into stores under `out` and returns the table."""
    out = Path(out or f"{design.name}-runs")
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    frames, seconds = {}, {}
    for kind in ("fit", "success"):
        t = time.monotonic()
        frames[kind], _ = _run_sweep(sweep(design, kind), out / f"{kind}.parquet", workers, progress)
        seconds[kind] = time.monotonic() - t
    table = compute(frames["fit"], frames["success"], design)
    table.seconds = time.monotonic() - t0
    table.sim_seconds = seconds
    return table


def run_lengths(table: Table4) -> str:
    """A short description of the simulated run lengths (measured CA cycles, durations)."""
    parts = []
    for name, df in (("fit", table.runs), ("success", table.success_runs)):
        if not df.height:
            continue
        dur = (df["duration"] - df["warmup"]).to_numpy()
        ok = df.filter(pl.col("timeouts") == 0)
        cyc = ok["ca_events"].to_numpy()
        parts.append(f"{name} sweep: {df.height} runs, measurement windows {dur.min():.4g}-{dur.max():.4g} s "
                     f"(simulated time {df['duration'].sum() / 3600:.1f} h in all)"
                     + (f"; runs without timeouts measure {int(cyc.min())}-{int(cyc.max())} CA cycles "
                        f"(median {int(sorted(cyc)[len(cyc) // 2])})" if len(cyc) else ""))
    return "\n".join(parts)


# ---- command line ------------------------------------------------------------------------------


def check(*, quick: bool = False, workers: int | None = None, out: str | None = None, profile: str = "ns1",
          sensitivity_too: bool = False, write_sweeps_only: bool = False, as_json: bool = False) -> int:
    """`tcplab validate mathis-table4`: runs the design, writes DIR/table4.md and table4.json, prints the
    table; 1 when a cell is outside the expected tolerance."""
    from types import SimpleNamespace

    args = SimpleNamespace(quick=quick, workers=workers, out=out, profile=profile, sensitivity=sensitivity_too,
                           write_sweeps=write_sweeps_only, json=as_json)
    if args.write_sweeps:
        for p in write_sweeps():
            print(p)
        return 0
    design = QUICK if args.quick else FULL
    if args.profile != "ns1":
        design = replace(design, name=f"{design.name}-{args.profile}", profile=args.profile)
    runs_dir = Path(args.out or f"{design.name}-runs")
    table = run(design, runs_dir, args.workers, progress=sys.stderr.isatty())
    md = [f"# {design.name} (profile {design.profile}: {PROFILE_TEXT[design.profile]})", "",
          "Each cell: tcplab (paper, difference). p = configured loss probability.", "", table.markdown(), "",
          "Fit with p measured by the flow:", "", table.markdown_measured(), "", "```", table.text(), "```", "",
          run_lengths(table), f"wall time {table.seconds:.0f} s", ""]
    if args.sensitivity:
        md += ["## Sensitivity to the simulator options", "", sensitivity(runs_dir, args.workers, quick=args.quick), ""]
    (runs_dir / "table4.md").write_text("\n".join(md))
    (runs_dir / "table4.json").write_text(json.dumps(table.to_json(), indent=1, default=str))
    if args.json:
        print(json.dumps(table.cells(), indent=1))
    else:
        print(table.text())
        print()
        print(run_lengths(table))
        print(f"wall time {table.seconds:.0f} s; markdown: {runs_dir / 'table4.md'}")
        if args.sensitivity:
            print()
            print(md[-2])
    bad = table.failures()
    if bad:
        print(f"\n{len(bad)} cells outside the expected tolerance (C within {design.c_tolerance:.0%}, "
              f"k in [{design.k_range[0]}, {design.k_range[1]}], FACK first at p = "
              f"{', '.join(f'{p:g}' for p in design.fack_first_at)}):", file=sys.stderr)
        for b in bad:
            print("  " + b, file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m tcplab.validation.mathis_table4 [ARGS]`: `tcplab validate mathis-table4 [ARGS]`."""
    from tcplab.validation.cli import standalone

    return standalone("mathis-table4", list(argv) if argv is not None else None,
                      prog="python -m tcplab.validation.mathis_table4")


#: The sensitivity design: Reno and FACK with both receivers, MSS 1460 (the window does not depend
#: on it), 6 draws per delay: 120 fit runs and 60 success runs per profile.
SENSITIVITY = Design("mathis-table4-sensitivity", mss=(1460,), draws=6, variants=("fack", "reno"))


def sensitivity(out: Path, workers: int | None, quick: bool = False) -> str:
    """Runs SENSITIVITY under every profile and tabulates C, k and the success proportions."""
    base = QUICK if quick else SENSITIVITY
    base = replace(base, variants=("fack", "reno"))
    lines = ["| Profile | Row | N | C (Eq. 3) | k | " + " | ".join(f"W/2 ok p={p:g}" for p in base.success_at) + " |",
             "|---|---|--:|--:|--:|" + "--:|" * len(base.success_at)]
    for prof in PROFILES:
        d = replace(base, name=f"{base.name}-{prof}", profile=prof)
        t = run(d, out / "sensitivity" / prof, workers)
        for tcp, ack in ROWS:
            if tcp not in d.variants:
                continue
            r = t.row(tcp, ack)
            props = [_fmt(t.proportion(tcp, ack, p).get("proportion", math.nan)) for p in d.success_at]
            lines.append(f"| {prof} | {LABEL[tcp]}{' DA' if ack == 'delayed' else ''} | {r.get('n', 0)} | "
                         f"{_fmt(r.get('c_half'))} | {_fmt(r.get('k'))} | " + " | ".join(props) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
