//! Tahoe (Jacobson 1988 with fast retransmit): on the third duplicate ACK, ssthresh = half the
//! flight, cwnd = 1 segment, and go back to snd_una in slow start. No fast recovery. The
//! duplicate ACKs that the go-back-N window itself provokes cannot trigger another fast
//! retransmit (the `recover` guard).

use super::sender::{LossSignal, SenderCore};
use crate::net::packet::Packet;
use crate::time::SimTime;

/// The duplicate-ACK threshold (RFC 5681 Sec. 3.2).
pub const DUPTHRESH: u32 = 3;

#[derive(Clone, Debug, Default)]
pub struct Tahoe;

impl Tahoe {
    pub fn on_dupack(&mut self, core: &mut SenderCore, _now: SimTime, _out: &mut Vec<Packet>) {
        if core.dupacks == DUPTHRESH && core.fast_retransmit_allowed() {
            core.halve_ssthresh();
            core.recover = core.snd_max; // go-back-N resends this window: guard it like a timeout
            core.cwnd = core.mss();
            core.snd_nxt = core.snd_una; // the send loop retransmits from here in slow start
            core.signal_loss(LossSignal::FastRetransmit);
        }
    }
}
