//! `rto_restart_on_retransmit` (Linux's `tcp_xmit_retransmit_queue`: retransmitting the first
//! unacknowledged segment restarts the retransmission timer) against RFC 6298 Sec. 5.3 (only
//! an ACK of new data restarts it). A sender driven by hand: NewReno, IW 10 segments of 1000
//! bytes at t = 0, min_rto 1 s.

use crate::common;
use common::*;
use tcplab_sim::tcp::segment::Segment;
use tcplab_sim::tcp::sender::Sender;
use tcplab_sim::time::SimTime;

fn sender(restart: bool) -> Sender {
    let (s, out) = started_sender(
        &format!("tcp = \"newreno\"\ninitial_window = 10\nrto_restart_on_retransmit = {restart}"),
        "5s",
    );
    assert_eq!(out.len(), 10);
    s
}

/// Segment 1 is lost: ACK 1000 at 100 ms (the timer restarts: 1.1 s), then three duplicate
/// ACKs at 600-602 ms and the fast retransmission of segment 1 at 602 ms.
fn fast_retransmit(s: &mut Sender) {
    let mut out = vec![];
    s.on_ack(SimTime::from_ms(100), &Segment::ack(1000, 40), &mut out);
    assert_eq!(s.deadline(), Some(SimTime::from_ms(1100)));
    out.clear();
    for t in 600..603 {
        s.on_ack(SimTime::from_ms(t), &Segment::ack(1000, 40), &mut out);
    }
    assert_eq!(
        out.iter().map(|p| (p.seq, p.retransmit)).collect::<Vec<_>>(),
        vec![(1000, true)]
    );
}

#[test]
fn the_fast_retransmission_restarts_the_timer_only_with_the_option() {
    // RFC 6298: the timer still runs from the last new ACK (100 ms + 1 s).
    let mut s = sender(false);
    fast_retransmit(&mut s);
    assert_eq!(s.deadline(), Some(SimTime::from_ms(1100)));
    // Linux: a full RTO from the retransmission (602 ms + 1 s); nothing happens at 1.1 s.
    let mut s = sender(true);
    fast_retransmit(&mut s);
    assert_eq!(s.deadline(), Some(SimTime::from_ms(1602)));
    let mut out = vec![];
    s.on_timer(SimTime::from_ms(1100), &mut out);
    assert!(out.is_empty());
    assert_eq!(s.core.inst.counters.timeouts, 0);
    s.on_timer(SimTime::from_ms(1602), &mut out);
    assert_eq!(
        out.iter().map(|p| (p.seq, p.retransmit)).collect::<Vec<_>>(),
        vec![(1000, true)]
    );
    assert_eq!(s.core.inst.counters.timeouts, 1);
}

#[test]
fn a_partial_ack_restarts_it_under_both_rules() {
    // A partial ACK (2000) during NewReno's recovery restarts the timer itself (Sec. 5.3) and
    // retransmits segment 2, the new first unacknowledged one: both rules restart it at 700 ms.
    for restart in [false, true] {
        let mut s = sender(restart);
        fast_retransmit(&mut s);
        let mut out = vec![];
        s.on_ack(SimTime::from_ms(700), &Segment::ack(2000, 40), &mut out);
        assert!(out.iter().any(|p| p.seq == 2000 && p.retransmit));
        assert_eq!(s.deadline(), Some(SimTime::from_ms(1700)));
    }
}

#[test]
fn the_linux_profile_turns_it_on_and_the_ns2_profile_refuses_it() {
    let text = one_hop("profile = \"linux\"", &[], "1s");
    let sc = tcplab_sim::load(&text, &[]).unwrap();
    assert!(sc.flows[0].rto_restart_on_retransmit);
    let text = one_hop(
        "profile = \"linux\"\nrto_restart_on_retransmit = false",
        &[],
        "1s",
    );
    assert!(!tcplab_sim::load(&text, &[]).unwrap().flows[0].rto_restart_on_retransmit);
    let text = one_hop(
        "profile = \"ns2\"\ntcp = \"reno\"\nrto_restart_on_retransmit = true",
        &[],
        "1s",
    );
    let e = tcplab_sim::load(&text, &[]).unwrap_err().to_string();
    assert!(e.contains("rto_restart_on_retransmit"), "{e}");
}
