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

Running a sweep is `run_sweep` (this module) over a `results.Store`.
"""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from tcplab.simulation import RunResult

__all__ = ["Axis", "Run", "Sweep", "SweepError", "load", "parse", "run_key"]


class SweepError(ValueError):
    """An invalid sweep file; the message names the file and the axis or field."""


def run_key(resolved: Mapping[str, Any]) -> str:
    """The identity of a run: SHA-256 (first 128 bits, hex) of the resolved scenario, which
    includes the seed, dumped as canonical JSON (sorted keys, no whitespace)."""
    text = json.dumps(resolved, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _uniform(*identity: Any) -> float:
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
            u = _uniform("tcplab-sweep", seed, self.paths[0], point, i)
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

    def points(self) -> list[dict[str, Any]]:
        """Every combination of axis values (without fixed sets and seeds), in sweep order."""
        outer = [a for a in self.axes if not a.per_point]
        points: list[dict[str, Any]] = [{}]
        for axis in outer:
            elements = axis.sample(self.seed, {}) if axis.random else list(axis.values)
            points = [{**p, **dict(zip(axis.paths, e))} for p in points for e in elements]
        inner = [a for a in self.axes if a.per_point]
        if inner:
            expanded = []
            for p in points:
                rows: list[dict[str, Any]] = [dict(p)]
                for axis in inner:
                    rows = [{**r, **dict(zip(axis.paths, e))} for r in rows for e in axis.sample(self.seed, p)]
                expanded.extend(rows)
            points = expanded
        return points

    def runs(self) -> list[Run]:
        """The runs of the sweep, each resolved and keyed; errors name the run's axis values.
        Runs that resolve to the same scenario appear once (the first occurrence)."""
        from tcplab.simulation import ScenarioError, resolve

        out: list[Run] = []
        seen: set[str] = set()
        for point in self.points():
            for seed in self.seeds if self.seeds is not None else [None]:
                sets = {**self.fixed, **point}
                if seed is not None:
                    sets["seed"] = seed
                try:
                    resolved = resolve(self.base, sets)
                except ScenarioError as e:
                    where = ", ".join(f"{k}={v!r}" for k, v in {**point, **({"seed": seed} if seed is not None else {})}.items())
                    raise SweepError(f"{self.source}: run with {where}: {e}") from None
                key = run_key(resolved)
                if key not in seen:
                    seen.add(key)
                    out.append(Run(len(out), sets, resolved, key))
        return out


#: The most runs one sweep may expand to (each run's resolved scenario is held in memory).
MAX_RUNS = 1_000_000

_SWEEP_KEYS = {"name", "seed", "base", "replicates", "seeds"}
_AXIS_KEYS = {"path", "values", "uniform", "log_uniform", "count", "draw", "integer", "unit", "zip"}


def _axis(spec: Any, index: int, source: str) -> Axis:
    if not isinstance(spec, Mapping):
        raise SweepError(f"{source}: axis {index}: expected a table ([[axis]])")
    name = spec.get("path") or ("zip of " + ", ".join(spec["zip"]) if isinstance(spec.get("zip"), Mapping) else "?")
    label = f"axis {index} ({name})"

    def bad(msg: str) -> SweepError:
        return SweepError(f"{source}: {label}: {msg}")

    unknown = sorted(set(spec) - _AXIS_KEYS)
    if unknown:
        raise bad(f"unknown key `{unknown[0]}`, expected one of {', '.join(f'`{k}`' for k in sorted(_AXIS_KEYS))}")
    kinds = [k for k in ("values", "uniform", "log_uniform", "zip") if k in spec]
    if len(kinds) != 1:
        raise bad("give exactly one of `values`, `uniform`, `log_uniform` or `zip`")
    kind = kinds[0]
    if kind == "zip":
        if "path" in spec:
            raise bad("a zipped axis names its paths inside `zip`, not in `path`")
        z = spec["zip"]
        if not isinstance(z, Mapping) or not z:
            raise bad('`zip` must be a non-empty table of lists: zip = { "a.b" = [..], "c.d" = [..] }')
        lists = _flatten(z)
        for path, values in lists.items():
            if not isinstance(values, list) or not values:
                raise bad(f"`zip.{path}` must be a non-empty list")
        lengths = {p: len(v) for p, v in lists.items()}
        if len(set(lengths.values())) != 1:
            raise bad("zipped lists must have the same length, got " + ", ".join(f"{p}: {n}" for p, n in lengths.items()))
        return Axis(label, kind, tuple(lists), tuple(zip(*lists.values())))
    path = spec.get("path")
    if not isinstance(path, str) or not path.strip():
        raise bad("`path` must be a dotted scenario path, e.g. path = \"flows.0.mss\"")
    if kind == "values":
        values = spec["values"]
        if not isinstance(values, list):
            raise bad("`values` must be a list")
        if not values:
            raise bad("`values` is empty; an axis needs at least one value")
        for key in ("count", "draw", "integer", "unit"):
            if key in spec:
                raise bad(f"`{key}` applies to random axes (uniform, log_uniform) only")
        return Axis(label, kind, (path,), tuple((v,) for v in values))
    bounds = spec[kind]
    if (not isinstance(bounds, list) or len(bounds) != 2
            or not all(isinstance(b, (int, float)) and not isinstance(b, bool) and math.isfinite(b) for b in bounds)):
        raise bad(f"`{kind}` must be two finite numbers [low, high]")
    low, high = float(bounds[0]), float(bounds[1])
    if kind == "log_uniform" and (low <= 0 or high <= 0):
        raise bad(f"log_uniform range [{bounds[0]}, {bounds[1]}]: both bounds must be > 0")
    if not low < high:
        raise bad(f"{kind} range [{bounds[0]}, {bounds[1]}]: low must be less than high")
    count = spec.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise bad(f"a random axis needs `count`, a positive integer (got {count!r})")
    draw = spec.get("draw", "once")
    if draw not in ("once", "per-point"):
        raise bad(f"`draw` must be \"once\" or \"per-point\" (got {draw!r})")
    integer, unit = spec.get("integer", False), spec.get("unit", "")
    if not isinstance(integer, bool):
        raise bad("`integer` must be true or false")
    if not isinstance(unit, str):
        raise bad('`unit` must be a string appended to each sample, e.g. unit = "ms"')
    return Axis(label, kind, (path,), low=low, high=high, count=count, per_point=draw == "per-point",
                integer=integer, unit=unit)


def parse(text: str, source: str = "<sweep>", base_dir: Path | None = None,
          sets: Mapping[str, Any] | None = None) -> Sweep:
    """A sweep from TOML text; `base_dir` resolves a relative `base` path; `sets` are extra
    fixed overrides on top of the file's [set] table (as `tcplab sweep --set`)."""
    from tcplab.simulation import ScenarioError, resolve

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{source}: invalid TOML: {e}") from None
    unknown = sorted(set(doc) - {"sweep", "set", "axis", "scenario"})
    if unknown:
        raise SweepError(f"{source}: unknown table `{unknown[0]}`, expected [sweep], [set], [scenario] or [[axis]]")
    head = doc.get("sweep", {})
    bad_keys = sorted(set(head) - _SWEEP_KEYS)
    if bad_keys:
        raise SweepError(f"{source}: sweep.{bad_keys[0]}: unknown key, expected one of {', '.join(sorted(_SWEEP_KEYS))}")
    name = head.get("name", Path(source).stem)
    seed = head.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise SweepError(f"{source}: sweep.seed: expected a non-negative integer, got {seed!r}")
    if ("base" in head) == ("scenario" in doc):
        raise SweepError(f"{source}: give the base scenario either as sweep.base = \"path.toml\" or as a [scenario] table")
    if "base" in head:
        base_path = Path(head["base"])
        if not base_path.is_absolute():
            base_path = (base_dir or Path.cwd()) / base_path
        try:
            base: str | dict = base_path.read_text()
        except OSError as e:
            raise SweepError(f"{source}: sweep.base: cannot read {base_path} ({e.strerror})") from None
        base_label = str(base_path)
    else:
        base, base_label = doc["scenario"], "[scenario]"
    fixed = {**_flatten(doc.get("set", {})), **(sets or {})}
    axes_spec = doc.get("axis", [])
    if not isinstance(axes_spec, list):
        raise SweepError(f"{source}: axes are an array of tables: write [[axis]]")
    axes = [_axis(a, i, source) for i, a in enumerate(axes_spec)]
    seen: dict[str, str] = {}
    for axis in axes:
        for path in axis.paths:
            if path in seen:
                raise SweepError(f"{source}: {axis.label}: `{path}` is already varied by {seen[path]}")
            seen[path] = axis.label
    seeds = None
    if "replicates" in head and "seeds" in head:
        raise SweepError(f"{source}: give sweep.replicates or sweep.seeds, not both")
    if "seeds" in head:
        seeds = head["seeds"]
        if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds):
            raise SweepError(f"{source}: sweep.seeds: expected a non-empty list of non-negative integers")
        if len(set(seeds)) != len(seeds):
            raise SweepError(f"{source}: sweep.seeds: seeds repeat")
    if seeds is not None or "replicates" in head:
        if "seed" in seen:
            raise SweepError(f"{source}: {seen['seed']} varies `seed`; drop sweep.replicates/sweep.seeds")
    try:
        resolved = resolve(base, fixed)
    except ScenarioError as e:
        where = "[set]" if fixed else f"base scenario {base_label}"
        raise SweepError(f"{source}: {where}: {e}") from None
    if "replicates" in head:
        n = head["replicates"]
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise SweepError(f"{source}: sweep.replicates: expected a positive integer, got {n!r}")
    # The number of runs, counted before anything is expanded (a mistyped count must not fill
    # the memory): every axis's length times the replicates.
    total = math.prod(a.count if a.random else len(a.values) for a in axes)
    total *= head["replicates"] if "replicates" in head else len(seeds) if seeds is not None else 1
    if total > MAX_RUNS:
        raise SweepError(f"{source}: {total:,} runs (expected at most {MAX_RUNS:,} in one sweep: split it, "
                         "or draw fewer points)")
    if "replicates" in head:
        seeds = [resolved["seed"] + i for i in range(head["replicates"])]
    sweep = Sweep(name, source, seed, base, base_label, fixed, axes, seeds)
    # Each axis value on its own: an unknown path or a bad value is named by its axis.
    for axis in axes:
        probes = [(axis.low,), (axis.high,)] if axis.random else list(axis.values)
        if axis.random and (axis.integer or axis.unit):
            probes = [(f"{round(x) if axis.integer else x}{axis.unit}",) for (x,) in probes]
        for element in probes:
            try:
                resolve(base, {**fixed, **dict(zip(axis.paths, element))})
            except ScenarioError as e:
                raise SweepError(f"{source}: {axis.label}: {e}") from None
    return sweep


def load(path: str | Path, sets: Mapping[str, Any] | None = None) -> Sweep:
    """Reads and validates a sweep file (plus extra fixed overrides `sets`)."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as e:
        raise SweepError(f"{path}: cannot read the sweep file ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise SweepError(f"{path}: not UTF-8 text (byte {e.start}: {e.reason}); a sweep is a TOML file in UTF-8") from None
    return parse(text, str(path), path.parent, sets)


# ---- running ---------------------------------------------------------------------------------


def execute(task: tuple[str, str | dict, dict]) -> tuple[str, RunResult | None, str | None]:
    """Runs one simulation (in a worker process, local or Dask): (key, result or None, error or
    None). Never raises, so one bad run does not stop the sweep."""
    key, base, sets = task
    try:
        from tcplab.simulation import run

        # Opt-in traces are not stored in the results table (nor sent back from the worker).
        return key, run(base, sets).without_traces(), None
    except Exception as e:  # noqa: BLE001 - reported per run, with its key
        return key, None, f"{type(e).__name__}: {e}"


def _worker_init() -> None:
    """Local pool workers: Ctrl-C is the parent's business, and a worker dies with its parent."""
    import signal
    import sys

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except OSError:
            pass


@dataclass
class Outcome:
    """What `run_sweep` did: counts, and the error of each failed run by key."""

    total: int
    skipped: int
    done: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False


def _local(tasks: list, workers: int):
    """Yields results from a local process pool, at most 2 * workers runs in flight."""
    import concurrent.futures as cf
    import multiprocessing as mp

    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"),
                                  initializer=_worker_init)
    pending: set = set()
    it = iter(tasks)
    try:
        while True:
            while len(pending) < 2 * workers and (task := next(it, None)) is not None:
                pending.add(pool.submit(execute, task))
            if not pending:
                break
            finished, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for f in finished:
                yield f.result()
    finally:
        for f in pending:
            f.cancel()
        if pending:  # interrupted: the runs in flight are abandoned
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


def _check_scheduler(address: str) -> None:
    """A scheduler address Dask can parse (tcp://HOST:PORT, tls://..., HOST:PORT), checked
    before a client starts: a malformed one made the client fail inside its event-loop thread,
    print a traceback and leave the process waiting for that thread."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address, strict=False)
        if scheme in ("tcp", "tls", "ws", "wss"):
            host, port = parse_host_port(location)
            if not host or not 0 < port < 65536:
                raise ValueError(f"port {port} out of range" if host else "no host")
    except (ValueError, TypeError) as e:
        raise SweepError(f"--scheduler {address!r}: not a scheduler address ({e}; expected tcp://HOST:PORT)") from None


def _dask(tasks: list, scheduler: str):
    """Yields results from an existing Dask distributed cluster, bounded in flight. The connect
    timeout is Dask's (distributed.comm.timeouts.connect, 30 s unless configured)."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise SweepError("--scheduler needs dask: pip install 'tcplab[dask]'") from None
    _check_scheduler(scheduler)
    try:
        client = Client(scheduler, set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise SweepError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    try:
        threads = max(1, sum(client.nthreads().values()))
        it = iter(tasks)
        first = [client.submit(execute, t, pure=False) for _, t in zip(range(2 * threads), it)]
        if not first:
            return
        queue = as_completed(first, loop=client.loop)
        for future in queue:
            result = future.result()
            future.release()
            if (task := next(it, None)) is not None:
                queue.add(client.submit(execute, task, pure=False))
            yield result
    finally:
        client.close()


def run_sweep(sweep: Sweep, store: Any, *, workers: int | None = None, scheduler: str | None = None,
              progress: bool = True, compact_every: int = 1000) -> Outcome:
    """Runs every run of `sweep` not already in `store` (a `tcplab.results.Store` or a path),
    persisting each as it finishes. KeyboardInterrupt stops it: finished runs are kept and
    `Outcome.interrupted` is set. Runs go to a local process pool of `workers` processes
    (default: all cores) or, with `scheduler` ("tcp://host:port"), to a Dask cluster."""
    import os as _os

    from tcplab import results

    if not isinstance(store, results.Store):
        store = results.Store(store)
    plan = sweep.runs()
    store.open_for_writing()
    try:
        stored = store.keys()
        todo = [r for r in plan if r.key not in stored]
        outcome = Outcome(total=len(plan), skipped=len(plan) - len(todo))
        by_key = {r.key: r for r in todo}
        tasks = [(r.key, sweep.base, r.sets) for r in todo]
        if scheduler:
            source = _dask(tasks, scheduler)
        else:
            source = _local(tasks, workers or _os.cpu_count() or 1)
        bar = _progress(sweep.name, len(todo), outcome.skipped) if progress and todo else None
        since_compaction = 0
        try:
            if bar:
                bar.start()
            for key, result, error in source:
                if error is None:
                    run = by_key[key]
                    store.write_run(key, results.rows(key, run.resolved, result))
                    outcome.done += 1
                    since_compaction += 1
                    if since_compaction >= compact_every:
                        store.compact()
                        since_compaction = 0
                else:
                    outcome.failed[key] = error
                if bar:
                    bar.advance(bar.task_ids[0])
        except KeyboardInterrupt:
            outcome.interrupted = True
        finally:
            if hasattr(source, "close"):
                source.close()
            if bar:
                bar.stop()
        store.compact()
        return outcome
    finally:
        store.close()


def _progress(name: str, total: int, skipped: int):
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:.2f} runs/s" if speed else "- runs/s", style="progress.data.speed")

    label = name + (f" ({skipped} already stored)" if skipped else "")
    bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), Rate(),
                   TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                   console=Console(stderr=True), transient=False)
    bar.add_task(label, total=total)
    return bar
