//! 4.3BSD TCP before Jacobson (his Figs 3, 5 and 8, the "before" of every comparison): no
//! congestion window and no slow start — the receiver's whole window is sent at once — no fast
//! retransmit, and after a timeout go-back-N from the first unacknowledged byte, again with the
//! whole window. Its timer is RFC 793's (rto.rs `Rfc793`), with or without backoff.

use super::sender::{AckResult, SenderCore};
use crate::tcp::segment::Segment;
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Bsd43;

impl Bsd43 {
    /// There is no congestion window: cwnd is reported as the receiver's window.
    pub fn init(&mut self, core: &mut SenderCore) {
        core.cwnd = core.cfg.rwnd;
        core.ssthresh = core.cfg.rwnd;
    }

    pub fn on_dupack(&mut self, _: &mut SenderCore, _: SimTime, _: &mut Vec<Segment>) {}

    pub fn on_new_ack(&mut self, _: &mut SenderCore, _: SimTime, _: u64, _: &mut Vec<Segment>) -> AckResult {
        AckResult::SET
    }

    pub fn on_timeout(&mut self, core: &mut SenderCore) {
        self.init(core);
    }

    pub fn in_recovery(&self) -> bool {
        false
    }
}
