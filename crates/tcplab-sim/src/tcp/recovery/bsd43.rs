//! 4.3BSD TCP before Jacobson (his Figs 3, 5 and 8, the "before" of every comparison): no fast
//! retransmit — a loss is repaired only by the retransmit timer, after which the sender goes
//! back to the first unacknowledged byte (go-back-N, which the shared sender does for every
//! variant). Its missing congestion window is the congestion control's business: `tcp =
//! "bsd43"` runs with `cc = "none"` (the receiver's whole window at once) unless told
//! otherwise. Its timer is RFC 793's (rto.rs `Rfc793`), with or without backoff.

use crate::tcp::cc::CongestionControl;
use crate::tcp::segment::Segment;
use crate::tcp::state::{AckResult, SenderCore};
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Bsd43;

impl Bsd43 {
    pub fn on_dupack(
        &mut self,
        _: &mut SenderCore,
        _: &mut CongestionControl,
        _: SimTime,
        _: &mut Vec<Segment>,
    ) {
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

    pub fn on_timeout(&mut self, _: &mut SenderCore) {}

    pub fn in_recovery(&self) -> bool {
        false
    }
}
