"""`tcplab sweep | query | fit | plot`: sweeps, the results store, fits and figures."""

from __future__ import annotations

import math
import sys
from enum import StrEnum
from pathlib import Path
from typing import cast

import typer

from tcplab.cli.common import check_output, fail, parse_sets, seconds_option


def _columns(value: str) -> list[str]:
    return [c.strip() for c in value.split(",") if c.strip()]


def _store_path(store: Path) -> Path:
    if not store.exists():
        fail(f"{store}: no such results store")
    return store


def sweep(
    file: Path = typer.Argument(..., help="Sweep file (TOML): a base scenario plus axes."),
    out: Path = typer.Option(..., "--out", "-o", help="Results store (a directory, e.g. runs.parquet)."),
    workers: int | None = typer.Option(
        None, "--workers", "-j", help="Local worker processes (default: all cores)."
    ),
    scheduler: str | None = typer.Option(None, "--scheduler", help="Run on a Dask cluster: tcp://HOST:PORT."),
    set_: list[str] = typer.Option(
        [], "--set", help="Override a field in every run: dotted.path=value (repeatable)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Validate and count the runs; run nothing."),
    progress: bool = typer.Option(
        True,
        "--progress/--no-progress",
        help="Show progress on stderr: a bar on a terminal, plain lines otherwise.",
    ),
    trace_out: Path | None = typer.Option(
        None,
        "--trace-out",
        help="Write each run's recorded traces to "
        "DIR/<run key>/<trace>.parquet (the scenario turns traces on).",
    ),
) -> None:
    """Run every point of a sweep into a results store.

    One row per flow per run. Runs already in the store are skipped, so re-running a stopped
    sweep resumes it."""
    import signal

    from tcplab import results
    from tcplab.sweep import SweepError, load, run_sweep

    if workers is not None and workers < 1:
        fail(f"--workers {workers}: expected at least 1")
    if workers is not None and scheduler:
        fail("--workers and --scheduler exclude each other (the cluster has its own workers)")
    sets = dict(parse_sets(set_, example="duration=20s"))
    if not dry_run:
        if trace_out is not None and trace_out.exists() and not trace_out.is_dir():
            fail(f"--trace-out {trace_out}: exists and is not a directory")
        for path, flag in ((out, "--out"), (trace_out, "--trace-out")):
            if path is not None:
                check_output(path, flag)
    try:
        if scheduler:
            from tcplab.sweep.cluster import check_scheduler

            check_scheduler(scheduler)  # before the store is created
        spec = load(file, sets)
        if dry_run:
            plan = spec.plan()
            plan.skip(results.Store(out).keys() if out.exists() and out.is_dir() else ())
            typer.echo(f"{file}: {plan.total} runs, {plan.stored} already in {out}, {plan.todo_count} to run")
            return

        def terminate(signum, frame):  # SIGTERM stops like Ctrl-C: finished runs are kept
            raise KeyboardInterrupt

        signal.signal(signal.SIGTERM, terminate)
        outcome = run_sweep(
            spec,
            results.Store(out),
            workers=workers,
            scheduler=scheduler,
            progress=progress,
            trace_dir=trace_out,
        )
    except (SweepError, results.StoreError) as e:
        fail(str(e))
    n_stored = outcome.skipped + outcome.done
    typer.echo(
        f"{file}: {outcome.done} runs done, {outcome.skipped} already stored, "
        f"{len(outcome.failed)} failed; {n_stored} of {outcome.total} in {out}",
        err=True,
    )
    for key, error in list(outcome.failed.items())[:5]:
        typer.echo(f"  run {key}: {error}", err=True)
    if outcome.interrupted:
        typer.echo(
            f"stopped: re-run the same command to resume ({outcome.total - n_stored} runs to go)", err=True
        )
        raise typer.Exit(130)
    if outcome.failed:
        raise typer.Exit(1)


class Format(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


class PlotKind(StrEnum):
    window_vs_p = "window-vs-p"
    model_vs_sim = "model-vs-sim"
    cwnd = "cwnd"
    queue = "queue"
    seq = "seq"


#: Rows `tcplab query` prints as a table unless --limit says otherwise.
TABLE_ROWS = 50


def query(
    store: Path = typer.Argument(..., help="Results store (a sweep's directory or a run's .parquet file)."),
    sql: str = typer.Argument(..., help='SQL over the table `runs`; quote dotted names: "flows.0.mss".'),
    fmt_: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
    limit: int | None = typer.Option(
        None,
        "--limit",
        "-n",
        min=0,
        help=f"At most this many rows (default: {TABLE_ROWS} for a table, "
        "all for csv and json, which are streamed).",
    ),
) -> None:
    """Run SQL through DuckDB over a results store (the table `runs`)."""
    fmt = fmt_.value
    import duckdb
    import polars as pl

    from tcplab import results

    if not sql.strip():
        fail("query: empty SQL (expected a statement over the table runs, e.g. SELECT count(*) FROM runs)")
    try:
        rel = results.connect(_store_path(store)).sql(sql)
        if rel is None:  # a statement without a result (CREATE, SET, ...)
            return
        if fmt == "table":
            shown = TABLE_ROWS if limit is None else limit
            df = rel.limit(shown + 1).pl()
        else:
            reader = (rel.limit(limit) if limit is not None else rel).fetch_record_batch(65536)
    except results.StoreError as e:
        fail(str(e))
    except duckdb.Error as e:
        fail("query: " + str(e).strip().splitlines()[0])
    if fmt == "table":
        more = df.height > shown
        _print_frame(df.head(shown))
        if more:
            typer.echo(f"(first {shown} rows; --limit N for more, --format csv for all)", err=True)
        return
    try:
        first = True
        if fmt == "json":
            sys.stdout.write("[")
        for batch in reader:
            df = cast(pl.DataFrame, pl.from_arrow(batch))  # a record batch makes a frame
            if fmt == "csv":
                sys.stdout.write(df.write_csv(include_header=first))
                first = False
            elif df.height:
                sys.stdout.write(("" if first else ",") + df.write_json()[1:-1])
                first = False
        if fmt == "json":
            sys.stdout.write("]\n")
    except duckdb.Error as e:
        fail("query: " + str(e).strip().splitlines()[0])
    except BrokenPipeError:  # | head
        sys.stderr.close()


def _cell(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, float):
        # Six significant digits without an exponent where a reader expects none: a rate of
        # 2.69e7 bit/s reads 26925200, a p of 0.0123 stays 0.0123; tiny values keep theirs.
        if not math.isfinite(value) or value == 0 or not 1e-4 <= abs(value) < 1e15:
            return f"{value:.6g}"
        decimals = max(0, 5 - math.floor(math.log10(abs(value))))
        text = f"{value:.{decimals}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    return str(value)


def _print_frame(df) -> None:
    """A query's rows as a table that fits the terminal, or vertically when it does not."""
    from rich.console import Console

    from tcplab.tables import Column, print_table

    cols = [Column(name, left=not dtype.is_numeric()) for name, dtype in df.schema.items()]
    rows = [[_cell(v) for v in row] for row in df.iter_rows()]
    print_table(Console(), None, cols, rows)


def _fmt(x: float, digits: int = 3) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _json_safe(value):
    """NaN and infinities as null (JSON has neither), recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def fit(
    store: Path = typer.Argument(..., help="Results store (a sweep's directory or a run's .parquet file)."),
    by: str = typer.Option("tcp,ack", "--by", help="Group by these columns (comma-separated; '' for none)."),
    p: str = typer.Option("auto", "--p", help="Which p: auto, configured, measured, or a column name."),
    include_timeouts: bool = typer.Option(False, "--include-timeouts", help="Fit flows with timeouts too."),
    min_ca_events: int = typer.Option(
        50,
        "--min-ca-events",
        min=0,
        help="Leave out flows with fewer CA events (cycles) than this; Mathis "
        "et al. ran 50 or more. 0 keeps every flow.",
    ),
    at: str = typer.Option("0.01,0.033,0.1", "--at", help="p values for the proportion of CA events."),
    bin_width: float = typer.Option(0.1, "--bin-width", help="Half-width of each p bin, in decades."),
    level: float = typer.Option(0.95, "--level", help="Confidence level of the intervals."),
    wide: bool = typer.Option(False, "--wide", help="Also the fit with k free (C and its interval)."),
    json_out: bool = typer.Option(False, "--json", help="Print both tables as JSON (NaN as null)."),
) -> None:
    """Fit BW*RTT/MSS = C p^k and the proportion of CA events (Mathis Table 4).

    Least squares of log(BW*RTT/MSS) = log C + k log p with k = -1/2 and with k free, and the
    proportion of successful W/2 adjustments at chosen p. Flows with timeouts and flows with
    fewer than --min-ca-events CA events are left out of the fit, and counted."""
    from tcplab import fit as fitting
    from tcplab import results

    try:
        targets = [float(a) for a in _columns(at)]
    except ValueError:
        fail(f"--at {at}: expected comma-separated probabilities, e.g. 0.01,0.033,0.1")
    try:
        df = results.load(_store_path(store))
        groups = _columns(by)
        table, source = fitting.fit(
            df, by=groups, p=p, include_timeouts=include_timeouts, level=level, min_ca_events=min_ca_events
        )
        fitting.require_points(table)
        props, _ = fitting.ca_proportion(df, by=groups, p=p, at=targets, width=bin_width, level=level)
    except (fitting.FitError, results.StoreError) as e:
        fail(str(e))
    if json_out:
        import json

        doc = {
            "p": source,
            "level": level,
            "min_ca_events": min_ca_events,
            "include_timeouts": include_timeouts,
            "fit": table.to_dicts(),
            "ca_proportion": props.to_dicts(),
        }
        sys.stdout.write(json.dumps(_json_safe(doc), default=str, allow_nan=False) + "\n")
        return
    from rich.console import Console

    from tcplab.tables import Column, print_table

    pct = f"{level:.0%}"
    console = Console()
    left = (
        ("timeouts, " if not include_timeouts else "")
        + (f"< {min_ca_events} CA events, " if min_ca_events else "")
        + "p or BW = 0"
    )
    console.print(
        f"[bold]log(BW*RTT/MSS) = log C + k log p[/bold], least squares; p: {source}; "
        f"{pct} intervals; left out: {left}",
        highlight=False,
    )
    cols = [Column(c, left=True) for c in groups] + [
        Column("N"),
        Column("C\nk=-1/2"),
        Column(f"{pct} CI"),
        Column("k"),
        Column(f"{pct} CI"),
    ]
    if wide:
        cols += [Column("C\nk free"), Column(f"{pct} CI"), Column("R²")]
    cols += [Column("left out\nTO+few+0")]
    rows = []
    for row in table.iter_rows(named=True):
        r = [str(row[c]) for c in groups] + [
            str(row["n"]),
            _fmt(row["c_half"]),
            f"{_fmt(row['c_half_lo'])}..{_fmt(row['c_half_hi'])}",
            _fmt(row["k"]),
            f"{_fmt(row['k_lo'])}..{_fmt(row['k_hi'])}",
        ]
        if wide:
            r += [_fmt(row["c"]), f"{_fmt(row['c_lo'])}..{_fmt(row['c_hi'])}", _fmt(row["r2"])]
        r += [f"{row['excluded_timeouts']}+{row['excluded_few_ca']}+{row['excluded_invalid']}"]
        rows.append(r)
    print_table(
        console,
        None,
        cols,
        rows,
        caption=f"left out: flows with timeouts + with fewer than {min_ca_events} CA events + with p or BW = 0",
    )
    few = int(table["excluded_few_ca"].sum()) if table.height else 0
    if few:
        console.print(
            f"{few} flow{'s' if few != 1 else ''} with fewer than {min_ca_events} CA events left out "
            "(not in equilibrium; --min-ca-events to change)",
            highlight=False,
        )
    console.print(
        f"[bold]Proportion of successful W/2 adjustments[/bold] CA / (CA + non-CA), pooled over the "
        f"flows with |log10 p - log10 p0| <= {bin_width:g}; all flows",
        highlight=False,
    )
    cols = [Column(c, left=True) for c in groups] + [
        Column("p0"),
        Column("runs"),
        Column("CA"),
        Column("non-CA"),
        Column("proportion"),
        Column(f"{pct} CI"),
    ]
    rows = [
        [str(row[c]) for c in groups]
        + [
            f"{row['p']:g}",
            str(row["runs"]),
            str(row["ca_events"]),
            str(row["non_ca_events"]),
            _fmt(row["proportion"]),
            f"{_fmt(row['lo'])}..{_fmt(row['hi'])}",
        ]
        for row in props.iter_rows(named=True)
    ]
    print_table(console, None, cols, rows)


def plot(
    source: Path = typer.Argument(
        ...,
        help="Results store (window-vs-p, model-vs-sim), or a run's --trace-out "
        "directory (cwnd, queue, seq).",
    ),
    out: Path = typer.Option(..., "--out", "-o", help="Figure file: .png, .svg or .pdf."),
    kind_: PlotKind = typer.Option(
        PlotKind.window_vs_p,
        "--kind",
        help="window-vs-p (Fig. 4), model-vs-sim (Fig. 3); a run's cwnd, queue or seq trace.",
    ),
    by: str = typer.Option(
        "tcp,ack",
        "--by",
        help="Colour groups by these columns (several: faceted by the first when there are many groups).",
    ),
    p: str = typer.Option("auto", "--p", help="Which p: auto, configured, measured, or a column name."),
    show_fit: bool = typer.Option(False, "--fit", help="Draw each group's fitted C p^k line (window-vs-p)."),
    reference: bool = typer.Option(
        True,
        "--reference/--no-reference",
        help="Draw Table 1's constants and PFTK as reference lines (window-vs-p).",
    ),
    title: str | None = typer.Option(None, "--title", help="Figure title."),
    flow: list[int] = typer.Option(
        [], "--flow", help="A run's traces (cwnd, seq): only this flow (repeatable; default the first 8)."
    ),
    start: str | None = typer.Option(
        None, "--from", help="A run's traces: start of the window in simulated time (e.g. 20s)."
    ),
    end: str | None = typer.Option(None, "--to", help="A run's traces: end of the window (e.g. 30s)."),
) -> None:
    """Plot sweep results in the style of Mathis et al. 1997 Fig. 3 and Fig. 4, or a run's traces."""
    from tcplab import plots, results
    from tcplab.fit import FitError

    kind = kind_.value
    check_output(out, "--out")
    if kind not in plots.TRACE_KINDS and (flow or start or end):
        fail(f"--flow, --from, --to: for a run's traces (cwnd, queue, seq), not --kind {kind}")
    if any(f < 0 for f in flow):
        fail(f"--flow {min(flow)}: expected a flow index >= 0")
    window = seconds_option(start, "--from"), seconds_option(end, "--to")
    try:
        if kind in plots.TRACE_KINDS:
            plots.plot_trace(
                source, kind, out=out, title=title, flows=flow or None, start=window[0], end=window[1]
            )
        else:
            df = results.load(_store_path(source))
            plots.plot(
                df, out, kind=kind, by=_columns(by), p=p, show_fit=show_fit, title=title, reference=reference
            )
    except (FitError, results.StoreError) as e:
        fail(str(e))
    except OSError as e:
        fail(f"{out}: cannot write the figure ({e.strerror or e})")
    typer.echo(f"wrote {out}", err=True)


def register(app: typer.Typer) -> None:
    app.command()(sweep)
    app.command()(query)
    app.command()(fit)
    app.command()(plot)
