//! Reno fast retransmit and fast recovery (RFC 5681 Sec. 3.2): on the third duplicate ACK,
//! ssthresh = the congestion control's answer (max(FlightSize/2, 2 SMSS), Eq. 4, for AIMD's
//! defaults), retransmit, cwnd = ssthresh + 3 SMSS; each further
//! duplicate ACK inflates cwnd by one SMSS; the next new ACK deflates it to ssthresh and ends
//! recovery (even a partial ACK: that is what NewReno changes). With `guard` (ns-2's bugFix_),
//! no second fast retransmit until an ACK covers what was outstanding at the first.

use super::reduce;
use crate::tcp::cc::CongestionControl;
use crate::tcp::segment::Segment;
use crate::tcp::state::{AckResult, LossSignal, SenderCore};
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Reno {
    pub in_recovery: bool,
    pub guard: bool,
}

impl Reno {
    pub fn on_dupack(
        &mut self,
        core: &mut SenderCore,
        cc: &mut CongestionControl,
        now: SimTime,
        out: &mut Vec<Segment>,
    ) {
        if self.in_recovery {
            core.win.cwnd += core.mss(); // RFC 5681 step 4: inflate for the segment that left
        } else if core.dupacks == core.cfg.dupthresh && core.fast_retransmit_allowed() {
            reduce(core, cc, now); // step 2
            if self.guard {
                core.recover = core.snd_max;
            }
            core.signal_loss(LossSignal::FastRetransmit);
            let una = core.snd_una;
            core.send_segment(now, una, out); // step 3: retransmit the lost segment
            core.win.cwnd = core.win.ssthresh + core.cfg.dupthresh as u64 * core.mss();
            self.in_recovery = true;
        }
    }

    pub fn on_new_ack(
        &mut self,
        core: &mut SenderCore,
        _: &mut CongestionControl,
        _: SimTime,
        _: u64,
        _: &mut Vec<Segment>,
    ) -> AckResult {
        if self.in_recovery {
            core.win.cwnd = core.win.ssthresh; // step 6: deflate
            self.in_recovery = false;
            AckResult::SET
        } else {
            AckResult::GROW
        }
    }

    pub fn on_timeout(&mut self, _core: &mut SenderCore) {
        self.in_recovery = false;
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}
