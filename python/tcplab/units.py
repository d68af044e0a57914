"""Quantities written with units ("100ms", "10Mbit/s", "64KiB", "1%") as SI numbers.

There is one parser of this grammar, the simulator's (`crates/tcplab-sim/src/time.rs`), which
reads scenario files; the binding exposes it as `tcplab._core.parse_quantity` and this module
names its four kinds. ``tests/data/unit_vectors.json`` is the grammar's list of accepted and
rejected examples, tested against it from Rust and from Python.

duration     ``ns``, ``us``, ``ms``, ``s``                    -> seconds (float)
rate         ``bit/s`` ``kbit/s`` ``Mbit/s`` ``Gbit/s`` (or ``bps`` ``kbps`` ``Mbps`` ``Gbps``)
             -> bit/s (1000-based); byte rates are rejected as ambiguous
size         ``B``, ``kB``/``KB``, ``MB``, ``GB``, ``KiB``, ``MiB``, ``GiB``  -> whole bytes (int)
probability  ``%`` or no unit, in [0, 1]                      -> float

A number without a unit is the SI base unit of its kind. Every error is a ValueError whose
message quotes the text and says what was expected.
"""

from __future__ import annotations

__all__ = ["KINDS", "parse_duration", "parse_probability", "parse_quantity", "parse_rate", "parse_size"]

KINDS = ("duration", "rate", "size", "probability")


def parse_quantity(text: str, kind: str) -> float:
    """Parse ``text`` as ``kind`` ('duration', 'rate', 'size' or 'probability')."""
    from tcplab import _core

    if kind not in KINDS:
        raise ValueError(f"unknown quantity kind {kind!r}: expected one of {', '.join(KINDS)}")
    if not isinstance(text, str):
        raise ValueError(
            f"{text!r} is not a {kind}: expected a string such as '100ms', '10Mbit/s', '64KiB' or '1%'"
        )
    return _core.parse_quantity(kind, text)


def parse_duration(text: str) -> float:
    """Parse a duration ('100ms', '1.5 s', '250us', '20ns', '0.1') into seconds."""
    return parse_quantity(text, "duration")


def parse_rate(text: str) -> float:
    """Parse a bit rate ('1Mbit/s', '10 Mbps', '56kbps', '1e6') into bit/s (1000-based)."""
    return parse_quantity(text, "rate")


def parse_size(text: str) -> int:
    """Parse a size ('1460', '1460B', '64KiB', '1.5KB') into a whole number of bytes."""
    return int(parse_quantity(text, "size"))


def parse_probability(text: str) -> float:
    """Parse a probability ('1%', '0.01', '1e-3') into a float in [0, 1]."""
    return parse_quantity(text, "probability")
