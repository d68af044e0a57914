//! DualPI2's per-queue counters (the links table's `l_*` and `c_*` columns): packets sent,
//! drops and marks of the L and the C queue, and the sojourn times of the packets each sent,
//! their sum and a histogram for the 99th percentile.

use crate::time::SimTime;

/// Sojourn times in buckets of 32 per octave (exact below 64 ns): a quantile read as its
/// bucket's midpoint is within 1/64 (1.6%) of a value in that bucket.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SojournHistogram {
    counts: Vec<u64>,
    n: u64,
}

const SUB: u64 = 32;

fn bucket(ns: u64) -> usize {
    if ns < 2 * SUB {
        return ns as usize;
    }
    let shift = (63 - ns.leading_zeros() as u64) - 5;
    (SUB * shift + (ns >> shift)) as usize
}

/// The [lower, upper] nanoseconds of bucket `i`.
fn edges(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < 2 * SUB {
        return (i, i);
    }
    let shift = i / SUB - 1;
    let m = i - SUB * shift;
    (m << shift, ((m + 1) << shift) - 1)
}

impl SojournHistogram {
    pub fn add(&mut self, ns: u64) {
        let i = bucket(ns);
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        self.n += 1;
    }

    /// The `q` quantile (0 < q <= 1) in seconds: the midpoint of the bucket holding the
    /// ceil(q n)-th smallest value; 0 when empty.
    pub fn quantile_s(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = edges(i);
                return (lo + hi) as f64 / 2.0 * 1e-9;
            }
        }
        unreachable!("the counts sum to n")
    }
}

/// One queue's counters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaneStats {
    /// Packets this queue sent.
    pub packets: u64,
    /// Packets dropped: arrivals that found the shared buffer full (by the queue they would
    /// have joined) and the AQM's drops at dequeue.
    pub drops: u64,
    /// Packets the AQM marked CE.
    pub marks: u64,
    /// The sum of the sent packets' sojourn times, ns.
    pub sojourn_ns: u128,
    pub sojourn: SojournHistogram,
}

impl LaneStats {
    /// A packet enqueued at `enqueued` left at `now`.
    pub(super) fn sent(&mut self, now: SimTime, enqueued: SimTime) {
        let ns = now.saturating_sub(enqueued).ns();
        self.packets += 1;
        self.sojourn_ns += ns as u128;
        self.sojourn.add(ns);
    }

    /// The mean sojourn time of the sent packets, s (0 without any).
    pub fn mean_sojourn_s(&self) -> f64 {
        if self.packets == 0 {
            0.0
        } else {
            self.sojourn_ns as f64 / self.packets as f64 * 1e-9
        }
    }

    /// Their 99th percentile, s (to 1.6%, `SojournHistogram`; 0 without any).
    pub fn p99_sojourn_s(&self) -> f64 {
        self.sojourn.quantile_s(0.99)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_line_and_hold_their_values() {
        let mut prev_hi = None;
        for i in 0..1200 {
            let (lo, hi) = edges(i);
            assert!(lo <= hi);
            if let Some(p) = prev_hi {
                assert_eq!(lo, p + 1, "bucket {i} starts where {} ends", i - 1);
            }
            assert_eq!((bucket(lo), bucket(hi)), (i, i));
            // 32 per octave: a bucket is at most 1/32 of its lower edge wide.
            assert!(lo < 64 || (hi - lo + 1) * 32 <= lo);
            prev_hi = Some(hi);
        }
    }

    #[test]
    fn the_99th_percentile_of_100_values() {
        // 1 .. 100 us: the 99th smallest is 99 us, in a bucket [98304, 100351] ns (shift 11).
        let mut h = SojournHistogram::default();
        for us in 1..=100u64 {
            h.add(us * 1000);
        }
        let (lo, hi) = edges(bucket(99_000));
        assert_eq!((lo, hi), (98_304, 100_351));
        assert_eq!(h.quantile_s(0.99), (lo + hi) as f64 / 2.0 * 1e-9);
        assert!((h.quantile_s(0.99) / 99e-6 - 1.0).abs() < 1.0 / 64.0);
        // Exact below 64 ns; empty: 0.
        let mut e = SojournHistogram::default();
        e.add(5);
        assert_eq!(e.quantile_s(0.99), 5e-9);
        assert_eq!(SojournHistogram::default().quantile_s(0.99), 0.0);
    }
}
