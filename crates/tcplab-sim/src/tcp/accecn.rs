//! Accurate ECN feedback (RFC 9768, formerly draft-ietf-tcpm-accurate-ecn): the receiver's
//! counters, the ACE field and the AccECN option it sends, and the sender's reconstruction of
//! how many packets and bytes arrived CE.
//!
//! **Receiver** ([`AccEcnReceiver`]), Sec. 3.2.1 and 3.2.2:
//! * four counters of what arrived: r.cep, CE packets, starting at 5 (Sec. 3.2.2.1: a
//!   non-zero start, so a zeroed field is detectable); r.e0b, r.e1b, r.ceb, TCP payload bytes
//!   that arrived ECT(0), ECT(1) and CE, starting at 1, 1 and 0 (Sec. 3.2.3). Every data
//!   segment counts, retransmissions and duplicates included (every "acceptable" packet).
//! * every ACK carries ACE = r.cep mod 8 in its AE, CWR and ECE bits (Sec. 3.2.2, Figure 2:
//!   AE the most significant).
//! * every ACK carries the AccECN option when it fits in the 40 bytes of option space left by
//!   the timestamps and the SACK blocks, as Linux sends it by default
//!   (net.ipv4.tcp_ecn_option = 2, "on every packet whenever it fits into TCP option
//!   space"): 11 bytes with its three 24-bit fields, else 8 with two, else 5 with one, else
//!   none (Sec. 3.2.3, Table 5: the tail fields may be left out). Order 0 (kind 172: EE0B,
//!   ECEB, EE1B) for a flow whose data are ECT(0), order 1 (kind 174: EE1B, ECEB, EE0B) for
//!   an ECT(1) flow, so that with two fields the counter that moves and ECEB are both there.
//!   It is padded to a multiple of 4 bytes on the wire (12, 8 or 8).
//! * ACK timing (Sec. 3.2.2.5.1): an ACK at once when a CE data segment arrives after a
//!   non-CE one ("change-triggered ACKs", a SHOULD), and when 2 CE marks have arrived since
//!   the last ACK ("increment-triggered ACKs": n SHOULD be 2 with unacknowledged data).
//!
//! **Sender** ([`AccEcnSender`]), Sec. 3.2.2.5 and 3.2.3.1: s.cep follows r.cep from the ACE
//! field; the increment of an ACK is (ACE - s.cep) mod 8 unless the counter could have
//! wrapped, which the safety rule decides as Linux's `__tcp_accecn_process` does: with at most
//! 7 packets newly delivered the increment stands; otherwise the safe increment is the largest
//! number <= the packets delivered that is congruent to it mod 8 (RFC 9768 App. A.2.1), and
//! when the option's ECEB moved it arbitrates: no CE bytes -> the ACE increment; more CE
//! bytes than increment x SMSS -> the safe one; fewer than safe x SMSS / 2
//! (TCP_ACCECN_SAFETY_SHIFT = 1) -> the ACE increment. The byte counters are the option's
//! fields minus s.ceb (and s.e0b, s.e1b) mod 2^24 (Sec. 3.2.3.1). An ACK without ECEB has
//! its CE bytes estimated at SMSS per CE packet (App. A.3), and s.ceb advances by the
//! estimate as Linux's `delivered_ecn_bytes` does, so that the next ECEB counts only the rest
//! (a negative difference, read as a signed 24-bit number, corrects it and reports none).
//! The capture analyzer reads AccECN ACKs through the same code. ACKs older than the
//! cumulative ACK are ignored (Sec. 3.2.3.1: "already superseded"). "Packets delivered" are
//! the segments the cumulative ACK newly covers (Linux's `tp->delivered` also counts SACKed
//! ones: a difference only in a recovery).

use super::segment::{Segment, TcpFlags};
use crate::net::packet::Ecn;

/// The ACE field's initial value (RFC 9768 Sec. 3.2.2.1: r.cep and s.cep start at 5).
pub const CEP_INIT: u32 = 5;
/// The byte counters' initial values (Sec. 3.2.1: r.e0b and r.e1b start at 1, r.ceb at 0),
/// so that a zeroed option field is detectable.
pub const ECT_BYTES_INIT: u32 = 1;
/// Linux's TCP_ACCECN_CEP_ACE_MASK: the ACE field counts mod 8.
const ACE_MASK: u32 = 7;
/// The option's fields are the 24 low bits of the counters.
const FIELD_MASK: u32 = (1 << 24) - 1;
/// TCP option space (bytes).
const OPTION_SPACE: u32 = 40;

/// The ACE field of a segment: AE, CWR, ECE as a 3-bit number (RFC 9768 Figure 2).
pub fn ace(flags: TcpFlags) -> u32 {
    (flags.has(TcpFlags::AE) as u32) << 2
        | (flags.has(TcpFlags::CWR) as u32) << 1
        | flags.has(TcpFlags::ECE) as u32
}

/// Sets a segment's AE, CWR and ECE to `value` mod 8.
pub fn set_ace(flags: &mut TcpFlags, value: u32) {
    flags.set(TcpFlags::AE, value & 4 != 0);
    flags.set(TcpFlags::CWR, value & 2 != 0);
    flags.set(TcpFlags::ECE, value & 1 != 0);
}

/// The AccECN option of an ACK as the simulator carries it (RFC 9768 Sec. 3.2.3): how many
/// fields were on the wire, its order, and the two fields that can move in a simulation (the
/// first, EE0B or EE1B, and ECEB). The third field is the counter of the codepoint the flow
/// does not send, which nothing in the network creates (no re-marking is modelled), so it
/// stays at its initial value and is not carried. Kept in the ACK's `ts_val`, which the
/// receiver's ACKs do not otherwise use (the sender reads its TSecr only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccEcnOption {
    /// Fields present: 0 (no option), 1, 2 or 3 (Table 5: length 2 + 3 x fields).
    pub fields: u8,
    /// Order 1 (kind 174: EE1B first), else order 0 (kind 172: EE0B first).
    pub order1: bool,
    /// The first field: EE0B (order 0) or EE1B (order 1), 24 bits.
    pub first: u32,
    /// ECEB, 24 bits (present with 2 or 3 fields).
    pub ceb: u32,
}

impl AccEcnOption {
    /// Bytes on the wire, padded to 4 by NOPs.
    pub fn wire_bytes(&self) -> u32 {
        if self.fields == 0 {
            0
        } else {
            (2 + 3 * self.fields as u32).div_ceil(4) * 4
        }
    }

    /// The option packed in 64 bits.
    pub fn encode(&self) -> u64 {
        self.fields as u64 | (self.order1 as u64) << 2 | (self.first as u64) << 8 | (self.ceb as u64) << 32
    }

    pub fn decode(x: u64) -> AccEcnOption {
        AccEcnOption {
            fields: (x & 3) as u8,
            order1: x & 4 != 0,
            first: (x >> 8) as u32 & FIELD_MASK,
            ceb: (x >> 32) as u32 & FIELD_MASK,
        }
    }
}

/// The receiver's AccECN state (RFC 9768 Sec. 3.2.1-3.2.3).
#[derive(Clone, Copy, Debug)]
pub struct AccEcnReceiver {
    /// r.cep: CE packets received, from 5.
    pub cep: u32,
    /// r.e0b, r.e1b, r.ceb: payload bytes received ECT(0), ECT(1), CE.
    pub e0b: u32,
    pub e1b: u32,
    pub ceb: u32,
    /// CE marks since the last ACK (Linux's received_ce_pending).
    pending_ce: u32,
    /// The last data segment arrived CE (for the change-triggered ACK).
    last_ce: bool,
    /// Order 1 for the option (the flow sends ECT(1)).
    pub order1: bool,
    /// Option space the other options leave on every ACK (40 minus the timestamps' 12).
    room: u32,
}

impl AccEcnReceiver {
    /// `timestamps`: the ACKs carry the timestamp option (12 bytes of option space).
    pub fn new(order1: bool, timestamps: bool) -> Self {
        AccEcnReceiver {
            cep: CEP_INIT,
            e0b: ECT_BYTES_INIT,
            e1b: ECT_BYTES_INIT,
            ceb: 0,
            pending_ce: 0,
            last_ce: false,
            order1,
            room: OPTION_SPACE - if timestamps { 12 } else { 0 },
        }
    }

    /// A data segment arrived with its codepoint: counts it; true if it must be acknowledged
    /// at once (Sec. 3.2.2.5.1).
    pub fn on_data(&mut self, seg: &Segment) -> bool {
        let len = seg.len;
        let ce = seg.ecn == Ecn::Ce;
        match seg.ecn {
            Ecn::Ce => {
                self.cep = self.cep.wrapping_add(1);
                self.ceb = self.ceb.wrapping_add(len);
                self.pending_ce += 1;
            }
            Ecn::Ect0 => self.e0b = self.e0b.wrapping_add(len),
            Ecn::Ect1 => self.e1b = self.e1b.wrapping_add(len),
            Ecn::NotEct => {}
        }
        let change = ce && !self.last_ce;
        self.last_ce = ce;
        change || self.pending_ce >= 2
    }

    /// ACE and the option on an ACK sent now, whose SACK option takes `sack_bytes`; returns
    /// the option's bytes on the wire.
    pub fn stamp(&mut self, ack: &mut Segment, sack_bytes: u32) -> u32 {
        self.pending_ce = 0;
        set_ace(&mut ack.flags, self.cep);
        let room = self.room.saturating_sub(sack_bytes);
        // Table 5: 11, 8, 5 bytes for 3, 2, 1 fields; padded to 4 (12, 8, 8).
        let fields = match room {
            12.. => 3,
            8..=11 => 2,
            5..=7 => 1,
            _ => 0,
        };
        let o = AccEcnOption {
            fields,
            order1: self.order1,
            first: (if self.order1 { self.e1b } else { self.e0b }) & FIELD_MASK,
            ceb: if fields >= 2 { self.ceb & FIELD_MASK } else { 0 },
        };
        ack.ts_val = crate::time::SimTime(o.encode());
        o.wire_bytes()
    }
}

/// What an ACK tells the sender under AccECN: the CE packets and CE bytes it newly reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CeDelivered {
    pub packets: u32,
    pub bytes: u64,
}

/// The sender's AccECN state (RFC 9768 Sec. 3.2.2.5.2, 3.2.3.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccEcnSender {
    /// s.cep: CE packets the receiver has reported, from 5.
    pub cep: u32,
    /// s.ceb and the flow's ECT byte counter (s.e0b or s.e1b), as the option last said.
    pub ceb: u32,
    pub ectb: u32,
    /// SMSS, for the safety rule's byte comparisons.
    pub(crate) mss: u32,
    /// Totals reconstructed: CE packets and bytes.
    pub ce_packets: u64,
    pub ce_bytes: u64,
}

impl AccEcnSender {
    pub fn new(mss: u32) -> Self {
        AccEcnSender {
            cep: CEP_INIT,
            ceb: 0,
            ectb: 1,
            mss,
            ce_packets: 0,
            ce_bytes: 0,
        }
    }

    /// An ACK not older than the cumulative ACK, which newly delivered `delivered` packets
    /// (`acked` bytes): the CE packets and bytes it reports.
    pub fn on_ack(&mut self, ack: &Segment, delivered: u32) -> CeDelivered {
        let o = AccEcnOption::decode(ack.ts_val.ns());
        if o.fields >= 1 {
            self.ectb = o.first;
        }
        self.feedback(ace(ack.flags), (o.fields >= 2).then_some(o.ceb), delivered)
    }

    /// The feedback of one ACK: its ACE field, its option's ECEB field if the option carried
    /// one, and the packets it newly delivered. The simulator's sender and the capture
    /// analyzer (`capture::analyze::ecn`) both read AccECN ACKs through this.
    pub fn feedback(&mut self, ace: u32, eceb: Option<u32>, delivered: u32) -> CeDelivered {
        let delta = ace.wrapping_sub(self.cep) & ACE_MASK;
        // s.ceb may be ahead of the receiver's field by an estimate (below): the difference is
        // a signed 24-bit number, as Linux's tcp_update_ecn_bytes reads it (sign_extend32(delta,
        // 23)); a negative one corrects the estimate and reports no bytes.
        let d_ceb = eceb.map(|ceb| {
            let d = ceb.wrapping_sub(self.ceb) & FIELD_MASK;
            self.ceb = ceb & FIELD_MASK;
            if d & (1 << 23) != 0 {
                0
            } else {
                d
            }
        });
        let packets = if delivered <= ACE_MASK {
            delta
        } else {
            // App. A.2.1; Linux __tcp_accecn_process.
            let safe = delivered - ((delivered - delta) & ACE_MASK);
            match d_ceb {
                Some(0) => delta,
                Some(b) if b as u64 > delta as u64 * self.mss as u64 => safe,
                Some(b) if (b as u64) < (safe as u64 * self.mss as u64) >> 1 => delta,
                _ => safe,
            }
        };
        self.cep = self.cep.wrapping_add(packets);
        // The bytes: the option's ECEB increment; without it, the packets at SMSS each (App.
        // A.3's estimate), added to s.ceb as Linux adds it to delivered_ecn_bytes, so that the
        // next ECEB does not count those bytes again.
        let bytes = match d_ceb {
            Some(b) => b as u64,
            None => {
                let est = packets as u64 * self.mss as u64;
                self.ceb = self.ceb.wrapping_add(est as u32) & FIELD_MASK;
                est
            }
        };
        self.ce_packets += packets as u64;
        self.ce_bytes += bytes;
        CeDelivered { packets, bytes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(ecn: Ecn) -> Segment {
        let mut s = Segment::data(0, 1000, 1040);
        s.ecn = ecn;
        s
    }

    #[test]
    fn ace_is_ae_cwr_ece_and_counts_from_five() {
        let mut f = TcpFlags::default();
        for v in 0..8 {
            set_ace(&mut f, v);
            assert_eq!(ace(f), v);
        }
        set_ace(&mut f, 5);
        assert!(f.has(TcpFlags::AE) && !f.has(TcpFlags::CWR) && f.has(TcpFlags::ECE));
        let mut r = AccEcnReceiver::new(false, false);
        let mut a = Segment::ack(0, 40);
        assert_eq!(r.stamp(&mut a, 0), 12, "three fields: 11 bytes, padded to 12");
        assert_eq!(ace(a.flags), 5);
        let o = AccEcnOption::decode(a.ts_val.ns());
        assert_eq!((o.fields, o.order1, o.first, o.ceb), (3, false, 1, 0));
    }

    #[test]
    fn receiver_counts_bytes_per_codepoint_and_acks_on_change_and_every_second_ce() {
        let mut r = AccEcnReceiver::new(true, true);
        assert!(!r.on_data(&data(Ecn::Ect1)));
        assert!(r.on_data(&data(Ecn::Ce)), "change-triggered");
        assert!(r.on_data(&data(Ecn::Ce)), "2 CE since the last ACK");
        let mut a = Segment::ack(0, 52);
        // Timestamps (12) and 2 SACK blocks (20): 8 bytes left, two fields.
        assert_eq!(r.stamp(&mut a, 20), 8);
        assert!(!r.on_data(&data(Ecn::Ce)), "no change, 1 pending");
        assert_eq!((r.cep, r.e0b, r.e1b, r.ceb), (8, 1, 1001, 3000));
        let o = AccEcnOption::decode(a.ts_val.ns());
        assert_eq!((o.fields, o.order1, o.first, o.ceb), (2, true, 1001, 2000));
        // 3 SACK blocks beside the timestamps fill the space: no option.
        assert_eq!(r.stamp(&mut a, 28), 0);
    }

    #[test]
    fn sender_takes_the_ace_increment_and_the_safe_one_when_it_may_have_wrapped() {
        let ack = |ace_value: u32, ceb: Option<u32>| {
            let mut a = Segment::ack(0, 40);
            set_ace(&mut a.flags, ace_value);
            let o = AccEcnOption {
                fields: if ceb.is_some() { 3 } else { 0 },
                ceb: ceb.unwrap_or(0),
                ..Default::default()
            };
            a.ts_val = crate::time::SimTime(o.encode());
            a
        };
        let mut s = AccEcnSender::new(1000);
        // 2 marks: ACE 5 -> 7.
        assert_eq!(s.on_ack(&ack(7, None), 2).packets, 2);
        // Wrap: ACE 7 -> 1 is 2 more (mod 8).
        assert_eq!(s.on_ack(&ack(1, None), 3).packets, 2);
        assert_eq!(s.cep, 9);
        // 10 packets delivered, ACE moved by 1: without the option, the safe case is 9
        // (the largest <= 10 that is 1 mod 8).
        assert_eq!(s.on_ack(&ack(2, None), 10).packets, 9);
        // With the option: 1000 CE bytes (<= 1 x SMSS, < 9 x SMSS / 2): 1 packet.
        let mut s = AccEcnSender::new(1000);
        assert_eq!(s.on_ack(&ack(6, Some(1000)), 10).packets, 1);
        // 9000 CE bytes (> 1 x SMSS): the safe 9.
        assert_eq!(s.on_ack(&ack(7, Some(10_000)), 10).packets, 9);
        assert_eq!((s.ce_packets, s.ce_bytes), (10, 10_000));
        // An ACK without the option (SACK blocks filled the space): its CE bytes are estimated
        // at SMSS per packet and s.ceb moves with the estimate, so the next ECEB counts only
        // the rest; an estimate above the field is corrected and reports nothing.
        let mut s = AccEcnSender::new(1000);
        assert_eq!(
            s.on_ack(&ack(6, None), 1),
            CeDelivered {
                packets: 1,
                bytes: 1000
            }
        );
        assert_eq!(
            s.on_ack(&ack(7, Some(1800)), 1),
            CeDelivered {
                packets: 1,
                bytes: 800
            }
        );
        assert_eq!(s.on_ack(&ack(0, None), 1).bytes, 1000);
        assert_eq!(
            s.on_ack(&ack(0, Some(2300)), 1),
            CeDelivered { packets: 0, bytes: 0 }
        );
        assert_eq!((s.ce_packets, s.ce_bytes, s.ceb), (3, 2800, 2300));
        // The option's field wraps at 2^24.
        let mut s = AccEcnSender::new(1000);
        s.ceb = FIELD_MASK - 499;
        let d = s.on_ack(&ack(6, Some(500)), 1);
        assert_eq!((d.packets, d.bytes), (1, 1000));
    }
}
