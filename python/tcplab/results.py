"""The results store: one row per flow per run, as a directory of Parquet files.

Layout of a store `runs.parquet/` (a directory; DuckDB reads it as `runs.parquet/*.parquet`)::

    run-<key>.parquet     one finished run, written to a temporary file and renamed into place
    part-<digest>.parquet many runs, compacted from run files (also written then renamed)
    .lock                 held (flock) by the one sweep writing to the store

Crash safety: a file appears under a `*.parquet` name only by `os.replace` of a complete, fsynced
temporary file, so a reader never sees a partial file; a killed writer leaves at most a `.tmp`
file, which readers ignore and the next writer deletes. Compaction writes the merged part first
and deletes the run files after, so a crash in between leaves a run both in a part and in its
run file: readers skip run files whose key is already in a part (rows are identical by
determinism), and the next writer deletes them.

A single run (`tcplab run --out run.parquet`) is a store too: one Parquet file, one row per
flow, with the same columns. Every command that reads a store accepts either form.

Every row carries `run_key` (see `tcplab.sweep.run_key`), the run's inputs as flattened dotted
columns (`flows.0.mss`, `network.path.hops.0.loss.p`; numbers as `tcplab.resolve` reports them:
durations in seconds, rates in bit/s, sizes in bytes, probabilities as floats), the per-flow
outputs of `RunResult.with_predictions()`, the run's `events`, and every link's metrics as
`link.<name>.<metric>`, typed as in the run's tables (docs/traces.md).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import polars as pl

if TYPE_CHECKING:
    from tcplab.simulation import RunResult

__all__ = ["Store", "StoreError", "flatten_inputs", "load", "query", "rows", "write_file"]

class StoreError(ValueError):
    """A store that cannot be read or written (missing, locked, not a store)."""


def flatten_inputs(resolved: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """The resolved scenario as {dotted path: value}, list entries by index (as `--set`). The
    values are already SI numbers (`tcplab.resolve`): seconds, bit/s, bytes, probabilities."""
    out: dict[str, Any] = {}
    items: Iterable = resolved.items() if isinstance(resolved, Mapping) else enumerate(resolved)
    for key, value in items:
        path = f"{prefix}{key}"
        if isinstance(value, (Mapping, list)):
            out.update(flatten_inputs(value, path + "."))
        else:
            out[path] = value
    return out


def rows(run_key: str, resolved: Mapping[str, Any], result: RunResult) -> pl.DataFrame:
    """The store rows of one run (one per flow) from its resolved scenario and its result."""
    return table_rows(run_key, resolved, result.with_predictions(), result.events, result.links)


def table_rows(run_key: str, resolved: Mapping[str, Any], flows: pl.DataFrame, events: int,
               links: pl.DataFrame) -> pl.DataFrame:
    """Store rows from a run's flows table: its inputs before, its links' columns after."""
    inputs = flatten_inputs(resolved)
    n = flows.height
    head = pl.DataFrame({"run_key": [run_key] * n, **{k: [v] * n for k, v in inputs.items()}},
                        strict=False)
    tail = pl.DataFrame({"events": pl.Series([events] * n, dtype=pl.UInt64)}).with_columns(
        pl.lit(value, dtype=links.schema[metric]).alias(f"link.{link['link']}.{metric}")
        for link in links.iter_rows(named=True) for metric, value in link.items() if metric != "link")
    return pl.concat([head, flows, tail], how="horizontal")


def write_file(df: pl.DataFrame, path: str | Path) -> None:
    """Writes store rows as one Parquet file (a one-run store, as `tcplab run --out`)."""
    from tcplab.columns import parquet_metadata

    df.write_parquet(path, compression="zstd", statistics=True, metadata=parquet_metadata(df.columns))


def check_file(path: Path) -> None:
    """Raises StoreError naming `path` unless it is a Parquet file with a `run_key` column."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
    except (pa.ArrowException, OSError) as e:
        reason = "empty file" if path.exists() and path.stat().st_size == 0 else str(e).splitlines()[0]
        raise StoreError(f"{path}: not a Parquet file ({reason})") from None
    if "run_key" not in schema.names:
        raise StoreError(f"{path}: not a tcplab results store (a Parquet file without a run_key column; "
                         "expected the output of tcplab sweep or tcplab run --out)")


def _keys_of_parts(parts: list[Path]) -> set[str]:
    import pyarrow.parquet as pq

    keys: set[str] = set()
    for part in parts:
        check_file(part)
        keys.update(pq.read_table(part, columns=["run_key"]).column("run_key").to_pylist())
    return keys


class Store:
    """A results store directory. Reading needs no lock; `open_for_writing` takes it."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock_fd: int | None = None

    # ---- reading -------------------------------------------------------------------------
    def files(self) -> list[Path]:
        """The Parquet files that make up the store, without run files already compacted."""
        if not self.path.exists():
            raise StoreError(f"{self.path}: no such results store")
        if not self.path.is_dir():
            check_file(self.path)  # a one-run store (tcplab run --out)
            return [self.path]
        parts = sorted(self.path.glob("part-*.parquet"))
        runs = sorted(self.path.glob("run-*.parquet"))
        if runs and parts:
            compacted = _keys_of_parts(parts)
            runs = [r for r in runs if r.stem[4:] not in compacted]
        for f in parts + runs:
            check_file(f)
        return parts + runs

    def keys(self) -> set[str]:
        """The keys of every stored run."""
        if not self.path.exists():
            return set()
        if not self.path.is_dir():
            return _keys_of_parts([self.path])
        parts = sorted(self.path.glob("part-*.parquet"))
        return _keys_of_parts(parts) | {r.stem[4:] for r in self.path.glob("run-*.parquet")}

    def load(self) -> pl.DataFrame:
        files = self.files()
        if not files:
            return pl.DataFrame({"run_key": [], "flow": []}, schema={"run_key": pl.String, "flow": pl.Int64})
        frames = []
        for f in files:
            try:
                frames.append(pl.read_parquet(f))
            except (pl.exceptions.PolarsError, OSError) as e:
                raise StoreError(f"{f}: not a readable Parquet file ({str(e).splitlines()[0]})") from None
        return pl.concat(frames, how="diagonal_relaxed").sort("run_key", "flow", maintain_order=True)

    # ---- writing -------------------------------------------------------------------------
    def open_for_writing(self) -> None:
        """Creates the store if needed, takes its lock, and cleans what a killed writer left."""
        import fcntl

        if self.path.exists() and not self.path.is_dir():
            raise StoreError(f"{self.path}: exists and is not a results store directory (a sweep writes "
                             "a directory; a file is a single run's store)")
        self.path.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StoreError(f"{self.path}: another tcplab sweep is writing to this store") from None
        self._lock_fd = fd
        for tmp in self.path.glob(".*.tmp"):
            tmp.unlink(missing_ok=True)
        parts = sorted(self.path.glob("part-*.parquet"))
        if parts:
            compacted = _keys_of_parts(parts)
            for r in self.path.glob("run-*.parquet"):
                if r.stem[4:] in compacted:
                    r.unlink()

    def close(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = None

    def _write_atomically(self, df: pl.DataFrame, name: str) -> Path:
        final = self.path / name
        tmp = self.path / f".{name}.{os.getpid()}.tmp"
        try:
            from tcplab.columns import parquet_metadata

            df.write_parquet(tmp, compression="zstd", statistics=True, metadata=parquet_metadata(df.columns))
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return final

    def _sync_dir(self) -> None:
        fd = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def write_run(self, key: str, df: pl.DataFrame) -> Path:
        """Persists one finished run (atomic: complete file or nothing)."""
        assert self._lock_fd is not None, "open_for_writing() first"
        return self._write_atomically(df, f"run-{key}.parquet")

    def compact(self) -> int:
        """Merges the run files into one part file; returns the number of runs merged."""
        import hashlib

        assert self._lock_fd is not None, "open_for_writing() first"
        runs = sorted(self.path.glob("run-*.parquet"))
        if not runs:
            return 0
        df = pl.concat([pl.read_parquet(r) for r in runs], how="diagonal_relaxed").sort("run_key", "flow")
        digest = hashlib.sha256("".join(r.stem for r in runs).encode()).hexdigest()[:16]
        self._write_atomically(df, f"part-{digest}.parquet")
        self._sync_dir()  # the part is durable before the run files go
        for r in runs:
            r.unlink()
        self._sync_dir()
        return len(runs)

    def __enter__(self) -> Store:
        self.open_for_writing()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def load(path: str | Path) -> pl.DataFrame:
    """All rows of a results store as a polars DataFrame, ordered by (run_key, flow)."""
    return Store(path).load()


def connect(path: str | Path):
    """A DuckDB connection with the store available as the view `runs`."""
    import duckdb

    files = Store(path).files()
    con = duckdb.connect()
    if files:
        listing = ", ".join("'" + str(f).replace("'", "''") + "'" for f in files)
        con.execute(f"CREATE VIEW runs AS SELECT * FROM read_parquet([{listing}], union_by_name = true)")
    else:
        con.execute("CREATE VIEW runs AS SELECT NULL::VARCHAR AS run_key, NULL::BIGINT AS flow WHERE false")
    return con


def query(path: str | Path, sql: str, limit: int | None = None) -> pl.DataFrame:
    """Runs SQL through DuckDB with the store available as the table `runs`. Dotted column
    names need double quotes: SELECT "flows.0.mss", avg(goodput_bps) FROM runs GROUP BY 1.
    `limit` keeps at most that many rows (the query is not materialized beyond them)."""
    if not sql.strip():
        raise StoreError("query: empty SQL (expected a statement over the table runs, e.g. "
                         "SELECT count(*) FROM runs)")
    rel = connect(path).sql(sql)
    if rel is None:  # a statement without a result (CREATE, SET, ...)
        return pl.DataFrame()
    if limit is not None:
        rel = rel.limit(limit)
    return rel.pl()
