//! The SYN / SYN-ACK / ACK exchange (`handshake = true`; RFC 9293 Sec. 3.5), and ECN's
//! negotiation on it (RFC 3168 Sec. 6.1.1; AccECN, RFC 9768 Sec. 3.1). Without it a sender
//! starts with data and the configuration of both ends decides ECN (`scenario/flow/ecn.rs`).
//!
//! * The sender's SYN has its own retransmission timer: the initial RTO (1 s, RFC 6298
//!   Sec. 2.1), doubled on each expiry (Sec. 5.5). The SYN-ACK's RTT is the first sample:
//!   with timestamps from its TSecr, which echoes the SYN that arrived, even a retransmitted
//!   one (Linux's `tcp_ack_update_rtt` falls back to the echo when the segment was
//!   retransmitted); without, only if the SYN was not retransmitted (Karn). With no sample
//!   and a SYN retransmitted, the RTO for the data is 3 s (RFC 6298 Sec. 5.7; Linux's
//!   `tcp_init_transfer` -> TCP_TIMEOUT_FALLBACK). The backoff ends with the handshake.
//! * cwnd: the initial window, or 1 segment after more than one SYN retransmission (RFC 5681
//!   Sec. 3.1 asks for 1 segment after any; Linux's `tcp_init_transfer` waits for more than one,
//!   "in light of RFC6298 more aggressive 1sec initRTO", `total_retrans > 1`).
//! * The sender's ACK of the SYN-ACK leaves with the first data (Linux sends it as a pure
//!   ACK, then the data). The receiver answers every SYN, a retransmitted one too, with a
//!   SYN-ACK; its own SYN-ACK timer is not modelled (the SYN's covers a lost SYN-ACK).
//! * Sizes: the SYN and the SYN-ACK carry MSS, window scale and SACK-permitted (and the
//!   timestamps if on): the data header + 12 bytes (40 + 12 = 52 without timestamps,
//!   52 + 8 = 60 with, Linux's SYN), and an AccECN SYN-ACK its 11-byte option padded to 12
//!   (Sec. 3.2.3.2.1: the server SHOULD include it).
//!
//! ECN flags (AE, CWR, ECE): a classic SYN has (0,1,1), an AccECN one (1,1,1) (RFC 9768
//! Table 1). The SYN-ACK: no ECN (0,0,0); classic (0,0,1); AccECN the IP-ECN field of the SYN
//! as it arrived, Not-ECT (0,1,0), ECT(1) (0,1,1), ECT(0) (1,0,0), CE (1,1,0) (Table 3). The
//! ACK of the SYN-ACK in AccECN mode feeds back the SYN-ACK's IP-ECN field the same way in its
//! ACE (Table 4: Not-ECT 0b010, ECT(1) 0b011, ECT(0) 0b100, CE 0b110). SYNs and SYN-ACKs
//! leave Not-ECT (RFC 3168 Sec. 6.1.1; Linux's default).

use super::accecn::set_ace;
use super::segment::{Segment, TcpFlags};
use crate::net::packet::Ecn;
use crate::scenario::EcnSetting;
use crate::time::SimTime;

/// RFC 6298 Sec. 5.7: the RTO once data flows when the handshake gave no sample after a
/// retransmission (Linux's TCP_TIMEOUT_FALLBACK).
pub const FALLBACK_RTO: SimTime = SimTime::from_secs(3);

/// Option bytes a SYN or SYN-ACK carries beyond a data segment's header.
pub fn syn_option_bytes(timestamps: bool) -> u32 {
    if timestamps {
        8
    } else {
        12
    }
}

/// The sender's side while the SYN is outstanding.
#[derive(Clone, Copy, Debug)]
pub struct SynSent {
    /// The ECN feedback the SYN asks for.
    pub asked: EcnSetting,
    /// SYN transmissions so far.
    pub syns: u32,
    /// The last SYN's transmission time.
    pub sent: SimTime,
}

impl SynSent {
    pub fn new(asked: EcnSetting) -> Self {
        SynSent {
            asked,
            syns: 0,
            sent: SimTime::ZERO,
        }
    }

    /// A SYN leaving now (`size` bytes on the wire).
    pub fn syn(&mut self, now: SimTime, size: u32) -> Segment {
        self.syns += 1;
        self.sent = now;
        let mut s = Segment {
            ts_val: now,
            retransmit: self.syns > 1,
            ..Segment::data(0, 0, size)
        };
        s.flags.set(TcpFlags::SYN, true);
        match self.asked {
            EcnSetting::Off => {}
            EcnSetting::Classic => {
                s.flags.set(TcpFlags::ECE, true);
                s.flags.set(TcpFlags::CWR, true);
            }
            EcnSetting::Accecn => set_ace(&mut s.flags, 0b111),
        }
        s
    }

    /// What a SYN-ACK's flags say was agreed (RFC 3168 Sec. 6.1.1: ECE without CWR; RFC 9768
    /// Table 2: for an AccECN SYN, (0,0,0) none, (0,0,1) classic, (1,0,1) classic (the
    /// historic nonce), anything else AccECN; Linux's `tcp_ecn_rcv_synack`).
    pub fn outcome(&self, synack: &Segment) -> EcnSetting {
        let f = synack.flags;
        let (ae, cwr, ece) = (f.has(TcpFlags::AE), f.has(TcpFlags::CWR), f.has(TcpFlags::ECE));
        match self.asked {
            EcnSetting::Off => EcnSetting::Off,
            EcnSetting::Classic if ece && !cwr => EcnSetting::Classic,
            EcnSetting::Classic => EcnSetting::Off,
            EcnSetting::Accecn => match (ae, cwr, ece) {
                (false, false, false) => EcnSetting::Off,
                (_, false, true) => EcnSetting::Classic,
                _ => EcnSetting::Accecn,
            },
        }
    }

    /// The ACK of the SYN-ACK (it leaves with the first data).
    pub fn ack(&self, now: SimTime, synack: &Segment, agreed: EcnSetting, size: u32) -> Segment {
        let mut a = Segment {
            ts_val: now,
            ..Segment::data(0, 0, size)
        };
        if agreed == EcnSetting::Accecn {
            set_ace(&mut a.flags, ace_of_codepoint(synack.ecn));
        }
        a
    }
}

/// RFC 9768 Tables 3 and 4: the handshake's feedback of an IP-ECN field.
fn ace_of_codepoint(ecn: Ecn) -> u32 {
    match ecn {
        Ecn::NotEct => 0b010,
        Ecn::Ect1 => 0b011,
        Ecn::Ect0 => 0b100,
        Ecn::Ce => 0b110,
    }
}

/// What a SYN asks for (RFC 9768 Table 2: (1,1,1) AccECN; (0,1,1) classic; otherwise none).
pub fn asked_by(syn: &Segment) -> EcnSetting {
    let f = syn.flags;
    match (f.has(TcpFlags::AE), f.has(TcpFlags::CWR), f.has(TcpFlags::ECE)) {
        (true, true, true) => EcnSetting::Accecn,
        (_, true, true) => EcnSetting::Classic,
        _ => EcnSetting::Off,
    }
}

/// The receiver's answer to a SYN, when it supports at most `supports`: what is agreed and
/// the SYN-ACK's flags.
pub fn answer(syn: &Segment, supports: EcnSetting) -> (EcnSetting, TcpFlags) {
    let agreed = asked_by(syn).min(supports);
    let mut f = TcpFlags::default();
    f.set(TcpFlags::SYN, true);
    match agreed {
        EcnSetting::Off => {}
        EcnSetting::Classic => f.set(TcpFlags::ECE, true),
        EcnSetting::Accecn => set_ace(&mut f, ace_of_codepoint(syn.ecn)),
    }
    (agreed, f)
}

/// The receiver's side: what it supports and how ECN is set up once agreed.
#[derive(Clone, Copy, Debug)]
pub struct Listener {
    /// The most it negotiates (`ecn_receiver`).
    pub supports: EcnSetting,
    /// The flow's controller needs ECN: classic feedback is DCTCP's (RFC 8257 Sec. 3.2).
    pub dctcp: bool,
    /// The flow sends ECT(1): the AccECN option in order 1.
    pub l4s: bool,
    /// The ACKs carry timestamps (option space).
    pub timestamps: bool,
    /// What the first SYN agreed (a retransmitted SYN sets nothing up again).
    pub agreed: Option<EcnSetting>,
}

impl Listener {
    /// The answer to a SYN arriving: the SYN-ACK (without its timestamp echo), and the ECN
    /// agreed if this is the first SYN.
    pub fn on_syn(&mut self, syn: &Segment, size: u32) -> (Segment, Option<EcnSetting>) {
        let (agreed, flags) = answer(syn, self.supports);
        let accecn_option = if agreed == EcnSetting::Accecn { 12 } else { 0 };
        let synack = Segment {
            flags,
            ..Segment::ack(0, size + syn_option_bytes(self.timestamps) + accecn_option)
        };
        let first = self.agreed.is_none().then_some(agreed);
        self.agreed.get_or_insert(agreed);
        (synack, first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_for_each_pair_of_settings() {
        use EcnSetting::*;
        for asked in [Off, Classic, Accecn] {
            for supports in [Off, Classic, Accecn] {
                let mut s = SynSent::new(asked);
                let syn = s.syn(SimTime::ZERO, 60);
                let (agreed, flags) = answer(&syn, supports);
                let synack = Segment {
                    flags,
                    ..Segment::ack(0, 60)
                };
                assert_eq!(agreed, asked.min(supports), "{asked:?} x {supports:?}");
                assert_eq!(s.outcome(&synack), agreed, "both ends agree");
            }
        }
        // The flags on the wire (RFC 9768 Tables 1 and 3).
        let mut s = SynSent::new(Accecn);
        let syn = s.syn(SimTime::ZERO, 60);
        assert_eq!(syn.flags.0 & (TcpFlags::AE | TcpFlags::CWR | TcpFlags::ECE), 0xc1);
        let (_, f) = answer(&syn, Accecn);
        assert!(!f.has(TcpFlags::AE) && f.has(TcpFlags::CWR) && !f.has(TcpFlags::ECE));
        let (_, f) = answer(&syn, Classic);
        assert!(!f.has(TcpFlags::AE) && !f.has(TcpFlags::CWR) && f.has(TcpFlags::ECE));
    }
}
