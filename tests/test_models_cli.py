"""`tcplab model` and `tcplab plot-models` (registered on a fresh typer app)."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from tcplab.models import mathis
from tcplab.models.catalog import MODELS
from tcplab.models.cli import register


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    return app


def run(app, *args: str):
    return CliRunner().invoke(app, list(args))


def test_brief_example_forward(app) -> None:
    result = run(app, "model", "mathis", "--mss", "1460", "--rtt", "100ms", "--loss", "1%")
    assert result.exit_code == 0, result.output
    assert "1.431 Mbit/s" in result.output


def test_brief_example_inverse(app) -> None:
    result = run(
        app, "model", "mathis", "--inverse", "--mss", "536", "--rtt", "100ms", "--rate", "1Mbit/s", "--c", "1"
    )
    assert result.exit_code == 0, result.output
    assert "0.1839%" in result.output  # Mathis Sec. 7: "better than 0.18%"


def test_json_output_is_si(app) -> None:
    result = run(app, "model", "mathis", "--mss", "1.46KB", "--rtt", "100ms", "--loss=1e-2", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["inputs"] == {"mss": 1460, "rtt": 0.1, "loss": 0.01, "k": -0.5, "inverse": False}
    assert doc["outputs"]["throughput"] == pytest.approx(mathis.throughput(1460, 0.1, 0.01))
    assert doc["units"]["throughput"] == "bit/s"


@pytest.mark.parametrize(
    "args",
    [
        ["model", "pftk", "--rtt", "100ms", "--loss", "1%", "--wmax", "64KiB"],
        ["model", "newreno", "--rtt", "229ms", "--loss", "0.98%", "--packet-loss", "6.21%"],
        [
            "model",
            "multibottleneck",
            "--mu",
            "1.5Mbit/s",
            "--rtt",
            "560ms",
            "--b",
            "20",
            "--mu-prime",
            "2.2Mbit/s",
            "--b-prime",
            "15",
        ],
        ["model", "gateways", "--n", "4"],
        ["model", "jacobson", "--loss", "1%", "--window", "8", "--samples", "100ms,120ms", "--tick", "10ms"],
    ],
)
def test_every_model_runs_and_gives_json(app, args) -> None:
    result = run(app, *args)
    assert result.exit_code == 0, result.output
    result = run(app, *args, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["model"] == args[1]


def test_list_names_every_model_and_parameter(app) -> None:
    result = CliRunner().invoke(app, ["model", "--list"], terminal_width=200)
    assert result.exit_code == 0
    for model in MODELS.values():
        assert model.name in result.output
        for p in model.params:
            assert p.flag in result.output


def test_help_mentions_list_and_examples(app) -> None:
    result = run(app, "model", "--help")
    assert result.exit_code == 0
    assert "--list" in result.output and "--rtt 100ms" in result.output


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["model", "nosuch"], "unknown model 'nosuch'"),
        (["model", "mathis", "--rtt", "100ms", "--loss", "1%", "--bogus", "3"], "unknown parameter --bogus"),
        (["model", "mathis", "--rtt", "100x", "--loss", "1%"], '--rtt: "100x" is not a valid duration'),
        (["model", "mathis", "--rtt", "100ms", "--loss", "150%"], '--loss: "150%" is above 1'),
        (["model", "mathis", "--rtt", "100ms", "--loss", "0"], "--loss (p): 0 is outside (0, 1]"),
        (["model", "mathis", "--rtt", "0s", "--loss", "1%"], "--rtt: 0 is outside (0, inf)"),
        (["model", "mathis", "--rtt", "100ms"], "--loss: required"),
        (["model", "mathis", "--inverse", "--rtt", "100ms"], "--rate: required with --inverse"),
        (["model", "mathis", "--rtt", "100ms", "--loss"], "--loss: missing value"),
        (["model", "mathis", "--rtt", "1s", "--rtt", "2s", "--loss", "1%"], "--rtt given twice"),
        (
            ["model", "mathis", "--rtt", "1s", "--loss", "1%", "--rate", "1MB/s"],
            "byte rate, which is ambiguous",
        ),
        (["model", "newreno", "--rtt", "1s", "--loss", "2%", "--packet-loss", "1%"], "--packet-loss"),
        (["model", "gateways", "--n", "0"], "--n: 0 is outside"),
        (["model"], "missing model name"),
        (["model", "mathis", "--rtt", "1s", "--loss", "1%", "extra"], "unexpected extra argument"),
        (["model", "mathis", "--rtt", "1e400s", "--loss", "1%"], "--rtt: "),
    ],
)
def test_bad_input_is_one_clear_line(app, args, fragment: str) -> None:
    result = run(app, *args)
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: ")
    assert fragment in lines[0]
    assert "Traceback" not in result.output


def test_each_model_is_a_typer_command_with_its_parameters_in_help(app) -> None:
    for model in MODELS.values():
        result = CliRunner().invoke(app, ["model", model.name, "--help"], terminal_width=200)
        assert result.exit_code == 0, result.output
        for p in model.params:
            assert p.flag in result.output, (model.name, p.flag)
    import inspect

    from tcplab.models import cli

    assert "_parse_args" not in inspect.getsource(cli)  # typer parses argv, not a loop of our own


@pytest.mark.parametrize(
    "args",
    [
        [
            "model",
            "multibottleneck",
            "--mu",
            "1.5Mbit/s",
            "--rtt",
            "560ms",
            "--b",
            "20",
            "--mu-prime",
            "1.8Mbit/s",
            "--b-prime",
            "47.6",
        ],
        ["model", "newreno", "--rtt", "100ms", "--loss", "39%", "--q", "39%"],
        ["model", "pftk", "--rtt", "100ms", "--loss", "1e-300"],
        ["model", "mathis", "--rtt", "1ns", "--loss", "1e-300", "--mss", "1GiB"],
    ],
)
def test_json_is_json_without_nan_or_infinity(app, args) -> None:
    result = run(app, *args, "--json")
    if result.exit_code != 0:  # a domain error is one line, not JSON
        assert result.output.startswith("error: ") and len(result.output.strip().splitlines()) == 1
        return
    assert "NaN" not in result.output and "Infinity" not in result.output
    json.loads(result.output)  # strict: no NaN


def test_json_safe_turns_non_finite_numbers_into_null() -> None:
    import math

    import numpy as np

    from tcplab.models.cli import _json_safe

    doc = _json_safe(
        {
            "a": math.nan,
            "b": [math.inf, -math.inf, 1.5],
            "c": np.float64("nan"),
            "d": np.int64(3),
            "e": True,
            "f": "x",
        }
    )
    assert (
        json.dumps(doc, allow_nan=False)
        == '{"a": null, "b": [null, null, 1.5], "c": null, "d": 3.0, "e": true, "f": "x"}'
    )


def test_plot_models_writes_pngs(app, tmp_path) -> None:
    result = run(app, "plot-models", "--out-dir", str(tmp_path), "--rtt", "50ms")
    assert result.exit_code == 0, result.output
    for name in ("parvez_fig4_window.png", "models_vs_p.png"):
        data = (tmp_path / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_plot_models_bad_input(app, tmp_path) -> None:
    result = run(app, "plot-models", "--out-dir", str(tmp_path), "--rtt", "fast")
    assert result.exit_code == 2
    assert "error: --rtt" in result.output
