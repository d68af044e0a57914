"""The TCP family from Python: every variant and receiver runs, options are checked against the
variant (loss recovery) or congestion control they belong to, and the App. A estimator of the
models agrees with the simulator's."""

from __future__ import annotations

import json
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
RECEIVERS = [
    {"ack": "immediate"},
    {"ack": "delayed"},
    {"ack": "bsd43"},
    {"ack": "every", "ack_every": 4},
    {"ack": "linux"},
]


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


@pytest.mark.parametrize(
    "sets, field",
    [
        ({"flows.0.tcp": "tahoe", "flows.0.tcp.partial_deflation": False}, "flows[0].tcp.partial_deflation"),
        (
            {"flows.0.tcp": "reno", "flows.0.tcp.partial_ack_timer": "impatient"},
            "flows[0].tcp.partial_ack_timer",
        ),
        ({"flows.0.tcp": {"variant": "sack", "guard": True}}, "flows[0].tcp.guard"),
        ({"flows.0.tcp": "sack", "flows.0.sack": False}, "flows[0].sack"),
        ({"flows.0.ack": "every"}, "flows[0].ack_every"),
        ({"flows.0.ack": "delayed", "flows.0.ack_every": 3}, "flows[0].ack_every"),
        ({"flows.0.cc.abc_limit": 2}, "flows[0].cc.abc_limit"),
        ({"flows.0.clock_tick": "500ms"}, "flows[0].clock_tick"),
        ({"flows.0.tcp": "bsd43", "flows.0.limited_transmit": True}, "flows[0].limited_transmit"),
        ({"flows.0.tcp": "vegas"}, "flows[0].tcp"),
        ({"flows.0.ack": "lazy"}, "flows[0].ack"),
        ({"flows.0.rto_estimator": "rfc2988"}, "flows[0].rto_estimator"),
    ],
)
def test_options_that_do_not_apply_are_errors_naming_the_field(sets, field):
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(LOSSY, sets=sets)
    assert str(e.value).startswith(field), str(e.value)


#: Every option of a loss recovery or a congestion control, given a bad value or to the wrong
#: algorithm: the exact message (after "field: ").
BAD_SEAM_OPTIONS = [
    (
        {"flows.0.tcp": {"variant": "reno", "partial_deflation": False}},
        "flows[0].tcp.partial_deflation",
        "not an option of reno (options of reno: guard)",
    ),
    (
        {"flows.0.tcp": "newreno", "flows.0.tcp.guard": True},
        "flows[0].tcp.guard",
        "not an option of newreno (options of newreno: partial_deflation, partial_ack_timer, rto_in_recovery)",
    ),
    (
        {"flows.0.tcp": {"variant": "reno", "guard": "yes"}},
        "flows[0].tcp.guard",
        'invalid type: string "yes", expected a boolean',
    ),
    (
        {"flows.0.tcp": {"variant": "newreno", "partial_deflation": 1}},
        "flows[0].tcp.partial_deflation",
        "invalid type: integer `1`, expected a boolean",
    ),
    (
        {"flows.0.tcp": {"variant": "newreno", "partial_ack_timer": "lazy"}},
        "flows[0].tcp.partial_ack_timer",
        "unknown variant `lazy`, expected `impatient` or `slow_but_steady`",
    ),
    (
        {"flows.0.tcp": {"variant": "vegas"}},
        "flows[0].tcp.variant",
        "unknown variant `vegas`, expected one of `bsd43`, `tahoe`, `reno`, `newreno`, `sack`, `fack`, `sackrh`",
    ),
    # A congestion-control option given to a recovery (which has none, or other ones).
    (
        {"flows.0.tcp": {"variant": "sack", "d": 0.7}},
        "flows[0].tcp.d",
        "not an option of sack (options of sack: prr, rack, prr_rules, recovery_exit_growth, reentry; d belongs to the congestion control: flows[0].cc.d)",
    ),
    (
        {"flows.0.tcp": {"variant": "newreno", "growth": "abc"}},
        "flows[0].tcp.growth",
        "not an option of newreno (options of newreno: partial_deflation, partial_ack_timer, rto_in_recovery; "
        "growth belongs to the congestion control: flows[0].cc.growth)",
    ),
    (
        {"flows.0.cc.d": 1.5},
        "flows[0].cc.d",
        "1.5 is not a valid decrease factor (expected 0 < d < 1, to 6 decimal places)",
    ),
    (
        {"flows.0.cc.d": 0},
        "flows[0].cc.d",
        "0 is not a valid decrease factor (expected 0 < d < 1, to 6 decimal places)",
    ),
    (
        {"flows.0.cc.d": 1},
        "flows[0].cc.d",
        "1 is not a valid decrease factor (expected 0 < d < 1, to 6 decimal places)",
    ),
    (
        {"flows.0.cc.d": 0.9999999},
        "flows[0].cc.d",
        "0.9999999 is not a valid decrease factor (expected 0 < d < 1, to 6 decimal places)",
    ),
    ({"flows.0.cc.d": "half"}, "flows[0].cc.d", 'invalid type: string "half", expected f64'),
    (
        {"flows.0.cc.u": 0},
        "flows[0].cc.u",
        "0 is not a valid increase (expected 0 < u <= 1000 segments per round trip, to 6 decimal places)",
    ),
    (
        {"flows.0.cc.u": -1},
        "flows[0].cc.u",
        "-1 is not a valid increase (expected 0 < u <= 1000 segments per round trip, to 6 decimal places)",
    ),
    (
        {"flows.0.cc.u": 1001},
        "flows[0].cc.u",
        "1001 is not a valid increase (expected 0 < u <= 1000 segments per round trip, to 6 decimal places)",
    ),
    (
        {"flows.0.cc.growth": "cubic"},
        "flows[0].cc.growth",
        "unknown variant `cubic`, expected `per_ack` or `abc`",
    ),
    (
        {"flows.0.cc.abc_limit": 2},
        "flows[0].cc.abc_limit",
        'applies only with growth = "abc" (set flows[0].cc.growth)',
    ),
    (
        {"flows.0.cc": {"growth": "abc", "abc_limit": 0}},
        "flows[0].cc.abc_limit",
        "0 (expected at least 1 segment)",
    ),
    (
        {"flows.0.cc.ssthresh_rule": "half"},
        "flows[0].cc.ssthresh_rule",
        "unknown variant `half`, expected `flight_size` or `cwnd`",
    ),
    (
        {"flows.0.cc": "vegas"},
        "flows[0].cc",
        "unknown variant `vegas`, expected one of `aimd`, `cubic`, `bbr`, `dctcp`, `prague`, `none`",
    ),
    (
        {"flows.0.cc.algorithm": "reno"},
        "flows[0].cc.algorithm",
        "unknown variant `reno`, expected one of `aimd`, `cubic`, `bbr`, `dctcp`, `prague`, `none`",
    ),
    (
        {"flows.0.cc": {"algorithm": "bbr", "beta": 0.7}},
        "flows[0].cc.beta",
        "not an option of bbr (bbr has no options)",
    ),
    (
        {"flows.0.cc": {"algorithm": "cubic", "d": 0.5}},
        "flows[0].cc.d",
        "not an option of cubic (options of cubic: beta, c, fast_convergence, growth, abc_limit, hystart, style, hz, increase)",
    ),
    (
        {"flows.0.cc": {"algorithm": "cubic", "hystart": "on"}},
        "flows[0].cc.hystart",
        "unknown variant `on`, expected one of `off`, `linux`, `rfc9406`",
    ),
    (
        {"flows.0.cc": {"algorithm": "aimd", "style": "linux"}},
        "flows[0].cc.style",
        "not an option of aimd (options of aimd: d, u, growth, abc_limit, ssthresh_rule, hystart)",
    ),
    # An option that does not belong to the chosen algorithm.
    (
        {"flows.0.cc": {"algorithm": "none", "d": 0.5}},
        "flows[0].cc.d",
        "not an option of none (none has no options)",
    ),
    (
        {"flows.0.tcp": "bsd43", "flows.0.rwnd": "16KiB", "flows.0.cc.u": 2},
        "flows[0].cc.u",
        "not an option of none (none has no options)",
    ),
    (
        {"flows.0.cc.partial_deflation": False},
        "flows[0].cc.partial_deflation",
        "not an option of aimd (options of aimd: d, u, growth, abc_limit, ssthresh_rule, hystart; "
        "partial_deflation belongs to the loss recovery: flows[0].tcp.partial_deflation)",
    ),
    (
        {"flows.0.cc.beta": 0.7},
        "flows[0].cc.beta",
        "not an option of aimd (options of aimd: d, u, growth, abc_limit, ssthresh_rule, hystart)",
    ),
    # The flat options of earlier releases say where they went.
    (
        {"flows.0.ssthresh_rule": "cwnd"},
        "flows[0].ssthresh_rule",
        "no longer a flow option: it is written flows[0].cc.ssthresh_rule (docs/tcp-family.md)",
    ),
    (
        {"flows.0.recover_guard": True},
        "flows[0].recover_guard",
        'no longer a flow option: it is written flows[0].tcp.guard, with tcp.variant = "reno" (docs/tcp-family.md)',
    ),
    # The ns-2 agents have their own rules.
    (
        {"flows.0.profile": "ns2", "flows.0.ack": "immediate", "flows.0.cc.d": 0.7},
        "flows[0].cc",
        "the ns2 profile's agents have ns-2's own window rules (leave cc out)",
    ),
    (
        {
            "flows.0.profile": "ns2",
            "flows.0.ack": "immediate",
            "flows.0.tcp": {"variant": "reno", "guard": True},
        },
        "flows[0].tcp.guard",
        "not an option of the ns2 profile's agents (they follow ns-2; partial_ack is theirs)",
    ),
]


@pytest.mark.parametrize(
    "sets, field, message", BAD_SEAM_OPTIONS, ids=lambda x: x if isinstance(x, str) else ""
)
def test_seam_options_are_checked_against_their_algorithm(sets, field, message):
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(LOSSY, sets=sets)
    assert str(e.value) == f"{field}: {message}"


def test_seam_options_in_short_or_table_form_and_through_set():
    """`tcp = "newreno"` stays a plain value when resolved; options make a table; `--set` reaches
    into either form; a `cc` table without `algorithm` is the variant's default."""
    r = tcplab.resolve(LOSSY, sets={"flows.0.tcp": "newreno"})
    assert r["flows"][0]["tcp"] == "newreno" and r["flows"][0]["cc"] is None
    r = tcplab.resolve(
        LOSSY,
        sets={
            "flows.0.tcp": "newreno",
            "flows.0.tcp.partial_deflation": False,
            "flows.0.cc.d": 0.7,
            "flows.0.cc.ssthresh_rule": "cwnd",
        },
    )
    assert r["flows"][0]["tcp"] == {"variant": "newreno", "partial_deflation": False}
    assert r["flows"][0]["cc"] == {"d": 0.7, "ssthresh_rule": "cwnd"}
    r = tcplab.resolve(LOSSY, sets={"flows.0.tcp": {"variant": "newreno"}, "flows.0.cc": "aimd"})
    assert r["flows"][0]["tcp"] == "newreno" and r["flows"][0]["cc"] == "aimd"


def test_cli_set_reaches_the_congestion_controls_options(cli, root):
    """`--set flows.0.cc.d=0.7` on a file whose flow has `cc = "aimd"`, from Python and from the
    command line, and the schema describes both seams' tables."""
    sets = {"duration": "15s", "flows.0.cc.d": 0.7, "flows.0.cc.u": 2}
    resolved = tcplab.resolve(root / "scenarios/quickstart.toml", sets=sets)
    assert resolved["flows"][0]["cc"] == {"algorithm": "aimd", "d": 0.7, "u": 2}
    args = ["--set", "duration=15s", "--set", "flows.0.cc.d=0.7", "--set", "flows.0.cc.u=2"]
    out = cli("run", "scenarios/quickstart.toml", *args, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["flows"][0]["goodput_bps"] > 0
    out = cli("run", "scenarios/quickstart.toml", *args, "--set", "flows.0.cc.d=1.5")
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "error: scenarios/quickstart.toml: flows[0].cc.d: 1.5 is not a valid "
        "decrease factor (expected 0 < d < 1, to 6 decimal places)"
    )
    schema = json.loads(cli("schema").stdout)
    flow = schema["definitions"]["FlowSpec"]["properties"]
    assert flow["tcp"]["allOf"][0]["$ref"].endswith("TcpSpec") and flow["cc"]["anyOf"][0]["$ref"].endswith(
        "CcSpec"
    )
    shapes = {d: len(schema["definitions"][d]["anyOf"]) for d in ("TcpSpec", "CcSpec")}
    assert shapes == {
        "TcpSpec": 5,
        "CcSpec": 7,
    }  # a name, or one table per algorithm (aimd, cubic, bbr, dctcp, prague, none)


def test_d_sets_the_reduction_of_every_variant():
    """The loss recoveries ask the congestion control: d = 0.7 leaves a larger ssthresh after
    the first loss than d = 0.5, for every recovery (FACK's rate halving is bounded by d x W,
    so only d < 1/2 changes it: tested in crates/tcplab-sim/tests/cc.rs)."""

    def first_ssthresh(tcp, d):
        r = tcplab.run(
            LOSSY, sets={"flows.0.tcp": tcp, "flows.0.cc.d": d, "trace.cwnd": True, "duration": "5s"}
        )
        return next(s for s in r.trace("cwnd")["ssthresh_bytes"] if s is not None)

    for tcp in ["tahoe", "reno", "newreno", "sack", "sackrh"]:
        assert first_ssthresh(tcp, 0.7) > first_ssthresh(tcp, 0.5), tcp


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
        assert _core.jacobson_series(samples) == list(
            zip(sa.tolist(), sv.tolist(), rto.tolist(), strict=True)
        )
