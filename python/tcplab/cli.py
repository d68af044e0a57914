"""The `tcplab` command line: a thin typer app over the library."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="tcplab",
    help="A TCP congestion-control laboratory: simulate, model, sweep, compare.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register_subcommands() -> None:
    # Each area of the library registers its own commands; this module stays thin.
    from tcplab.models.cli import register as register_models

    register_models(app)


_register_subcommands()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
