//! DualPI2, the Dual-Queue Coupled AQM of RFC 9332 (De Schepper, Briscoe & White) with a PI2
//! base AQM, as its Appendix A gives it in pseudocode and Linux's `sch_dualpi2` runs it:
//!
//! - **Classification** (Sec. 2.3, App. A Fig. 3): ECT(1) and CE go to the L queue, Not-ECT and
//!   ECT(0) to the C queue. The buffer is shared (`limit`); an arrival that does not fit is
//!   dropped (overflow).
//! - **The PI2 base probability** (App. A.1 Fig. 6), updated every `tupdate` (16 ms):
//!   `p' += alpha (curq - target) + beta (curq - prevq)`, bounded to [0, 1], with `curq` the
//!   sojourn time of the C queue's head (`curq = "classic"`, Fig. 6 line 2) or the larger of
//!   both heads' (`curq = "max"`, Linux's `calculate_probability` and App. A.2); then
//!   `p_CL = k p'` (the coupled L probability) and `p_C = p'^2` (the Classic one), k = 2.
//! - **Dequeue** (App. A.1 Fig. 4; decisions at dequeue, as Linux's default `drop_dequeue`):
//!   an L packet is marked CE when its sojourn time is above the native step threshold (1 ms,
//!   Sec. 2.5.1.1; Linux's `step_thresh`; strictly above, `do_step_aqm`), or else with
//!   probability p_CL (the combining function p_L = max(p'_L, p_CL) with a step p'_L in
//!   {0, 1}). A C packet is marked (ECT(0)) or dropped (Not-ECT) with probability p_C.
//!   These decisions are at dequeue, by a delay-driven controller: their cause is `sojourn`
//!   (as CoDel's), the step's `threshold` (as CoDel's `ce_threshold`).
//! - **Overload** (Sec. 4.2.3, App. A.1 Fig. 4): once p_CL reaches p_Lmax = 1 the L queue
//!   drops with probability p_C and marks the rest with probability p_CL; the C queue drops
//!   ECN-capable packets too once p_C >= p_Cmax = min(1/k^2, 1). With
//!   `drop_on_overload = false` (Linux's `overflow`) p' is capped at 1/k instead, so ECN
//!   packets are never dropped before the buffer overflows.
//! - **The likelihood function**: App. A's `recur(q, p)` by default (`marking = "recur"`): a
//!   per-queue count grows by p at each decision, and a decision is positive when it exceeds
//!   1, which then comes off; deterministic and evenly spaced. `marking = "random"` draws
//!   `u < p` from the queue's stream instead, as Linux's `dualpi2_roll`. A step mark is
//!   certain (Linux's `do_step_aqm`; `recur` with likelihood 1 would skip it when its count is
//!   exactly 0).
//! - **Scheduler**: Linux's weighted round robin with Classic protection (`dequeue_packet`):
//!   a credit starting at MTU (wc - wl), wc = `classic_protection` % (10) and wl = 100 - wc,
//!   MTU = 1500 bytes; the L queue is served while its credit is not positive or the C queue
//!   is empty; a packet sent from L while C waits adds wc x its size, one from C while L
//!   waits takes wl x its size off; the credit restarts when both are empty. (RFC 9332's
//!   time-shifted FIFO is not offered.)
//! - **Counters** (`lanes.rs`): packets sent, drops and marks of each queue and its packets'
//!   sojourn times, for the links table's `l_*` and `c_*` columns.
//!
//! The controller runs at multiples of `tupdate` from time 0, lazily as in `pie.rs`: before
//! each enqueue and dequeue the updates due at or before `now` run in order on the unchanged
//! queues. Not modelled: App. A's ramp for the L queue (minTh 800 us, range 400 us) and its
//! Th_len (this is Linux's step, with `min_qlen_step` 0); Linux's "no drop below 2 MTU of
//! backlog" in `must_drop`; App. A.2's integer arithmetic.

use super::pie::{check, check_pi};
use super::{set_ce, DropCause, Drops, Fifo, Limit, LinkContext, MarkCause, Marks, QueueDiscipline};
use crate::error::Error;
use crate::net::packet::{Ecn, Packet};
use crate::rng::Stream;
use crate::time::{Duration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod lanes;
#[cfg(test)]
mod tests;

pub use lanes::{LaneStats, SojournHistogram};

/// How a probabilistic decision is taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Likelihood {
    /// RFC 9332 App. A's `recur()`: a per-queue count, positive when it exceeds 1.
    #[default]
    Recur,
    /// A uniform draw from the queue's stream, `u < p` (Linux's `dualpi2_roll`).
    Random,
}

/// Which queueing delay drives the PI2 controller.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Curq {
    /// The C queue head's sojourn time (RFC 9332 App. A.1 Fig. 6 line 2).
    #[default]
    Classic,
    /// The larger of the two heads' sojourn times (Linux's `calculate_probability`).
    Max,
}

/// DualPI2's options (`dualpi2 = { target = "15ms", step_threshold = "1ms" }`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DualPi2Spec {
    /// The PI2 delay target (default 15 ms; RFC 9332 App. A Fig. 2, Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Duration>,
    /// Interval between updates of p' (default 16 ms, Linux's `pi2_tupdate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tupdate: Option<Duration>,
    /// Integral gain in Hz (default 0.16, Linux's 41/256), 0 < alpha <= 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// Proportional gain in Hz (default 3.2, Linux's 819/256), 0 < beta <= 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    /// The coupling factor k (default 2; RFC 9332 Sec. 2.1 and App. A), 1 <= k <= 255.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupling: Option<f64>,
    /// The L queue's step: mark an L packet whose sojourn time is above this (default 1 ms;
    /// RFC 9332 Sec. 2.5.1.1, Linux's `step_thresh`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_threshold: Option<Duration>,
    /// The step in packets instead: mark while more than this many L packets remain queued
    /// after the dequeue (Linux's `step_thresh` in packets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_packets: Option<u64>,
    /// The C queue's share of the scheduler in percent, wc (default 10, Linux's
    /// `classic_protection`), 0 ..= 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classic_protection: Option<u64>,
    /// Drop on overload (default true, RFC 9332 Sec. 4.2.3 and Linux's `drop_on_overload`);
    /// false caps p' at 1/k so ECN packets are only dropped by the buffer (Linux `overflow`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_on_overload: Option<bool>,
    /// "recur" (default, RFC 9332 App. A) or "random" (Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marking: Option<Likelihood>,
    /// "classic" (default, App. A.1) or "max" (Linux): the delay the controller sees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curq: Option<Curq>,
}

/// The L queue's native AQM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepThreshold {
    Time(SimTime),
    Packets(u64),
}

/// DualPI2's parameters, resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DualPi2Params {
    pub target: SimTime,
    pub tupdate: SimTime,
    pub alpha: f64,
    pub beta: f64,
    pub k: f64,
    pub step: StepThreshold,
    pub wc: u64,
    pub drop_on_overload: bool,
    pub marking: Likelihood,
    pub curq: Curq,
}

impl DualPi2Params {
    /// The MTU of the scheduler's credit (bytes).
    pub const MTU: i64 = 1500;

    pub const DEFAULT: DualPi2Params = DualPi2Params {
        target: SimTime::from_ms(15),
        tupdate: SimTime::from_ms(16),
        alpha: 0.16,
        beta: 3.2,
        k: 2.0,
        step: StepThreshold::Time(SimTime::from_ms(1)),
        wc: 10,
        drop_on_overload: true,
        marking: Likelihood::Recur,
        curq: Curq::Classic,
    };

    pub fn resolve(s: &DualPi2Spec) -> Self {
        let d = Self::DEFAULT;
        DualPi2Params {
            target: s.target.map_or(d.target, |v| v.0),
            tupdate: s.tupdate.map_or(d.tupdate, |v| v.0),
            alpha: s.alpha.unwrap_or(d.alpha),
            beta: s.beta.unwrap_or(d.beta),
            k: s.coupling.unwrap_or(d.k),
            step: match (s.step_packets, s.step_threshold) {
                (Some(n), _) => StepThreshold::Packets(n),
                (None, Some(t)) => StepThreshold::Time(t.0),
                (None, None) => d.step,
            },
            wc: s.classic_protection.unwrap_or(d.wc),
            drop_on_overload: s.drop_on_overload.unwrap_or(d.drop_on_overload),
            marking: s.marking.unwrap_or(d.marking),
            curq: s.curq.unwrap_or(d.curq),
        }
    }

    /// p_Cmax = min(1/k^2, 1) (App. A Fig. 2).
    pub fn p_cmax(&self) -> f64 {
        (1.0 / (self.k * self.k)).min(1.0)
    }

    /// The scheduler's initial credit, MTU (wc - wl) (Linux `dualpi2_calculate_c_protection`).
    fn credit_init(&self) -> i64 {
        Self::MTU * (self.wc as i64 - (100 - self.wc as i64))
    }
}

/// Seconds, correctly rounded.
fn secs(t: SimTime) -> f64 {
    t.ns() as f64 / 1e9
}

/// The PI2 controller (App. A.1 Fig. 6).
#[derive(Clone, Debug, PartialEq)]
pub struct Pi2 {
    /// The base probability p'.
    pub p: f64,
    /// p_CL = k p'.
    pub p_cl: f64,
    /// p_C = p'^2.
    pub p_c: f64,
    /// The previous update's queue delay.
    pub prevq: SimTime,
    /// When the next update is due.
    pub next_update: SimTime,
}

impl Pi2 {
    pub fn new(p: &DualPi2Params) -> Self {
        Pi2 {
            p: 0.0,
            p_cl: 0.0,
            p_c: 0.0,
            prevq: SimTime::ZERO,
            next_update: p.tupdate,
        }
    }

    /// One update with the queue delay `curq` (App. A.1 Fig. 6, lines 2-6).
    pub fn update(&mut self, prm: &DualPi2Params, curq: SimTime) {
        let (q, prev, target) = (secs(curq), secs(self.prevq), secs(prm.target));
        self.p += prm.alpha * (q - target) + prm.beta * (q - prev);
        let max = if prm.drop_on_overload { 1.0 } else { 1.0 / prm.k };
        self.p = self.p.clamp(0.0, max);
        self.p_cl = prm.k * self.p;
        self.p_c = self.p * self.p;
        self.prevq = curq;
    }
}

/// One queue (L or C) and its likelihood count (`recur`'s `q.count`).
#[derive(Clone, Debug, Default)]
struct Lane {
    fifo: Fifo,
    count: f64,
}

impl Lane {
    /// The head's sojourn time at `t` (0 when empty).
    fn time(&self, t: SimTime) -> SimTime {
        self.fifo
            .front()
            .map_or(SimTime::ZERO, |h| t.saturating_sub(h.enqueued))
    }
}

/// The coupled dual queue.
#[derive(Clone, Debug)]
pub struct DualPi2 {
    l: Lane,
    c: Lane,
    limit: Limit,
    params: DualPi2Params,
    pi2: Pi2,
    credit: i64,
    rng: Stream,
    /// The L and the C queue's counters, since the measurement window opened.
    stats: [LaneStats; 2],
}

/// Is `ecn` classified to the L queue (ECT(1) or CE: the ECN field's low bit)?
pub fn is_l4s(ecn: Ecn) -> bool {
    ecn.bits() & 1 == 1
}

impl DualPi2 {
    pub fn new(limit: Limit, params: DualPi2Params, rng: Stream) -> Self {
        DualPi2 {
            l: Lane::default(),
            c: Lane::default(),
            limit,
            pi2: Pi2::new(&params),
            credit: params.credit_init(),
            params,
            rng,
            stats: Default::default(),
        }
    }

    /// The L and the C queue's counters (`[L, C]`).
    pub fn lane_stats(&self) -> &[LaneStats; 2] {
        &self.stats
    }

    /// Opens the measurement window: the counters start again from zero.
    pub fn reset_lane_stats(&mut self) {
        self.stats = Default::default();
    }

    /// The controller's state.
    pub fn pi2(&self) -> &Pi2 {
        &self.pi2
    }

    /// Packets waiting in the L and C queues.
    pub fn lens(&self) -> (usize, usize) {
        (self.l.fifo.len(), self.c.fifo.len())
    }

    /// Runs the updates due at or before `now` (the queues unchanged since the last call).
    fn catch_up(&mut self, now: SimTime) {
        let prm = &self.params;
        while self.pi2.next_update <= now {
            let t = self.pi2.next_update;
            let empty = self.l.fifo.is_empty() && self.c.fifo.is_empty();
            if empty && self.pi2.p == 0.0 && self.pi2.prevq == SimTime::ZERO {
                // At rest: every update until `now` leaves p' = 0 and prevq = 0.
                let n = (now.ns() - t.ns()) / prm.tupdate.ns() + 1;
                self.pi2.p_cl = 0.0;
                self.pi2.p_c = 0.0;
                self.pi2.next_update = SimTime(t.ns() + n * prm.tupdate.ns());
                break;
            }
            let curq = match prm.curq {
                Curq::Classic => self.c.time(t),
                Curq::Max => self.c.time(t).max(self.l.time(t)),
            };
            self.pi2.update(prm, curq);
            self.pi2.next_update = SimTime(t.ns() + prm.tupdate.ns());
        }
    }

    /// A decision of likelihood `p` for the queue `lane` (App. A's `recur`, or a draw).
    fn decide(marking: Likelihood, lane: &mut Lane, rng: &mut Stream, p: f64) -> bool {
        match marking {
            Likelihood::Recur => {
                lane.count += p;
                if lane.count > 1.0 {
                    lane.count -= 1.0;
                    true
                } else {
                    false
                }
            }
            Likelihood::Random => rng.uniform() < p,
        }
    }

    /// The L queue's native step (`do_step_aqm`): is `pkt`, leaving at `now`, above it?
    fn above_step(&self, now: SimTime, pkt: &Packet) -> bool {
        match self.params.step {
            StepThreshold::Time(th) => now.saturating_sub(pkt.enqueued) > th,
            StepThreshold::Packets(n) => self.l.fifo.len() as u64 > n,
        }
    }
}

/// The outcome of the AQM for one dequeued packet.
enum Verdict {
    Send,
    Mark(MarkCause),
    Drop,
}

impl QueueDiscipline for DualPi2 {
    type Spec = DualPi2Spec;

    /// Linux's `dualpi2_reset_default`: 10000 packets.
    const DEFAULT_LIMIT: Limit = Limit::Packets(10000);

    fn validate(spec: &DualPi2Spec, _limit: Limit, at: &str) -> Result<(), Error> {
        let t = format!("{at}.dualpi2");
        let p = DualPi2Params::resolve(spec);
        check_pi(&t, p.target, p.tupdate, p.alpha, p.beta, 100.0)?;
        check(
            (1.0..=255.0).contains(&p.k),
            &t,
            "coupling",
            format!("{} is outside [1, 255] (expected 1 <= coupling <= 255)", p.k),
        )?;
        check(
            !(spec.step_packets.is_some() && spec.step_threshold.is_some()),
            &t,
            "step_packets",
            "is given with step_threshold (expected one of step_threshold, a time, or step_packets)"
                .into(),
        )?;
        check(
            p.wc <= 100,
            &t,
            "classic_protection",
            format!("{} is above 100 (expected 0 <= classic_protection <= 100, in %)", p.wc),
        )
    }

    fn build(spec: &DualPi2Spec, limit: Limit, link: &LinkContext<'_>) -> Self {
        DualPi2::new(limit, DualPi2Params::resolve(spec), link.stream())
    }

    /// App. A Fig. 3: a shared buffer, then the classifier by the ECN field.
    fn enqueue(
        &mut self,
        now: SimTime,
        pkt: Packet,
        _drops: &mut Drops,
        _marks: &mut Marks,
    ) -> Result<(), DropCause> {
        self.catch_up(now);
        let fits = match self.limit {
            Limit::Packets(n) => ((self.l.fifo.len() + self.c.fifo.len()) as u64) < n,
            Limit::Bytes(b) => self.l.fifo.bytes() + self.c.fifo.bytes() + pkt.size as u64 <= b,
        };
        if !fits {
            self.stats[usize::from(!is_l4s(pkt.ecn))].drops += 1;
            return Err(DropCause::Overflow);
        }
        if is_l4s(pkt.ecn) {
            self.l.fifo.push(pkt);
        } else {
            self.c.fifo.push(pkt);
        }
        Ok(())
    }

    /// App. A Fig. 4 with Linux's scheduler: the next packet that survives the AQM.
    fn dequeue(&mut self, now: SimTime, drops: &mut Drops, marks: &mut Marks) -> Option<Packet> {
        self.catch_up(now);
        let prm = self.params;
        loop {
            let (l_waits, c_waits) = (!self.l.fifo.is_empty(), !self.c.fifo.is_empty());
            let from_l = l_waits && (!c_waits || self.credit <= 0);
            let (mut pkt, change) = if from_l {
                let p = self.l.fifo.pop()?;
                (p, if c_waits { prm.wc as i64 } else { 0 })
            } else if c_waits {
                let p = self.c.fifo.pop()?;
                (p, if l_waits { -(100 - prm.wc as i64) } else { 0 })
            } else {
                self.credit = prm.credit_init();
                return None;
            };
            let (p_c, p_cl) = (self.pi2.p_c, self.pi2.p_cl);
            let verdict = if from_l {
                if !prm.drop_on_overload || p_cl < 1.0 {
                    if self.above_step(now, &pkt) {
                        Verdict::Mark(MarkCause::Threshold)
                    } else if Self::decide(prm.marking, &mut self.l, &mut self.rng, p_cl) {
                        Verdict::Mark(MarkCause::Sojourn)
                    } else {
                        Verdict::Send
                    }
                } else if Self::decide(prm.marking, &mut self.l, &mut self.rng, p_c) {
                    Verdict::Drop
                } else if Self::decide(prm.marking, &mut self.l, &mut self.rng, p_cl) {
                    Verdict::Mark(MarkCause::Sojourn)
                } else {
                    Verdict::Send
                }
            } else if Self::decide(prm.marking, &mut self.c, &mut self.rng, p_c) {
                let overload = prm.drop_on_overload && p_c >= prm.p_cmax();
                if !pkt.ecn.is_capable() || overload {
                    Verdict::Drop
                } else {
                    Verdict::Mark(MarkCause::Sojourn)
                }
            } else {
                Verdict::Send
            };
            let lane = &mut self.stats[usize::from(!from_l)];
            match verdict {
                Verdict::Drop => {
                    lane.drops += 1;
                    drops.push((pkt, DropCause::Sojourn));
                    continue;
                }
                Verdict::Mark(cause) => {
                    // Every L packet is ECN-capable; a C packet is marked only if it is.
                    if set_ce(&mut pkt) {
                        lane.marks += 1;
                        marks.push((pkt, cause));
                    }
                }
                Verdict::Send => {}
            }
            lane.sent(now, pkt.enqueued);
            self.credit += change * pkt.size as i64;
            return Some(pkt);
        }
    }

    fn len(&self) -> usize {
        self.l.fifo.len() + self.c.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.l.fifo.bytes() + self.c.fifo.bytes()
    }
}
