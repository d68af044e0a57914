//! CoDel, Controlled Delay (Nichols, Jacobson, McGregor & Iyengar, RFC 8289): an active queue
//! that looks at how long packets wait, not how many wait. Each packet carries the time it was
//! enqueued (Sec. 5.4); at dequeue its sojourn time is measured (Sec. 3.1). When the sojourn
//! time has stayed at or above `target` (Sec. 4.3, default 5 ms) for at least `interval`
//! (Sec. 4.2, default 100 ms), CoDel enters the dropping state: it drops the head packet and
//! schedules the next drop by the control law (Sec. 3.3), `drop_next = t + interval /
//! sqrt(count)`, dropping faster while the delay stays above target and leaving the dropping
//! state as soon as a packet's sojourn time falls below it. A queue holding at most
//! `maxpacket` bytes (one MTU) is never dropped from, so a slow link is not starved
//! (Sec. 4.1).
//!
//! The code follows the pseudocode of Sec. 5 (`dequeue`, `dodequeue`, `control_law`),
//! including the Linux re-entry rule of Sec. 5.5: a queue that goes back into the dropping
//! state within 16 intervals of the last scheduled drop starts from `count - lastcount`
//! drops instead of 1. The control law uses the exact square root (IEEE-754 correctly
//! rounded, so the same on every machine) rather than Linux's Newton approximation. The queue
//! is bounded by `limit` (packets or bytes); an arrival that does not fit is dropped
//! (overflow, Sec. 5.4).
//!
//! ECN (`ecn = true`; RFC 8289 lets CoDel mark ECN-capable packets instead of dropping them): where the control
//! law drops, an ECN-capable head is marked CE and sent instead, as Linux's `codel_dequeue`
//! (include/net/codel_impl.h) does: on entering the dropping state the head is marked and the
//! state entered as for a drop; in the dropping state `count` grows, the head is marked and
//! `drop_next` advances from its previous value by the control law, and the dequeue ends there
//! (one mark per dequeue, where several drops may be due). A Not-ECT head is dropped as
//! before. (ns-3's `CoDelQueueDisc` advances `drop_next` from `now` after a mark.)
//! `ce_threshold` (Linux's `codel_params.ce_threshold`, ns-3's `CeThreshold`): independently
//! of `ecn`, the packet returned is marked CE (cause `threshold`) if its sojourn time is
//! above the threshold (strictly, Linux's `codel_time_after`) and it was not marked by the
//! control law in this dequeue (ns-3 suppresses that second mark too; Linux counts both).

use super::{set_ce, DropCause, Drops, Fifo, Limit, LinkContext, MarkCause, Marks, QueueDiscipline};
use crate::error::Error;
use crate::net::packet::Packet;
use super::invalid;
use crate::time::{Duration, SimTime, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// CoDel's options in a scenario (`codel = { target = "5ms", interval = "100ms" }`).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodelSpec {
    /// Acceptable standing queue delay, TARGET (default 5 ms; RFC 8289 Sec. 4.3).
    #[serde(default)]
    pub target: Option<Duration>,
    /// Window over which the sojourn time must stay above target, INTERVAL (default 100 ms;
    /// RFC 8289 Sec. 4.2). Must be above target.
    #[serde(default)]
    pub interval: Option<Duration>,
    /// No drop while at most this many bytes remain queued (default 1514, an Ethernet MTU
    /// with its header; RFC 8289 Secs. 4.1 and 5.3).
    #[serde(default)]
    pub maxpacket: Option<Size>,
    /// Mark ECN-capable packets CE where the control law would drop them (default off, as
    /// Linux's `codel` without `ecn`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ecn: bool,
    /// Mark a packet CE when its sojourn time is above this at dequeue (default none; Linux's
    /// `ce_threshold`, ns-3's `CeThreshold`), whether or not `ecn` is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce_threshold: Option<Duration>,
    /// How 1/sqrt(count) is computed: `exact` (the default, RFC 8289's `control_law`) or
    /// `newton`, Linux's and ns-3's 16-bit value updated by one Newton step per change of
    /// count (`codel_Newton_step`; ns-3's `CoDelQueueDisc::NewtonStep`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_law: Option<ControlLaw>,
}

/// CoDel's `control_law` arithmetic (`codel = { control_law = "newton" }`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ControlLaw {
    /// interval / sqrt(count), correctly rounded.
    #[default]
    Exact,
    /// interval x rec_inv_sqrt / 2^16, rec_inv_sqrt stepped once per change of count.
    Newton,
}

/// CoDel's parameters, resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    pub target: SimTime,
    pub interval: SimTime,
    /// Bytes: no drop while the queue holds at most this much after the dequeue.
    pub maxpacket: u64,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// Mark packets whose sojourn time is above this (None: no threshold marking).
    pub ce_threshold: Option<SimTime>,
    /// Linux's and ns-3's Newton approximation of 1/sqrt(count) in the control law.
    pub newton: bool,
}

impl CodelParams {
    pub const DEFAULT_TARGET: SimTime = SimTime::from_ms(5);
    pub const DEFAULT_INTERVAL: SimTime = SimTime::from_ms(100);
    pub const DEFAULT_MAXPACKET: u64 = 1514;

    /// Parameters from a scenario's options, defaults filled in.
    pub fn resolve(target: Option<Duration>, interval: Option<Duration>, maxpacket: Option<Size>) -> Self {
        CodelParams {
            target: target.map_or(Self::DEFAULT_TARGET, |d| d.0),
            interval: interval.map_or(Self::DEFAULT_INTERVAL, |d| d.0),
            maxpacket: maxpacket.map_or(Self::DEFAULT_MAXPACKET, |s| s.0),
            ecn: false,
            ce_threshold: None,
            newton: false,
        }
    }

    /// With the ECN options of a scenario.
    pub fn with_ecn(self, ecn: bool, ce_threshold: Option<Duration>) -> Self {
        CodelParams {
            ecn,
            ce_threshold: ce_threshold.map(|d| d.0),
            ..self
        }
    }

    /// Checks 0 < target < interval; `table` is the options' field path, `target_given`
    /// says which of the two to name when they are in the wrong order.
    pub fn check(&self, table: &str, target_given: bool) -> Result<(), Error> {
        let (t, i) = (self.target, self.interval);
        if i == SimTime::ZERO {
            return Err(invalid(
                format!("{table}.interval"),
                "0s is not a valid interval (expected > 0, and above target)",
            ));
        }
        if t == SimTime::ZERO {
            return Err(invalid(
                format!("{table}.target"),
                format!("0s is not a valid target (expected 0 < target < interval {i})"),
            ));
        }
        if t >= i {
            return Err(if target_given {
                invalid(
                    format!("{table}.target"),
                    format!("{t} is not below interval {i} (expected 0 < target < interval)"),
                )
            } else {
                invalid(
                    format!("{table}.interval"),
                    format!("{i} is not above target {t} (expected interval > target)"),
                )
            });
        }
        Ok(())
    }
}

/// The control law (RFC 8289 Sec. 3.3, `control_law` in Sec. 5.6): the next drop is
/// `interval / sqrt(count)` after `t`.
pub fn control_law(t: SimTime, interval: SimTime, count: u64) -> SimTime {
    let gap = interval.ns() as f64 / (count.max(1) as f64).sqrt();
    SimTime(t.ns() + gap as u64)
}

/// CoDel's per-queue state (RFC 8289 Sec. 5.2), separate from the buffer so FQ-CoDel can keep
/// one per flow queue.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CodelVars {
    /// When the sojourn time may be declared above target for an interval (`None`: below).
    pub first_above_time: Option<SimTime>,
    /// When the next drop is due while dropping.
    pub drop_next: SimTime,
    /// Drops since entering the dropping state (plus the carried-over count).
    pub count: u64,
    /// `count` when the dropping state was last entered.
    pub lastcount: u64,
    pub dropping: bool,
    /// With `control_law = "newton"`: 1/sqrt(count) in 16-bit fixed point (Linux's
    /// `rec_inv_sqrt`).
    pub rec_inv_sqrt: u16,
}

/// One Newton step toward 1/sqrt(count) from `rec` (16-bit fixed point): rec x (3 - count x
/// rec^2) / 2 in 32-bit arithmetic, as Linux's `codel_Newton_step` and ns-3's `NewtonStep`
/// compute it. From 1 (0xFFFF) at count 2 it gives 0.5, not 0.707.
pub fn newton_step(rec: u16, count: u64) -> u16 {
    let inv = (rec as u64) << 16;
    let inv2 = (inv * inv) >> 32;
    let val = ((3u64 << 32).wrapping_sub(count.wrapping_mul(inv2))) >> 2;
    (((val as u128 * inv as u128) >> 31) as u64 >> 16) as u16
}

impl CodelVars {
    /// The control law from `t` with the current count: exact, or from `rec_inv_sqrt`
    /// (`interval x rec / 2^16`, Linux's `codel_control_law` with `reciprocal_scale`).
    fn control(&self, t: SimTime, p: &CodelParams) -> SimTime {
        if p.newton {
            let gap = (p.interval.ns() as u128 * ((self.rec_inv_sqrt as u128) << 16)) >> 32;
            return SimTime(t.ns() + gap as u64);
        }
        control_law(t, p.interval, self.count)
    }

    /// count + 1, and (Newton) one step of 1/sqrt(count).
    fn count_drop(&mut self, p: &CodelParams) {
        self.count += 1;
        if p.newton {
            self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
        }
    }

    /// RFC 8289 Sec. 5.5, `dequeue`: the next packet of `q` at `now`, after the drops the
    /// control law asks for (each pushed to `drops` as a sojourn drop), or marked instead
    /// (`ecn`, pushed to `marks`), and marked by `ce_threshold` (see the module's description).
    #[inline(never)]
    pub fn dequeue(
        &mut self,
        now: SimTime,
        p: &CodelParams,
        q: &mut Fifo,
        drops: &mut Drops,
        marks: &mut Marks,
    ) -> Option<Packet> {
        let (mut pkt, ok_to_drop) = self.dodequeue(now, p, q);
        let mut marked = false;
        if self.dropping {
            if !ok_to_drop {
                // Sojourn time below target: leave the dropping state.
                self.dropping = false;
            }
            // Time for the next drop(s): a large backlog may make several due at once.
            while self.dropping && now >= self.drop_next {
                self.count_drop(p);
                // Linux's codel_dequeue: mark instead, advance drop_next, and send it.
                if let Some(x) = pkt.as_mut().filter(|_| p.ecn) {
                    if set_ce(x) {
                        marks.push((*x, MarkCause::Sojourn));
                        marked = true;
                        self.drop_next = self.control(self.drop_next, p);
                        break;
                    }
                }
                if let Some(d) = pkt.take() {
                    drops.push((d, DropCause::Sojourn));
                }
                let (next, ok) = self.dodequeue(now, p, q);
                pkt = next;
                if ok {
                    self.drop_next = self.control(self.drop_next, p);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            // Above target for an interval: drop (or mark) and enter the dropping state.
            if let Some(x) = pkt.as_mut().filter(|x| p.ecn && x.ecn.is_capable()) {
                set_ce(x);
                marks.push((*x, MarkCause::Sojourn));
                marked = true;
            } else {
                if let Some(d) = pkt.take() {
                    drops.push((d, DropCause::Sojourn));
                }
                pkt = self.dodequeue(now, p, q).0;
            }
            self.dropping = true;
            // Re-entering soon after the last dropping state: start from the drop rate that
            // controlled the queue then (the Linux rule the RFC's pseudocode gives).
            let delta = self.count.saturating_sub(self.lastcount);
            let recent = now.saturating_sub(self.drop_next).ns() < 16 * p.interval.ns();
            self.count = if delta > 1 && recent { delta } else { 1 };
            if p.newton {
                // Linux: a reused count steps from the old value; a fresh one starts at 1.
                self.rec_inv_sqrt = if self.count > 1 {
                    newton_step(self.rec_inv_sqrt, self.count)
                } else {
                    u16::MAX
                };
            }
            self.drop_next = self.control(now, p);
            self.lastcount = self.count;
        }
        if let (Some(th), Some(x)) = (p.ce_threshold, pkt.as_mut()) {
            if !marked && now.saturating_sub(x.enqueued) > th && set_ce(x) {
                marks.push((*x, MarkCause::Threshold));
            }
        }
        pkt
    }

    /// RFC 8289 Sec. 5.6, `dodequeue`: takes the head packet and says whether it is OK to drop
    /// it (sojourn time at or above target, more than `maxpacket` bytes left, for an interval).
    fn dodequeue(&mut self, now: SimTime, p: &CodelParams, q: &mut Fifo) -> (Option<Packet>, bool) {
        let Some(pkt) = q.pop() else {
            // Empty: the queue cannot be above target.
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now.saturating_sub(pkt.enqueued);
        if sojourn < p.target || q.bytes() <= p.maxpacket {
            // Went below: stay below for at least an interval before dropping again.
            self.first_above_time = None;
            return (Some(pkt), false);
        }
        match self.first_above_time {
            None => {
                // Just went above: OK to drop if still above an interval from now.
                self.first_above_time = Some(now + p.interval);
                (Some(pkt), false)
            }
            Some(t) => (Some(pkt), now >= t),
        }
    }
}

/// CoDel on one FIFO buffer.
#[derive(Clone, Debug)]
pub struct Codel {
    fifo: Fifo,
    limit: Limit,
    params: CodelParams,
    vars: CodelVars,
}

impl Codel {
    pub fn new(limit: Limit, params: CodelParams) -> Self {
        Codel {
            fifo: Fifo::default(),
            limit,
            params,
            vars: CodelVars::default(),
        }
    }

    /// The control state (for tests and instruments).
    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
}

impl QueueDiscipline for Codel {
    type Spec = CodelSpec;

    const DEFAULT_LIMIT: Limit = Limit::Packets(1000);

    fn validate(spec: &CodelSpec, _limit: Limit, at: &str) -> Result<(), Error> {
        CodelParams::resolve(spec.target, spec.interval, spec.maxpacket)
            .check(&format!("{at}.codel"), spec.target.is_some())
    }

    fn build(spec: &CodelSpec, limit: Limit, _link: &LinkContext<'_>) -> Self {
        Codel::new(
            limit,
            CodelParams {
                newton: spec.control_law == Some(ControlLaw::Newton),
                ..CodelParams::resolve(spec.target, spec.interval, spec.maxpacket).with_ecn(spec.ecn, spec.ce_threshold)
            },
        )
    }

    /// RFC 8289 Sec. 5.4: tail drop if the buffer is full; the link has stamped the time.
    fn enqueue(
        &mut self,
        _now: SimTime,
        pkt: Packet,
        _drops: &mut Drops,
        _marks: &mut Marks,
    ) -> Result<(), DropCause> {
        if !self.fifo.fits(self.limit, &pkt) {
            return Err(DropCause::Overflow);
        }
        self.fifo.push(pkt);
        Ok(())
    }

    fn dequeue(&mut self, now: SimTime, drops: &mut Drops, marks: &mut Marks) -> Option<Packet> {
        self.vars
            .dequeue(now, &self.params, &mut self.fifo, drops, marks)
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }
}

#[cfg(test)]
mod tests {
    //! CoDel known answers (RFC 8289): a scripted standing queue, the drop times the control law
    //! prescribes, the exit from the dropping state, the count re-use on re-entry, the maxpacket
    //! check and the overflow tail drop.

    use super::*;
    use crate::net::packet::Ecn;
    use crate::net::queue::tests::pkt;
    use crate::net::queue::{Discipline, Queue};

    const MS: u64 = 1_000_000;

    fn codel(maxpacket: u64, limit: Limit) -> Queue {
        codel_ecn(maxpacket, limit, false, None)
    }

    fn codel_ecn(maxpacket: u64, limit: Limit, ecn: bool, ce_threshold: Option<SimTime>) -> Queue {
        codel_with(maxpacket, limit, ecn, ce_threshold, false)
    }

    fn codel_with(maxpacket: u64, limit: Limit, ecn: bool, ce_threshold: Option<SimTime>, newton: bool) -> Queue {
        let p = CodelParams {
            target: SimTime::from_ms(5),
            interval: SimTime::from_ms(100),
            maxpacket,
            ecn,
            ce_threshold,
            newton,
        };
        Queue::new(Discipline::Codel(Box::new(Codel::new(limit, p))))
    }

    fn vars(q: &Queue) -> CodelVars {
        match q.discipline() {
            Discipline::Codel(c) => *c.vars(),
            _ => unreachable!(),
        }
    }

    /// What a run of the script saw: drop times (ns, at dequeue), and per dequeued packet its
    /// dequeue time and sojourn time (ns).
    #[derive(Default)]
    struct Seen {
        drops: Vec<u64>,
        sojourns: Vec<(u64, u64)>,
        /// Marks: dequeue time (ns), the packet's sequence, the cause.
        marks: Vec<(u64, u64, MarkCause)>,
    }

    /// Every `step_ns` from `from` (inclusive) to `to` (exclusive): `arrivals(t)` 1000-byte packets
    /// are offered, then, from `serve_from` on, the transmitter takes one packet.
    fn script(
        q: &mut Queue,
        from: u64,
        to: u64,
        step_ns: u64,
        serve_from: u64,
        arrivals: impl Fn(u64) -> u64,
    ) -> Seen {
        script_ecn(q, from, to, step_ns, serve_from, arrivals, |_| Ecn::NotEct)
    }

    /// `script` with the packet of sequence `s` carrying the codepoint `ecn(s)`.
    fn script_ecn(
        q: &mut Queue,
        from: u64,
        to: u64,
        step_ns: u64,
        serve_from: u64,
        arrivals: impl Fn(u64) -> u64,
        ecn: impl Fn(u64) -> Ecn,
    ) -> Seen {
        let mut seen = Seen::default();
        let mut seq = 0;
        let mut t = from;
        while t < to {
            let now = SimTime(t);
            for _ in 0..arrivals(t) {
                let mut drops = Drops::new();
                let p = Packet {
                    ecn: ecn(seq),
                    ..pkt(seq, 1000)
                };
                q.enqueue(now, &p, &mut drops).expect("below the limit");
                assert!(drops.is_empty());
                seq += 1;
            }
            if t >= serve_from {
                let mut drops = Drops::new();
                q.clear_marks();
                let out = q.dequeue(now, &mut drops);
                if let Some(p) = out {
                    seen.sojourns.push((t, t - p.enqueued.ns()));
                }
                for &(m, cause) in q.marked() {
                    // One mark per dequeue, on the packet sent, which leaves CE.
                    assert_eq!(out.map(|p| (p.seg, p.ecn)), Some((m.seg, Ecn::Ce)));
                    seen.marks.push((t, m.seg.0 as u64, cause));
                }
                assert!(q.marked().len() <= 1);
                for (d, cause) in drops {
                    assert_eq!(cause, DropCause::Sojourn);
                    assert!(t - d.enqueued.ns() >= 5 * MS, "dropped a packet below target");
                    seen.drops.push(t);
                }
            }
            t += step_ns;
        }
        seen
    }

    fn ms(v: &[u64]) -> Vec<u64> {
        v.iter().map(|t| t / MS).collect()
    }

    /// One arrival per ms from t = 0, one departure per ms from t = 10 ms: a standing queue of
    /// 10 packets whose sojourn time is 10 ms, until CoDel's drops shorten it.
    fn standing() -> (Queue, Seen) {
        let mut q = codel(1514, Limit::Packets(1000));
        let seen = script(&mut q, 0, 600 * MS, MS, 10 * MS, |_| 1);
        (q, seen)
    }

    #[test]
    fn standing_queue_drops_at_the_control_law_times_and_exits_below_target() {
        let (q, seen) = standing();
        // The first dequeue (t = 10 ms) sees 10 ms >= target: first_above_time = 110 ms. At 110 ms
        // CoDel enters the dropping state (drop, count = 1, drop_next = 110 + 100 = 210 ms). Each
        // drop removes one extra packet, so the sojourn time falls by 1 ms per drop. Then
        // drop_next += interval / sqrt(count), count = 2, 3, ...:
        //   210 + 70.710678 = 280.710678 -> dropped at the 281 ms dequeue (sojourn 8 -> 7)
        //   + 57.735026 = 338.445704 -> 339 ms;  + 50 = 388.445704 -> 389 ms;
        //   + 44.721359 = 433.167063 -> 434 ms: that drop leaves sojourn 4 ms < target, so the
        //   next packet ends the dropping state.
        assert_eq!(ms(&seen.drops), vec![110, 210, 281, 339, 389, 434]);
        let v = vars(&q);
        assert!(!v.dropping);
        assert_eq!((v.count, v.lastcount), (6, 1));
        assert_eq!(v.drop_next, SimTime(433_167_063));
        // Sojourn times of the packets sent: 10 ms before the first drop, 4 ms after the last.
        let at = |t: u64| seen.sojourns.iter().find(|s| s.0 == t * MS).unwrap().1 / MS;
        assert_eq!(
            (at(100), at(150), at(300), at(433), at(434), at(599)),
            (10, 9, 7, 5, 4, 4)
        );
    }

    #[test]
    fn newton_control_law_drops_at_linuxs_approximate_times() {
        // The standing queue above with control_law = "newton": 1/sqrt(count) in 16 bits, one
        // Newton step per count (Linux's codel_Newton_step, ns-3's NewtonStep), the gap
        // interval x rec / 2^16. Enter at 110 ms, rec = 0xFFFF: gap 99.998474 ms -> 210 ms.
        // count 2: rec = 32769 (0.500015, where 1/sqrt(2) = 0.707): + 50.001525 = 259.999999 ->
        // 260 ms; count 3: 36864 (0.5625): + 56.25 -> 317 ms; count 4: 31968: + 48.779296 ->
        // 366 ms; count 5: 28935: + 44.151306 = 409.180601 -> 410 ms, leaving sojourn 4 ms.
        let mut q = codel_with(1514, Limit::Packets(1000), false, None, true);
        let seen = script(&mut q, 0, 600 * MS, MS, 10 * MS, |_| 1);
        assert_eq!(ms(&seen.drops), vec![110, 210, 260, 317, 366, 410]);
        let v = vars(&q);
        assert_eq!((v.count, v.drop_next, v.rec_inv_sqrt), (6, SimTime(409_180_601), 26481));
        assert_eq!(newton_step(u16::MAX, 2), 32769);
    }

    #[test]
    fn no_drops_while_the_sojourn_time_stays_below_target() {
        // A standing queue of 4 packets (4 ms) for 10 s: never a drop. At 5 ms (= target, not
        // below it) the same queue is dropped from.
        let mut q = codel(1514, Limit::Packets(1000));
        let seen = script(&mut q, 0, 10_000 * MS, MS, 4 * MS, |_| 1);
        assert!(seen.drops.is_empty());
        assert!(seen.sojourns.iter().all(|s| s.1 == 4 * MS));
        assert_eq!(vars(&q).first_above_time, None);
        let mut q = codel(1514, Limit::Packets(1000));
        let seen = script(&mut q, 0, 200 * MS, MS, 5 * MS, |_| 1);
        assert_eq!(ms(&seen.drops), vec![105]);
    }

    /// The standing queue of `standing()`, then a burst of 6 extra packets at `burst` ms raising
    /// the standing sojourn time back to 10 ms.
    fn reentry(burst: u64) -> Vec<u64> {
        let (mut q, _) = standing();
        let seen = script(&mut q, 600 * MS, (burst + 500) * MS, MS, 600 * MS, |t| {
            if t == burst * MS {
                7
            } else {
                1
            }
        });
        ms(&seen.drops)
    }

    #[test]
    fn reentering_within_16_intervals_reuses_the_last_drop_rate() {
        // Burst at 600 ms: the 7 packets enqueued at 600 ms reach the head from 604 ms, at 5 ms
        // from 605 ms: first_above_time = 705 ms. At 705 ms, count - lastcount = 6 - 1 = 5 > 1 and
        // 705 - drop_next (433.167 ms) < 16 intervals: count = 5, drop_next = 705 + 100/sqrt(5):
        //   749.721359 -> 750;  + 100/sqrt(6) = 790.546188 -> 791;  + 100/sqrt(7) = 828.342635
        //   -> 829;  + 100/sqrt(8) = 863.697974 -> 864;  + 100/3 = 897.031307 -> 898 ms, when the
        //   sojourn time falls to 4 ms.
        assert_eq!(reentry(600), vec![705, 750, 791, 829, 864, 898]);
        // Burst at 2100 ms: 2205 - 433.167 ms is more than 16 intervals: count restarts at 1, and
        // the drops repeat the first episode's gaps (0, 100, 171, 229, 279, 324 ms).
        assert_eq!(reentry(2100), vec![2205, 2305, 2376, 2434, 2484, 2529]);
    }

    #[test]
    fn no_drop_while_at_most_maxpacket_bytes_remain() {
        // One packet waits 20 ms behind another on a slow link: a sojourn time of 20 ms, but only
        // 1000 bytes remain after each dequeue, not more than maxpacket (1514): never a drop.
        let serve = |maxpacket: u64| {
            let mut q = codel(maxpacket, Limit::Packets(1000));
            script(&mut q, 0, 10_000 * MS, 20 * MS, 20 * MS, |_| 1)
        };
        let seen = serve(1514);
        assert!(seen.drops.is_empty());
        assert!(seen.sojourns.iter().all(|s| s.1 == 20 * MS));
        // With maxpacket 500 the same queue is above target from 20 ms: a drop at 120 ms, which
        // empties the standing queue (every later packet leaves at once).
        let seen = serve(500);
        assert_eq!(ms(&seen.drops), vec![120]);
        assert!(seen.sojourns.iter().filter(|s| s.0 > 120 * MS).all(|s| s.1 == 0));
    }

    #[test]
    fn a_full_buffer_drops_the_arrival() {
        for limit in [Limit::Packets(3), Limit::Bytes(3000)] {
            let mut q = codel(1514, limit);
            let mut drops = Drops::new();
            for s in 0..3 {
                assert_eq!(q.enqueue(SimTime::ZERO, &pkt(s, 1000), &mut drops), Ok(()));
            }
            assert_eq!(
                q.enqueue(SimTime::ZERO, &pkt(3, 1000), &mut drops),
                Err(DropCause::Overflow)
            );
            assert!(drops.is_empty());
            assert_eq!((q.len(), q.bytes()), (3, 3000));
        }
    }

    fn mark_times(seen: &Seen, cause: MarkCause) -> Vec<u64> {
        seen.marks.iter().filter(|m| m.2 == cause).map(|m| m.0 / MS).collect()
    }

    /// The standing queue of `standing()` with every packet ECT(0) and `ecn` on: the control law
    /// marks where it dropped. A mark removes nothing, so the sojourn time stays at 10 ms and
    /// CoDel stays in the dropping state, marking at each drop_next (Linux's codel_dequeue:
    /// count += 1, mark, drop_next = control_law(drop_next, count)): 110 (enter, count 1),
    /// 210 (count 2), 210 + 100/sqrt(2) = 280.710678 -> 281, + 100/sqrt(3) -> 338.445704 ->
    /// 339, + 50 -> 389, + 100/sqrt(5) -> 433.167063 -> 434, + 100/sqrt(6) -> 473.991892 ->
    /// 474, + 100/sqrt(7) -> 511.788339 -> 512, + 100/sqrt(8) -> 547.143678 -> 548,
    /// + 100/3 -> 580.477011 -> 581 ms; then drop_next = 580.477011 + 100/sqrt(10).
    #[test]
    fn with_ecn_the_control_law_marks_ect_packets_instead_of_dropping_them() {
        let mut q = codel_ecn(1514, Limit::Packets(1000), true, None);
        let seen = script_ecn(&mut q, 0, 600 * MS, MS, 10 * MS, |_| 1, |_| Ecn::Ect0);
        assert!(seen.drops.is_empty());
        assert_eq!(
            mark_times(&seen, MarkCause::Sojourn),
            vec![110, 210, 281, 339, 389, 434, 474, 512, 548, 581]
        );
        assert_eq!(seen.marks.len(), 10);
        assert!(seen.sojourns.iter().all(|s| s.1 == 10 * MS));
        let v = vars(&q);
        assert!(v.dropping);
        assert_eq!((v.count, v.lastcount), (10, 1));
        assert_eq!(v.drop_next, SimTime(580_477_011 + 31_622_776));
    }

    /// The same with even sequences ECT(0) and odd ones Not-ECT: an ECT head is marked, a
    /// Not-ECT head dropped (and the next packet sent; the queue, and the sojourn time, shrink
    /// by one packet, 1 ms). The head at t is packet t - 10 (t - 9 after one drop, t - 8 after
    /// two): 110 mark (100), 210 mark (200), 281 drop (271, odd), 339 mark (330), 389 mark
    /// (380), 434 drop (425), 474 mark (466), 512 mark (504), 548 mark (540), 581 drop (573).
    #[test]
    fn with_ecn_a_not_ect_head_is_still_dropped() {
        let mut q = codel_ecn(1514, Limit::Packets(1000), true, None);
        let even = |s: u64| if s.is_multiple_of(2) { Ecn::Ect0 } else { Ecn::NotEct };
        let seen = script_ecn(&mut q, 0, 600 * MS, MS, 10 * MS, |_| 1, even);
        assert_eq!(ms(&seen.drops), vec![281, 434, 581]);
        let marks: Vec<(u64, u64)> = seen.marks.iter().map(|m| (m.0 / MS, m.1)).collect();
        assert_eq!(
            marks,
            vec![(110, 100), (210, 200), (339, 330), (389, 380), (474, 466), (512, 504), (548, 540)]
        );
        assert_eq!(vars(&q).count, 10);
    }

    /// `ce_threshold` = 8 ms without `ecn`: the control law drops as in `standing()` (110, 210,
    /// ...), and every packet sent with a sojourn time above 8 ms is marked: 10 ms from 10 to
    /// 109 ms, 9 ms from 110 to 209 ms (after the first drop), 8 ms at 210 (not above: no
    /// mark). 200 marks, on the packets sent at 10..=209 ms.
    #[test]
    fn ce_threshold_marks_by_sojourn_time_at_dequeue() {
        let mut q = codel_ecn(1514, Limit::Packets(1000), false, Some(SimTime::from_ms(8)));
        let seen = script_ecn(&mut q, 0, 600 * MS, MS, 10 * MS, |_| 1, |_| Ecn::Ect1);
        assert_eq!(ms(&seen.drops), vec![110, 210, 281, 339, 389, 434]);
        let t = mark_times(&seen, MarkCause::Threshold);
        assert_eq!(t, (10..=209).collect::<Vec<u64>>());
        assert_eq!(seen.marks.len(), 200);
        // With ecn on as well, the control law's marks are not marked twice: 590 packets sent,
        // 10 marked by the law (sojourn) and the other 580 by the threshold (10 ms > 8 ms).
        let mut q = codel_ecn(1514, Limit::Packets(1000), true, Some(SimTime::from_ms(8)));
        let seen = script_ecn(&mut q, 0, 600 * MS, MS, 10 * MS, |_| 1, |_| Ecn::Ect1);
        assert_eq!(seen.sojourns.len(), 590);
        assert_eq!(mark_times(&seen, MarkCause::Sojourn).len(), 10);
        assert_eq!(mark_times(&seen, MarkCause::Threshold).len(), 580);
        // Not-ECT packets are never marked by the threshold.
        let mut q = codel_ecn(1514, Limit::Packets(1000), false, Some(SimTime::from_ms(8)));
        let seen = script(&mut q, 0, 600 * MS, MS, 10 * MS, |_| 1);
        assert!(seen.marks.is_empty());
    }

    #[test]
    fn control_law_spacing() {
        let i = SimTime::from_ms(100);
        let t = SimTime::from_ms(1000);
        assert_eq!(control_law(t, i, 1), SimTime::from_ms(1100));
        assert_eq!(control_law(t, i, 4), SimTime::from_ms(1050));
        assert_eq!(control_law(t, i, 2), SimTime(1_070_710_678));
        assert_eq!(control_law(t, i, 100), SimTime::from_ms(1010));
    }
}
