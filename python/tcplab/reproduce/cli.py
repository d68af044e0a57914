"""`tcplab reproduce PAPER`: the papers' tables and figures, one report."""

from __future__ import annotations

from pathlib import Path

import typer


def reproduce(
    paper: str = typer.Argument(..., help="jacobson, mathis, barakat, parvez, ns2 or all."),
    quick: bool = typer.Option(False, "--quick", help="Every item at reduced size (minutes; the CI form)."),
    out: Path = typer.Option(
        Path("reproduce-out"),
        "--out",
        "-o",
        help="Output folder: report.html, report.md, results.json, the stores (resumable).",
    ),
    workers: int | None = typer.Option(
        None, "--workers", "-j", help="Local worker processes (default: all cores)."
    ),
    scheduler: str | None = typer.Option(None, "--scheduler", help="Run on a Dask cluster: tcp://HOST:PORT."),
    progress: bool = typer.Option(
        True,
        "--progress/--no-progress",
        help="Show progress on stderr: a bar on a terminal, plain lines otherwise.",
    ),
    keep_traces: bool = typer.Option(
        False,
        "--keep-traces",
        help="Keep the runs' traces in OUT/traces/ (hundreds of MB); by default they are deleted "
        "once the report is written, and a resumed reproduction runs again the simulations whose "
        "traces an item reads.",
    ),
    emulate: bool = typer.Option(
        False,
        "--emulate",
        help="Run the items that compare real kernel TCP (parvez-emulation) through `tcplab emulate`: "
        "root, real time, about 40 minutes. Without it they use the results stored in the package, "
        "with their date and kernel.",
    ),
) -> None:
    """Reproduce the tables and figures of a paper (or of all): tcplab's numbers beside the paper's.

    Writes OUT/report.html (self-contained), OUT/report.md and OUT/results.json. Simulations are
    kept in OUT/store/, so re-running a stopped reproduction resumes it. Exits 1 when a check
    fails."""
    import signal

    from tcplab.cli.common import check_output
    from tcplab.reproduce import PAPERS, ReproduceError
    from tcplab.reproduce import reproduce as run

    if paper != "all" and paper not in PAPERS:
        typer.echo(f"error: unknown paper {paper!r} (expected one of {', '.join(PAPERS)}, all)", err=True)
        raise typer.Exit(2)

    def terminate(signum, frame):  # SIGTERM stops like Ctrl-C: finished runs are kept
        raise KeyboardInterrupt

    check_output(out, "--out")
    signal.signal(signal.SIGTERM, terminate)
    try:
        rep = run(
            paper,
            out,
            quick=quick,
            workers=workers,
            scheduler=scheduler,
            progress=progress,
            keep_traces=keep_traces,
            emulate=emulate,
        )
    except ReproduceError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        typer.echo(
            f"stopped: re-run the same command to resume (finished runs are kept in {out / 'store'})",
            err=True,
        )
        raise typer.Exit(130) from None
    width = max(len(r.item.ref) for r in rep.reports)
    for r in rep.reports:
        typer.echo(f"{r.item.paper:<9} {r.item.ref:<{width}}  {r.status}")
    counts: dict[str, int] = {}
    for r in rep.reports:
        counts[r.status] = counts.get(r.status, 0) + 1
    typer.echo(
        f"{len(rep.reports)} items: "
        + ", ".join(f"{n} {s}" for s, n in counts.items())
        + f"; {rep.runs} simulations run, {rep.stored} found stored; {rep.seconds:.0f} s; "
        f"report: {out / 'report.html'}"
    )
    for r in rep.failed:
        for c in r.outcome.checks if r.outcome else []:
            if not c.passed:
                typer.echo(f"FAILED {r.item.id}: {c.name}: {c.value} (expected {c.target})", err=True)
    if rep.failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(reproduce)
