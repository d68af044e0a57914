"""Packet captures from Python and the CLI: `trace.pcap` written by `tcplab.run`, `tcplab trace
analyze` (table, --json, --out) and `tcplab trace plot` on a simulated capture and on the real
Linux fixture, the frames against docs/pcap.md, and bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import tcplab
from tcplab.capture import CaptureError, analyze
from tcplab.cli import app

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "pcap.md"
LINUX = ROOT / "tests" / "data" / "linux-loss.pcap"
LINUX_ECN = ROOT / "tests" / "data" / "linux-ecn.pcap"
TYPES = {
    "u32": pl.UInt32,
    "u64": pl.UInt64,
    "i64": pl.Int64,
    "f64": pl.Float64,
    "bool": pl.Boolean,
    "str": pl.String,
    "cat": pl.Categorical,
}

SCENARIO = """
duration = "30s"
warmup = "5s"
seed = 2
[network.path]
hops = [{ rate = "20Mbit/s", delay = "20ms", queue = { limit = 10000 }, loss = { model = "bernoulli", p = "1%" } }]
[[flows]]
tcp = "newreno"
timestamps = true
"""


def documented() -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    section = None
    for line in DOC.read_text().splitlines():
        if m := re.match(r"^### (\w+)$", line):
            section = m.group(1)
        elif section and (m := re.match(r"^\| (\w+) \| (\w+) \|", line)) and m.group(1) != "column":
            out.setdefault(section, []).append((m.group(1), m.group(2)))
    return out


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    d = tmp_path_factory.mktemp("pcap")
    f = d / "n0.pcap"
    r = tcplab.run(SCENARIO, sets={"trace.pcap": {"node": "n0", "file": str(f)}})
    return r, f


def test_a_run_writes_its_capture_byte_identical_each_time(simulated, tmp_path):
    r, f = simulated
    g = tmp_path / "again.pcap"
    tcplab.run(SCENARIO, sets={"trace.pcap": {"node": "n0", "file": str(g)}})
    assert f.read_bytes() == g.read_bytes()
    assert f.read_bytes()[:4] == bytes.fromhex("4d3cb2a1")  # nanosecond pcap, little-endian
    assert not list(tmp_path.glob("*.partial"))


def test_the_analysis_of_a_simulated_capture_equals_the_simulators_counts(simulated):
    r, f = simulated
    a = analyze(f, start=5.0, end=30.0)
    d = a.connections.filter(pl.col("dir") == 0).row(0, named=True)
    flow = r.flows.row(0, named=True)
    for k in (
        "segments_sent",
        "segments_retransmitted",
        "fast_retransmits",
        "timeouts",
        "bytes_acked",
        "ca_events",
        "non_ca_events",
        "other_losses",
        "loss_events",
    ):
        assert d[k] == flow[k], k
    assert d["p"] == flow["p"]
    assert d["ca_events"] > 10
    assert abs(d["ts_mean_rtt_s"] - flow["mean_rtt_s"]) < 1e-6  # TSval ticks in microseconds


@pytest.mark.parametrize("cross,seed", [(1, 1), (4, 3), (8, 2)])
def test_timeouts_inside_a_sack_recovery_are_read_as_the_sender_counts_them(tmp_path, cross, seed):
    """Mathis Sec. 5's RED path: slow start overshoots a 200-packet queue and SACK recovery meets
    lost retransmissions and timeouts (one fires 0.16 ms after a duplicate ACK at (4, 3)); the
    capture at the sender gives the sender's own episode counts (docs/pcap.md's timeout rules)."""
    from tcplab.reproduce.core import scenario_text

    cap = tmp_path / "sender.pcap"
    r = tcplab.run(
        scenario_text("mathis/internet-path.toml"),
        sets={
            "seed": seed,
            "traffic.0.count": cross,
            "traffic.0.rtt": ["70ms", "200ms"],
            "trace.pcap.file": str(cap),
        },
    )
    f = r.flows.row(0, named=True)
    c = analyze(cap).connections.row(0, named=True)
    keys = ("ca_events", "non_ca_events", "timeouts", "other_losses", "loss_events", "segments_retransmitted")
    assert f["timeouts"] >= 1
    assert {k: c[k] for k in keys} == {k: f[k] for k in keys}


def test_the_frames_have_the_documented_columns(simulated):
    _, f = simulated
    a = analyze(f, conn=0)
    doc = documented()
    assert set(doc) == {"connections", "predictions", "segments", "rtt"}
    frames = {"connections": a.connections, "segments": a.segments, "rtt": a.rtt}
    for name, frame in frames.items():
        assert frame.columns == [c for c, _ in doc[name]], name
        assert [frame.schema[c] for c, _ in doc[name]] == [TYPES[t] for _, t in doc[name]], name
    pred = a.with_predictions()
    assert pred.columns == a.connections.columns + [c for c, _ in doc["predictions"]]
    assert a.segments.height > 1000 and a.rtt.height > 100


def test_the_linux_fixture_agrees_with_the_kernel():
    kernel = json.loads(LINUX.with_suffix(".json").read_text())
    a = analyze(LINUX)
    d = a.connections.row(0, named=True)
    assert a.connections.height == 1
    assert d["segments_retransmitted"] == kernel["tcp_info"]["total_retrans"]
    assert d["bytes_acked"] == kernel["bytes"]
    assert f"retrans:0/{kernel['tcp_info']['total_retrans']}" in kernel["ss"]


def test_the_linux_ecn_fixture_agrees_with_the_kernel_and_gives_the_ecn_p():
    # A real classic-ECN connection whose data a router marked CE (tests/data/
    # make_linux_ecn_capture.py): the receiver's IpExt counters are the analyzer's counts, and
    # the marking rate is the p of Mathis' prediction under ECN.
    kernel = json.loads(LINUX_ECN.with_suffix(".json").read_text())
    rx = kernel["receiver_ip_ext"]
    a = analyze(LINUX_ECN)
    d = a.with_predictions().row(0, named=True)
    assert d["ecn_handshake"] == "classic"
    assert (d["ce_segments"], d["ect0_segments"]) == (rx["InCEPkts"], rx["InECT0Pkts"])
    assert d["ce_segments"] == kernel["marked_by_rule"] > 0
    assert d["marking_rate"] == d["ce_segments"] / d["segments_sent"]
    assert d["ece_acks"] > 0 and 0 < d["cwr_segments"] <= d["ce_segments"]
    assert d["ecn_reductions"] == d["cwr_segments"]  # no loss: every CWR answered an ECE
    assert d["p_ecn"] == d["marking_rate"]
    assert d["mathis_ecn_bps"] > 0
    # No loss: the loss-based models have nothing to say, the ECN one has.
    assert d["p"] == 0 and d["mathis_bps"] != d["mathis_bps"]  # NaN
    res = CliRunner().invoke(app, ["trace", "analyze", str(LINUX_ECN)])
    assert res.exit_code == 0, res.output
    assert "ECN: data segments by IP ECN field" in res.output and "classic" in res.output
    doc = json.loads(CliRunner().invoke(app, ["trace", "analyze", str(LINUX_ECN), "--json"]).stdout)
    assert doc["connections"][0]["ce_segments"] == rx["InCEPkts"]
    # A capture without ECN prints no ECN table.
    assert "ECN:" not in CliRunner().invoke(app, ["trace", "analyze", str(LINUX)]).output


@pytest.mark.parametrize(
    ("ecn", "receiver", "want"),
    [("classic", True, "classic"), ("accecn", True, "accecn"), ("classic", False, "refused")],
)
def test_a_simulated_handshake_capture_reports_the_negotiated_ecn(tmp_path, ecn, receiver, want):
    # handshake = true: tcplab's own capture has the SYN, SYN-ACK and ACK with their flags and
    # options, so `tcplab trace analyze` reads the negotiation as from a kernel's capture.
    f = tmp_path / "n0.pcap"
    text = (
        '[network.path]\nhops = [{ rate = "10Mbit/s", delay = "10ms", queue = { limit = 20 } }]\n'
        f'[[flows]]\ntcp = "sack"\ncc = "cubic"\nhandshake = true\necn = "{ecn}"\necn_receiver = {str(receiver).lower()}\n'
    )
    tcplab.run(text, sets={"duration": "3s", "trace.pcap": {"node": "n0", "file": str(f)}})
    d = analyze(f).connections.row(0, named=True)
    assert d["handshake"] and d["ecn_handshake"] == want
    assert d["mss_bytes"] == 1460
    res = CliRunner().invoke(app, ["trace", "analyze", str(f), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["connections"][0]["ecn_handshake"] == want


def test_an_accecn_capture_at_the_sender_reads_the_receivers_own_count(tmp_path):
    # Upstream of the marking queue no data segment is CE; AccECN's ACKs carry the receiver's
    # count (ACE and the option's ECEB), which the analyzer reads as the sender does.
    f = tmp_path / "n0.pcap"
    text = (
        '[network.path]\nhops = [{ rate = "20Mbit/s", delay = "10ms", '
        'queue = { discipline = "step", limit = 1000, step = { threshold = 10 } } }]\n'
        '[[flows]]\ntcp = "sack"\ncc = "dctcp"\necn = "accecn"\nhandshake = true\n'
    )
    r = tcplab.run(text, sets={"duration": "3s", "trace.pcap": {"node": "n0", "file": str(f)}})
    flow = r.flows.row(0, named=True)
    d = analyze(f).with_predictions().row(0, named=True)
    assert d["ecn_handshake"] == "accecn" and d["ce_segments"] == 0
    assert d["accecn_ce_packets"] == flow["ce_received"] > 0
    assert d["p_ecn"] == d["marking_rate"] == flow["ce_received"] / d["segments_sent"]
    res = CliRunner().invoke(app, ["trace", "analyze", str(f)])
    assert res.exit_code == 0 and "AccECN" in res.output, res.output


def test_the_ecn_p_upstream_of_the_marks_comes_from_the_reductions():
    from tcplab.capture.analysis import ecn_p

    row = {
        "ect0_segments": 900,
        "ect1_segments": 0,
        "ce_segments": 0,
        "accecn_ce_packets": 0,
        "cwr_segments": 4,
        "ecn_reductions": 3,
        "bytes_acked": 1_000_000,
        "mss_bytes": 1000,
        "marking_rate": 0.0,
    }
    p, note = ecn_p(row)
    assert p == 3 * 1000 / 1_000_000 and note and "CWR reductions" in note
    p, note = ecn_p(row | {"ecn_reductions": 0})
    assert p != p and note and "no CE mark or reduction for ECN" in note
    p, note = ecn_p(row | {"ecn_reductions": 0, "ect0_segments": 0})
    assert p != p and note is None, "no ECN at all: no note"
    p, note = ecn_p(row | {"ce_segments": 9, "marking_rate": 0.01})
    assert (p, note) == (0.01, None)
    # AccECN: the receiver's count reaches a capture upstream of the marks.
    p, note = ecn_p(row | {"accecn_ce_packets": 9, "marking_rate": 0.01})
    assert (p, note) == (0.01, None)


def test_cli_table_json_and_out(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["trace", "analyze", str(LINUX)])
    assert res.exit_code == 0, res.output
    assert (
        "Model predictions" in res.output and "warning: 220 TCP segments had their options cut" in res.output
    )
    res = runner.invoke(app, ["trace", "analyze", str(LINUX), "--json"])
    doc = json.loads(res.stdout)
    assert doc["summary"]["complete"] is True
    assert doc["connections"][0]["segments_retransmitted"] == 11
    assert doc["connections"][0]["rto_s"] is None  # no timeout in this capture: NaN becomes null
    out = tmp_path / "out"
    res = runner.invoke(app, ["trace", "analyze", str(LINUX), "--out", str(out), "--conn", "0"])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in out.iterdir()) == [
        "connections.parquet",
        "rtt.parquet",
        "segments.parquet",
        "summary.json",
    ]
    assert pl.read_parquet(out / "connections.parquet")["mathis_bps"][0] > 0


def test_cli_plot_every_kind(tmp_path):
    runner = CliRunner()
    for kind in ("seq", "cwnd", "rtt"):
        png = tmp_path / f"{kind}.png"
        res = runner.invoke(app, ["trace", "plot", str(LINUX), "--kind", kind, "-o", str(png)])
        assert res.exit_code == 0, res.output
        assert png.read_bytes()[:4] == b"\x89PNG"
    res = runner.invoke(app, ["trace", "plot", str(LINUX), "--kind", "bogus"])
    assert res.exit_code == 2 and "error: --kind 'bogus': expected one of seq, cwnd, rtt" in res.output


def test_bad_input_one_clear_line(tmp_path):
    runner = CliRunner()
    text = tmp_path / "notes.txt"
    text.write_text("hello, world\n")
    res = runner.invoke(app, ["trace", "analyze", str(text)])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        f"error: {text}: not a pcap or pcapng capture (first bytes 68 65 6c 6c; expected a libpcap magic "
        "a1b2c3d4 / a1b23c4d or a pcapng section header 0a0d0d0a)"
    ]
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(LINUX.read_bytes()[:5000])
    res = runner.invoke(app, ["trace", "analyze", str(cut), "--json"])
    assert res.exit_code == 0
    assert json.loads(res.stdout)["summary"]["complete"] is False
    assert (
        "warning: the file ends inside a record: only the 55 complete records before it were analyzed"
        in res.output
    )
    res = runner.invoke(app, ["trace", "analyze", str(LINUX), "--from", "5"])
    assert res.exit_code == 2 and "error: --from 5: no unit" in res.output
    with pytest.raises(CaptureError, match="--to: 1.0 \\(expected a time after --from = 2.0\\)"):
        analyze(LINUX, start=2.0, end=1.0)
    with pytest.raises(
        tcplab.simulation.ScenarioError, match=r"trace.pcap\[0\].snaplen: 10 \(expected 54 to 65535"
    ):
        tcplab.run(
            SCENARIO, sets={"trace.pcap": {"node": "n0", "file": str(tmp_path / "x.pcap"), "snaplen": 10}}
        )
    assert not (tmp_path / "x.pcap").exists()
