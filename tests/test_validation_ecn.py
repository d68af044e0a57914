"""docs/validation/ecn.md's command (`python -m tcplab.validation.ecn`): its quick form runs,
its checks fail where the numbers miss, the kernel part renders from stored runs and
`--redo-tcplab` simulates tcplab's side again; and the flows' `ecn_alpha_mean` it compares."""

import copy
import json

import pytest

import tcplab
from tcplab.validation import ecn, ecn_analysis, ecn_kernel, ecn_ns3


def _path(marking_threshold: int, flows: list[dict]) -> dict:
    """One 10 Mbit/s hop (10 ms RTT, 8 packets in flight) marking at the threshold; a flow
    with `rwnd` of 20 packets keeps at most 12 waiting."""
    return {
        "name": "alpha",
        "duration": "3s",
        "warmup": "1s",
        "network": {
            "path": {
                "hops": [
                    {
                        "rate": "10Mbit/s",
                        "delay": "5ms",
                        "queue": {
                            "discipline": "step",
                            "limit": 200,
                            "step": {"threshold": marking_threshold},
                        },
                    }
                ]
            }
        },
        "flows": flows,
    }


def test_alpha_mean_is_one_when_every_packet_is_marked_and_null_without_an_estimate():
    # Threshold 0 marks every ECT arrival: M = 1 in every window, alpha stays at its initial 1.
    res = tcplab.run(_path(0, [{"cc": "dctcp", "ecn": "classic"}, {"cc": "aimd"}]))
    alpha = res.flows["ecn_alpha_mean"].to_list()
    assert alpha[0] == 1.0
    assert alpha[1] is None


def test_alpha_mean_is_zero_after_an_unmarked_window_with_g_one():
    # g = 1: alpha = M of the last window; nothing is marked (threshold above any queue), so
    # alpha is 0 from the first window's end (well before the 1 s warm-up) to the end.
    res = tcplab.run(
        _path(50, [{"cc": {"algorithm": "dctcp", "g": 1.0}, "ecn": "classic", "rwnd": 20 * 1460}])
    )
    assert res.flows.row(0, named=True)["ecn_alpha_mean"] == 0.0
    assert res.links["marks"].sum() == 0


def test_alpha_mean_holds_each_value_over_the_window():
    # g = 1/2, alpha starting at 1, nothing marked: alpha halves at each window's end, so its
    # time average over a window of several round trips lies strictly between 0 and 1, and a
    # later window averages less.
    flows = [
        {
            "cc": {"algorithm": "dctcp", "g": 0.5},
            "ecn": "classic",
            "rwnd": 20 * 1460,
            "ack": "immediate",
            "initial_window": 10,
        }
    ]
    early = dict(_path(50, flows), warmup="0s", duration="30ms")
    late = dict(_path(50, flows), warmup="30ms", duration="60ms")
    a_early = tcplab.run(early).flows.row(0, named=True)["ecn_alpha_mean"]
    a_late = tcplab.run(late).flows.row(0, named=True)["ecn_alpha_mean"]
    assert 0.0 < a_late < a_early < 1.0


def test_ns3_cases_are_built_as_the_reference_states_them():
    ref = ecn_ns3.load_reference()["cases"]
    sc = ecn_ns3.scenario("red-k65-n10", ref["red-k65-n10"])
    b = sc["network"]["dumbbell"]["bottleneck"]
    assert b["queue"]["step"]["threshold"] == 65 and b["device_queue"] == 1
    assert len(sc["flows"]) == 10 and sc["flows"][3]["start"] == "3ms"
    codel = ecn_ns3.scenario("codel-ce780us-n2", ref["codel-ce780us-n2"])
    assert codel["network"]["dumbbell"]["bottleneck"]["queue"]["codel"]["ce_threshold"] == "780us"
    val = ecn_ns3.scenario("validation-dctcp-80ms", ref["validation-dctcp-80ms"])
    assert (val["warmup"], val["duration"]) == ("34s", "39s")
    # tcp-validation.cc's bottleneck ring: 3 packets under DynamicQueueLimits, HoldTime 1 ms.
    neck = val["network"]["dumbbell"]["bottleneck"]
    assert (neck["device_queue"], neck["bql"]) == (3, {"hold_time": "1ms"})
    fig = ecn_ns3.scenario("fig17", ref["fig17"])
    assert len(fig["flows"]) == 40 and len(fig["network"]["graph"]["flows"]) == 40
    # ns-3's recovery decides the reduction in CWR: TcpPrrRecovery in the dumbbell and
    # validation cases, the default TcpClassicRecovery in fig17.
    assert {f["cwr_reduction"] for f in sc["flows"] + val["flows"]} == {"prr"}
    assert {f["cwr_reduction"] for f in fig["flows"]} == {"immediate"}
    # ns-3's RED with UseHardDrop false marks ECT arrivals above max_th: every RED in fig17.
    reds = [
        link[side]["red"]
        for link in fig["network"]["graph"]["links"]
        for side in ("queue", "reverse_queue")
        if link.get(side, {}).get("discipline") == "red"
    ]
    assert len(reds) == 62 and {r["harddrop"] for r in reds} == {False}
    # ns-3's point-to-point devices keep their default 100-packet ring under the queue discs.
    assert {link["device_queue"] for link in fig["network"]["graph"]["links"]} == {100}
    for name, case in ref.items():  # every case is a valid scenario
        tcplab.resolve(ecn_ns3.scenario(name, case))


def test_marked_share_counts_marks_per_delivered_segment():
    # 100 marks in a 2 s window at 1448 x 8 x 1000 bit/s: 2000 segments delivered.
    run = {"window": [1, 3], "marks": 100, "goodput_total_bps": 1448 * 8 * 1000}
    assert ecn_ns3.marked_share(run) == 0.05


def test_cycles_finds_each_sawtooth_peak_and_trough():
    q = [5, 9, 12, 15, 11, 8, 6, 9, 14, 16, 10, 7, 5, 10, 13]
    # mean level 10: cycles start at 12, 14 and 13; the last is incomplete.
    assert ecn_analysis.cycles([0.0] * len(q), q, 10.0) == [(15, 6), (16, 5)]


def test_the_checks_fail_where_the_numbers_miss():
    good = {"k": 65, "n": 2, "q_max": 67.0, "model_q_max": 67.0, "amplitude": 12.0, "model_amplitude": 12.3}
    bad = dict(good, q_max=80.0, amplitude=20.0)
    assert all(ok for _, ok, _ in ecn_analysis.checks([good]))
    assert not any(ok for _, ok, _ in ecn_analysis.checks([bad]))
    cell = {
        "cc": "reno",
        "rtt_ms": 10,
        "aqm": "step",
        "flows": 1,
        "seed": 1,
        "late_p99_ms": 0.1,
        "load": 1.0,
        "linux": {"goodput_bps": 10e6, "marks_per_s": 10.0, "mean_queue_pkts": 5.0, "drops": 0},
    }
    near = [
        dict(
            cell,
            seed=s,
            tcplab={"goodput_bps": 10.2e6, "marks_per_s": 10.5, "mean_queue_pkts": 5.2, "drops": 0},
        )
        for s in (1, 2)
    ]
    far = [dict(c, tcplab=dict(c["tcplab"], goodput_bps=12e6)) for c in near]
    assert all(ok for _, ok, _ in ecn_kernel.checks(ecn_kernel.summarize(near)))
    assert not all(ok for _, ok, _ in ecn_kernel.checks(ecn_kernel.summarize(far)))
    assert not all(ok for _, ok, _ in ecn_kernel.checks([]))


@pytest.fixture
def kernel_runs(tmp_path):
    """The stored kernel runs, two cells of them (their tcplab side spoiled)."""
    stored = json.loads(ecn.KERNEL_DATA.read_text())
    keep = {ecn_kernel.key(r) for r in stored["rows"][:1]}
    data = copy.deepcopy(stored)
    data["rows"] = [r for r in stored["rows"] if ecn_kernel.key(r) in keep]
    path = tmp_path / "kernel.json"
    path.write_text(json.dumps(data))
    return path, data


def test_quick_page_renders_every_part(tmp_path, kernel_runs):
    path, data = kernel_runs
    code = ecn.main(["--quick", "--docs", str(tmp_path), "--kernel-data", str(path)])
    page = (tmp_path / "ecn.md").read_text()
    assert code in (0, 1)
    assert "| red-k65-n2 | 2 |" in page and "## 2. The DCTCP analysis" in page
    assert "no `tcp_dctcp` module" in page and data["header"] in page
    for c in ecn_kernel.summarize(data["rows"]):
        assert f"| {c['cc']} | {c['rtt_ms']} | {c['aqm']} | {c['flows']} |" in page
    # The kernel's cells again with the ECE response cut at once, beside the profile's PRR.
    assert 'simulated with cwnd set to ssthresh at once (`cwr_reduction = "immediate"`) give:' in page
    prr = ecn_kernel.scenario(10, "step", 1, "aimd", 1, True)
    cut = ecn_kernel.scenario(10, "step", 1, "aimd", 1, True, "immediate")
    assert "cwr_reduction" not in prr["flows"][0] and cut["flows"][0]["cwr_reduction"] == "immediate"
    assert tcplab.resolve(prr)["flows"][0]["cwr_reduction"] == "prr"
    # The exit status is the targets' verdict, as the page's table says.
    assert (code == 0) == ("| **no** |" not in page)


def test_redo_tcplab_simulates_again_and_keeps_the_kernel(tmp_path, kernel_runs):
    path, data = kernel_runs
    for r in data["rows"]:
        r["tcplab"]["goodput_bps"] = -1.0
    path.write_text(json.dumps(data))
    ecn.main(["--quick", "--docs", str(tmp_path), "--kernel-data", str(path), "--redo-tcplab"])
    redone = json.loads(path.read_text())
    for before, after in zip(data["rows"], redone["rows"], strict=True):
        assert after["linux"] == before["linux"]
        assert after["tcplab"] == ecn_kernel.simulate_cell(after, data.get("quick", False))
    assert "--redo-tcplab" in redone["header"]


def test_kernel_data_that_is_not_json_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    assert ecn.main(["--quick", "--docs", str(tmp_path), "--kernel-data", str(bad)]) == 2
    assert "not kernel runs saved by --kernel" in capsys.readouterr().err
    assert not (tmp_path / "ecn.md").exists()


def test_a_quick_kernel_batch_does_not_mix_into_full_runs(tmp_path, capsys):
    full = tmp_path / "full.json"
    full.write_text(ecn.KERNEL_DATA.read_text())
    before = full.read_text()
    assert ecn.main(["--kernel", "--quick", "--kernel-data", str(full)]) == 2
    assert "holds full runs; a quick batch is another grid" in capsys.readouterr().err
    assert full.read_text() == before


def test_the_header_counts_only_the_batches_whose_runs_are_stored():
    machine = "Linux x, cpu, 2 cores"
    batches = [
        {"date": f"2026-01-0{i} 10:00 UTC", "machine": machine, "cells": 6, "minutes": 5.0} for i in (1, 2, 3)
    ]
    # The third batch replaced every run of the first: two batches, 10 minutes.
    rows = [{"batch": batches[1]["date"]}, {"batch": batches[2]["date"]}]
    data = {"batches": batches, "rows": rows}
    assert ecn.current_batches(data) == batches[1:]
    assert "on 2026-01-02, 2026-01-03 in 2 batches (10 min)" in ecn.header(
        data | {"batches": ecn.current_batches(data)}
    )
    # Runs stored before the stamp existed: every batch is kept, nothing is guessed.
    assert ecn.current_batches({"batches": batches, "rows": [{}, *rows]}) == batches
