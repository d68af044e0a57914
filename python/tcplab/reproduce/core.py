"""The parts every reproduction item is made of: jobs (simulations), checks, outcomes, the registry.

An item is one table or figure of a paper. It says what the paper shows, which shipped scenario
files it runs (package data under `tcplab/reproduce/scenarios/<paper>/`, the same files as
`scenarios/papers/<paper>/` in a checkout), the simulations it needs (`plan(quick)`, a list of
`Job`s run through the results store, so a stopped reproduction resumes) and how it turns their
rows into tcplab's numbers beside the paper's (`evaluate(ctx)`, an `Outcome` with a table,
checks with stated tolerances, figures and the explanation of any disagreement).

An item that is not built has `not_yet` (the reason) and appears in the report as "not
reproduced yet": it never passes a check.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl
    from matplotlib.figure import Figure

__all__ = [
    "PAPERS",
    "Check",
    "Context",
    "Item",
    "Job",
    "Outcome",
    "ReproduceError",
    "items",
    "register",
    "scenario_text",
    "scenario_names",
    "status_of",
]

#: The groups `tcplab reproduce` accepts (besides `all`), in report order, with their titles.
PAPERS: dict[str, str] = {
    "jacobson": "Jacobson & Karels 1988, Congestion Avoidance and Control",
    "mathis": "Mathis, Semke, Mahdavi & Ott 1997, The Macroscopic Behavior of the TCP Congestion "
    "Avoidance Algorithm",
    "barakat": "Barakat & Altman 1999, Analysis of TCP with several bottleneck nodes",
    "parvez": "Parvez, Mahanti & Williamson 2010, An Analytic Throughput Model for TCP NewReno",
    "ns2": "tcplab against ns-2 (the reference outputs the papers' simulators descend from)",
}

#: Item status in the report.
REPRODUCED, EXPLAINED, FAILED, NOT_YET = "reproduced", "explained", "FAILED", "not reproduced yet"


class ReproduceError(ValueError):
    """Bad input to `tcplab reproduce` (one line, shown without a traceback)."""


def scenario_names(paper: str | None = None) -> list[str]:
    """The shipped scenario files, as `<paper>/<file>.toml`."""
    root = resources.files("tcplab.reproduce") / "scenarios"
    out = []
    for d in sorted(root.iterdir(), key=lambda p: p.name):
        if d.is_dir() and (paper is None or d.name == paper):
            out += [
                f"{d.name}/{f.name}"
                for f in sorted(d.iterdir(), key=lambda p: p.name)
                if f.name.endswith(".toml")
            ]
    return out


def scenario_text(name: str) -> str:
    """The text of a shipped scenario `<paper>/<file>.toml` (package data)."""
    return (resources.files("tcplab.reproduce") / "scenarios" / name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Job:
    """One simulation: a shipped scenario (`<paper>/<file>.toml`) or a scenario table (dict),
    plus `--set` overrides. `traces` keeps the run's recorded traces (the scenario or the sets
    turn them on) in the reproduction's trace folder: True for every one, or the names of those
    to keep (`("cwnd",)`: an ns-2-profile flow's cwnd trace brings its ns2_vars, twice the size)."""

    scenario: str | Mapping[str, Any]
    sets: Mapping[str, Any] = field(default_factory=dict)
    traces: bool | tuple[str, ...] = False

    def base(self) -> str | Mapping[str, Any]:
        return scenario_text(self.scenario) if isinstance(self.scenario, str) else self.scenario

    def describe(self) -> str:
        where = (
            f"scenarios/papers/{self.scenario}" if isinstance(self.scenario, str) else "(generated scenario)"
        )
        sets = " ".join(f"--set {k}={v}" for k, v in self.sets.items())
        return f"{where} {sets}".strip()


@dataclass
class Check:
    """One pass/fail comparison with its tolerance stated in words (`target`).

    `paper` True (the default): a check against the paper's numbers or its stated claim. False: a
    measured reason, a mechanism tcplab shows (a control run, a counted event) that accounts for a
    difference from the paper; it must hold whatever the paper checks say."""

    name: str
    value: Any
    target: str
    passed: bool
    paper: bool = True

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "value": _json_number(self.value),
            "target": self.target,
            "passed": bool(self.passed),
            "kind": "paper" if self.paper else "reason",
        }


def status_of(checks: list[Check], explanation: str) -> str:
    """An item's status from its checks, never written by hand: *reproduced* when every check
    against the paper passes; *explained* when some does not, and the item has an explanation and
    at least one measured reason, every one of which holds; *not reproduced yet* when a check
    against the paper fails and no measured reason accounts for it (or there is no check at all);
    FAILED when a check against the paper fails and a measured reason given for it does not hold,
    or no check is against the paper. (A reason accounts for a difference: where every check
    against the paper passes, the reasons do not count.)"""
    if not checks:
        return NOT_YET
    paper = [c for c in checks if c.paper]
    reasons = [c for c in checks if not c.paper]
    if not paper:
        return FAILED
    if all(c.passed for c in paper):
        return REPRODUCED
    if any(not c.passed for c in reasons):
        return FAILED
    return EXPLAINED if reasons and explanation.strip() else NOT_YET


@dataclass
class Outcome:
    """What an item's evaluation produced: its status is `status_of(checks, explanation)`. Where a
    check against the paper fails, the explanation says why and the checks with `paper=False`
    are the measurements it rests on."""

    table: list[list[Any]]  # header row, then rows (markdown cells)
    checks: list[Check]
    explanation: str = ""
    figures: list[Figure] = field(default_factory=list)
    numbers: dict[str, Any] = field(default_factory=dict)  # for results.json
    notes: str = ""  # set-up and sizes, before the table
    extra: list[tuple[str, list[list[Any]]]] = field(default_factory=list)  # (title, table) after the table

    @property
    def agrees(self) -> bool:
        """Every check against the paper passes (computed, never set)."""
        return all(c.passed for c in self.checks if c.paper)

    @property
    def status(self) -> str:
        return status_of(self.checks, self.explanation)


@dataclass(frozen=True)
class Item:
    """One table or figure of a paper (see the module doc)."""

    id: str
    paper: str
    ref: str  # "Table 4, Figs 3-4"
    title: str
    shows: str  # what the paper's table or figure shows
    scenarios: tuple[str, ...] = ()
    plan: Callable[[bool], list[Job]] | None = None
    evaluate: Callable[[Context], Outcome] | None = None
    not_yet: str = ""  # the reason, when the item is not built
    quick: str = ""  # how the quick form differs (sizes, tolerances)
    #: Built and run, but tcplab and the paper disagree for a reason not yet established: the
    #: item shows its numbers and its checks (met or not) under "not reproduced yet", with this
    #: reason, and never fails the command nor counts as reproduced.
    open: str = ""


class Context:
    """What an evaluation reads: the store rows and traces of its jobs. `emulate`: the user asked
    for the real-time kernel runs (`tcplab reproduce --emulate`); an item that has them makes
    them (when it can) and may keep them under `out`, the reproduction's folder."""

    def __init__(
        self,
        item: Item,
        quick: bool,
        jobs: list[Job],
        keys: list[str],
        rows: pl.DataFrame | None,
        trace_dir: Any,
        *,
        emulate: bool = False,
        out: Any = None,
    ):
        self.item, self.quick, self.jobs, self.keys = item, quick, jobs, keys
        self._rows, self._trace_dir = rows, trace_dir
        self.emulate, self.out = emulate, out

    def rows(self, job: Job | int | None = None) -> pl.DataFrame:
        """The store rows (one per flow) of one job, or of every job with its index as `job`."""
        import polars as pl

        assert self._rows is not None, f"{self.item.id}: an item without simulations has no store rows"
        if job is None:
            index = {k: i for i, k in reversed(list(enumerate(self.keys)))}
            df = self._rows.filter(pl.col("run_key").is_in(list(index)))
            return df.with_columns(
                pl.col("run_key").replace_strict(index, return_dtype=pl.Int64).alias("job")
            ).sort("job", "flow")
        i = job if isinstance(job, int) else self.jobs.index(job)
        return self._rows.filter(pl.col("run_key") == self.keys[i]).sort("flow")

    def file(self, job: Job | int, name: str):
        """The path of a file a job's run wrote into its trace folder (a pcap capture with a
        relative file name: `tcplab.sweep.pcap_into`)."""
        i = job if isinstance(job, int) else self.jobs.index(job)
        return self._trace_dir / self.keys[i] / name

    def trace(self, job: Job | int, name: str) -> pl.DataFrame:
        import polars as pl

        i = job if isinstance(job, int) else self.jobs.index(job)
        path = self._trace_dir / self.keys[i] / f"{name}.parquet"
        return pl.read_parquet(path) if path.exists() else pl.DataFrame()


_REGISTRY: dict[str, Item] = {}


def register(item: Item) -> Item:
    if item.id in _REGISTRY:
        raise ValueError(f"item {item.id!r} registered twice")
    if item.paper not in PAPERS:
        raise ValueError(f"item {item.id!r}: unknown paper {item.paper!r}")
    _REGISTRY[item.id] = item
    return item


def items(paper: str = "all") -> list[Item]:
    """The items of `paper` (or of every paper), in report order."""
    import importlib

    importlib.import_module("tcplab.reproduce.items")  # registers every item

    if paper != "all" and paper not in PAPERS:
        raise ReproduceError(f"unknown paper {paper!r} (expected one of {', '.join(PAPERS)}, all)")
    order = list(PAPERS)
    chosen = [i for i in _REGISTRY.values() if paper in ("all", i.paper)]
    return sorted(chosen, key=lambda i: order.index(i.paper))


# ---- small helpers the items share --------------------------------------------------------------


def _json_number(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def fmt(x: Any, digits: int = 3) -> str:
    """A number for a table cell: ints as they are, floats to `digits` decimals, NaN as -."""
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        return "-" if not math.isfinite(x) else f"{x:.{digits}f}"
    return str(x)


def rel(a: float, b: float) -> float:
    """The relative difference a/b - 1 (NaN when b is 0 or either is not finite)."""
    if b == 0 or not (math.isfinite(a) and math.isfinite(b)):
        return math.nan
    return a / b - 1


def pct(x: float) -> str:
    return "-" if not math.isfinite(x) else f"{100 * x:+.1f}%"


def scenario_dir():
    """The folder of the shipped scenarios (package data), as a path sweeps can name a base in."""
    from pathlib import Path

    return Path(str(resources.files("tcplab.reproduce") / "scenarios"))
