"""Running a reproduction: every item's jobs through the results store, then every evaluation.

Layout of the output folder DIR::

    report.md, report.html, results.json    the report (report.md has no times or paths, so a
                                            regeneration with the same inputs is byte-identical)
    <paper>.md                              each paper's part of report.md without the figures
                                            links: the quick form's are docs/validation/<paper>.md
    figures/<item>-<n>.png                  the figures report.md links (embedded in report.html)
    store/<item>.parquet/                   each item's results store (tcplab query reads it)
    traces/<run key>/<trace>.parquet        traces of the jobs that keep them

A run already in an item's store is not run again, so re-running a stopped reproduction resumes
it. The simulations of all chosen items go to one local pool (or one Dask cluster), as
`tcplab sweep` runs them (`tcplab.sweep`'s executors, progress and store).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from tcplab.reproduce.core import (
    FAILED,
    NOT_YET,
    Context,
    Item,
    Job,
    Outcome,
    ReproduceError,
    items,
)

__all__ = ["ItemReport", "Reproduction", "reproduce"]


@dataclass
class ItemReport:
    item: Item
    status: str
    outcome: Outcome | None = None
    jobs: list[Job] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""
    shared: int = 0  # of its jobs, how many another item needs too (run once for both)


@dataclass
class Reproduction:
    paper: str
    quick: bool
    reports: list[ItemReport]
    seconds: float = 0.0
    runs: int = 0  # distinct simulations run now
    stored: int = 0  # distinct simulations found in the stores
    distinct: int = 0  # distinct simulations of every item (runs + stored when none failed)

    @property
    def failed(self) -> list[ItemReport]:
        return [r for r in self.reports if r.status == FAILED]


def _plan(chosen: list[Item], quick: bool) -> dict[str, tuple[list[Job], list[str], list[dict]]]:
    from tcplab.simulation import ScenarioError, resolve
    from tcplab.sweep import run_key

    out = {}
    for item in chosen:
        if item.plan is None:
            continue
        jobs = item.plan(quick)
        keys, resolved = [], []
        for job in jobs:
            try:
                r = resolve(job.base(), dict(job.sets))
            except ScenarioError as e:  # a bug in an item, not the user's input
                raise RuntimeError(f"item {item.id}: {job.describe()}: {e}") from None
            keys.append(run_key(r))
            resolved.append(r)
        out[item.id] = (jobs, keys, resolved)
    return out


def in_run_order(tasks: list[tuple]) -> list[tuple]:
    """The tasks in the order of their run keys (hashes: an order unrelated to the items), so
    that each stretch of the progress holds a fair sample of cheap and costly runs and the
    count-based ETA is unbiased; in item order, the short items came first and the ETA said
    14 s at 41 s of a 95 s reproduction."""
    return sorted(tasks, key=lambda t: t[0])


def _execute(plans, out: Path, workers: int | None, scheduler: str | None, progress: bool, label: str):
    """Runs every job not yet in its item's store; returns (runs done, runs found stored)."""
    import os

    from tcplab import results
    from tcplab.sweep.cluster import dask_client, run_on_dask
    from tcplab.sweep.local import run_local
    from tcplab.sweep.progress import progress_bar

    stores: dict[str, results.Store] = {}
    batches: dict[str, results.Batch] = {}
    owners: dict[str, list[str]] = {}  # run key -> items whose store wants it
    tasks, seen, found = [], set(), set()
    trace_dir = str((out / "traces").resolve())
    try:
        for item_id, (jobs, keys, resolved) in plans.items():
            store = results.Store(out / "store" / f"{item_id}.parquet")
            store.open_for_writing()
            stores[item_id] = store
            batches[item_id] = results.Batch(store)
            have = store.keys()
            for job, key, r in zip(jobs, keys, resolved, strict=True):
                if key in have:
                    if not (job.traces and not (out / "traces" / key).is_dir()):
                        found.add(key)
                        continue
                    owners.setdefault(key, [])  # run again for its traces only (deleted)
                else:
                    owners.setdefault(key, []).append(item_id)
                if key not in seen:
                    seen.add(key)
                    keep = (trace_dir, job.traces) if isinstance(job.traces, tuple) else trace_dir
                    tasks.append((key, job.base(), dict(job.sets), keep if job.traces else None, r))
        if not tasks:
            return 0, len(found)
        tasks = in_run_order(tasks)
        if scheduler:
            source = run_on_dask(tasks, dask_client(scheduler))
        else:
            source = run_local(tasks, workers or os.cpu_count() or 1)
        bar = progress_bar(label, len(tasks), len(found - seen)) if progress else None
        done, failed = 0, {}
        try:
            if bar:
                bar.start()
            for key, df, error in source:
                if error is None:
                    for item_id in owners[key]:
                        batches[item_id].add(df)
                    done += 1
                else:
                    failed[key] = error
                if bar:
                    bar.advance(bar.task_ids[0])
        finally:
            if hasattr(source, "close"):
                source.close()
            if bar:
                bar.stop()
        if failed:
            key, err = next(iter(failed.items()))
            raise RuntimeError(
                f"{len(failed)} simulations failed, e.g. {', '.join(owners[key])} run {key}: {err}"
            )
        return done, len(found - seen)
    finally:
        for item_id, store in stores.items():
            try:
                if item_id in batches:
                    batches[item_id].compact()
                else:
                    store.compact()
            except AssertionError:
                pass
            store.close()


def reproduce(
    paper: str = "all",
    out: str | Path = "reproduce-out",
    *,
    quick: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
    keep_traces: bool = False,
    emulate: bool = False,
) -> Reproduction:
    """Runs (or resumes) every item of `paper` into `out` and writes the report there. The runs'
    traces (OUT/traces/) are deleted once the report is written, unless `keep_traces`. `emulate`:
    the items that compare kernel TCP run it through `tcplab emulate` (root, real time) instead
    of reading their stored results."""
    from tcplab import results
    from tcplab.reproduce import report

    if workers is not None and workers < 1:
        raise ReproduceError(f"--workers {workers}: expected at least 1")
    if workers is not None and scheduler:
        raise ReproduceError("--workers and --scheduler exclude each other (the cluster has its own workers)")
    chosen = items(paper)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ReproduceError(f"--out {out}: exists and is not a directory")
    try:
        (out / "store").mkdir(parents=True, exist_ok=True)
        probe = out / ".write-probe"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise ReproduceError(f"--out {out}: cannot write here ({e.strerror or e})") from None
    if scheduler:
        from tcplab.sweep import SweepError
        from tcplab.sweep.cluster import check_scheduler

        try:
            check_scheduler(scheduler)
        except SweepError as e:
            raise ReproduceError(str(e)) from None
    t0 = time.monotonic()
    plans = _plan(chosen, quick)
    label = f"reproduce {paper}{' --quick' if quick else ''}"
    try:
        done, found = _execute(plans, out, workers, scheduler, progress, label)
    except results.StoreError as e:
        raise ReproduceError(str(e)) from None
    owners: dict[str, set[str]] = {}
    for item_id, (_, keys, _) in plans.items():
        for key in keys:
            owners.setdefault(key, set()).add(item_id)
    reports = []
    for item in chosen:
        t = time.monotonic()
        if item.evaluate is None or item.not_yet:
            reports.append(ItemReport(item, NOT_YET))
            continue
        jobs, keys, _ = plans.get(item.id, ([], [], []))
        rows = results.load(out / "store" / f"{item.id}.parquet") if jobs else None
        ctx = Context(item, quick, jobs, keys, rows, out / "traces", emulate=emulate, out=out)
        outcome = item.evaluate(ctx)
        status = NOT_YET if item.open else outcome.status
        shared = sum(len(owners[k]) > 1 for k in keys)
        reports.append(ItemReport(item, status, outcome, jobs, time.monotonic() - t, shared=shared))
    rep = Reproduction(paper, quick, reports, time.monotonic() - t0, done, found, len(owners))
    report.write(rep, out)
    if not keep_traces:
        import shutil

        shutil.rmtree(out / "traces", ignore_errors=True)
    return rep
