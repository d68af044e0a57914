//! FACK with Rate-Halving (Mathis & Mahdavi 1996; Mathis et al. 1997 App. A).
//!
//! * Forward acknowledgment: snd.fack is the forward-most SACKed byte. Data between snd.una and
//!   snd.fack that is not SACKed is presumed lost, so what the network holds is
//!   awnd = snd.nxt - snd.fack + retran_data, and the sender sends while awnd < cwnd. (From
//!   the first SACK block on, rate halving sends one segment per two ACKs, so the second
//!   duplicate ACK releases a new segment before the dupack threshold: the property Mathis
//!   Sec. 3.4 credits for FACK's resistance to timeouts.)
//! * A loss is declared (one loss episode) when snd.fack - snd.una exceeds DupThresh segments,
//!   or on the DupThresh-th duplicate ACK.
//! * Rate-Halving: for exactly one round trip from the first SACK block — until an ACK SACKs
//!   data sent after it arrived — one segment is sent per two ACKs (cwnd follows awnd, plus
//!   one segment on every second ACK). What the network holds at the end of that round is then
//!   just what was sent during it: half of what it actually held during the lossy round,
//!   (cwnd - loss) / 2 (Eq. 15). That becomes cwnd and ssthresh: a result of the recovery, not
//!   of the congestion control. (When the loss is declared, ssthresh is the congestion
//!   control's answer for the window before the loss, until the round ends.)
//! * Thresholded retransmission: every hole with more than DupThresh segments SACKed above it
//!   is retransmitted, not just the first.
//! * Lost-retransmission detection: a retransmission is presumed lost when data sent after it
//!   has been SACKed DupThresh segments beyond it; it becomes eligible again.
//! * Bounding parameters: the window after rate halving is at most half the window before the
//!   loss and at least one segment ("no effect under normal operation", App. A). The "half" is
//!   the congestion control's decrease (`Controller::reduce`: d x W for AIMD), so d < 1/2
//!   lowers the bound; d > 1/2 cannot raise the window above what rate halving sent, about
//!   half (a recovery that reduces to an arbitrary ssthresh is PRR, RFC 6937).

use super::{Ctx, NoOptions, Recovery};
use crate::tcp::cc::{CongestionControl, Controller, Loss};
use crate::tcp::ns2::Ns2Variant;
use crate::tcp::state::{AckResult, LossSignal, SenderCore};
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Fack {
    pub in_recovery: bool,
    recover: u64,
    /// While rate halving: snd.nxt when the first SACK block arrived (the lossy round ends when
    /// snd.fack passes it).
    halving_until: Option<u64>,
    /// ACKs received during the lossy round trip (the first SACK-bearing one included).
    halving_acks: u64,
    /// Bytes retransmitted during the lossy round trip.
    round_rtx: u64,
    prior_cwnd: u64,
}

impl Fack {
    fn fack(core: &SenderCore) -> u64 {
        core.sb.as_ref().map_or(core.snd_una, |sb| sb.fack(core.snd_una))
    }

    /// What the network holds by FACK's estimate: awnd = snd.nxt - snd.fack + retran_data.
    fn awnd(core: &SenderCore) -> u64 {
        let retran = core.sb.as_ref().map_or(0, |sb| sb.retran_data());
        core.snd_nxt.saturating_sub(Self::fack(core)) + retran
    }

    /// Every ACK: start rate halving at the first sign of a hole, count the lossy round's ACKs,
    /// confirm a loss at the retransmission threshold, end the round when snd.fack passes the
    /// snd.nxt of its start.
    fn every_ack(&mut self, core: &mut SenderCore, cc: &mut CongestionControl, now: SimTime) {
        let fack = Self::fack(core);
        match self.halving_until {
            None if !self.in_recovery && fack > core.snd_una => {
                self.halving_until = Some(core.snd_nxt);
                self.halving_acks = 1;
                self.round_rtx = 0;
                self.prior_cwnd = core.win.cwnd;
                core.win.cwnd = Self::awnd(core); // the first ACK of a pair: nothing sent on it
            }
            None => {}
            Some(until) if fack > until => self.end_halving(core, cc),
            Some(_) if !self.in_recovery && fack <= core.snd_una => {
                // The hole filled without a loss being declared (reordering): undo.
                self.halving_until = None;
                core.win.cwnd = self.prior_cwnd;
            }
            Some(_) => {
                self.halving_acks += 1;
                let extra = if self.halving_acks.is_multiple_of(2) {
                    core.mss()
                } else {
                    0
                };
                core.win.cwnd = Self::awnd(core) + extra;
            }
        }
        let threshold = core.cfg.dupthresh as u64 * core.mss();
        let trigger = fack - core.snd_una > threshold || core.dupacks == core.cfg.dupthresh;
        if !self.in_recovery && trigger && core.fast_retransmit_allowed() && core.snd_max > core.snd_una {
            self.in_recovery = true;
            self.recover = core.snd_max;
            core.recover = core.snd_max;
            if self.halving_until.is_none() {
                // A loss declared by dupacks alone (no SACK information): halve from here.
                self.halving_until = Some(core.snd_nxt);
                self.halving_acks = 1;
                self.round_rtx = 0;
                self.prior_cwnd = core.win.cwnd;
                core.win.cwnd = Self::awnd(core);
            }
            // Until the round ends: the congestion control's answer for the window before the
            // loss (not the one rate halving has already lowered).
            let loss = Loss {
                now,
                window: self.prior_cwnd.min(core.cfg.rwnd),
                flight_size: core.flight_size(),
            };
            core.win.ssthresh = cc.ssthresh_after_loss(&loss);
            if let Some(sb) = &mut core.sb {
                sb.clear_rtx();
            }
            core.signal_loss(LossSignal::FastRetransmit);
        }
    }

    /// The lossy round trip is over: the new window is what was sent during it — new data past
    /// the round's starting snd.nxt plus the round's retransmissions — which is half of what the
    /// network held, (cwnd - loss) / 2 (Eq. 15). (awnd at this instant is short by what the
    /// round's first ACKs already acknowledged.) Bounding parameters: within [1 segment, the
    /// congestion control's decrease of the window before the loss] (half for AIMD's d = 1/2).
    fn end_halving(&mut self, core: &mut SenderCore, cc: &CongestionControl) {
        let Some(until) = self.halving_until.take() else {
            return;
        };
        let sent_in_round = core.snd_nxt.saturating_sub(until) + self.round_rtx;
        let bound = cc.reduce(self.prior_cwnd);
        core.win.cwnd = sent_in_round.min(bound).max(core.mss());
        core.win.ssthresh = core.win.cwnd.max(2 * core.mss());
    }
}

impl Recovery for Fack {
    type Options = NoOptions;
    const USES_SACK: bool = true;
    const NS2_AGENT: Option<Ns2Variant> = Some(Ns2Variant::Fack);

    fn build(_: &NoOptions) -> Self {
        Fack::default()
    }

    fn on_dupack(&mut self, cx: &mut Ctx<'_>) {
        self.every_ack(cx.core, cx.cc, cx.now);
    }

    fn on_new_ack(&mut self, cx: &mut Ctx<'_>, _: u64) -> AckResult {
        let core = &mut *cx.core;
        if self.in_recovery && core.snd_una >= self.recover {
            if self.halving_until.is_some() {
                self.end_halving(core, cx.cc);
            }
            self.in_recovery = false;
            return AckResult::SET;
        }
        let was_halving = self.halving_until.is_some() || self.in_recovery;
        self.every_ack(core, cx.cc, cx.now);
        if was_halving || self.halving_until.is_some() || self.in_recovery {
            AckResult::SET
        } else {
            AckResult::GROW
        }
    }

    fn on_timeout(&mut self, _: &mut Ctx<'_>) {
        self.in_recovery = false;
        self.halving_until = None;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn send(&mut self, cx: &mut Ctx<'_>) {
        let (core, now, out) = (&mut *cx.core, cx.now, &mut *cx.out);
        if core.snd_nxt < core.snd_max || core.sb.is_none() {
            // Go-back-N after a timeout (skipping SACKed segments), in slow start.
            let w = core.win.cwnd;
            return core.send_allowed(now, w, out);
        }
        let (threshold, mss) = (core.cfg.dupthresh as u64 * core.mss(), core.mss());
        loop {
            let Some(sb) = core.sb.as_mut() else { return };
            let fack = sb.fack(core.snd_una);
            // Lost-retransmission detection.
            for i in 0..sb.segments().len() {
                let s = sb.segments()[i];
                if s.rtx && !s.sacked && fack > s.rtx_snd_max + threshold {
                    sb.revive(i);
                }
            }
            let awnd = core.snd_nxt.saturating_sub(fack) + sb.retran_data();
            if awnd + mss > core.win.cwnd.max(mss) && awnd > 0 {
                return;
            }
            // Thresholded retransmission: any hole far enough below snd.fack.
            let hole = sb
                .segments()
                .iter()
                .find(|s| !s.sacked && !s.rtx && fack > s.start + threshold)
                .copied();
            if core.paced_out(now) {
                return;
            }
            if let Some(seg) = hole {
                core.send_segment(now, seg.start, out);
                if self.halving_until.is_some() {
                    self.round_rtx += seg.len();
                }
                continue;
            }
            if !core.send_new_segment(now, u64::MAX, out) {
                return;
            }
        }
    }
}
