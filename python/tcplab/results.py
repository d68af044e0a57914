"""The results store: one row per flow per run, as a directory of Parquet files.

Layout of a store `runs.parquet/` (a directory; DuckDB reads it as `runs.parquet/*.parquet`)::

    part-<digest>.parquet many runs: a batch of runs finished together (`Batch`), or the merge of
                          several files (`Store.compact`); written then renamed into place
    run-<key>.parquet     one finished run (`Store.write_run`), written then renamed into place
    .lock                 held (flock) by the one sweep writing to the store

A sweep writes its finished runs in batches (`Batch`: at most every 2 s or 256 runs), one file and
one fsync per batch instead of per run: on a 2-core machine the parent's per-run file and fsync
were what kept two workers from running twice the runs per second of one (bench/README.md, "2026-11-24, 0f02998"). A
killed sweep loses the runs of its unwritten batch (at most the last 2 s of finished runs), which
the next run of the same command simply runs again. At the end (and every `compact_every` runs)
the batches are merged into one part.

Crash safety: a file appears under a `*.parquet` name only by `os.replace` of a complete, fsynced
temporary file, so a reader never sees a partial file; a killed writer leaves at most a `.tmp`
file, which readers ignore and the next writer deletes. Compaction writes the merged part first
and deletes the merged files after, so a crash in between leaves a run in two files: readers skip
run files whose key is already in a part, and read a run that is in two parts once (rows are
identical by determinism); the next writer deletes the run files, and the next compaction merges
the parts.

A single run (`tcplab run --out run.parquet`) is a store too: one Parquet file, one row per
flow, with the same columns. Every command that reads a store accepts either form.

Every row carries `run_key` (see `tcplab.sweep.run_key`), the run's inputs as flattened dotted
columns (`flows.0.mss`, `network.path.hops.0.loss.p`; numbers as `tcplab.resolve` reports them:
durations in seconds, rates in bit/s, sizes in bytes, probabilities as floats), the per-flow
outputs of `RunResult.with_predictions()`, the run's `events`, and every link's metrics as
`link.<name>.<metric>`, typed as in the run's tables (docs/traces.md).
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    from tcplab.simulation import RunResult

__all__ = ["Batch", "Store", "StoreError", "flatten_inputs", "load", "query", "rows", "write_file"]


class StoreError(ValueError):
    """A store that cannot be read or written (missing, locked, not a store)."""


#: A list of plain values longer than this (a dumbbell's per-flow `rtts` for thousands of
#: flows) is one list-valued column, not a column per entry.
LONG_LIST = 64
#: At most this many input columns per run: a store's width must not grow with the flows.
MAX_INPUT_COLUMNS = 5000


def flatten_inputs(resolved: Mapping[str, Any] | list[Any], prefix: str = "") -> dict[str, Any]:
    """The resolved scenario as {dotted path: value}, list entries by index (as `--set`). The
    values are already SI numbers (`tcplab.resolve`): seconds, bit/s, bytes, probabilities. A
    list of more than `LONG_LIST` plain values is one column holding the list."""
    out: dict[str, Any] = {}
    if (
        isinstance(resolved, list)
        and len(resolved) > LONG_LIST
        and not any(isinstance(v, (Mapping, list)) for v in resolved)
    ):
        out[prefix.rstrip(".")] = list(resolved)
        return out
    items: Iterable = resolved.items() if isinstance(resolved, Mapping) else enumerate(resolved)
    for key, value in items:
        path = f"{prefix}{key}"
        if isinstance(value, (Mapping, list)):
            out.update(flatten_inputs(value, path + "."))
        else:
            out[path] = value
    return out


def check_inputs(resolved: Mapping[str, Any]) -> None:
    """Raises StoreError unless a run of `resolved` fits a results store's row (checked before
    the run, so a long run is not lost at the end)."""
    _check_width(resolved, len(flatten_inputs(resolved)))


def _check_width(resolved: Mapping[str, Any], columns: int) -> None:
    if columns <= MAX_INPUT_COLUMNS:
        return
    tables = len(resolved.get("flows") or [])
    hint = (
        (
            f"its {tables} [[flows]] tables are a column group each: write flows that differ only in "
            "their random draws as one table with count = N"
        )
        if tables > 16
        else "a list of tables in it is a column group per entry"
    )
    raise StoreError(
        f"the scenario flattens to {columns} input columns (expected at most "
        f"{MAX_INPUT_COLUMNS} per run in a results store): {hint}"
    )


def rows(run_key: str, resolved: Mapping[str, Any], result: RunResult) -> pl.DataFrame:
    """The store rows of one run (one per flow) from its resolved scenario and its result."""
    return table_rows(
        run_key, resolved, result.with_predictions(), result.events, result.links, result.traffic
    )


def table_rows(
    run_key: str,
    resolved: Mapping[str, Any],
    flows: pl.DataFrame,
    events: int,
    links: pl.DataFrame,
    traffic: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Store rows from a run's flows table: its inputs before, its shared links' columns after
    (a connection's own access and egress links stay in the run's links table: their columns
    would grow with the flows, and every row would carry every flow's)."""
    inputs = flatten_inputs(resolved)
    _check_width(resolved, len(inputs))
    n = flows.height
    head = pl.DataFrame({"run_key": [run_key] * n, **{k: [v] * n for k, v in inputs.items()}}, strict=False)
    if "shared" in links.columns:
        links = links.filter(pl.col("shared")).drop("shared")
    tail = pl.DataFrame({"events": pl.Series([events] * n, dtype=pl.UInt64)}).with_columns(
        pl.lit(value, dtype=links.schema[metric]).alias(f"link.{link['link']}.{metric}")
        for link in links.iter_rows(named=True)
        for metric, value in link.items()
        if metric != "link"
    )
    if traffic is not None and traffic.height:
        tail = tail.with_columns(
            pl.lit(value, dtype=traffic.schema[metric]).alias(f"group.{g['name']}.{metric}")
            for g in traffic.iter_rows(named=True)
            for metric, value in g.items()
            if metric not in ("name", "kind")
        )
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
        raise StoreError(
            f"{path}: not a tcplab results store (a Parquet file without a run_key column; "
            "expected the output of tcplab sweep or tcplab run --out)"
        )


def _keys_of_parts(parts: list[Path]) -> set[str]:
    import pyarrow.parquet as pq

    keys: set[str] = set()
    for part in parts:
        check_file(part)
        keys.update(pq.read_table(part, columns=["run_key"]).column("run_key").to_pylist())
    return keys


def _held(parts: list[Path]) -> dict[Path, set[str]]:
    """The run keys in each part file."""
    return {p: _keys_of_parts([p]) for p in parts}


def _redundant(held: dict[Path, set[str]]) -> set[Path]:
    """Parts whose runs are all in another part (what a compaction killed before deleting the
    files it merged leaves; of two parts with the same runs, the first by name)."""
    out: set[Path] = set()
    for p, keys in held.items():
        for q, other in held.items():
            if q != p and q not in out and keys <= other and (len(other) > len(keys) or q.name > p.name):
                out.add(p)
                break
    return out


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
        if len(parts) > 1:
            held = _held(parts)
            parts = [p for p in parts if p not in _redundant(held)]
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
            raise StoreError(
                f"{self.path}: exists and is not a results store directory (a sweep writes "
                "a directory; a file is a single run's store)"
            )
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StoreError(
                f"{self.path}: cannot write the results store here ({e.strerror or e})"
            ) from None
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
            # A compaction killed before it deleted what it had merged: run files and parts
            # whose runs are all in another part go.
            held = _held(parts)
            compacted = set().union(*held.values())
            for r in self.path.glob("run-*.parquet"):
                if r.stem[4:] in compacted:
                    r.unlink()
            for p in _redundant(held):
                p.unlink()

    def close(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = None

    def _write_atomically(self, df: pl.DataFrame, name: str) -> Path:
        final = self.path / name
        tmp = self.path / f".{name}.{os.getpid()}.tmp"
        try:
            from tcplab.columns import parquet_metadata

            # Encoded in memory, then written by Python: a full disk is an OSError (ENOSPC)
            # here, where polars writing the file itself reports a ComputeError ("Invalid
            # thrift: transport error") that names no cause.
            buf = io.BytesIO()
            df.write_parquet(buf, compression="zstd", statistics=True, metadata=parquet_metadata(df.columns))
            with open(tmp, "wb") as f:
                f.write(buf.getbuffer())
                f.flush()
                os.fsync(f.fileno())
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

    def write_part(self, df: pl.DataFrame) -> Path:
        """Persists several finished runs as one part file (atomic: complete file or nothing)."""
        assert self._lock_fd is not None, "open_for_writing() first"
        return self._write_atomically(df, f"part-{_digest(df)}.parquet")

    def compact(self, parts: Iterable[Path] = ()) -> int:
        """Merges the run files, and the part files `parts` (a sweep's batches), into one part
        file; returns the number of runs merged (0, and nothing written, when there is at most
        one file to merge)."""
        assert self._lock_fd is not None, "open_for_writing() first"
        files = sorted(self.path.glob("run-*.parquet")) + sorted(p for p in parts if p.exists())
        if len(files) < 2 and not any(f.name.startswith("run-") for f in files):
            return 0
        df = pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed")
        df = df.unique(subset=["run_key", "flow"], keep="first").sort("run_key", "flow")
        merged = self.write_part(df)
        self._sync_dir()  # the merged part is durable before the files it replaces go
        for f in files:
            if f != merged:
                f.unlink()
        self._sync_dir()
        return df["run_key"].n_unique()

    def __enter__(self) -> Store:
        self.open_for_writing()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _digest(df: pl.DataFrame) -> str:
    """A part file's name: the digest of the run keys it holds (the same runs, the same name)."""
    import hashlib

    keys = sorted(set(df["run_key"].to_list()))
    return hashlib.sha256("".join(keys).encode()).hexdigest()[:16]


class Batch:
    """Finished runs held back and written to `store` together, as one part file: when
    `max_runs` are held, when the oldest was held `max_seconds` ago (checked as runs arrive),
    and by `flush()`. `written` lists the part files written since the last `compact`."""

    def __init__(self, store: Store, max_runs: int = 256, max_seconds: float = 2.0):
        self.store, self.max_runs, self.max_seconds = store, max_runs, max_seconds
        self.frames: list[pl.DataFrame] = []
        self.since = 0.0
        self.written: list[Path] = []

    def add(self, df: pl.DataFrame) -> None:
        import time

        if not self.frames:
            self.since = time.monotonic()
        self.frames.append(df)
        if len(self.frames) >= self.max_runs or time.monotonic() - self.since >= self.max_seconds:
            self.flush()

    def flush(self) -> None:
        if self.frames:
            path = self.store.write_part(pl.concat(self.frames, how="diagonal_relaxed"))
            self.frames = []  # only once written: a Ctrl-C during the write keeps them
            self.written.append(path)

    def compact(self) -> int:
        """Writes what is held, then merges the batches (and any run files) into one part."""
        self.flush()
        n = self.store.compact(self.written)
        self.written = []
        return n


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
        raise StoreError(
            "query: empty SQL (expected a statement over the table runs, e.g. SELECT count(*) FROM runs)"
        )
    rel = connect(path).sql(sql)
    if rel is None:  # a statement without a result (CREATE, SET, ...)
        return pl.DataFrame()
    if limit is not None:
        rel = rel.limit(limit)
    return rel.pl()
