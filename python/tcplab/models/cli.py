"""`tcplab model` and `tcplab plot-models`: the analytic models on the command line."""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Any, Optional

import typer

_MODEL_HELP = """Evaluate an analytic model: tcplab model NAME [--param VALUE]... [--json].

Models: mathis, pftk, newreno, multibottleneck, gateways, jacobson. Run `tcplab model --list` for each model's parameters, units and defaults.

Parameters take unit strings: --rtt 100ms, --loss 1% (or 0.01, 1e-3), --rate 1Mbit/s, --mss 1460 (bytes; also 1.5KB, 64KiB), --c 1. Values are converted to SI (bytes, seconds, bit/s).

\b
Examples:
  tcplab model mathis --mss 1460 --rtt 100ms --loss 1%
  tcplab model mathis --inverse --mss 536 --rtt 100ms --rate 1Mbit/s --c 1
  tcplab model newreno --rtt 229ms --loss 0.98% --mss 1448 --json
"""


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _parse_args(model, args: list[str]) -> dict[str, Any]:
    """Turn ['--rtt', '100ms', '--inverse', '--c=1'] into SI values keyed by parameter name."""
    from tcplab.models.catalog import REQUIRED

    values: dict[str, Any] = {}
    flags = ", ".join(p.flag for p in model.params)
    i = 0
    while i < len(args):
        token = args[i]
        if not token.startswith("--") or len(token) < 3:
            _fail(f"unexpected argument {token!r} for model {model.name} (expected {flags})")
        name, eq, inline = token[2:].partition("=")
        param = model.param(name.replace("-", "_"))
        if param is None:
            _fail(f"unknown parameter --{name} for model {model.name} (expected {flags})")
        if param.name in values:
            _fail(f"{param.flag} given twice")
        if param.kind == "flag":
            if eq:
                _fail(f"{param.flag} is a flag and takes no value")
            values[param.name] = True
            i += 1
            continue
        if eq:
            text = inline
            i += 1
        else:
            if i + 1 >= len(args):
                _fail(f"{param.flag}: missing value")
            text = args[i + 1]
            i += 2
        try:
            values[param.name] = param.parse(text)
        except ValueError as e:
            _fail(f"{param.flag}: {e}")
    for p in model.params:
        if p.name in values:
            continue
        if p.kind == "flag":
            values[p.name] = False
        elif p.default is REQUIRED:
            _fail(f"{p.flag}: required for model {model.name} ({p.help})")
        else:
            values[p.name] = p.default
    return values


def _domain_message(model, message: str) -> str:
    """Rename a library argument ('p: 1.5 is outside (0, 1]') to its flag ('--loss: ...')."""
    match = re.match(r"([A-Za-z_]+)(/[A-Za-z_]+)?: ", message)
    if match and not message.startswith("--"):
        name = match.group(1)
        flag = model.aliases.get(name, name)
        if model.param(flag) is not None:
            label = model.param(flag).flag
            if flag != name:
                label += f" ({name})"
            return f"{label}{message[len(name):]}"
    return message


def _format_value(value: Any, unit: str) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if unit == "bit/s":
        for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
            if abs(value) >= scale:
                return f"{value / scale:.4g} {prefix}bit/s"
        return f"{value:.4g} bit/s"
    if unit == "" and 0 < value < 1:
        return f"{value:.4g} ({100 * value:.4g}%)"
    return f"{value:.6g}" + (f" {unit}" if unit else "")


def _print_list() -> None:
    from rich.console import Console
    from rich.table import Table

    from tcplab.models.catalog import MODELS

    table = Table(title="tcplab models (tcplab model NAME --param VALUE ...)")
    table.add_column("parameter", style="bold", no_wrap=True)
    table.add_column("kind", no_wrap=True)
    table.add_column("default", no_wrap=True)
    table.add_column("meaning")
    for m in MODELS.values():
        table.add_row(f"[bold cyan]{m.name}[/]", "", "", f"[cyan]{m.summary}[/] [dim]({m.source})[/]", end_section=False)
        for i, p in enumerate(m.params):
            table.add_row("  " + p.flag, p.kind, p.describe_default(), p.help, end_section=i == len(m.params) - 1)
    Console().print(table)


def _run_model(name: str, args: list[str], as_json: bool) -> None:
    from tcplab.models.catalog import MODELS

    model = MODELS.get(name)
    if model is None:
        _fail(f"unknown model {name!r} (expected one of: {', '.join(MODELS)}; see tcplab model --list)")
    inputs = _parse_args(model, args)
    try:
        rows = model.compute(inputs)
    except ValueError as e:
        _fail(_domain_message(model, str(e)))
    warnings = model.outside_domain(inputs, rows)
    for w in warnings if not as_json else ():  # JSON carries them in the document
        typer.echo(f"warning: {w}", err=True)
    if as_json:
        doc = {
            "model": model.name,
            "source": model.source,
            "inputs": {k: v for k, v in inputs.items() if v is not None},
            "outputs": {r.key: r.value for r in rows},
            "units": {r.key: r.unit for r in rows},
            "warnings": warnings,
        }
        sys.stdout.write(json.dumps(doc, default=float) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{model.name}: {model.source}")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    table.add_column("source", style="dim")
    for r in rows:
        table.add_row(r.label, _format_value(r.value, r.unit), r.source)
    given = ", ".join(
        p.flag if p.kind == "flag" else f"{p.flag} {v:g}" if isinstance(v, float) else f"{p.flag} {v}"
        for p in model.params
        if (v := inputs.get(p.name)) is not None and v is not False and p.kind != "durations"
    )
    console = Console()
    console.print(table)
    console.print(f"[dim]inputs (SI: bytes, seconds, bit/s): {given}[/dim]")


def register(app: typer.Typer) -> None:
    """Add the `model` and `plot-models` commands to the main app."""

    @app.command(
        "model",
        help=_MODEL_HELP,
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    )
    def model_command(
        ctx: typer.Context,
        name: Optional[str] = typer.Argument(None, help="Model name (see --list)."),
        list_: bool = typer.Option(False, "--list", help="List the models and their parameters."),
        json_out: bool = typer.Option(False, "--json", help="Print one JSON document instead of a table."),
    ) -> None:
        if list_:
            _print_list()
            return
        if name is None:
            _fail("missing model name (see tcplab model --list)")
        _run_model(name, list(ctx.args), json_out)

    @app.command("plot-models")
    def plot_models_command(
        out_dir: Path = typer.Option(Path("."), "--out-dir", help="Folder for the PNG files."),
        mss: str = typer.Option("1460", "--mss", help="Segment size (e.g. 1460, 1.5KB)."),
        rtt: str = typer.Option("100ms", "--rtt", help="Round-trip time."),
        rto: Optional[str] = typer.Option(None, "--rto", help="Retransmission timeout (default 3 x rtt)."),
    ) -> None:
        """Draw Parvez Fig. 4 (W against p for several q) and the models against p, as PNG."""
        from tcplab import units
        from tcplab.models import plots

        try:
            mss_b = units.parse_size(mss)
        except ValueError as e:
            _fail(f"--mss: {e}")
        try:
            rtt_s = units.parse_duration(rtt)
            rto_s = 3 * rtt_s if rto is None else units.parse_duration(rto)
        except ValueError as e:
            _fail(f"--rtt/--rto: {e}")
        if rtt_s <= 0 or rto_s <= 0 or mss_b <= 0:
            _fail("--mss, --rtt and --rto must be > 0")
        out_dir.mkdir(parents=True, exist_ok=True)
        fig4 = plots.plot_window_fig4(out_dir / "parvez_fig4_window.png")
        cmp_ = plots.plot_models_vs_p(out_dir / "models_vs_p.png", mss=mss_b, rtt=rtt_s, rto=rto_s)
        typer.echo(f"wrote {fig4}")
        typer.echo(f"wrote {cmp_}")
