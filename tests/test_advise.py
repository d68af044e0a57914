"""`tcplab advise`: each regime reached by a path chosen for it (the regime, the quantities that
decided it, the models' numbers equal to the model functions), the scenario it writes runs,
a capture's measurements as input, and bad input as one line with exit status 2."""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tcplab.advise.spreads as spreads_mod
from tcplab import advise as adv
from tcplab.capture import analyze
from tcplab.cli import app
from tcplab.models import cubic, mathis, newreno, pftk

ROOT = Path(__file__).resolve().parents[1]
LINUX = ROOT / "tests" / "data" / "linux-loss.pcap"


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(app, list(args))
    return r.exit_code, r.stdout, r.stderr


def advice(*args: str) -> dict:
    code, out, err = run("advise", *args, "--json")
    assert code == 0, out + err
    return json.loads(out)


def model(doc: dict, name: str) -> dict:
    return next(m for m in doc["models"] if m["model"] == name)


def test_loss_limited_the_issue_example():
    doc = advice(
        "--rate",
        "10Mbit/s",
        "--rtt",
        "80ms",
        "--mss",
        "1460",
        "--loss",
        "0.01",
        "--queue",
        "50",
        "--rwnd",
        "64KiB",
    )
    assert doc["regime"] == "loss-limited"
    d = doc["decisive"]
    # Delayed ACKs (b = 2), RTO = max(1 s, 3 RTT) = 1 s.
    assert d["loss_limited_bps"] == pftk.full(1460, 0.08, 0.01, 1.0, b=2.0)
    assert d["window_limited_bps"] == 65536 * 8 / 0.08
    assert d["link_bps"] == 10e6
    fr, to = (
        0.08 * math.sqrt(2 * 2 * 0.01 / 3),
        1.0 * min(1, 3 * math.sqrt(3 * 2 * 0.01 / 8)) * 0.01 * (1 + 32e-4),
    )
    assert d["pftk_fast_retransmit_term_s"] == pytest.approx(fr, rel=1e-12)
    assert d["pftk_timeout_term_s"] == pytest.approx(to, rel=1e-12)
    assert to < fr
    assert model(doc, "mathis:throughput")["prediction_bps"] == mathis.throughput(
        1460, 0.08, 0.01, c=math.sqrt(0.75)
    )
    assert model(doc, "pftk:full")["prediction_bps"] == pftk.full(1460, 0.08, 0.01, 1.0, b=2.0, wmax=65536)
    assert model(doc, "newreno:noto")["prediction_bps"] == newreno.throughput_noto(1460, 0.08, 0.01, 0.01)
    assert model(doc, "newreno:full")["prediction_bps"] == newreno.throughput_full(
        1460, 0.08, 0.01, 0.01, 1.0
    )
    assert model(doc, "cubic:throughput")["prediction_bps"] == cubic.throughput(1460, 0.08, 0.01)
    assert [m["domain_applies"] for m in doc["models"]] == [True, True, True, True, False]
    assert model(doc, "cubic:throughput")["notes"] == ["the flow is newreno, not CUBIC"]
    # The spreads are the loss-limited ones, with their source named.
    v = doc["validation"]
    assert v["entries"] and v["missing"] is None
    assert v["entries"][0]["validation"].startswith("tcplab reproduce mathis --quick: Table 4")


def test_window_limited():
    doc = advice("--rate", "100Mbit/s", "--rtt", "100ms", "--loss", "1e-5", "--rwnd", "64KiB")
    assert doc["regime"] == "window-limited"
    d = doc["decisive"]
    assert d["window_limited_bps"] == 65536 * 8 / 0.1
    assert d["loss_limited_bps"] == pftk.full(1460, 0.1, 1e-5, 1.0, b=2.0)
    assert d["window_limited_bps"] < d["loss_limited_bps"] < d["link_bps"]
    assert not model(doc, "mathis:throughput")["domain_applies"]
    assert model(doc, "pftk:full")["domain_applies"]  # PFTK has the receiver window
    assert model(doc, "pftk:full")["prediction_bps"] == 65536 * 8 / 0.1
    assert doc["validation"]["entries"] == [] and "window-limited" in doc["validation"]["missing"]


def test_timeout_dominated():
    doc = advice("--rate", "100Mbit/s", "--rtt", "20ms", "--loss", "5%")
    assert doc["regime"] == "timeout"
    d = doc["decisive"]
    fr = 0.02 * math.sqrt(2 * 2 * 0.05 / 3)
    to = 1.0 * min(1, 3 * math.sqrt(3 * 2 * 0.05 / 8)) * 0.05 * (1 + 32 * 0.05**2)
    assert d["pftk_fast_retransmit_term_s"] == pytest.approx(fr, rel=1e-12)
    assert d["pftk_timeout_term_s"] == pytest.approx(to, rel=1e-12)
    assert to > fr
    assert not model(doc, "mathis:throughput")["domain_applies"]
    assert not model(doc, "newreno:noto")["domain_applies"]
    assert model(doc, "pftk:full")["domain_applies"]


def test_timeout_dominated_by_a_small_window():
    # p = 30% with a 1 ms RTO: the timeout term is small, but the peak window sqrt(8/3p) = 2.98 < 4.
    doc = advice("--rtt", "100ms", "--loss", "30%", "--rto", "1ms")
    assert doc["regime"] == "timeout"
    assert doc["decisive"]["peak_window_segments"] == mathis.peak_window(0.3)
    assert doc["decisive"]["pftk_timeout_term_s"] < doc["decisive"]["pftk_fast_retransmit_term_s"]


def test_slow_start_short_transfer():
    doc = advice("--rate", "10Mbit/s", "--rtt", "100ms", "--queue", "100", "--size", "20000")
    assert doc["regime"] == "slow-start"
    d = doc["decisive"]
    # Steady window: (BDP + buffer) x MSS = (1e7 x 0.1 / 8 / 1500 + 100) x 1460 bytes.
    w = (1e7 * 0.1 / 8 / 1500 + 100) * 1460
    assert d["steady_window_bytes"] == pytest.approx(w, rel=1e-12)
    # Slow start from 1 segment, x1.5 per round (delayed ACKs), until the window reaches w.
    cwnd, sent, rounds = 1460.0, 0.0, 0
    while cwnd < w:
        sent, cwnd, rounds = sent + cwnd, cwnd * 1.5, rounds + 1
    assert (d["slow_start_rounds"], d["slow_start_bytes"]) == (rounds, sent)
    assert d["size_bytes"] == 20000 <= sent
    # 20000 B: 1460 + 2190 + 3285 + 4927.5 + 7391.25 = 19253.75 < 20000 after 5 rounds: 6 round trips.
    s = doc["slow_start"]
    assert s["rounds"] == 6
    assert s["seconds"] == pytest.approx(6 * 0.1 + 8 * 20000 / 1e7, rel=1e-12)
    assert all(not m["domain_applies"] for m in doc["models"])


def test_a_long_transfer_is_not_slow_start():
    doc = advice("--rate", "10Mbit/s", "--rtt", "100ms", "--queue", "100", "--size", "100MB")
    assert doc["regime"] == "queue"


def test_queue_dominated():
    doc = advice("--rate", "10Mbit/s", "--rtt", "80ms", "--queue", "50")
    assert doc["regime"] == "queue"
    d = doc["decisive"]
    assert d["bdp_packets"] == pytest.approx(1e7 * 0.08 / 8 / 1500, rel=1e-12)
    assert d["max_queue_delay_s"] == pytest.approx(50 * 1500 * 8 / 1e7, rel=1e-12)
    assert d["buffer_over_bdp"] == pytest.approx(50 / (1e7 * 0.08 / 8 / 1500), rel=1e-12)
    assert d["link_bps"] == 1e7 and d["loss_limited_bps"] is None  # no loss: unbounded (null in JSON)
    assert all(m["prediction_bps"] is None for m in doc["models"])  # p = 0: no model has an input
    assert any("Barakat" in e["title"] or "barakat" in e["validation"] for e in doc["validation"]["entries"])


def test_cubic_variant_uses_the_cubic_response():
    doc = advice("--rate", "1Gbit/s", "--rtt", "100ms", "--loss", "1e-4", "--variant", "cubic")
    assert doc["regime"] == "loss-limited"
    assert doc["decisive"]["loss_limited_bps"] == cubic.throughput(1460, 0.1, 1e-4)
    assert model(doc, "cubic:throughput")["domain_applies"]
    assert not model(doc, "mathis:throughput")["domain_applies"]


def test_the_scenario_out_runs_and_names_the_path(tmp_path):
    import tcplab

    f = tmp_path / "s.toml"
    code, out, err = run(
        "advise",
        "--rate",
        "10Mbit/s",
        "--rtt",
        "80ms",
        "--loss",
        "1%",
        "--queue",
        "50",
        "--rwnd",
        "64KiB",
        "--scenario-out",
        str(f),
    )
    assert code == 0, err
    assert f"tcplab run {f}" in out
    r = tcplab.resolve(f)
    hop = r["network"]["path"]["hops"][0]
    assert (hop["rate"], hop["delay"], hop["queue"]["limit"], hop["loss"]["p"]) == (
        10_000_000,
        0.04,
        50,
        0.01,
    )
    fl = r["flows"][0]
    assert (fl["tcp"], fl["ack"], fl["mss"], fl["rwnd"]) == ("newreno", "delayed", 1460, 65536)
    res = tcplab.run(f, {"duration": "30s", "warmup": "5s"})
    assert res.flows["goodput_bps"][0] > 0


def test_a_capture_as_input():
    a = analyze(LINUX)
    row = a.with_predictions().row(0, named=True)
    doc = advice("--trace", str(LINUX))
    m = doc["measured"]
    assert (m["conn"], m["dir"], m["bytes_acked"]) == (0, 0, 1_000_000)
    inp = doc["input"]
    assert inp["loss"] == row["loss_event_rate"] and inp["rtt"] == row["min_rtt_s"]
    assert inp["rto"] == row["rto_used_s"] and inp["size"] == 1_000_000 and inp["mss"] == 1448
    rtt = row["ts_mean_rtt_s"] if row["ts_rtt_samples"] else row["mean_rtt_s"]
    assert inp["queue_delay"] == rtt - row["min_rtt_s"]
    # The veth pair has no delay element: the mean RTT is ~50 times the minimum, all queueing.
    assert doc["regime"] == "queue"
    b = 2.0 if inp["ack"] == "delayed" else 1.0
    assert model(doc, "pftk:full")["prediction_bps"] == pftk.full(
        1448, rtt, row["loss_event_rate"], row["rto_used_s"], b=b, wmax=row["max_flight_bytes"]
    )


def test_spreads_are_the_committed_generation_of_their_sources(tmp_path):
    """The data file holds what the generator writes (its own inputs are results.json files)."""
    committed = json.loads(spreads_mod.OUT.read_text())
    assert committed == adv.validation_spreads()
    assert set(committed["regimes"]) | set(committed["missing"]) == set(adv.REGIMES)
    assert "reproduce" in committed["generated_by"]


@pytest.mark.parametrize(
    "args, message",
    [
        (("--rtt", "80ms", "--loss", "1.5"), '--loss: "1.5" is above 1'),
        (("--rtt", "80ms", "--loss", "1"), "--loss: 1 (expected a loss rate in [0, 1))"),
        (("--rtt", "80ms", "--rate", "-5Mbit/s"), '--rate: "-5Mbit/s" is negative'),
        (("--rtt", "80ms", "--rate", "10Mbip/s"), '--rate: "10Mbip/s" is not a valid rate'),
        (("--rtt", "80"), "--rtt: '80' has no unit"),
        (
            (
                "--rate",
                "10Mbit/s",
            ),
            "--rtt: required",
        ),
        (
            ("--rtt", "80ms", "--variant", "vegas"),
            "--variant: 'vegas' (expected one of reno, newreno, sack, cubic)",
        ),
        (("--rtt", "80ms", "--queue", "0"), "--queue: 0 (expected a buffer of at least 1 packet)"),
        (("--rtt", "80ms", "--rwnd", "0"), "--rwnd: 0 (expected a value > 0)"),
        (("--trace", "no-such.pcap"), "no-such.pcap: no such file"),
        (("--trace", str(LINUX), "--rtt", "80ms"), "--trace: give either a capture or a path, not both"),
        (("--trace", str(LINUX), "--conn", "7"), "--conn 7: the capture has connections 0 to 0"),
        (("--rtt", "80ms", "--conn", "1"), "--conn/--dir: only with --trace FILE"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, args, message):
    proc = cli("advise", *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [x for x in proc.stderr.splitlines() if not x.startswith("warning:")]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


DOC = ROOT / "docs" / "advise.md"
CONSOLE = re.compile(r"```console\n(.*?)```", re.S)


def _doc_blocks(text: str) -> list[list[tuple[str, str]]]:
    """Each console block as (command, output) pairs."""
    blocks = []
    for body in CONSOLE.findall(text):
        pairs: list[tuple[str, list[str]]] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                pairs.append((line[2:], []))
            else:
                pairs[-1][1].append(line)
        blocks.append([(c, "\n".join(o)) for c, o in pairs])
    return blocks


def _run_doc_command(command: str, cwd: Path) -> str:
    from conftest import run_cli

    args = shlex.split(command)
    if args[0] == "cat":
        return (cwd / args[1]).read_text().rstrip("\n")
    assert args[0] == "tcplab", command
    proc = run_cli(*args[1:], cwd=cwd)
    assert proc.returncode == 0, command + "\n" + proc.stderr
    return proc.stdout.rstrip("\n")


def test_docs_examples_are_the_commands_output(tmp_path):
    (tmp_path / "tests" / "data").mkdir(parents=True)
    shutil.copy(LINUX, tmp_path / "tests" / "data" / LINUX.name)
    text = DOC.read_text()
    blocks = _doc_blocks(text)
    assert len(blocks) == 6
    fresh = [[(c, _run_doc_command(c, tmp_path)) for c, _ in b] for b in blocks]
    if os.environ.get("TCPLAB_REGENERATE"):
        it = iter(fresh)
        DOC.write_text(
            CONSOLE.sub(
                lambda m: (
                    "```console\n"
                    + "".join(f"$ {c}\n" + (o + "\n" if o else "") for c, o in next(it))
                    + "```"
                ),
                text,
            )
        )
        return
    assert blocks == fresh, (
        "docs/advise.md differs from the commands' output: TCPLAB_REGENERATE=1 pytest "
        "tests/test_advise.py -k docs"
    )
