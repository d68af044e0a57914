//! ECN in ns-2's one-way agents (`Agent/TCP set ecn_ 1`), as ns-2.35's tcp.cc, tcp-reno.cc,
//! tcp-newreno.cc and tcp-sack1.cc run it, and its sink's echo (tcp-sink.cc's `ack`). Where
//! ns-2 departs from RFC 3168 the profile follows ns-2 (docs/ns2-profile.md, "ECN").
//!
//! The agent:
//! - every packet it sends is ECT(0) (retransmissions too: ns-2 has no RFC 3168 Sec. 6.1.5
//!   exception), except the SYN (packet 0), which carries ECE and is Not-ECT (`output`);
//! - ECN counts as negotiated (`ect_`) from the first ACK of new data that carries ECE without
//!   CWR (`recv_newack_helper`): the sink's answer to the SYN;
//! - an ACK with ECE (whatever `ect_` says) calls `ecn(ack)` before anything else on the ACK:
//!   at most once per window (`ack > recover_`, or after a timeout) ssthresh and cwnd are
//!   halved (`slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)`; a window of one halves to 0,
//!   and a second mark at that size backs the timer off, `ecn_backoff_`), `recover_ = maxseq_`
//!   and the last action is ECN;
//! - an ACK of new data with ECE does not open cwnd once `ect_` holds;
//! - every `slowdown` (loss, timeout or ECN) sets `cong_action_`, and the next packet sent
//!   (a retransmission too, `SetCWRonRetransmit_ true`) carries CWR;
//! - three duplicate ACKs within the window of an ECN response retransmit without a second
//!   reduction (Reno, NewReno, Sack1: `dupack_action`'s ECN branch; Tahoe: cwnd = 1, ssthresh
//!   kept, go back to the first unacknowledged packet);
//! - a timeout within the window of an ECN response sets cwnd = 1 and keeps ssthresh;
//! - while `ecn_backoff_` holds, an ACK with ECE does not end the timer's backoff.
//!
//! The sink (`TCPSink`, `TCPSink/Sack1`): CWR on an arrival clears its pending echo, a CE
//! mark on an ECT arrival sets it, and the ACK of an ECT arrival carries it as ECE; the ACK of
//! a Not-ECT arrival with ECE (the SYN) carries ECE (the negotiation). ACKs are Not-ECT
//! (`ecn_syn_ false`).

use super::agent::{Action, Ns2Sender};
use crate::net::packet::Ecn;
use crate::tcp::segment::{Segment, TcpFlags};

/// The agent's ECN state (ns-2's names in comments).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Ns2Ecn {
    /// ect_: the peer answered the SYN's ECE.
    pub ect: bool,
    /// ecn_backoff_: an ECN response at a window of one is pending.
    pub backoff: bool,
    /// cong_action_: the next packet sent carries CWR.
    pub cong_action: bool,
    /// ECE of the ACK being processed.
    pub echo: bool,
}

impl Ns2Sender {
    /// The IP ECN field and CWR of a packet about to leave (`output`).
    pub(super) fn ecn_output(&mut self, p: &mut Segment, seqno: i64) {
        if !self.cfg.ecn {
            return;
        }
        if seqno == 0 {
            p.flags.set(TcpFlags::ECE, true);
        } else {
            p.ecn = Ecn::Ect0;
        }
        if self.ecn.cong_action {
            p.flags.set(TcpFlags::CWR, true);
            self.ecn.cong_action = false;
        }
    }

    /// An arriving ACK's ECE (`recv`'s `if (ecnecho && ecn_) ecn(seqno)`), before the variant
    /// processes it.
    pub(super) fn ecn_on_ack(&mut self, pkt: &Segment) {
        self.ecn.echo = self.cfg.ecn && pkt.flags.has(TcpFlags::ECE);
        if !self.ecn.echo {
            return;
        }
        if self.ecn.ect {
            self.inst.counters.ece_acks += 1;
        }
        let seqno = pkt.ack as i64;
        // tcp.cc `ecn()`: once per window of data, or at the first mark after a timeout.
        if seqno > self.recover || self.last_action == Action::Timeout {
            self.recover = self.maxseq;
            self.last_action = Action::Ecn;
            if self.cwnd <= 1.0 {
                if self.ecn.backoff {
                    self.rtt_backoff();
                } else {
                    self.ecn.backoff = true;
                }
            } else {
                self.ecn.backoff = false;
            }
            self.slowdown(true);
            self.inst.counters.ecn_reductions += 1;
        }
    }

    /// `recv_newack_helper`'s ECN part: may cwnd open on this ACK of new data?
    pub(super) fn ecn_may_open(&self) -> bool {
        !(self.ecn.ect && self.ecn.echo)
    }

    /// `recv_newack_helper`'s ECN bookkeeping after the window update.
    pub(super) fn ecn_after_newack(&mut self, cwr: bool) {
        if self.ecn.ect && !self.ecn.echo {
            self.ecn.backoff = false;
        }
        if !self.ecn.ect && self.ecn.echo && !cwr {
            self.ecn.ect = true;
        }
    }

    /// `newack`: does this ACK end the timer's backoff? Not while an ECN response at a window
    /// of one is pending and the ACK still echoes a mark.
    pub(super) fn ecn_ends_backoff(&mut self) -> bool {
        let keep = self.ecn.ect && self.ecn.backoff && self.ecn.echo;
        if !keep {
            self.ecn.backoff = false;
        }
        !keep
    }

    /// `dupack_action`'s ECN branch: three duplicate ACKs in the window of an ECN response
    /// (not recovered, no other reason for a fast retransmit). True if it applied.
    pub(super) fn ecn_dupack_action(&mut self, now: crate::time::SimTime, out: &mut Vec<Segment>) -> bool {
        use super::agent::{Ns2Variant, NUMDUPACKS};
        if !(self.cfg.ecn && self.last_action == Action::Ecn) {
            return false;
        }
        self.last_action = Action::Dupack;
        match self.cfg.variant {
            Ns2Variant::Tahoe => {
                // slowdown(CLOSE_CWND_ONE): ssthresh kept (at least 2)
                self.cwnd = 1.0;
                self.ssthresh = self.ssthresh.max(2);
                self.ecn.cong_action = true;
                self.reset_rtx_timer(now, false, false);
            }
            Ns2Variant::Reno | Ns2Variant::Newreno => {
                self.reset_rtx_timer(now, true, false);
                self.output(now, self.last_ack + 1, out);
                self.dupwnd = NUMDUPACKS;
            }
            Ns2Variant::Sack1 => {
                self.reset_rtx_timer(now, true, false);
                self.pipe = self.maxseq - self.highest_ack - NUMDUPACKS;
                self.fastrecov = true;
                self.sb.mark_retran(self.highest_ack + 1);
                self.output(now, self.last_ack + 1, out);
            }
            Ns2Variant::Fack | Ns2Variant::SackRH => unreachable!("ecn refused by the scenario"),
        }
        true
    }
}
