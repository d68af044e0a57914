"""`tcplab.units` (the simulator's parser, through the binding) against the shared vector file."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tcplab import units

VECTORS = json.loads((Path(__file__).parent / "data" / "unit_vectors.json").read_text())
PARSERS = {
    "duration": units.parse_duration,
    "rate": units.parse_rate,
    "size": units.parse_size,
    "probability": units.parse_probability,
}


def _id(vector: dict) -> str:
    return f"{vector['kind']}:{vector['text']!r}"


def test_vector_file_is_well_formed() -> None:
    assert 50 <= len(VECTORS) <= 80
    seen = set()
    for vector in VECTORS:
        assert vector["kind"] in PARSERS
        assert isinstance(vector["text"], str)
        assert ("value" in vector) != (vector.get("error") is True), vector
        key = (vector["kind"], vector["text"])
        assert key not in seen, f"duplicate vector {key}"
        seen.add(key)
    # Every kind has both accepted and rejected examples.
    for kind in PARSERS:
        kinds = [v for v in VECTORS if v["kind"] == kind]
        assert any("value" in v for v in kinds) and any(v.get("error") for v in kinds), kind


@pytest.mark.parametrize("vector", VECTORS, ids=_id)
def test_vector(vector: dict) -> None:
    parse = PARSERS[vector["kind"]]
    if vector.get("error"):
        with pytest.raises(ValueError):
            parse(vector["text"])
    else:
        got = parse(vector["text"])
        assert math.isclose(got, vector["value"], rel_tol=1e-12, abs_tol=0.0), (got, vector)


def test_size_is_an_int() -> None:
    assert units.parse_size("64KiB") == 65536
    assert isinstance(units.parse_size("1.5KB"), int)


def test_exact_decimal_arithmetic() -> None:
    # 0.1 * 1000 is not 100 in binary floating point; the parser is exact.
    assert units.parse_size("0.1KB") == 100
    assert units.parse_duration("0.3s") == 0.3


@pytest.mark.parametrize(
    ("parse", "text", "fragment"),
    [
        (units.parse_duration, "-5ms", "negative"),
        (units.parse_duration, "5min", '"5min" is not a valid duration'),
        (units.parse_rate, "1MB/s", "byte rate, which is ambiguous"),
        (units.parse_size, "0.5B", "whole number of bytes"),
        (units.parse_probability, "150%", "above 1"),
        (units.parse_probability, "", "not a valid probability"),
    ],
)
def test_error_messages_name_the_text_and_the_form(parse, text, fragment) -> None:
    with pytest.raises(ValueError) as info:
        parse(text)
    message = str(info.value)
    assert fragment in message
    assert "expected" in message


def test_there_is_one_parser_the_simulators() -> None:
    import inspect

    from tcplab import _core

    source = inspect.getsource(units)
    assert "_core.parse_quantity" in source and "re.compile" not in source and "Fraction" not in source
    for text in ("0.1KB", "1e-3", "64KiB"):
        assert units.parse_size(text) if text != "1e-3" else True
    assert units.parse_rate("10Mbit/s") == _core.parse_quantity("rate", "10Mbit/s") == 1e7
    with pytest.raises(ValueError, match="not a duration"):
        units.parse_duration(5)  # type: ignore[arg-type]


def test_parse_quantity_dispatches_and_rejects_unknown_kind() -> None:
    assert units.parse_quantity("100ms", "duration") == 0.1
    with pytest.raises(ValueError):
        units.parse_quantity("1", "colour")
