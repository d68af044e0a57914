//! `recovery_exit_growth`: the window on the ACK that ends a SACK recovery (recovery/exit.rs).
//! `none` (the default) leaves cwnd = ssthresh; `delivered` (Linux: `tcp_end_cwnd_reduction`,
//! then `tcp_cong_control` in CA_Open with `tcp_newly_delivered`'s count) grows it by what the
//! ACK newly delivered; `ns3` (ns-3 3.44, tcp-socket-base.cc lines 2207-2208, 2247, 2254) by
//! the cumulative advance in whole segments, those SACKed before included. A sender driven by
//! hand: SACK, IW 10 segments of 1000 bytes at t = 0, segment 0 lost, AIMD with ssthresh =
//! cwnd / 2 = 5000 at the fast retransmit.

use crate::common;
use common::*;
use tcplab_sim::tcp::segment::Segment;
use tcplab_sim::tcp::sender::Sender;
use tcplab_sim::time::SimTime;

fn sender(rule: &str, prr: bool, growth: &str) -> Sender {
    let (s, out) = started_sender(
        &format!(
            "tcp = {{ variant = \"sack\", prr = {prr}, recovery_exit_growth = \"{rule}\" }}\ninitial_window = 10\ncc = {{ algorithm = \"aimd\", ssthresh_rule = \"cwnd\", {growth} }}"
        ),
        "5s",
    );
    assert_eq!(out.len(), 10);
    s
}

/// Duplicate ACKs at 100 ms SACKing segments 1 to `sacked` (the third starts the recovery:
/// ssthresh = 5000, segment 0 retransmitted), then at 200 ms the ACK that ends it, `exit`.
/// Returns (cwnd, ssthresh) before and after the exit ACK, and what was sent during the
/// recovery.
fn recovery(s: &mut Sender, sacked: u64, exit: &Segment) -> ((u64, u64), (u64, u64), Vec<u64>) {
    let mut out = vec![];
    for k in 1..=sacked {
        s.on_ack(SimTime::from_ms(100), &sack(0, 1000, (k + 1) * 1000), &mut out);
    }
    let during = out.iter().map(|p| p.seq).collect();
    let before = (s.core.win.cwnd, s.core.win.ssthresh);
    out.clear();
    s.on_ack(SimTime::from_ms(200), exit, &mut out);
    (before, (s.core.win.cwnd, s.core.win.ssthresh), during)
}

const ABC: &str = "growth = \"abc\", abc_limit = 65535";
const PER_ACK: &str = "growth = \"per_ack\"";

/// (cwnd after the exit ACK, ssthresh) for each rule, with and without PRR (PRR sets the
/// window during the recovery, not on its exit: Linux's `tcp_end_cwnd_reduction` and RFC
/// 6937 both leave cwnd = ssthresh).
fn exit_window(rule: &str, growth: &str, sacked: u64) -> (u64, u64) {
    let mut seen = vec![];
    for prr in [false, true] {
        let mut s = sender(rule, prr, growth);
        let (_, after, _) = recovery(&mut s, sacked, &Segment::ack(10_000, 40));
        seen.push(after);
    }
    assert_eq!(seen[0], seen[1], "{rule}: PRR changes the exit");
    seen[0]
}

#[test]
fn three_segments_sacked_before_the_exit() {
    // The exit ACK (10000) covers the retransmission, segments 1-3 SACKed before it and 4-9
    // never SACKed. Byte counting in congestion avoidance (cwnd = ssthresh = 5000): one SMSS
    // once the counted bytes reach cwnd (RFC 3465 Sec. 2.1).
    //   none: no growth, 5000.
    //   delivered: 10000 - 3000 SACKed before = 7000 >= 5000: 6000.
    //   ns3: 10 segments, 10000 >= 5000: 6000.
    assert_eq!(exit_window("none", ABC, 3), (5000, 5000));
    assert_eq!(exit_window("delivered", ABC, 3), (6000, 5000));
    assert_eq!(exit_window("ns3", ABC, 3), (6000, 5000));
}

#[test]
fn nine_segments_sacked_before_the_exit() {
    // Segments 1-9 SACKed before: the exit ACK newly delivers only the retransmission.
    //   delivered: 1000 < 5000: no SMSS yet, 5000 (as none).
    //   ns3: all 10 segments count, SACKed ones included: 6000.
    assert_eq!(exit_window("none", ABC, 9), (5000, 5000));
    assert_eq!(exit_window("delivered", ABC, 9), (5000, 5000));
    assert_eq!(exit_window("ns3", ABC, 9), (6000, 5000));
    // Per-ACK growth (SMSS x SMSS / cwnd = 200 on any ACK that counts) tells none from the
    // other two: the exit ACK grows the window only with a rule.
    assert_eq!(exit_window("none", PER_ACK, 9), (5000, 5000));
    assert_eq!(exit_window("delivered", PER_ACK, 9), (5200, 5000));
    assert_eq!(exit_window("ns3", PER_ACK, 9), (5200, 5000));
}

#[test]
fn the_recovery_itself_is_unchanged() {
    // Before the exit ACK every rule has the same window and sent the same segments: the
    // retransmission, then new data once nine SACKed segments leave pipe below cwnd.
    for prr in [false, true] {
        let mut seen = vec![];
        for rule in ["none", "delivered", "ns3"] {
            let mut s = sender(rule, prr, ABC);
            let (before, _, during) = recovery(&mut s, 9, &Segment::ack(10_000, 40));
            seen.push((before, during));
        }
        assert_eq!(seen[0], seen[1]);
        assert_eq!(seen[0], seen[2]);
        assert_eq!(seen[0].1, [0, 10_000, 11_000, 12_000, 13_000]);
    }
}

#[test]
fn the_default_written_out_changes_nothing() {
    let flow = |extra: &str| {
        one_hop(
            &format!("tcp = {{ variant = \"sack\", prr = true{extra} }}\ninitial_window = 20"),
            &[3, 30, 31],
            "2s",
        )
    };
    let a = run(&flow(""));
    let b = run(&flow(", recovery_exit_growth = \"none\""));
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    // And a rule does change this run (the losses end in fast recoveries).
    let c = run(&flow(", recovery_exit_growth = \"ns3\""));
    assert_ne!(cwnd(&a), cwnd(&c));
}

#[test]
fn a_bad_rule_and_the_ns2_profile_are_refused_by_name() {
    let text = one_hop(
        "tcp = { variant = \"sack\", recovery_exit_growth = \"linux\" }",
        &[],
        "1s",
    );
    let e = tcplab_sim::load(&text, &[]).unwrap_err().to_string();
    assert!(
        e.contains("recovery_exit_growth")
            && e.contains("none")
            && e.contains("delivered")
            && e.contains("ns3"),
        "{e}"
    );
    // The ns2 profile's agents follow ns-2, whose Sack1 agent has no such rule.
    let text = one_hop(
        "profile = \"ns2\"\ntcp = { variant = \"sack\", recovery_exit_growth = \"ns3\" }\nack = \"immediate\"",
        &[],
        "1s",
    );
    let e = tcplab_sim::load(&text, &[]).unwrap_err().to_string();
    assert!(e.contains("flows[0].tcp.recovery_exit_growth"), "{e}");
}
