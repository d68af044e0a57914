//! F-RTO (RFC 5682 Sec. 2.1) known answers, on a sender driven by hand: NewReno, IW 10
//! segments of 1000 bytes sent at t = 0, no ACK before the 1 s RTO (min_rto), which
//! retransmits segment 0 with cwnd = 1 segment and ssthresh = FlightSize / 2 = 5000.

use crate::common;
use common::*;
use tcplab_sim::tcp::segment::Segment;
use tcplab_sim::tcp::sender::Sender;
use tcplab_sim::time::SimTime;

fn after_timeout(frto: bool) -> (Sender, Vec<Segment>) {
    let (s, out) = started_sender(
        &format!("tcp = \"newreno\"\ninitial_window = 10\nfrto = {frto}"),
        "5s",
    );
    assert_eq!(out.len(), 10);
    assert_eq!(s.deadline(), Some(SimTime::from_secs(1)));
    time_out(s, out)
}

/// The RTO at 1 s of a sender that sent its initial window of 10 segments at 0: segment 0 is
/// retransmitted, cwnd 1 segment, ssthresh FlightSize / 2.
fn time_out(mut s: Sender, mut out: Vec<Segment>) -> (Sender, Vec<Segment>) {
    out.clear();
    s.on_timer(SimTime::from_secs(1), &mut out);
    assert_eq!((out.len(), out[0].seq, out[0].retransmit), (1, 0, true));
    assert_eq!((s.core.win.cwnd, s.core.win.ssthresh), (1000, 5000));
    out.clear();
    (s, out)
}

fn sent(out: &[Segment]) -> Vec<(u64, bool)> {
    out.iter().map(|p| (p.seq / 1000, p.retransmit)).collect()
}

#[test]
fn a_spurious_timeout_is_found_and_undone() {
    // The ACKs were only late: ACK 1000 at 1.05 s (step 2b: two new segments, 10 and 11,
    // instead of go-back-N), ACK 2000 at 1.051 s (step 3b: new data never retransmitted is
    // acknowledged: spurious). The window goes back to 10 segments, ssthresh to its initial
    // value, and nothing is retransmitted.
    let (mut s, mut out) = after_timeout(true);
    s.on_ack(SimTime::from_ms(1050), &Segment::ack(1000, 40), &mut out);
    assert_eq!(sent(&out), vec![(10, false), (11, false)]);
    s.on_ack(SimTime::from_ms(1051), &Segment::ack(2000, 40), &mut out);
    assert_eq!(s.spurious_timeouts, 1);
    assert_eq!(s.core.win.cwnd, 10_000);
    assert!(s.core.win.ssthresh > 1 << 40);
    assert!(out.iter().all(|p| !p.retransmit));
    // Without F-RTO the same ACKs drive go-back-N in slow start (cwnd 2, then 3 segments):
    // segments 1-4 again, all of which the receiver already had.
    let (mut s, mut out) = after_timeout(false);
    s.on_ack(SimTime::from_ms(1050), &Segment::ack(1000, 40), &mut out);
    s.on_ack(SimTime::from_ms(1051), &Segment::ack(2000, 40), &mut out);
    assert_eq!(sent(&out), vec![(1, true), (2, true), (3, true), (4, true)]);
    assert_eq!((s.core.win.cwnd, s.core.win.ssthresh), (3000, 5000));
}

#[test]
fn a_real_loss_falls_back_to_conventional_recovery() {
    // Segment 1 was lost: after ACK 1000 (two new segments), the new segments draw a
    // duplicate ACK 1000 (step 3a): cwnd = min(cwnd, 3 SMSS) = 2000 bytes (slow start gave 2),
    // and go-back-N resends segments 1 and 2; ssthresh stays 5000.
    let (mut s, mut out) = after_timeout(true);
    s.on_ack(SimTime::from_ms(1050), &Segment::ack(1000, 40), &mut out);
    s.on_ack(SimTime::from_ms(1150), &Segment::ack(1000, 40), &mut out);
    assert_eq!(sent(&out), vec![(10, false), (11, false), (1, true), (2, true)]);
    assert_eq!(s.spurious_timeouts, 0);
    assert_eq!((s.core.win.cwnd, s.core.win.ssthresh), (2000, 5000));
}

/// The SACK-enhanced F-RTO (RFC 5682 Sec. 3): the same sender and timeout with `tcp`'s SACK
/// recovery (`sack` = true) and the given extra flow lines.
fn sack_after_timeout(tcp: &str, extra: &str) -> (Sender, Vec<Segment>) {
    let (s, out) = started_sender(
        &format!("tcp = {tcp}\ninitial_window = 10\nfrto = true\n{extra}"),
        "5s",
    );
    time_out(s, out)
}

/// An ACK of `ack` with SACK blocks given in absolute sequence numbers.
fn sack(ack: u64, blocks: &[(u64, u64)]) -> Segment {
    let mut a = Segment::ack(ack, 40 + 8 * blocks.len() as u32);
    a.sack.n = blocks.len() as u8;
    for (i, &(s, e)) in blocks.iter().enumerate() {
        a.sack.blocks[i] = ((s - ack) as u32, (e - ack) as u32);
    }
    a
}

#[test]
fn sack_frto_waits_out_duplicate_acks_in_step_2_and_finds_a_spurious_timeout_by_sack() {
    // A duplicate ACK SACKing segment 2 at 1.04 s keeps F-RTO in step 2 (Sec. 3 step 2; the
    // basic algorithm would fall back to go-back-N). ACK 1000 at 1.05 s advances: RecoveryPoint
    // = 10000, new segments 10 and 11 (step 2b). At 1.051 s a duplicate ACK SACKs segment 3,
    // sent before the timeout and never retransmitted, below RecoveryPoint: spurious (step
    // 3b). cwnd back to 10 segments, ssthresh to its initial value, nothing retransmitted.
    let (mut s, mut out) = sack_after_timeout("\"sack\"", "");
    s.on_ack(SimTime::from_ms(1040), &sack(0, &[(2000, 3000)]), &mut out);
    assert!(out.is_empty());
    s.on_ack(SimTime::from_ms(1050), &sack(1000, &[(2000, 3000)]), &mut out);
    assert_eq!(sent(&out), vec![(10, false), (11, false)]);
    s.on_ack(SimTime::from_ms(1051), &sack(1000, &[(2000, 4000)]), &mut out);
    assert_eq!(s.spurious_timeouts, 1);
    assert_eq!(sent(&out), vec![(10, false), (11, false)]);
    assert_eq!(s.core.win.cwnd, 10_000);
    assert!(s.core.win.ssthresh > 1 << 40);
}

#[test]
fn sack_frto_falls_back_when_the_sack_goes_beyond_the_recovery_point() {
    // Step 2b as above; at 1.15 s a duplicate ACK SACKs new segment 10, beyond RecoveryPoint
    // (10000), with segment 1 still missing (step 3a): cwnd = min(2000, 3 SMSS) and go-back-N
    // resends segments 1 and 2; ssthresh stays 5000.
    let (mut s, mut out) = sack_after_timeout("\"sack\"", "");
    s.on_ack(SimTime::from_ms(1050), &sack(1000, &[]), &mut out);
    s.on_ack(SimTime::from_ms(1150), &sack(1000, &[(10_000, 11_000)]), &mut out);
    assert_eq!(sent(&out), vec![(10, false), (11, false), (1, true), (2, true)]);
    assert_eq!(s.spurious_timeouts, 0);
    assert_eq!((s.core.win.cwnd, s.core.win.ssthresh), (2000, 5000));
    // A duplicate ACK that SACKs nothing new below RecoveryPoint is step 3a too.
    let (mut s, mut out) = sack_after_timeout("\"sack\"", "");
    s.on_ack(SimTime::from_ms(1050), &sack(1000, &[]), &mut out);
    s.on_ack(SimTime::from_ms(1150), &sack(1000, &[]), &mut out);
    assert_eq!(sent(&out), vec![(10, false), (11, false), (1, true), (2, true)]);
    assert_eq!(s.spurious_timeouts, 0);
}

#[test]
fn sack_frto_step_2a_caps_the_window_at_two_segments() {
    // Byte counting with L = 100 lets the ACK of everything (10000 at 1.05 s) open cwnd to
    // ssthresh and beyond (5000 + 5000 x 1000 / 5000 = 6000); it covers RecoveryPoint (step
    // 2a): cwnd at most 2 SMSS, F-RTO over.
    let cc = "cc = { algorithm = \"aimd\", growth = \"abc\", abc_limit = 100 }";
    let (mut s, mut out) = sack_after_timeout("\"sack\"", cc);
    s.on_ack(SimTime::from_ms(1050), &sack(10_000, &[]), &mut out);
    assert_eq!(s.core.win.cwnd, 2000);
    assert_eq!(s.spurious_timeouts, 0);
    assert_eq!(sent(&out), vec![(10, false), (11, false)]);
}

#[test]
fn sack_frto_is_not_entered_on_a_repeated_timeout() {
    // No ACK: the backed-off timer fires at 3 s with RecoveryPoint (10000) >= SND.UNA (step
    // 1): conventional recovery, so ACK 1000 at 3.05 s sends segments 1 and 2 again (slow
    // start, go-back-N), not new data.
    let (mut s, mut out) = sack_after_timeout("\"sack\"", "");
    s.on_timer(SimTime::from_secs(3), &mut out);
    assert_eq!(sent(&out), vec![(0, true)]);
    s.on_ack(SimTime::from_ms(3050), &sack(1000, &[]), &mut out);
    assert_eq!(sent(&out), vec![(0, true), (1, true), (2, true)]);
}

#[test]
fn sack_frto_with_rack_undoes_the_timeouts_loss_marks() {
    // With RACK the loss probe goes first (PTO 1 s before any RTT sample: new segment 10) and
    // re-arms the RTO, which fires at 2 s and marks segments 1-10 lost (nothing delivered
    // yet: RACK.rtt = 0); segment 0 is retransmitted, ssthresh = 11 segments / 2. The late
    // ACKs 1000 and 2000 find the timeout spurious (segment 1 was never retransmitted) and the
    // undo clears the marks: nothing else retransmitted, cwnd back to 10 segments.
    let (mut s, mut out) = started_sender(
        "tcp = { variant = \"sack\", rack = true }\ninitial_window = 10\nfrto = true",
        "5s",
    );
    out.clear();
    s.on_timer(SimTime::from_secs(1), &mut out);
    assert_eq!(sent(&out), vec![(10, false)]);
    s.on_timer(SimTime::from_secs(2), &mut out);
    assert_eq!(sent(&out), vec![(10, false), (0, true)]);
    assert_eq!((s.core.win.cwnd, s.core.win.ssthresh), (1000, 5500));
    let marked = |s: &Sender| {
        let sb = s.core.sb.as_ref().unwrap();
        sb.segments().iter().filter(|g| g.lost).count()
    };
    assert_eq!(marked(&s), 10);
    s.on_ack(SimTime::from_ms(2050), &sack(1000, &[]), &mut out);
    assert_eq!(sent(&out), vec![(10, false), (0, true), (11, false), (12, false)]);
    s.on_ack(SimTime::from_ms(2051), &sack(2000, &[]), &mut out);
    assert_eq!(s.spurious_timeouts, 1);
    assert_eq!(marked(&s), 0);
    assert_eq!(s.core.win.cwnd, 10_000);
    assert_eq!(out.iter().filter(|p| p.retransmit).count(), 1);
}

#[test]
fn the_undo_restores_ssthresh_to_linux_prior_ssthresh() {
    // ssthresh 4000 before the timeout with cwnd 10 segments: Linux's prior_ssthresh is
    // tcp_current_ssthresh = max(4000, (10 >> 1) + (10 >> 2) = 7 segments) = 7000, which the
    // spurious timeout's undo restores (the timeout had set 5000).
    let (mut s, mut out) = sack_after_timeout("\"sack\"", "initial_ssthresh = 4000");
    s.on_ack(SimTime::from_ms(1050), &sack(1000, &[]), &mut out);
    s.on_ack(SimTime::from_ms(1051), &sack(2000, &[]), &mut out);
    assert_eq!(s.spurious_timeouts, 1);
    assert_eq!((s.core.win.cwnd, s.core.win.ssthresh), (10_000, 7000));
}
