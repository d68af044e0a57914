//! RACK-TLP (RFC 8985) known answers. The one-hop path of `common.rs`: 1 Gbit/s, 50 ms each
//! way, MSS 1000 + 40 header bytes, so a data segment takes 8.32 us to serialize, a plain ACK
//! 0.32 us and an ACK with one SACK block (52 bytes) 0.416 us; an ACK for a segment sent at t
//! comes back at t + 100 ms + 8.32 us + its own serialization.

use crate::common;
use common::*;
use tcplab_sim::tcp::recovery::LossRecovery;
use tcplab_sim::tcp::segment::Segment;
use tcplab_sim::tcp::sender::Sender;
use tcplab_sim::time::SimTime;

const FF: &str = "ack = \"immediate\"\ninitial_window = 20\ninitial_ssthresh = 20000";

fn rtx_times(r: &tcplab_sim::RunResult) -> Vec<(f64, u64)> {
    retransmissions(r).iter().map(|s| (s.t, s.seq / 1000)).collect()
}

fn close(got: &[(f64, u64)], want: &[(f64, u64)]) {
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.1, w.1, "{got:?}");
        assert!((g.0 - w.0).abs() < 1e-9, "{got:?} vs {want:?}");
    }
}

/// Fall & Floyd's window (IW = ssthresh = 20) with segment 24 dropped (packet 25) and its
/// fast retransmission dropped too (packet 46: 45 segments went before it). RFC 6675 cannot
/// see that a retransmission is lost and waits for the RTO; RACK sees it when a segment sent
/// after the retransmission is SACKed and the retransmission is still missing (RFC 8985
/// Sec. 6.2; reo_wnd = 0 in recovery with no reordering seen).
#[test]
fn a_lost_retransmission_is_found_by_rack_without_a_timeout() {
    // The first retransmission leaves at the third duplicate ACK, 200.075616 ms, as with
    // DupThresh (three SACKed segments make reo_wnd 0).
    let first = (0.200075616, 24);

    // RACK + PRR (Linux's combination): PRR sends segment 45 at 200.100576 ms, the first one
    // after the retransmission; its SACK (one block, 52 bytes) arrives 100 ms + 8.32 us +
    // 0.416 us later, 300.109312 ms, and segment 24 goes again at once. No second reduction
    // with PRR (Sec. 9.3): one episode, one CA event, ssthresh 21000 / 2.
    let r = run(&one_hop(
        &format!("tcp = {{ variant = \"sack\", prr = true, rack = true }}\n{FF}"),
        &[25, 46],
        "2s",
    ));
    close(
        &rtx_times(&r),
        &[first, (0.200100576 + 0.1 + 8.32e-6 + 0.416e-6, 24)],
    );
    let f = &r.flows[0];
    assert_eq!((f.timeouts, f.ca_events, f.non_ca_events), (0, 1, 0));
    assert!(cwnd(&r)
        .iter()
        .filter(|w| w.t > 0.20007)
        .all(|w| w.ssthresh == Some(10500)));

    // RACK without PRR: segment 45 leaves at 200.150496 ms (the cut to ssthresh waits for the
    // pipe); its SACK at 300.159232 ms finds the lost retransmission, and the window is cut
    // again (Sec. 9.3) to half the 8 segments in flight (46-48 and 49-53): 4000 bytes. The
    // retransmission waits until the pipe is below cwnd - 1 SMSS, at the ACK of segment 50
    // (sent 300.034336 ms): 400.043072 ms. Still no timeout; the episode is not a CA event.
    let r = run(&one_hop(
        &format!("tcp = {{ variant = \"sack\", rack = true }}\n{FF}"),
        &[25, 46],
        "2s",
    ));
    close(
        &rtx_times(&r),
        &[first, (0.300034336 + 0.1 + 8.32e-6 + 0.416e-6, 24)],
    );
    let f = &r.flows[0];
    assert_eq!((f.timeouts, f.ca_events, f.non_ca_events), (0, 0, 1));
    let second_cut = cwnd(&r).into_iter().find(|w| w.ssthresh == Some(4000)).unwrap();
    assert!((second_cut.t - (0.200150496 + 0.1 + 8.32e-6 + 0.416e-6)).abs() < 1e-9);
    assert_eq!(second_cut.cwnd, 4000);

    // The same losses under RFC 6675 + PRR: the retransmission's loss ends in the RTO, 1 s
    // (min_rto) after the last restart of the timer at 200.042240 ms.
    let r = run(&one_hop(
        &format!("tcp = {{ variant = \"sack\", prr = true }}\n{FF}"),
        &[25, 46],
        "2s",
    ));
    close(&rtx_times(&r), &[first, (1.200042240, 24)]);
    assert_eq!(r.flows[0].timeouts, 1);
}

/// A 10-segment transfer (IW 10) whose last segment is lost: no ACK will ever report the loss.
/// ACK k of the 9 others arrives at k x 8.32 us + 100.00864 ms; the timed segment gave SRTT =
/// 100.00864 ms. The last ACK (100.0752 ms) leaves one segment in flight, so PTO = 2 SRTT +
/// WCDelAckT (200 ms) = 400.01728 ms (RFC 8985 Sec. 7.2), before the RTO (1 s): the probe, a
/// retransmission of the highest segment (no new data is left, Sec. 7.3), leaves at
/// 500.09248 ms and its ACK ends the transfer at 600.10112 ms. Without TLP the RTO fires at
/// 1100.0752 ms.
#[test]
fn a_tail_loss_is_repaired_by_a_probe_at_the_pto() {
    let flow = "ack = \"immediate\"\ninitial_window = 10\nbytes = 10000";
    let r = run(&one_hop(
        &format!("tcp = {{ variant = \"sack\", rack = true }}\n{flow}"),
        &[10],
        "2s",
    ));
    let last_ack = 8.0 * 8.32e-6 + 0.10000864;
    let pto = 2.0 * 0.10000864 + 0.2;
    close(&rtx_times(&r), &[(last_ack + pto, 9)]);
    let f = &r.flows[0];
    assert_eq!((f.timeouts, f.non_ca_events), (0, 0));
    let done = f.completion_time_s.expect("the transfer completes");
    assert!((done - (last_ack + pto + 0.10000864)).abs() < 1e-9, "{done}");

    let r = run(&one_hop(&format!("tcp = \"sack\"\n{flow}"), &[10], "2s"));
    close(&rtx_times(&r), &[(last_ack + 1.0, 9)]);
    assert_eq!(r.flows[0].timeouts, 1);
}

/// A sender driven by hand: IW 4 at t = 0, all ACKed at 100 ms (SRTT = min_RTT = 100 ms), five
/// more segments (4-8) sent at 100 ms. Segment 4 is reordered: segments 5 and 6 are SACKed at
/// 200 ms. Two SACKed segments (< DupThresh) and no recovery: reo_wnd = min_RTT / 4 =
/// 25 ms, so segment 4 is not lost before 100 + 100 + 25 = 225 ms and the RACK timer is set
/// for then (RFC 8985 Sec. 6.2 step 5).
fn reordered_sender() -> (Sender, Vec<Segment>) {
    let (mut s, mut out) = started_sender(
        "tcp = { variant = \"sack\", rack = true }\ninitial_window = 4",
        "1s",
    );
    assert_eq!(out.len(), 4);
    s.on_ack(SimTime::from_ms(100), &Segment::ack(4000, 40), &mut out);
    assert_eq!(out.len(), 9);
    for (t, sacked_to) in [(200, 6000), (200, 7000)] {
        let mut a = Segment::ack(4000, 52);
        a.sack.n = 1;
        a.sack.blocks[0] = (1000, sacked_to - 4000);
        s.on_ack(SimTime::from_ms(t), &a, &mut out);
    }
    assert_eq!(out.len(), 9, "nothing sent on the SACKs");
    assert_eq!(s.deadline(), Some(SimTime::from_ms(225)));
    (s, out)
}

fn rack_state(s: &Sender) -> &tcplab_sim::tcp::recovery::rack::Rack {
    match &s.recovery {
        LossRecovery::Sack(v) => v.rack.as_deref().unwrap(),
        _ => unreachable!(),
    }
}

#[test]
fn reordering_within_the_window_is_not_a_loss_and_beyond_it_is() {
    // Segment 4 arrives at 210 ms, inside the window: nothing retransmitted, no reduction, and
    // RACK has seen reordering (a never-retransmitted segment delivered below RACK.fack).
    let (mut s, mut out) = reordered_sender();
    s.on_ack(SimTime::from_ms(210), &Segment::ack(7000, 40), &mut out);
    assert!(out.iter().all(|p| !p.retransmit));
    assert!(s.core.win.ssthresh > 1 << 40, "ssthresh untouched");
    assert!(rack_state(&s).reordering_seen);
    assert!(!s.recovery.in_recovery());

    // Segment 4 still missing at 225 ms: the RACK timer marks it lost, a recovery starts and
    // retransmits it at that instant; ssthresh = FlightSize (5 segments) / 2.
    let (mut s, mut out) = reordered_sender();
    let n = out.len();
    s.on_timer(SimTime::from_ms(225), &mut out);
    assert_eq!((out[n].seq, out[n].retransmit), (4000, true));
    assert!(s.recovery.in_recovery());
    assert_eq!(s.core.win.ssthresh, 2500);
    assert!(!rack_state(&s).reordering_seen);
    // The original arrives after all (ACK 9000 at 230 ms), then the retransmission, which the
    // receiver reports as a duplicate (D-SACK, RFC 2883): RACK widens its window to 2 x
    // min_RTT / 4 for the next 16 recoveries (Sec. 6.2 step 4).
    s.on_ack(SimTime::from_ms(230), &Segment::ack(9000, 40), &mut out);
    let mut a = Segment::ack(9000, 52);
    a.sack.n = 1;
    a.sack.dsack = true;
    a.sack.blocks[0] = ((4000i64 - 9000) as i32 as u32, (5000i64 - 9000) as i32 as u32);
    assert_eq!(a.sack.dsack_block(9000), Some((4000, 5000)));
    s.on_ack(SimTime::from_ms(325), &a, &mut out);
    let r = rack_state(&s);
    assert_eq!((r.reo_wnd_mult, r.reo_wnd_persist), (2, 16));
}

/// RFC 8985 Sec. 6.3, driven by hand with timestamps (an RTT sample on every ACK): IW 10 at
/// t = 0; nine ACKs at 100 ms acknowledge segments 0-8 (RTT 100 ms each: SRTT 100 ms, RTTVAR
/// 50 ms x (3/4)^8 = 5.005644 ms, RTO = 120.022576 ms with min_rto 10 ms) and slow start
/// sends segments 10-27 at 100 ms. The loss probe (PTO = 2 SRTT = 200 ms, capped by the RTO
/// at 220.022576 ms) sends new segment 28 and re-arms the RTO, which fires at 340.045152 ms.
/// RACK.rtt is 100 ms (segment 8) and RACK.reo_wnd 25 ms (min_RTT / 4, as computed at the
/// last ACK): segment 9 (snd_una) is lost, so are 10-27 (sent 240 ms ago), but not 28, sent
/// 120.022576 ms ago. Only segment 9 is retransmitted (cwnd 1 segment, ssthresh 10000).
fn rack_after_rto() -> (Sender, Vec<Segment>) {
    let (mut s, mut out) = started_sender(
        "tcp = { variant = \"sack\", rack = true }\ninitial_window = 10\ntimestamps = true\nmin_rto = \"10ms\"",
        "1s",
    );
    assert_eq!(out.len(), 10);
    for k in 1..=9 {
        let mut a = Segment::ack(k * 1000, 52);
        a.ts_ecr = SimTime::ZERO;
        s.on_ack(SimTime::from_ms(100), &a, &mut out);
    }
    assert_eq!(out.len(), 28);
    assert_eq!(s.core.rtt.rto(), SimTime::from_ns(120_022_576));
    let pto = SimTime::from_ns(220_022_576);
    assert_eq!(s.deadline(), Some(pto));
    s.on_timer(pto, &mut out);
    assert_eq!((out.len(), out[28].seq, out[28].retransmit), (29, 28_000, false));
    let rto = SimTime::from_ns(340_045_152);
    assert_eq!(s.deadline(), Some(rto));
    s.on_timer(rto, &mut out);
    (s, out)
}

fn lost_marks(s: &Sender) -> Vec<u64> {
    let sb = s.core.sb.as_ref().unwrap();
    sb.segments()
        .iter()
        .filter(|g| g.lost)
        .map(|g| g.start / 1000)
        .collect()
}

#[test]
fn after_an_rto_rack_marks_only_what_was_sent_more_than_rack_rtt_plus_reo_wnd_ago() {
    let (mut s, mut out) = rack_after_rto();
    assert_eq!(out.len(), 30);
    assert_eq!((out[29].seq, out[29].retransmit), (9000, true));
    assert_eq!((s.core.win.cwnd, s.core.win.ssthresh), (1000, 10_000));
    assert_eq!(lost_marks(&s), (10..28).collect::<Vec<_>>());
    // Segment 28's SACK arrives at 345 ms (the probe was delivered): nothing is sent (cwnd
    // 1 segment, the retransmission in flight).
    let mut a = Segment::ack(9000, 52);
    a.ts_ecr = SimTime::from_ns(220_022_576);
    a.sack.n = 1;
    a.sack.blocks[0] = (19_000, 20_000);
    s.on_ack(SimTime::from_ms(345), &a, &mut out);
    assert_eq!(out.len(), 30);
    // Segment 9's ACK at 440.045152 ms: slow start gives cwnd 2 segments and the pipe is
    // empty, so the first two marked segments, 10 and 11, go out at once.
    a.ack = 10_000;
    a.ts_ecr = SimTime::from_ns(340_045_152);
    a.sack.blocks[0] = (18_000, 19_000);
    s.on_ack(SimTime::from_ns(440_045_152), &a, &mut out);
    let sent: Vec<(u64, bool)> = out[30..].iter().map(|p| (p.seq / 1000, p.retransmit)).collect();
    assert_eq!(sent, vec![(10, true), (11, true)]);
    assert_eq!(s.core.win.cwnd, 2000);
}

#[test]
fn after_an_rto_rack_marks_the_rest_once_a_later_transmission_is_delivered() {
    // Without segment 28's SACK, segment 9's ACK at 440.045152 ms makes RACK.xmit_ts the
    // retransmission's (340.045152 ms): segment 28, sent before it, is lost since 220.022576
    // + 100 ms + reo_wnd 0 (RTO recovery, no reordering seen) = 320.022576 ms.
    let (mut s, mut out) = rack_after_rto();
    let mut a = Segment::ack(10_000, 40);
    a.ts_ecr = SimTime::from_ns(340_045_152);
    s.on_ack(SimTime::from_ns(440_045_152), &a, &mut out);
    let sent: Vec<(u64, bool)> = out[30..].iter().map(|p| (p.seq / 1000, p.retransmit)).collect();
    assert_eq!(sent, vec![(10, true), (11, true)]);
    assert_eq!(lost_marks(&s), (12..29).collect::<Vec<_>>());
}
