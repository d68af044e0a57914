"""Shared fixtures: the repository root and a runner for the installed `tcplab` command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def root() -> Path:
    return ROOT


def run_cli(*args: str, timeout: float = 120, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Runs `python -m tcplab.cli ARGS` (the same entry point as the `tcplab` script)."""
    env = dict(os.environ, COLUMNS="160")
    return subprocess.run(
        [sys.executable, "-m", "tcplab.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd or ROOT,
        env=env,
    )


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(scope="session")
def reproduced_quick(tmp_path_factory):
    """`tcplab reproduce all --quick` once per test session (one worker), as the CLI runs it:
    (exit code, stdout, stderr, output folder). The Table 4 and regeneration tests read it."""
    out = tmp_path_factory.mktemp("reproduce") / "quick"
    # --keep-traces: the resumption tests re-run it and expect no simulation to run again.
    proc = run_cli(
        "reproduce",
        "all",
        "--quick",
        "--out",
        str(out),
        "--workers",
        "1",
        "--no-progress",
        "--keep-traces",
        timeout=1800,
    )
    return proc.returncode, proc.stdout, proc.stderr, out


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the xdist_group markers
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (`make test`: `-n auto --dist loadgroup`) a session fixture is made once
    per worker. The tests that read `reproduced_quick` form one group, so one worker makes it once;
    they are moved to the front (keeping their order), so that worker starts on the longest
    piece while the others share the rest. Without xdist the marker does nothing."""
    group = [item for item in items if "reproduced_quick" in getattr(item, "fixturenames", ())]
    for item in group:
        item.add_marker(pytest.mark.xdist_group("reproduced_quick"))
    rest = [item for item in items if not any(item is g for g in group)]
    items[:] = group + rest
