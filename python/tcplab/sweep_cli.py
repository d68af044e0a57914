"""`tcplab sweep | query | fit | plot`: sweeps, the results store, fits and figures."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import List, Optional

import typer


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _columns(value: str) -> list[str]:
    return [c.strip() for c in value.split(",") if c.strip()]


def _store_path(store: Path) -> Path:
    if not store.exists():
        _fail(f"{store}: no such results store")
    return store


def sweep(
    file: Path = typer.Argument(..., help="Sweep file (TOML): a base scenario plus axes."),
    out: Path = typer.Option(..., "--out", "-o", help="Results store (a directory, e.g. runs.parquet)."),
    workers: Optional[int] = typer.Option(None, "--workers", "-j", help="Local worker processes (default: all cores)."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Run on a Dask cluster: tcp://HOST:PORT."),
    set_: List[str] = typer.Option([], "--set", help="Override a field in every run: dotted.path=value (repeatable)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Validate and count the runs; run nothing."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar on stderr."),
) -> None:
    """Run every point of a sweep into a results store.

    One row per flow per run. Runs already in the store are skipped, so re-running a stopped
    sweep resumes it."""
    import signal

    from tcplab import results
    from tcplab.sweep import SweepError, load, run_sweep

    if workers is not None and workers < 1:
        _fail(f"--workers {workers}: expected at least 1")
    if workers is not None and scheduler:
        _fail("--workers and --scheduler exclude each other (the cluster has its own workers)")
    sets = {}
    for item in set_:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            _fail(f"--set {item!r}: expected dotted.path=value, e.g. --set duration=20s")
        sets[key.strip()] = value.strip()
    try:
        if scheduler:
            from tcplab.sweep import _check_scheduler

            _check_scheduler(scheduler)  # before the store is created
        spec = load(file, sets)
        if dry_run:
            runs = spec.runs()
            stored = results.Store(out).keys() if out.exists() and out.is_dir() else set()
            todo = sum(r.key not in stored for r in runs)
            typer.echo(f"{file}: {len(runs)} runs, {len(runs) - todo} already in {out}, {todo} to run")
            return

        def terminate(signum, frame):  # SIGTERM stops like Ctrl-C: finished runs are kept
            raise KeyboardInterrupt

        signal.signal(signal.SIGTERM, terminate)
        outcome = run_sweep(spec, results.Store(out), workers=workers, scheduler=scheduler,
                            progress=progress and sys.stderr.isatty())
    except (SweepError, results.StoreError) as e:
        _fail(str(e))
    stored = outcome.skipped + outcome.done
    typer.echo(f"{file}: {outcome.done} runs done, {outcome.skipped} already stored, "
               f"{len(outcome.failed)} failed; {stored} of {outcome.total} in {out}", err=True)
    for key, error in list(outcome.failed.items())[:5]:
        typer.echo(f"  run {key}: {error}", err=True)
    if outcome.interrupted:
        typer.echo(f"stopped: re-run the same command to resume ({outcome.total - stored} runs to go)", err=True)
        raise typer.Exit(130)
    if outcome.failed:
        raise typer.Exit(1)


def query(
    store: Path = typer.Argument(..., help="Results store."),
    sql: str = typer.Argument(..., help='SQL over the table `runs`; quote dotted names: "flows.0.mss".'),
    fmt: str = typer.Option("table", "--format", "-f", help="table, csv or json."),
) -> None:
    """Run SQL through DuckDB over a results store (the table `runs`)."""
    import duckdb

    from tcplab import results

    if fmt not in ("table", "csv", "json"):
        _fail(f"--format {fmt}: expected table, csv or json")
    try:
        df = results.query(_store_path(store), sql)
    except results.StoreError as e:
        _fail(str(e))
    except duckdb.Error as e:
        _fail("query: " + str(e).splitlines()[0])
    if fmt == "csv":
        sys.stdout.write(df.write_csv())
    elif fmt == "json":
        sys.stdout.write(df.write_json() + "\n")
    else:
        import polars as pl

        with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=60, tbl_width_chars=200):
            typer.echo(str(df))


def _fmt(x: float, digits: int = 3) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def fit(
    store: Path = typer.Argument(..., help="Results store."),
    by: str = typer.Option("tcp,ack", "--by", help="Group by these columns (comma-separated; '' for none)."),
    p: str = typer.Option("auto", "--p", help="Which p: auto, configured, measured, or a column name."),
    include_timeouts: bool = typer.Option(False, "--include-timeouts", help="Fit flows with timeouts too."),
    at: str = typer.Option("0.01,0.033,0.1", "--at", help="p values for the proportion of CA events."),
    bin_width: float = typer.Option(0.1, "--bin-width", help="Half-width of each p bin, in decades."),
    level: float = typer.Option(0.95, "--level", help="Confidence level of the intervals."),
    json_out: bool = typer.Option(False, "--json", help="Print both tables as JSON."),
) -> None:
    """Fit BW*RTT/MSS = C p^k and the proportion of CA events (Mathis Table 4).

    Least squares of log(BW*RTT/MSS) = log C + k log p with k = -1/2 and with k free, and the
    proportion of successful W/2 adjustments at chosen p."""
    from tcplab import fit as fitting
    from tcplab import results

    try:
        targets = [float(a) for a in _columns(at)]
    except ValueError:
        _fail(f"--at {at}: expected comma-separated probabilities, e.g. 0.01,0.033,0.1")
    try:
        df = results.load(_store_path(store))
        groups = _columns(by)
        table, source = fitting.fit(df, by=groups, p=p, include_timeouts=include_timeouts, level=level)
        props, _ = fitting.ca_proportion(df, by=groups, p=p, at=targets, width=bin_width, level=level)
    except (fitting.FitError, results.StoreError) as e:
        _fail(str(e))
    if json_out:
        import json

        sys.stdout.write(json.dumps({"p": source, "level": level, "fit": table.to_dicts(),
                                     "ca_proportion": props.to_dicts()}, default=str) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    pct = f"{level:.0%}"
    console = Console(width=max(160, Console().width))
    console.print(f"[bold]log(BW*RTT/MSS) = log C + k log p[/bold], least squares; p: {source}; "
                  f"{pct} intervals; " + ("all flows" if include_timeouts else "flows with timeouts left out"))
    t = Table()
    for col in groups:
        t.add_column(col, no_wrap=True)
    for col in ("N", "C (k=-1/2)", f"{pct} CI", "k", f"{pct} CI", "C (k free)", f"{pct} CI", "R²",
                "timeouts out", "p|BW=0 out"):
        t.add_column(col, justify="right", no_wrap=True)
    for row in table.iter_rows(named=True):
        t.add_row(*[str(row[c]) for c in groups], str(row["n"]), _fmt(row["c_half"]),
                  f"{_fmt(row['c_half_lo'])}..{_fmt(row['c_half_hi'])}", _fmt(row["k"]),
                  f"{_fmt(row['k_lo'])}..{_fmt(row['k_hi'])}", _fmt(row["c"]),
                  f"{_fmt(row['c_lo'])}..{_fmt(row['c_hi'])}", _fmt(row["r2"]),
                  str(row["excluded_timeouts"]), str(row["excluded_invalid"]))
    console.print(t)
    console.print(f"[bold]Proportion of successful W/2 adjustments[/bold] CA / (CA + non-CA), pooled over the "
                  f"flows with |log10 p - log10 p0| <= {bin_width:g}; all flows")
    u = Table()
    for col in groups:
        u.add_column(col, no_wrap=True)
    for col in ("p0", "runs", "CA", "non-CA", "proportion", f"{pct} CI"):
        u.add_column(col, justify="right", no_wrap=True)
    for row in props.iter_rows(named=True):
        u.add_row(*[str(row[c]) for c in groups], f"{row['p']:g}", str(row["runs"]), str(row["ca_events"]),
                  str(row["non_ca_events"]), _fmt(row["proportion"]), f"{_fmt(row['lo'])}..{_fmt(row['hi'])}")
    console.print(u)


def plot(
    store: Path = typer.Argument(..., help="Results store."),
    out: Path = typer.Option(..., "--out", "-o", help="Figure file: .png, .svg or .pdf."),
    kind: str = typer.Option("window-vs-p", "--kind", help="window-vs-p (Fig. 4) or model-vs-sim (Fig. 3)."),
    by: str = typer.Option("tcp,ack", "--by", help="Colour groups by these columns."),
    p: str = typer.Option("auto", "--p", help="Which p: auto, configured, measured, or a column name."),
    show_fit: bool = typer.Option(False, "--fit", help="Draw each group's fitted C p^k line (window-vs-p)."),
    title: Optional[str] = typer.Option(None, "--title", help="Figure title."),
) -> None:
    """Plot sweep results in the style of Mathis et al. 1997 Fig. 3 and Fig. 4."""
    from tcplab import results
    from tcplab.fit import FitError
    from tcplab.plots import plot as draw

    try:
        df = results.load(_store_path(store))
        draw(df, out, kind=kind, by=_columns(by), p=p, show_fit=show_fit, title=title)
    except (FitError, results.StoreError) as e:
        _fail(str(e))
    typer.echo(f"wrote {out}", err=True)


def register(app: typer.Typer) -> None:
    app.command()(sweep)
    app.command()(query)
    app.command()(fit)
    app.command()(plot)
