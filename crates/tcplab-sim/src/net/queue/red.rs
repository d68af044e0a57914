//! Random Early Detection (Floyd & Jacobson 1993, "Random Early Detection Gateways for
//! Congestion Avoidance", Fig. 2 and Secs. 4, 7), with the gentle variant (Floyd 2000).
//!
//! On every arrival the average queue `avg` is updated (Sec. 4): while the link is busy,
//! `avg <- (1 - w_q) avg + w_q q`; after an idle period (the link's transmitter had nothing to
//! send), `avg <- (1 - w_q)^m avg` with `m` the number of typical packets (`mean_packet` bytes)
//! the link could have sent while idle. Then (Fig. 2):
//! - `avg < min_th`: admit; `count <- 0`.
//! - `min_th <= avg < max_th`: `p_b = max_p (avg - min_th) / (max_th - min_th)`,
//!   `p_a = p_b / (1 - count p_b)` (1 once `count p_b >= 1`): drop with probability `p_a`
//!   and set `count <- 0`, or admit and `count += 1`. `count` is the number of packets
//!   admitted since the last drop, as in Sec. 7, which makes the gap between drops uniform on
//!   1..=1/p_b. (Fig. 2 increments count before computing p_a, which would make the gap
//!   uniform on 1..=1/p_b - 1 instead, contradicting Sec. 7's derivation; we follow Sec. 7.)
//! - `avg >= max_th`: drop; `count <- 0`. In gentle mode this applies only from `2 max_th`;
//!   between `max_th` and `2 max_th`, `p_b = max_p + (1 - max_p)(avg - max_th) / max_th`.
//!
//! Byte mode (Sec. 4): `p_b <- p_b * size / mean_packet`, so large packets are more likely to
//! be dropped. The queue and the thresholds are measured in the unit of the queue's limit:
//! packets, or bytes for a byte limit. An arrival that does not fit the limit is dropped
//! whatever the average says (a forced drop).

//!
//! The link calls `dequeue` when its transmitter is free; finding the buffer empty there is
//! how RED learns that the link went idle (FJ93's q_time), and the next arrival's `enqueue`
//! applies the idle-time correction.

use super::{DropCause, Drops, Fifo, Limit, LinkContext, QueueDiscipline};
use crate::error::Error;
use crate::net::packet::Packet;
use crate::rng::Stream;
use super::invalid;
use crate::time::{Probability, SimTime, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
    /// Weight of the queue average (default 0.002, FJ93 Sec. 4 and ns-2).
    #[serde(default)]
    pub w_q: Option<f64>,
    /// Drop probability at max_th (default 0.1, ns-2's linterm 10).
    #[serde(default)]
    pub max_p: Option<Probability>,
    /// Gentle RED: the drop probability ramps from max_p to 1 between max_th and 2 max_th.
    #[serde(default)]
    pub gentle: bool,
    /// Byte mode (FJ93 Sec. 4): drop probability proportional to the packet's size.
    #[serde(default)]
    pub byte_mode: bool,
    /// A typical packet's size (idle-time correction, byte mode); default 1000 bytes.
    #[serde(default)]
    pub mean_packet: Option<Size>,
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
}

#[derive(Clone, Debug)]
pub struct Red {
    fifo: Fifo,
    limit: Limit,
    p: RedParams,
    /// Transmission time of a typical packet at the link's rate, ns (at least 1).
    s_ns: u64,
    avg: f64,
    /// Packets admitted since the last drop (FJ93 Sec. 7).
    count: u64,
    /// When the link last went idle (FJ93's q_time), while it stays idle.
    idle_since: Option<SimTime>,
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
        let s_ns = crate::time::serialization_time(p.mean_packet, rate_bps)
            .ns()
            .max(1);
        Red {
            fifo: Fifo::default(),
            limit,
            p,
            s_ns,
            avg: 0.0,
            count: 0,
            idle_since: Some(SimTime::ZERO),
            rng,
        }
    }

    /// The average queue, in the limit's unit.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// FJ93 Sec. 4: the EWMA of the queue, with the idle-time correction.
    fn update_avg(&mut self, now: SimTime, q: f64) {
        match self.idle_since.take() {
            Some(t) => {
                let m = now.ns().saturating_sub(t.ns()) / self.s_ns;
                self.avg *= pow_int(1.0 - self.p.w_q, m);
            }
            None => self.avg = (1.0 - self.p.w_q) * self.avg + self.p.w_q * q,
        }
    }

    /// FJ93 Fig. 2: the early-drop decision for an arrival of `size` bytes.
    fn early_drop(&mut self, size: u32) -> bool {
        let RedParams {
            min_th,
            max_th,
            max_p,
            ..
        } = self.p;
        let avg = self.avg;
        let pb = if avg < min_th {
            self.count = 0;
            return false;
        } else if avg < max_th {
            max_p * (avg - min_th) / (max_th - min_th)
        } else if self.p.gentle && avg < 2.0 * max_th {
            max_p + (1.0 - max_p) * (avg - max_th) / max_th
        } else {
            self.count = 0;
            return true;
        };
        let pb = if self.p.byte_mode {
            (pb * size as f64 / self.p.mean_packet as f64).min(1.0)
        } else {
            pb
        };
        let c = self.count as f64;
        let pa = if c * pb >= 1.0 { 1.0 } else { pb / (1.0 - c * pb) };
        if self.rng.uniform() < pa {
            self.count = 0;
            true
        } else {
            self.count += 1;
            false
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
        if !(p.w_q > 0.0 && p.w_q <= 1.0) {
            return Err(invalid(
                format!("{r}.w_q"),
                format!("{} (expected a weight in (0, 1])", p.w_q),
            ));
        }
        if !(p.min_th >= 0.0 && p.min_th.is_finite()) {
            return Err(invalid(
                format!("{r}.min_th"),
                format!("{} (expected a threshold >= 0)", p.min_th),
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
        if p.mean_packet == 0 {
            return Err(invalid(
                format!("{r}.mean_packet"),
                "0 bytes (expected a packet size > 0)",
            ));
        }
        Ok(())
    }

    fn build(spec: &RedSpec, limit: Limit, link: &LinkContext<'_>) -> Self {
        Red::new(limit, spec.params(limit), link.rate_bps, link.stream())
    }

    /// FJ93 Fig. 2 on every arrival: update the average, then a forced drop if the buffer is
    /// full, or an early drop by the average.
    #[inline(never)]
    fn enqueue(&mut self, now: SimTime, pkt: Packet, _drops: &mut Drops) -> Result<(), DropCause> {
        self.update_avg(now, self.measure());
        if !self.fifo.fits(self.limit, &pkt) {
            self.count = 0;
            return Err(DropCause::Overflow);
        }
        if self.early_drop(pkt.size) {
            return Err(DropCause::Early);
        }
        self.fifo.push(pkt);
        Ok(())
    }

    /// An empty buffer means the link's transmitter goes idle now (FJ93 Sec. 4's q_time).
    fn dequeue(&mut self, now: SimTime, _drops: &mut Drops) -> Option<Packet> {
        let p = self.fifo.pop();
        if p.is_none() {
            self.idle_since = Some(now);
        }
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
