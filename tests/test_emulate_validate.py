"""`python -m tcplab.emulate.validate` from saved measurements: the pages are rewritten from the
file, and `--redo-tcplab` simulates tcplab's side of each saved run again while keeping the
kernel's. The fixture is a real `--quick --save` run on the development machine (2026-11-27)."""

import json
import shutil
from pathlib import Path

import tcplab
from tcplab.emulate import validate

DATA = Path(__file__).parent / "data" / "linux_validation_quick.json"


def test_render_writes_both_pages_from_the_saved_measurements(tmp_path):
    saved = json.loads(DATA.read_text())
    assert validate.main(["--render", str(DATA), "--docs", str(tmp_path)]) == 0
    linux = (tmp_path / "linux.md").read_text()
    emulation = (tmp_path / "emulation.md").read_text()
    assert saved["header"] in linux and saved["header"] in emulation
    for c in validate.cells(saved["rows"]):
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
    cc_of = dict(validate.CCS)
    for before, after in zip(saved["rows"], redone["rows"], strict=True):
        for k in ("linux_bps", "linux_rtos", "linux_p", "late_p99_ms", "p", "rtt_ms", "cc", "seed"):
            assert after[k] == before[k]
        sc = validate.queueless(after["p"], after["rtt_ms"], cc_of[after["cc"]], after["seed"], True)
        assert after["tcplab_bps"] == tcplab.run(sc).flows.row(0, named=True)["goodput_bps"]
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
