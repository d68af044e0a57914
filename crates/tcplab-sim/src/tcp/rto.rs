//! The retransmission timer's estimator, RFC 6298 (Jacobson & Karels 1988, App. A, in its
//! modern fine-grained form). All arithmetic is on integer nanoseconds, so it is exact and
//! identical on every machine.

use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// Smoothed RTT (RFC 6298 SRTT), None before the first sample.
    srtt_ns: Option<u64>,
    /// RTT variation (RFC 6298 RTTVAR).
    rttvar_ns: u64,
    /// The un-backed-off RTO (RFC 6298 Sec. 2.2/2.3, clamped to [min, max]).
    base_rto_ns: u64,
    /// Consecutive timeouts: RTO is doubled this many times (Sec. 5.5), up to `max_ns`.
    backoff: u32,
    min_ns: u64,
    max_ns: u64,
    /// Clock granularity G of Sec. 2.2/2.3: RTO = SRTT + max(G, 4 RTTVAR).
    granularity_ns: u64,
}

impl RttEstimator {
    pub fn new(initial: SimTime, min: SimTime, max: SimTime, granularity: SimTime) -> Self {
        RttEstimator {
            srtt_ns: None,
            rttvar_ns: 0,
            base_rto_ns: initial.ns().clamp(min.ns(), max.ns()),
            backoff: 0,
            min_ns: min.ns(),
            max_ns: max.ns(),
            granularity_ns: granularity.ns(),
        }
    }

    /// Feeds one RTT measurement R (RFC 6298 Sec. 2.2 for the first, 2.3 for later ones:
    /// RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|, then SRTT <- 7/8 SRTT + 1/8 R').
    /// A valid sample also ends any backoff (Karn's algorithm: the backed-off RTO is kept
    /// until a sample from an unambiguous segment arrives).
    pub fn sample(&mut self, r: SimTime) {
        let r = r.ns();
        match self.srtt_ns {
            None => {
                self.srtt_ns = Some(r);
                self.rttvar_ns = r / 2;
            }
            Some(srtt) => {
                let err = srtt.abs_diff(r);
                self.rttvar_ns = (3 * self.rttvar_ns + err) / 4;
                self.srtt_ns = Some((7 * srtt + r) / 8);
            }
        }
        let srtt = self.srtt_ns.unwrap_or(r);
        let rto = srtt + self.granularity_ns.max(4 * self.rttvar_ns);
        self.base_rto_ns = rto.clamp(self.min_ns, self.max_ns);
        self.backoff = 0;
    }

    /// The timer's current value: the base RTO doubled once per backoff, at most `max`.
    pub fn rto(&self) -> SimTime {
        let mut rto = self.base_rto_ns;
        for _ in 0..self.backoff {
            rto = rto.saturating_mul(2);
            if rto >= self.max_ns {
                return SimTime(self.max_ns);
            }
        }
        SimTime(rto.min(self.max_ns))
    }

    /// The timer expired: back off (RFC 6298 Sec. 5.5).
    pub fn back_off(&mut self) {
        if self.rto().ns() < self.max_ns {
            self.backoff += 1;
        }
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt_ns.map(SimTime)
    }

    pub fn rttvar(&self) -> SimTime {
        SimTime(self.rttvar_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(
            SimTime::from_secs(1),
            SimTime::from_ms(200),
            SimTime::from_secs(60),
            SimTime::ZERO,
        )
    }

    #[test]
    fn rfc6298_by_hand() {
        let mut e = est();
        assert_eq!(e.rto(), SimTime::from_secs(1)); // Sec. 2.1: initial RTO
                                                    // First sample R = 100 ms: SRTT = 100, RTTVAR = 50, RTO = 100 + 4*50 = 300 ms.
        e.sample(SimTime::from_ms(100));
        assert_eq!(e.srtt(), Some(SimTime::from_ms(100)));
        assert_eq!(e.rttvar(), SimTime::from_ms(50));
        assert_eq!(e.rto(), SimTime::from_ms(300));
        // R = 200 ms: RTTVAR = 3/4*50 + 1/4*|100-200| = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5;
        // RTO = 112.5 + 4*62.5 = 362.5 ms.
        e.sample(SimTime::from_ms(200));
        assert_eq!(e.rttvar(), SimTime::from_us(62_500));
        assert_eq!(e.srtt(), Some(SimTime::from_us(112_500)));
        assert_eq!(e.rto(), SimTime::from_us(362_500));
        // R = 112.5 ms: RTTVAR = 3/4*62.5 = 46.875; SRTT unchanged; RTO = 112.5 + 187.5 = 300.
        e.sample(SimTime::from_us(112_500));
        assert_eq!(e.rttvar(), SimTime::from_ns(46_875_000));
        assert_eq!(e.rto(), SimTime::from_ms(300));
    }

    #[test]
    fn min_rto_clamps() {
        let mut e = est();
        e.sample(SimTime::from_ms(10)); // 10 + 20 = 30 ms < 200 ms minimum
        assert_eq!(e.rto(), SimTime::from_ms(200));
    }

    #[test]
    fn backoff_doubles_up_to_cap_and_a_sample_resets_it() {
        let mut e = est();
        e.sample(SimTime::from_ms(1000)); // RTO = 1000 + 2000 = 3 s
        let mut seen = vec![e.rto().ns() / 1_000_000];
        for _ in 0..6 {
            e.back_off();
            seen.push(e.rto().ns() / 1_000_000);
        }
        assert_eq!(seen, vec![3000, 6000, 12000, 24000, 48000, 60000, 60000]);
        e.sample(SimTime::from_ms(1000));
        assert_eq!(e.backoff(), 0);
        assert!(e.rto() < SimTime::from_secs(4));
    }
}
