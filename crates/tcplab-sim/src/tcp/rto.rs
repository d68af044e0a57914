//! Retransmission-timer estimators. `RttEstimator` is RFC 6298 (Jacobson & Karels 1988, App. A,
//! in its modern fine-grained form) on integer nanoseconds. `Jacobson88` is App. A itself: the
//! scaled integer estimator on a coarse clock tick (BSD's 500 ms slow timer), with the
//! rto = a + 4v rule or the a + 2v rule of the SIGCOMM '88 paper (footnote 21). `Rfc793` is the
//! "before" estimator: srtt low-pass with alpha = 0.9 and rto = beta * srtt, beta = 2.
//! `RtoEstimator` dispatches among them. All are exact and machine-independent.

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

/// A coarse clock: edges at phase + k * tick.
#[derive(Clone, Copy, Debug)]
pub struct TickClock {
    pub tick_ns: u64,
    pub phase_ns: u64,
}

impl TickClock {
    fn edges_up_to(&self, t: SimTime) -> u64 {
        if t.ns() < self.phase_ns {
            0
        } else {
            (t.ns() - self.phase_ns) / self.tick_ns + 1
        }
    }

    /// Clock edges in (a, b]: what a tick counter started at a reads at b.
    pub fn ticks_between(&self, a: SimTime, b: SimTime) -> u64 {
        self.edges_up_to(b) - self.edges_up_to(a)
    }

    /// The time of the n-th clock edge after `t` (n >= 1): when a timer set to n ticks at `t`
    /// and decremented on every edge reaches zero.
    pub fn nth_edge_after(&self, t: SimTime, n: u64) -> SimTime {
        let next = self.edges_up_to(t); // index of the first edge after t
        SimTime(self.phase_ns + (next + n - 1) * self.tick_ns)
    }
}

/// Which rule turns the estimates into a timeout (Jacobson & Karels 1988).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarianceGain {
    /// rto = a + 4v (App. A, the 4.3BSD-Tahoe code).
    Four,
    /// rto = a + 2v (the SIGCOMM '88 version, footnote 21).
    Two,
}

/// Jacobson & Karels 1988 App. A: sa = 8 * srtt, sv = 4 * mean deviation, in clock ticks,
/// updated by integer shifts (gains 1/8 and 1/4); rto = (sa >> 3) + sv. Samples are whole ticks
/// of the coarse clock (at least 1). The first sample m seeds sa = m << 3, sv = m << 1
/// (rto = 3m), as BSD does.
#[derive(Clone, Debug)]
pub struct Jacobson88 {
    clock: TickClock,
    gain: VarianceGain,
    sa: i64,
    sv: i64,
    sampled: bool,
    rto_ticks: u64,
    backoff: u32,
    backoff_enabled: bool,
    min_ticks: u64,
    max_ticks: u64,
}

impl Jacobson88 {
    pub fn new(
        clock: TickClock,
        gain: VarianceGain,
        initial: SimTime,
        min: SimTime,
        max: SimTime,
        backoff: bool,
    ) -> Self {
        let ticks = |t: SimTime| t.ns().div_ceil(clock.tick_ns).max(1);
        let (min_ticks, max_ticks) = (ticks(min), ticks(max));
        Jacobson88 {
            clock,
            gain,
            sa: 0,
            sv: 0,
            sampled: false,
            rto_ticks: ticks(initial).clamp(min_ticks, max_ticks),
            backoff: 0,
            backoff_enabled: backoff,
            min_ticks,
            max_ticks,
        }
    }

    /// One measurement of m ticks (App. A, verbatim in integer form).
    pub fn sample_ticks(&mut self, m: u64) {
        let mut m = m.max(1) as i64;
        if !self.sampled {
            self.sa = m << 3;
            self.sv = m << 1;
            self.sampled = true;
        } else {
            m -= self.sa >> 3;
            self.sa += m;
            if m < 0 {
                m = -m;
            }
            m -= self.sv >> 2;
            self.sv += m;
        }
        let rto = match self.gain {
            VarianceGain::Four => (self.sa >> 3) + self.sv,
            VarianceGain::Two => (self.sa >> 3) + (self.sv >> 1),
        };
        self.rto_ticks = (rto.max(1) as u64).clamp(self.min_ticks, self.max_ticks);
        self.backoff = 0;
    }

    pub fn rto_ticks(&self) -> u64 {
        (self.rto_ticks << self.backoff.min(16)).min(self.max_ticks)
    }

    pub fn sa_sv(&self) -> (i64, i64) {
        (self.sa, self.sv)
    }
}

/// RFC 793 Sec. 3.7: SRTT = alpha * SRTT + (1 - alpha) * RTT, RTO = min(UBOUND, max(LBOUND,
/// beta * SRTT)) with alpha = 0.9, beta = 2 (4.3BSD before Jacobson), measured on the coarse
/// clock when it has a tick. Backoff on repeated timeouts is optional (Jacobson Fig 3 vs 5).
#[derive(Clone, Debug)]
pub struct Rfc793 {
    clock: Option<TickClock>,
    srtt_ns: Option<f64>,
    rto_ns: u64,
    backoff: u32,
    backoff_enabled: bool,
    min_ns: u64,
    max_ns: u64,
}

pub const RFC793_ALPHA: f64 = 0.9;
pub const RFC793_BETA: f64 = 2.0;

impl Rfc793 {
    pub fn new(
        clock: Option<TickClock>,
        initial: SimTime,
        min: SimTime,
        max: SimTime,
        backoff: bool,
    ) -> Self {
        Rfc793 {
            clock,
            srtt_ns: None,
            rto_ns: initial.ns().clamp(min.ns(), max.ns()),
            backoff: 0,
            backoff_enabled: backoff,
            min_ns: min.ns(),
            max_ns: max.ns(),
        }
    }

    pub fn sample(&mut self, r_ns: f64) {
        let srtt = match self.srtt_ns {
            None => r_ns,
            Some(s) => RFC793_ALPHA * s + (1.0 - RFC793_ALPHA) * r_ns,
        };
        self.srtt_ns = Some(srtt);
        self.rto_ns = ((RFC793_BETA * srtt).round() as u64).clamp(self.min_ns, self.max_ns);
        self.backoff = 0;
    }
}

/// The estimator a sender uses (static dispatch).
#[derive(Clone, Debug)]
pub enum RtoEstimator {
    Rfc6298(RttEstimator),
    Jacobson88(Jacobson88),
    Rfc793(Rfc793),
}

impl RtoEstimator {
    /// An RTT measurement of a segment sent at `sent` and acknowledged at `now`.
    pub fn sample(&mut self, sent: SimTime, now: SimTime) {
        match self {
            RtoEstimator::Rfc6298(e) => e.sample(now - sent),
            RtoEstimator::Jacobson88(e) => {
                let m = e.clock.ticks_between(sent, now);
                e.sample_ticks(m)
            }
            RtoEstimator::Rfc793(e) => {
                let r = match e.clock {
                    Some(c) => (c.ticks_between(sent, now).max(1) * c.tick_ns) as f64,
                    None => (now - sent).ns() as f64,
                };
                e.sample(r)
            }
        }
    }

    /// The current timeout, backoff included.
    pub fn rto(&self) -> SimTime {
        match self {
            RtoEstimator::Rfc6298(e) => e.rto(),
            RtoEstimator::Jacobson88(e) => SimTime(e.rto_ticks() * e.clock.tick_ns),
            RtoEstimator::Rfc793(e) => SimTime((e.rto_ns << e.backoff.min(16)).min(e.max_ns)),
        }
    }

    /// When a timer armed at `now` expires: `now + rto` on a fine clock; on a coarse clock, the
    /// rto-th tick edge after `now` (BSD decrements its timers on each slow-timer tick).
    pub fn deadline(&self, now: SimTime) -> SimTime {
        match self {
            RtoEstimator::Jacobson88(e) => e.clock.nth_edge_after(now, e.rto_ticks()),
            RtoEstimator::Rfc793(Rfc793 { clock: Some(c), .. }) => {
                c.nth_edge_after(now, self.rto().ns().div_ceil(c.tick_ns).max(1))
            }
            _ => now + self.rto(),
        }
    }

    /// The timer expired: double the timeout (if this estimator backs off).
    pub fn back_off(&mut self) {
        match self {
            RtoEstimator::Rfc6298(e) => e.back_off(),
            RtoEstimator::Jacobson88(e) => {
                if e.backoff_enabled && e.rto_ticks() < e.max_ticks {
                    e.backoff += 1;
                }
            }
            RtoEstimator::Rfc793(e) => {
                if e.backoff_enabled && self_rto_below_max(e) {
                    e.backoff += 1;
                }
            }
        }
    }

    /// RFC 6298 Sec. 5.7: the handshake gave no RTT sample after a retransmission, so the
    /// timer for the data starts at `rto` (3 s) and the backoff ends (the RFC 6298 estimator;
    /// the others only end the backoff: the handshake is refused with them).
    pub fn fallback(&mut self, rto: SimTime) {
        match self {
            RtoEstimator::Rfc6298(e) => {
                e.base_rto_ns = rto.ns().clamp(e.min_ns, e.max_ns);
                e.backoff = 0;
            }
            RtoEstimator::Jacobson88(e) => e.backoff = 0,
            RtoEstimator::Rfc793(e) => e.backoff = 0,
        }
    }

    /// Consecutive expirations since the last sample.
    pub fn backoff(&self) -> u32 {
        match self {
            RtoEstimator::Rfc6298(e) => e.backoff(),
            RtoEstimator::Jacobson88(e) => e.backoff,
            RtoEstimator::Rfc793(e) => e.backoff,
        }
    }

    pub fn srtt(&self) -> Option<SimTime> {
        match self {
            RtoEstimator::Rfc6298(e) => e.srtt(),
            RtoEstimator::Jacobson88(e) => e
                .sampled
                .then(|| SimTime((e.sa.max(0) as u64 * e.clock.tick_ns) >> 3)),
            RtoEstimator::Rfc793(e) => e.srtt_ns.map(|s| SimTime(s.round() as u64)),
        }
    }
}

fn self_rto_below_max(e: &Rfc793) -> bool {
    (e.rto_ns << e.backoff.min(16)) < e.max_ns
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

    #[test]
    fn jacobson_app_a_by_hand() {
        // Samples 10, 12, 8, 20 ticks. First: sa = 80, sv = 20, rto = 10 + 20 = 30.
        // 12: m = 12 - 10 = 2, sa = 82; |2| - (20 >> 2) = -3, sv = 17; rto = 10 + 17 = 27.
        // 8: m = 8 - 10 = -2, sa = 80; 2 - 4 = -2, sv = 15; rto = 10 + 15 = 25.
        // 20: m = 10, sa = 90; 10 - 3 = 7, sv = 22; rto = 11 + 22 = 33.
        let clock = TickClock {
            tick_ns: 500_000_000,
            phase_ns: 0,
        };
        let one = SimTime::from_ms(500);
        let mut e = Jacobson88::new(
            clock,
            VarianceGain::Four,
            SimTime::from_secs(3),
            one,
            SimTime::from_secs(64),
            true,
        );
        let mut seen = vec![];
        for m in [10, 12, 8, 20] {
            e.sample_ticks(m);
            seen.push((e.sa_sv(), e.rto_ticks()));
        }
        assert_eq!(
            seen,
            vec![((80, 20), 30), ((82, 17), 27), ((80, 15), 25), ((90, 22), 33)]
        );
        // The SIGCOMM '88 rule a + 2v on the same state: 11 + 11 = 22 ticks.
        let mut two = Jacobson88::new(
            clock,
            VarianceGain::Two,
            SimTime::from_secs(3),
            one,
            SimTime::from_secs(64),
            true,
        );
        for m in [10, 12, 8, 20] {
            two.sample_ticks(m);
        }
        assert_eq!(two.rto_ticks(), 11 + 11);
    }

    #[test]
    fn coarse_clock_counts_edges_and_fires_on_them() {
        let c = TickClock {
            tick_ns: 500,
            phase_ns: 100,
        };
        // edges at 100, 600, 1100, ...
        assert_eq!(c.ticks_between(SimTime(50), SimTime(99)), 0);
        assert_eq!(c.ticks_between(SimTime(50), SimTime(100)), 1);
        assert_eq!(c.ticks_between(SimTime(101), SimTime(1100)), 2);
        assert_eq!(c.nth_edge_after(SimTime(101), 1), SimTime(600));
        assert_eq!(c.nth_edge_after(SimTime(600), 2), SimTime(1600));
        let e = RtoEstimator::Jacobson88(Jacobson88::new(
            TickClock {
                tick_ns: 500_000_000,
                phase_ns: 0,
            },
            VarianceGain::Four,
            SimTime::from_secs(3),
            SimTime::from_secs(1),
            SimTime::from_secs(64),
            true,
        ));
        // 6 ticks armed at 0.2 s: edges at 0.5, 1.0, ... the 6th is 3.0 s.
        assert_eq!(e.deadline(SimTime::from_ms(200)), SimTime::from_secs(3));
    }

    #[test]
    fn rfc793_low_pass_and_beta() {
        let mut e = RtoEstimator::Rfc793(Rfc793::new(
            None,
            SimTime::from_secs(3),
            SimTime::from_secs(1),
            SimTime::from_secs(60),
            false,
        ));
        e.sample(SimTime::ZERO, SimTime::from_secs(1)); // srtt 1 s, rto 2 s
        assert_eq!(e.rto(), SimTime::from_secs(2));
        e.sample(SimTime::ZERO, SimTime::from_secs(2)); // srtt 0.9 + 0.2 = 1.1 s, rto 2.2 s
        assert_eq!(e.rto(), SimTime::from_ms(2200));
        e.back_off(); // no backoff configured: unchanged
        assert_eq!(e.rto(), SimTime::from_ms(2200));
    }
}
