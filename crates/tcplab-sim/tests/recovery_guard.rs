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

/// The `linux` profile (SACK with PRR and RACK-TLP): a loss at the recovery point right after
/// a recovery. Linux with SACK leaves Recovery when snd_una reaches high_seq
/// (`tcp_try_undo_recovery`: only a Reno sender, `tcp_is_reno`, holds the state until
/// something above high_seq is ACKed), and RACK's marks (`tcp_rack_mark_lost`) start a new
/// recovery from Open (`tcp_fastretrans_alert` -> `tcp_time_to_recover`: lost_out > 0). The
/// RACK recovery here has no `recover` guard: it starts whenever RACK marks a segment lost
/// outside fast and RTO recovery (RFC 8985 Sec. 6.2 step 5), so at snd_una == recover too,
/// without the timer. The sender driven by hand has no handshake and its only cumulative ACK
/// covers a retransmission (Karn), so it has no SRTT and RACK's reo_wnd is 0 (min(min_RTT / 4,
/// SRTT), Sec. 6.2 step 4): a segment sent before a SACKed one is lost on that SACK.
#[test]
fn linux_profile_rack_starts_a_new_recovery_at_the_recovery_point() {
    let (mut s, out) = started_sender(
        "profile = \"linux\"\ntimestamps = false\ninitial_window = 10\ncc = { algorithm = \"aimd\", ssthresh_rule = \"cwnd\" }",
        "5s",
    );
    assert_eq!(out.len(), 10);
    // 100 ms: the SACK of segment 1. Limited transmit (RFC 3042) sends segment 10; RACK marks
    // segment 0 (sent with 1, lower sequence; 0 + RACK.rtt 100 ms <= now) and the recovery
    // starts: ssthresh = 10000 / 2, RecoveryPoint = snd_max = 11000, segment 0 again.
    let mut out = vec![];
    s.on_ack(SimTime::from_ms(100), &sack(0, 1000, 2000), &mut out);
    assert_eq!(seqs(&out), [(10_000, false), (0, true)]);
    assert!(s.recovery.in_recovery());
    assert_eq!((s.core.win.ssthresh, s.core.recover), (5000, 11_000));
    // 200 ms: the ACK of 11000 ends it (snd_una >= RecoveryPoint, as Linux's SACK sender):
    // cwnd = ssthresh, five new segments 11-15; snd_una == recover.
    out.clear();
    s.on_ack(SimTime::from_ms(200), &Segment::ack(11_000, 40), &mut out);
    assert!(!s.recovery.in_recovery());
    assert_eq!((s.core.snd_una, s.core.recover), (11_000, 11_000));
    assert_eq!(s.core.win.cwnd, 5000);
    assert_eq!(
        seqs(&out),
        (11..16).map(|k| (k * 1000, false)).collect::<Vec<_>>()
    );
    // 300 ms: segment 11 (at `recover`) is lost, 12 SACKed. Limited transmit sends 16; RACK
    // marks 11 (sent with 12 at 200 ms) and a new recovery starts on this first SACK, with
    // snd_una still == recover: ssthresh = 5000 / 2, RecoveryPoint 17000, segment 11 again.
    // PRR (RFC 6937): RecoverFS = 17000 - 11000; pipe = 11's retransmission + 13-16 = 5000 >
    // ssthresh, sndcnt = max(ceil(1000 x 2500 / 6000) - 1000, 0) = 0, so cwnd = pipe = 5000.
    out.clear();
    s.on_ack(SimTime::from_ms(300), &sack(11_000, 12_000, 13_000), &mut out);
    assert_eq!(seqs(&out), [(16_000, false), (11_000, true)]);
    assert!(s.recovery.in_recovery());
    assert_eq!((s.core.win.cwnd, s.core.win.ssthresh), (5000, 2500));
    assert_eq!(s.core.recover, 17_000);
    assert_eq!(s.core.inst.counters.timeouts, 0);
}
