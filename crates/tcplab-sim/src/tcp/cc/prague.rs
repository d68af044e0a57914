//! TCP Prague (experimental): the scalable L4S sender its authors describe
//! (draft-briscoe-iccrg-prague-congestion-control; the L4S team's Linux `tcp_prague.c`,
//! version 0.6), in Linux's integer arithmetic: alpha in 2^-20 units kept upscaled by 1/g,
//! the window in segments with a 2^-20 fractional carry (`cwnd_cnt`).
//!
//! * **ECN**: data leave ECT(1) (RFC 9331 Sec. 5.1, `TCP_ECN_ECT_1`), retransmissions too;
//!   AccECN feedback is required (`ecn = "accecn"`, Linux's TCP_CONG_NEEDS_ACCECN).
//! * **alpha** (`prague_update_alpha`): once per round trip (snd_una reaches the snd_nxt of
//!   the last update, `prague_e2e_rtt_elapsed`), after the first CE (`saw_ce`),
//!   alpha = (1 - g) alpha + g F, F = CE packets / packets delivered in the round, g = 1/16
//!   (PRAGUE_SHIFT_G = 4); alpha starts at 1 (`prague_init`).
//! * **the response to CE** (`prague_enter_cwr`): at most once per round trip, when the ACKs
//!   report CE (the sender's CWR rule, `ecn.rs`), cwnd -= cwnd x alpha / 2 rounded to nearest
//!   (the "+ PRAGUE_MAX_ALPHA" unbiasing), at least 2 segments (MIN_CWND); ssthresh = cwnd.
//!   The alpha used is the one before this ACK's update, as Linux enters CWR before
//!   `cong_control`. As Linux, the reduction goes into `cwnd_cnt` and cwnd follows the carry
//!   by at most one segment per ACK (`prague_update_cwnd`'s adjust, which sets ssthresh =
//!   cwnd on each step down), from the ACK that entered CWR on; growth is paid the same way.
//! * **growth** (`prague_update_cwnd`), on every ACK of new data, also while a CE response's
//!   round is out (Linux runs `cong_control` in TCP_CA_CWR), not in a loss recovery: the
//!   packets delivered minus those CE-marked (unsaturated marking), slow start
//!   (`tcp_slow_start`: + 1 segment each, up to ssthresh) then additive increase: cwnd_cnt +=
//!   max(acked, acked x ai / cwnd rounded), a segment per 2^20; ai = 2^20 (1 segment per
//!   round trip) or RTT-scaled below.
//! * **loss**: Reno's (RFC 5681: ssthresh = max(cwnd / 2, 2 SMSS), the recovery sets cwnd;
//!   Linux's `prague_enter_loss` halves cwnd through `cwnd_cnt`); a timeout: cwnd = 1 SMSS.
//! * **pacing** (`prague_update_pacing_rate`): the flow's pacing (`state.rs`, `Pacing`) at
//!   max(cwnd, bytes in flight) / srtt, twice that while cwnd < ssthresh / 2; none before the
//!   first RTT sample. Linux paces whole packets (headers included) and bounds the TSO burst;
//!   here payload bytes, no bursts.
//! * **RTT independence** (`rtt_scaling`): "rate" (the default, as the module's
//!   `prague_rtt_scaling = RTT_CONTROL_RATE`: behave as a flow of RTT `target_rtt`), "none"
//!   (RTT_CONTROL_NONE) or "additive" (RTT_CONTROL_ADDITIVE: as a flow of RTT srtt +
//!   `target_rtt`); `target_rtt` 25 ms (`prague_rtt_target = 25 * USEC_PER_MSEC`). Once the flow has spent `rtt_transition` rounds (500,
//!   DEFAULT_RTT_TRANSITION) out of slow start with srtt <= 100 ms (MAX_SCALED_RTT): ai =
//!   2^20 x (srtt / target)^2 when srtt < target (`prague_rate_scaled_ai_ack_increase`, RTTs
//!   in 128 us units), alpha is updated at most once per target RTT
//!   (`prague_target_rtt_elapsed`: the round, and its CE count, run on to the first ACK a
//!   target RTT after the last update, as `prague_cong_control` checks on every ACK) and the
//!   CE response is skipped within a target RTT of the last (`prague_enter_cwr`).
//!
//! Not modelled: the classic-ECN fallback detection (`prague_classic_ecn_detection`), the
//! undo after a spurious loss, and the switch to Reno (`prague_reno`) when the handshake agrees
//! no ECN at all: this controller keeps its rules, grows from the bytes acknowledged, sees no
//! CE and counts no rounds. Over classic feedback (a receiver without AccECN) it keeps ECT(1)
//! and reads an ECE ACK as all of its packets CE.

use super::{invalid, Ack, Controller, Delivery, EcnAck, FromOptions, Loss, Setup, Window};
use crate::error::Error;
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// alpha's resolution: 2^-20 (PRAGUE_ALPHA_BITS).
const ALPHA_BITS: u32 = 20;
const MAX_ALPHA: u64 = 1 << ALPHA_BITS;
/// g = 1/2^4.
const SHIFT_G: u32 = 4;
/// A segment in `cwnd_cnt` units (CWND_UNIT).
const ONE_CWND: i64 = 1 << 20;
const MIN_CWND: u64 = 2;
/// RTTs in 128 us units (RTT_UNIT).
const RTT_UNIT_NS: u64 = 128_000;
/// MAX_SCALED_RTT: 100 ms.
const MAX_SCALED_RTT_NS: u64 = 100_000_000;

/// The RTT-independence heuristic (`rtt_scaling`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RttScaling {
    /// No RTT independence (RTT_CONTROL_NONE).
    None,
    /// Grow as a flow of RTT `target_rtt` would (RTT_CONTROL_RATE, the default here and in
    /// tcp_prague.c, `prague_rtt_scaling`).
    Rate,
    /// Grow as a flow of RTT srtt + `target_rtt` would (RTT_CONTROL_ADDITIVE).
    Additive,
}

/// Prague's options: `cc = { algorithm = "prague", rtt_scaling = "additive" }`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PragueOptions {
    /// RTT independence: "rate" (default, as tcp_prague.c's `prague_rtt_scaling`), "none"
    /// or "additive".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_scaling: Option<RttScaling>,
    /// The target RTT of the scaling, 1 ms to 100 ms (default 25 ms, `prague_rtt_target`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_rtt: Option<crate::time::Duration>,
    /// Rounds out of slow start before the scaling applies (default 500,
    /// `prague_rtt_transition`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_transition: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Prague {
    mss: u64,
    initial: Window,
    scaling: RttScaling,
    /// The target RTT in 128 us units.
    target: u64,
    transition: u32,
    /// alpha / g, in 2^-20 units (`upscaled_alpha`).
    pub upscaled_alpha: u64,
    /// A CE mark has been reported (`saw_ce`).
    pub saw_ce: bool,
    /// The fractional carry of cwnd, 2^-20 segments (`cwnd_cnt`).
    pub cwnd_cnt: i64,
    /// Packets delivered and CE-marked, in total and at the round's start.
    delivered: u64,
    delivered_ce: u64,
    old_delivered: u64,
    old_delivered_ce: u64,
    /// Rounds since slow start ended (`round`).
    pub round: u32,
    /// The round ends when snd_una reaches this (`next_seq`, set to snd_max when alpha's update
    /// starts a new round).
    next_seq: u64,
    /// This ACK's facts (`on_ecn_ack` runs before `on_ack`): packets delivered, CE-marked,
    /// whether the round's data are all acknowledged (`prague_e2e_rtt_elapsed`), and snd_max.
    ack_delivered: u64,
    ack_ce: u64,
    round_end: bool,
    ack_snd_max: u64,
    /// `on_ecn_ack` ran for this ACK.
    fed: bool,
    /// Smoothed RTT (RFC 6298's gains, as `tp->srtt_us`), from the ACKs' samples.
    srtt_ns: Option<u64>,
    alpha_stamp: SimTime,
    cwr_stamp: Option<SimTime>,
    now: SimTime,
    /// The pacing rate, payload bits/s (0: not pacing).
    pacing_bps: u64,
}

impl FromOptions for Prague {
    type Options = PragueOptions;
    const NEEDS_ECN: bool = true;
    const NEEDS_ACCECN: bool = true;
    const L4S: bool = true;

    fn validate(o: &PragueOptions, at: &str) -> Result<(), Error> {
        if let Some(t) = o.target_rtt {
            if !(SimTime::from_ms(1)..=SimTime::from_ms(100)).contains(&t.0) {
                return Err(invalid(
                    format!("{at}.target_rtt"),
                    format!("{} (expected 1ms to 100ms)", t.0),
                ));
            }
        }
        Ok(())
    }

    fn build(o: &PragueOptions, f: &Setup) -> Prague {
        let target = o.target_rtt.map_or(SimTime::from_ms(25), |t| t.0);
        Prague {
            mss: f.mss,
            initial: Window {
                cwnd: f.initial_window,
                ssthresh: f.initial_ssthresh,
            },
            scaling: o.rtt_scaling.unwrap_or(RttScaling::Rate),
            target: target.ns() / RTT_UNIT_NS,
            transition: o.rtt_transition.unwrap_or(500),
            upscaled_alpha: MAX_ALPHA << SHIFT_G,
            saw_ce: false,
            cwnd_cnt: 0,
            delivered: 0,
            delivered_ce: 0,
            old_delivered: 0,
            old_delivered_ce: 0,
            round: 0,
            ack_delivered: 0,
            ack_ce: 0,
            next_seq: 0,
            round_end: false,
            ack_snd_max: 0,
            fed: false,
            srtt_ns: None,
            alpha_stamp: SimTime::ZERO,
            cwr_stamp: None,
            now: SimTime::ZERO,
            pacing_bps: 0,
        }
    }
}

impl Prague {
    /// alpha, 0..=1.
    pub fn alpha(&self) -> f64 {
        (self.upscaled_alpha >> SHIFT_G) as f64 / MAX_ALPHA as f64
    }

    fn slow_start(w: &Window) -> bool {
        w.cwnd < w.ssthresh
    }

    /// srtt in 128 us units (`US2RTT(srtt_us >> 3)`).
    fn rtt_units(&self) -> Option<u64> {
        self.srtt_ns.map(|s| s / RTT_UNIT_NS)
    }

    /// `prague_is_rtt_indep`.
    fn rtt_indep(&self, w: &Window) -> bool {
        self.scaling != RttScaling::None && !Self::slow_start(w) && self.round >= self.transition
    }

    /// `prague_target_rtt`, 128 us units.
    fn target_rtt(&self) -> u64 {
        match self.scaling {
            RttScaling::Additive => self.target + self.rtt_units().unwrap_or(0),
            _ => self.target,
        }
    }

    /// `prague_ai_ack_increase`: 2^20 per round trip, or RTT-scaled.
    fn ai_ack_increase(&self) -> u64 {
        let unscaled = ONE_CWND as u64;
        if self.scaling == RttScaling::None || self.round < self.transition {
            return unscaled;
        }
        let Some(rtt) = self.rtt_units().filter(|&r| r > 0 && r * RTT_UNIT_NS <= MAX_SCALED_RTT_NS) else {
            return unscaled;
        };
        let target = self.target_rtt();
        if rtt >= target {
            return unscaled;
        }
        let divisor = target * target;
        ((rtt << 20) * rtt + (divisor >> 1)) / divisor
    }

    /// The round's data are acknowledged: alpha's update if due (`prague_should_update_ewma`),
    /// and the next round (`prague_new_round`, from the data sent by now). Not due (RTT
    /// independent, a target RTT not yet elapsed since the last update): the round goes on and
    /// the next ACK checks again, as Linux's `prague_cong_control` on every ACK.
    fn end_round(&mut self, w: &Window) {
        let due = !self.rtt_indep(w)
            || self.now.saturating_sub(self.alpha_stamp).ns() >= self.target_rtt() * RTT_UNIT_NS;
        if !due {
            return;
        }
        self.next_seq = self.ack_snd_max;
        if self.saw_ce {
            let mut f = self.delivered_ce - self.old_delivered_ce;
            if f > 0 {
                let acked = (self.delivered - self.old_delivered).max(1);
                f = (f << ALPHA_BITS) / acked;
            }
            let a = self.upscaled_alpha - (self.upscaled_alpha >> SHIFT_G) + f;
            self.upscaled_alpha = a.min(MAX_ALPHA << SHIFT_G);
            self.alpha_stamp = self.now;
        }
        self.old_delivered = self.delivered;
        self.old_delivered_ce = self.delivered_ce;
        if !Self::slow_start(w) {
            self.round = self.round.wrapping_add(1);
            if self.round == 0 {
                self.round = self.transition;
            }
        }
    }

    /// Applies `cwnd_cnt` to the window, one whole segment per ACK at most
    /// (`prague_update_cwnd`'s adjust: "if (cwnd_cnt <= -ONE_CWND) { cwnd_cnt += ONE_CWND;
    /// --snd_cwnd; ... snd_ssthresh = snd_cwnd }", else the same upwards); a decrease below
    /// 2 segments stops there and drops the rest of the carry.
    fn adjust(&mut self, w: &mut Window) {
        let mut pkts = w.cwnd / self.mss;
        if self.cwnd_cnt <= -ONE_CWND {
            self.cwnd_cnt += ONE_CWND;
            pkts = pkts.saturating_sub(1);
            if pkts < MIN_CWND {
                pkts = MIN_CWND;
                self.cwnd_cnt = 0;
            }
            w.ssthresh = pkts * self.mss;
        } else if self.cwnd_cnt >= ONE_CWND {
            self.cwnd_cnt -= ONE_CWND;
            pkts += 1;
        }
        w.cwnd = pkts * self.mss;
    }
}

impl Controller for Prague {
    fn initial_window(&self) -> Window {
        self.initial
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        self.now = ack.now;
        if let Some(r) = ack.rtt {
            let r = r.ns();
            self.srtt_ns = Some(self.srtt_ns.map_or(r, |s| (7 * s + r) / 8));
        }
        // Without ECN in use (no `on_ecn_ack`) the packets come from the bytes acknowledged.
        if !self.fed {
            self.ack_delivered = ack.acked.div_ceil(self.mss);
        }
        self.fed = false;
        let mut acked = self.ack_delivered.saturating_sub(self.ack_ce);
        let mut adjust = true;
        if !ack.recovering && acked > 0 {
            let mut pkts = w.cwnd / self.mss;
            if Self::slow_start(w) {
                // tcp_slow_start: + 1 segment per packet up to ssthresh; the rest goes on.
                // When nothing is left the ACK ends there, without the adjust step.
                let ss = w.ssthresh.div_ceil(self.mss);
                let n = acked.min(ss.saturating_sub(pkts));
                pkts += n;
                acked -= n;
                w.cwnd = pkts * self.mss;
                adjust = acked > 0;
            }
            if adjust {
                let inc = (acked * self.ai_ack_increase() + (pkts >> 1)) / pkts.max(1);
                self.cwnd_cnt += inc.max(acked) as i64;
            }
        }
        if adjust {
            self.adjust(w);
        }
        if self.round_end {
            self.round_end = false;
            self.end_round(w);
        }
        self.ack_delivered = 0;
        self.ack_ce = 0;
    }

    /// Reno's halving, in whole segments (Linux halves cwnd through `cwnd_cnt`).
    fn ssthresh_after_loss(&mut self, loss: &Loss) -> u64 {
        self.cwnd_cnt = 0;
        (loss.window / self.mss / 2).max(MIN_CWND) * self.mss
    }

    fn reduce(&self, window: u64) -> u64 {
        window / 2
    }

    fn on_timeout(&mut self, w: Window, loss: &Loss, repeated: bool) -> Window {
        self.cwnd_cnt = 0;
        Window {
            cwnd: self.mss,
            ssthresh: if repeated {
                w.ssthresh
            } else {
                self.ssthresh_after_loss(loss)
            },
        }
    }

    fn on_idle(&mut self, w: &mut Window) {
        w.cwnd = w.cwnd.min(self.initial.cwnd);
    }

    fn pacing_rate_bps(&self) -> Option<u64> {
        Some(self.pacing_bps)
    }

    fn wants_delivery_rate(&self) -> bool {
        true
    }

    /// `prague_update_pacing_rate`.
    fn cong_control(&mut self, w: &mut Window, d: &Delivery) -> bool {
        if let Some(srtt) = d.srtt.filter(|s| s.ns() > 0) {
            let inflight = w.cwnd.max(d.in_flight) as u128;
            let mut rate = inflight * 8 * 1_000_000_000 / srtt.ns() as u128;
            if w.cwnd < w.ssthresh / 2 {
                rate *= 2;
            }
            self.pacing_bps = rate.min(u64::MAX as u128) as u64;
        }
        false
    }

    fn on_ecn_ack(&mut self, e: &EcnAck) {
        self.fed = true;
        self.ack_delivered = e.delivered as u64;
        self.ack_ce = e.ce_packets as u64;
        self.delivered += e.delivered as u64;
        self.delivered_ce += e.ce_packets as u64;
        if e.ce_packets > 0 {
            self.saw_ce = true;
        }
        // `prague_e2e_rtt_elapsed`: `!before(snd_una, next_seq)`, so the ACK that covers all
        // of the round's data ends it (the flow's observation window, `ecn.rs`, waits for
        // snd_una to pass its end, as RFC 8257's DCTCP does).
        self.round_end = e.snd_una >= self.next_seq;
        self.ack_snd_max = e.snd_max;
    }

    /// `prague_enter_cwr`: the reduction cwnd x alpha / 2, rounded to nearest, goes into the
    /// carry; cwnd and ssthresh are left to `adjust`, one segment per ACK from this one on.
    fn on_ecn_echo(&mut self, w: &mut Window, loss: &Loss) -> bool {
        let now = loss.now;
        if self.rtt_indep(w) {
            if let Some(t) = self.cwr_stamp {
                if now.saturating_sub(t).ns() < self.target_rtt() * RTT_UNIT_NS {
                    return false;
                }
            }
        }
        self.cwr_stamp = Some(now);
        let alpha = self.upscaled_alpha >> SHIFT_G;
        let pkts = w.cwnd / self.mss;
        let reduction = (alpha * (pkts << 20) + MAX_ALPHA) >> (ALPHA_BITS + 1);
        self.cwnd_cnt -= reduction as i64;
        true
    }

    fn grows_in_cwr(&self) -> bool {
        true
    }

    /// alpha, for the flow's `ecn_alpha_mean` (read at each round's end, before that
    /// round's update: the alpha the round's CE response used).
    fn ecn_estimate(&self) -> Option<f64> {
        Some(self.alpha())
    }
}

#[cfg(test)]
mod tests;
