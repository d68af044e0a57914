"""`tcplab trace plot DIR --flow N` on a simulated run's --trace-out directory: the frames the
figures draw equal what the simulator counted and what the capture analyzer reads from a
capture of the same run at the sender, and a run without the needed trace says which option
adds it."""

from __future__ import annotations

import polars as pl
import pytest
from typer.testing import CliRunner

import tcplab
from tcplab.capture import analyze
from tcplab.capture.run_plots import flow_frames
from tcplab.cli import app, write_traces

SCENARIO = """
duration = "20s"
warmup = "0s"
seed = 3
[network.path]
hops = [
  { rate = "100Mbit/s", delay = "1ms", queue = { limit = 1000 } },
  { rate = "5Mbit/s", delay = "20ms", queue = { limit = 20 }, loss = { model = "bernoulli", p = "0.5%" } },
]
[[flows]]
tcp = "newreno"
ack = "immediate"
[trace]
cwnd = true
links = ["hop0.fwd", "hop0.rev", "hop1.fwd", "hop1.rev"]
"""


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    d = tmp_path_factory.mktemp("run")
    f = d / "s.toml"
    f.write_text(SCENARIO + f'pcap = {{ node = "n0", file = "{d / "sender.pcap"}" }}\n')
    res = tcplab.run(f)
    out = d / "traces"
    write_traces(res, out)
    return res, out, d / "sender.pcap"


def test_frames_equal_the_simulators_counts_and_the_capture(traced):
    res, out, pcap = traced
    fr = flow_frames(out, 0)
    flow = res.flows.row(0, named=True)
    sent = fr["sent"]
    assert fr["data_link"]["link"][0] == "hop0.fwd" and fr["ack_link"]["link"][0] == "hop0.rev"
    assert sent.height == flow["segments_sent"]
    assert sent["retransmit"].sum() == flow["segments_retransmitted"] > 0
    links = res.links
    assert fr["drops"].height == int(links["drops_queue"].sum() + links["drops_loss"].sum()) > 0
    # The capture at the sender's node sees the same segments and ACKs: the same Karn samples.
    a = analyze(pcap, conn=0)
    seg = a.segments.filter(pl.col("kind") == "data")
    assert seg.height == sent.height
    assert (seg["time_ns"] - seg["time_ns"][0]).to_list() == (sent["time_ns"] - sent["time_ns"][0]).to_list()
    karn = a.rtt.filter(pl.col("source") == "karn")["rtt_s"].round(9).to_list()
    assert karn == fr["rtt"]["rtt_s"].round(9).to_list()
    assert len(karn) > 100


@pytest.mark.parametrize("kind", ["seq", "cwnd", "rtt"])
def test_each_kind_is_written(traced, tmp_path, kind):
    out = traced[1]
    png = tmp_path / f"{kind}.png"
    r = CliRunner().invoke(
        app,
        [
            "trace",
            "plot",
            str(out),
            "--flow",
            "0",
            "--kind",
            kind,
            "-o",
            str(png),
            "--from",
            "2s",
            "--to",
            "5s",
        ],
    )
    assert r.exit_code == 0, r.stdout + r.stderr
    assert png.read_bytes()[:4] == b"\x89PNG"


def _error(*args: str) -> str:
    r = CliRunner().invoke(app, ["trace", "plot", *args])
    assert r.exit_code == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    return lines[0]


def test_missing_traces_name_the_option(traced, tmp_path):
    only_cwnd = tmp_path / "cw"
    only_cwnd.mkdir()
    pl.read_parquet(traced[1] / "cwnd.parquet").write_parquet(only_cwnd / "cwnd.parquet")
    assert "trace.links=" in _error(str(only_cwnd), "--kind", "seq", "-o", str(tmp_path / "a.png"))
    assert "trace.links=" in _error(str(only_cwnd), "--kind", "rtt", "-o", str(tmp_path / "a.png"))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "trace.cwnd=true" in _error(str(empty), "--kind", "cwnd", "-o", str(tmp_path / "a.png"))
    assert "flow 4 has no cwnd records" in _error(
        str(traced[1]), "--flow", "4", "--kind", "cwnd", "-o", str(tmp_path / "a.png")
    )


def test_flow_is_for_run_directories(traced, tmp_path):
    assert "--flow: only with a run's --trace-out directory" in _error(
        str(traced[2]), "--flow", "0", "-o", str(tmp_path / "a.png")
    )
    assert "--conn/--dir: for a capture" in _error(
        str(traced[1]), "--conn", "1", "-o", str(tmp_path / "a.png")
    )
