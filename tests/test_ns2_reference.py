"""tcplab's ns2 profile against ns-2's own `tcpVariants` outputs (issue #7).

`python -m tcplab.ns2ref` runs the full check and prints the table. Here:

* a short form that needs no reference folder (CI): a handful of tests' facts from the
  reference README (counts of `+`/`-` at r1, sink ACKs, every retransmission as seq@time
  of its `+` at r1, in microseconds), which must stay identical;
* with the reference folder, all 58 tests must match ns-2 event for event, exactly, with the
  same sender variables (cwnd_, ssthresh_, srtt_, rttvar_, ... at every change) and the same
  summary.csv row.

The reference folder is `ns2ref.REFERENCE`: $NS2_TCPVARIANTS when set, else the copy the package
ships (python/tcplab/validation/data/ns2-tcpVariants, the same bytes as the project's shared
`../shared/reference/ns2-tcpVariants` beside the repository root, which
tests/test_reproduce.py checks where that folder exists). A $NS2_TCPVARIANTS that names no
reference fails these tests with one line naming the variable; it never skips them quietly.
"""

from __future__ import annotations

import os

import pytest

from tcplab.validation import ns2ref

# test: (+ at r1, - at r1, ACKs sent by the sink, [(seq, us of its + at r1)] retransmissions)
SHORT = {
    "onedrop_tahoe": (245, 245, 234, [(14, 2070240)]),
    "twodrops_reno": (117, 117, 112, [(14, 2070240), (28, 3282120)]),
    "threedrops_newreno": (254, 253, 242, [(14, 2070240), (26, 2282120), (28, 2494000)]),
    "fourdrops_sack": (274, 272, 261, [(14, 2070328), (24, 2143216), (26, 2153704), (28, 2344872)]),
    "twodrops_SA_tahoe": (244, 244, 233, [(14, 2070240), (28, 2282120), (29, 2283160)]),
    "threedrops_fack": (297, 295, 284, [(14, 2070328), (26, 2164016), (28, 2344784)]),
    "fourdrops_sackRH": (231, 231, 221, [(14, 2080728), (24, 2272072), (26, 2334472), (28, 2335512)]),
    "multiple2_partial_ack_sack": (
        239,
        238,
        227,
        [
            (11, 2070416),
            (12, 2112016),
            (12, 2282472),
            (13, 2283512),
            (14, 2324072),
            (16, 2325112),
            (23, 2504928),
            (26, 2546352),
        ],
    ),
}


@pytest.mark.parametrize("test", sorted(SHORT))
def test_short_form_matches_ns2(test):
    ev, _ = ns2ref.tcplab_events(test)
    plus = sum(1 for e in ev.packets if e[1] == "+")
    minus = sum(1 for e in ev.packets if e[1] == "-")
    c = ns2ref.Comparison(test, ev, ns2ref.Events())
    assert (plus, minus, len(ev.acks), c.retransmissions(ev)) == SHORT[test]
    name = ns2ref.parse_test(test)[0]
    assert [s for _, s in ev.drops] == ns2ref.DROPS[name]


def test_scenario_builds_the_reference_topology():
    sc = ns2ref.scenario("multiple_SA_sack")
    hops = sc["network"]["path"]["hops"]
    assert hops[1]["loss"]["packets"] == [12, 13, 14, 15, 17, 18, 19, 20]
    assert hops[1]["queue"]["limit"] == 7
    f = sc["flows"][0]
    assert (f["profile"], f["tcp"], f["limited_transmit"]) == ("ns2", "sack", True)


@pytest.fixture
def reference():
    """The reference folder, or a one-line failure naming $NS2_TCPVARIANTS when it names none."""
    if not (ns2ref.REFERENCE / "summary.csv").is_file():
        if "NS2_TCPVARIANTS" in os.environ:
            pytest.fail(
                f"NS2_TCPVARIANTS={os.environ['NS2_TCPVARIANTS']!r} has no summary.csv: point it at a "
                "copy of shared/reference/ns2-tcpVariants (summary.csv, traces/, vars/)",
                pytrace=False,
            )
        pytest.skip(f"ns-2 tcpVariants reference not present at {ns2ref.REFERENCE}")
    return ns2ref.REFERENCE


def test_every_test_matches_ns2_event_for_event(reference):
    rows = [ns2ref.compare(t).row() for t in ns2ref.tests()]
    bad = [r for r in rows if r["status"] != "exact" or r["vars"] != "same" or r["summary"] != "same"]
    assert len(rows) == 58
    assert not bad, (
        ns2ref.table(bad) + "\n" + "\n".join(f"{r['test']}: {r['vars']}; {r['summary']}" for r in bad)
    )


def test_command_prints_the_table_and_succeeds(reference, capsys):
    assert ns2ref.main(["onedrop_reno", "fourdrops_sackRH", "--summary"]) == 0
    out = capsys.readouterr().out
    assert "onedrop_reno" in out and "2 with identical events" in out
    assert (
        "| fourdrops_sackRH | 14 24 26 28 | 234 = 230 + 4 (0) | 231 / 231 | no | 6 / 5.000 @2.27103 |" in out
    )


@pytest.mark.skipif(__import__("shutil").which("ns") is None, reason="no local ns-2 (apt-get install ns2)")
def test_cases_beyond_the_reference_match_a_local_ns2(tmp_path):
    """Lost retransmissions, backoff, timeouts in recovery, a lost SYN, a DropTail overflow:
    run by Debian's ns-2 and by tcplab, every event and sender variable identical."""
    rows = [ns2ref.compare_with_ns2(t, *ns2ref.EXTRA[t], tmp_path).row() for t in ns2ref.EXTRA]
    bad = [r for r in rows if r["status"] != "exact" or r["vars"] != "same"]
    assert not bad, ns2ref.table(bad)
