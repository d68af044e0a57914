"""The package's layout as users meet it: old module paths keep working (with a DeprecationWarning),
`import tcplab` and the command line stay light, and no module takes another's private names."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "tcplab"

MOVED = [
    ("tcplab.capture_plots", "tcplab.capture.plots", "plot"),
    ("tcplab.run_plots", "tcplab.capture.run_plots", "flow_frames"),
    ("tcplab.trace_cli", "tcplab.capture.cli", "register"),
    ("tcplab.sweep_cli", "tcplab.sweep.cli", "register"),
    ("tcplab.ns2ref", "tcplab.validation.ns2ref", "compare"),
]


@pytest.mark.parametrize("old,new,name", MOVED)
def test_an_old_module_path_warns_and_is_the_new_module(old: str, new: str, name: str):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert callable(getattr(module, name))
    sys.modules.pop(old, None)
    parent, _, child = old.rpartition(".")
    vars(importlib.import_module(parent)).pop(child, None)  # what the first import left
    with pytest.warns(DeprecationWarning):
        exec(f"from {old.rpartition('.')[0]} import {old.rpartition('.')[2]} as m", {})


def test_old_names_of_the_sweep_module_still_resolve():
    import tcplab

    sw = tcplab.sweep  # no `import tcplab.sweep` first
    assert sw.load is importlib.import_module("tcplab.sweep.plan").load
    assert sw.run_sweep is importlib.import_module("tcplab.sweep.runner").run_sweep
    assert sw._uniform is sw.uniform and sw._warm is sw.warm
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        sw.nothing  # noqa: B018 -- the attribute access is the code under test (it raises)


def test_import_tcplab_then_attributes_load_the_subpackages():
    code = (
        "import sys, tcplab\n"
        "assert 'tcplab.sweep' not in sys.modules and 'polars' not in sys.modules\n"
        "s = tcplab.sweep.load('sweeps/mathis-fig4.toml')\n"
        "print(len(s.runs()), tcplab.results.Store.__name__, tcplab.models.mathis.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PACKAGE.parents[1])
    assert out.returncode == 0, out.stderr
    n, store, mathis = out.stdout.split()
    assert int(n) > 0 and store == "Store" and mathis == "tcplab.models.mathis"


HEAVY = ("polars", "numpy", "matplotlib", "duckdb", "pyarrow", "scipy", "dask", "distributed", "tcplab._core")


@pytest.mark.parametrize("statement", ["import tcplab", "import tcplab.cli", "from tcplab.cli import app"])
def test_the_command_line_imports_nothing_heavy(statement: str):
    code = f"import sys\n{statement}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"{statement} imported {out.stdout.strip()}"


def test_help_builds_every_command_without_heavy_imports():
    code = (
        "import sys\nfrom typer.testing import CliRunner\nfrom tcplab.cli import app\n"
        "r = CliRunner().invoke(app, ['--help'])\nassert r.exit_code == 0, r.output\n"
        "for group in ('sweep', 'trace', 'validate', 'reproduce', 'emulate', 'advise'):\n"
        "    r = CliRunner().invoke(app, [group, '--help'])\n    assert r.exit_code == 0, (group, r.output)\n"
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"--help imported {out.stdout.strip()}"


def test_a_model_command_imports_only_numpy_of_the_heavy_modules():
    # The models compute with numpy, and the units' grammar is the simulator's (tcplab._core
    # loads in about a millisecond). typer 0.29 would import pydantic to coerce the options:
    # pyproject.toml pins typer below it.
    code = (
        "import sys\nfrom typer.testing import CliRunner\nfrom tcplab.cli import app\n"
        "r = CliRunner().invoke(app, ['model', 'mathis', '--mss', '1460', '--rtt', '100ms', '--loss', '1%'])\n"
        "assert r.exit_code == 0, r.output\n"
        f"print(' '.join(m for m in {HEAVY + ('pydantic',)!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert set(out.stdout.split()) <= {"numpy", "tcplab._core"}, f"tcplab model imported {out.stdout.strip()}"


def test_a_validation_program_refuses_an_unknown_option_in_one_line():
    # `python -m tcplab.validation.red` runs a typer command on its own: typer's usage errors
    # (its own copy of click's) end as click's do, without a traceback.
    out = subprocess.run(
        [sys.executable, "-m", "tcplab.validation.red", "--no-such-option"], capture_output=True, text=True
    )
    assert out.returncode == 2, out.stderr
    assert "No such option" in out.stderr and "Traceback" not in out.stderr, out.stderr


def _python_files():
    return sorted(p for p in PACKAGE.rglob("*.py"))


def test_no_module_imports_another_modules_private_names():
    found = []
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tcplab"):
                found += [
                    f"{path.relative_to(PACKAGE)}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__") and a.name != "_core"
                ]
    assert not found, found


def test_no_source_file_is_over_about_600_lines():
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in _python_files()
        if (n := len(p.read_text().splitlines())) > 620
    }
    assert not long, long


def test_python_m_entry_points_still_run():
    for module in (
        "tcplab.ns2ref",
        "tcplab.validation.ns2ref",
        "tcplab.validation.mathis_table4",
        "tcplab.validation.red",
        "tcplab.emulate.validate",
        "tcplab.cli",
    ):
        out = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True)
        assert out.returncode == 0, (module, out.stderr)
        assert "Usage:" in out.stdout, (module, out.stdout)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.import_module("tcplab.validation.cli")
