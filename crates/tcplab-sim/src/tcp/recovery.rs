//! The seam between the shared sender and each variant: how a loss is detected from duplicate
//! ACKs, how it is repaired, and what the send loop may send meanwhile. An enum gives static
//! dispatch; each variant is one small file.

use super::bsd43::Bsd43;
use super::fack::Fack;
use super::newreno::NewReno;
use super::reno::Reno;
use super::sack_recovery::SackRecovery;
use super::sender::{AckResult, SenderCore};
use super::tahoe::Tahoe;
use crate::tcp::segment::Segment;
use crate::time::SimTime;

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
    /// Once, when the sender is built.
    pub fn init(&mut self, core: &mut SenderCore) {
        if let LossRecovery::Bsd43(v) = self {
            v.init(core)
        }
    }

    /// A duplicate ACK arrived (`core.dupacks` already counts it).
    pub fn on_dupack(&mut self, core: &mut SenderCore, now: SimTime, out: &mut Vec<Segment>) {
        each!(self, v => v.on_dupack(core, now, out))
    }

    /// A new ACK arrived (snd_una already advanced, the scoreboard updated).
    pub fn on_new_ack(
        &mut self,
        core: &mut SenderCore,
        now: SimTime,
        acked: u64,
        out: &mut Vec<Segment>,
    ) -> AckResult {
        each!(self, v => v.on_new_ack(core, now, acked, out))
    }

    /// The retransmit timer fired; the core has already collapsed the window.
    pub fn on_timeout(&mut self, core: &mut SenderCore) {
        each!(self, v => v.on_timeout(core))
    }

    /// Sends what the variant's window allows.
    pub fn send(&mut self, core: &mut SenderCore, now: SimTime, out: &mut Vec<Segment>) {
        match self {
            LossRecovery::Bsd43(_) => {
                let w = core.cfg.rwnd;
                core.send_allowed(now, w, out)
            }
            LossRecovery::Sack(v) => v.send(core, now, out),
            LossRecovery::Fack(v) => v.send(core, now, out),
            LossRecovery::Tahoe(_) | LossRecovery::Reno(_) | LossRecovery::NewReno(_) => {
                let w = core.cwnd;
                core.send_allowed(now, w, out)
            }
        }
    }

    pub fn in_recovery(&self) -> bool {
        each!(self, v => v.in_recovery())
    }
}
