"""ECN in the ns2 profile against ns-2 2.35 itself, event for event (tcplab.validation.ns2ecn).

The ns-2 traces are stored with the package (tcplab/validation/data/ns2-ecn, its README states
the scenarios; ecn.tcl made them). Every test must match: the data packets' `+`, `-` and `d` at
r1 -> k1 and the sink's ACKs to the microsecond, the CE marks, the number of ECE ACKs, and the
sender's ns-2 variables at every change. Where `ns` is installed, one test is rerun to check
that the stored trace is what ns-2 writes.
"""

from __future__ import annotations

import gzip
import shutil

import pytest

from tcplab.validation import ns2ecn


@pytest.mark.parametrize("test", list(ns2ecn.TESTS))
def test_ecn_matches_ns2_event_for_event(test):
    row = ns2ecn.compare(test)
    assert row["exact"], row


def test_the_tests_exercise_marks_drops_and_echoes():
    # Not a vacuous comparison: ns-2 marked and dropped, and the sink echoed, in each test.
    for test in ns2ecn.TESTS:
        ev, marks, ece, _, _ = ns2ecn.reference(test)
        assert marks and ev.drops and ece, test


@pytest.mark.skipif(shutil.which("ns") is None, reason="no ns-2 (`apt-get install ns2`)")
def test_the_stored_trace_is_what_ns2_writes(tmp_path):
    out = ns2ecn.run_ns2("ecn_reno", tmp_path)
    with gzip.open(ns2ecn.DATA / "traces" / "ecn_reno.tr.gz", "rb") as f:
        assert out.read_bytes() == f.read()
