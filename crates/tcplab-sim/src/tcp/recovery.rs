//! The seam between the shared sender and each variant: how a loss is detected from duplicate
//! ACKs, how it is repaired, and what window the send loop may use meanwhile. An enum gives
//! static dispatch; each variant is one small file.

use super::reno::Reno;
use super::sender::SenderCore;
use super::tahoe::Tahoe;
use crate::net::packet::Packet;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub enum LossRecovery {
    Tahoe(Tahoe),
    Reno(Reno),
}

impl LossRecovery {
    /// A duplicate ACK arrived (`core.dupacks` already counts it).
    pub fn on_dupack(&mut self, core: &mut SenderCore, now: SimTime, out: &mut Vec<Packet>) {
        match self {
            LossRecovery::Tahoe(v) => v.on_dupack(core, now, out),
            LossRecovery::Reno(v) => v.on_dupack(core, now, out),
        }
    }

    /// A new ACK arrived (snd_una already advanced). Returns true if the variant set the
    /// window itself; otherwise the core applies normal slow-start / CA growth.
    pub fn on_new_ack(
        &mut self,
        core: &mut SenderCore,
        now: SimTime,
        acked: u64,
        out: &mut Vec<Packet>,
    ) -> bool {
        match self {
            LossRecovery::Tahoe(_) => false,
            LossRecovery::Reno(v) => v.on_new_ack(core, now, acked, out),
        }
    }

    /// The retransmit timer fired; the core has already collapsed the window.
    pub fn on_timeout(&mut self, core: &mut SenderCore) {
        match self {
            LossRecovery::Tahoe(_) => {}
            LossRecovery::Reno(v) => v.on_timeout(core),
        }
    }

    /// The window the send loop may fill, in bytes.
    pub fn send_window(&self, core: &SenderCore) -> u64 {
        core.cwnd
    }

    pub fn in_recovery(&self) -> bool {
        match self {
            LossRecovery::Tahoe(_) => false,
            LossRecovery::Reno(v) => v.in_recovery,
        }
    }
}
