"""`run_sweep`: a sweep's runs not yet in a results store, run locally or on a Dask cluster."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcplab.sweep.cluster import dask_client, run_on_dask, warm
from tcplab.sweep.local import run_local
from tcplab.sweep.plan import Sweep
from tcplab.sweep.progress import progress_bar


@dataclass
class Outcome:
    """What `run_sweep` did: counts, and the error of each failed run by key."""

    total: int
    skipped: int
    done: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    interrupted: bool = False


def run_sweep(
    sweep: Sweep,
    store: Any,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
    compact_every: int = 1000,
    trace_dir: str | Path | None = None,
) -> Outcome:
    """Runs every run of `sweep` not already in `store` (a `tcplab.results.Store` or a path),
    persisting each as it finishes. KeyboardInterrupt stops it: finished runs are kept and
    `Outcome.interrupted` is set. Runs go to a local process pool of `workers` processes
    (default: all cores) or, with `scheduler` ("tcp://host:port"), to a Dask cluster.

    `progress` shows a bar on a terminal and plain lines (every 10 s) when stderr is a file or
    a pipe. With `trace_dir`, each run's recorded traces are written by the worker that ran it
    to `trace_dir/<run key>/<trace>.parquet` (on a cluster, a folder every worker can reach).

    Safe to call from a script without an `if __name__ == "__main__":` guard and from a
    notebook: the local workers start without re-running the calling script (see `run_local`).

        from tcplab import sweep
        outcome = sweep.run_sweep(sweep.load("sweeps/mathis-fig4.toml"), "fig4.parquet")
    """
    from tcplab import results

    if not isinstance(store, results.Store):
        store = results.Store(store)
    # Connected before anything else (an unreachable cluster is one line, before any progress
    # is shown), and its workers start importing what a run needs while the plan is made.
    client = dask_client(scheduler) if scheduler else None
    try:
        if client is not None:
            warm(client)
        return _run_planned(sweep, store, client, workers, progress, compact_every, trace_dir)
    finally:
        if client is not None:
            client.close()  # closed already, unless something failed before the runs


def _run_planned(
    sweep: Sweep,
    store: Any,
    client: Any,
    workers: int | None,
    progress: bool,
    compact_every: int,
    trace_dir: str | Path | None,
) -> Outcome:
    import os as _os

    from tcplab import results

    plan = sweep.plan()  # every run checked before the store is touched
    store.open_for_writing()
    try:
        plan.skip(store.keys())
        outcome = Outcome(total=plan.total, skipped=plan.stored)
        traces = str(Path(trace_dir).resolve()) if trace_dir is not None else None
        # Resolved again one at a time as the workers take them: the plan holds keys only.
        tasks = ((r.key, sweep.base, r.sets, traces, r.resolved) for r in plan.todo())
        if client is not None:
            source = run_on_dask(tasks, client, plan.todo_count)
        else:
            source = run_local(tasks, workers or _os.cpu_count() or 1)
        bar = (
            progress_bar(sweep.name, plan.todo_count, outcome.skipped)
            if progress and plan.todo_count
            else None
        )
        batch = results.Batch(store)
        since_compaction = 0
        try:
            if bar:
                bar.start()
            for key, rows, error in source:
                if error is None:
                    batch.add(rows)
                    outcome.done += 1
                    since_compaction += 1
                    if since_compaction >= compact_every:
                        batch.compact()
                        since_compaction = 0
                else:
                    outcome.failed[key] = error
                if bar:
                    bar.advance(bar.task_ids[0])
        except KeyboardInterrupt:
            outcome.interrupted = True
        except OSError as e:  # the store's disk is full, gone read-only, ...
            raise _unwritable(store, e) from None
        finally:
            if hasattr(source, "close"):
                source.close()
            if bar:
                bar.stop()
        try:
            batch.compact()
        except OSError as e:
            raise _unwritable(store, e) from None
        return outcome
    finally:
        store.close()


def _unwritable(store: Any, e: OSError) -> Exception:
    """A write to the store failed: every part file written is whole (each is written to a
    temporary file and renamed), so the runs stored so far are kept and a re-run resumes."""
    from tcplab import results

    return results.StoreError(
        f"{store.path}: cannot write the results store ({e.strerror or e}); the runs already "
        "stored are kept: make room and re-run the same command to resume"
    )
