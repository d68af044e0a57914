"""What every `tcplab` command shares: one way to fail, Ctrl-C, `--set` parsing, atomic writes,
and the scenario argument. Only typer (and the standard library) at import: `tcplab --help`
starts without the heavy modules."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import typer
from typer._click import exceptions as click_errors

__all__ = ["click_errors"]  # the click exceptions typer raises (its own copy of click)

#: What a Ctrl-C during a run says (exit status 130, as a shell's).
INTERRUPTED = "interrupted (Ctrl-C): the run stopped, nothing was written"


def fail(message: str) -> NoReturn:
    """One clear line on stderr and a non-zero exit: no traceback."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def interrupted(message: str = INTERRUPTED) -> NoReturn:
    """Ctrl-C: one line on stderr and exit status 130 (not click's "Aborted!")."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(130)


class _CtrlC:
    seen = False


def _on_sigint(signum: int, frame: object) -> None:
    _CtrlC.seen = True
    raise KeyboardInterrupt


def remember_ctrl_c() -> None:
    """From now on a Ctrl-C is remembered as well as raised. Python drops a KeyboardInterrupt
    raised inside some steps of an import ("Exception ignored in ... _get_module_lock"), and a
    run interrupted while its modules load went on as if nothing happened; `ctrl_c_seen` still
    knows. (The `tcplab` script calls this first; the main thread only.)"""
    signal.signal(signal.SIGINT, _on_sigint)


def ctrl_c_seen() -> bool:
    """Whether a Ctrl-C came since `remember_ctrl_c`, even one whose KeyboardInterrupt was lost."""
    return _CtrlC.seen


@contextmanager
def ctrl_c(message: str = INTERRUPTED) -> Iterator[None]:
    """Turns a KeyboardInterrupt inside the block into `interrupted(message)`."""
    try:
        yield
    except KeyboardInterrupt:
        interrupted(message)


def parse_sets(sets: list[str], example: str = "flows.0.tcp=tahoe") -> list[tuple[str, str]]:
    """`--set dotted.path=value` options as (path, value) pairs, in order."""
    out = []
    for s in sets:
        key, eq, value = s.partition("=")
        if not eq or not key.strip():
            fail(f"--set {s!r}: expected dotted.path=value, e.g. --set {example}")
        out.append((key.strip(), value.strip()))
    return out


def seconds_option(text: str | None, flag: str) -> float | None:
    """A duration option (`--from 20s`) in seconds, None when not given; a bare number or a
    malformed duration is one error line naming the flag."""
    if text is None:
        return None
    from tcplab import units

    try:
        float(text)
    except ValueError:
        pass
    else:
        fail(f"{flag} {text}: no unit (write a duration with its unit, e.g. 10s or 500ms)")
    try:
        return units.parse_duration(text)
    except ValueError as e:
        fail(f"{flag}: {e}")


def check_output(path: Path, flag: str) -> None:
    """Fails with one line unless `path` can be written, before any work starts: the folder it
    goes in (the nearest one that exists, or `path` itself when it is a folder) must take a new
    entry, which is tried by making and removing a temporary folder there (permissions alone do
    not say it: root may "write" /proc, whose entries cannot be made)."""
    where = path.absolute()
    if not where.is_dir():
        where = where.parent
        while not where.exists():
            where = where.parent
    if not where.is_dir():
        fail(f"{flag} {path}: cannot write here ({where} is not a directory)")
    try:
        os.rmdir(tempfile.mkdtemp(dir=where, prefix=".tcplab-probe-"))
    except OSError as e:
        fail(f"{flag} {path}: cannot write here ({e.strerror or e}: {where})")


def write_atomically(path: Path, write: Callable[[str], object]) -> None:
    """Writes through a temporary file in the same folder, then renames: never a partial file.
    The file gets the permissions of any new file (0666 less the umask), not mkstemp's 0600."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        fail(f"{path}: cannot write here ({e.strerror or e}: {e.filename or path.parent})")
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)
        write(tmp)
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        fail(f"{path}: cannot write ({e.strerror or e})")
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_scenario_arg(scenario: str) -> tuple[str | Path, str]:
    """The scenario argument as what `tcplab.run` takes, and how messages name it: a path, or
    `-` for TOML text on standard input."""
    if scenario != "-":
        return Path(scenario), scenario
    from tcplab.inputs import InputTooLarge, read_stream

    try:
        text = read_stream(sys.stdin.buffer).decode("utf-8")
    except InputTooLarge as e:
        fail(f"<stdin>: {e}")
    except UnicodeDecodeError:
        fail("<stdin>: the scenario is not UTF-8 text")
    if not text.strip():
        fail("<stdin>: no scenario on standard input (expected TOML text)")
    return text if "\n" in text else text + "\n", "<stdin>"
