//! PIE, Proportional Integral controller Enhanced (Pan, Natarajan, Baker & White, RFC 8033):
//! a FIFO whose arrivals are dropped at random with a probability `drop_prob` that a PI
//! controller updates every `tupdate` (Sec. 4.2) from the queueing delay, so the delay is held
//! near `target` (QDELAY_REF, default 15 ms):
//!
//! ```text
//! p = alpha (qdelay - target) + beta (qdelay - qdelay_old)      (alpha, beta in Hz, delays in s)
//! p /= 2048, 512, 128, 32, 8, 2 while drop_prob < 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1   (Sec. 4.2)
//! p = min(p, 0.02) if drop_prob >= 0.1                        (cap drop adjustment, Sec. 5.5)
//! drop_prob += p;  drop_prob *= 0.98 if qdelay == 0 and qdelay_old == 0;  bound to [0, 1]
//! ```
//!
//! An arrival is never dropped early while the burst allowance lasts (Sec. 4.4: MAX_BURST,
//! default 150 ms, decremented by `tupdate` as the last step of each update, and restored at
//! an arrival, before its early-drop test, once the congestion is gone: drop_prob = 0 and both
//! the current delay sample and the last update's below target / 2; App. A's `enque` and
//! `calculate_drop_prob`; Linux restores it in the update instead), nor while the queue is
//! uncongested (Sec. 4.1: qdelay_old < target / 2 and drop_prob < 0.2, or at most
//! 2 MEAN_PKTSIZE bytes waiting). Otherwise it is dropped with probability drop_prob; with
//! `derandomize` (Sec. 5.4) an accumulated probability `accu_prob` gates the draw: no drop
//! while it is below 0.85, a certain drop at 8.5, reset by every drop.
//!
//! The queueing delay is measured with timestamps by default (Sec. 4.3: the sojourn time of
//! the last packet dequeued; 0 when the queue is empty, as Linux's `pie_process_dequeue` sets
//! it when a dequeue leaves the queue empty; App. A leaves the empty case open), as Linux's
//! `sch_pie` does since `dq_rate_estimator` became an option (off by default); `dq_rate_estimator = true`
//! estimates it from the dequeue rate instead (Sec. 4.3 and 5.2; Appendix B's `deque`):
//! the time to dequeue DQ_THRESHOLD bytes (default 2^14), averaged with weight
//! DQ_THRESHOLD / 2^16, and qdelay = bytes waiting x that time / DQ_THRESHOLD.
//!
//! ECN (Sec. 5.1): with `ecn`, an ECN-capable arrival that would be dropped early is marked CE
//! and admitted while drop_prob <= `mark_ecnth` (default 0.1), and dropped above it (as Linux's
//! `pie_qdisc_enqueue`: `prob <= MAX_PROB / 10`; App. B's `enque` marks while it is strictly
//! below, which differs only at exactly `mark_ecnth`). A mark does not reset `accu_prob`, as
//! in Linux (App. B resets it after a mark too). The burst allowance is tested before
//! `drop_early`, as in App. A and Linux (App. B's `enque` runs `drop_early`, and so
//! accumulates `accu_prob`, while the allowance lasts).
//!
//! The controller runs at multiples of `tupdate` from time 0. The discipline has no timer of
//! its own: before each enqueue and dequeue at `now` it runs every update due at or before
//! `now`, in order; the queue has not changed since the last operation, so each sees what a
//! timer would have seen (an update due at the same nanosecond as a packet runs first). Not
//! modelled: PIE's active/inactive states (Sec. 5.3: PIE is always active here), Linux's byte
//! mode and its extra 2% step above 250 ms of delay.

use super::invalid;
use super::{set_ce, DropCause, Drops, Fifo, Limit, LinkContext, MarkCause, Marks, QueueDiscipline};
use crate::error::Error;
use crate::net::packet::Packet;
use crate::rng::Stream;
use crate::time::{Duration, SimTime, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[cfg(test)]
mod tests;

/// PIE's options in a scenario (`pie = { target = "15ms", ecn = true }`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PieSpec {
    /// The queueing delay PIE holds the queue to, QDELAY_REF (default 15 ms; RFC 8033 Sec. 4.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Duration>,
    /// Interval between drop-probability updates, T_UPDATE (default 15 ms; RFC 8033 Sec. 4.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tupdate: Option<Duration>,
    /// Integral gain in Hz (default 0.125; RFC 8033 Sec. 4.2), 0 < alpha <= 32.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// Proportional gain in Hz (default 1.25; RFC 8033 Sec. 4.2), 0 < beta <= 32.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    /// Burst allowance, MAX_BURST (default 150 ms; RFC 8033 Sec. 4.4); 0 turns it off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_burst: Option<Duration>,
    /// Mark ECN-capable arrivals CE instead of dropping them while the drop probability is at
    /// most `mark_ecnth` (default off, as Linux's `pie`; RFC 8033 Sec. 5.1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ecn: bool,
    /// Above this drop probability ECN-capable arrivals are dropped too (default 0.1; RFC 8033
    /// Sec. 5.1), 0 <= mark_ecnth <= 1; only with `ecn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_ecnth: Option<f64>,
    /// De-randomize the drops with the accumulated probability (default true, as Linux's
    /// `pie_drop_early` and FreeBSD's `pie` do; RFC 8033 Sec. 5.4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derandomize: Option<bool>,
    /// Cap each increase of the drop probability at 2% once it is at least 10% (default true,
    /// as Linux and FreeBSD; RFC 8033 Sec. 5.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap_drop: Option<bool>,
    /// Estimate the queueing delay from the dequeue rate (RFC 8033 Secs. 4.3, 5.2) instead of
    /// timestamps (default false, as Linux's `dq_rate_estimator`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dq_rate_estimator: bool,
    /// DQ_THRESHOLD, the bytes per dequeue-rate measurement (default 16384; RFC 8033 Sec. 5.2),
    /// 1 ..= 65536; only with `dq_rate_estimator`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dq_threshold: Option<Size>,
    /// MEAN_PKTSIZE: no early drop while at most twice this many bytes wait (default 1500;
    /// RFC 8033 Sec. 4.1), above 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_packet: Option<Size>,
}

/// PIE's parameters, resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieParams {
    pub target: SimTime,
    pub tupdate: SimTime,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: SimTime,
    pub ecn: bool,
    pub mark_ecnth: f64,
    pub derandomize: bool,
    pub cap_drop: bool,
    pub dq_rate_estimator: bool,
    pub dq_threshold: u64,
    pub mean_packet: u64,
}

impl PieParams {
    pub const DEFAULT: PieParams = PieParams {
        target: SimTime::from_ms(15),
        tupdate: SimTime::from_ms(15),
        alpha: 0.125,
        beta: 1.25,
        max_burst: SimTime::from_ms(150),
        ecn: false,
        mark_ecnth: 0.1,
        derandomize: true,
        cap_drop: true,
        dq_rate_estimator: false,
        dq_threshold: 1 << 14,
        mean_packet: 1500,
    };

    pub fn resolve(s: &PieSpec) -> PieParams {
        let d = Self::DEFAULT;
        PieParams {
            target: s.target.map_or(d.target, |v| v.0),
            tupdate: s.tupdate.map_or(d.tupdate, |v| v.0),
            alpha: s.alpha.unwrap_or(d.alpha),
            beta: s.beta.unwrap_or(d.beta),
            max_burst: s.max_burst.map_or(d.max_burst, |v| v.0),
            ecn: s.ecn,
            mark_ecnth: s.mark_ecnth.unwrap_or(d.mark_ecnth),
            derandomize: s.derandomize.unwrap_or(d.derandomize),
            cap_drop: s.cap_drop.unwrap_or(d.cap_drop),
            dq_rate_estimator: s.dq_rate_estimator,
            dq_threshold: s.dq_threshold.map_or(d.dq_threshold, |v| v.0),
            mean_packet: s.mean_packet.map_or(d.mean_packet, |v| v.0),
        }
    }
}

/// RFC 8033 Sec. 4.2's auto-tuning: the divisor of the adjustment at drop probability `p`.
pub fn tuning_divisor(p: f64) -> f64 {
    if p < 0.000001 {
        2048.0
    } else if p < 0.00001 {
        512.0
    } else if p < 0.0001 {
        128.0
    } else if p < 0.001 {
        32.0
    } else if p < 0.01 {
        8.0
    } else if p < 0.1 {
        2.0
    } else {
        1.0
    }
}

/// Seconds, correctly rounded (so 20 ms is the double nearest 0.02, as written in the tests).
fn secs(t: SimTime) -> f64 {
    t.ns() as f64 / 1e9
}

/// PIE's state (RFC 8033 Appendix B's variables ending in `_`).
#[derive(Clone, Debug, PartialEq)]
pub struct PieVars {
    pub drop_prob: f64,
    /// The delay sample of the previous update.
    pub qdelay_old: SimTime,
    /// The latest delay sample: the last dequeued packet's sojourn time (timestamps), or the
    /// estimate of the last update (dequeue rate).
    pub current_qdelay: SimTime,
    pub burst_allowance: SimTime,
    pub accu_prob: f64,
    /// When the next update is due.
    pub next_update: SimTime,
    /// Dequeue-rate measurement (Appendix B): under way, its bytes and start, and the
    /// average time (ns) to dequeue DQ_THRESHOLD bytes (0: no estimate yet).
    pub in_measurement: bool,
    pub dq_count: u64,
    pub measurement_start: SimTime,
    pub avg_dq_time: f64,
}

impl PieVars {
    pub fn new(p: &PieParams) -> Self {
        PieVars {
            drop_prob: 0.0,
            qdelay_old: SimTime::ZERO,
            current_qdelay: SimTime::ZERO,
            burst_allowance: p.max_burst,
            accu_prob: 0.0,
            next_update: p.tupdate,
            in_measurement: false,
            dq_count: 0,
            measurement_start: SimTime::ZERO,
            avg_dq_time: 0.0,
        }
    }

    /// One update of the drop probability (RFC 8033 Sec. 4.2, the burst allowance of Sec. 4.4)
    /// with `bytes` waiting.
    pub fn update(&mut self, p: &PieParams, bytes: u64) {
        let qdelay = if p.dq_rate_estimator {
            // Sec. 4.3: current_qdelay = queue_.byte_length() / dequeue rate.
            let ns = bytes as f64 * self.avg_dq_time / p.dq_threshold as f64;
            SimTime(ns.round() as u64)
        } else if bytes == 0 {
            SimTime::ZERO
        } else {
            self.current_qdelay
        };
        self.current_qdelay = qdelay;
        let (qd, old, target) = (secs(qdelay), secs(self.qdelay_old), secs(p.target));
        let mut adj = p.alpha * (qd - target) + p.beta * (qd - old);
        adj /= tuning_divisor(self.drop_prob);
        if p.cap_drop && self.drop_prob >= 0.1 && adj > 0.02 {
            adj = 0.02;
        }
        self.drop_prob += adj;
        if qdelay == SimTime::ZERO && self.qdelay_old == SimTime::ZERO {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.qdelay_old = qdelay;
        // Sec. 4.4, App. A's `calculate_drop_prob`: the allowance runs down by T_UPDATE, last.
        self.burst_allowance = self.burst_allowance.saturating_sub(p.tupdate);
    }

    /// App. A's `enque`, first step (Sec. 4.4): the allowance is restored to MAX_BURST at an
    /// arrival once congestion is gone: no drop probability, and both the current delay
    /// sample and the last update's below target / 2. `bytes` are waiting; the current
    /// sample of an empty queue is 0, as at the update.
    pub fn restore_burst(&mut self, p: &PieParams, bytes: u64) {
        let half = SimTime(p.target.ns() / 2);
        let current = if bytes == 0 && !p.dq_rate_estimator {
            SimTime::ZERO
        } else {
            self.current_qdelay
        };
        if self.drop_prob == 0.0 && current < half && self.qdelay_old < half {
            self.burst_allowance = p.max_burst;
        }
    }

    /// Runs the updates due at or before `now` with `bytes` waiting (unchanged since the last
    /// operation). An empty queue at rest (no probability, no delay) stays at rest, and each
    /// update only runs the allowance down, so those updates are done at once.
    #[inline]
    pub fn catch_up(&mut self, now: SimTime, p: &PieParams, bytes: u64) {
        while self.next_update <= now {
            if bytes == 0 && self.at_rest(p) {
                let n = (now.ns() - self.next_update.ns()) / p.tupdate.ns() + 1;
                self.next_update = SimTime(self.next_update.ns() + n * p.tupdate.ns());
                let spent = SimTime(p.tupdate.ns().saturating_mul(n));
                self.burst_allowance = self.burst_allowance.saturating_sub(spent);
                self.current_qdelay = SimTime::ZERO;
                break;
            }
            self.update(p, bytes);
            self.next_update = SimTime(self.next_update.ns() + p.tupdate.ns());
        }
    }

    fn at_rest(&self, p: &PieParams) -> bool {
        self.drop_prob == 0.0
            && self.qdelay_old == SimTime::ZERO
            && (p.dq_rate_estimator || self.current_qdelay == SimTime::ZERO)
    }

    /// Appendix B's `drop_early`: should an arrival finding `bytes` waiting be dropped (or
    /// marked)? Draws from `rng` only past the uncongested and de-randomization gates.
    pub fn drop_early(&mut self, p: &PieParams, bytes: u64, rng: &mut Stream) -> bool {
        let half = SimTime(p.target.ns() / 2);
        if (self.qdelay_old < half && self.drop_prob < 0.2) || bytes <= 2 * p.mean_packet {
            return false;
        }
        if self.drop_prob == 0.0 {
            self.accu_prob = 0.0;
        }
        if p.derandomize {
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        if rng.uniform() < self.drop_prob {
            self.accu_prob = 0.0;
            return true;
        }
        false
    }

    /// Appendix B's `deque`: the delay sample of a packet leaving at `now` with `bytes` left.
    pub fn on_dequeue(&mut self, now: SimTime, p: &PieParams, pkt: &Packet, bytes: u64) {
        if !p.dq_rate_estimator {
            self.current_qdelay = now.saturating_sub(pkt.enqueued);
            return;
        }
        if self.in_measurement {
            self.dq_count += pkt.size as u64;
            if self.dq_count >= p.dq_threshold {
                let dq_time = now.saturating_sub(self.measurement_start).ns() as f64;
                if self.avg_dq_time == 0.0 {
                    self.avg_dq_time = dq_time;
                } else {
                    let w = p.dq_threshold as f64 / 65536.0;
                    self.avg_dq_time = dq_time * w + self.avg_dq_time * (1.0 - w);
                }
                self.in_measurement = false;
            }
        }
        if bytes >= p.dq_threshold && !self.in_measurement {
            self.in_measurement = true;
            self.measurement_start = now;
            self.dq_count = 0;
        }
    }
}

/// PIE on one FIFO buffer.
#[derive(Clone, Debug)]
pub struct Pie {
    fifo: Fifo,
    limit: Limit,
    params: PieParams,
    vars: PieVars,
    rng: Stream,
}

impl Pie {
    pub fn new(limit: Limit, params: PieParams, rng: Stream) -> Self {
        Pie {
            fifo: Fifo::default(),
            limit,
            vars: PieVars::new(&params),
            params,
            rng,
        }
    }

    /// The controller's state (for tests and instruments).
    pub fn vars(&self) -> &PieVars {
        &self.vars
    }
}

/// `Err` naming `{table}.{field}` unless `ok`.
pub(super) fn check(ok: bool, table: &str, field: &str, message: String) -> Result<(), Error> {
    if ok {
        Ok(())
    } else {
        Err(invalid(format!("{table}.{field}"), message))
    }
}

/// The checks of a PI controller's parameters, PIE's and DualPI2's alike: a delay target and an
/// update interval above zero, and the gains `alpha` and `beta` in (0, `max_gain`] Hz.
pub(super) fn check_pi(
    table: &str,
    target: SimTime,
    tupdate: SimTime,
    alpha: f64,
    beta: f64,
    max_gain: f64,
) -> Result<(), Error> {
    check(
        target > SimTime::ZERO,
        table,
        "target",
        format!("{target} is not a delay target (expected target > 0)"),
    )?;
    check(
        tupdate > SimTime::ZERO,
        table,
        "tupdate",
        format!("{tupdate} is not an update interval (expected tupdate > 0)"),
    )?;
    for (name, v) in [("alpha", alpha), ("beta", beta)] {
        check(
            v > 0.0 && v <= max_gain,
            table,
            name,
            format!("{v} is outside (0, {max_gain}] (expected 0 < {name} <= {max_gain}, in Hz)"),
        )?;
    }
    Ok(())
}

impl QueueDiscipline for Pie {
    type Spec = PieSpec;

    /// Linux's `pie_params_init`: limit 1000 packets.
    const DEFAULT_LIMIT: Limit = Limit::Packets(1000);

    fn validate(spec: &PieSpec, _limit: Limit, at: &str) -> Result<(), Error> {
        let t = format!("{at}.pie");
        let p = PieParams::resolve(spec);
        check_pi(&t, p.target, p.tupdate, p.alpha, p.beta, 32.0)?;
        check(
            spec.mark_ecnth.is_none() || spec.ecn,
            &t,
            "mark_ecnth",
            "is given without ecn (expected ecn = true with mark_ecnth)".into(),
        )?;
        check(
            (0.0..=1.0).contains(&p.mark_ecnth),
            &t,
            "mark_ecnth",
            format!("{} is outside [0, 1] (expected 0 <= mark_ecnth <= 1)", p.mark_ecnth),
        )?;
        check(
            spec.dq_threshold.is_none() || spec.dq_rate_estimator,
            &t,
            "dq_threshold",
            "is given without dq_rate_estimator (expected dq_rate_estimator = true)".into(),
        )?;
        check(
            (1..=65536).contains(&p.dq_threshold),
            &t,
            "dq_threshold",
            format!(
                "{} bytes is outside 1 ..= 65536 (expected 1 <= dq_threshold <= 65536)",
                p.dq_threshold
            ),
        )?;
        check(
            p.mean_packet > 0,
            &t,
            "mean_packet",
            "0 bytes is not a packet size (expected mean_packet > 0)".into(),
        )
    }

    fn build(spec: &PieSpec, limit: Limit, link: &LinkContext<'_>) -> Self {
        Pie::new(limit, PieParams::resolve(spec), link.stream())
    }

    /// RFC 8033 Appendix B's `enque`: tail drop when full; otherwise, once the burst allowance
    /// is spent, the early drop (or, with ECN, the mark) by `drop_early`.
    fn enqueue(
        &mut self,
        now: SimTime,
        mut pkt: Packet,
        _drops: &mut Drops,
        marks: &mut Marks,
    ) -> Result<(), DropCause> {
        let p = &self.params;
        self.vars.catch_up(now, p, self.fifo.bytes());
        self.vars.restore_burst(p, self.fifo.bytes());
        if !self.fifo.fits(self.limit, &pkt) {
            self.vars.accu_prob = 0.0;
            return Err(DropCause::Overflow);
        }
        if self.vars.burst_allowance == SimTime::ZERO
            && self.vars.drop_early(p, self.fifo.bytes(), &mut self.rng)
        {
            if p.ecn && self.vars.drop_prob <= p.mark_ecnth && set_ce(&mut pkt) {
                marks.push((pkt, MarkCause::Early));
            } else {
                self.vars.accu_prob = 0.0;
                return Err(DropCause::Early);
            }
        }
        self.fifo.push(pkt);
        Ok(())
    }

    fn dequeue(&mut self, now: SimTime, _drops: &mut Drops, _marks: &mut Marks) -> Option<Packet> {
        self.vars.catch_up(now, &self.params, self.fifo.bytes());
        let pkt = self.fifo.pop()?;
        self.vars
            .on_dequeue(now, &self.params, &pkt, self.fifo.bytes());
        Some(pkt)
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }
}
