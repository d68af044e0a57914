//! SACK-based loss recovery, RFC 6675 (conservative): on the DupThresh-th duplicate ACK that
//! carries new SACK information, RecoveryPoint = HighData, ssthresh = cwnd = the congestion
//! control's answer (max(FlightSize/2, 2 SMSS) for AIMD's defaults, Sec. 5 step 4.2),
//! retransmit the first unSACKed segment; then on every ACK, while cwnd - pipe >= 1
//! SMSS, send NextSeg: (1) the first lost hole, (2) new data, (3) a hole below SACKed data,
//! (4) once per recovery, the rescue retransmission of the highest unSACKed segment. Recovery
//! ends when the cumulative ACK reaches RecoveryPoint.
//!
//! With `rate_halving` (ns-2's SackRH, after Mathis & Mahdavi): cwnd is not cut at once but
//! lowered by half a segment per ACK during recovery (one segment sent per two ACKs) down to
//! the new ssthresh, which it becomes when recovery ends.

use super::reduce;
use crate::tcp::cc::CongestionControl;
use crate::tcp::segment::Segment;
use crate::tcp::state::{AckResult, LossSignal, SenderCore};
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct SackRecovery {
    pub in_recovery: bool,
    pub rate_halving: bool,
    recovery_point: u64,
    rescue_rxt: Option<u64>,
}

impl SackRecovery {
    pub fn new(rate_halving: bool) -> Self {
        SackRecovery {
            rate_halving,
            ..Default::default()
        }
    }

    fn enter(
        &mut self,
        core: &mut SenderCore,
        cc: &mut CongestionControl,
        now: SimTime,
        out: &mut Vec<Segment>,
    ) {
        self.in_recovery = true;
        self.recovery_point = core.snd_max;
        self.rescue_rxt = None;
        core.recover = core.snd_max;
        reduce(core, cc, now);
        if !self.rate_halving {
            core.win.cwnd = core.win.ssthresh;
        }
        if let Some(sb) = &mut core.sb {
            sb.clear_rtx();
        }
        core.signal_loss(LossSignal::FastRetransmit);
        let una = core.snd_una;
        core.send_segment(now, una, out); // RFC 6675 Sec. 5 step 4.3
    }

    fn rate_halve(&self, core: &mut SenderCore) {
        if self.rate_halving {
            core.win.cwnd = core
                .win
                .cwnd
                .saturating_sub(core.mss() / 2)
                .max(core.win.ssthresh);
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
            self.rate_halve(core);
        } else if core.dupacks == core.cfg.dupthresh && core.fast_retransmit_allowed() {
            self.enter(core, cc, now, out);
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
        if !self.in_recovery {
            return AckResult::GROW;
        }
        if core.snd_una >= self.recovery_point {
            core.win.cwnd = core.win.ssthresh;
            self.in_recovery = false;
        } else {
            self.rate_halve(core);
        }
        AckResult::SET
    }

    pub fn on_timeout(&mut self, _core: &mut SenderCore) {
        self.in_recovery = false;
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    pub fn send(&mut self, core: &mut SenderCore, now: SimTime, out: &mut Vec<Segment>) {
        if !self.in_recovery {
            let w = core.win.cwnd;
            return core.send_allowed(now, w, out);
        }
        let (dupthresh, mss) = (core.cfg.dupthresh, core.mss());
        loop {
            let Some(sb) = core.sb.as_ref() else { return };
            let lost = sb.lost_flags(dupthresh, mss);
            if core.win.cwnd < sb.pipe(&lost) + mss {
                return;
            }
            // NextSeg (RFC 6675 Sec. 4).
            let hole = sb.first_lost_hole(&lost);
            if let Some(seg) = hole {
                core.send_segment(now, seg.start, out);
                continue;
            }
            let below_sacked = sb.first_hole_below_sacked();
            let rescue = sb.highest_unsacked().filter(|s| !s.rtx);
            if core.send_new_segment(now, u64::MAX, out) {
                continue;
            }
            if let Some(seg) = below_sacked {
                core.send_segment(now, seg.start, out);
                continue;
            }
            match (rescue, self.rescue_rxt) {
                (Some(seg), r) if r.is_none_or(|r| r < core.snd_una) => {
                    self.rescue_rxt = Some(self.recovery_point);
                    core.send_segment(now, seg.start, out);
                }
                _ => return,
            }
        }
    }
}
