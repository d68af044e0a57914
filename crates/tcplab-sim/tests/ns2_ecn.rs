//! Known answers for ECN in the ns2 profile's agents and sinks (tcp/ns2/ecn.rs), driven by
//! hand: scripted ACKs with and without ECE, and the exact cwnd_, ssthresh_, packets and
//! flags ns-2.35's rules give (tcp.cc `ecn`, `recv_newack_helper`, `output`, `timeout`;
//! tcp-reno.cc / tcp-sack1.cc `dupack_action`; tcp-sink.cc `ack`). The event-for-event
//! comparison with ns-2 itself is tests/test_ns2_ecn.py.

use tcplab_sim::net::packet::Ecn;
use tcplab_sim::tcp::ns2::agent::Ns2Config;
use tcplab_sim::tcp::ns2::{Ns2Sender, Ns2Sink, Ns2Variant};
use tcplab_sim::tcp::segment::{Segment, TcpFlags};
use tcplab_sim::time::SimTime;

fn agent(variant: Ns2Variant) -> Ns2Sender {
    Ns2Sender::new(Ns2Config {
        variant,
        packet_size: 1000,
        header: 40,
        window: 28,
        window_init: 2,
        singledup: false,
        partial_ack: false,
        tick_ns: 10_000_000,
        boot_ns: 0,
        rto_init: SimTime::from_secs(6),
        min_rto: SimTime::from_secs(1),
        max_rto: SimTime::from_secs(60),
        ecn: true,
    })
}

/// The sink's ACK of packet `n`, with ECE or not.
fn ack(n: u64, ece: bool) -> Segment {
    let mut a = Segment::ack(n, 40);
    a.seq = n;
    a.flags.set(TcpFlags::ECE, ece);
    a
}

struct Driver {
    s: Ns2Sender,
    now: SimTime,
}

impl Driver {
    fn new(variant: Ns2Variant) -> (Driver, Vec<Segment>) {
        let mut s = agent(variant);
        let mut out = Vec::new();
        s.start(SimTime::ZERO, &mut out);
        (
            Driver {
                s,
                now: SimTime::ZERO,
            },
            out,
        )
    }

    fn ack(&mut self, n: u64, ece: bool) -> Vec<Segment> {
        self.send(ack(n, ece))
    }

    /// A duplicate ACK of `n` whose SACK block is [n + 2, right) (Sack1 counts a dupack only
    /// when the SACK information is new).
    fn dupack(&mut self, n: u64, right: u64) -> Vec<Segment> {
        let mut a = ack(n, false);
        a.sack.blocks[0] = (2, (right - n) as u32);
        a.sack.n = 1;
        self.send(a)
    }

    fn send(&mut self, a: Segment) -> Vec<Segment> {
        self.now = self.now + SimTime::from_ms(10);
        let mut out = Vec::new();
        self.s.on_ack(self.now, &a, &mut out);
        out
    }

    fn state(&self) -> (f64, i64) {
        (self.s.cwnd, self.s.ssthresh)
    }
}

fn seqs(out: &[Segment]) -> Vec<u64> {
    out.iter().map(|p| p.seq).collect()
}

fn cwr(out: &[Segment]) -> Vec<bool> {
    out.iter().map(|p| p.flags.has(TcpFlags::CWR)).collect()
}

#[test]
fn the_syn_asks_for_ecn_and_data_is_ect0_once_the_sink_answers() {
    let (mut d, syn) = Driver::new(Ns2Variant::Reno);
    assert_eq!(seqs(&syn), [0]);
    // output(): the SYN carries ECE and is Not-ECT.
    assert!(syn[0].flags.has(TcpFlags::ECE));
    assert_eq!(syn[0].ecn, Ecn::NotEct);
    // The sink's ECE on the SYN's ACK is no mark (0 > recover_ 0 is false): windowInit_ 2.
    let out = d.ack(0, true);
    assert_eq!(d.state(), (2.0, 28));
    assert_eq!(seqs(&out), [1, 2]);
    assert!(out.iter().all(|p| p.ecn == Ecn::Ect0 && p.flags.0 == 0));
    assert_eq!(d.s.inst.counters.ecn_reductions, 0);
}

#[test]
fn ece_halves_once_per_window_blocks_growth_and_the_next_packet_has_cwr() {
    let (mut d, _) = Driver::new(Ns2Variant::Reno);
    d.ack(0, true);
    assert_eq!(seqs(&d.ack(1, false)), [3, 4]); // slow start: cwnd 3
                                                // ecn(2): 2 > recover_ 0: recover_ = maxseq_ 4, ssthresh = max(2, int(3 / 2)) = 2,
                                                // cwnd = int(3 / 2) = 1; the ACK of new data with ECE does not open cwnd.
    assert!(d.ack(2, true).is_empty());
    assert_eq!(d.state(), (1.0, 2));
    assert_eq!(d.s.inst.counters.ecn_reductions, 1);
    // 3 <= recover_ 4: the same window, no second reduction.
    assert!(d.ack(3, true).is_empty());
    assert_eq!(d.state(), (1.0, 2));
    assert_eq!(d.s.inst.counters.ecn_reductions, 1);
    // No ECE: cwnd 1 -> 2 (below ssthresh); the first packet after the reduction has CWR.
    let out = d.ack(4, false);
    assert_eq!(d.state(), (2.0, 2));
    assert_eq!(seqs(&out), [5, 6]);
    assert_eq!(cwr(&out), [true, false]);
}

/// Reno's and Sack1's dupack_action in the window of an ECN response: the lost packet is
/// resent (with the pending CWR) and the window is not cut again.
#[test]
fn three_dupacks_after_an_ecn_response_retransmit_without_a_second_cut() {
    for variant in [Ns2Variant::Reno, Ns2Variant::Newreno, Ns2Variant::Sack1] {
        let (mut d, _) = Driver::new(variant);
        d.ack(0, true);
        for n in 1..=6 {
            d.ack(n, false);
        }
        // cwnd 8, packets up to 14 sent (highest_ack 6 + 8).
        assert_eq!(d.state(), (8.0, 28), "{variant:?}");
        // ecn(7): recover_ = maxseq_ 14, ssthresh = cwnd = int(8 / 2) = 4; nothing to send
        // (t_seqno 15 > 7 + 4).
        assert!(d.ack(7, true).is_empty(), "{variant:?}");
        assert_eq!(d.state(), (4.0, 4), "{variant:?}");
        // Packet 8 lost: three duplicate ACKs of 7 (SACKing 9, 9-10, 9-11).
        assert!(d.dupack(7, 10).is_empty(), "{variant:?}");
        assert!(d.dupack(7, 11).is_empty(), "{variant:?}");
        let out = d.dupack(7, 12);
        // highest_ack_ 7 <= recover_ 14, last action ECN: resend 8, no slowdown.
        assert_eq!(out[0].seq, 8, "{variant:?}");
        assert!(
            out[0].retransmit && out[0].flags.has(TcpFlags::CWR),
            "{variant:?}"
        );
        assert_eq!(d.state(), (4.0, 4), "{variant:?}");
        assert_eq!(d.s.inst.counters.ecn_reductions, 1, "{variant:?}");
    }
}

#[test]
fn tahoe_goes_back_to_one_packet_and_keeps_ssthresh_after_an_ecn_response() {
    let (mut d, _) = Driver::new(Ns2Variant::Tahoe);
    d.ack(0, true);
    for n in 1..=6 {
        d.ack(n, false);
    }
    d.ack(7, true);
    assert_eq!(d.state(), (4.0, 4));
    d.dupack(7, 10);
    d.dupack(7, 11);
    let out = d.dupack(7, 12);
    // slowdown(CLOSE_CWND_ONE), t_seqno_ = highest_ack_ + 1: packet 8 again, ssthresh kept.
    assert_eq!(d.state(), (1.0, 4));
    assert_eq!(seqs(&out), [8]);
    assert!(out[0].flags.has(TcpFlags::CWR));
}

#[test]
fn a_timeout_in_the_window_of_an_ecn_response_keeps_ssthresh() {
    let (mut d, _) = Driver::new(Ns2Variant::Newreno);
    d.ack(0, true);
    for n in 1..=6 {
        d.ack(n, false);
    }
    d.ack(7, true);
    assert_eq!(d.state(), (4.0, 4));
    let at = d.s.deadline().expect("the timer runs");
    let mut out = Vec::new();
    d.s.on_timer(at, &mut out);
    // tcp.cc timeout(): highest_ack_ < recover_ and the last action was ECN:
    // slowdown(CLOSE_CWND_ONE) (a plain timeout would set ssthresh = int(4 / 2) = 2).
    assert_eq!(d.state(), (1.0, 4));
    assert_eq!(seqs(&out), [8]);
    assert!(out[0].flags.has(TcpFlags::CWR));
}

#[test]
fn without_ecn_the_agent_sends_no_ecn_bits() {
    let mut s = agent(Ns2Variant::Reno);
    s.cfg.ecn = false;
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    s.on_ack(SimTime::from_ms(10), &ack(0, false), &mut out);
    assert_eq!(seqs(&out), [0, 1, 2]);
    assert!(out.iter().all(|p| p.ecn == Ecn::NotEct && p.flags.0 == 0));
}

#[test]
fn the_sink_echoes_ce_until_cwr() {
    let mut k = Ns2Sink::new(false, 1000);
    let mut send = |seq: u64, ecn: Ecn, flags: u8| {
        let mut p = Segment::data(seq, if seq == 0 { 0 } else { 1000 }, 1040);
        p.ecn = ecn;
        p.flags = TcpFlags(flags);
        let mut out = Vec::new();
        k.on_segment(SimTime::ZERO, &p, &mut out);
        out[0].flags.has(TcpFlags::ECE)
    };
    let (ece, cwr) = (TcpFlags::ECE, TcpFlags::CWR);
    assert!(send(0, Ecn::NotEct, ece)); // the SYN's ECE: negotiation
    assert!(!send(1, Ecn::Ect0, 0));
    assert!(send(2, Ecn::Ce, 0)); // a mark
    assert!(send(3, Ecn::Ect0, 0)); // still echoed
    assert!(!send(4, Ecn::Ect0, cwr)); // CWR ends the echo
    assert!(send(5, Ecn::Ce, cwr)); // CWR first, then the new mark
    assert!(!send(6, Ecn::NotEct, 0)); // a Not-ECT packet's ACK carries no echo
}
