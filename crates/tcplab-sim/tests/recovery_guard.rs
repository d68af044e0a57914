//! `reentry`: when may a SACK sender start a new fast recovery after the last one or a
//! timeout? `rfc6582` (the default) takes NewReno's rule (RFC 6582 Sec. 3.2 step 1): only once
//! the cumulative ACK covers more than `recover`. `rfc6675` takes RFC 6675's: once HighACK >=
//! RecoveryPoint (Sec. 5.1; ns-3 3.44 `m_highRxAckMark >= m_recover`, tcp-socket-base.cc line
//! 1810), so also when the cumulative ACK has reached `recover` (one past RecoveryPoint)
//! exactly and the segment there is then lost; RFC 6675 Sec. 2 counts as duplicates only ACKs
//! whose SACK blocks report new data, and plain duplicates at `recover` start nothing. A sender
//! driven by hand: IW 10 segments of 1000 bytes at t = 0, AIMD with ssthresh = cwnd / 2.

use crate::common;
use common::*;
use tcplab_sim::tcp::segment::Segment;
use tcplab_sim::tcp::sender::Sender;
use tcplab_sim::time::SimTime;

fn sender(tcp: &str) -> Sender {
    let (s, out) = started_sender(
        &format!(
            "tcp = {{ {tcp} }}\ninitial_window = 10\ncc = {{ algorithm = \"aimd\", ssthresh_rule = \"cwnd\", growth = \"abc\", abc_limit = 65535 }}"
        ),
        "5s",
    );
    assert_eq!(out.len(), 10);
    s
}

const RFC6582: &str = "variant = \"sack\"";
const RFC6675: &str = "variant = \"sack\", reentry = \"rfc6675\"";

fn seqs(out: &[Segment]) -> Vec<(u64, bool)> {
    out.iter().map(|p| (p.seq, p.retransmit)).collect()
}

/// Segment 0 lost; three SACKs of segments 1-3 at 100 ms start the recovery (RecoveryPoint:
/// 10000); the ACK of 10000 at 200 ms ends it with cwnd = ssthresh = 5000 and sends segments
/// 10-14.
fn first_recovery(s: &mut Sender) {
    let mut out = vec![];
    for k in 1..=3 {
        s.on_ack(SimTime::from_ms(100), &sack(0, 1000, (k + 1) * 1000), &mut out);
    }
    assert_eq!(seqs(&out), [(0, true)]);
    assert!(s.recovery.in_recovery());
    assert_eq!((s.core.win.cwnd, s.core.win.ssthresh), (5000, 5000));
    out.clear();
    s.on_ack(SimTime::from_ms(200), &Segment::ack(10_000, 40), &mut out);
    assert!(!s.recovery.in_recovery());
    assert_eq!((s.core.snd_una, s.core.recover), (10_000, 10_000));
    assert_eq!(
        seqs(&out),
        (10..15).map(|k| (k * 1000, false)).collect::<Vec<_>>()
    );
}

/// Then segment 10 (at `recover`) is lost and 11, 12, 13 are SACKed at 300 ms: what each
/// duplicate sent.
fn loss_at_recover(s: &mut Sender) -> Vec<Vec<(u64, bool)>> {
    let mut sent = vec![];
    for k in 1..=3 {
        let mut out = vec![];
        s.on_ack(
            SimTime::from_ms(300),
            &sack(10_000, 11_000, (11 + k) * 1000),
            &mut out,
        );
        sent.push(seqs(&out));
    }
    sent
}

#[test]
fn rfc6675_a_loss_at_the_recovery_point_starts_a_new_recovery() {
    let mut s = sender(RFC6675);
    first_recovery(&mut s);
    // The third duplicate retransmits segment 10 at once: ssthresh = cwnd / 2 = 2500, cwnd =
    // 2500, RecoveryPoint 15000.
    assert_eq!(loss_at_recover(&mut s), [vec![], vec![], vec![(10_000, true)]]);
    assert!(s.recovery.in_recovery());
    assert_eq!((s.core.win.cwnd, s.core.win.ssthresh), (2500, 2500));
    assert_eq!(s.core.recover, 15_000);
    assert_eq!(s.core.inst.counters.timeouts, 0);
}

#[test]
fn rfc6582_the_same_loss_waits_for_the_timer() {
    // The default: the cumulative ACK (10000) does not cover more than `recover` (10000), so
    // no fast retransmit, however many segments are SACKed; the timer repairs it.
    let mut s = sender(RFC6582);
    first_recovery(&mut s);
    assert_eq!(loss_at_recover(&mut s), [vec![], vec![], vec![]]);
    assert!(!s.recovery.in_recovery());
    assert_eq!(s.core.win.ssthresh, 5000);
    let deadline = s.deadline().expect("the timer runs");
    let mut out = vec![];
    s.on_timer(deadline, &mut out);
    assert_eq!(s.core.inst.counters.timeouts, 1);
    assert_eq!(seqs(&out)[0], (10_000, true));
}

#[test]
fn rfc6675_plain_duplicates_at_the_recovery_point_start_nothing() {
    let mut s = sender(RFC6675);
    first_recovery(&mut s);
    // Three duplicates of 10000 without SACK blocks (as a receiver answers data it already
    // holds): nothing new on the scoreboard, so no recovery at `recover` exactly.
    let mut out = vec![];
    for _ in 0..3 {
        s.on_ack(SimTime::from_ms(300), &Segment::ack(10_000, 40), &mut out);
    }
    assert!(!s.recovery.in_recovery());
    assert!(out.iter().all(|p| !p.retransmit), "{:?}", seqs(&out));
    assert_eq!(s.core.win.ssthresh, 5000);
}

#[test]
fn rfc6675_still_no_recovery_below_the_recovery_point_after_a_timeout() {
    // A timeout at the first deadline (nothing acknowledged): recover = 10000. SACKs of
    // segments 2-4 below it (go-back-N's segment 0 was delivered, 1 lost again) do not start
    // a recovery while snd_una (1000) < recover (RFC 6675 Sec. 5.1).
    let mut s = sender(RFC6675);
    let deadline = s.deadline().expect("the timer runs");
    let mut out = vec![];
    s.on_timer(deadline, &mut out);
    assert_eq!(seqs(&out), [(0, true)]);
    let t = deadline + SimTime::from_ms(100);
    out.clear();
    for k in 1..=3 {
        s.on_ack(t, &sack(1000, 2000, (k + 2) * 1000), &mut out);
    }
    assert!(!s.recovery.in_recovery());
    assert_eq!((s.core.snd_una, s.core.recover), (1000, 10_000));
}

#[test]
fn the_default_written_out_changes_nothing_and_bad_values_are_refused() {
    let flow = |extra: &str| {
        one_hop(
            &format!("tcp = {{ variant = \"sack\", prr = true{extra} }}\ninitial_window = 20"),
            &[3, 30, 31],
            "2s",
        )
    };
    let a = run(&flow(""));
    let b = run(&flow(", reentry = \"rfc6582\""));
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    let e = tcplab_sim::load(&flow(", reentry = \"rfc5681\""), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("reentry") && e.contains("rfc6582") && e.contains("rfc6675"),
        "{e}"
    );
    let e = tcplab_sim::load(&flow(", rack = true, reentry = \"rfc6675\""), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("flows[0].tcp.reentry") && e.contains("RACK"), "{e}");
    // The ns2 profile's agents follow ns-2.
    let text = one_hop(
        "profile = \"ns2\"\ntcp = { variant = \"sack\", reentry = \"rfc6675\" }\nack = \"immediate\"",
        &[],
        "1s",
    );
    let e = tcplab_sim::load(&text, &[]).unwrap_err().to_string();
    assert!(e.contains("flows[0].tcp.reentry"), "{e}");
}

#[test]
fn newreno_keeps_the_strict_rule() {
    // The same losses for NewReno: the ACK of 10000 at 200 ms is the full ACK; segment 10 is
    // lost and three duplicates of 10000 follow: no fast retransmit (RFC 6582 Sec. 3.2 step 1).
    let mut s = sender("variant = \"newreno\"");
    let mut out = vec![];
    for _ in 0..3 {
        s.on_ack(SimTime::from_ms(100), &Segment::ack(0, 40), &mut out);
    }
    assert_eq!(seqs(&out)[0], (0, true));
    out.clear();
    s.on_ack(SimTime::from_ms(200), &Segment::ack(10_000, 40), &mut out);
    assert!(!s.recovery.in_recovery());
    assert_eq!((s.core.snd_una, s.core.recover), (10_000, 10_000));
    out.clear();
    for _ in 0..3 {
        s.on_ack(SimTime::from_ms(300), &Segment::ack(10_000, 40), &mut out);
    }
    assert!(!s.recovery.in_recovery());
    assert!(out.iter().all(|p| !p.retransmit), "{:?}", seqs(&out));
}
