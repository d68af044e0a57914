"""`tcplab model` and `tcplab plot-models`: the analytic models on the command line."""

from __future__ import annotations

import inspect
import json
import math
import re
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer
from typer.core import TyperCommand, TyperGroup

from tcplab.cli.common import click_errors

_MODEL_HELP = """Evaluate an analytic model: tcplab model NAME [--param VALUE]... [--json].

Models: mathis, pftk, newreno, cubic, multibottleneck, gateways, jacobson, dctcp, scalable, dualq. Run `tcplab model --list` for each model's parameters, units and defaults.

Parameters take unit strings: --rtt 100ms, --loss 1% (or 0.01, 1e-3), --rate 1Mbit/s, --mss 1460 (bytes; also 1.5KB, 64KiB), --c 1. Values are converted to SI (bytes, seconds, bit/s).

\b
Examples:
  tcplab model mathis --mss 1460 --rtt 100ms --loss 1%
  tcplab model mathis --inverse --mss 536 --rtt 100ms --rate 1Mbit/s --c 1
  tcplab model newreno --rtt 229ms --loss 0.98% --mss 1448 --json
  tcplab model dctcp --capacity 10Gbit/s --rtt 100us --flows 10 --k 65
  tcplab model dualq --rtt 20ms --p-l 10%
"""


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


class _ModelCommand(TyperCommand):
    """A model's command: click's usage errors become one `error:` line naming the flag."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        from tcplab.models.catalog import MODELS

        assert self.name is not None  # every model command is built with its name
        model = MODELS[self.name]
        flags = ", ".join(p.flag for p in model.params)
        seen: set[str] = set()
        for token in args:
            flag = token.partition("=")[0]
            if flag.startswith("--") and model.param(flag[2:].replace("-", "_")) is not None:
                if flag in seen:
                    _fail(f"{flag} given twice")
                seen.add(flag)
        try:
            return super().parse_args(ctx, args)
        except click_errors.NoSuchOption as e:
            _fail(f"unknown parameter {e.option_name} for model {model.name} (expected {flags})")
        except click_errors.BadOptionUsage as e:
            _fail(
                f"{e.option_name}: missing value"
                if "requires an argument" in e.message
                else e.format_message()
            )
        except click_errors.UsageError as e:
            _fail(f"model {model.name}: {e.format_message()} (expected {flags})")


class _ModelGroup(TyperGroup):
    """`tcplab model`: one command per catalog model, built when the group is first used (the
    catalog imports numpy, which `tcplab --help` does without)."""

    _loaded = False

    def _load(self) -> None:
        if self._loaded:
            return
        import typer.main

        from tcplab.models.catalog import MODELS

        models = typer.Typer()

        @models.callback()
        def _group() -> None:  # a callback makes typer build a group even for one model
            pass

        for model in MODELS.values():
            models.command(model.name, cls=_ModelCommand)(_command(model))
        built = typer.main.get_command(models)
        for name in MODELS:
            self.add_command(built.commands[name], name)  # type: ignore[attr-defined]
        self._loaded = True

    def list_commands(self, ctx: Any) -> list[str]:
        self._load()
        return super().list_commands(ctx)

    def get_command(self, ctx: Any, cmd_name: str):
        self._load()
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: Any, args: list[str]):
        from tcplab.models.catalog import MODELS

        if args and not args[0].startswith("-") and args[0] not in MODELS:
            _fail(
                f"unknown model {args[0]!r} (expected one of: {', '.join(MODELS)}; see tcplab model --list)"
            )
        return super().resolve_command(ctx, args)


def _values(model, given: dict[str, Any]) -> dict[str, Any]:
    """The options typer parsed (text, or a bool for flags) as SI values keyed by parameter."""
    from tcplab.models.catalog import REQUIRED

    values: dict[str, Any] = {}
    for p in model.params:
        text = given.get(p.name)
        if p.kind == "flag":
            values[p.name] = bool(text)
        elif text is not None:
            try:
                values[p.name] = p.parse(text)
            except ValueError as e:
                _fail(f"{p.flag}: {e}")
        elif p.default is REQUIRED:
            _fail(f"{p.flag}: required for model {model.name} ({p.help})")
        else:
            values[p.name] = p.default
    return values


def _command(model):
    """A typer command for `model`, one option per parameter (unit strings parsed by
    `tcplab.models.catalog.Param.parse`)."""

    def command(**given: Any) -> None:
        as_json = given.pop("json_out")
        _run_model(model, _values(model, given), as_json)

    params = []
    annotations: dict[str, Any] = {}
    for p in model.params:
        if p.kind == "flag":
            default = typer.Option(False, p.flag, help=p.help)
            annotations[p.name] = bool
        else:
            default = typer.Option(
                None,
                p.flag,
                metavar=p.kind.upper(),
                show_default=False,
                help=f"{p.help} \\[{p.describe_default()}]",
            )
            annotations[p.name] = str | None
        params.append(
            inspect.Parameter(
                p.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotations[p.name]
            )
        )
    params.append(
        inspect.Parameter(
            "json_out",
            inspect.Parameter.KEYWORD_ONLY,
            default=typer.Option(
                False, "--json", help="Print one JSON document (SI units; NaN and infinities as null)."
            ),
            annotation=bool,
        )
    )
    annotations["json_out"] = bool
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]  # read by typer
    command.__annotations__ = annotations
    command.__doc__ = f"{model.summary} ({model.source})."
    return command


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
            return f"{label}{message[len(name) :]}"
    return message


def _format_value(value: Any, unit: str) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
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
        table.add_row(
            f"[bold cyan]{m.name}[/]", "", "", f"[cyan]{m.summary}[/] [dim]({m.source})[/]", end_section=False
        )
        for i, p in enumerate(m.params):
            table.add_row(
                "  " + p.flag, p.kind, p.describe_default(), p.help, end_section=i == len(m.params) - 1
            )
    Console().print(table)


def _json_safe(value: Any) -> Any:
    """Numbers as JSON numbers, NaN and infinities as null (JSON has neither)."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    try:
        x = float(value)
    except (TypeError, ValueError):
        return str(value)
    return x if math.isfinite(x) else None


def _given(model, inputs: dict[str, Any]) -> str:
    """The numeric inputs by flag, for an error message."""
    shown = [
        f"{p.flag} {v:g}"
        for p in model.params
        if isinstance(v := inputs.get(p.name), (int, float)) and not isinstance(v, bool)
    ]
    return "given " + ", ".join(shown) + " (expected inputs whose outputs a float holds)"


def _run_model(model, inputs: dict[str, Any], as_json: bool) -> None:
    import numpy as np

    try:
        # An overflow is an error, not numpy's warning and an infinite (or null) output.
        with np.errstate(over="raise"):
            rows = model.compute(inputs)
    except ValueError as e:
        _fail(_domain_message(model, str(e)))
    except (OverflowError, FloatingPointError) as e:
        _fail(f"model {model.name}: the inputs overflow a float ({e}); {_given(model, inputs)}")
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
        sys.stdout.write(json.dumps(_json_safe(doc), allow_nan=False) + "\n")
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

    model_app = typer.Typer(
        cls=_ModelGroup,
        help=_MODEL_HELP,
        invoke_without_command=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )

    @model_app.callback()
    def model_callback(
        ctx: typer.Context,
        list_: bool = typer.Option(False, "--list", help="List the models and their parameters."),
    ) -> None:
        if list_:
            _print_list()
            raise typer.Exit()
        if ctx.invoked_subcommand is None:
            _fail("missing model name (see tcplab model --list)")

    app.add_typer(model_app, name="model")

    @app.command("plot-models")
    def plot_models_command(
        out_dir: Path = typer.Option(Path("."), "--out-dir", help="Folder for the PNG files."),
        mss: str = typer.Option("1460", "--mss", help="Segment size (e.g. 1460, 1.5KB)."),
        rtt: str = typer.Option("100ms", "--rtt", help="Round-trip time."),
        rto: str | None = typer.Option(None, "--rto", help="Retransmission timeout (default 3 x rtt)."),
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
