//! The ECE response's reduction by PRR over the round trip (`cwr_reduction = "prr"`,
//! tcp/cwr.rs), as Linux's CWR state does it: a sender fed scripted ACKs, with the exact cwnd
//! after each one. The rules, all net/ipv4/tcp_input.c: `tcp_enter_cwr` ->
//! `tcp_init_cwnd_reduction` (prior_cwnd = cwnd, the counters at 0, ssthresh from the
//! controller, high_seq = snd_nxt; cwnd untouched); on every ACK in CWR, the entering one
//! included, `tcp_cwnd_reduction`: prr_delivered += newly_acked_sacked, then while in flight >
//! ssthresh sndcnt = ceil(ssthresh x prr_delivered / prior_cwnd) - prr_out, else
//! min(ssthresh - in_flight, max(prr_delivered - prr_out, newly_acked_sacked) + 1 if snd_una
//! advanced), at least 1 while prr_out = 0; cwnd = in_flight + sndcnt; prr_out counts the
//! segments sent (tcp_output.c); `tcp_fastretrans_alert` ends CWR on the ACK with snd_una >
//! high_seq, where `tcp_end_cwnd_reduction` sets cwnd = ssthresh before `cong_avoid` runs.

use super::common::started_sender;
use tcplab_sim::tcp::segment::{Segment, TcpFlags};
use tcplab_sim::tcp::sender::Sender;
use tcplab_sim::time::SimTime;

const MSS: u64 = 1000;

/// Feeds one ACK of `ack` segments (with ECE, and SACK blocks in segments) at `t` ms; returns
/// what it sent.
fn feed(s: &mut Sender, t: u64, ack: u64, ece: bool, sack: &[(u64, u64)]) -> Vec<Segment> {
    let mut a = Segment::ack(ack * MSS, 40);
    a.flags.set(TcpFlags::ECE, ece);
    for (i, &(lo, hi)) in sack.iter().enumerate() {
        // Offsets from the cumulative ACK.
        a.sack.blocks[i] = (((lo - ack) * MSS) as u32, ((hi - ack) * MSS) as u32);
        a.sack.n = i as u8 + 1;
    }
    let mut out = vec![];
    s.on_ack(SimTime::from_ms(t), &a, &mut out);
    out
}

const RENO: &str = "tcp = \"reno\"\necn = \"classic\"\nack = \"immediate\"\ninitial_window = 20";

#[test]
fn reno_without_sack_lowers_cwnd_to_ssthresh_over_the_round_trip() {
    let (mut s, first) = started_sender(&format!("{RENO}\ncwr_reduction = \"prr\""), "10s");
    assert_eq!(first.len(), 20); // snd_nxt = high_seq-to-be = 20 segments
                                 // ACK 2 with ECE: ssthresh = FlightSize / 2 = 18 / 2 = 9 segments (AIMD); prior_cwnd 20;
                                 // delivered 2, in flight 18 > 9: sndcnt = ceil(9 x 2 / 20) - 0 = 1: cwnd 19, one segment
                                 // (20, with CWR) goes. ECE on ACKs 3..5 is in the same window: no second response.
                                 // Then one segment per ACK: the proportional part lets one go per two or three ACKs.
                                 // The duplicate ACK of 8 counts 1 delivered (Linux's tcp_add_reno_sack) and the ACK of
                                 // 10 after it max(2 - 1, 1) = 1 (tcp_remove_reno_sacks). In flight is FlightSize here
                                 // (tcplab's Reno keeps no duplicate-ACK estimate), so on the duplicate ACK cwnd is one
                                 // above Linux's in_flight + sndcnt, and the same segment is sent.
                                 // On ACK 20 in flight is 9 = ssthresh: the bound gives 0, cwnd 9.
    let script: Vec<(u64, bool, u64, u64)> = vec![
        // (ACK, ECE, cwnd after it in segments, snd_max after it)
        (2, true, 19, 21),
        (3, true, 19, 22),
        (4, true, 18, 22),
        (5, true, 18, 23),
        (6, false, 17, 23),
        (7, false, 17, 24),
        (8, false, 16, 24),
        (8, false, 17, 25), // the duplicate ACK
        (10, false, 15, 25),
        (11, false, 14, 25),
        (12, false, 14, 26),
        (13, false, 13, 26),
        (14, false, 13, 27),
        (15, false, 12, 27),
        (16, false, 12, 28),
        (17, false, 11, 28),
        (18, false, 11, 29),
        (19, false, 10, 29),
        (20, false, 9, 29),
    ];
    let mut sent = vec![];
    for (i, &(ack, ece, cwnd, snd_max)) in script.iter().enumerate() {
        sent.extend(feed(&mut s, 100 + i as u64, ack, ece, &[]));
        assert_eq!(
            (s.core.win.cwnd, s.core.snd_max, s.core.win.ssthresh),
            (cwnd * MSS, snd_max * MSS, 9 * MSS),
            "after ACK {ack} (step {i})"
        );
    }
    // Only the first new segment after the reduction carries CWR (RFC 3168 Sec. 6.1.2).
    let cwr: Vec<u64> = sent
        .iter()
        .filter(|d| d.flags.has(TcpFlags::CWR))
        .map(|d| d.seq)
        .collect();
    assert_eq!(cwr, vec![20 * MSS]);
    // ACK 21 passes high_seq (20): cwnd = ssthresh = 9000, then congestion avoidance on the
    // same ACK (+SMSS^2 / cwnd = 111): 9111, and the window is open again: 21 + 9 = 30.
    feed(&mut s, 200, 21, false, &[]);
    assert_eq!((s.core.win.cwnd, s.core.snd_max), (9111, 30 * MSS));
    assert!(s.core.ecn.cwr.is_none());
    let c = &s.core.inst.counters;
    assert_eq!(
        (c.ece_acks, c.ecn_reductions, c.segments_retransmitted),
        (4, 1, 0)
    );
}

#[test]
fn immediate_is_the_default_and_cuts_at_once() {
    // Without the option (and with "immediate") the same ACK sets cwnd = ssthresh = 9 and
    // nothing leaves until snd_una + 9 passes 20: ACK 12.
    for flow in [RENO.to_string(), format!("{RENO}\ncwr_reduction = \"immediate\"")] {
        let (mut s, _) = started_sender(&flow, "10s");
        feed(&mut s, 100, 2, true, &[]);
        assert_eq!((s.core.win.cwnd, s.core.win.ssthresh), (9 * MSS, 9 * MSS));
        for ack in 3..=11 {
            assert!(feed(&mut s, 100 + ack, ack, false, &[]).is_empty(), "ACK {ack}");
        }
        assert_eq!(feed(&mut s, 120, 12, false, &[]).len(), 1);
    }
}

#[test]
fn sacked_segments_count_as_delivered_and_a_loss_hands_over_to_the_recovery() {
    let flow = "tcp = { variant = \"sack\", prr = true }\necn = \"classic\"\nack = \"immediate\"\ninitial_window = 20\ncwr_reduction = \"prr\"";
    let (mut s, _) = started_sender(flow, "10s");
    feed(&mut s, 100, 2, true, &[]);
    assert_eq!((s.core.win.cwnd, s.core.snd_max), (19 * MSS, 21 * MSS));
    // Segment 2 was lost: duplicate ACKs SACK 3, then 3-4. Each delivers one segment; in
    // flight is the pipe (21 - 2 - SACKed). First: delivered 3, ceil(9 x 3 / 20) - 1 = 1,
    // in flight 18: cwnd 19. Second: delivered 4, ceil(36 / 20) - 1 = 1, in flight 17: 18.
    // (tcplab's send loop outside a recovery counts SACKed data as in flight, so neither
    // sends, where Linux's would send one segment each: limited transmit, on in the linux
    // profile, stands for that on the first two.)
    feed(&mut s, 101, 2, false, &[(3, 4)]);
    assert_eq!(s.core.win.cwnd, 19 * MSS);
    feed(&mut s, 102, 2, false, &[(3, 5)]);
    assert_eq!(s.core.win.cwnd, 18 * MSS);
    assert_eq!(
        s.core.ecn.cwr.map(|p| (p.prior_cwnd, p.delivered, p.out)),
        Some((20, 4, 1))
    );
    // The third starts the recovery (RFC 6675 with PRR): it keeps the ECE response's
    // ssthresh (Linux's tcp_enter_recovery inside tcp_in_cwnd_reduction) and takes the window
    // over with its own counters; the CWR episode is over.
    let out = feed(&mut s, 103, 2, false, &[(3, 6)]);
    assert!(out.iter().any(|d| d.retransmit && d.seq == 2 * MSS));
    assert_eq!(s.core.win.ssthresh, 9 * MSS);
    assert!(s.core.ecn.cwr.is_none());
    let c = &s.core.inst.counters;
    assert_eq!((c.ecn_reductions, c.fast_retransmits), (1, 1));
}

#[test]
fn dctcp_and_cubic_reach_their_own_ssthresh_by_prr() {
    // DCTCP (IW 10, an ACK per segment): ACKs 1..5 grow cwnd to 15 with 20 sent; ACK 6 has
    // ECE: ssthresh = 15000 x (1 - (15/16) / 2) = 7968 (dctcp_ssthresh through Linux's CWR),
    // 7 whole segments for PRR; cwnd stays 15 and falls by one per two ACKs while in flight
    // exceeds 7; ACK 20 finds 7 in flight: cwnd 7 segments. ACK 21 passes high_seq (20):
    // cwnd = ssthresh = 7968, then Reno's growth +125 = 8093, as with the cut at once.
    let flow = "cc = \"dctcp\"\ninitial_window = 10\nack = \"immediate\"\ncwr_reduction = \"prr\"";
    let (mut s, _) = started_sender(flow, "10s");
    for ack in 1..=5 {
        feed(&mut s, 100 + ack, ack, false, &[]);
    }
    assert_eq!((s.core.win.cwnd, s.core.snd_max), (15 * MSS, 20 * MSS));
    let want = [15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 7];
    for (ack, cwnd) in (6..=20).zip(want) {
        feed(&mut s, 100 + ack, ack, (6..=10).contains(&ack), &[]);
        assert_eq!(
            (s.core.win.cwnd, s.core.win.ssthresh),
            (cwnd * MSS, 7968),
            "ACK {ack}"
        );
    }
    assert_eq!(s.core.snd_max, 27 * MSS);
    feed(&mut s, 121, 21, false, &[]);
    assert_eq!(s.core.win.cwnd, 8093);
    // CUBIC: ssthresh = beta x cwnd = 0.7 x 15000 = 10500 at the ECE, cwnd untouched by the
    // entry and lowered by the first step: ceil(10 x 1 / 15) - 0 = 1, in flight 14: 15.
    let flow = "cc = \"cubic\"\ninitial_window = 10\nack = \"immediate\"\necn = \"classic\"\ncwr_reduction = \"prr\"";
    let (mut s, _) = started_sender(flow, "10s");
    for ack in 1..=5 {
        feed(&mut s, 100 + ack, ack, false, &[]);
    }
    feed(&mut s, 106, 6, true, &[]);
    assert_eq!((s.core.win.cwnd, s.core.win.ssthresh), (15 * MSS, 10_500));
}

#[test]
fn the_linux_profile_reduces_by_prr_and_the_ns2_profile_refuses_it() {
    use tcplab_sim::scenario::CwrReduction;
    let text = |flow: &str| super::common::one_hop(flow, &[], "1s");
    let sc = tcplab_sim::load(&text("profile = \"linux\""), &[]).unwrap();
    assert_eq!(sc.flows[0].cwr_reduction, Some(CwrReduction::Prr));
    let sc = tcplab_sim::load(&text("tcp = \"reno\""), &[]).unwrap();
    assert_eq!(sc.flows[0].cwr_reduction, None);
    let e = tcplab_sim::run_toml(
        &text("profile = \"ns2\"\ntcp = \"reno\"\nack = \"immediate\"\ncwr_reduction = \"prr\""),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        "flows[0].cwr_reduction: \"prr\" is not modelled by the ns2 profile's agents (expected \"immediate\")"
    );
    let e = tcplab_sim::run_toml(&text("cwr_reduction = \"slow\""), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("flows[0].cwr_reduction") && e.contains("`immediate`") && e.contains("`prr`"),
        "{e}"
    );
}
