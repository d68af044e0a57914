//! NewReno (RFC 6582): Reno's fast retransmit, but fast recovery lasts until the ACK covers
//! `recover` (the highest byte sent when it began). A partial ACK retransmits the next hole at
//! once (one hole per round trip) and deflates the window by the amount acknowledged, adding
//! back one SMSS (Sec. 3.2 step 4) — or, with full deflation (Parvez et al. footnote 1), sets
//! cwnd = ssthresh. Timer on partial ACKs (Sec. 4): Impatient restarts it only on the first
//! partial ACK (RFC 6582's recommendation), Slow-but-Steady on every one. The full ACK sets
//! cwnd = ssthresh (step 3, option 2). `recover` also guards against a second fast retransmit
//! for the same window (Sec. 3.2 step 1).

use super::reduce;
use crate::tcp::cc::CongestionControl;
use crate::tcp::segment::Segment;
use crate::tcp::state::{AckResult, LossSignal, SenderCore};
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct NewReno {
    pub in_recovery: bool,
    pub partial_deflation: bool,
    pub impatient: bool,
    partial_acks: u32,
}

impl NewReno {
    pub fn new(partial_deflation: bool, impatient: bool) -> Self {
        NewReno {
            in_recovery: false,
            partial_deflation,
            impatient,
            partial_acks: 0,
        }
    }

    pub fn on_dupack(
        &mut self,
        core: &mut SenderCore,
        cc: &mut CongestionControl,
        now: SimTime,
        out: &mut Vec<Segment>,
    ) {
        if self.in_recovery {
            core.win.cwnd += core.mss(); // Sec. 3.2 step 3: inflate
        } else if core.dupacks == core.cfg.dupthresh && core.fast_retransmit_allowed() {
            core.recover = core.snd_max; // step 2
            reduce(core, cc, now);
            core.signal_loss(LossSignal::FastRetransmit);
            let una = core.snd_una;
            core.send_segment(now, una, out);
            core.win.cwnd = core.win.ssthresh + core.cfg.dupthresh as u64 * core.mss();
            self.in_recovery = true;
            self.partial_acks = 0;
        }
    }

    pub fn on_new_ack(
        &mut self,
        core: &mut SenderCore,
        _: &mut CongestionControl,
        now: SimTime,
        acked: u64,
        out: &mut Vec<Segment>,
    ) -> AckResult {
        if !self.in_recovery {
            return AckResult::GROW;
        }
        if core.snd_una >= core.recover {
            // Full acknowledgment: leave fast recovery.
            core.win.cwnd = core.win.ssthresh;
            self.in_recovery = false;
            return AckResult::SET;
        }
        // Partial acknowledgment: the next segment is lost too.
        let una = core.snd_una;
        core.send_segment(now, una, out);
        if self.partial_deflation {
            core.win.cwnd = core.win.cwnd.saturating_sub(acked);
            if acked >= core.mss() {
                core.win.cwnd += core.mss();
            }
            core.win.cwnd = core.win.cwnd.max(core.mss());
        } else {
            core.win.cwnd = core.win.ssthresh;
        }
        self.partial_acks += 1;
        AckResult {
            window_set: true,
            restart_timer: !self.impatient || self.partial_acks == 1,
        }
    }

    pub fn on_timeout(&mut self, _core: &mut SenderCore) {
        self.in_recovery = false;
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}
