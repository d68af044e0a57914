"""The anatomy of an ns-2 NewReno flow's timeouts (tcplab.reproduce.items.parvez.timeout_anatomy),
the measurement Parvez Figs 9, 10 and 13 explain their model errors with, on scripted losses with
known answers: one flow whose window is held at 8 packets by its receive window, and the
bottleneck's `script` loss model dropping chosen arrivals (arrival 1 is the SYN, packet 0)."""

from __future__ import annotations

import polars as pl
import pytest

import tcplab
from tcplab.reproduce.items.parvez.anatomy import timeout_anatomy

#: One packet of a window of 8 (a fast retransmit, no timeout); a whole window of 8 (arrivals
#: 201-208: no duplicate ACK, a timeout) and the retransmission after it (a backed-off repeat);
#: 6 of a window of 8 (2 duplicate ACKs, a timeout).
DROPS = [101, *range(201, 209), 209, *range(401, 407)]
DURATION = 30.0


def scenario(drops: list[int]) -> dict:
    return {
        "name": "anatomy",
        "seed": 1,
        "duration": f"{DURATION}s",
        "warmup": "0s",
        "trace": {"links": ["access0.fwd", "egress0.fwd"], "cwnd": True},
        "network": {
            "dumbbell": {
                "bottleneck": {
                    "rate": "10Mbit/s",
                    "delay": "5ms",
                    "queue": {"limit": 100},
                    "loss": {"model": "script", "packets": drops},
                },
                "access_rate": "1Gbit/s",
                "access_delay": "1ms",
                "rtts": ["100ms"],
            }
        },
        "flows": [
            {
                "profile": "ns2",
                "tcp": "newreno",
                "ack": "immediate",
                "mss": 1000,
                "header_bytes": 40,
                "rwnd": 8000,
                "start": "0s",
                "min_rto": "200ms",
                "rto_estimator": "jacobson88",
                "clock_tick": "10ms",
            }
        ],
    }


def anatomy(drops: list[int]) -> tuple[dict, dict, tcplab.RunResult]:
    r = tcplab.run(scenario(drops))
    flow = r.flows.to_dicts()[0]
    return timeout_anatomy(r.trace("packets"), r.trace("ns2_vars"), flow, 0.0, DURATION), flow, r


def test_each_timeout_is_classed_by_its_cause():
    a, flow, _ = anatomy(DROPS)
    # The sender's own counters: three loss events, one clean (the fast retransmit), three timeouts.
    assert (flow["loss_events"], flow["ca_events"], flow["timeouts"]) == (3, 1, 3)
    assert a["events"] == 3 and a["timeouts"] == 3
    assert a["classes"] == {"d": 1, "e": 1, "b": 1}
    assert a["w_mean"] == 8.0  # every event at the full window of 8
    assert a["m_mean"] == pytest.approx((1 + 8 + 6) / 3)
    assert a["to_share"] == pytest.approx(2 / 3)
    assert a["small_share"] == 0.0
    # Eq. 24's rule: 1 of 8 lost -> 1 - (1-p)^(1*8/2); 8 and 6 of 8 lost (more than W - 3) -> 1.
    p = flow["loss_event_rate"]
    assert a["rule_share"] == pytest.approx((1 - (1 - p) ** 4 + 1 + 1) / 3)
    # The timers (the 200 ms floor): 0.2 s, then 0.4 s backed off, for the whole window; 0.2 s
    # for the 6 of 8: 0.4 s per loss event ending in a timeout.
    assert a["wait"] == pytest.approx(0.4, abs=1e-9)


def test_a_fast_retransmission_lost_in_recovery():
    # Two losses in a later window of 8, then the fast retransmission of the first one dropped too.
    _, _, r = anatomy(DROPS + [601, 603])
    sends = (
        r.trace("packets")
        .filter((pl.col("link_name") == "access0.fwd") & (pl.col("event") == "enqueue"))
        .sort("time_ns")
    )
    seqs, rtx = sends["seq"].to_list(), sends["retransmit"].to_list()
    first = seqs[600]  # the packet of arrival 601
    fr = next(i + 1 for i, (s, x) in enumerate(zip(seqs, rtx, strict=True)) if x and s == first)
    a, flow, _ = anatomy(DROPS + [601, 603, fr])
    assert (flow["loss_events"], flow["fast_retransmits"], flow["timeouts"]) == (4, 2, 4)
    assert a["classes"] == {"d": 1, "e": 1, "b": 1, "a": 1}
    assert a["m_mean"] == pytest.approx((1 + 8 + 6 + 2) / 4)
    assert a["to_share"] == pytest.approx(3 / 4)


def test_eq29_terms_rebuild_the_model():
    """eq29 on the model's own terms is Eq. 29 (tcplab.models.newreno, W rounded up, q = p, RTO = 3R)."""
    import math

    from tcplab.models import newreno
    from tcplab.models.newreno_paper import eq29, eq29_model_terms

    for p in (0.005, 0.03, 0.0892):
        w = math.ceil(float(newreno.window(p, p)))
        want = float(newreno.throughput_full(960, 0.16, p, p, 0.48, integer_window=True))
        assert eq29(eq29_model_terms(p, w), 960, 0.16) == pytest.approx(want, rel=1e-12)


def test_eq29_terms_measured_on_the_cycles():
    """The three loss events make two whole cycles (the last has no next event to end it): the fast
    retransmit's and the whole window's (a timeout, 0.2 s + 0.4 s of timers). The packets the ACKs
    newly cover in them are every packet from the first loss of event 1 to the first of event 3, and
    each cycle's are the packets from its own first loss to the next event's."""
    a, flow, r = anatomy(DROPS)
    sends = (
        r.trace("packets")
        .filter(
            (pl.col("link_name") == "access0.fwd")
            & (pl.col("event") == "enqueue")
            & (pl.col("kind") == "data")
        )
        .sort("time_ns")
    )
    seqs = sends["seq"].to_list()
    me = a["eq29"]["measured"]
    rtt = flow["mean_rtt_s"]
    assert me["Q"] == 0.5
    assert me["Z"] * rtt == pytest.approx(0.6, abs=1e-9)
    assert 2 * me["S"] == seqs[400] - seqs[100]
    # Each cycle on its own, from the sends (not from S): the fast retransmit's cycle covers the
    # packets from its first loss to the whole window's first, the timeout's from there to event 3's.
    assert me["Y"] == seqs[200] - seqs[100]
    assert me["R"] == seqs[400] - seqs[200]
