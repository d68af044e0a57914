//! F-RTO (RFC 5682 Sec. 2.1) known answers, on a sender driven by hand: NewReno, IW 10
//! segments of 1000 bytes sent at t = 0, no ACK before the 1 s RTO (min_rto), which
//! retransmits segment 0 with cwnd = 1 segment and ssthresh = FlightSize / 2 = 5000.

mod common;
use common::*;
use tcplab_sim::tcp::segment::Segment;
use tcplab_sim::tcp::sender::Sender;
use tcplab_sim::time::SimTime;

fn after_timeout(frto: bool) -> (Sender, Vec<Segment>) {
    let text = one_hop(
        &format!("tcp = \"newreno\"\ninitial_window = 10\nfrto = {frto}"),
        &[],
        "5s",
    );
    let sc = tcplab_sim::load(&text, &[]).unwrap();
    let mut s = tcplab_sim::tcp::sender_for(&sc.flows[0], 0, 0, 1);
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    assert_eq!(out.len(), 10);
    assert_eq!(s.deadline(), Some(SimTime::from_secs(1)));
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
