"""Tables for the terminal that stay readable at 80 columns and when piped.

A table is printed as a rich table without vertical borders when it fits the console's width
(a pipe or a log, with no COLUMNS, takes every table whole); cells never wrap. When it
does not fit a terminal, it is printed vertically instead, one block of `header: value` lines per row, so
a number is never cut or split across lines.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

__all__ = ["Column", "num", "print_table", "render"]


@dataclass(frozen=True)
class Column:
    header: str  # may hold one "\n": a name line and a unit line
    left: bool = False  # left-aligned (names), else right-aligned (numbers)


@dataclass
class _Spec:
    title: str | None
    columns: Sequence[Column]
    rows: list[list[str]] = field(default_factory=list)
    caption: str | None = None


def num(x: Any, fmt: str) -> str:
    """A number formatted, or "-" for None and NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x, fmt)


def render(
    title: str | None, columns: Sequence[Column], rows: Sequence[Sequence[str]], caption: str | None = None
) -> Table:
    t = Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1, 0, 0),
        caption=caption,
        caption_justify="left",
        show_edge=False,
    )
    for c in columns:
        t.add_column(c.header, justify="left" if c.left else "right", no_wrap=True)
    for r in rows:
        t.add_row(*r)
    return t


def print_table(
    console: Console,
    title: str | None,
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    caption: str | None = None,
) -> None:
    """Prints a table that fits the console, or the same rows vertically when it does not. A
    pipe or a log (no terminal, no COLUMNS) has no width: its tables are always whole."""
    import os

    table = render(title, columns, rows, caption=None)
    width = console.measure(table, options=console.options.update_width(10**6)).maximum
    piped = not console.is_terminal and "COLUMNS" not in os.environ
    if width <= console.width or piped:
        out = console if width <= console.width else Console(file=console.file, width=width)
        out.print(table)
        if caption:
            console.print(caption, highlight=False)
        return
    if title:
        console.print(f"[italic]{title}[/italic]")
    names = [c.header.replace("\n", " ") for c in columns]
    pad = max(len(n) for n in names)
    for i, r in enumerate(rows):
        if i:
            console.print()
        for name, value in zip(names, r, strict=False):  # a short row, as rich pads it
            console.print(f"  {name:<{pad}}  {value}", highlight=False, soft_wrap=True)
    if caption:
        console.print(caption, highlight=False)
