"""`tcplab validate ns2 | red | mathis-table4 | linux`: the validation programs, as commands.

Each is also `python -m MODULE [ARGS]` (`standalone`), the form the pages they write name.
Nothing heavy at import: a command imports its module when it runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

validate_app = typer.Typer(
    help="Validation against references: ns-2's tcpVariants traces and RED runs, Mathis et al.'s Table 4, "
    "the Linux kernel.",
    no_args_is_help=True,
)


def _exit(code: int) -> None:
    if code:
        raise typer.Exit(code)


@validate_app.command("ns2")
def ns2(
    tests: list[str] | None = typer.Argument(None, help="Test names (default: all 58)."),
    detail: bool = typer.Option(False, "--detail", help="Print both event lists around the first mismatch."),
    summary: bool = typer.Option(
        False, "--summary", help="Also print the reference README's per-test table from tcplab's runs."
    ),
    ns2_extra: Path | None = typer.Option(
        None,
        "--ns2-extra",
        metavar="DIR",
        help="Instead, run the EXTRA cases with the local ns-2 (traces in DIR) and compare.",
    ),
) -> None:
    """tcplab's `ns2` profile against ns-2's tcpVariants traces, event by event (exit 1 on a mismatch)."""
    from tcplab.validation import ns2ref

    _exit(ns2ref.check(list(tests or []), detail=detail, summary=summary, ns2_extra=ns2_extra))


@validate_app.command("red")
def red(
    workers: int = typer.Option(2, "--workers", help="Worker processes."),
    run_ns2: bool = typer.Option(
        False, "--run-ns2", help="Rerun ns-2 (needs `ns`) and rewrite data/red_ns2.csv."
    ),
) -> None:
    """RED on a plain dumbbell: tcplab against ns-2 2.35 (the table of docs/validation/ns2.md)."""
    from tcplab.validation import red as red_check

    if workers < 1:
        typer.echo(f"error: --workers {workers}: expected at least 1", err=True)
        raise typer.Exit(2)
    _exit(red_check.check(workers=workers, run_ns2_too=run_ns2))


@validate_app.command("mathis-table4")
def mathis_table4(
    quick: bool = typer.Option(False, "--quick", help="The CI version: few points, seconds."),
    workers: int | None = typer.Option(
        None, "--workers", help="Local worker processes (default: all cores)."
    ),
    out: str | None = typer.Option(
        None, "--out", help="Directory for the stores and the table (default: ./<design>-runs)."
    ),
    profile: str = typer.Option("ns1", "--profile", help="Simulator options (default ns1)."),
    sensitivity: bool = typer.Option(
        False,
        "--sensitivity",
        help="Also run the small sensitivity design (Reno and FACK) under every profile.",
    ),
    write_sweeps: bool = typer.Option(
        False, "--write-sweeps", help="Rewrite sweeps/mathis-table4*.toml (from a checkout's root) and exit."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print the cells as JSON instead of the table."),
) -> None:
    """Mathis et al. 1997, Table 4: C and k by simulation (exit 1 when a cell is outside its tolerance)."""
    from tcplab.validation import mathis_table4 as t4

    if profile not in t4.PROFILES:
        typer.echo(
            f"error: --profile {profile!r}: expected one of {', '.join(sorted(t4.PROFILES))}", err=True
        )
        raise typer.Exit(2)
    if workers is not None and workers < 1:
        typer.echo(f"error: --workers {workers}: expected at least 1", err=True)
        raise typer.Exit(2)
    if out is not None:
        from tcplab.cli.common import check_output

        check_output(Path(out), "--out")
    _exit(
        t4.check(
            quick=quick,
            workers=workers,
            out=out,
            profile=profile,
            sensitivity_too=sensitivity,
            write_sweeps_only=write_sweeps,
            as_json=json_out,
        )
    )


@validate_app.command("linux")
def linux(
    quick: bool = typer.Option(False, "--quick", help="A small grid and short runs (a few minutes)."),
    docs: Path = typer.Option(Path("docs/validation"), "--docs", help="Where to write the pages."),
    save: Path | None = typer.Option(None, "--save", help="Also write every measurement to this JSON file."),
    redo_tcplab: Path | None = typer.Option(
        None,
        "--redo-tcplab",
        metavar="FILE",
        help="Results saved with --save: simulate tcplab's side again, keep the kernel's, rewrite the pages.",
    ),
    render: Path | None = typer.Option(
        None, "--render", metavar="FILE", help="Results saved with --save: only rewrite the pages."
    ),
    seeds: str | None = typer.Option(
        None, "--seeds", metavar="N,M", help="With --add-to: the grid's runs of these seeds only."
    ),
    add_to: Path | None = typer.Option(
        None,
        "--add-to",
        metavar="FILE",
        help="Measure --seeds (and --extras) into this results file (created if missing), "
        "replacing what it held of them, and rewrite the pages from it.",
    ),
    extras: bool = typer.Option(
        False, "--extras", help="With --add-to: the self-check ladder and the dumbbells."
    ),
    captures: Path | None = typer.Option(
        None, "--captures", metavar="DIR", help="Keep each grid run's capture at the senders in DIR."
    ),
) -> None:
    """The Linux kernel's TCP (through the emulator) against tcplab: docs/validation/linux.md and
    emulation.md (real-time runs, about 35 min; root and network namespaces)."""
    from tcplab.cli.common import fail
    from tcplab.emulate import validate as linux_check

    seed_list = None
    if seeds is not None:
        try:
            seed_list = [int(x) for x in seeds.split(",")]
        except ValueError:
            fail(f"--seeds: {seeds!r} (expected seeds from 1 separated by commas, e.g. 1,2)")
    if (seed_list is not None or extras) and add_to is None:
        fail("--seeds and --extras go with --add-to FILE")
    _exit(
        linux_check.check(
            quick=quick,
            docs=docs,
            save=save,
            redo_tcplab=redo_tcplab,
            render=render,
            seeds=seed_list,
            add_to=add_to,
            extras=extras,
            captures=captures,
        )
    )


def standalone(name: str, argv: list[str] | None, prog: str) -> int:
    """Runs the command `name` as a program of its own (`python -m ...`): its exit status, which
    `python -m` passes to sys.exit."""
    import typer.main

    from tcplab.cli.common import click_errors

    command = typer.main.get_command(validate_app).commands[name]  # type: ignore[attr-defined]
    try:
        rv = command.main(
            args=list(sys.argv[1:] if argv is None else argv), prog_name=prog, standalone_mode=False
        )
    except click_errors.ClickException as e:
        e.show()
        return e.exit_code
    except typer.Abort:
        print("error: interrupted (Ctrl-C)", file=sys.stderr)
        return 130
    return rv if isinstance(rv, int) else 0


def register(app: typer.Typer) -> None:
    app.add_typer(validate_app, name="validate")
