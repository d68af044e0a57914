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
