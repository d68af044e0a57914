//! Additive increase, multiplicative decrease: the congestion avoidance of Jacobson & Karels
//! 1988 with slow start (App. B), its constants as options (Sec. 3 and App. D): on congestion
//! the window is multiplied by `d` (they chose 1/2), without congestion it grows by `u`
//! segments per round trip (they chose 1, and call it "almost certainly too large").
//!
//! * Slow start (cwnd < ssthresh): one SMSS per ACK (App. B, RFC 5681 Eq. 2), or with byte
//!   counting the bytes acknowledged, at most L SMSS per ACK (RFC 3465 Sec. 2.2).
//! * Congestion avoidance: cwnd += u x SMSS x SMSS / cwnd per ACK (App. B's 1/cwnd, RFC 5681
//!   Eq. 3), or with byte counting u x SMSS once per cwnd of acknowledged bytes (RFC 3465
//!   Sec. 2.1).
//! * A loss: ssthresh = max(d x FlightSize, 2 SMSS) (RFC 5681 Eq. 4 with d = 1/2) or
//!   max(d x cwnd, 2 SMSS) (BSD's `min(snd_wnd, snd_cwnd) / 2`, what ns-2 and the papers'
//!   simulators halve).
//! * A timeout: the same ssthresh, held on a repeated timeout of one segment, and cwnd = LW =
//!   1 SMSS (RFC 5681 Sec. 3.1).
//!
//! With d = 1/2 and u = 1 (the defaults) this is the window of every earlier tcplab release.

use super::slow_start::{HyStart, SlowStart};
use super::{invalid, Ack, Controller, FromOptions, Loss, Millionths, Setup, Window};
use crate::error::Error;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// AIMD's options: `cc = { algorithm = "aimd", d = 0.7, u = 1, growth = "abc", abc_limit = 2,
/// ssthresh_rule = "cwnd", hystart = "rfc9406" }`, each optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AimdOptions {
    /// The window is multiplied by d on congestion, 0 < d < 1 (Jacobson & Karels 1988
    /// Sec. 3 and App. D; default 0.5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d: Option<f64>,
    /// Congestion avoidance adds u segments per round trip, 0 < u <= 1000 (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub u: Option<f64>,
    /// Growth per ACK (default) or by bytes acknowledged (RFC 3465).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub growth: Option<WindowGrowth>,
    /// RFC 3465's L in segments, with growth = "abc" only (default 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub abc_limit: Option<u32>,
    /// What d multiplies on a loss: RFC 5681's FlightSize (default) or cwnd.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ssthresh_rule: Option<SsthreshRule>,
    /// The slow-start exit: "off" (default), "linux" (HyStart, tcp_cubic.c) or "rfc9406"
    /// (HyStart++).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hystart: Option<HyStart>,
}

/// The largest increase accepted, segments per round trip.
pub const MAX_U: f64 = 1000.0;

/// How the window grows on an ACK of new data, as a scenario names it.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WindowGrowth {
    /// One increment per ACK (the papers' senders; Jacobson & Karels App. B).
    PerAck,
    /// Appropriate Byte Counting, RFC 3465.
    Abc,
}

/// What a loss multiplies by `d`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshRule {
    /// ssthresh = max(d x FlightSize, 2 SMSS) (RFC 5681 Eq. 4 with d = 1/2).
    FlightSize,
    /// ssthresh = max(d x cwnd, 2 SMSS), the window in use, min(cwnd, rwnd) (BSD, Linux,
    /// ns-2 and the papers' simulators).
    Cwnd,
}

/// The growth rule in force: `growth` with its `abc_limit` (HyStart++ imposes its own L).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// One increment per ACK, as the papers' senders do (Jacobson & Karels App. B).
    PerAck,
    /// Appropriate Byte Counting (RFC 3465) with L = `limit` segments.
    Abc { limit: u32 },
}

impl Growth {
    /// The rule `growth` and `abc_limit` give (per ACK, and L = 2, by default).
    pub fn of(growth: Option<WindowGrowth>, abc_limit: Option<u32>) -> Growth {
        match growth.unwrap_or(WindowGrowth::PerAck) {
            WindowGrowth::PerAck => Growth::PerAck,
            WindowGrowth::Abc => Growth::Abc {
                limit: abc_limit.unwrap_or(2),
            },
        }
    }

    /// The checks of `growth` and `abc_limit` (AIMD's and CUBIC's); `at` is the table's path.
    pub fn validate(growth: Option<WindowGrowth>, abc_limit: Option<u32>, at: &str) -> Result<(), Error> {
        match (abc_limit, growth) {
            (Some(0), _) => Err(invalid(format!("{at}.abc_limit"), "0 (expected at least 1 segment)")),
            (Some(_), g) if g != Some(WindowGrowth::Abc) => Err(invalid(
                format!("{at}.abc_limit"),
                format!("applies only with growth = \"abc\" (set {at}.growth)"),
            )),
            _ => Ok(()),
        }
    }
}

/// A decrease factor (d, CUBIC's beta): 0 < x < 1 once rounded to millionths.
pub(super) fn is_decrease_factor(x: f64) -> bool {
    let micro = (x * 1e6).round();
    x > 0.0 && x < 1.0 && micro > 0.0 && micro < 1e6
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AimdConfig {
    /// SMSS, bytes.
    pub mss: u64,
    /// IW, bytes.
    pub initial_window: u64,
    /// The initial ssthresh, bytes.
    pub initial_ssthresh: u64,
    /// The decrease factor d, 0 < d < 1.
    pub d: Millionths,
    /// The increase u, segments per round trip.
    pub u: Millionths,
    pub growth: Growth,
    pub base: SsthreshRule,
    /// The slow-start exit.
    pub hystart: HyStart,
}

impl FromOptions for Aimd {
    type Options = AimdOptions;

    fn validate(o: &AimdOptions, at: &str) -> Result<(), Error> {
        // The simulator works in millionths (Millionths): the value must stay inside its
        // range once rounded to 6 decimal places.
        if let Some(d) = o.d.filter(|&d| !is_decrease_factor(d)) {
            return Err(invalid(
                format!("{at}.d"),
                format!("{d} is not a valid decrease factor (expected 0 < d < 1, to 6 decimal places)"),
            ));
        }
        if let Some(u) = o.u.filter(|&u| !(u > 0.0 && u <= MAX_U && (u * 1e6).round() > 0.0)) {
            return Err(invalid(
                format!("{at}.u"),
                format!("{u} is not a valid increase (expected 0 < u <= {MAX_U} segments per round trip, to 6 decimal places)"),
            ));
        }
        Growth::validate(o.growth, o.abc_limit, at)
    }

    fn build(o: &AimdOptions, f: &Setup) -> Aimd {
        // Validated: d and u are in range to 6 decimal places.
        let millionths = |x: Option<f64>, default| x.and_then(Millionths::from_f64).unwrap_or(default);
        Aimd::new(AimdConfig {
            mss: f.mss,
            initial_window: f.initial_window,
            initial_ssthresh: f.initial_ssthresh,
            d: millionths(o.d, Millionths::HALF),
            u: millionths(o.u, Millionths::ONE),
            growth: Growth::of(o.growth, o.abc_limit),
            base: o.ssthresh_rule.unwrap_or(SsthreshRule::FlightSize),
            hystart: o.hystart.unwrap_or_default(),
        })
    }
}

/// RFC 3465 slow start with L = `limit` segments, stopping at ssthresh: returns what this ACK
/// counts beyond it, for congestion avoidance (Linux's tcp_slow_start / tcp_cong_avoid_ai).
/// Without the cap one cumulative ACK after a timeout, with a large L, took cwnd far past it.
pub(super) fn byte_counted_slow_start(w: &mut Window, acked: u64, limit: u32, mss: u64) -> u64 {
    let inc = acked.min(limit as u64 * mss);
    let room = w.ssthresh - w.cwnd;
    w.cwnd += inc.min(room);
    inc.saturating_sub(room)
}

#[derive(Clone, Debug)]
pub struct Aimd {
    cfg: AimdConfig,
    /// RFC 3465 `bytes_acked`: acknowledged toward the next congestion-avoidance increment.
    abc_bytes: u64,
    /// The slow-start exit, boxed (None with hystart = "off", so AIMD stays small).
    exit: Option<Box<SlowStart>>,
}

impl Aimd {
    pub fn new(cfg: AimdConfig) -> Self {
        let exit = (cfg.hystart != HyStart::Off).then(|| Box::new(SlowStart::new(cfg.hystart)));
        Aimd {
            cfg,
            abc_bytes: 0,
            exit,
        }
    }

    /// Slow start with an exit (`hystart`): the exit sees the ACK first and may end slow
    /// start; HyStart++ counts bytes with its L and keeps a quarter in CSS. Returns false when
    /// the ACK is congestion avoidance's (cwnd >= ssthresh once the exit has seen it).
    fn slow_start_with_exit(&mut self, w: &mut Window, ack: &Ack) -> bool {
        let Some(exit) = self.exit.as_deref_mut() else { return false };
        if w.cwnd >= w.ssthresh {
            return false;
        }
        let mss = self.cfg.mss;
        let step = exit.on_ack(w, ack, mss, self.cfg.growth, self.cfg.initial_ssthresh, None);
        if w.cwnd >= w.ssthresh {
            return false;
        }
        let before = w.cwnd;
        let rest = match step.growth {
            Growth::PerAck => {
                w.cwnd += mss;
                0
            }
            Growth::Abc { limit } => byte_counted_slow_start(w, ack.acked, limit, mss),
        };
        if step.css {
            exit.conserve(w, before);
        }
        if rest > 0 {
            self.avoid_by_bytes(w, rest);
        }
        true
    }

    /// RFC 3465 Sec. 2.1: u x SMSS once per cwnd of acknowledged bytes.
    fn avoid_by_bytes(&mut self, w: &mut Window, acked: u64) {
        self.abc_bytes += acked;
        if self.abc_bytes >= w.cwnd {
            self.abc_bytes -= w.cwnd;
            w.cwnd += self.cfg.u.of(self.cfg.mss).max(1);
        }
    }
}

impl Controller for Aimd {
    fn initial_window(&self) -> Window {
        Window {
            cwnd: self.cfg.initial_window,
            ssthresh: self.cfg.initial_ssthresh,
        }
    }

    #[inline]
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if ack.recovering || self.slow_start_with_exit(w, ack) {
            return;
        }
        let (mss, u) = (self.cfg.mss, self.cfg.u.0 as u128);
        match self.cfg.growth {
            Growth::PerAck if w.cwnd < w.ssthresh => w.cwnd += mss,
            Growth::PerAck => {
                // u x SMSS x SMSS / cwnd, one rounding (u = 1 gives Eq. 3's SMSS*SMSS/cwnd).
                let inc = u * (mss * mss) as u128 / (1_000_000 * w.cwnd as u128);
                w.cwnd += (inc as u64).max(1);
            }
            Growth::Abc { limit } if w.cwnd < w.ssthresh => {
                let rest = byte_counted_slow_start(w, ack.acked, limit, mss);
                if rest > 0 {
                    self.avoid_by_bytes(w, rest);
                }
            }
            Growth::Abc { .. } => self.avoid_by_bytes(w, ack.acked),
        }
    }

    fn ssthresh_after_loss(&mut self, loss: &Loss) -> u64 {
        if let Some(exit) = &mut self.exit {
            exit.on_loss();
        }
        let base = match self.cfg.base {
            SsthreshRule::FlightSize => loss.flight_size,
            SsthreshRule::Cwnd => loss.window,
        };
        self.reduce(base).max(2 * self.cfg.mss)
    }

    fn reduce(&self, window: u64) -> u64 {
        self.cfg.d.of(window)
    }

    fn on_timeout(&mut self, w: Window, loss: &Loss, repeated: bool) -> Window {
        self.abc_bytes = 0;
        if let Some(exit) = &mut self.exit {
            exit.on_timeout();
        }
        Window {
            cwnd: self.cfg.mss,
            ssthresh: if repeated {
                w.ssthresh
            } else {
                self.ssthresh_after_loss(loss)
            },
        }
    }

    /// RFC 5681 Sec. 4.1 (Jacobson & Karels App. C): restart from RW = min(IW, cwnd).
    fn on_idle(&mut self, w: &mut Window) {
        w.cwnd = w.cwnd.min(self.cfg.initial_window);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    const MSS: u64 = 1000;

    fn aimd(d: f64, u: f64, growth: Growth, base: SsthreshRule) -> Aimd {
        Aimd::new(AimdConfig {
            mss: MSS,
            initial_window: MSS,
            initial_ssthresh: u64::MAX / 4,
            d: Millionths::from_f64(d).unwrap(),
            u: Millionths::from_f64(u).unwrap(),
            growth,
            base,
            hystart: HyStart::Off,
        })
    }

    fn ack(acked: u64) -> Ack {
        Ack {
            now: SimTime::ZERO,
            acked,
            rtt: None,
            flight: 0,
            recovering: false,
        }
    }

    /// cwnd after each of `n` one-segment ACKs in congestion avoidance from 4 segments.
    fn ca(c: &mut Aimd, n: usize) -> Vec<u64> {
        let mut w = Window {
            cwnd: 4000,
            ssthresh: 4000,
        };
        (0..n)
            .map(|_| {
                c.on_ack(&mut w, &ack(MSS));
                w.cwnd
            })
            .collect()
    }

    #[test]
    fn per_ack_growth_with_u_1_is_eq_3_and_with_u_2_twice_it() {
        // u = 1: cwnd += 1000*1000/cwnd: 4000 -> 4250 -> 4485 -> 4707 -> 4919 (known_answers.rs).
        let one = ca(&mut aimd(0.5, 1.0, Growth::PerAck, SsthreshRule::FlightSize), 4);
        assert_eq!(one, [4250, 4485, 4707, 4919]);
        // u = 2: 2*10^6/4000 = 500, 2*10^6/4500 = 444, 2*10^6/4944 = 404, 2*10^6/5348 = 373.
        let two = ca(&mut aimd(0.5, 2.0, Growth::PerAck, SsthreshRule::FlightSize), 4);
        assert_eq!(two, [4500, 4944, 5348, 5721]);
        // u = 1/4 (App. D's "dropped by about a factor of four"): + 62, 61, 60.
        let q = ca(&mut aimd(0.5, 0.25, Growth::PerAck, SsthreshRule::FlightSize), 3);
        assert_eq!(q, [4062, 4123, 4183]);
    }

    #[test]
    fn byte_counting_adds_u_segments_per_window_of_acknowledged_bytes() {
        // cwnd 4000: the 4th ACK completes 4000 acknowledged bytes: + u x SMSS.
        let one = ca(
            &mut aimd(0.5, 1.0, Growth::Abc { limit: 2 }, SsthreshRule::FlightSize),
            8,
        );
        assert_eq!(one, [4000, 4000, 4000, 5000, 5000, 5000, 5000, 5000]);
        let two = ca(
            &mut aimd(0.5, 2.0, Growth::Abc { limit: 2 }, SsthreshRule::FlightSize),
            8,
        );
        assert_eq!(two, [4000, 4000, 4000, 6000, 6000, 6000, 6000, 6000]);
    }

    #[test]
    fn slow_start_ignores_u() {
        for growth in [Growth::PerAck, Growth::Abc { limit: 2 }] {
            let mut c = aimd(0.5, 2.0, growth, SsthreshRule::FlightSize);
            let mut w = c.initial_window();
            c.on_ack(&mut w, &ack(MSS));
            c.on_ack(&mut w, &ack(2 * MSS));
            assert_eq!(
                w.cwnd,
                1000 + 1000 + if growth == Growth::PerAck { 1000 } else { 2000 }
            );
        }
    }

    #[test]
    fn byte_counted_slow_start_stops_at_ssthresh_and_carries_the_rest_into_avoidance() {
        // After a timeout: cwnd 1 SMSS, ssthresh 4 SMSS, and one cumulative ACK of 20 SMSS with a
        // large L (Linux counts every acknowledged byte). Slow start takes cwnd to ssthresh
        // (4000, using 3000 of the ACK), not to 21000; the remaining 17000 bytes count toward
        // congestion avoidance: 4000 of them complete one window (+1 SMSS), 13000 stay counted.
        let mut c = aimd(0.5, 1.0, Growth::Abc { limit: 100 }, SsthreshRule::FlightSize);
        let mut w = Window {
            cwnd: 1000,
            ssthresh: 4000,
        };
        c.on_ack(&mut w, &ack(20 * MSS));
        assert_eq!(
            w,
            Window {
                cwnd: 5000,
                ssthresh: 4000
            }
        );
        assert_eq!(c.abc_bytes, 13000);
        // Below the cap nothing changes: 1000 + min(2000, L = 2 SMSS) = 3000.
        let mut c = aimd(0.5, 1.0, Growth::Abc { limit: 2 }, SsthreshRule::FlightSize);
        let mut w = Window {
            cwnd: 1000,
            ssthresh: 4000,
        };
        c.on_ack(&mut w, &ack(2 * MSS));
        assert_eq!(w.cwnd, 3000);
        c.on_ack(&mut w, &ack(2 * MSS));
        assert_eq!((w.cwnd, c.abc_bytes), (4000, 1000));
    }

    #[test]
    fn the_recovery_owns_the_window_while_it_sets_it() {
        let mut c = aimd(0.5, 1.0, Growth::PerAck, SsthreshRule::FlightSize);
        let mut w = Window {
            cwnd: 5000,
            ssthresh: 8000,
        };
        c.on_ack(
            &mut w,
            &Ack {
                recovering: true,
                ..ack(MSS)
            },
        );
        assert_eq!(w.cwnd, 5000);
    }

    #[test]
    fn a_loss_multiplies_flight_size_or_cwnd_by_d_floored_at_two_segments() {
        let loss = Loss {
            now: SimTime::ZERO,
            window: 16_000,
            flight_size: 21_000,
        };
        let ss = |d: f64, base| aimd(d, 1.0, Growth::PerAck, base).ssthresh_after_loss(&loss);
        assert_eq!(ss(0.5, SsthreshRule::FlightSize), 10_500);
        assert_eq!(ss(0.7, SsthreshRule::FlightSize), 14_700);
        assert_eq!(ss(0.875, SsthreshRule::FlightSize), 18_375);
        assert_eq!(ss(0.5, SsthreshRule::Cwnd), 8_000);
        assert_eq!(ss(0.875, SsthreshRule::Cwnd), 14_000);
        assert_eq!(ss(0.05, SsthreshRule::FlightSize), 2_000); // 1050 < 2 SMSS
    }

    #[test]
    fn a_timeout_sets_the_loss_window_and_holds_ssthresh_when_repeated() {
        let mut c = aimd(0.7, 1.0, Growth::Abc { limit: 2 }, SsthreshRule::FlightSize);
        let loss = Loss {
            now: SimTime::ZERO,
            window: 10_000,
            flight_size: 10_000,
        };
        let w = Window {
            cwnd: 10_000,
            ssthresh: 3_000,
        };
        assert_eq!(
            c.on_timeout(w, &loss, false),
            Window {
                cwnd: 1000,
                ssthresh: 7000
            }
        );
        assert_eq!(
            c.on_timeout(w, &loss, true),
            Window {
                cwnd: 1000,
                ssthresh: 3000
            }
        );
    }
}
