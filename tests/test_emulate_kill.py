"""`tcplab emulate` killed outright (SIGKILL: no handler runs): what it leaves on the machine,
and that the next run removes it. Skipped, with the reason, without root, /dev/net/tun or the
ip command (docs/emulation.md, "Safe on a shared machine")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT
from tcplab.emulate import netns

MISSING = netns.missing_requirements()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")

SCENARIO = """
duration = "{duration}"
warmup = "0.5s"
[network.path]
hops = [{{ rate = "10Mbit/s", delay = "10ms", queue = {{ limit = 30 }} }}]
[[flows]]
profile = "linux"
count = 2
"""


def _namespaces(pid: int) -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return sorted(n.split()[0] for n in out.splitlines() if n.startswith(f"{netns.PREFIX}{pid}-"))


def _devices(ns: str | None) -> list[str]:
    """The TUN devices of the emulator (tls<i>, tlr<i>) in namespace `ns` (None: the machine's)."""
    where = ["-n", ns] if ns else []
    out = subprocess.run(["ip", *where, "-o", "link", "show"], capture_output=True, text=True).stdout
    names = [line.split(":")[1].strip().split("@")[0] for line in out.splitlines() if ":" in line]
    return [n for n in names if n.startswith(("tls", "tlr"))]


def _folders(pid: int) -> list[Path]:
    return list(Path(tempfile.gettempdir()).glob(f"{netns.TMP_PREFIX}{pid}-*"))


def test_a_killed_run_leaves_namespaces_and_its_folder_and_the_next_run_removes_them(tmp_path):
    from tcplab.emulate import emulate

    long = tmp_path / "long.toml"
    long.write_text(SCENARIO.format(duration="60s"))
    p = subprocess.Popen(
        [sys.executable, "-m", "tcplab.cli", "emulate", str(long)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while len(_namespaces(p.pid)) < 4 or not _folders(p.pid):
            assert time.monotonic() < deadline and p.poll() is None, "the run never created its namespaces"
            time.sleep(0.1)
        time.sleep(1.0)  # running: the flows are sending
        with_devices = {ns: _devices(ns) for ns in _namespaces(p.pid)}
        assert sorted(d for ds in with_devices.values() for d in ds) == ["tlr0", "tlr1", "tls0", "tls1"]
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
    assert p.returncode == -signal.SIGKILL
    # Left behind: its four namespaces (each holding its sysctls and routes) and the temporary
    # folder of its capture. Not left: the TUN devices, gone with the killed process's
    # descriptors (they are not persistent), here or in the machine's own namespace.
    left = _namespaces(p.pid)
    assert left == sorted(with_devices)
    assert all(_devices(ns) == [] for ns in left)
    assert _devices(None) == []
    folders = _folders(p.pid)
    assert len(folders) == 1 and folders[0].is_dir()
    # The next run removes them, and says so.
    short = tmp_path / "short.toml"
    short.write_text(SCENARIO.format(duration="1.5s"))
    r = emulate(short)
    assert _namespaces(p.pid) == [] and _folders(p.pid) == []
    # (A count at least ours: a run killed on this machine by someone else counts as well.)
    said = {w.split()[2]: int(w.split()[1]) for w in r.warnings if w.startswith("removed ")}
    assert said["namespace(s)"] >= len(left) and said["temporary"] >= 1
    assert _namespaces(os.getpid()) == [] and _folders(os.getpid()) == []
