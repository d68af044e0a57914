//! ECN on the wire, per data direction: the IP ECN field of the data segments (ECT(0), ECT(1),
//! CE), the ACKs that echo congestion (ECE), the sender's CWR, the round trips in which the
//! marks fall, and the ECN negotiation of the handshake (RFC 3168 Sec. 6.1.1; AccECN, RFC 9768
//! Sec. 3.1.1).
//!
//! What a capture shows depends on where it is: a CE mark is made by a queue, so only a
//! capture downstream of that queue (at the receiver, or a router's output) sees the data
//! segments marked; everywhere, the receiver's ECE ACKs and the sender's CWR segments show
//! the marks' echo and the sender's reductions (docs/pcap.md).

use super::DirectionResult;
use crate::capture::TcpPacket;
use crate::net::packet::Ecn;
use crate::tcp::accecn::AccEcnSender;

/// The ECN bits of a SYN or SYN-ACK: AE, CWR, ECE as a 3-bit number (RFC 9768 Table 2's
/// order: AE is the high bit).
pub fn syn_bits(ae: bool, cwr: bool, ece: bool) -> u8 {
    (ae as u8) << 2 | (cwr as u8) << 1 | ece as u8
}

/// The ECN negotiation a handshake shows, from the initiator's SYN and the responder's
/// SYN-ACK bits (`syn_bits`), as the `ecn_handshake` column says it:
///
/// - `unseen`: no SYN in the capture;
/// - `off`: the SYN asked for no ECN (its CWR and ECE clear, RFC 3168 Sec. 6.1.1);
/// - `requested`: the SYN asked (ECE and CWR: classic; AE, CWR and ECE: AccECN) and no SYN-ACK
///   was captured;
/// - `refused`: the SYN-ACK answered with none of ECE, CWR, AE (a responder without ECN);
/// - `classic`: an ECN-setup SYN-ACK, ECE alone (RFC 3168 Sec. 6.1.1), also in answer to an
///   AccECN request (RFC 9768 Sec. 3.1.2: a classic responder);
/// - `accecn`: an AccECN request answered by one of the SYN-ACK codes of RFC 9768 Table 2
///   (AE, CWR, ECE = 010, 011, 100 or 110: the SYN's IP ECN field fed back);
/// - `invalid`: any other combination (RFC 3168 Sec. 6.1.1: a SYN-ACK with both ECE and CWR
///   set is not an ECN-setup SYN-ACK; 111 is reserved by RFC 9768).
pub fn handshake(syn: Option<u8>, synack: Option<u8>) -> &'static str {
    const ECE: u8 = 0b001;
    const CWR_ECE: u8 = 0b011;
    const ACCECN: u8 = 0b111;
    let Some(syn) = syn else { return "unseen" };
    if syn & CWR_ECE != CWR_ECE {
        return "off";
    }
    let Some(sa) = synack else { return "requested" };
    match (syn == ACCECN, sa) {
        (_, 0) => "refused",
        (_, ECE) => "classic",
        (true, 0b010 | 0b011 | 0b100 | 0b110) => "accecn",
        _ => "invalid",
    }
}

/// A connection's AccECN mode (RFC 9768) as its capture shows it: negotiated in the captured
/// handshake, or, without one, an AccECN option seen. AE, CWR and ECE are then the ACE
/// counter, not flags.
#[derive(Clone, Copy, Debug, Default)]
pub struct AccEcnMode {
    pub on: bool,
    /// The initiator's first ACK after an AccECN SYN-ACK is still to come: its ACE feeds back
    /// the SYN-ACK's IP-ECN field (Table 4), not the counter.
    third_ack_pending: bool,
}

impl AccEcnMode {
    /// A SYN-ACK, whose handshake gave `negotiated` (`handshake`); `dirs` the connection's
    /// two directions' counters.
    pub fn synack(&mut self, negotiated: &str, dirs: &mut [EcnCounters; 2]) {
        if negotiated == "accecn" {
            self.on = true;
            self.third_ack_pending = true;
            dirs.iter_mut().for_each(EcnCounters::start_accecn);
        }
    }

    /// A segment other than a SYN; `syn_seen`: the capture has the connection's SYN.
    pub fn segment(&mut self, p: &TcpPacket, syn_seen: bool) {
        self.on |= p.accecn.is_some() && !syn_seen;
    }

    /// Whether ACK `p` echoed congestion to the direction whose counters are `e`: ECE, or
    /// under AccECN an ACE increment. `from_initiator`: sent by the side that sent the SYN;
    /// `acked`: the bytes its cumulative ACK newly covered; `mss` the direction's.
    pub fn echo(
        &mut self,
        e: &mut EcnCounters,
        p: &TcpPacket,
        from_initiator: bool,
        acked: u64,
        mss: u32,
        inside: bool,
    ) -> bool {
        if p.syn() {
            return false;
        }
        if !self.on {
            return p.ece();
        }
        if from_initiator && self.third_ack_pending {
            self.third_ack_pending = false;
            return false;
        }
        // The segments the cumulative ACK newly covers, as the simulator's sender counts them
        // for the ACE wrap's safety rule.
        let mss = mss.max(1);
        let delivered = acked.div_ceil(mss as u64).min(u32::MAX as u64) as u32;
        let ace = (p.ae as u32) << 2 | (p.cwr() as u32) << 1 | p.ece() as u32;
        e.accecn_ack(ace, p.accecn.and_then(|o| o.eceb()), delivered, mss, inside)
    }
}

/// The ECN counts of one data direction over the analysis window.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EcnCounters {
    /// Data segments by the IP ECN field they carried where captured.
    pub ect0: u64,
    pub ect1: u64,
    pub ce: u64,
    /// Segments (not SYNs) from the receiver, ACKing this direction's data, with ECE set.
    pub ece_acks: u64,
    /// Segments (not SYNs) of this direction's sender with CWR set: its window reductions
    /// (RFC 3168 Sec. 6.1.2 asks for CWR after a reduction for ECE; Linux sets it after a
    /// loss's too: `tcp_init_cwnd_reduction` and `tcp_enter_loss` call `tcp_ecn_queue_cwr`).
    pub cwr: u64,
    /// CWR segments with an ECE ACK since the previous CWR: the reductions for ECN.
    pub ecn_reductions: u64,
    ece_since_cwr: bool,
    /// Round trips completed in the window: a round ends when the cumulative ACK covers a
    /// byte sent after the last round ended (Linux's rule for BBR's rounds: a packet sent
    /// after `next_rtt_delivered` was set is delivered, `bbr_update_round_start`).
    pub rounds: u64,
    /// snd_max when the current round began (relative bytes; the first data's start for
    /// the first round); None before the first data.
    round_end: Option<i64>,
    /// AccECN feedback (RFC 9768), once the connection is in AccECN mode: the ACE counter and
    /// the option's ECEB read as the sender reads them (`tcp::accecn::AccEcnSender`: the
    /// wrap's safety rule included), and whether ECEB has been seen yet (a capture that starts
    /// mid-stream takes the first value it sees as its origin).
    accecn: Option<AccEcnFeedback>,
    /// CE packets and CE payload bytes the receiver fed back in AccECN ACKs (the ACE counter's
    /// increments and ECEB's): its own count of what arrived marked, wherever the capture is.
    pub accecn_ce_packets: u64,
    pub accecn_ce_bytes: u64,
}

/// A direction's AccECN feedback reader.
#[derive(Clone, Copy, Debug, PartialEq)]
struct AccEcnFeedback {
    sender: AccEcnSender,
    /// The ACE origin is known (from the handshake, or from the first ACK mid-stream).
    ace_known: bool,
    eceb_known: bool,
}

impl EcnCounters {
    /// A data segment from relative byte `start`, with IP ECN field `ecn`.
    pub fn data(&mut self, ecn: Ecn, start: i64, inside: bool) {
        self.round_end.get_or_insert(start);
        if inside {
            match ecn {
                Ecn::NotEct => {}
                Ecn::Ect0 => self.ect0 += 1,
                Ecn::Ect1 => self.ect1 += 1,
                Ecn::Ce => self.ce += 1,
            }
        }
    }

    /// A segment of this direction's sender (data or not) with CWR.
    pub fn cwr(&mut self, inside: bool) {
        if inside {
            self.cwr += 1;
            self.ecn_reductions += self.ece_since_cwr as u64;
        }
        self.ece_since_cwr = false;
    }

    /// An ACK of this direction's data: cumulative `snd_una` after it, `snd_max` so far.
    pub fn ack(&mut self, ece: bool, snd_una: i64, snd_max: i64, inside: bool) {
        if ece && inside {
            self.ece_acks += 1;
        }
        self.ece_since_cwr |= ece;
        if let Some(end) = self.round_end {
            if snd_una > end {
                self.round_end = Some(snd_max);
                if inside {
                    self.rounds += 1;
                }
            }
        }
    }

    /// The connection negotiated AccECN in a captured handshake: the ACE counter and ECEB
    /// start at their initial values (RFC 9768 Sec. 3.2.2.1, 3.2.3).
    pub fn start_accecn(&mut self) {
        self.accecn.get_or_insert(AccEcnFeedback {
            sender: AccEcnSender::new(1),
            ace_known: true,
            eceb_known: true,
        });
    }

    /// In AccECN mode?
    pub fn accecn(&self) -> bool {
        self.accecn.is_some()
    }

    /// An AccECN ACK of this direction's data: its ACE field, its option's ECEB (if carried),
    /// and the data segments it newly delivered. Returns whether it fed back a CE mark. An ACK
    /// on a capture without the handshake sets the origin of what it carries (a mid-stream
    /// start: marks before it are not counted); `start_accecn` is implied.
    pub fn accecn_ack(
        &mut self,
        ace: u32,
        eceb: Option<u32>,
        delivered: u32,
        mss: u32,
        inside: bool,
    ) -> bool {
        let fb = self.accecn.get_or_insert(AccEcnFeedback {
            sender: AccEcnSender::new(mss.max(1)),
            ace_known: false,
            eceb_known: false,
        });
        // SMSS for the safety rule's byte comparisons: the direction's, as known by now.
        fb.sender.mss = mss.max(1);
        if !fb.ace_known {
            fb.sender.cep = ace;
            fb.ace_known = true;
        }
        let eceb = match eceb {
            Some(b) if !fb.eceb_known => {
                fb.sender.ceb = b;
                fb.eceb_known = true;
                None
            }
            e => e,
        };
        let d = fb.sender.feedback(ace, eceb, delivered);
        if inside {
            self.accecn_ce_packets += d.packets as u64;
            self.accecn_ce_bytes += d.bytes;
        }
        d.packets > 0
    }

    /// Data segments that were ECN-capable (ECT(0), ECT(1) or CE) where captured.
    pub fn capable(&self) -> u64 {
        self.ect0 + self.ect1 + self.ce
    }

    /// The CE marks of the direction: under AccECN the receiver's count (it saw every mark,
    /// wherever the capture is), else the CE data segments seen where captured.
    pub fn marks(&self) -> u64 {
        if self.accecn() {
            self.accecn_ce_packets
        } else {
            self.ce
        }
    }

    /// CE marks per data segment sent: the marking rate, the p of the models under ECN. NaN
    /// when no data segment was ECN-capable (no queue could mark them).
    pub fn marking_rate(&self, segments_sent: u64) -> f64 {
        if self.capable() == 0 || segments_sent == 0 {
            f64::NAN
        } else {
            self.marks() as f64 / segments_sent as f64
        }
    }

    /// CE marks per round trip (NaN before a round has ended).
    pub fn marks_per_rtt(&self) -> f64 {
        if self.rounds == 0 {
            f64::NAN
        } else {
            self.marks() as f64 / self.rounds as f64
        }
    }

    /// The ECN columns of a direction's result (its `segments_sent` already set).
    pub fn fill(&self, r: &mut DirectionResult, handshake: &'static str) {
        r.ecn_handshake = handshake;
        r.ect0_segments = self.ect0;
        r.ect1_segments = self.ect1;
        r.ce_segments = self.ce;
        r.ece_acks = self.ece_acks;
        // Under AccECN, CWR is a bit of the ACE counter, not a reduction's flag (RFC 9768
        // Sec. 3.2.2); on a capture without the handshake, segments before the mode was known
        // may have counted it.
        let (cwr, reductions) = if self.accecn() {
            (0, 0)
        } else {
            (self.cwr, self.ecn_reductions)
        };
        r.cwr_segments = cwr;
        r.ecn_reductions = reductions;
        r.accecn_ce_packets = self.accecn_ce_packets;
        r.accecn_ce_bytes = self.accecn_ce_bytes;
        r.rounds = self.rounds;
        r.marks_per_rtt = self.marks_per_rtt();
        r.marking_rate = self.marking_rate(r.segments_sent);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handshakes_of_rfc_3168_and_rfc_9768() {
        let b = |ae, cwr, ece| Some(syn_bits(ae, cwr, ece));
        assert_eq!(handshake(None, None), "unseen");
        assert_eq!(handshake(b(false, false, false), b(false, false, false)), "off");
        // RFC 3168 Sec. 6.1.1: an ECN-setup SYN has ECE and CWR, an ECN-setup SYN-ACK ECE only.
        assert_eq!(handshake(b(false, true, true), b(false, false, true)), "classic");
        assert_eq!(handshake(b(false, true, true), b(false, false, false)), "refused");
        assert_eq!(handshake(b(false, true, true), None), "requested");
        assert_eq!(handshake(b(false, true, true), b(false, true, true)), "invalid");
        // RFC 9768 Table 2: an AccECN SYN (AE, CWR, ECE) answered with the SYN's IP-ECN
        // feedback code, or by a classic responder, or by none.
        for code in [0b010, 0b011, 0b100, 0b110] {
            assert_eq!(handshake(b(true, true, true), Some(code)), "accecn", "{code:03b}");
        }
        assert_eq!(handshake(b(true, true, true), b(false, false, true)), "classic");
        assert_eq!(handshake(b(true, true, true), b(false, false, false)), "refused");
        assert_eq!(handshake(b(true, true, true), b(true, true, true)), "invalid");
        // A classic request cannot get an AccECN answer.
        assert_eq!(handshake(b(false, true, true), Some(0b010)), "invalid");
    }

    #[test]
    fn marks_rounds_and_rates() {
        let mut e = EcnCounters::default();
        // Round 1: 4 segments of 1000 bytes sent at once, the third marked. The first ACK
        // ends the first round; the second covers only bytes sent before that: no round.
        for (i, ecn) in [Ecn::Ect0, Ecn::Ect0, Ecn::Ce, Ecn::Ect0].into_iter().enumerate() {
            e.data(ecn, 1000 * i as i64, true);
        }
        e.ack(false, 2000, 4000, true);
        assert_eq!(e.rounds, 1);
        e.ack(true, 4000, 4000, true);
        assert_eq!(e.rounds, 1, "bytes sent before the round ended");
        e.ack(true, 4000, 4000, true);
        assert_eq!(e.rounds, 1);
        // Round 2: sent after round 1 ended, ACKed.
        e.data(Ecn::Ce, 4000, true);
        e.data(Ecn::NotEct, 5000, true);
        e.ack(false, 6000, 6000, true);
        assert_eq!((e.ect0, e.ect1, e.ce, e.ece_acks, e.rounds), (3, 0, 2, 2, 2));
        // A CWR after an ECE is a reduction for ECN; one with no ECE since the last CWR (a
        // loss's, as Linux flags them) is not.
        e.cwr(true);
        e.cwr(true);
        assert_eq!((e.cwr, e.ecn_reductions), (2, 1));
        assert_eq!(e.marking_rate(6), 2.0 / 6.0);
        assert_eq!(e.marks_per_rtt(), 1.0);
        // Outside the window: nothing counted.
        e.data(Ecn::Ce, 6000, false);
        e.ack(true, 7000, 7000, false);
        assert_eq!((e.ce, e.ece_acks, e.rounds), (2, 2, 2));
        assert!(EcnCounters::default().marking_rate(10).is_nan());
    }
}
