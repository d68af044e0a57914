"""Sweep files: a base scenario plus axes, expanded into a deterministic list of runs.

A sweep file is TOML::

    [sweep]
    name = "mathis-fig4"
    seed = 1997                      # seeds the random axes (not the simulations)
    base = "../scenarios/queueless-random-loss.toml"   # relative to this file; or a [scenario] table
    replicates = 2                   # or seeds = [1, 2, 3]: the scenario `seed` of each replicate

    [set]                            # fixed overrides for every run (same dotted paths as --set)
    duration = "100s"

    [[axis]]                         # grid: a list of values
    path = "flows.0.mss"
    values = [536, 1460, 4312]

    [[axis]]                         # random: `count` samples, uniform or uniform in log
    path = "network.path.hops.0.loss.p"
    log_uniform = [3e-5, 0.3]
    count = 6
    draw = "per-point"               # fresh samples for every combination of the other axes

    [[axis]]                         # zipped: several paths varied together, element by element
    zip = { "flows.0.tcp" = ["reno", "tahoe"], "flows.0.ack" = ["delayed", "immediate"] }

Axes are crossed (cartesian product, the first axis outermost); replicates are innermost.
Random samples are a pure function of (sweep seed, axis path, the run's other axis values,
sample index) through SHA-256, rounded to 9 significant digits: the same on every machine and
Python version, and adding a value to one axis does not move the samples drawn at existing points.

Running a sweep is `tcplab.sweep.run_sweep` (tcplab.sweep.runner) over a `results.Store`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab.inputs import InputTooLarge, read_text

if TYPE_CHECKING:
    from tcplab.sweep.stream import Plan

__all__ = ["Axis", "Run", "Sweep", "SweepError", "load", "parse", "run_key"]


class SweepError(ValueError):
    """An invalid sweep file; the message names the file and the axis or field."""


def run_key(resolved: Mapping[str, Any]) -> str:
    """The identity of a run: SHA-256 (first 128 bits, hex) of the resolved scenario, which
    includes the seed, dumped as canonical JSON (sorted keys, no whitespace)."""
    text = json.dumps(resolved, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def uniform(*identity: Any) -> float:
    """A uniform number in [0, 1) that depends only on `identity` (53 bits of SHA-256)."""
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True, separators=(",", ":")).encode()).digest()
    return (int.from_bytes(digest[:8], "big") >> 11) * 2.0**-53


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """[set] tables may use TOML dotted keys (nested tables) or quoted dotted keys."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(_flatten(value, path + "."))
        else:
            out[path] = value
    return out


@dataclass(frozen=True)
class Axis:
    """One axis of a sweep. `kind` is "values", "uniform", "log_uniform" or "zip"."""

    label: str  # how errors name it: "axis 2 (flows.0.mss)"
    kind: str
    paths: tuple[str, ...]
    values: tuple[tuple[Any, ...], ...] = ()  # values/zip: one tuple per element (one entry per path)
    low: float = 0.0
    high: float = 0.0
    count: int = 0
    per_point: bool = False
    integer: bool = False
    unit: str = ""

    @property
    def random(self) -> bool:
        return self.kind in ("uniform", "log_uniform")

    def sample(self, seed: int, point: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """`count` draws; `point` (the other axes' values) is part of the stream identity
        when drawing per point, empty otherwise."""
        out = []
        for i in range(self.count):
            u = uniform("tcplab-sweep", seed, self.paths[0], point, i)
            if self.kind == "uniform":
                x = self.low + u * (self.high - self.low)
            else:
                x = math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low)))
            x = round(x) if self.integer else float(f"{x:.9g}")
            out.append((f"{x}{self.unit}" if self.unit else x,))
        return out


@dataclass(frozen=True)
class Run:
    """One simulation of a sweep: its overrides (fixed [set] plus axis values plus seed), the
    resolved scenario and its key."""

    index: int
    sets: dict[str, Any]
    resolved: dict = field(repr=False)
    key: str = ""


@dataclass
class Sweep:
    name: str
    source: str  # the sweep file (for messages)
    seed: int
    base: str | dict  # TOML text of the base scenario, or an inline scenario table
    base_label: str
    fixed: dict[str, Any]
    axes: list[Axis]
    seeds: list[int] | None  # replicate seeds, None = the scenario's own

    def iter_points(self) -> Iterator[dict[str, Any]]:
        """Every combination of axis values (without fixed sets and seeds), in sweep order, one
        at a time: the axes are crossed with the first outermost; per-point draws are made for
        each combination of the other axes."""
        outer = [a for a in self.axes if not a.per_point]
        inner = [a for a in self.axes if a.per_point]
        elements = [axis.sample(self.seed, {}) if axis.random else list(axis.values) for axis in outer]
        for combo in itertools.product(*elements):
            point: dict[str, Any] = {}
            for axis, element in zip(outer, combo, strict=True):
                point.update(zip(axis.paths, element, strict=True))
            if not inner:
                yield point
                continue
            draws = [axis.sample(self.seed, point) for axis in inner]
            for inner_combo in itertools.product(*draws):
                row = dict(point)
                for axis, element in zip(inner, inner_combo, strict=True):
                    row.update(zip(axis.paths, element, strict=True))
                yield row

    def points(self) -> list[dict[str, Any]]:
        """Every combination of axis values (without fixed sets and seeds), in sweep order."""
        return list(self.iter_points())

    def candidates(self) -> Iterator[tuple[dict[str, Any], int | None]]:
        """(axis values, replicate seed or None) of every run before duplicates are dropped, in
        sweep order (replicates innermost)."""
        seeds: list[int | None] = list(self.seeds) if self.seeds is not None else [None]
        for point in self.iter_points():
            for seed in seeds:
                yield point, seed

    def resolve_run(self, point: Mapping[str, Any], seed: int | None, index: int = 0) -> Run:
        """The run at `point` (axis values) and replicate `seed`, resolved, checked and keyed;
        an error names the run's axis values."""
        from tcplab.results import StoreError, check_inputs
        from tcplab.simulation import ScenarioError, resolve

        sets = {**self.fixed, **point}
        if seed is not None:
            sets["seed"] = seed
        try:
            resolved = resolve(self.base, sets)
            check_inputs(resolved)
        except (ScenarioError, StoreError) as e:
            where = ", ".join(
                f"{k}={v!r}" for k, v in {**point, **({"seed": seed} if seed is not None else {})}.items()
            )
            raise SweepError(f"{self.source}: run with {where}: {e}") from None
        return Run(index, sets, resolved, run_key(resolved))

    def iter_runs(self) -> Iterator[Run]:
        """The runs of the sweep, one at a time, each resolved and keyed. Runs that resolve to
        the same scenario appear once (the first occurrence); only their keys are remembered.
        For a large sweep `plan()` keeps less (16 bytes a run) and validates every run first."""
        seen: set[str] = set()
        for point, seed in self.candidates():
            run = self.resolve_run(point, seed, len(seen))
            if run.key not in seen:
                seen.add(run.key)
                yield run

    def runs(self) -> list[Run]:
        """The runs of the sweep, each resolved and keyed, as a list (every resolved scenario
        in memory, about 8 kB a run: `plan()` for large sweeps); errors name the run's axis
        values. Runs that resolve to the same scenario appear once (the first occurrence)."""
        return list(self.iter_runs())

    def plan(self) -> Plan:
        """Every run validated and keyed, in memory that does not follow the run count
        (`tcplab.sweep.stream.Plan`): what `tcplab check` and `run_sweep` use."""
        from tcplab.sweep.stream import Plan

        return Plan(self)


#: The most runs one sweep may expand to (planning keeps 16 bytes a run: `Plan`).
MAX_RUNS = 1_000_000


# ---- the schema of sweep files (types: pydantic; meaning: the checks below) -------------------

from typing import Literal  # noqa: E402

from pydantic import BaseModel, ConfigDict, Field, ValidationError  # noqa: E402


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _Head(_Strict):
    name: str | None = None
    seed: int = Field(default=0, ge=0)
    base: str | None = None
    replicates: int | None = Field(default=None, ge=1)
    seeds: list[int] | None = Field(default=None, min_length=1)


class _AxisSpec(_Strict):
    path: str | None = Field(None, min_length=1)
    values: list[Any] | None = None
    uniform: list[float] | None = Field(None, min_length=2, max_length=2)
    log_uniform: list[float] | None = Field(None, min_length=2, max_length=2)
    count: int | None = Field(None, ge=1)
    draw: Literal["once", "per-point"] = "once"
    integer: bool = False
    unit: str = ""
    zip: dict[str, Any] | None = None


class _Document(_Strict):
    sweep: _Head = _Head()
    set: dict[str, Any] = {}
    axis: list[_AxisSpec] = []
    scenario: dict[str, Any] | None = None


_SWEEP_KEYS = set(_Head.model_fields)
_AXIS_KEYS = set(_AxisSpec.model_fields)
_HINTS = {
    ("sweep", "base"): 'a path to a scenario file, e.g. base = "../scenarios/quickstart.toml"',
    ("sweep", "seeds"): "a non-empty list of non-negative integers",
    ("sweep", "seed"): "a non-negative integer",
    ("sweep", "replicates"): "a positive integer",
    ("path",): 'a dotted scenario path, e.g. path = "flows.0.mss"',
    ("count",): "a positive integer",
    ("draw",): '"once" or "per-point"',
    ("integer",): "true or false",
    ("unit",): 'a string appended to each sample, e.g. unit = "ms"',
    ("values",): "a list",
    ("uniform",): "two finite numbers [low, high]",
    ("log_uniform",): "two finite numbers [low, high]",
    ("zip",): 'a table of lists: zip = { "a.b" = [..], "c.d" = [..] }',
    ("sweep",): "a table [sweep] (name, seed, base, replicates, seeds)",
    ("set",): 'a table of overrides, e.g. [set] duration = "100s"',
    ("axis",): "an array of tables: write [[axis]]",
    ("scenario",): "a table: the base scenario",
}


def _axis_label(doc: Mapping[str, Any], index: int) -> str:
    axes = doc.get("axis")
    spec = axes[index] if isinstance(axes, list) and index < len(axes) else {}
    if not isinstance(spec, Mapping):
        return f"axis {index}"
    path = spec.get("path")
    if isinstance(path, str):
        name = path
    elif isinstance(spec.get("zip"), Mapping):
        name = "zip of " + ", ".join(map(str, spec["zip"]))
    else:
        name = "?"
    return f"axis {index} ({name})"


def _schema_error(e: ValidationError, doc: Mapping[str, Any], source: str) -> SweepError:
    """The first error pydantic found, as one line naming the table, key and expected type."""
    err = e.errors()[0]
    loc = list(err["loc"])
    got = err.get("input")
    if loc[:1] == ["axis"] and len(loc) >= 2 and isinstance(loc[1], int):
        where, key = _axis_label(doc, loc[1]), [str(x) for x in loc[2:3]]
    elif loc[:1] == ["sweep"]:
        where, key = "sweep", [str(x) for x in loc[1:2]]
    else:
        where, key = "", [str(x) for x in loc[:1]]
    hint_key = (where,) + tuple(key) if where == "sweep" else tuple(key)
    if err["type"] == "extra_forbidden":
        known = sorted(
            _SWEEP_KEYS
            if where == "sweep"
            else _AXIS_KEYS
            if where.startswith("axis")
            else {"sweep", "set", "axis", "scenario"}
        )
        what = f"unknown key `{key[0]}`" if key else "unknown key"
        if not where:
            what = f"unknown table `{key[0]}`"
        msg = f"{what}, expected one of {', '.join(f'`{k}`' for k in known)}"
    else:
        expected = _HINTS.get(hint_key, err["msg"][0].lower() + err["msg"][1:])
        shown = (
            repr(got)
            if not isinstance(got, (dict, list))
            else ("a table" if isinstance(got, dict) else "a list")
        )
        msg = f"expected {expected}, got {shown}"
    field = ".".join(key)
    if err["type"] == "extra_forbidden":
        return SweepError(
            f"{source}: {where}: {msg}"
            if where.startswith("axis")
            else f"{source}: sweep.{field}: {msg}"
            if where == "sweep"
            else f"{source}: {msg}"
        )
    prefix = (
        f"{where}.{field}"
        if where == "sweep" and field
        else f"{where}: `{field}`"
        if where and field
        else (where or field)
    )
    return SweepError(f"{source}: {prefix}: {msg}")


def _axis(spec: _AxisSpec, index: int, source: str, raw: Mapping[str, Any]) -> Axis:
    label = _axis_label(raw, index)

    def bad(msg: str) -> SweepError:
        return SweepError(f"{source}: {label}: {msg}")

    given = spec.model_fields_set
    kinds = [k for k in ("values", "uniform", "log_uniform", "zip") if k in given]
    if len(kinds) != 1:
        raise bad("give exactly one of `values`, `uniform`, `log_uniform` or `zip`")
    kind = kinds[0]
    if kind == "zip":
        if "path" in given:
            raise bad("a zipped axis names its paths inside `zip`, not in `path`")
        if not spec.zip:
            raise bad('`zip` must be a non-empty table of lists: zip = { "a.b" = [..], "c.d" = [..] }')
        lists = _flatten(spec.zip)
        for zpath, values in lists.items():
            if not isinstance(values, list) or not values:
                raise bad(f"`zip.{zpath}` must be a non-empty list")
        lengths = {p: len(v) for p, v in lists.items()}
        if len(set(lengths.values())) != 1:
            raise bad(
                "zipped lists must have the same length, got "
                + ", ".join(f"{p}: {n}" for p, n in lengths.items())
            )
        return Axis(label, kind, tuple(lists), tuple(zip(*lists.values(), strict=True)))
    path = spec.path
    if path is None or not path.strip():
        raise bad('`path` must be a dotted scenario path, e.g. path = "flows.0.mss"')
    if kind == "values":
        if not spec.values:
            raise bad("`values` is empty; an axis needs at least one value")
        for key in ("count", "draw", "integer", "unit"):
            if key in given:
                raise bad(f"`{key}` applies to random axes (uniform, log_uniform) only")
        return Axis(label, kind, (path,), tuple((v,) for v in spec.values))
    low, high = getattr(spec, kind)
    if not (math.isfinite(low) and math.isfinite(high)):
        raise bad(f"`{kind}` must be two finite numbers [low, high]")
    shown = [raw["axis"][index][kind][0], raw["axis"][index][kind][1]]
    if kind == "log_uniform" and (low <= 0 or high <= 0):
        raise bad(f"log_uniform range [{shown[0]}, {shown[1]}]: both bounds must be > 0")
    if not low < high:
        raise bad(f"{kind} range [{shown[0]}, {shown[1]}]: low must be less than high")
    if spec.count is None:
        raise bad("a random axis needs `count`, a positive integer (got None)")
    return Axis(
        label,
        kind,
        (path,),
        low=float(low),
        high=float(high),
        count=spec.count,
        per_point=spec.draw == "per-point",
        integer=spec.integer,
        unit=spec.unit,
    )


def parse(
    text: str, source: str = "<sweep>", base_dir: Path | None = None, sets: Mapping[str, Any] | None = None
) -> Sweep:
    """A sweep from TOML text; `base_dir` resolves a relative `base` path; `sets` are extra
    fixed overrides on top of the file's [set] table (as `tcplab sweep --set`)."""
    try:
        return _parse(text, source, base_dir, sets)
    except RecursionError:
        raise SweepError(
            f"{source}: nested too deeply (expected tables and lists a few levels deep)"
        ) from None


def _parse(text: str, source: str, base_dir: Path | None, sets: Mapping[str, Any] | None) -> Sweep:
    from tcplab.simulation import ScenarioError, resolve

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{source}: invalid TOML: {e}") from None
    try:
        spec = _Document.model_validate(doc)
    except ValidationError as e:
        raise _schema_error(e, doc, source) from None
    head = spec.sweep
    name = head.name if head.name is not None else Path(source).stem
    seed = head.seed
    if (head.base is not None) == (spec.scenario is not None):
        raise SweepError(
            f'{source}: give the base scenario either as sweep.base = "path.toml" or as a [scenario] table'
        )
    if head.base is not None:
        base_path = Path(head.base)
        if not base_path.is_absolute():
            base_path = (base_dir or Path.cwd()) / base_path
        try:
            base: str | dict = read_text(base_path)
        except InputTooLarge as e:
            raise SweepError(f"{source}: sweep.base: {base_path}: {e}") from None
        except UnicodeDecodeError:
            raise SweepError(f"{source}: sweep.base: {base_path} is not UTF-8 text") from None
        except OSError as e:
            raise SweepError(f"{source}: sweep.base: cannot read {base_path} ({e.strerror})") from None
        base_label = str(base_path)
    else:
        base, base_label = doc["scenario"], "[scenario]"
    fixed = {**_flatten(spec.set), **(sets or {})}
    axes = [_axis(a, i, source, doc) for i, a in enumerate(spec.axis)]
    seen: dict[str, str] = {}
    for axis in axes:
        for path in axis.paths:
            if path in seen:
                raise SweepError(f"{source}: {axis.label}: `{path}` is already varied by {seen[path]}")
            seen[path] = axis.label
    seeds = None
    if head.replicates is not None and head.seeds is not None:
        raise SweepError(f"{source}: give sweep.replicates or sweep.seeds, not both")
    if head.seeds is not None:
        seeds = head.seeds
        if any(s < 0 for s in seeds):
            raise SweepError(f"{source}: sweep.seeds: expected a non-empty list of non-negative integers")
        if len(set(seeds)) != len(seeds):
            raise SweepError(f"{source}: sweep.seeds: seeds repeat")
    if (seeds is not None or head.replicates is not None) and "seed" in seen:
        raise SweepError(f"{source}: {seen['seed']} varies `seed`; drop sweep.replicates/sweep.seeds")
    try:
        resolved = resolve(base, fixed)
    except ScenarioError as e:
        where = "[set]" if fixed else f"base scenario {base_label}"
        raise SweepError(f"{source}: {where}: {e}") from None
    # The number of runs, counted before anything is expanded (a mistyped count must not fill
    # the memory): every axis's length times the replicates.
    total = math.prod(a.count if a.random else len(a.values) for a in axes)
    total *= head.replicates if head.replicates is not None else len(seeds) if seeds is not None else 1
    if total > MAX_RUNS:
        raise SweepError(
            f"{source}: {total:,} runs (expected at most {MAX_RUNS:,} in one sweep: split it, "
            "or draw fewer points)"
        )
    if head.replicates is not None:
        seeds = [resolved["seed"] + i for i in range(head.replicates)]
    sweep = Sweep(name, source, seed, base, base_label, fixed, axes, seeds)
    # Each axis value on its own: an unknown path or a bad value is named by its axis.
    for axis in axes:
        probes = [(axis.low,), (axis.high,)] if axis.random else list(axis.values)
        if axis.random and (axis.integer or axis.unit):
            probes = [(f"{round(x) if axis.integer else x}{axis.unit}",) for (x,) in probes]
        for element in probes:
            try:
                resolve(base, {**fixed, **dict(zip(axis.paths, element, strict=True))})
            except ScenarioError as e:
                raise SweepError(f"{source}: {axis.label}: {e}") from None
    return sweep


def load(path: str | Path, sets: Mapping[str, Any] | None = None) -> Sweep:
    """Reads and validates a sweep file (plus extra fixed overrides `sets`)."""
    path = Path(path)
    try:
        text = read_text(path)
    except InputTooLarge as e:
        raise SweepError(f"{path}: {e}") from None
    except OSError as e:
        raise SweepError(f"{path}: cannot read the sweep file ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise SweepError(
            f"{path}: not UTF-8 text (byte {e.start}: {e.reason}); a sweep is a TOML file in UTF-8"
        ) from None
    return parse(text, str(path), path.parent, sets)
