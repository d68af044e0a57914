"""Parse quantities written with units into SI numbers.

One grammar, shared with the Rust scenario parser; ``tests/data/unit_vectors.json`` is the
single source of truth for it and both implementations are tested against that file.

Grammar (case-sensitive, ASCII only)::

    quantity := WS* number WS* unit? WS*
    number   := DIGITS ( "." DIGITS )? ( ("e" | "E") ("+" | "-")? DIGITS )?
    DIGITS   := [0-9]+

* No sign: a leading ``-`` is an error (negative), a leading ``+`` is an error too.
* No bare fractions: ``.5`` and ``1.`` are errors (write ``0.5`` and ``1``).
* ``inf``, ``nan``, hexadecimal, ``_`` separators: errors.
* A number without a unit means the SI base unit of the kind (seconds, bit/s, bytes) or a
  plain probability.

Units by kind:

========== =====================================================================
duration   ``ns`` 1e-9, ``us`` 1e-6, ``ms`` 1e-3, ``s`` 1  -> seconds
rate       ``bit/s`` / ``bps`` 1, ``kbit/s`` ``Kbit/s`` ``kbps`` ``Kbps`` 1e3,
           ``Mbit/s`` ``Mbps`` 1e6, ``Gbit/s`` ``Gbps`` 1e9 -> bit/s (SI, 1000-based).
           Byte rates (``B/s``, ``MB/s``, ``Bps``, ``MBps``...) are rejected as ambiguous.
size       ``B`` 1, ``kB`` ``KB`` 1e3, ``MB`` 1e6, ``GB`` 1e9, ``KiB`` 1024,
           ``MiB`` 1024**2, ``GiB`` 1024**3 -> bytes; the result must be a whole
           number of bytes (``0.5B`` and ``0.1KiB`` are errors).
probability ``%`` 1e-2, or no unit -> a number in [0, 1]; above 1 is an error.
========== =====================================================================

Values are computed exactly (decimal fractions) and converted to float once, so
``0.1KB`` is exactly 100 bytes. Every error is a :class:`ValueError` whose message holds the
text and the expected form.
"""

from __future__ import annotations

import re
from fractions import Fraction

__all__ = [
    "DURATION_UNITS",
    "RATE_UNITS",
    "SIZE_UNITS",
    "parse_duration",
    "parse_probability",
    "parse_quantity",
    "parse_rate",
    "parse_size",
]

_NUMBER = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*(\S*?)\s*")

DURATION_UNITS: dict[str, Fraction] = {
    "": Fraction(1),
    "ns": Fraction(1, 10**9),
    "us": Fraction(1, 10**6),
    "ms": Fraction(1, 10**3),
    "s": Fraction(1),
}

_RATE_PREFIXES = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9}
RATE_UNITS: dict[str, Fraction] = {"": Fraction(1)}
RATE_UNITS.update({p + u: Fraction(m) for p, m in _RATE_PREFIXES.items() for u in ("bit/s", "bps")})

SIZE_UNITS: dict[str, Fraction] = {
    "": Fraction(1),
    "B": Fraction(1),
    "kB": Fraction(10**3),
    "KB": Fraction(10**3),
    "MB": Fraction(10**6),
    "GB": Fraction(10**9),
    "KiB": Fraction(2**10),
    "MiB": Fraction(2**20),
    "GiB": Fraction(2**30),
}

PROBABILITY_UNITS: dict[str, Fraction] = {"": Fraction(1), "%": Fraction(1, 100)}

_EXPECTED = {
    "duration": "a number with an optional unit ns, us, ms or s, e.g. '100ms'",
    "rate": "a number with an optional unit bit/s, bps, kbit/s, kbps, Mbit/s, Mbps, Gbit/s "
    "or Gbps, e.g. '1Mbit/s' (byte rates are not accepted)",
    "size": "a whole number of bytes with an optional unit B, kB, KB, MB, GB, KiB, MiB or GiB, "
    "e.g. '1460' or '64KiB'",
    "probability": "a number in [0, 1] or a percentage in [0%, 100%], e.g. '0.01', '1e-3' or '1%'",
}

_UNITS = {
    "duration": DURATION_UNITS,
    "rate": RATE_UNITS,
    "size": SIZE_UNITS,
    "probability": PROBABILITY_UNITS,
}


def _exact(text: str, kind: str) -> Fraction:
    """Parse ``text`` as a quantity of ``kind`` and return its exact SI value."""
    expected = _EXPECTED[kind]
    if not isinstance(text, str):
        raise ValueError(f"{text!r} is not a {kind}: expected {expected}")
    stripped = text.strip()
    if not stripped:
        raise ValueError(f"empty {kind}: expected {expected}")
    if stripped[0] == "-":
        raise ValueError(f"{text!r} is negative: expected {expected}")
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a {kind}: expected {expected}")
    number, unit = match.groups()
    units = _UNITS[kind]
    if unit not in units:
        hint = ""
        if kind == "rate" and ("B" in unit or unit.endswith("Bps")):
            hint = " (byte rates are ambiguous; write bit/s)"
        raise ValueError(f"{text!r} has unknown {kind} unit {unit!r}{hint}: expected {expected}")
    mantissa, _, exponent = number.replace("E", "e").partition("e")
    value = Fraction(mantissa) * units[unit]
    if exponent:
        value *= Fraction(10) ** int(exponent)
    return value


def parse_quantity(text: str, kind: str) -> float:
    """Parse ``text`` as ``kind`` ('duration', 'rate', 'size' or 'probability')."""
    parsers = {
        "duration": parse_duration,
        "rate": parse_rate,
        "size": parse_size,
        "probability": parse_probability,
    }
    if kind not in parsers:
        raise ValueError(f"unknown quantity kind {kind!r}: expected one of {sorted(parsers)}")
    return float(parsers[kind](text))


def parse_duration(text: str) -> float:
    """Parse a duration ('100ms', '1.5 s', '250us', '20ns', '0.1') into seconds."""
    return float(_exact(text, "duration"))


def parse_rate(text: str) -> float:
    """Parse a bit rate ('1Mbit/s', '10 Mbps', '56kbps', '1e6') into bit/s (1000-based)."""
    return float(_exact(text, "rate"))


def parse_size(text: str) -> int:
    """Parse a size ('1460', '1460B', '64KiB', '1.5KB') into a whole number of bytes."""
    value = _exact(text, "size")
    if value.denominator != 1:
        raise ValueError(f"{text!r} is not a whole number of bytes: expected {_EXPECTED['size']}")
    return int(value)


def parse_probability(text: str) -> float:
    """Parse a probability ('1%', '0.01', '1e-3') into a float in [0, 1]."""
    value = _exact(text, "probability")
    if value > 1:
        raise ValueError(f"{text!r} is above 1 (100%): expected {_EXPECTED['probability']}")
    return float(value)
