"""`python -m tcplab.emulate.validate` from saved measurements: the pages are rewritten from the
file, and `--redo-tcplab` simulates tcplab's side of each saved run again while keeping the
kernel's. The fixture is a real `--quick --save` run on the development machine (2026-11-28)."""

import json
import shutil
from pathlib import Path

import pytest

from tcplab.emulate import grid, validate

DATA = Path(__file__).parent / "data" / "linux_validation_quick.json"


def test_render_writes_both_pages_from_the_saved_measurements(tmp_path):
    saved = json.loads(DATA.read_text())
    assert validate.main(["--render", str(DATA), "--docs", str(tmp_path)]) == 0
    linux = (tmp_path / "linux.md").read_text()
    assert saved["header"] in linux
    # The fixture has no self-check ladder or dumbbells (--extras): emulation.md is left alone.
    assert saved["ladder"] is None and not (tmp_path / "emulation.md").exists()
    for c in validate.cells(saved["rows"], saved["runs"]):
        assert (
            f"| {c['cc']} | {c['rtt_ms']} | {c['p']:g} | {c['linux_bps'] / 1e6:.3f} | {c['tcplab_bps'] / 1e6:.3f} | {c['ratio']:.3f} |"
            in linux
        )


def test_redo_tcplab_reruns_the_simulation_and_keeps_the_kernel(tmp_path):
    src = tmp_path / "saved.json"
    shutil.copy(DATA, src)
    saved = json.loads(src.read_text())
    # Spoil tcplab's side: the redo must replace it, and leave the kernel's columns alone.
    for r in saved["rows"]:
        r["tcplab_bps"] = -1.0
    src.write_text(json.dumps(saved))
    out = tmp_path / "redone.json"
    assert (
        validate.main(["--redo-tcplab", str(src), "--save", str(out), "--docs", str(tmp_path / "docs")]) == 0
    )
    redone = json.loads(out.read_text())
    for before, after in zip(saved["rows"], redone["rows"], strict=True):
        for k in (
            "linux_bps",
            "linux_rtos",
            "linux_p",
            "linux_loss_events",
            "late_p99_ms",
            "p",
            "rtt_ms",
            "cc",
            "seed",
        ):
            assert after[k] == before[k]
    for run in redone["runs"]:
        rows = [r for r in redone["rows"] if r["run"] == run["id"]]
        flows = [(r["p"], r["rtt_ms"], r["cc"], r["seed"]) for r in rows]
        sims = grid.simulate_run(flows, run["seed"], run["duration_s"], run["warmup_s"])
        assert [r["tcplab_bps"] for r in rows] == [s["goodput_bps"] for s in sims]
    for before, after in zip(saved["dumbbells"], redone["dumbbells"], strict=True):
        assert [e for e, _ in after["flows"]] == [e for e, _ in before["flows"]]
        assert after["util"][0] == before["util"][0] and after["drops"][0] == before["drops"][0]
    assert "--redo-tcplab" in (tmp_path / "docs" / "linux.md").read_text()


def test_a_file_not_saved_by_validate_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"rows": []}')
    assert validate.main(["--render", str(bad), "--docs", str(tmp_path)]) == 2
    assert "not results saved with --save" in capsys.readouterr().err
    assert not (tmp_path / "linux.md").exists()


def test_a_cell_does_not_depend_on_the_other_cells_of_its_run():
    # Each cell is a path of its own whose losses are drawn from (seed, its link's name): the
    # simulated flow of a cell alone is the same flow as in the run of all the cells.
    flows = grid.group_flows(0, [2, 3], True)
    together = grid.simulate_run(flows, 2, 8, 2)
    for i, flow in enumerate(flows):
        (alone,) = grid.simulate_run([flow], 2, 8, 2)
        assert alone["goodput_bps"] == together[i]["goodput_bps"] > 0
        assert alone["loss_events"] == together[i]["loss_events"]
    assert len({s["goodput_bps"] for s in together}) == len(flows)


def test_the_grid_holds_every_rtt_of_the_issue_with_three_seeds():
    assert grid.RTT_MS == (20, 50, 80, 120, 200) and len(grid.SEEDS) >= 3
    assert sorted(r for rtts, _, _ in grid.GROUPS for r in rtts) == list(grid.RTT_MS)
    runs = grid.plan(list(grid.SEEDS), False)
    names = [grid.link_name(*f) for g, seeds in runs for f in grid.group_flows(g, seeds, False)]
    assert (
        len(names) == len(set(names)) == len(grid.P_GRID) * len(grid.RTT_MS) * len(grid.CCS) * len(grid.SEEDS)
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seeds", "1"], "--seeds and --extras go with --add-to FILE"),
        (["--seeds", "one", "--add-to", "x.json"], "--seeds: 'one'"),
        (["--seeds", "0", "--add-to", "x.json"], "--seeds: 0 (expected seeds from 1)"),
    ],
)
def test_bad_seeds_are_one_clear_error(tmp_path, capsys, args, message):
    assert validate.main([*args, "--docs", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "linux.md").exists() and not (tmp_path / "x.json").exists()


def test_the_pages_say_when_each_part_was_measured_and_how_the_endpoints_ran(tmp_path):
    """The header names the dates of the grid's runs, the ladder and the dumbbells, which
    `--add-to` measures separately; runs without the endpoints' scheduling say so."""
    saved = json.loads(DATA.read_text())
    run = saved["runs"][0]
    old = {**run, "id": "old", "started": "2026-11-27 10:00:00 UTC"}
    for k in ("endpoints_realtime", "endpoints_normal"):
        old.pop(k, None)
    saved["runs"] = [{**run, "endpoints_realtime": 7, "endpoints_normal": 1}, old]
    saved["rows"] += [{**r, "run": "old"} for r in saved["rows"] if r["run"] == run["id"]]
    saved["ladder"] = {"when": "2026-11-28 19:00:00", "max_rate_bps": 0, "criterion": "c", "steps": []}
    saved["dumbbells"] = []
    text = validate.parts(saved)
    assert text.startswith(
        f"Parts measured: the grid's runs 2026-11-27: old; {run['started'][:10]}: {run['id']};"
    )
    assert "the self-check ladder 2026-11-28; the dumbbells not measured." in text
    src = tmp_path / "saved.json"
    src.write_text(json.dumps(saved))
    assert validate.main(["--render", str(src), "--docs", str(tmp_path)]) == 0
    linux = (tmp_path / "linux.md").read_text()
    assert text in linux
    assert f"| {run['late_p99_ms']:.3f} | 7 of 8 |" in linux
    assert f"| {run['late_p99_ms']:.3f} | not recorded |" in linux
    assert validate.endpoint_threads({"endpoints_realtime": 0, "endpoints_normal": 4}) == "0 of 4"


def test_the_dumbbells_say_when_they_ran(tmp_path):
    saved = json.loads(DATA.read_text())
    bell = {"discipline": "red", "link": "b", "flows": [(1e6, 1e6)], "util": (0.9, 0.9), "drops": (1, 2),
            "queue": (3.0, 4.0), "late_p99_ms": 0.1}  # fmt: skip
    saved["dumbbells"] = [{**bell, "discipline": "droptail"}, {**bell, "when": "2026-11-29 04:00:00 UTC",
                          "endpoints_realtime": 8, "endpoints_normal": 0}]  # fmt: skip
    saved["ladder"] = {"when": "2026-11-29 03:59:00", "max_rate_bps": 0, "criterion": "c", "steps": []}
    assert validate.parts(saved).endswith("the dumbbells (date not stored), 2026-11-29.")
    src = tmp_path / "saved.json"
    src.write_text(json.dumps(saved))
    assert validate.main(["--render", str(src), "--docs", str(tmp_path)]) == 0
    assert (
        "Run: droptail (date not stored), endpoint threads at SCHED_FIFO: not recorded; "
        "red 2026-11-29 04:00:00 UTC, endpoint threads at SCHED_FIFO: 8 of 8."
        in (tmp_path / "emulation.md").read_text()
    )


def test_the_header_counts_the_real_time_of_the_runs_held_not_of_those_replaced():
    v = validate
    runs = [{"wall_s": 600.0}, {"wall_s": 300.0}]
    # Grid runs only: their wall times (a replaced run's time went with it).
    assert v.real_time_minutes({"runs": runs, "ladder": None, "dumbbells": []}) == (15.0, True)
    # With the self-check and dumbbells measured and timed: theirs added.
    extras = {"runs": runs, "ladder": {"steps": []}, "dumbbells": [{}], "extras_minutes": 2.5}
    assert v.real_time_minutes(extras) == (17.5, True)
    # Measured before their time was recorded: the grid's, and the header says the rest is not.
    res = {k: extras[k] for k in ("runs", "ladder", "dumbbells")}
    assert v.real_time_minutes(res) == (15.0, False)
