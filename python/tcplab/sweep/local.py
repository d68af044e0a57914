"""Running a sweep's tasks in local worker processes: `execute` (one run, in a worker) and
`run_local` (a process pool, bounded in flight).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

# ---- running ---------------------------------------------------------------------------------


def execute(task: tuple) -> tuple[str, Any, str | None]:
    """Runs one simulation (in a worker process, local or Dask): (key, result or None, error or
    None). Never raises, so one bad run does not stop the sweep. With a trace folder (the
    task's fourth element), the run's recorded traces are written there, under its key. With
    the run's resolved scenario (the fifth), the result is its rows for the results store
    (`tcplab.results.rows`): built by the worker, so the parent only collects and writes."""
    key, base, sets = task[:3]
    trace_dir = task[3] if len(task) > 3 else None
    resolved = task[4] if len(task) > 4 else None
    try:
        import warnings

        from tcplab.simulation import TRACES, RunWarning, run

        keep = TRACES
        if isinstance(trace_dir, (tuple, list)):  # (folder, the traces to write)
            trace_dir, keep = trace_dir[0], tuple(trace_dir[1])

        if trace_dir is not None:
            import os

            folder = Path(trace_dir) / key
            folder.mkdir(parents=True, exist_ok=True)
            sets = {**sets, **pcap_into(folder, resolved if resolved is not None else _resolve(base, sets))}
        with warnings.catch_warnings():  # a sweep's rows carry its runs' numbers; no per-run noise
            warnings.simplefilter("ignore", RunWarning)
            result = run(base, sets)
        if trace_dir is not None:
            for name in keep:
                df = result.trace(name)
                if df.height:
                    tmp = folder / f".{name}.parquet.{os.getpid()}.tmp"
                    df.write_parquet(tmp)
                    os.replace(tmp, folder / f"{name}.parquet")
        if resolved is not None:  # the store's rows, built here rather than in the parent
            from tcplab.results import rows

            return key, rows(key, resolved, result), None
        # Opt-in traces are not stored in the results table (nor sent back from the worker).
        return key, result.without_traces(), None
    except Exception as e:  # noqa: BLE001 - reported per run, with its key
        return key, None, f"{type(e).__name__}: {e}"


def _resolve(base: Any, sets: Mapping[str, Any]) -> dict:
    from tcplab.simulation import resolve

    return resolve(base, dict(sets))


def pcap_into(folder: Path, resolved: Mapping[str, Any]) -> dict[str, Any]:
    """Overrides that write a run's pcap captures with relative file names into its trace folder
    (`--trace-out DIR`: DIR/<run key>/<file>), so the runs of a sweep do not overwrite one file in
    the working directory. Absolute names are left as they are; the run key does not change."""
    caps = [
        {k: v for k, v in c.items() if v is not None} for c in (resolved.get("trace") or {}).get("pcap") or []
    ]
    moved = False
    for cap in caps:
        name = str(cap.get("file", ""))
        if name and not Path(name).is_absolute():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            cap["file"] = str(folder / name)
            moved = True
    return {"trace.pcap": caps} if moved else {}


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


@contextlib.contextmanager
def _sigint_held():
    """Holds SIGINT back from the calling thread while workers start (on submit): a spawned
    worker inherits the blocked mask, so a Ctrl-C that reaches the whole process group while it
    is still importing (before `_worker_init` ignores SIGINT) prints no traceback from it. The
    caller loses nothing: a SIGINT that came meanwhile is delivered when the mask is restored."""
    import signal

    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextlib.contextmanager
def _main_hidden():
    """Hides the calling script from multiprocessing's spawn while workers start, so a worker
    does not import it as `__mp_main__`: a script that calls `run_sweep` without an
    `if __name__ == "__main__":` guard would otherwise run again in every worker (and fail).
    Workers need nothing from the script: a task is plain data and `execute` lives here."""
    import sys

    main = sys.modules.get("__main__")
    saved: dict[str, Any] = {
        k: main.__dict__[k] for k in ("__file__", "__spec__") if main is not None and k in main.__dict__
    }
    try:
        for k in saved:
            assert main is not None  # saved is empty without a __main__
            if k == "__spec__":
                main.__spec__ = None
            else:
                del main.__dict__[k]
        yield
    finally:
        if main is not None:
            main.__dict__.update(saved)


def run_local(tasks: Iterable, workers: int):
    """Yields results from a local process pool, at most 2 * workers runs in flight; `tasks` may
    be an iterator, taken as the workers free up."""
    import concurrent.futures as cf
    import multiprocessing as mp

    pool = cf.ProcessPoolExecutor(
        max_workers=workers, mp_context=mp.get_context("spawn"), initializer=_worker_init
    )
    pending: set = set()
    it = iter(tasks)
    try:
        while True:
            while len(pending) < 2 * workers and (task := next(it, None)) is not None:
                # Workers start (on submit) without importing __main__, and deaf to a Ctrl-C.
                with _main_hidden(), _sigint_held():
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
            procs = list((getattr(pool, "_processes", None) or {}).values())
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.join(10)
            # A worker stopped while writing its result leaves half a message in the result
            # pipe, and the pool's manager thread waits for the rest for ever (and with it the
            # shutdown below and the interpreter's exit): seen once in a Ctrl-C under load.
            # With the workers gone, closing the parent's copy of the pipe's write end ends
            # that wait with an end of file, which the thread takes as a broken pool.
            results = getattr(pool, "_result_queue", None)
            if results is not None and not any(p.is_alive() for p in procs):
                results._writer.close()
        pool.shutdown(wait=True, cancel_futures=True)
