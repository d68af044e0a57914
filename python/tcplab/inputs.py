"""Reading the files a user names (scenarios, sweeps, their base scenarios): at most
`MAX_INPUT_BYTES`, so an endless or enormous file (`/dev/zero`, a capture given by mistake) is one
error line, not a MemoryError (docs/limits.md)."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

#: The largest scenario or sweep file read: 64 MiB, room for a graph of about a million links.
MAX_INPUT_BYTES = 64 * 2**20


class InputTooLarge(ValueError):
    """A file or stream past `MAX_INPUT_BYTES`."""


def too_large() -> InputTooLarge:
    return InputTooLarge(
        f"larger than {MAX_INPUT_BYTES // 2**20} MiB (expected a TOML file of at most "
        f"{MAX_INPUT_BYTES:,} bytes; is it the right file?)"
    )


def read_stream(stream: BinaryIO) -> bytes:
    """At most `MAX_INPUT_BYTES` of `stream`; `InputTooLarge` if there is more."""
    data = stream.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise too_large()
    return data


def read_bytes(path: str | Path) -> bytes:
    """A file's bytes, at most `MAX_INPUT_BYTES` (OSError as `open` raises it)."""
    with open(path, "rb") as f:
        return read_stream(f)


def read_text(path: str | Path) -> str:
    """A file as UTF-8 text, at most `MAX_INPUT_BYTES` (UnicodeDecodeError if it is not)."""
    return read_bytes(path).decode("utf-8")


def shipped_copy(path: str | Path) -> tuple[str, Path | None]:
    """For a `scenarios/papers/<paper>/<file>` path: where the package's own copy of the paper
    scenarios (tcplab/reproduce/scenarios/) has that file, as text for messages and as a path if
    it is there; ("", None) for any other path."""
    parts = Path(path).parts
    at = next((i for i in range(len(parts) - 2) if parts[i : i + 2] == ("scenarios", "papers")), None)
    if at is None:
        return "", None
    # The package's folder without importing tcplab.reproduce (and what it imports).
    shipped = Path(__file__).parent.joinpath("reproduce", "scenarios", *parts[at + 2 :])
    return str(shipped), shipped if shipped.is_file() else None


def read_scenario_bytes(path: str | Path) -> bytes:
    """A scenario file's bytes (`read_bytes`); a `scenarios/papers/<paper>/<file>` that is not
    there (outside a checkout) is read from the copy the package ships, so the paths the
    reproduction report names work from any folder (`tcplab run`, `tcplab check`,
    `tcplab.run`). FileNotFoundError when neither exists: `not_found` says so."""
    try:
        return read_bytes(path)
    except FileNotFoundError:
        _, shipped = shipped_copy(path)
        if shipped is None:
            raise
        return read_bytes(shipped)


def not_found(path: str | Path, what: str = "scenario file") -> str:
    """The message for a scenario file that is not there, naming the package's copy that was
    also looked in (a `scenarios/papers/...` path)."""
    where, _ = shipped_copy(path)
    return f"no such {what}" + (f" (nor in the package's copy of scenarios/papers: {where})" if where else "")
