"""The `tcplab` command line: a thin typer app over the library."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

import typer

app = typer.Typer(
    name="tcplab",
    help="A TCP congestion-control laboratory: simulate, model, sweep, compare.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def fail(message: str) -> None:
    """One clear line on stderr and a non-zero exit: no traceback."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def parse_sets(sets: List[str]) -> list[tuple[str, str]]:
    out = []
    for s in sets:
        key, eq, value = s.partition("=")
        if not eq or not key.strip():
            fail(f"--set {s!r}: expected dotted.path=value, e.g. --set flows.0.tcp=tahoe")
        out.append((key.strip(), value.strip()))
    return out


def write_atomically(path: Path, write) -> None:
    """Writes through a temporary file in the same folder, then renames: never a partial file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        fail(f"{path}: cannot write here ({e.strerror or e}: {e.filename or path.parent})")
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@app.command()
def run(
    scenario: Path = typer.Argument(..., help="Scenario file (TOML)."),
    set_: List[str] = typer.Option([], "--set", help="Override a field: dotted.path=value (repeatable)."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON document with flows and links."),
    out: Optional[Path] = typer.Option(None, "--out", help="Also write the flows table (with predictions) to Parquet."),
) -> None:
    """Run one simulation and print per-flow and per-link results beside the Mathis prediction."""
    from tcplab.simulation import ScenarioError, run as run_scenario

    if out is not None and out.suffix != ".parquet":
        fail(f"--out {out}: expected a .parquet file name")
    try:
        result = run_scenario(scenario, dict(parse_sets(set_)))
    except ScenarioError as e:
        message = str(e)
        fail(message if message.startswith(str(scenario)) else f"{scenario}: {message}")
    except KeyboardInterrupt:
        typer.echo("error: interrupted (Ctrl-C): the run stopped, nothing was written", err=True)
        raise typer.Exit(130)
    if out is not None:
        write_atomically(out, lambda tmp: result.with_predictions().write_parquet(tmp))
    if json_out:
        sys.stdout.write(result.to_json() + "\n")
    else:
        from tcplab.report import print_result

        print_result(result)


@app.command()
def schema() -> None:
    """Print the JSON Schema of scenario files."""
    from tcplab import _core

    sys.stdout.write(_core.schema() + "\n")


def _register_subcommands() -> None:
    # Each area of the library registers its own commands (a `register(app)` function in
    # its own module); this module stays thin.
    import importlib

    for module in ("tcplab.models.cli", "tcplab.sweep_cli"):
        try:
            register = importlib.import_module(module).register
        except ModuleNotFoundError as e:  # an area not built yet
            if e.name != module:
                raise
            continue
        register(app)


_register_subcommands()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
