"""ns-3 3.44's DCTCP receiver with delayed ACKs, as a model: which marks reach the sender's alpha.

docs/validation/ecn.md, fig17: ns-3's TcpDctcp receiver (tcp-dctcp.cc, CeState0to1 / CeState1to0)
runs from TcpSocketBase::ForwardUp before the segment is in the receive buffer, so the ACK it
sends on a change of CE state with an ACK delayed stops at m_priorRcvNxt, recorded at the
previous segment's arrival before that segment was queued. This module replays that rule on a
sequence of in-order segments (DelAckCount 2, no timer) and counts, as TcpDctcp's sender does,
the segments each ACK acknowledges and those acknowledged with ECE: an ACK that advances counts
its segments, marked if it carries ECE (tcp-socket-base.cc takes ECE only from an ACK that
advances); one that does not counts one unmarked segment (TcpSocketBase calls PktsAcked with 1
for it; the model takes the sender's ECN state then as not ECE_RCVD).

`rule = "prior"` is the same receiver with that ACK covering everything received so far (the
data before the arriving segment): RFC 8257 Sec. 3.2's ACK "for previously received packets",
Linux's `dctcp_ece_ack_update`, tcplab's receiver with `ack = "delayed"`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

RULES = ("ns3", "prior")


def receiver_acks(marks: Sequence[bool], rule: str = "ns3") -> list[tuple[int, bool]]:
    """The ACKs (cumulative ACK in segments, ECE) for in-order segments `marks` (True: CE)."""
    if rule not in RULES:
        raise ValueError(f"rule: expected one of {', '.join(RULES)}, not {rule!r}")
    acks: list[tuple[int, bool]] = []
    prior = count = 0
    have_prior = ce_state = delayed = False
    for rcv_nxt, ce in enumerate(marks):
        # rcv_nxt: the segments received before this one.
        # ForwardUp: CA_EVENT_ECN_IS_CE / NO_CE before the segment is queued.
        if ce != ce_state and delayed and have_prior:
            # The ACK "for the prior data" with the old state; SendEmptyPacket resets the
            # delayed-ACK counter (tcp-socket-base.cc), not TcpDctcp's m_delayedAckReserved.
            acks.append((prior if rule == "ns3" else rcv_nxt, ce_state))
            count = 0
        have_prior, prior, ce_state = True, rcv_nxt, ce
        # DoForwardUp -> ReceivedData: queued, then ACKed every second segment.
        count += 1
        if count >= 2:
            count, delayed = 0, False
            acks.append((rcv_nxt + 1, ce_state))
        else:
            delayed = True
    return acks


def sender_counts(acks: Sequence[tuple[int, bool]]) -> tuple[int, int]:
    """(segments counted marked, segments counted) by TcpDctcp's PktsAcked over `acks`."""
    una = marked = total = 0
    for ack, ece in acks:
        if ack > una:
            total += ack - una
            marked += (ack - una) if ece else 0
            una = ack
        else:
            total += 1
    return marked, total


def counted_share(ce_share: float, rule: str = "ns3", segments: int = 400_000, seed: int = 1) -> float:
    """The marked share the sender counts when each segment is CE with probability `ce_share`,
    independently (a fixed seed: the same number every time)."""
    rng = random.Random(seed)
    marked, total = sender_counts(receiver_acks([rng.random() < ce_share for _ in range(segments)], rule))
    return marked / total if total else 0.0


#: fig17's flow groups (reference.json's order): S1 -> R1, S2 -> R2, S3 -> R1.
GROUPS = (("S1", slice(0, 10)), ("S2", slice(10, 30)), ("S3", slice(30, 40)))


def tcplab_fig17_marks(case: dict) -> dict:
    """tcplab's fig17 (as `ecn_ns3.fig17` builds it): the share of data segments its receivers
    got CE, and per group the flows' mean alpha and CE share."""
    import statistics

    from tcplab.simulation import run as simulate
    from tcplab.validation import ecn_ns3

    flows = simulate(ecn_ns3.fig17(case, "fig17")).flows
    ce = flows["ce_received"].to_list()
    rate = flows["marking_rate"].to_list()
    received = sum(c / r for c, r in zip(ce, rate, strict=True) if r > 0)
    alpha = flows["ecn_alpha_mean"].to_list()
    return {
        "ce_share": sum(ce) / received if received else 0.0,
        "groups": {g: (statistics.mean(alpha[sl]), statistics.mean(rate[sl])) for g, sl in GROUPS},
    }


def ns3_shares(run: dict) -> tuple[float, float]:
    """(CE share at the receivers, marked share the senders counted) of a fig17 ns-3 run."""
    return (
        run["receiver_ce_segments"] / run["receiver_ect_segments"],
        run["sender_ece_bytes"] / run["sender_acked_bytes"],
    )
