"""Emulation (`tcplab emulate`): the mapping of scenario fields to the kernel (no privileges
needed), and short real runs through namespaces and TUN devices (skipped, with the reason,
where the machine lacks root, /dev/net/tun or the ip command)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, run_cli
from tcplab.emulate import EmulationError, kernel, netns
from tcplab.emulate import run as emu_run


def flow(**kw):
    base = {
        "tcp": "reno",
        "cc": None,
        "ack": "delayed",
        "mss": 1460,
        "header_bytes": None,
        "timestamps": False,
        "initial_window": 1,
        "initial_ssthresh": None,
        "rwnd": 65536,
        "bytes": None,
        "start": 0.0,
        "initial_rto": 1.0,
        "min_rto": 1.0,
        "max_rto": 60.0,
        "rto_granularity": 0.0,
        "sack": None,
        "dsack": False,
        "ack_every": None,
        "limited_transmit": False,
        "frto": False,
        "idle_restart": True,
        "dupthresh": 3,
        "rto_estimator": None,
        "clock_tick": None,
        "clock_phase": 0.0,
        "backoff": True,
        "delack_timeout": 0.2,
        "profile": None,
        "partial_ack": None,
    }
    base.update(kw)
    return base


def test_a_classic_reno_flow_maps_to_the_kernels_settings():
    kf = kernel.kernel_flow(0, flow(), {"reno", "cubic"})
    assert kf.congestion_control == "reno"
    assert kf.mtu == 1460 + 40  # no timestamps: every segment carries exactly the MSS
    assert kf.sysctls["net.ipv4.tcp_sack"] == "0"
    assert kf.sysctls["net.ipv4.tcp_timestamps"] == "0"
    assert kf.sysctls["net.ipv4.tcp_no_metrics_save"] == "1"
    assert kf.sender_route == ["initcwnd", "1", "rto_min", "1000ms"]
    assert kf.receiver_route == []
    # What the kernel does only its own way is said, not hidden.
    assert any("NewReno" in n for n in kf.notes)
    assert any("limited transmit" in n for n in kf.notes)
    assert any("rto_restart_on_retransmit" in n for n in kf.notes)
    assert any("ack_counting" in n for n in kf.notes)


def test_the_linux_profile_maps_without_surprises():
    from tcplab.simulation import resolve

    d = resolve(
        {
            "duration": "10s",
            "network": {"path": {"hops": [{"rate": "10Mbit/s", "delay": "10ms"}]}},
            "flows": [{"profile": "linux"}],
        }
    )
    kf = kernel.kernel_flow(0, d["flows"][0], {"reno", "cubic"})
    assert kf.congestion_control == "cubic"
    assert kf.mtu == 1448 + 52  # timestamps on: MSS + 40 + 12
    assert kf.sysctls["net.ipv4.tcp_sack"] == "1"
    assert kf.sysctls["net.ipv4.tcp_recovery"] == "1"  # RACK
    assert kf.sysctls["net.ipv4.tcp_frto"] == "2"
    assert kf.sender_route == ["initcwnd", "10", "rto_min", "200ms"]
    # The profile asks for what the kernel does: only the granularity of its clock differs.
    assert [n for n in kf.notes if "rto_granularity" not in n] == []


@pytest.mark.parametrize(
    "field, value, needle",
    [
        ("profile", "ns2", "flows[0].profile"),
        ("tcp", "tahoe", "flows[0].tcp: 'tahoe' cannot be emulated"),
        ("tcp", {"variant": "fack"}, "flows[0].tcp: 'fack'"),
        ("ack", "bsd43", "flows[0].ack"),
        ("cc", "none", "flows[0].cc: 'none'"),
        ("header_bytes", 52, "flows[0].header_bytes: 52 is not the kernel's header (40 bytes"),
        ("backoff", False, "flows[0].backoff"),
    ],
)
def test_what_the_kernel_cannot_do_is_an_error_naming_the_field(field, value, needle):
    with pytest.raises(EmulationError, match=None) as e:
        kernel.kernel_flow(0, flow(**{field: value}), {"reno", "cubic"})
    assert needle in str(e.value)


def test_cubic_options_the_kernel_does_its_own_way_are_noted():
    kf = kernel.kernel_flow(
        0,
        flow(cc={"algorithm": "cubic", "style": "rfc9438", "beta": 0.5, "hystart": "linux"}),
        {"reno", "cubic"},
    )
    assert kf.congestion_control == "cubic"
    noted = " ".join(kf.notes)
    assert "flows[0].cc.style = 'rfc9438'" in noted and "flows[0].cc.beta = 0.5" in noted
    assert "cc.hystart" not in noted  # the kernel's own value: nothing to say


def test_a_flows_ecn_maps_to_tcp_ecn_and_an_override_wins():
    # Off with a receiver that accepts ECN (the simulator's default) is Linux's tcp_ecn = 2.
    assert kernel.kernel_flow(0, flow(), {"reno"}).sysctls["net.ipv4.tcp_ecn"] == "2"
    assert kernel.kernel_flow(0, flow(ecn="off"), {"reno"}).sysctls["net.ipv4.tcp_ecn"] == "2"
    off = flow(ecn="off", ecn_receiver=False)
    assert kernel.kernel_flow(0, off, {"reno"}).sysctls["net.ipv4.tcp_ecn"] == "0"
    with pytest.raises(EmulationError, match=r"flows\[0\]\.ecn_receiver: false with ecn = 'classic'"):
        kernel.kernel_flow(0, flow(ecn="classic", ecn_receiver=False), {"reno"})
    kf = kernel.kernel_flow(0, flow(ecn="classic"), {"reno"})
    assert kf.sysctls["net.ipv4.tcp_ecn"] == "1" and kf.ecn_source == 'flows[0].ecn = "classic"'
    assert kernel.kernel_flow(0, flow(ecn="accecn"), {"reno"}).sysctls["net.ipv4.tcp_ecn"] == "3"
    kf = kernel.kernel_flow(0, flow(ecn="classic"), {"reno"}, tcp_ecn=2)
    assert kf.sysctls["net.ipv4.tcp_ecn"] == "2" and kf.ecn_source == "--tcp-ecn 2"
    with pytest.raises(
        EmulationError, match=r"flows\[0\]\.ecn: 'l4s' \(expected one of off, classic, accecn\)"
    ):
        kernel.kernel_flow(0, flow(ecn="l4s"), {"reno"})
    resolved = {"flows": [flow()], "duration": 1.0}
    with pytest.raises(EmulationError, match=r"--tcp-ecn 3: expected 0 \(off\), 1 .* or 2"):
        kernel.kernel_flows(resolved, {"reno"}, tcp_ecn=3)


def test_a_congestion_control_the_kernel_lacks_is_named():
    with pytest.raises(EmulationError) as e:
        kernel.kernel_flow(0, flow(cc="bbr"), {"reno", "cubic"})
    assert (
        "flows[0].cc" in str(e.value) and "'bbr'" in str(e.value) and "available: cubic, reno" in str(e.value)
    )


def test_simulated_only_traces_are_refused():
    with pytest.raises(EmulationError, match=r"^trace\.pcap: .*--capture"):
        kernel.kernel_flows({"trace": {"pcap": [{"node": "n0", "file": "x.pcap"}]}, "flows": [flow()]})
    with pytest.raises(EmulationError, match=r"^trace\.cwnd: "):
        kernel.kernel_flows({"trace": {"cwnd": True}, "flows": [flow()]})
    with pytest.raises(EmulationError, match=r"^flows: "):
        kernel.kernel_flows({"trace": {}, "flows": []})


def test_a_flows_count_is_that_many_kernel_flows():
    # Table 0 stands for three flows, table 1 is left out, table 2 is one: four flows, indexed
    # as the simulator numbers them; an error names the table, not the flow.
    flows = kernel.kernel_flows(
        {"trace": {}, "flows": [flow(count=3), flow(count=0, tcp="sack"), flow(ack="immediate")]}
    )
    assert [f.index for f in flows] == [0, 1, 2, 3]
    assert [f.congestion_control for f in flows] == [flows[0].congestion_control] * 4
    with pytest.raises(EmulationError, match=r"^flows\[1\]\.profile"):
        kernel.kernel_flows({"trace": {}, "flows": [flow(count=3), flow(profile="ns2")]})
    with pytest.raises(EmulationError, match=r"^flows: "):
        kernel.kernel_flows({"trace": {}, "flows": [flow(count=0)]})


def test_a_link_faster_than_the_machine_holds_is_refused(tmp_path, monkeypatch):
    cap = tmp_path / "emulator.json"
    cap.write_text(json.dumps({"max_rate_bps": 200_000_000, "when": "today"}))
    monkeypatch.setattr(emu_run, "CAPACITY_FILE", cap)
    resolved = {"network": {"path": {"hops": [{"rate": 100_000_000}, {"rate": 1_000_000_000}]}}}
    with pytest.raises(EmulationError) as e:
        emu_run.check_rates(resolved, force=False)
    assert "network.path.hops.1.rate: 1000 Mbit/s" in str(e.value) and "200 Mbit/s" in str(e.value)
    assert len(emu_run.check_rates(resolved, force=True)) == 1


def test_missing_root_is_one_clear_line(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert "needs root" in netns.missing_requirements()


def test_addresses_are_the_simulators_capture_addresses():
    assert netns.sender_ip(0) == "10.0.0.1" and netns.receiver_ip(0) == "10.128.0.1"
    assert netns.sender_ip(300) == "10.0.1.45"


def test_bad_input_on_the_command_line(tmp_path):
    bad = tmp_path / "tahoe.toml"
    bad.write_text(
        'duration = "3s"\n[network.path]\nhops = [{ rate = "10Mbit/s", delay = "5ms" }]\n'
        '[[flows]]\ntcp = "tahoe"\n'
    )
    r = run_cli("emulate", str(bad))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"error: {bad}: flows[0].tcp: 'tahoe' cannot be emulated: the kernel's "
        "TCP recovers as NewReno or with SACK (expected one of reno, newreno, sack)"
    ]
    good = tmp_path / "reno.toml"
    good.write_text(bad.read_text().replace('"tahoe"', '"reno"'))
    r = run_cli("emulate", str(good), "--tcp-ecn", "3")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"error: {good}: --tcp-ecn 3: expected 0 (off), 1 (request and accept ECN) or 2 (accept only)"
    ]
    r = run_cli("emulate", str(bad), "--spin-us", "-1")
    assert r.returncode == 2 and "--spin-us" in r.stderr
    r = run_cli("emulate")
    assert r.returncode == 2 and "SCENARIO" in r.stderr


# --- real runs -------------------------------------------------------------------------------

MISSING = netns.missing_requirements()
needs_machine = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")

SHORT = """
duration = "4s"
warmup = "1s"
[network.path]
hops = [{ rate = "10Mbit/s", delay = "10ms", queue = { limit = 30 } }]
[[flows]]
profile = "linux"
"""


def _ours() -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(netns.PREFIX)]


@needs_machine
def test_a_short_emulation_fills_the_link_and_accounts_for_every_packet(tmp_path):
    from tcplab.emulate import emulate

    sc = tmp_path / "short.toml"
    sc.write_text(SHORT)
    r = emulate(sc, capture=tmp_path / "senders.pcap")
    c = r.selfcheck
    # Conservation: every packet read from a tap was delivered, dropped by the model, or is
    # still inside it.
    assert c["packets_in"] == c["packets_out"] + c["packets_dropped"] + c["packets_in_flight"]
    assert c["lateness"]["count"] == c["packets_out"]
    link = r.links.filter(r.links["link"] == "hop0.fwd").row(0, named=True)
    assert link["utilization"] > 0.9, link
    f = r.flows.row(0, named=True)
    assert f["cc"] == "cubic" and f["error"] is None
    # The sink's goodput cannot exceed the link's payload rate (1448 of every 1500 bytes).
    assert 0.8 * 10e6 * 1448 / 1500 < f["goodput_bps"] <= 10e6 * 1448 / 1500 * 1.01
    # The analyzer found the connection in the capture, and the kernel's count of
    # retransmissions equals the capture's.
    assert f["segments_sent"] > 0
    assert f["kernel_retrans"] == f["segments_retransmitted"]
    # The RTT: the analyzer's smallest sample over the whole capture is a full segment's round
    # trip, 2 x 10 ms plus the serialization of 1500 bytes out and a 52-byte ACK back at
    # 10 Mbit/s (and the emulator's lateness); the kernel's min_rtt (TCP_INFO) also counts the
    # handshake's small segments, so it lies between the bare propagation and that.
    from tcplab.capture import analyze

    whole = analyze(tmp_path / "senders.pcap").connections
    row = whole.filter(whole["src"].str.starts_with(netns.sender_ip(0) + ":")).row(0, named=True)
    full_segment = 0.020 + (1500 + 52) * 8 / 10e6
    assert full_segment <= row["min_rtt_s"] < full_segment + 0.0005, row["min_rtt_s"]
    assert 0.020 <= f["kernel_min_rtt_s"] <= row["min_rtt_s"] + 0.0002, (
        f["kernel_min_rtt_s"],
        row["min_rtt_s"],
    )
    assert (tmp_path / "senders.pcap").stat().st_size > 24
    # The sender's and the sink's threads ran at SCHED_FIFO beside the loop (realtime).
    assert c["endpoints_realtime"] + c["endpoints_normal"] == 2
    if c["realtime"]:
        assert c["endpoints_realtime"] == 2
    # Only this process's namespaces: another emulation may be running beside the test.
    mine = f"{netns.PREFIX}{os.getpid()}-"
    assert not any(n.startswith(mine) for n in _ours()), "the run left namespaces behind"


def test_endpoint_threads_ask_for_sched_fifo_only_with_realtime():
    import threading

    from tcplab.emulate.endpoints import ENDPOINT_PRIORITY, Endpoints

    seen = {}
    for realtime in (False, True):
        ep = Endpoints([], [], [], 0.0, 1.0, lambda: 0.0, realtime=realtime)

        def thread(ep=ep, realtime=realtime):
            ep.apply_scheduling()
            seen[realtime] = (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority)

        t = threading.Thread(target=thread)
        t.start()
        t.join()
        if not realtime:
            assert (ep.realtime_granted, ep.realtime_refused) == (0, 0)
            assert seen[False][0] != os.SCHED_FIFO
        else:
            assert ep.realtime_granted + ep.realtime_refused == 1
            if ep.realtime_granted:
                assert seen[True] == (os.SCHED_FIFO, ENDPOINT_PRIORITY)
    # The calling thread's own scheduling is untouched.
    assert os.sched_getscheduler(0) != os.SCHED_FIFO


@needs_machine
def test_stale_namespaces_of_a_killed_run_are_removed():
    dead = 4_000_000  # above pid_max's default: no such process
    name = f"{netns.PREFIX}{dead}-0s"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        assert name in netns.clean_stale()
        assert name not in _ours()
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True)


@needs_machine
def test_ctrl_c_stops_the_run_and_removes_everything(tmp_path):
    sc = tmp_path / "long.toml"
    sc.write_text(SHORT.replace('"4s"', '"60s"'))
    env = dict(os.environ, COLUMNS="160")
    p = subprocess.Popen(
        [sys.executable, "-m", "tcplab.cli", "emulate", str(sc)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not any(n.startswith(f"{netns.PREFIX}{p.pid}-") for n in _ours()):
        assert time.monotonic() < deadline and p.poll() is None, "the run never created its namespaces"
        time.sleep(0.1)
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert "interrupted" in err
    assert not any(n.startswith(f"{netns.PREFIX}{p.pid}-") for n in _ours())


@needs_machine
def test_emulated_store_rows_have_the_columns_of_simulated_ones(tmp_path):
    """`tcplab emulate --out` writes the rows `tcplab run --out` would: the inputs, the flow's
    columns, the shared links' and the background groups' (`group.<name>.<metric>`)."""
    from tcplab import results

    sc = tmp_path / "cbr.toml"
    sc.write_text(
        SHORT.replace('duration = "4s"', 'duration = "2s"').replace('warmup = "1s"', 'warmup = "0.5s"')
        + '[[traffic]]\nname = "voice"\nkind = "cbr"\nrate = "1Mbit/s"\npacket = 1000\n'
    )
    r = run_cli("emulate", str(sc), "--out", str(tmp_path / "emulated.parquet"), timeout=180)
    assert r.returncode == 0, r.stderr
    r = run_cli("run", str(sc), "--out", str(tmp_path / "simulated.parquet"))
    assert r.returncode == 0, r.stderr
    emulated = results.load(tmp_path / "emulated.parquet")
    simulated = results.load(tmp_path / "simulated.parquet")
    assert emulated["mode"].to_list() == ["emulated"]
    # The CBR source sends 1 Mbit/s of 1000-byte datagrams over the 1.5 s window in both. In
    # real time a loaded machine delays some datagrams due before the window opens into it
    # (seen: 1.0133 Mbit/s at a load of 16, 2.5 datagrams more), so the emulated run may count
    # up to 3 datagrams more than the window holds; the simulated one at most one partial.
    window_s, datagram_bits = 1.5, 8000
    for df, extra in ((emulated, 3), (simulated, 1)):
        cap = 1e6 + extra * datagram_bits / window_s
        assert 0.9e6 < df["group.voice.goodput_bps"][0] <= cap, df["group.voice.goodput_bps"][0]
    assert {c for c in simulated.columns if c.startswith(("group.", "link."))} == {
        c for c in emulated.columns if c.startswith(("group.", "link."))
    }


@needs_machine
def test_ecn_on_through_a_queue_that_does_not_mark_passes_ect0_unmarked(tmp_path):
    # The plumbing of ECN: the kernel negotiates it (--tcp-ecn 1), its data enters the model as
    # ECT(0) and leaves unmarked through drop-tail; the capture at the sender shows the handshake
    # and ECT(0) data, and nothing was rewritten.
    from tcplab.capture import analyze
    from tcplab.emulate import emulate

    sc = tmp_path / "short.toml"
    sc.write_text(SHORT)
    r = emulate(sc, capture=tmp_path / "senders.pcap", tcp_ecn=1)
    c = r.selfcheck
    assert c["packets_in"] == c["packets_out"] + c["packets_dropped"] + c["packets_in_flight"]
    assert c["ce_marked"] == 0
    whole = analyze(tmp_path / "senders.pcap").connections
    row = whole.filter(whole["src"].str.starts_with(netns.sender_ip(0) + ":")).row(0, named=True)
    assert row["ecn_handshake"] == "classic"
    assert row["ect0_segments"] > 1000, row
    # Linux sends retransmissions Not-ECT (RFC 3168 Sec. 6.1.5): the others are ECT(0).
    assert row["ect0_segments"] + row["segments_retransmitted"] >= row["segments_sent"]
    assert (row["ce_segments"], row["ece_acks"], row["ecn_reductions"]) == (0, 0, 0)
    # Linux sets CWR after a loss's reduction too (tcp_enter_recovery, tcp_enter_loss): at most
    # one per loss event here, where nothing marks.
    assert row["cwr_segments"] <= row["loss_events"], row
