"""Planning a sweep in bounded memory (`Sweep.plan`): the runs, keys and order of `Sweep.runs`,
runs already stored left out, and a plan whose memory does not follow the run count."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tcplab import sweep as sw

ROOT = Path(__file__).resolve().parents[1]
BASE = (ROOT / "scenarios" / "queueless-random-loss.toml").as_posix()

#: Repeated values (runs that resolve alike), a per-point draw, an integer draw with a unit,
#: and replicate seeds: every way the expansion orders and drops runs.
MIXED = f"""
[sweep]
seed = 4
base = "{BASE}"
seeds = [1, 2]
[[axis]]
path = "flows.0.mss"
values = [536, 1460, 536, 4312]
[[axis]]
path = "network.path.hops.0.loss.p"
log_uniform = [1e-3, 0.1]
count = 3
draw = "per-point"
[[axis]]
path = "network.path.hops.0.delay"
uniform = [1, 50]
unit = "ms"
integer = true
count = 2
"""

#: SHA-256 of each run's index and settings (in order, one JSON line per run) of
#: sweeps/mathis-fig4.toml and of MIXED, as planned by the list of resolved runs that
#: `Sweep.plan` replaced: the plan must not move them. (The run keys themselves hash the
#: resolved scenario, so every new scenario field with a default moves them; the test below
#: checks them against `Sweep.runs` instead.)
PINNED = {
    "fig4": "704d1e8585d43b93d33c87c9d40cef22135b38839a0e43df1b86e0afc94bf0e2",
    "mixed": "04fb06eabe013d195e9272118e7a3618996c1676f2ac4bcd39a571f34777a2c1",
}


def _digest(runs) -> str:
    text = "".join(json.dumps([r.index, r.sets], sort_keys=True) + "\n" for r in runs)
    return hashlib.sha256(text.encode()).hexdigest()


def _sweeps() -> dict[str, sw.Sweep]:
    return {"fig4": sw.load(ROOT / "sweeps" / "mathis-fig4.toml"), "mixed": sw.parse(MIXED, "mixed.toml")}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_the_plan_has_the_runs_keys_and_order_of_the_list(name):
    spec = _sweeps()[name]
    runs = spec.runs()
    plan = spec.plan()
    assert plan.total == len(runs) and plan.stored == 0 and plan.todo_count == len(runs)
    assert list(plan.keys()) == [r.key for r in runs]
    todo = list(plan.todo())
    assert [(r.index, r.key, r.sets) for r in todo] == [(r.index, r.key, r.sets) for r in runs]
    assert [r.resolved for r in todo] == [r.resolved for r in runs]
    assert _digest(todo) == PINNED[name]


def test_the_mixed_sweep_drops_the_runs_that_resolve_alike():
    spec = sw.parse(MIXED, "mixed.toml")
    assert len(list(spec.candidates())) == 4 * 3 * 2 * 2  # mss x per-point p x delay x seeds
    # 536 twice: the same point, so the same per-point draws and the same scenarios
    assert spec.plan().total == 3 * 3 * 2 * 2


def test_stored_runs_are_left_out_in_order_and_counted():
    spec = sw.parse(MIXED, "mixed.toml")
    runs = spec.runs()
    plan = spec.plan()
    stored = {r.key for r in runs[::3]}
    plan.skip([*stored, "not a key", "0" * 32, "zz" * 16])  # strangers are ignored
    assert plan.stored == len(stored) and plan.todo_count == len(runs) - len(stored)
    todo = list(plan.todo())
    assert [(r.index, r.key) for r in todo] == [(r.index, r.key) for r in runs if r.key not in stored]
    plan.skip(r.key for r in runs)
    assert plan.stored == plan.total and list(plan.todo()) == []


def test_a_bad_run_is_named_before_anything_runs():
    spec = sw.parse(
        f'[sweep]\nbase = "{BASE}"\n[[axis]]\npath = "flows.0.mss"\nvalues = [536, 1460]\n'
        '[[axis]]\npath = "network.path.hops.0.loss.p"\nvalues = [0.01, 0.5]\n',
        "bad.toml",
    )
    spec.axes[1] = sw.Axis(spec.axes[1].label, "values", spec.axes[1].paths, values=((0.01,), (-1.0,)))
    with pytest.raises(
        sw.SweepError, match=r"bad.toml: run with flows.0.mss=536, network.path.hops.0.loss.p=-1.0"
    ):
        spec.plan()


PEAK_OF_A_PLAN = """
import sys, tracemalloc
from tcplab import sweep as sw
import tcplab.sweep.stream  # numpy, imported before the measurement

def spec(replicates):
    return sw.parse(
        f'[sweep]\\nbase = "{sys.argv[1]}"\\nreplicates = {replicates}\\n'
        '[[axis]]\\npath = "flows.0.mss"\\nvalues = [536, 1460]\\n',
        "many.toml",
    )

spec(2).plan()  # the simulator's and the store's modules, imported on the first run
many = spec(int(sys.argv[2]))
tracemalloc.start()
plan = many.runs() if sys.argv[3] == "list" else many.plan()
print(tracemalloc.get_traced_memory()[1])
"""


@pytest.mark.parametrize("how", ["plan", "list"])
def test_the_plans_memory_does_not_follow_the_run_count(how):
    """The peak of planning 2,000 runs in a fresh interpreter: the keys and flags (16 bytes and
    two flag bytes a run, and their sort) and one run's scenario at a time, within 4 MB (the
    interpreter's own tables may grow once meanwhile; measured: about 170 kB); the list of
    resolved runs holds about 8 kB a run (measured: 16 MB)."""
    runs = 2000
    out = subprocess.run(
        [sys.executable, "-c", PEAK_OF_A_PLAN, BASE, str(runs // 2), how],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    peak = int(out.stdout)
    if how == "plan":
        assert peak < 4_000_000, peak
    else:  # the measurement tells them apart
        assert peak > 2 * 4_000_000, peak
