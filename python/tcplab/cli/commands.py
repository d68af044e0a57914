"""The `tcplab` typer app: `run`, `check`, `schema`, and each area's commands (registered from its
own `cli` module). Nothing heavy at import: each command imports what it needs when it runs."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from tcplab.cli.common import (
    check_output,
    ctrl_c_seen,
    fail,
    interrupted,
    parse_sets,
    read_scenario_arg,
    remember_ctrl_c,
    write_atomically,
)

app = typer.Typer(
    name="tcplab",
    help="A TCP congestion-control laboratory: simulate, model, sweep, compare.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # click's own help: paragraphs rewrapped to the terminal, choices never broken mid-word
    rich_markup_mode=None,
)


def version_callback(value: bool) -> None:
    if value:
        from tcplab import __version__

        typer.echo(f"tcplab {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: bool = typer.Option(
        False, "--version", callback=version_callback, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """A TCP congestion-control laboratory: simulate, model, sweep, compare."""


def write_traces(result, directory: Path) -> list[Path]:
    """Every recorded (non-empty) trace of `result` as DIR/<trace>.parquet; beside them, when
    one was written, the run's `run` and `links` tables (what `tcplab plot` reads to put the
    bottleneck first and to mark a trace that stopped at trace.max_points)."""
    from tcplab.plots import run_context
    from tcplab.simulation import TRACES

    written = []
    for name in TRACES:
        df = result.trace(name)
        if df.height:
            target = directory / f"{name}.parquet"
            write_atomically(target, df.write_parquet)
            written.append(target)
    if written:
        for name, df in run_context(result).items():
            write_atomically(directory / f"{name}.parquet", df.write_parquet)
    return written


#: What `--trace-out` turns on when the scenario records no trace itself.
DEFAULT_TRACES = {"trace.cwnd": "true", "trace.queue": "true"}


def traces_enabled(resolved: dict) -> bool:
    trace = resolved.get("trace") or {}
    return bool(trace.get("cwnd") or trace.get("queue") or trace.get("links"))


@app.command()
def run(
    scenario: str = typer.Argument(..., help="Scenario file (TOML), or - to read it from standard input."),
    set_: list[str] = typer.Option([], "--set", help="Override a field: dotted.path=value (repeatable)."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON document with flows and links."),
    out: Path | None = typer.Option(
        None,
        "--out",
        help="Also write the run as a one-row-per-flow results "
        "store (a .parquet file that fit, query and plot read).",
    ),
    trace_out: Path | None = typer.Option(
        None,
        "--trace-out",
        help="Write each recorded trace to "
        "DIR/<trace>.parquet (turns on the cwnd and queue traces if the "
        "scenario records none).",
    ),
    wide: bool = typer.Option(False, "--wide", help="Print every column and link (wider than 80 columns)."),
) -> None:
    """Run one simulation and print per-flow and per-link results beside the Mathis prediction."""
    try:  # Ctrl-C while the heavy modules load is still "interrupted", not click's "Aborted!"
        from tcplab import results
        from tcplab.simulation import ScenarioError, resolve
        from tcplab.simulation import run as run_scenario
        from tcplab.sweep import run_key
    except KeyboardInterrupt:
        interrupted()
    if ctrl_c_seen():  # a Ctrl-C whose KeyboardInterrupt an import dropped
        interrupted()

    if out is not None and out.suffix != ".parquet":
        fail(f"--out {out}: expected a .parquet file name")
    if trace_out is not None and trace_out.exists() and not trace_out.is_dir():
        fail(f"--trace-out {trace_out}: exists and is not a directory")
    for path, flag in ((out, "--out"), (trace_out, "--trace-out")):
        if path is not None:
            check_output(path, flag)
    source, label = read_scenario_arg(scenario)
    sets = dict(parse_sets(set_))
    try:
        resolved = resolve(source, sets)
        if out is not None:
            results.check_inputs(resolved)
        if trace_out is not None and not traces_enabled(resolved):
            sets.update(DEFAULT_TRACES)
        if trace_out is None and traces_enabled(resolved):
            typer.echo(
                "warning: the scenario records traces (trace.cwnd, trace.queue or trace.links) but "
                "nothing keeps them: add --trace-out DIR to write them",
                err=True,
            )
        result = run_scenario(source, sets)
    except ScenarioError as e:
        message = str(e)
        fail(message if message.startswith(label) else f"{label}: {message}")
    except results.StoreError as e:
        fail(f"--out {out}: {e}")
    except KeyboardInterrupt:
        interrupted()
    if out is not None:
        rows = results.rows(run_key(resolved), resolved, result)
        write_atomically(out, lambda tmp: results.write_file(rows, tmp))
    if trace_out is not None:
        written = write_traces(result, trace_out)
        typer.echo(
            f"traces: {', '.join(str(w) for w in written) or 'none recorded'}"
            + (" (truncated at trace.max_points)" if result.truncated else ""),
            err=True,
        )
    if json_out:
        result.write_json(sys.stdout)
        sys.stdout.write("\n")
    else:
        from tcplab.report import print_result

        print_result(result, wide=wide)


@app.command()
def check(
    file: Path = typer.Argument(..., help="A scenario or a sweep file (TOML)."),
    set_: list[str] = typer.Option([], "--set", help="Override a field: dotted.path=value (repeatable)."),
) -> None:
    """Validate a scenario or a sweep file without running it (a sweep: every one of its runs)."""
    import tomllib

    from tcplab.inputs import InputTooLarge, not_found, read_scenario_bytes
    from tcplab.simulation import ScenarioError, resolve
    from tcplab.sweep import SweepError, load

    sets = dict(parse_sets(set_))
    try:
        text = read_scenario_bytes(file).decode("utf-8")
    except InputTooLarge as e:
        fail(f"{file}: {e}")
    except FileNotFoundError:
        fail(f"{file}: {not_found(file, 'scenario or sweep file')}")
    except UnicodeDecodeError:
        fail(f"{file}: not UTF-8 text (expected a TOML scenario or sweep file)")
    except OSError as e:
        fail(f"{file}: cannot read ({e.strerror})")
    try:
        doc = tomllib.loads(text)
    except RecursionError:
        fail(f"{file}: nested too deeply (expected tables and lists a few levels deep)")
    except tomllib.TOMLDecodeError:
        doc = {}  # the parsers below say what is wrong
    if "sweep" in doc or "axis" in doc:
        try:
            spec = load(file, sets)
            n = spec.plan().total
        except SweepError as e:
            fail(str(e))
        typer.echo(f"{file}: a valid sweep of {n} runs")
        return
    try:
        resolved = resolve(file, sets)
    except ScenarioError as e:
        message = str(e)
        fail(message if message.startswith(str(file)) else f"{file}: {message}")
    from tcplab.simulation import flow_specs

    flows = len(flow_specs(resolved))
    typer.echo(
        f"{file}: a valid scenario ({flows} flow{'s' if flows != 1 else ''}, "
        f"{resolved['duration']:g} s, seed {resolved['seed']})"
    )


@app.command()
def schema() -> None:
    """Print the JSON Schema of scenario files."""
    from tcplab import _core

    sys.stdout.write(_core.schema() + "\n")


def _register_subcommands() -> None:
    # Each area of the library registers its own commands (a `register(app)` function in
    # its own module); this module stays thin.
    import importlib

    subcommands = (
        "tcplab.models.cli",
        "tcplab.sweep.cli",
        "tcplab.reproduce.cli",
        "tcplab.capture.cli",
        "tcplab.emulate.cli",
        "tcplab.advise.cli",
        "tcplab.validation.cli",
    )
    for module in subcommands:
        try:
            register = importlib.import_module(module).register
        except ModuleNotFoundError as e:  # an area not built yet
            if e.name != module:
                raise
            continue
        register(app)


_register_subcommands()


def _first_paragraph(doc: str | None) -> str | None:
    if not doc:
        return None
    import inspect

    return " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())


def _short_helps(typer_app: typer.Typer) -> None:
    """Each command's line in `tcplab --help` is its help's first paragraph (click would cut it
    at the first full stop: "Draw Parvez Fig."), wrapped to the terminal."""
    for info in typer_app.registered_commands:
        if info.short_help is None:
            info.short_help = _first_paragraph(
                info.help or (info.callback.__doc__ if info.callback else None)
            )
    for group in typer_app.registered_groups:
        sub = group.typer_instance
        if sub is not None:
            text = group.help if isinstance(group.help, str) else sub.info.help
            group.short_help = sub.info.short_help = _first_paragraph(text if isinstance(text, str) else None)
            _short_helps(sub)


_short_helps(app)


def main() -> None:
    remember_ctrl_c()
    app()
