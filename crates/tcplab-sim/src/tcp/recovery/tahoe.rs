//! Tahoe (Jacobson 1988 with fast retransmit): on the third duplicate ACK, ssthresh = what the
//! congestion control answers (half the flight for AIMD's defaults), cwnd = 1 segment, and go
//! back to snd_una in slow start. No fast recovery. The
//! duplicate ACKs that the go-back-N window itself provokes cannot trigger another fast
//! retransmit (the `recover` guard).

use super::reduce;
use crate::tcp::cc::CongestionControl;
use crate::tcp::segment::Segment;
use crate::tcp::state::{AckResult, LossSignal, SenderCore};
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Tahoe;

impl Tahoe {
    pub fn on_dupack(
        &mut self,
        core: &mut SenderCore,
        cc: &mut CongestionControl,
        now: SimTime,
        _: &mut Vec<Segment>,
    ) {
        if core.dupacks == core.cfg.dupthresh && core.fast_retransmit_allowed() {
            reduce(core, cc, now);
            core.recover = core.snd_max; // go-back-N resends this window: guard it like a timeout
            core.win.cwnd = core.mss();
            core.snd_nxt = core.snd_una; // the send loop retransmits from here in slow start
            core.signal_loss(LossSignal::FastRetransmit);
        }
    }

    pub fn on_new_ack(
        &mut self,
        _: &mut SenderCore,
        _: &mut CongestionControl,
        _: SimTime,
        _: u64,
        _: &mut Vec<Segment>,
    ) -> AckResult {
        AckResult::GROW
    }

    pub fn on_timeout(&mut self, _core: &mut SenderCore) {}

    pub fn in_recovery(&self) -> bool {
        false
    }
}
