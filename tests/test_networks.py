"""The networks of the papers from Python: the example scenarios run (shortened), background
traffic is reported per group, and bad input raises ScenarioError naming the field."""

import re
from pathlib import Path

import pytest

import tcplab

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


@pytest.mark.parametrize(
    "name,duration",
    [
        ("phase-effects", "60s"),
        ("barakat-chain", "60s"),
        ("multiple-gateways", "60s"),
        ("parvez-background", "20s"),
    ],
)
def test_network_scenarios_run_and_conserve_packets(name, duration):
    r = tcplab.run(SCENARIOS / f"{name}.toml", sets={"duration": duration, "warmup": "5s"})
    assert (r.flows["bytes_delivered"] > 0).all()
    t = r.totals
    assert (t["arrivals"] == t["drops_queue"] + t["drops_loss"] + t["delivered"] + t["in_link"]).all()


def test_background_traffic_is_reported_per_group():
    r = tcplab.run(SCENARIOS / "parvez-background.toml", sets={"duration": "20s", "warmup": "5s"})
    assert len(r.flows) == 2  # the foreground flows only
    groups = {g["name"]: g for g in r.traffic.iter_rows(named=True)}
    assert set(groups) == {"http", "ftp"}
    assert groups["http"]["sources"] == 75 and groups["http"]["responses"] > 0
    assert groups["ftp"]["goodput_bps"] > 0


def test_red_makes_the_phase_effect_disappear():
    text = SCENARIOS / "phase-effects.toml"
    dt = tcplab.run(text).flows.to_dicts()
    red = tcplab.run(text, sets={"network.dumbbell.bottleneck.queue.discipline": "red"}).flows.to_dicts()
    share = lambda fl: min(f["goodput_bps"] for f in fl) / max(f["goodput_bps"] for f in fl)
    assert share(dt) < 0.3 < 0.8 < share(red)


@pytest.mark.parametrize(
    "sets,field",
    [
        (
            {
                "network.dumbbell.bottleneck.queue.discipline": "red",
                "network.dumbbell.bottleneck.queue.red": {"min_th": 10, "max_th": 5},
            },
            "network.dumbbell.bottleneck.queue.red.max_th",
        ),
        (
            {"network.dumbbell.bottleneck.loss": {"model": "bursty", "p": 0.01, "m": 0}},
            "network.dumbbell.bottleneck.loss.m",
        ),
        (
            {"network.dumbbell.bottleneck.loss": {"model": "gilbert_elliott", "p_gb": 2, "p_bg": 0.5}},
            "network.dumbbell.bottleneck.loss.p_gb",
        ),
        ({"network.dumbbell.rtts": ["10ms", "75ms"]}, "network.dumbbell.rtts"),
    ],
)
def test_bad_network_input_names_the_field(sets, field):
    with pytest.raises(tcplab.ScenarioError, match="^" + re.escape(field + ":")):
        tcplab.run(SCENARIOS / "phase-effects.toml", sets=sets)
