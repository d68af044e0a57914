//! Loss recovery: how a loss is detected from duplicate ACKs (and SACK blocks), how it is
//! repaired, and what the send loop may send meanwhile. The seam between the shared sender and
//! each variant; an enum gives static dispatch, each variant is one small file.
//!
//! A recovery sets cwnd while it repairs (Reno's inflation and deflation, Tahoe's one segment,
//! rate halving, FACK's Eq. 15), but it never computes an ssthresh: when it declares a loss it
//! asks the congestion control ([`Controller::ssthresh_after_loss`], through [`reduce`]), which
//! is what lets `d` (or CUBIC's beta) change every variant's reduction without touching it.

pub mod bsd43;
pub mod fack;
pub mod newreno;
pub mod rack;
pub mod reno;
pub mod sack;
pub mod tahoe;

use super::cc::{CongestionControl, Controller};
use super::segment::Segment;
use super::state::{AckResult, SenderCore};
use crate::time::SimTime;
use bsd43::Bsd43;
use fack::Fack;
use newreno::NewReno;
use reno::Reno;
pub use sack::AckEvent;
use sack::SackRecovery;
use tahoe::Tahoe;

/// A loss is declared now: ssthresh becomes what the congestion control answers (RFC 5681
/// Eq. 4 for AIMD with d = 1/2), from the window in use and the FlightSize of this moment.
pub(crate) fn reduce(core: &mut SenderCore, cc: &mut CongestionControl, now: SimTime) {
    let loss = core.loss(now);
    core.win.ssthresh = cc.ssthresh_after_loss(&loss);
}

#[derive(Clone, Debug)]
pub enum LossRecovery {
    Bsd43(Bsd43),
    Tahoe(Tahoe),
    Reno(Reno),
    NewReno(NewReno),
    /// SACK (RFC 6675), and SACK with rate halving (ns-2's SackRH).
    Sack(SackRecovery),
    Fack(Fack),
}

macro_rules! each {
    ($self:expr, $v:ident => $e:expr) => {
        match $self {
            LossRecovery::Bsd43($v) => $e,
            LossRecovery::Tahoe($v) => $e,
            LossRecovery::Reno($v) => $e,
            LossRecovery::NewReno($v) => $e,
            LossRecovery::Sack($v) => $e,
            LossRecovery::Fack($v) => $e,
        }
    };
}

impl LossRecovery {
    /// A duplicate ACK arrived (`core.dupacks` already counts it).
    pub fn on_dupack(
        &mut self,
        core: &mut SenderCore,
        cc: &mut CongestionControl,
        now: SimTime,
        out: &mut Vec<Segment>,
    ) {
        each!(self, v => v.on_dupack(core, cc, now, out))
    }

    /// A new ACK arrived (snd_una already advanced, the scoreboard updated). The congestion
    /// control sees it next, and grows the window unless the result says it was set.
    pub fn on_new_ack(
        &mut self,
        core: &mut SenderCore,
        cc: &mut CongestionControl,
        now: SimTime,
        acked: u64,
        out: &mut Vec<Segment>,
    ) -> AckResult {
        each!(self, v => v.on_new_ack(core, cc, now, acked, out))
    }

    /// The retransmit timer fired; the congestion control has already set the window and
    /// snd_nxt is back at snd_una. The SACK recovery with RACK marks losses instead (RFC 8985
    /// Sec. 6.3) and retransmits snd_una's segment itself.
    pub fn on_timeout(&mut self, core: &mut SenderCore, now: SimTime, out: &mut Vec<Segment>) {
        match self {
            LossRecovery::Sack(v) => v.on_timeout(core, now, out),
            LossRecovery::Bsd43(v) => v.on_timeout(core),
            LossRecovery::Tahoe(v) => v.on_timeout(core),
            LossRecovery::Reno(v) => v.on_timeout(core),
            LossRecovery::NewReno(v) => v.on_timeout(core),
            LossRecovery::Fack(v) => v.on_timeout(core),
        }
    }

    /// Does the RTO recovery retransmit only what is marked lost (RACK) rather than go back
    /// to snd_una?
    pub fn marks_after_timeout(&self) -> bool {
        matches!(self, LossRecovery::Sack(v) if v.marks_after_timeout())
    }

    /// A timeout found spurious (F-RTO) is undone: RACK's marks and RTO recovery end.
    pub fn undo_timeout(&mut self, core: &mut SenderCore) {
        if let LossRecovery::Sack(v) = self {
            v.undo_timeout(core)
        }
    }

    /// Sends what the variant's window allows.
    pub fn send(&mut self, core: &mut SenderCore, now: SimTime, out: &mut Vec<Segment>) {
        match self {
            LossRecovery::Sack(v) => v.send(core, now, out),
            LossRecovery::Fack(v) => v.send(core, now, out),
            LossRecovery::Bsd43(_)
            | LossRecovery::Tahoe(_)
            | LossRecovery::Reno(_)
            | LossRecovery::NewReno(_) => {
                let w = core.win.cwnd;
                core.send_allowed(now, w, out)
            }
        }
    }

    pub fn in_recovery(&self) -> bool {
        each!(self, v => v.in_recovery())
    }

    /// Every ACK, after the duplicate-ACK or new-ACK hook and the congestion control: RACK-TLP's
    /// per-ACK steps (RFC 8985) for the SACK recovery with `rack`; nothing for the others.
    pub fn on_any_ack(
        &mut self,
        core: &mut SenderCore,
        cc: &mut CongestionControl,
        now: SimTime,
        ev: AckEvent<'_>,
        out: &mut Vec<Segment>,
    ) {
        if let LossRecovery::Sack(v) = self {
            v.on_any_ack(core, cc, now, ev, out)
        }
    }

    /// The recovery's own timers (RACK's reordering timer, TLP's probe timer), if any.
    pub fn deadline(&self) -> Option<SimTime> {
        match self {
            LossRecovery::Sack(v) => v.deadline(),
            _ => None,
        }
    }

    /// The recovery's own timers may have expired (before the retransmit timer is looked at).
    pub fn on_timer(
        &mut self,
        core: &mut SenderCore,
        cc: &mut CongestionControl,
        now: SimTime,
        out: &mut Vec<Segment>,
    ) {
        if let LossRecovery::Sack(v) = self {
            v.on_timer(core, cc, now, out)
        }
    }
}
