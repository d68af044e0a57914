"""The TCP family from Python: every variant and receiver runs, options are checked against the
variant they apply to, and the App. A estimator of the models agrees with the simulator's."""

from __future__ import annotations

import random

import pytest

import tcplab
from tcplab import _core
from tcplab.models import jacobson

LOSSY = """
duration = "20s"
[network.path]
hops = [{ rate = "10Mbit/s", delay = "20ms", queue = { limit = 40 }, loss = { model = "bernoulli", p = "1%" } }]
[[flows]]
"""

VARIANTS = ["bsd43", "tahoe", "reno", "newreno", "sack", "fack", "sackrh"]
RECEIVERS = [{"ack": "immediate"}, {"ack": "delayed"}, {"ack": "bsd43"}, {"ack": "every", "ack_every": 4}]


@pytest.mark.parametrize("tcp", VARIANTS)
@pytest.mark.parametrize("receiver", RECEIVERS, ids=lambda r: r["ack"])
def test_every_variant_with_every_receiver_moves_data_and_conserves_packets(tcp, receiver):
    sets = {"flows.0.tcp": tcp, **{f"flows.0.{k}": v for k, v in receiver.items()}}
    if tcp == "bsd43" or receiver["ack"] == "bsd43":
        # bsd43 has no congestion window: the receiver's window is the limit; and the 4.3BSD
        # receiver ACKs at 35% of its window, so it needs a window of its era (with 64 MiB it
        # would ACK only on the 200 ms timer).
        sets["flows.0.rwnd"] = "16KiB"
    r = tcplab.run(LOSSY, sets=sets)
    f = r.flows.row(0, named=True)
    assert f["tcp"] == tcp and f["goodput_bps"] > 0.3e6
    for t in r.totals.iter_rows(named=True):
        assert t["arrivals"] == t["drops_queue"] + t["drops_loss"] + t["delivered"] + t["in_link"]


def test_sack_variants_recover_with_fewer_timeouts_than_reno_under_bursty_drops():
    """Drop-tail overflow drops bursts from one window: Reno's timeouts, SACK's repairs."""
    base = LOSSY.replace(', loss = { model = "bernoulli", p = "1%" }', "").replace("limit = 40", "limit = 8")
    many = base + "[[flows]]\n[[flows]]\n[[flows]]\n"
    timeouts = {}
    for tcp in ["reno", "newreno", "sack", "fack"]:
        r = tcplab.run(many, sets={f"flows.{i}.tcp": tcp for i in range(4)} | {"duration": "60s"})
        timeouts[tcp] = int(r.flows["timeouts"].sum())
    assert timeouts["sack"] < timeouts["reno"] and timeouts["fack"] < timeouts["reno"], timeouts
    assert timeouts["newreno"] <= timeouts["reno"], timeouts


@pytest.mark.parametrize("sets, field", [
    ({"flows.0.tcp": "tahoe", "flows.0.partial_deflation": False}, "flows[0].partial_deflation"),
    ({"flows.0.tcp": "reno", "flows.0.partial_ack_timer": "impatient"}, "flows[0].partial_ack_timer"),
    ({"flows.0.tcp": "sack", "flows.0.recover_guard": True}, "flows[0].recover_guard"),
    ({"flows.0.tcp": "sack", "flows.0.sack": False}, "flows[0].sack"),
    ({"flows.0.ack": "every"}, "flows[0].ack_every"),
    ({"flows.0.ack": "delayed", "flows.0.ack_every": 3}, "flows[0].ack_every"),
    ({"flows.0.abc_limit": 2}, "flows[0].abc_limit"),
    ({"flows.0.clock_tick": "500ms"}, "flows[0].clock_tick"),
    ({"flows.0.tcp": "bsd43", "flows.0.limited_transmit": True}, "flows[0].limited_transmit"),
    ({"flows.0.tcp": "vegas"}, "flows[0].tcp"),
    ({"flows.0.ack": "lazy"}, "flows[0].ack"),
    ({"flows.0.rto_estimator": "rfc2988"}, "flows[0].rto_estimator"),
])
def test_options_that_do_not_apply_are_errors_naming_the_field(sets, field):
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(LOSSY, sets=sets)
    assert str(e.value).startswith(field), str(e.value)


def test_unknown_variant_lists_the_allowed_ones():
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(LOSSY, sets={"flows.0.tcp": "cubic"})
    for v in VARIANTS:
        assert f"`{v}`" in str(e.value)


def test_models_app_a_estimator_agrees_with_the_simulators():
    """tcplab.models.jacobson.rto_series and the simulator's coarse-clock timer (through the
    binding) give the same (sa, sv, rto) on the hand-computed series and on random series."""
    assert _core.jacobson_series([10, 12, 8, 20]) == [(80, 20, 30), (82, 17, 27), (80, 15, 25), (90, 22, 33)]
    rng = random.Random(5)
    for _ in range(50):
        samples = [rng.randint(1, 400) for _ in range(rng.randint(1, 40))]
        sa, sv, rto = jacobson.rto_series(samples)
        assert _core.jacobson_series(samples) == list(zip(sa.tolist(), sv.tolist(), rto.tolist()))
