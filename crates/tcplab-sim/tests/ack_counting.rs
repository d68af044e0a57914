//! `ack_counting`: what an ACK of new data counts for the window's growth. `cumulative` (the
//! default) counts the cumulative ACK's advance; `delivered` leaves out the bytes SACKed
//! before it, as Linux does (`tcp_ack` passes `tcp_newly_delivered`'s count to
//! `tcp_cong_control`; `tcp_clean_rtx_queue` counts a segment SACKed earlier as delivered when
//! it was SACKed, not again when the cumulative ACK covers it) and as ns-3 does
//! (`TcpSocketBase::ReceivedAck`'s `currentDelivered`). A sender driven by hand: SACK, IW 10
//! segments of 1000 bytes at t = 0, dupthresh 20 (no fast retransmit), byte counting with no
//! per-ACK limit.

use crate::common;
use common::*;
use tcplab_sim::tcp::segment::Segment;
use tcplab_sim::tcp::sender::Sender;
use tcplab_sim::time::SimTime;

fn sender(counting: &str, cc: &str) -> Sender {
    let (s, out) = started_sender(
        &format!(
            "tcp = \"sack\"\ninitial_window = 10\ndupthresh = 20\nack_counting = \"{counting}\"\ncc = {cc}"
        ),
        "5s",
    );
    assert_eq!(out.len(), 10);
    s
}

/// Segment 0 is lost and segments 1-9 are SACKed (nine duplicate ACKs at 100 ms); the timer
/// (1 s, no RTT sample) fires: cwnd = 1000 (the controller sets ssthresh), segment 0 goes
/// again; at 1.1 s ACK 10000 covers it and the nine SACKed segments. Returns the window and
/// the segments sent on that ACK.
fn timeout_then_cumulative_ack(s: &mut Sender) -> (u64, u64, Vec<u64>) {
    let mut out = vec![];
    for k in 2..=10 {
        s.on_ack(SimTime::from_ms(100), &sack(0, 1000, k * 1000), &mut out);
    }
    assert!(out.is_empty(), "no fast retransmit below dupthresh");
    s.on_timer(SimTime::from_ms(1000), &mut out);
    assert_eq!(
        out.iter().map(|p| (p.seq, p.retransmit)).collect::<Vec<_>>(),
        vec![(0, true)]
    );
    assert_eq!(s.core.win.cwnd, 1000);
    out.clear();
    s.on_ack(SimTime::from_ms(1100), &Segment::ack(10_000, 40), &mut out);
    (
        s.core.win.cwnd,
        s.core.win.ssthresh,
        out.iter().map(|p| p.seq).collect(),
    )
}

#[test]
fn delivered_counts_only_the_retransmission_not_the_segments_sacked_before() {
    // ssthresh = cwnd / 2 = 5000 (ssthresh_rule = "cwnd").
    let aimd = "{ algorithm = \"aimd\", growth = \"abc\", abc_limit = 65535, ssthresh_rule = \"cwnd\" }";
    // cumulative: 10000 bytes acknowledged; slow start to ssthresh (5000) and the 6000 left
    // over are congestion avoidance's (RFC 3465 Sec. 2.1: one segment once bytes_acked
    // reaches cwnd): 6000, and six new segments go at once.
    let mut s = sender("cumulative", aimd);
    let (cwnd, ssthresh, sent) = timeout_then_cumulative_ack(&mut s);
    assert_eq!((cwnd, ssthresh), (6000, 5000));
    assert_eq!(sent, (10..16).map(|k| k * 1000).collect::<Vec<_>>());
    // delivered: only segment 0 was newly delivered: 1000 + 1000, two new segments.
    let mut s = sender("delivered", aimd);
    let (cwnd, ssthresh, sent) = timeout_then_cumulative_ack(&mut s);
    assert_eq!((cwnd, ssthresh), (2000, 5000));
    assert_eq!(sent, vec![10_000, 11_000]);
}

#[test]
fn linux_cubic_after_a_timeout_takes_one_segment_not_the_sacked_window() {
    // The linux profile's CUBIC (tcp_cubic.c's arithmetic, byte counting with no limit):
    // ssthresh = 10 x 717 / 1024 = 7 segments. cumulative: slow start to 7 segments, then
    // cubictcp_cong_avoid with the 4 left over (no W_max after the timeout: cnt = 20, and the
    // Reno-friendly count, 4 < 7 x 15 / 8, adds nothing): cwnd 7000, seven new segments at
    // once. delivered: 1000 + 1000.
    let cubic = "{ algorithm = \"cubic\", growth = \"abc\", abc_limit = 65535, style = \"linux\", hz = 250 }";
    let mut s = sender("cumulative", cubic);
    let (cwnd, ssthresh, sent) = timeout_then_cumulative_ack(&mut s);
    assert_eq!((cwnd, ssthresh), (7000, 7000));
    assert_eq!(sent, (10..17).map(|k| k * 1000).collect::<Vec<_>>());
    let mut s = sender("delivered", cubic);
    let (cwnd, ssthresh, sent) = timeout_then_cumulative_ack(&mut s);
    assert_eq!((cwnd, ssthresh), (2000, 7000));
    assert_eq!(sent, vec![10_000, 11_000]);
}

#[test]
fn the_default_is_cumulative_the_linux_profile_delivered_and_ns2_refuses_it() {
    use tcplab_sim::scenario::AckCounting;
    for (flow, counting) in [
        ("", AckCounting::Cumulative),
        ("profile = \"linux\"", AckCounting::Delivered),
        // A field given overrides the profile's default.
        (
            "profile = \"linux\"\nack_counting = \"cumulative\"",
            AckCounting::Cumulative,
        ),
    ] {
        let sc = tcplab_sim::load(&one_hop(flow, &[], "1s"), &[]).unwrap();
        assert_eq!(sc.flows[0].ack_counting, counting, "{flow}");
    }
    let text = one_hop(
        "profile = \"ns2\"\ntcp = \"reno\"\nack_counting = \"delivered\"",
        &[],
        "1s",
    );
    let e = tcplab_sim::load(&text, &[]).unwrap_err().to_string();
    assert!(e.contains("ack_counting"), "{e}");
    let text = one_hop("ack_counting = \"all\"", &[], "1s");
    let e = tcplab_sim::load(&text, &[]).unwrap_err().to_string();
    assert!(e.contains("ack_counting") || e.contains("cumulative"), "{e}");
}
