"""Every example in scenarios/ runs (shortened) and reports sane numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

import tcplab

SCENARIOS = sorted((Path(__file__).resolve().parent.parent / "scenarios").glob("*.toml"))


def test_there_are_examples():
    names = {p.name for p in SCENARIOS}
    assert {"quickstart.toml", "queueless-random-loss.toml", "dumbbell.toml"} <= names


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_example_runs(path):
    resolved = tcplab.resolve(path)
    seconds = min(resolved["duration"], 30.0)  # seconds, a number
    r = tcplab.run(path, duration=f"{seconds}s", warmup=f"{seconds / 5}s")
    flows = r.flows
    assert flows.height == len(resolved["flows"])
    assert (flows["goodput_bps"] > 0).all()
    for t in r.totals.iter_rows(named=True):  # conservation on every link
        assert t["arrivals"] == t["drops_queue"] + t["drops_loss"] + t["delivered"] + t["in_link"]


def test_dumbbell_shares_the_bottleneck_with_an_rtt_bias():
    """8 flows, base RTTs 24..102 ms: the bottleneck stays full, every flow gets a share (Jain's
    index > 0.8), and the longest-RTT flow gets the least. (The 1/RTT bias is blurred here: 100
    packets of shared queueing add ~40 ms to every RTT, and timeouts hit the largest windows.)"""
    r = tcplab.run(Path(__file__).resolve().parent.parent / "scenarios/dumbbell.toml", duration="60s")
    g = r.flows.sort("flow")["goodput_bps"].to_list()
    jain = sum(g) ** 2 / (len(g) * sum(x * x for x in g))
    assert jain > 0.8, g
    assert g[-1] == min(g) and g[-1] < 0.75 * sum(g) / len(g), g
    bottleneck = r.links.filter(r.links["link"] == "bottleneck.fwd").row(0, named=True)
    assert bottleneck["utilization"] > 0.95
