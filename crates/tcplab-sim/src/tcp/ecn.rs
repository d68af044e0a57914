//! Explicit Congestion Notification in the RFC endpoints (RFC 3168 Sec. 6.1), the sender's and
//! the receiver's halves. Without the handshake (`handshake.rs`) ECN is "negotiated" by the
//! configuration of both ends (`scenario::FlowSpec::ecn_mode`); with it, by the SYN-ACK. When it
//! is not in use every field here stays off and the endpoints send what they sent before.
//! Accurate ECN's feedback (RFC 9768) is `accecn.rs`, held here.
//!
//! **Sender** ([`SenderEcn`]):
//! * new data leaves ECT(0); retransmissions and pure ACKs are Not-ECT (RFC 3168 Sec. 6.1.5;
//!   Linux `tcp_ecn_send`). A controller that needs ECN (DCTCP) marks retransmissions ECT(0)
//!   too, as `tcp_ecn_send` does when `tcp_ca_needs_ecn`.
//! * an ACK with ECE makes the congestion control respond (`Controller::on_ecn_echo`: as to a
//!   loss by default, without a retransmission), at most once per window of data (Sec. 6.1.2):
//!   not while a reduction's window is outstanding, which is what Linux's CWR state holds
//!   (`tcp_enter_cwr`: `high_seq = snd_nxt`; CWR ends when snd_una passes it). A fast recovery
//!   or a timeout is a reduction too, so ECE during one does not reduce again.
//! * after every window reduction (ECE, fast retransmit, timeout: Sec. 6.1.2 "for any
//!   reason"; Linux `tcp_init_cwnd_reduction` -> `tcp_ecn_queue_cwr`) the next new data
//!   segment carries CWR.
//! * during an ECE reduction's window the controller does not grow the window (Linux's
//!   `tcp_cong_control` runs PRR instead of `cong_avoid` while in CWR), and a loss detected in
//!   it keeps the ssthresh the ECE set (Linux `tcp_enter_recovery` does not start a second
//!   reduction while `tcp_in_cwnd_reduction`; RFC 3168 Sec. 6.1.2: "SHOULD NOT decrease
//!   ssthresh if it has been decreased within the last round trip time").
//!
//! * the ECE response sets cwnd to the new ssthresh at once (RFC 3168 Sec. 6.1.2, "the
//!   congestion window is halved"), or with `cwr_reduction = "prr"` (the linux profile's)
//!   lowers it there over the round trip as Linux's CWR state does (`cwr.rs`: PRR,
//!   `tcp_cwnd_reduction`); both end the round at ssthresh.
//!
//! **Receiver** ([`ReceiverEcn`]), two kinds of feedback:
//! * classic (RFC 3168 Sec. 6.1.3): from a CE arrival, ECE on every ACK until a data segment
//!   with CWR arrives (CWR is read before CE, so a segment with both keeps ECE: Linux's
//!   `tcp_ecn_accept_cwr` runs before `tcp_ecn_check_ce`). RFC 3168 asks for no immediate ACK;
//!   with `ack = "linux"` the receiver does what Linux does (`__tcp_ecn_check_ce`): the first
//!   CE (ECE turning on) and a Not-ECT segment after ECT ones (a retransmission) enter
//!   quick-ACK mode for 2 ACKs, and a data segment with CWR is acknowledged at once
//!   (`tcp_ecn_accept_cwr`).
//! * DCTCP (RFC 8257 Sec. 3.2): ECE reflects the CE state of the data acknowledged. When the
//!   state changes and an ACK is being delayed, that ACK (of the data before this segment)
//!   goes at once with the old ECE. RFC 8257's state machine stops there (this segment starts
//!   the next delayed ACK); with `ack = "linux"` this segment is also acknowledged at once,
//!   as Linux's `dctcp_ece_ack_update` sets ICSK_ACK_NOW. A DCTCP receiver's ACKs leave
//!   ECT(0) (Linux's `tcp_ecn_send` leaves a DCTCP socket's ECT on pure ACKs).

use super::accecn::{set_ace, AccEcnReceiver, AccEcnSender, CEP_INIT};
use super::cwr::CwrPrr;
use super::segment::{Segment, TcpFlags};
use crate::net::packet::Ecn;

/// The sender's ECN state.
#[derive(Clone, Debug, Default)]
pub struct SenderEcn {
    /// ECN is in use: new data leaves ECT and the feedback is read.
    pub on: bool,
    /// Retransmissions leave ECT too (a controller that needs ECN: DCTCP, Prague).
    pub ect_always: bool,
    /// The codepoint of the data: ECT(0), or ECT(1) for an L4S controller (RFC 9331).
    pub ect: Ecn,
    /// Accurate ECN feedback (`accecn.rs`): the ACE field and the option are read instead of
    /// ECE, and no CWR is sent (RFC 9768 Sec. 3.2: AE, CWR and ECE are the sender's own ACE).
    pub acc: Option<Box<AccEcnSender>>,
    /// The next new data segment carries CWR (Linux's TCP_ECN_QUEUE_CWR).
    cwr_pending: bool,
    /// The last reduction's window: one past the highest byte sent then (Linux's high_seq).
    /// No ECE reduction while snd_una <= this.
    hold_until: Option<u64>,
    /// That reduction was an ECE response (Linux's CWR state): no growth, and a loss keeps
    /// its ssthresh, while it holds.
    ece_round: bool,
    /// The end of DCTCP's observation window (RFC 8257 Sec. 3.3, DCTCP.WindowEnd).
    window_end: u64,
    /// An ECE response lowers cwnd by PRR over the round trip (`cwr_reduction = "prr"`).
    pub prr_cwr: bool,
    /// That reduction under way (Linux's CWR state with its PRR counters, `cwr.rs`).
    pub cwr: Option<CwrPrr>,
}

/// What an ACK tells a controller that counts marks (`Controller::on_ecn_ack`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EcnAck {
    /// Bytes the cumulative ACK newly acknowledged.
    pub acked: u64,
    /// The ACK carried ECE (classic), or reported new CE packets (AccECN).
    pub ece: bool,
    /// Packets the cumulative ACK newly acknowledged (its bytes over SMSS, rounded up).
    pub delivered: u32,
    /// Packets and bytes that arrived CE, as the ACK reports them (`delivered_ce`): with
    /// AccECN the exact counts (`accecn.rs`); with classic feedback, all or nothing of this
    /// ACK's (`delivered` and `acked` when ECE is on).
    pub ce_packets: u32,
    pub ce_bytes: u64,
    /// snd_una passed the end of the observation window (RFC 8257 Sec. 3.3 step 3): the
    /// window of data is complete, and the next one ends at what has been sent now.
    pub window_end: bool,
    /// The sender's snd_una after this ACK and snd_max before it sends anything on it: a
    /// controller that keeps its own rounds (Prague's `next_seq`) reads them.
    pub snd_una: u64,
    pub snd_max: u64,
}

impl SenderEcn {
    pub fn new(on: bool, ect_always: bool) -> Self {
        SenderEcn {
            on,
            ect_always: on && ect_always,
            ect: Ecn::Ect0,
            ..Default::default()
        }
    }

    /// Classic feedback (RFC 3168); data ECT(1) when `l4s` (an L4S controller keeps ECT(1)
    /// whatever feedback was negotiated, as Linux's Prague sets TCP_ECN_ECT_1).
    pub fn classic(ect_always: bool, l4s: bool) -> Self {
        SenderEcn {
            ect: if l4s { Ecn::Ect1 } else { Ecn::Ect0 },
            ..SenderEcn::new(true, ect_always)
        }
    }

    /// ECN with Accurate ECN feedback (RFC 9768) on segments of `mss` bytes; data ECT(1)
    /// when `l4s`.
    pub fn accecn(ect_always: bool, l4s: bool, mss: u32) -> Self {
        SenderEcn {
            ect: if l4s { Ecn::Ect1 } else { Ecn::Ect0 },
            acc: Some(Box::new(AccEcnSender::new(mss))),
            ..SenderEcn::new(true, ect_always)
        }
    }

    /// Marks a segment about to leave: ECT on new data (and on retransmissions with
    /// `ect_always`), CWR on the first new data after a reduction (classic); with AccECN, the
    /// ACE field of the sender's own receive counter, which no CE on the ACKs moves (they
    /// leave Not-ECT).
    #[inline]
    pub fn mark(&mut self, seg: &mut Segment) {
        if !seg.retransmit || self.ect_always {
            seg.ecn = self.ect;
        }
        if self.acc.is_some() {
            set_ace(&mut seg.flags, CEP_INIT);
        } else if !seg.retransmit && self.cwr_pending {
            seg.flags.set(TcpFlags::CWR, true);
            self.cwr_pending = false;
        }
    }

    /// A window reduction happened with `snd_max` sent: CWR goes on the next new data, and
    /// ECE does not reduce again until snd_una passes `snd_max`. `ece`: it was an ECE response.
    pub fn reduced(&mut self, snd_max: u64, ece: bool) {
        self.cwr = None;
        self.cwr_pending = true;
        self.hold_until = Some(snd_max);
        self.ece_round = ece;
    }

    /// May an ECE reduce the window now (no reduction's window outstanding)?
    pub fn may_reduce(&self, snd_una: u64) -> bool {
        self.hold_until.is_none_or(|h| snd_una > h)
    }

    /// An ECE response's window is outstanding (Linux's CWR state).
    #[inline]
    pub fn in_ece_round(&self, snd_una: u64) -> bool {
        self.ece_round && !self.may_reduce(snd_una)
    }

    /// The facts of an ACK for a controller that counts marks; moves the observation window
    /// on when snd_una passes its end (to `snd_max`).
    pub fn ack(&mut self, ack: &Segment, acked: u64, mss: u64, snd_una: u64, snd_max: u64) -> EcnAck {
        let window_end = snd_una > self.window_end;
        if window_end {
            self.window_end = snd_max;
        }
        let delivered = acked.div_ceil(mss) as u32;
        let (ece, ce_packets, ce_bytes) = match &mut self.acc {
            None => {
                let ece = ack.flags.has(TcpFlags::ECE);
                (ece, if ece { delivered } else { 0 }, if ece { acked } else { 0 })
            }
            Some(a) => {
                let d = a.on_ack(ack, delivered);
                (d.packets > 0, d.packets, d.bytes)
            }
        };
        EcnAck {
            acked,
            ece,
            delivered,
            ce_packets,
            ce_bytes,
            window_end,
            snd_una,
            snd_max,
        }
    }
}

/// Which feedback a receiver gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcnFeedback {
    /// No ECN in use.
    #[default]
    Off,
    /// RFC 3168 Sec. 6.1.3: ECE from a CE arrival until CWR.
    Classic,
    /// RFC 8257 Sec. 3.2: ECE is the CE state of the data acknowledged.
    Dctcp,
    /// RFC 9768: the ACE counter and the AccECN option (`accecn.rs`).
    AccEcn,
}

/// What the receiver's ACK policy must do because of an arrival's ECN bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EcnAction {
    /// Send the delayed ACK of the data before this segment now, with the old ECE (DCTCP).
    pub flush_prior: bool,
    /// Acknowledge this segment at once.
    pub ack_now: bool,
    /// Enter Linux's quick-ACK mode for this many ACKs (`tcp_enter_quickack_mode(sk, n)`).
    pub quickack: u32,
}

/// The receiver's ECN state and counts.
#[derive(Clone, Debug, Default)]
pub struct ReceiverEcn {
    /// AccECN's counters (with `EcnFeedback::AccEcn`).
    pub acc: Option<Box<AccEcnReceiver>>,
    pub feedback: EcnFeedback,
    /// Linux's rules for the ACK timing (`ack = "linux"`).
    pub linux: bool,
    /// ECE on the ACKs sent now (classic: Linux's TCP_ECN_DEMAND_CWR; DCTCP: the CE state).
    ece: bool,
    /// The ECE of the data not yet acknowledged before the last state change (DCTCP).
    prior_ece: bool,
    /// An ECT segment has arrived (Linux's TCP_ECN_SEEN).
    seen_ect: bool,
    /// Data segments received, and those that arrived CE.
    pub segments: u64,
    pub ce: u64,
}

impl ReceiverEcn {
    pub fn new(feedback: EcnFeedback, linux: bool) -> Self {
        ReceiverEcn {
            feedback,
            linux,
            ..Default::default()
        }
    }

    /// AccECN feedback (RFC 9768); the option in order 1 for an ECT(1) flow, beside the
    /// timestamps if on.
    pub fn accecn(linux: bool, order1: bool, timestamps: bool) -> Self {
        ReceiverEcn {
            acc: Some(Box::new(AccEcnReceiver::new(order1, timestamps))),
            ..ReceiverEcn::new(EcnFeedback::AccEcn, linux)
        }
    }

    /// A data segment arrived (`fresh`: not entirely old data). Updates the echo state and
    /// says what the ACK policy must do.
    pub fn on_data(&mut self, seg: &Segment, fresh: bool) -> EcnAction {
        let mut a = EcnAction::default();
        let ce = seg.ecn == Ecn::Ce;
        self.segments += 1;
        self.ce += ce as u64;
        match self.feedback {
            EcnFeedback::Off => {}
            EcnFeedback::Classic => {
                if seg.flags.has(TcpFlags::CWR) {
                    self.ece = false;
                    a.ack_now = self.linux && seg.len > 0;
                }
                if !fresh {
                    return a;
                }
                match seg.ecn {
                    Ecn::NotEct if self.seen_ect => a.quickack = if self.linux { 2 } else { 0 },
                    Ecn::NotEct => {}
                    Ecn::Ce => {
                        if !self.ece && self.linux {
                            a.quickack = 2;
                        }
                        self.ece = true;
                        self.seen_ect = true;
                    }
                    Ecn::Ect0 | Ecn::Ect1 => self.seen_ect = true,
                }
            }
            EcnFeedback::AccEcn => {
                if let Some(acc) = &mut self.acc {
                    a.ack_now = acc.on_data(seg);
                }
            }
            EcnFeedback::Dctcp => {
                if fresh && ce != self.ece {
                    a.flush_prior = true;
                    a.ack_now = self.linux;
                    self.prior_ece = self.ece;
                    self.ece = ce;
                }
            }
        }
        a
    }

    /// The ECE of the delayed ACK flushed by a DCTCP state change.
    pub fn prior_ece(&self) -> bool {
        self.prior_ece
    }

    /// ECE (or AccECN's ACE and option) and the IP codepoint of an ACK sent now (the
    /// receiver calls it only with ECN in use, so a flow without pays one test).
    #[inline(never)]
    pub fn stamp(&mut self, ack: &mut Segment, ece: bool) {
        match self.feedback {
            EcnFeedback::Off => {}
            EcnFeedback::Classic => ack.flags.set(TcpFlags::ECE, ece),
            EcnFeedback::Dctcp => {
                ack.flags.set(TcpFlags::ECE, ece);
                ack.ecn = Ecn::Ect0;
            }
            EcnFeedback::AccEcn => {
                if let Some(acc) = &mut self.acc {
                    ack.size += acc.stamp(ack, ack.sack.option_bytes());
                }
            }
        }
    }

    /// ECE for an ACK sent now.
    pub fn ece(&self) -> bool {
        self.ece
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64, ecn: Ecn, cwr: bool) -> Segment {
        let mut s = Segment::data(seq, 1000, 1040);
        s.ecn = ecn;
        s.flags.set(TcpFlags::CWR, cwr);
        s
    }

    #[test]
    fn sender_marks_new_data_ect0_and_cwr_once_after_a_reduction() {
        let mut e = SenderEcn::new(true, false);
        let mut s = data(0, Ecn::NotEct, false);
        e.mark(&mut s);
        assert_eq!((s.ecn, s.flags.has(TcpFlags::CWR)), (Ecn::Ect0, false));
        e.reduced(5000, true);
        let mut r = Segment {
            retransmit: true,
            ..data(0, Ecn::NotEct, false)
        };
        e.mark(&mut r); // RFC 3168 Sec. 6.1.5: a retransmission is Not-ECT, and no CWR
        assert_eq!((r.ecn, r.flags.has(TcpFlags::CWR)), (Ecn::NotEct, false));
        let mut n = data(5000, Ecn::NotEct, false);
        e.mark(&mut n);
        assert_eq!((n.ecn, n.flags.has(TcpFlags::CWR)), (Ecn::Ect0, true));
        let mut n2 = data(6000, Ecn::NotEct, false);
        e.mark(&mut n2);
        assert!(!n2.flags.has(TcpFlags::CWR));
        // The hold: snd_una must pass 5000 (Linux: CWR ends when snd_una > high_seq).
        assert!(!e.may_reduce(5000) && e.in_ece_round(5000));
        assert!(e.may_reduce(5001) && !e.in_ece_round(5001));
    }

    #[test]
    fn classic_receiver_echoes_from_ce_until_cwr() {
        let mut r = ReceiverEcn::new(EcnFeedback::Classic, false);
        r.on_data(&data(0, Ecn::Ect0, false), true);
        assert!(!r.ece());
        let a = r.on_data(&data(1000, Ecn::Ce, false), true);
        assert!(r.ece());
        assert_eq!(a, EcnAction::default(), "RFC 3168 asks for no immediate ACK");
        r.on_data(&data(2000, Ecn::Ect0, false), true);
        assert!(r.ece(), "ECE stays until CWR");
        r.on_data(&data(3000, Ecn::Ect0, true), true);
        assert!(!r.ece());
        // CWR and CE together: CWR is read first, so ECE is set again.
        r.on_data(&data(4000, Ecn::Ce, true), true);
        assert!(r.ece());
        assert_eq!((r.segments, r.ce), (5, 2));
    }

    #[test]
    fn classic_receiver_with_linux_acks_quick_on_the_first_ce_and_on_cwr() {
        let mut r = ReceiverEcn::new(EcnFeedback::Classic, true);
        r.on_data(&data(0, Ecn::Ect0, false), true);
        let a = r.on_data(&data(1000, Ecn::Ce, false), true);
        assert_eq!(a.quickack, 2);
        let a = r.on_data(&data(2000, Ecn::Ce, false), true);
        assert_eq!(a.quickack, 0, "already demanding CWR");
        let a = r.on_data(&data(3000, Ecn::Ect0, true), true);
        assert!(a.ack_now);
        // A Not-ECT segment after ECT ones: a retransmission (__tcp_ecn_check_ce).
        let a = r.on_data(&data(0, Ecn::NotEct, false), true);
        assert_eq!(a.quickack, 2);
    }

    #[test]
    fn dctcp_receiver_flushes_on_each_state_change() {
        let mut r = ReceiverEcn::new(EcnFeedback::Dctcp, false);
        assert!(!r.on_data(&data(0, Ecn::Ect0, false), true).flush_prior);
        let a = r.on_data(&data(1000, Ecn::Ce, false), true);
        assert!(a.flush_prior && !a.ack_now);
        assert!(!r.prior_ece() && r.ece());
        assert!(!r.on_data(&data(2000, Ecn::Ce, false), true).flush_prior);
        let a = r.on_data(&data(3000, Ecn::Ect0, false), true);
        assert!(a.flush_prior && r.prior_ece() && !r.ece());
        // Linux also acknowledges the segment that changed the state at once.
        let mut l = ReceiverEcn::new(EcnFeedback::Dctcp, true);
        assert!(l.on_data(&data(0, Ecn::Ce, false), true).ack_now);
    }
}
