"""Running a sweep's tasks on a Dask distributed cluster: `dask_client`, `warm` and `run_on_dask`
(chunks of short runs, bounded in flight).
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterable

from tcplab.sweep.local import execute
from tcplab.sweep.plan import SweepError


def check_scheduler(address: str) -> None:
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
        raise SweepError(
            f"--scheduler {address!r}: not a scheduler address ({e}; expected tcp://HOST:PORT)"
        ) from None


def dask_client(scheduler: str):
    """A client of an existing Dask distributed cluster. The connect timeout is Dask's
    (distributed.comm.timeouts.connect, 30 s unless configured)."""
    try:
        from distributed import Client
    except ImportError:
        raise SweepError("--scheduler needs dask: pip install 'tcplab[dask]'") from None
    check_scheduler(scheduler)
    try:
        return Client(scheduler, set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise SweepError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None


def _import_for_runs() -> None:
    """Imports what `execute` needs (the simulator, polars, the store's rows)."""
    import tcplab.results  # noqa: F401
    import tcplab.simulation  # noqa: F401


async def _import_for_runs_async() -> None:
    """`_import_for_runs` in a thread of the worker (Dask runs an unawaited `Client.run` only
    for a coroutine, on the worker's event loop, which the imports should not hold up)."""
    import asyncio

    await asyncio.to_thread(_import_for_runs)


def warm(client) -> None:
    """Has every worker of the cluster import what a run needs, without waiting: a fresh
    worker took about 0.35 s over its first task (bench/README.md, "2026-11-27, d65c556"), while the
    parent made the plan."""
    with contextlib.suppress(Exception):  # only a head start: the first task imports anyway
        client.run(_import_for_runs_async, wait=False)


class Chunk:
    """Several runs' tasks as one Dask argument. Dask walks the lists, tuples and dicts in a
    task's arguments looking for futures, and the runs' resolved scenarios made that about 80
    calls per run in the client (its CPU per 500-run sweep was 0.58-0.70 s with them and
    0.45-0.56 s without, on the cores the workers need); an object of its own is passed as
    it is."""

    __slots__ = ("tasks",)

    def __init__(self, tasks: list):
        self.tasks = tasks

    def __getstate__(self):
        return (self.tasks,)  # never empty: pickle skips __setstate__ for a false state

    def __setstate__(self, state):
        (self.tasks,) = state


def execute_chunk(chunk: Chunk) -> tuple[list, float]:
    """Runs several tasks in one go (one Dask task): their results and the seconds it took."""
    import time

    t0 = time.perf_counter()
    out = [execute(t) for t in chunk.tasks]
    return out, time.perf_counter() - t0


#: Seconds of simulation one Dask task aims at: each task costs the scheduler, the client and
#: the worker a few milliseconds, which with runs of tens of milliseconds was a third of the
#: work (bench/README.md, "2026-11-24, 0f02998").
CHUNK_SECONDS = 0.5


def run_on_dask(tasks: Iterable, client, count: int | None = None):
    """Yields results from a Dask cluster through `client`, bounded in flight; closes it.
    `tasks` may be an iterator (taken as the runs are submitted) of `count` tasks.

    Short runs go in chunks: the first tasks are single runs, and then each task holds as many
    runs as take about `CHUNK_SECONDS` at the mean time per run seen so far, and never more than
    a quarter of what is left per worker thread, so the last tasks still spread over the cluster.
    Each run is still its own result (and a failed run fails alone)."""
    from distributed import as_completed

    if count is None:
        tasks = list(tasks)
        count = len(tasks)
    it = iter(tasks)
    try:
        threads = max(1, sum(client.nthreads().values()))
        left = count  # taken from `it` in the plan's order
        done_runs, busy = 0, 0.0

        def submit():
            nonlocal left
            if left <= 0:
                return None
            k = 1
            if done_runs:
                per_run = busy / done_runs
                k = max(1, min(int(CHUNK_SECONDS / max(per_run, 1e-6)), left // (4 * threads), 256))
            chunk = list(itertools.islice(it, min(k, left)))
            left = left - len(chunk) if chunk else 0
            return client.submit(execute_chunk, Chunk(chunk), pure=False) if chunk else None

        first = [f for f in (submit() for _ in range(2 * threads)) if f is not None]
        if not first:
            return
        queue = as_completed(first, loop=client.loop)
        for future in queue:
            results, seconds = future.result()
            future.release()
            done_runs += len(results)
            busy += seconds
            if (nxt := submit()) is not None:
                queue.add(nxt)
            yield from results
    finally:
        client.close()
