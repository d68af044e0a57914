"""The model of ns-3 3.44's DCTCP receiver with delayed ACKs (tcplab.validation.ecn_ns3_echo):
scripted marks, the exact ACKs and what TcpDctcp's sender counts of them."""

import pytest

from tcplab.validation import ecn_ns3_echo as echo

N, C = False, True


def test_a_mark_on_a_segment_with_no_ack_delayed_is_lost_in_ns3():
    # Segments 1-2 ECT: ACK 2. Segment 3 CE with no ACK delayed: no ACK, delayed. Segment 4 ECT
    # changes the state back with 3 delayed: CeState1to0 sends the ACK with ECE, up to
    # m_priorRcvNxt = 2 (recorded when 3 arrived, before it was queued): nothing new, the sender
    # ignores its ECE and counts one unmarked segment. 4 is delayed (the counter was reset), 5
    # gets ACK 5 without ECE: segment 3's mark is never counted.
    acks = echo.receiver_acks([N, N, C, N, N, N])
    assert acks == [(2, False), (2, True), (5, False)]
    assert echo.sender_counts(acks) == (0, 6)
    # With the ACK covering the data received so far (RFC 8257 Sec. 3.2, Linux, tcplab): ACK 3
    # with ECE, so the mark counts.
    acks = echo.receiver_acks([N, N, C, N, N, N], "prior")
    assert acks == [(2, False), (3, True), (5, False)]
    assert echo.sender_counts(acks) == (1, 5)


def test_a_mark_after_a_delayed_segment_moves_to_it_in_ns3():
    # Segment 3 ECT delayed, 4 CE: CeState0to1 sends ACK 2 (the prior ACK stops short of 3: a
    # duplicate, one unmarked segment), 4 is delayed; 5 ECT: ACK 3 with ECE (3 counted marked,
    # though it arrived ECT); 5 delayed; 6: ACK 6 without ECE (4, CE, counted unmarked).
    acks = echo.receiver_acks([N, N, N, C, N, N])
    assert acks == [(2, False), (2, False), (3, True), (6, False)]
    assert echo.sender_counts(acks) == (1, 7)
    acks = echo.receiver_acks([N, N, N, C, N, N], "prior")
    assert acks == [(2, False), (3, False), (4, True), (6, False)]
    assert echo.sender_counts(acks) == (1, 6)


def test_the_prior_rule_counts_every_mark_and_ns3_loses_about_a_third():
    share = 0.1365
    assert echo.counted_share(share, "prior", segments=20_000) == pytest.approx(share, abs=0.01)
    # Independent marks: exact with "prior" (every segment's ACK carries its own CE state),
    # well below the share with ns-3's rule.
    # With "prior" each segment acknowledged counts once, marked exactly when it arrived CE
    # (the last segment, delayed, is not acknowledged: the model has no timer).
    marks = [i % 7 == 3 for i in range(700)]
    acks = echo.receiver_acks(marks, "prior")
    assert acks[-1][0] == 699
    assert echo.sender_counts(acks) == (sum(marks[:699]), 699) == (100, 699)
    ns3 = echo.counted_share(share, segments=20_000)
    assert 0.5 * share < ns3 < 0.75 * share
    assert echo.counted_share(share, segments=20_000) == ns3  # seeded


def test_an_unknown_rule_is_one_clear_error():
    with pytest.raises(ValueError, match="rule: expected one of ns3, prior, not 'linux'"):
        echo.receiver_acks([C], "linux")


def _runs(alphas: dict[str, float]) -> dict:
    return {f"{k}_recovery_ack_every_segment_no_bql": {"v": {"alpha_mean": [a]}} for k, a in alphas.items()}


def test_the_cwr_controls_are_named_only_when_all_were_run():
    from tcplab.validation import ecn_page

    # Without the controls: "not traced" beyond 10 %, nothing within.
    assert ecn_page.per_segment_cwr_evidence("v", {}, 0.15, 0.19, 0.19) == "; this gap is not traced"
    assert ecn_page.per_segment_cwr_evidence("v", {}, 0.15, 0.16, 0.19) == ""
    alphas = {"classic": 0.2, "ns3_cwr": 0.19, "ns3_cwr_entry_once": 0.13, "linux_cwr_bytes": 0.131}
    ref = _runs(alphas | {"linux_cwr": 0.15}) | {"ack_every_segment_no_bql": {"v": {"alpha_mean": [0.19]}}}
    text = ecn_page.per_segment_cwr_evidence("v", ref, 0.15, 0.19, 0.2)
    assert "gives the same run (alpha 0.1900)" in text and "tcplab / ns-3 1.000" in text
    assert "(0.1300 to 0.1900)" in text and "(0.1500 to 0.1310)" in text
    ref["ack_every_segment_no_bql"]["v"]["alpha_mean"] = [0.18]
    assert "**not** the same run" in ecn_page.per_segment_cwr_evidence("v", ref, 0.15, 0.18, 0.2)
