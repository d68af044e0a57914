"""Queue disciplines from Python: bad CoDel and FQ-CoDel options raise ScenarioError with one
line naming the field and what was expected; the schema lists the disciplines and their
options; the per-cause drop counters reach the links table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tcplab

ONE_HOP = """
duration = "5s"
[network.path]
hops = [{ rate = "2Mbit/s", delay = "10ms", queue = { limit = 200 } }]
[[flows]]
tcp = "sack"
"""

Q = "network.path.hops.0.queue"


@pytest.mark.parametrize(
    "bad, field, expected",
    [
        (
            {f"{Q}.discipline": "codel", f"{Q}.codel": {"target": 0}},
            "codel.target",
            "expected 0 < target < interval",
        ),
        (
            {f"{Q}.discipline": "codel", f"{Q}.codel": {"target": "200ms"}},
            "codel.target",
            "is not below interval 0.1s",
        ),
        ({f"{Q}.discipline": "codel", f"{Q}.codel": {"interval": 0}}, "codel.interval", "expected > 0"),
        (
            {f"{Q}.discipline": "fq_codel", f"{Q}.fq_codel": {"interval": "1ms"}},
            "fq_codel.interval",
            "is not above target 0.005s",
        ),
        (
            {f"{Q}.discipline": "fq_codel", f"{Q}.fq_codel": {"quantum": 1000}},
            "fq_codel.quantum",
            "at least one MTU",
        ),
        (
            {f"{Q}.discipline": "fq_codel", f"{Q}.fq_codel": {"flows": 0}},
            "fq_codel.flows",
            "expected 1..=65536",
        ),
        ({f"{Q}.discipline": "pie", f"{Q}.pie": {"beta": 40}}, "pie.beta", "expected 0 < beta <= 32"),
        (
            {f"{Q}.discipline": "pie", f"{Q}.pie": {"ecn": True, "mark_ecnth": 2}},
            "pie.mark_ecnth",
            "expected 0 <= mark_ecnth <= 1",
        ),
        (
            {f"{Q}.discipline": "dualpi2", f"{Q}.dualpi2": {"coupling": 0.5}},
            "dualpi2.coupling",
            "expected 1 <= coupling <= 255",
        ),
        ({f"{Q}.codel": {"target": "5ms"}}, "codel", 'does not apply to discipline "droptail"'),
        (
            {f"{Q}.discipline": "red", f"{Q}.fq_codel": {"flows": 4}},
            "fq_codel",
            'does not apply to discipline "red"',
        ),
    ],
)
def test_bad_queue_options_are_one_line_naming_the_field(bad, field, expected):
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(ONE_HOP, sets=bad)
    message = str(e.value)
    assert message.startswith(f"network.path.hops[0].queue.{field}: "), message
    assert expected in message and "\n" not in message


def test_schema_lists_the_disciplines_and_their_options(cli):
    out = cli("schema")
    assert out.returncode == 0
    text = out.stdout
    schema = json.loads(text)
    queue = schema["definitions"]["QueueSpec"]["properties"]
    assert {"discipline", "limit", "limit_bytes", "red", "codel", "fq_codel"} <= set(queue)
    for name in ("droptail", "red", "random_drop", "drop_front", "codel", "fq_codel"):
        assert f'"{name}"' in text
    assert {"target", "interval", "maxpacket"} <= set(schema["definitions"]["CodelSpec"]["properties"])
    assert {"quantum", "flows", "target", "interval"} <= set(
        schema["definitions"]["FqCodelSpec"]["properties"]
    )


def test_drops_are_counted_by_cause_in_the_links_table(root: Path):
    r = tcplab.run(root / "scenarios/codel.toml", duration="20s", warmup="5s")
    links = r.links
    assert (
        links["drops_queue"] == links["drops_overflow"] + links["drops_early"] + links["drops_sojourn"]
    ).all()
    b = links.filter(links["link"] == "bottleneck.fwd").row(0, named=True)
    assert b["drops_sojourn"] > 0 and b["drops_overflow"] == 0 and b["drops_early"] == 0
    assert b["mean_queue_delay_s"] < 0.02
    red = tcplab.run(ONE_HOP, sets={f"{Q}.discipline": "red", f"{Q}.limit": 30, "duration": "20s"}).links
    assert red["drops_early"].sum() > 0
