//! Random Early Detection (Floyd & Jacobson 1993, "Random Early Detection Gateways for
//! Congestion Avoidance", FJ93) as Floyd's own implementation runs it: ns-2.35's
//! `queue/red.cc` (`REDQueue::enque`, `estimator`, `drop_early`, `calculate_p_new`,
//! `modify_p`), with ns-2's defaults (`use_mark_p_ true`, `wait_ true`, no ECN). That is what
//! the RED papers' simulations ran, and it is the default (`rules = "ns2"`). The paper's Fig. 2
//! as printed differs in three places; `rules = "fj93-fig2"` follows the figure instead (below).
//!
//! On every arrival, `rules = "ns2"`:
//! 1. The average (`estimator`): if the link has been idle since `t_idle`, `m` =
//!    floor((now - t_idle) rate / (8 mean_packet)) typical packets could have been sent, and
//!    `avg <- (1 - w_q)^m avg` (FJ93 Sec. 4, red.cc's `m = int(ptc * (now - idletime_))`); then,
//!    idle or not, one EWMA step `avg <- (1 - w_q) avg + w_q q` with the queue `q` the arrival
//!    finds (red.cc runs the estimator with `m + 1`).
//! 2. `count` (arrivals since the last drop) += 1, `count_bytes` += the arrival's size.
//! 3. If `avg >= min_th` and more than one packet waits (`qlen > 1` in red.cc: "a packet that
//!    arrives to an idle queue will never be dropped", nor one behind a single packet):
//!    - if the previous arrival did not see this state (`old == 0`: the average just crossed
//!      min_th, or the queue just grew past one packet), `count <- 1` and admit;
//!    - else `p_b` (`calculate_p_new`): `max_p (avg - min_th) / (max_th - min_th)` below max_th;
//!      above it 1, or with gentle (Floyd 2000) `max_p + (1 - max_p)(avg - max_th)/max_th`
//!      capped at 1, which reaches 1 at 2 max_th; so the drops "at max_th" (2 max_th with
//!      gentle) are the arrivals drawn with probability 1 (ns-2's `use_mark_p_ true` default
//!      sends them through `drop_early` too, after the `old` check);
//!    - the count-based uniformization (`modify_p`, FJ93 Sec. 7): with `wait` (ns-2's default
//!      `wait_ true`), `p_a = 0` while `count p_b < 1`, `p_b / (2 - count p_b)` while
//!      `count p_b < 2`, else 1, so the gap between drops is uniform on 1/p_b ..= 2/p_b - 1
//!      arrivals; without `wait`, `p_a = p_b / (1 - count p_b)` (1 once `count p_b >= 1`),
//!      uniform on 1 ..= 1/p_b - 1 (count includes the arrival itself). In byte mode `count`
//!      is `count_bytes / mean_packet` (integer division, as red.cc) and then
//!      `p_a <- p_a size / mean_packet` (capped at 1);
//!    - a uniform draw `u <= p_a` drops the arrival (early) and resets both counts;
//!    - otherwise (average below min_th, or at most one packet waiting) `old <- 0`.
//! 4. If the arrival finds the buffer full (red.cc's `qlen >= qlim`), it is dropped (overflow)
//!    whatever step 3 decided, and the counts are reset (red.cc's `!ns1_compat_` fix).
//!
//! `rules = "fj93-fig2"`, the paper's Fig. 2 as printed: the idle correction is the decay
//! `(1 - w_q)^m avg` alone (no EWMA step with the arrival); an early drop needs only
//! `avg >= min_th`, however short the queue; `count` starts at -1, is set back to -1 whenever
//! `avg < min_th`, is incremented before `p_a = p_b / (1 - count p_b)` and reset to 0 by a
//! drop; every arrival with `avg >= max_th` (2 max_th with gentle) is dropped; byte mode scales
//! `p_b` by `size / mean_packet` before the uniformization (Sec. 4). `wait` defaults to off
//! there (the paper has no such rule) but may be set.
//!
//! Both: the queue and the thresholds are in the unit of the queue's limit (packets, or bytes
//! for a byte limit; with a byte limit "more than one packet waits" still counts packets,
//! where red.cc's `qlen > 1` would count bytes). Drops decided by the average are `early`,
//! drops at the limit `overflow`.
//!
//! The idle period (FJ93's q_time, red.cc's `idle_`/`idletime_`): the link calls `dequeue`
//! when its transmitter is free, and an empty buffer there starts an idle period; a `dequeue`
//! that returns a packet ends it. An arrival during an idle period applies the decay up to
//! its own time and, whether it is admitted or dropped, restarts the idle period at that time
//! (red.cc: the link's `deque()` right after `enque()` finds the queue empty again if the
//! arrival was dropped, and sets `idletime_ = now`). So the average decays over every idle
//! period, however it starts (an early or forced drop at an idle link, a link never busy since
//! time 0) and however it ends. (Before issue #18 the period ended at the first arrival even if
//! that arrival was dropped; the average then stayed above max_th with an empty queue and every
//! later arrival was dropped: the link locked out every flow.)
//!
//! ECN (`ecn = true`, ns-2's `setbit_`): an early decision (step 3's draw, either rules) marks
//! an ECN-capable arrival CE and admits it instead of dropping it when `p_b < mark_p`, as
//! red.cc's `drop_early` does with ns-2's default `use_mark_p_ true` (`mark_p_` default 0.1,
//! ns-default.tcl): `p_b` is the probability before the count rule (`v_prob1`), so with
//! max_p <= mark_p the ramp below max_th marks, while above max_th (`p_b` = 1; with gentle,
//! `p_b` >= max_p) the arrival is dropped, and a Not-ECT arrival is always dropped. The
//! counts restart either way. A full buffer drops (overflow), marked or not. Linux's `red`
//! with `ecn` also marks an ECT arrival where the probability is 1 (RED_HARD_MARK,
//! `forced_mark`) unless `harddrop` is set (sch_red.c `red_enqueue`; `INET_ECN_set_ce` fails
//! on Not-ECT: dropped). `harddrop = false` does that where tcplab's `p_b` is 1 (avg >= max_th,
//! or 2 max_th with gentle); left out or true, that region drops, as ns-2's. `mark_p = 1`
//! marks every early decision on the ramp, as Linux's RED_PROB_MARK does.

use super::{invalid, set_ce};
use super::{DropCause, Drops, Fifo, Limit, LinkContext, MarkCause, Marks, QueueDiscipline};
use crate::error::Error;
use crate::net::packet::Packet;
use crate::rng::Stream;
use crate::time::{Probability, SimTime, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which text of RED the drop rules follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum RedRules {
    /// Floyd's ns-2.35 `queue/red.cc` with ns-2's defaults (the default).
    #[default]
    #[serde(rename = "ns2")]
    Ns2,
    /// Floyd & Jacobson 1993 Fig. 2 as printed (early drops at any queue length, count from -1,
    /// idle decay without the arrival's EWMA step).
    #[serde(rename = "fj93-fig2")]
    Fj93Fig2,
}

/// RED's parameters in a scenario (`red = { ... }`). Thresholds are in the unit of the queue's
/// limit (packets, or bytes with `limit_bytes`).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// Minimum threshold (default: 1/3 of the limit, as Parvez et al. 2010 Sec. IV-A set it).
    #[serde(default)]
    pub min_th: Option<f64>,
    /// Maximum threshold (default: 2/3 of the limit).
    #[serde(default)]
    pub max_th: Option<f64>,
    /// Weight of the queue average, in (0, 1] (default 0.002, FJ93 Sec. 4; 1: the average is
    /// the queue each arrival finds, as ns-2's `q_weight_ 1`).
    #[serde(default)]
    pub w_q: Option<f64>,
    /// Drop probability at max_th, in (0, 1] (default 0.1, ns-2's linterm 10).
    #[serde(default)]
    pub max_p: Option<Probability>,
    /// Gentle RED (Floyd 2000): the drop probability ramps from max_p to 1 between max_th and
    /// 2 max_th. Default off (ns-2.35's default is on: set it to compare).
    #[serde(default)]
    pub gentle: bool,
    /// Byte mode (FJ93 Sec. 4): drop probability proportional to the packet's size.
    #[serde(default)]
    pub byte_mode: bool,
    /// A typical packet's size (idle-time correction, byte mode); default 1000 bytes.
    #[serde(default)]
    pub mean_packet: Option<Size>,
    /// "ns2" (default): Floyd's ns-2 `queue/red.cc`; "fj93-fig2": the 1993 paper's Fig. 2.
    #[serde(default)]
    pub rules: RedRules,
    /// ns-2's `wait_`: no drop until `count p_b >= 1` after the last drop, so drops are at
    /// least 1/p_b arrivals apart. Default on with rules "ns2", off with "fj93-fig2".
    #[serde(default)]
    pub wait: Option<bool>,
    /// ns-2's `setbit_`: an early decision marks an ECN-capable arrival CE instead of dropping
    /// it, while `p_b < mark_p` (default off).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ecn: bool,
    /// ns-2's `mark_p_`: with `ecn`, mark only while the probability before the count rule
    /// is below this, in (0, 1] (default 0.1, ns-2's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_p: Option<Probability>,
    /// Linux's `harddrop` (sch_red.c), with `ecn`, where the probability is 1: false marks an
    /// ECT arrival CE (Linux's `red ecn`), true or left out drops it (`red ecn harddrop`; ns-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harddrop: Option<bool>,
}

impl RedSpec {
    /// The parameters with their defaults resolved against the queue's limit.
    pub fn params(&self, limit: Limit) -> RedParams {
        let limit = match limit {
            Limit::Packets(n) => n as f64,
            Limit::Bytes(b) => b as f64,
        };
        RedParams {
            w_q: self.w_q.unwrap_or(0.002),
            min_th: self.min_th.unwrap_or(limit / 3.0),
            max_th: self.max_th.unwrap_or(2.0 * limit / 3.0),
            max_p: self.max_p.map_or(0.1, |p| p.0),
            gentle: self.gentle,
            byte_mode: self.byte_mode,
            mean_packet: self.mean_packet.map_or(1000, |s| s.0 as u32),
            rules: self.rules,
            wait: self.wait.unwrap_or(self.rules == RedRules::Ns2),
            ecn: self.ecn,
            mark_p: self.mark_p.map_or(0.1, |p| p.0),
            harddrop: self.harddrop.unwrap_or(true),
        }
    }
}

/// RED's parameters, resolved (thresholds in the queue limit's unit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    pub w_q: f64,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub gentle: bool,
    pub byte_mode: bool,
    /// Size of a typical packet, bytes (idle-time correction and byte mode).
    pub mean_packet: u32,
    pub rules: RedRules,
    pub wait: bool,
    /// Mark ECN-capable arrivals instead of an early drop while `p_b < mark_p`.
    pub ecn: bool,
    pub mark_p: f64,
    /// Drop ECT arrivals too where the probability is 1 (Linux's `harddrop`; ns-2's rule).
    pub harddrop: bool,
}

/// What an arrival's early decision is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Early {
    Admit,
    Drop,
    /// Mark it CE and admit it (ECN).
    Mark,
}

impl RedParams {
    /// ns-2's defaults for the given thresholds (w_q 0.002, max_p 0.1, no gentle, packet mode,
    /// mean packet 1000 bytes, wait).
    pub fn ns2(min_th: f64, max_th: f64) -> Self {
        RedParams {
            w_q: 0.002,
            min_th,
            max_th,
            max_p: 0.1,
            gentle: false,
            byte_mode: false,
            mean_packet: 1000,
            rules: RedRules::Ns2,
            wait: true,
            ecn: false,
            mark_p: 0.1,
            harddrop: true,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Red {
    fifo: Fifo,
    limit: Limit,
    p: RedParams,
    rate_bps: u64,
    avg: f64,
    /// Arrivals since the last drop (red.cc's `count`; FJ93 Fig. 2's count, from -1).
    count: i64,
    /// Bytes of those arrivals (red.cc's `count_bytes`, byte mode).
    count_bytes: u64,
    /// red.cc's `old`: the previous arrival saw `avg >= min_th` with more than one waiting.
    old: bool,
    /// Since when the link has been idle (FJ93's q_time), while it is.
    idle_since: Option<SimTime>,
    /// Integral of `avg` over time up to `avg_at` (average x seconds), for the link's results.
    avg_area: f64,
    avg_at: SimTime,
    rng: Stream,
}

/// (1 - w)^m by repeated squaring: exact IEEE operations only, so the result is the same on
/// every machine (unlike a libm `pow`).
fn pow_int(base: f64, mut m: u64) -> f64 {
    let (mut acc, mut b) = (1.0, base);
    while m > 0 {
        if m & 1 == 1 {
            acc *= b;
        }
        b *= b;
        m >>= 1;
        if b == 0.0 {
            break;
        }
    }
    if m > 0 {
        0.0
    } else {
        acc
    }
}

impl Red {
    /// `rate_bps` is the link's rate (for the idle-time correction); the link starts idle at 0.
    pub fn new(limit: Limit, p: RedParams, rate_bps: u64, rng: Stream) -> Self {
        Red {
            fifo: Fifo::default(),
            limit,
            p,
            rate_bps,
            avg: 0.0,
            count: if p.rules == RedRules::Fj93Fig2 { -1 } else { 0 },
            count_bytes: 0,
            old: false,
            idle_since: Some(SimTime::ZERO),
            avg_area: 0.0,
            avg_at: SimTime::ZERO,
            rng,
        }
    }

    /// The average queue, in the limit's unit.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The integral of the average over [0, now] (average x seconds): it changes only at
    /// arrivals and holds its value in between.
    pub fn avg_area(&self, now: SimTime) -> f64 {
        self.avg_area + self.avg * now.ns().saturating_sub(self.avg_at.ns()) as f64 * 1e-9
    }

    /// Typical packets the link could have sent in `idle_ns`: floor(idle rate / (8 mean)),
    /// exactly (red.cc: `int(ptc * (now - idletime_))`, ptc = rate / (8 mean_pktsize)).
    fn idle_packets(&self, idle_ns: u64) -> u64 {
        let bits = idle_ns as u128 * self.rate_bps as u128;
        let per_packet = 8u128 * self.p.mean_packet as u128 * 1_000_000_000;
        (bits / per_packet).min(u64::MAX as u128) as u64
    }

    /// The average at an arrival that finds `q` waiting (red.cc's `estimator`; FJ93 Sec. 4).
    /// During an idle period the decay is applied up to `now` and the period restarts at
    /// `now`: it goes on if the arrival is dropped, and the link's `dequeue` ends it if not.
    fn update_avg(&mut self, now: SimTime, q: f64) {
        let w = self.p.w_q;
        if let Some(t) = self.idle_since {
            let m = self.idle_packets(now.ns().saturating_sub(t.ns()));
            self.avg *= pow_int(1.0 - w, m);
            self.idle_since = Some(now);
            if self.p.rules == RedRules::Fj93Fig2 {
                return;
            }
        }
        self.avg = (1.0 - w) * self.avg + w * q;
    }

    /// `p_b` for the current average (red.cc's `calculate_p_new`), for `avg >= min_th`.
    fn p_b(&self) -> f64 {
        let RedParams {
            min_th,
            max_th,
            max_p,
            gentle,
            ..
        } = self.p;
        let avg = self.avg;
        let p = if avg < max_th {
            max_p * (avg - min_th) / (max_th - min_th)
        } else if gentle {
            max_p + (1.0 - max_p) * (avg - max_th) / max_th
        } else {
            1.0
        };
        p.min(1.0)
    }

    /// The count-based uniformization (red.cc's `modify_p`; FJ93 Sec. 7).
    fn p_a(&self, pb: f64, count: f64) -> f64 {
        let cp = count * pb;
        let p = if self.p.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                pb / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            pb / (1.0 - cp)
        } else {
            1.0
        };
        p.min(1.0)
    }

    /// Drop, or mark if ECN allows it (red.cc's `drop_early`: `setbit_`, the arrival ECT and
    /// `v_prob1 < mark_p_`).
    #[inline]
    fn drop_or_mark(&self, pb: f64, pkt: &Packet) -> Early {
        if pb >= 1.0 {
            return self.hard(pkt);
        }
        if self.p.ecn && pkt.ecn.is_capable() && pb < self.p.mark_p {
            Early::Mark
        } else {
            Early::Drop
        }
    }

    /// Where the probability is 1 (Linux's RED_HARD_MARK, `red_enqueue`): mark an ECT arrival
    /// unless `harddrop` (`INET_ECN_set_ce` fails on a Not-ECT one: dropped); without ECN, or
    /// with `harddrop`, drop.
    #[inline]
    fn hard(&self, pkt: &Packet) -> Early {
        if self.p.ecn && !self.p.harddrop && pkt.ecn.is_capable() {
            Early::Mark
        } else {
            Early::Drop
        }
    }

    /// Steps 2-3 of the module's description (ns-2 rules): the arrival's early decision.
    fn early_drop_ns2(&mut self, pkt: &Packet) -> Early {
        let size = pkt.size;
        self.count += 1;
        self.count_bytes += size as u64;
        if !(self.avg >= self.p.min_th && self.fifo.len() > 1) {
            self.old = false;
            return Early::Admit;
        }
        if !self.old {
            self.old = true;
            self.count = 1;
            self.count_bytes = size as u64;
            return Early::Admit;
        }
        let pb = self.p_b();
        let mean = self.p.mean_packet as u64;
        let count = if self.p.byte_mode {
            (self.count_bytes / mean) as f64
        } else {
            self.count as f64
        };
        let mut pa = self.p_a(pb, count);
        if self.p.byte_mode && pa < 1.0 {
            pa = (pa * size as f64 / mean as f64).min(1.0);
        }
        if self.rng.uniform() <= pa {
            self.count = 0;
            self.count_bytes = 0;
            self.drop_or_mark(pb, pkt)
        } else {
            Early::Admit
        }
    }

    /// FJ93 Fig. 2 as printed: the arrival's early decision.
    fn early_drop_fig2(&mut self, pkt: &Packet) -> Early {
        let RedParams { min_th, max_th, gentle, .. } = self.p;
        let avg = self.avg;
        if avg < min_th {
            self.count = -1;
            return Early::Admit;
        }
        if avg >= if gentle { 2.0 * max_th } else { max_th } {
            self.count = 0;
            return self.hard(pkt);
        }
        self.count += 1;
        let p_b = self.p_b();
        let mut pb = p_b;
        if self.p.byte_mode {
            pb = (pb * pkt.size as f64 / self.p.mean_packet as f64).min(1.0);
        }
        let pa = self.p_a(pb, self.count as f64);
        if self.rng.uniform() < pa {
            self.count = 0;
            self.drop_or_mark(p_b, pkt)
        } else {
            Early::Admit
        }
    }

    /// The queue in the limit's unit: packets, or bytes for a byte limit.
    fn measure(&self) -> f64 {
        match self.limit {
            Limit::Packets(_) => self.fifo.len() as f64,
            Limit::Bytes(_) => self.fifo.bytes() as f64,
        }
    }

    /// The waiting packets.
    pub fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

impl QueueDiscipline for Red {
    type Spec = RedSpec;

    fn validate(spec: &RedSpec, limit: Limit, at: &str) -> Result<(), Error> {
        let p = spec.params(limit);
        let r = format!("{at}.red");
        let lim = match limit {
            Limit::Packets(n) => n as f64,
            Limit::Bytes(b) => b as f64,
        };
        if !(p.w_q > 0.0 && p.w_q <= 1.0) {
            return Err(invalid(
                format!("{r}.w_q"),
                format!("{} is outside (0, 1] (expected 0 < w_q <= 1)", p.w_q),
            ));
        }
        if !(p.max_p > 0.0 && p.max_p <= 1.0) {
            return Err(invalid(
                format!("{r}.max_p"),
                format!("{} is outside (0, 1] (expected 0 < max_p <= 1)", p.max_p),
            ));
        }
        if !(p.min_th >= 0.0 && p.min_th.is_finite()) {
            return Err(invalid(
                format!("{r}.min_th"),
                format!("{} is not a threshold (expected min_th >= 0)", p.min_th),
            ));
        }
        if !(p.max_th > p.min_th && p.max_th.is_finite()) {
            return Err(invalid(
                format!("{r}.max_th"),
                format!(
                    "{} is not above min_th {} (expected min_th < max_th)",
                    p.max_th, p.min_th
                ),
            ));
        }
        if lim < p.max_th {
            return Err(invalid(
                format!("{at}.limit"),
                format!(
                    "{lim} is below red.max_th {} (expected limit >= max_th)",
                    p.max_th
                ),
            ));
        }
        if p.mean_packet == 0 {
            return Err(invalid(
                format!("{r}.mean_packet"),
                "0 bytes is not a packet size (expected mean_packet > 0)",
            ));
        }
        if spec.harddrop.is_some() && !spec.ecn {
            return Err(invalid(
                format!("{r}.harddrop"),
                "given without ecn (expected ecn = true with harddrop)",
            ));
        }
        if let Some(m) = spec.mark_p {
            if !spec.ecn {
                return Err(invalid(
                    format!("{r}.mark_p"),
                    "given without ecn (expected ecn = true with mark_p)",
                ));
            }
            if !(m.0 > 0.0 && m.0 <= 1.0) {
                return Err(invalid(
                    format!("{r}.mark_p"),
                    format!("{} is outside (0, 1] (expected 0 < mark_p <= 1)", m.0),
                ));
            }
        }
        Ok(())
    }

    fn build(spec: &RedSpec, limit: Limit, link: &LinkContext<'_>) -> Self {
        Red::new(limit, spec.params(limit), link.rate_bps, link.stream())
    }

    /// On every arrival: the average, then the early-drop rules, then the limit (see the
    /// module's description).
    #[inline(never)]
    fn enqueue(
        &mut self,
        now: SimTime,
        mut pkt: Packet,
        _drops: &mut Drops,
        marks: &mut Marks,
    ) -> Result<(), DropCause> {
        self.avg_area = self.avg_area(now);
        self.avg_at = now;
        self.update_avg(now, self.measure());
        let early = match self.p.rules {
            RedRules::Ns2 => self.early_drop_ns2(&pkt),
            RedRules::Fj93Fig2 => self.early_drop_fig2(&pkt),
        };
        if !self.fifo.fits(self.limit, &pkt) {
            self.count = 0;
            self.count_bytes = 0;
            return Err(DropCause::Overflow);
        }
        match early {
            Early::Drop => return Err(DropCause::Early),
            Early::Mark => {
                set_ce(&mut pkt);
                marks.push((pkt, MarkCause::Early));
            }
            Early::Admit => {}
        }
        self.fifo.push(pkt);
        Ok(())
    }

    /// An empty buffer means the link's transmitter goes idle now (FJ93 Sec. 4's q_time,
    /// red.cc's `deque`); a packet to send means it is busy.
    fn dequeue(&mut self, now: SimTime, _drops: &mut Drops, _marks: &mut Marks) -> Option<Packet> {
        let p = self.fifo.pop();
        self.idle_since = if p.is_none() { Some(now) } else { None };
        p
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
    use super::*;

    #[test]
    fn pow_int_agrees_with_repeated_multiplication() {
        let mut x = 1.0;
        for m in 0..40u64 {
            assert!((pow_int(0.998, m) - x).abs() <= 1e-12 * x, "m = {m}");
            x *= 0.998;
        }
        assert_eq!(pow_int(0.5, 5000), 0.0);
    }
}
