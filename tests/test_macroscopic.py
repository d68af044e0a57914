"""Macroscopic check against Mathis et al. 1997 on the queueless random-loss path (Sec. 3.1).

Table 4, delayed ACKs, Reno: C = 0.939 +- 0.046 (k = -0.5, runs without timeouts); proportion of
successful W/2 adjustments 0.919 at p = 0.01. Here W = BW * RTT / MSS from the flow's goodput and
mean sampled RTT, and C = W * sqrt(p) with p the link's loss probability. The long version of this
check (every variant, the full p range, the fit) is the Mathis Table 4 validation.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import tcplab

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios/queueless-random-loss.toml"
TABLE4_RENO_DA_C = 0.939
TABLE4_RENO_DA_SUCCESS_AT_1PCT = 0.919


def runs(p: float, seeds=range(1, 5), duration="600s"):
    out = []
    for seed in seeds:
        f = tcplab.run(
            SCENARIO, sets={"seed": seed, "network.path.hops.0.loss.p": p, "duration": duration}
        ).flows.row(0, named=True)
        w = f["goodput_bps"] / 8 * f["mean_rtt_s"] / f["mss_bytes"]
        out.append((w * math.sqrt(p), f))
    return out


def test_c_near_table4_at_p_0_1_percent():
    rs = runs(0.001)
    c = sum(x for x, _ in rs) / len(rs)
    # Within about 15% of the paper's row (the tolerance for this check).
    assert abs(c - TABLE4_RENO_DA_C) / TABLE4_RENO_DA_C < 0.15, f"C = {c:.3f}"
    # And the measured CA rate is the link's loss rate: each isolated loss is one CA event.
    for _, f in rs:
        assert f["p"] == pytest.approx(0.001, rel=0.2)


def test_at_p_1_percent_most_reductions_keep_the_self_clock():
    """At p = 1% Reno's window (~9 segments) is small enough that some losses cost a timeout:
    Table 4 gives 0.919 successful W/2 adjustments. The runs have timeouts, so Table 4's C (fit
    on runs without timeouts) does not apply; C falls below it, as Fig 4's open markers do."""
    rs = runs(0.01, duration="300s")
    ca = sum(f["ca_events"] for _, f in rs)
    non_ca = sum(f["non_ca_events"] for _, f in rs)
    success = ca / (ca + non_ca)
    assert abs(success - TABLE4_RENO_DA_SUCCESS_AT_1PCT) < 0.08, f"success {success:.3f}"
    c = sum(x for x, _ in rs) / len(rs)
    assert 0.55 < c < TABLE4_RENO_DA_C, f"C = {c:.3f}"
