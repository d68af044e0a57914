//! `prr_rules`: PRR's arithmetic. `rfc6937` (the default) is RFC 6937 Sec. 3; `ns3` is ns-3
//! 3.44's TcpPrrRecovery, for side-by-side runs with ns-3 (docs/validation/ns3.md): RecoverFS
//! = RFC 6675's pipe before the fast retransmission (tcp-prr-recovery.cc line 64), one SMSS
//! more DeliveredData on every duplicate ACK while prr_delivered < RecoverFS (lines 74-77),
//! and the slow-start reduction bound's SMSS only on an ACK that advances snd_una (lines
//! 97-104).

use crate::common;
use common::*;
use tcplab_sim::RunResult;

/// A window of 20 segments (MSS 1000) in congestion avoidance, segment 0 lost, an ACK per
/// segment: 19 duplicate ACKs SACKing one segment each. ssthresh = 10000 (d x FlightSize).
/// Returns the segments sent after the fast retransmission during the duplicate-ACK train
/// (numbers) with their times in ACK spacings after it, and the run.
fn train(rules: &str) -> (Vec<u64>, Vec<i64>, RunResult) {
    let flow = format!(
        "tcp = {{ variant = \"sack\", prr = true, prr_rules = \"{rules}\" }}\nack = \"immediate\"\ninitial_window = 20\ninitial_ssthresh = 20000"
    );
    let r = run(&one_hop(&flow, &[1], "1s"));
    let sent = data_sent(&r);
    let rtx = sent.iter().position(|s| s.retransmit).unwrap();
    let t_rtx = sent[rtx].t;
    let during: Vec<&Sent> = sent[rtx + 1..].iter().filter(|s| s.t < t_rtx + 0.09).collect();
    let seqs = during.iter().map(|s| s.seq / 1000).collect();
    // 1040 bytes at 1 Gbit/s = 8.32 us between ACKs.
    let slots = during
        .iter()
        .map(|s| ((s.t - t_rtx) / 8.32e-6).round() as i64)
        .collect();
    (seqs, slots, r)
}

#[test]
fn rfc6937_is_the_default_and_sends_one_segment_per_two_acks() {
    // The same train as family.rs's PRR test: nine new segments, 20-28.
    let (seqs, slots, _) = train("rfc6937");
    assert_eq!(seqs, (20..=28).collect::<Vec<u64>>());
    assert_eq!(slots, [3, 5, 7, 9, 12, 13, 14, 15, 16]);
}

#[test]
fn ns3_rules_send_one_and_a_quarter_segments_per_ack_then_five_eighths() {
    // RecoverFS = pipe before the fast retransmission: 20 - 3 SACKed - 1 lost = 16000.
    // DeliveredData per duplicate ACK = 1000 SACKed + 1000 while prr_delivered < 16000.
    //   dupACK 3 (entry): prr_delivered 2000, prr_out 1000 (the retransmission); pipe 17000 >
    //     ssthresh: sndcnt = ceil(2000 x 10000 / 16000) - 1000 = 250: nothing.
    //   dupACK 4: 4000 -> ceil(2500) - 1000 = 1500, pipe 16000: one segment (20).
    //   dupACK 5: 6000 -> 3750 - 2000 = 1750: one (21).
    //   dupACK 6: 8000 -> 5000 - 3000 = 2000: two (22, 23).
    //   dupACK 7: 10000 -> 6250 - 5000 = 1250: one (24).
    //   dupACK 8: 12000 -> 7500 - 6000 = 1500: one (25).
    //   dupACK 9: 14000 -> 8750 - 7000 = 1750: one (26).
    //   dupACK 10: 16000 -> 10000 - 8000 = 2000: two (27, 28).
    //   dupACK 11 on: prr_delivered has reached RecoverFS, DeliveredData = 1000: sndcnt
    //     grows by 625 a time: 11: 10625 - 10000 = 625; 12: 1250, one (29); 13: 875; 14:
    //     1500, one (30); 15: 1125, one (31); 16: 750; 17: 1375, one (32); 18: 1000, one
    //     (33); 19: 625.
    // Pipe stays above ssthresh (16000 to 17000) throughout: the bound is never used.
    let (seqs, slots, r) = train("ns3");
    assert_eq!(seqs, (20..=33).collect::<Vec<u64>>());
    // dupACK k arrives k - 3 ACK spacings after the third.
    assert_eq!(slots, [1, 2, 3, 3, 4, 5, 6, 7, 7, 9, 11, 12, 14, 15]);
    // RFC 6937 sends 9 new segments here, ns-3's arithmetic 14; the recovery still ends with
    // cwnd = ssthresh, never below it.
    let lowest = lowest_cwnd(&r, 0.1, 0.3);
    assert_eq!(lowest, 10000);
}

#[test]
fn ns3_rules_without_prr_and_an_unknown_rule_are_refused_by_name() {
    let text = one_hop("tcp = { variant = \"sack\", prr_rules = \"ns3\" }", &[], "1s");
    let e = tcplab_sim::load(&text, &[]).unwrap_err().to_string();
    assert!(
        e.contains("flows[0].tcp.prr_rules") && e.contains("prr = true"),
        "{e}"
    );
    let text = one_hop(
        "tcp = { variant = \"sack\", prr = true, prr_rules = \"linux\" }",
        &[],
        "1s",
    );
    let e = tcplab_sim::load(&text, &[]).unwrap_err().to_string();
    assert!(
        e.contains("prr_rules") && e.contains("rfc6937") && e.contains("ns3"),
        "{e}"
    );
    // The default written out is accepted and changes nothing.
    let text = one_hop(
        "tcp = { variant = \"sack\", prr = false, prr_rules = \"rfc6937\" }",
        &[],
        "1s",
    );
    assert!(tcplab_sim::load(&text, &[]).is_ok());
}
