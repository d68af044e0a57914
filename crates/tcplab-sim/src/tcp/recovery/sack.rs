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
//!
//! With `prr` (Proportional Rate Reduction, RFC 6937 Sec. 3, as Linux runs it): on every ACK
//! in recovery, with DeliveredData = the bytes newly acknowledged cumulatively or by SACK,
//! prr_delivered += DeliveredData, and
//!   if pipe > ssthresh: sndcnt = ceil(prr_delivered x ssthresh / RecoverFS) - prr_out
//!   else:               sndcnt = min(ssthresh - pipe, max(prr_delivered - prr_out,
//!                                DeliveredData) + SMSS)      (the slow-start reduction bound)
//! cwnd = pipe + max(sndcnt, 0); prr_out counts what recovery sends (the fast retransmission
//! included). RecoverFS = snd.nxt - snd.una at the start. Recovery ends with cwnd = ssthresh.

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
    /// RFC 6937 state, with `prr` on.
    prr: Option<Prr>,
}

/// Payload bytes of segments sent (PRR's prr_out counts them).
fn payload(sent: &[Segment]) -> u64 {
    sent.iter().map(|s| s.len as u64).sum()
}

/// Proportional Rate Reduction's counters (RFC 6937 Sec. 3), bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Prr {
    delivered: u64,
    out: u64,
    recover_fs: u64,
    /// The scoreboard's SACKed bytes after the previous ACK (for DeliveredData).
    sacked: u64,
}

impl SackRecovery {
    pub fn new(rate_halving: bool) -> Self {
        SackRecovery {
            rate_halving,
            ..Default::default()
        }
    }

    /// RFC 6675 recovery with PRR (RFC 6937) setting the window.
    pub fn prr() -> Self {
        SackRecovery {
            prr: Some(Prr::default()),
            ..Default::default()
        }
    }

    /// Outside recovery: remember the SACKed bytes, so that the ACK that starts a recovery
    /// counts only what it SACKed itself as delivered.
    fn note_sacked(&mut self, core: &SenderCore) {
        if let (Some(p), Some(sb)) = (&mut self.prr, core.sb.as_ref()) {
            p.sacked = sb.sacked_bytes();
        }
    }

    /// RFC 6937's per-ACK step: DeliveredData from the cumulative advance `acked` and the
    /// change in SACKed bytes, then cwnd = pipe + sndcnt.
    fn prr_step(&mut self, core: &mut SenderCore, acked: u64) {
        let Some(p) = &mut self.prr else { return };
        let Some(sb) = core.sb.as_ref() else { return };
        let sacked = sb.sacked_bytes();
        let delivered = (acked + sacked).saturating_sub(p.sacked);
        p.sacked = sacked;
        p.delivered += delivered;
        let (mss, ssthresh) = (core.mss(), core.win.ssthresh);
        let pipe = sb.pipe(&sb.lost_flags(core.cfg.dupthresh, mss));
        let sndcnt = if pipe > ssthresh {
            // Proportional: the sending rate is ssthresh / RecoverFS of the delivery rate.
            let target = (p.delivered as u128 * ssthresh as u128).div_ceil(p.recover_fs.max(1) as u128);
            (target as u64).saturating_sub(p.out)
        } else {
            // Slow-start reduction bound (PRR-SSRB).
            let bound = p.delivered.saturating_sub(p.out).max(delivered) + mss;
            (ssthresh - pipe).min(bound)
        };
        core.win.cwnd = pipe + sndcnt;
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
        if !self.rate_halving && self.prr.is_none() {
            core.win.cwnd = core.win.ssthresh;
        }
        if let Some(sb) = &mut core.sb {
            sb.clear_rtx();
        }
        core.signal_loss(LossSignal::FastRetransmit);
        let una = core.snd_una;
        let before = out.len();
        core.send_segment(now, una, out); // RFC 6675 Sec. 5 step 4.3
        if let Some(p) = &mut self.prr {
            // RFC 6937: RecoverFS = snd.nxt - snd.una; the counters start at 0; the fast
            // retransmission is sent at once (as Linux does) and counts in prr_out. What this
            // ACK SACKed counts as delivered (`sacked` is the count before it).
            *p = Prr {
                recover_fs: core.snd_max - core.snd_una,
                out: payload(&out[before..]),
                delivered: 0,
                sacked: p.sacked,
            };
            self.prr_step(core, 0);
        }
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
            self.prr_step(core, 0);
        } else if core.dupacks == core.cfg.dupthresh && core.fast_retransmit_allowed() {
            self.enter(core, cc, now, out);
        } else {
            self.note_sacked(core);
        }
    }

    pub fn on_new_ack(
        &mut self,
        core: &mut SenderCore,
        _: &mut CongestionControl,
        _: SimTime,
        newly_acked: u64,
        _: &mut Vec<Segment>,
    ) -> AckResult {
        if !self.in_recovery {
            self.note_sacked(core);
            return AckResult::GROW;
        }
        if core.snd_una >= self.recovery_point {
            core.win.cwnd = core.win.ssthresh;
            self.in_recovery = false;
        } else {
            self.rate_halve(core);
            self.prr_step(core, newly_acked);
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
        let before = out.len();
        self.send_in_recovery(core, now, out);
        if let Some(p) = &mut self.prr {
            p.out += payload(&out[before..]);
        }
    }

    fn send_in_recovery(&mut self, core: &mut SenderCore, now: SimTime, out: &mut Vec<Segment>) {
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
