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

use super::{Limit, QueueParts};
use crate::net::packet::Packet;
use crate::rng::Stream;
use crate::time::SimTime;

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
    pub fn new(p: RedParams, rate_bps: u64, rng: Stream) -> Self {
        let s_ns = crate::time::serialization_time(p.mean_packet, rate_bps)
            .ns()
            .max(1);
        Red {
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

    fn measure(q: &QueueParts<'_>) -> f64 {
        match q.limit {
            Limit::Packets(_) => q.buf.len() as f64,
            Limit::Bytes(_) => *q.bytes as f64,
        }
    }

    pub fn enqueue(&mut self, now: SimTime, mut q: QueueParts<'_>, pkt: Packet) -> Option<Packet> {
        self.update_avg(now, Self::measure(&q));
        if !q.fits(&pkt) {
            self.count = 0;
            return Some(pkt);
        }
        if self.early_drop(pkt.size) {
            return Some(pkt);
        }
        q.push(pkt);
        None
    }

    /// An arrival that finds the link idle (empty queue, nothing on the wire): it would be
    /// sent at once, unless RED drops it early. Returns true to drop it.
    pub fn arrival_at_idle_link(&mut self, now: SimTime, pkt: &Packet) -> bool {
        self.update_avg(now, 0.0);
        self.early_drop(pkt.size)
    }

    /// The link's transmitter found the queue empty and went idle.
    pub fn link_idle(&mut self, now: SimTime) {
        self.idle_since = Some(now);
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
