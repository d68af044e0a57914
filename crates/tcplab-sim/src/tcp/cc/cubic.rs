//! CUBIC (RFC 9438), the default congestion control of Linux, FreeBSD and Windows.
//!
//! * Congestion avoidance follows W_cubic(t) = C (t - K)^3 + W_max (Sec. 4.2, Figure 1), t the
//!   time since the current avoidance stage (the epoch) began, K = cbrt((W_max - cwnd_epoch) /
//!   C) (Figure 2). On every ACK the target is W_cubic(t + RTT), held to [cwnd, 1.5 cwnd], and
//!   cwnd grows by (target - cwnd) / cwnd per segment acknowledged.
//! * The Reno-friendly region (Sec. 4.3): W_est starts at cwnd_epoch and grows by alpha_cubic =
//!   3 (1 - beta) / (1 + beta) segments per window acknowledged (1 once it reaches the window
//!   before the last reduction, cwnd_prior); while W_cubic(t) < W_est, cwnd follows W_est.
//! * A loss (Sec. 4.6): ssthresh = max(beta x cwnd, 2 SMSS), beta = 0.7 (Linux applies beta to
//!   cwnd, not FlightSize; RFC 9438 allows both). W_max = cwnd, or with fast convergence (Sec.
//!   4.7) cwnd (1 + beta) / 2 when cwnd is below the previous W_max.
//! * A timeout (Sec. 4.8): ssthresh as for a loss, cwnd = 1 SMSS (RFC 5681); the next avoidance
//!   stage starts with K = 0 and W_max = the cwnd at its start.
//! * Slow start is Reno's (Sec. 4.10), per ACK or by byte counting as in `aimd.rs`, stopping
//!   at ssthresh. (HyStart++, RFC 9406, is not implemented.)
//! * After an idle period (RFC 5681 Sec. 4.1) cwnd restarts from min(IW, cwnd) and a new epoch
//!   begins at the next ACK, with K from the current W_max (Linux instead shifts the epoch by
//!   the idle time; both resume on the same curve shape).
//!
//! Windows inside the model are in segments (f64), as in the RFC; cwnd itself stays in bytes.

use super::aimd::{byte_counted_slow_start, Growth};
use super::{Ack, Controller, Loss, Millionths, Window};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicConfig {
    /// SMSS, bytes.
    pub mss: u64,
    /// IW, bytes.
    pub initial_window: u64,
    /// The initial ssthresh, bytes.
    pub initial_ssthresh: u64,
    /// beta_cubic, the multiplicative decrease (RFC 9438: 0.7).
    pub beta: Millionths,
    /// C, segments per second cubed (RFC 9438: 0.4).
    pub c: f64,
    /// Fast convergence (Sec. 4.7), on in RFC 9438 and Linux.
    pub fast_convergence: bool,
    /// How slow start grows the window.
    pub growth: Growth,
}

/// The current congestion-avoidance stage.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Epoch {
    start: SimTime,
    /// K, seconds.
    k: f64,
    /// W_max of this stage, segments.
    w_max: f64,
    /// The Reno-friendly estimate, segments.
    w_est: f64,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    /// W_max, segments: the window before the last reduction (fast convergence may lower it);
    /// None before the first loss or after a timeout (Sec. 4.8: the next stage takes its own
    /// start as W_max).
    w_max: Option<f64>,
    /// cwnd_prior, segments: the window when the last reduction happened.
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// Smoothed RTT of the samples the ACKs carried (RFC 6298's gain 1/8), seconds.
    srtt: Option<f64>,
    /// Fractions of a byte of growth not yet added to cwnd.
    carry: f64,
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Self {
        Cubic {
            cfg,
            w_max: None,
            cwnd_prior: 0.0,
            epoch: None,
            srtt: None,
            carry: 0.0,
        }
    }

    fn beta(&self) -> f64 {
        self.cfg.beta.as_f64()
    }

    /// alpha_cubic of Sec. 4.3: Reno's average rate for a decrease of beta instead of 1/2.
    fn alpha(&self) -> f64 {
        let b = self.beta();
        3.0 * (1.0 - b) / (1.0 + b)
    }

    /// W_cubic(t), segments (Figure 1).
    fn w_cubic(&self, e: &Epoch, t: f64) -> f64 {
        self.cfg.c * (t - e.k).powi(3) + e.w_max
    }

    /// A new avoidance stage begins at `now` with cwnd `cwnd` segments (Figure 2).
    fn begin_epoch(&mut self, now: SimTime, cwnd: f64) -> Epoch {
        let w_max = self.w_max.unwrap_or(cwnd).max(cwnd);
        let k = ((w_max - cwnd) / self.cfg.c).cbrt();
        Epoch {
            start: now,
            k,
            w_max,
            w_est: cwnd,
        }
    }

    /// Adds `segments` (fractional) of growth to cwnd, carrying what does not make a byte.
    fn grow(&mut self, w: &mut Window, segments: f64) {
        let bytes = segments * self.cfg.mss as f64 + self.carry;
        let whole = bytes.floor().max(0.0);
        self.carry = bytes - whole;
        w.cwnd += whole as u64;
    }

    /// Congestion avoidance on an ACK of `acked` bytes (Sec. 4.2-4.5).
    fn avoid(&mut self, w: &mut Window, now: SimTime, acked: u64) {
        let mss = self.cfg.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.begin_epoch(now, cwnd),
        };
        let segments = acked as f64 / mss;
        // Sec. 4.3: alpha_cubic until W_est reaches cwnd_prior, then Reno's 1.
        let alpha = if e.w_est >= self.cwnd_prior {
            1.0
        } else {
            self.alpha()
        };
        e.w_est += alpha * segments / cwnd;
        self.epoch = Some(e);
        let t = now.saturating_sub(e.start).secs_f64();
        if self.w_cubic(&e, t) < e.w_est {
            // The Reno-friendly region: cwnd follows W_est.
            if e.w_est > cwnd {
                self.grow(w, e.w_est - cwnd);
            }
            return;
        }
        // Concave or convex region: aim at W_cubic one RTT ahead.
        let rtt = self.srtt.unwrap_or(0.0);
        let target = self.w_cubic(&e, t + rtt).clamp(cwnd, 1.5 * cwnd);
        self.grow(w, (target - cwnd) / cwnd * segments);
    }

    /// The reduction of Sec. 4.6-4.7 for a window of `window` bytes in use: W_max and
    /// cwnd_prior are set, the epoch ends; the new ssthresh.
    fn on_congestion(&mut self, window: u64) -> u64 {
        let cwnd = window as f64 / self.cfg.mss as f64;
        let w_max = match self.w_max {
            Some(last) if self.cfg.fast_convergence && cwnd < last => cwnd * (1.0 + self.beta()) / 2.0,
            _ => cwnd,
        };
        self.w_max = Some(w_max);
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.carry = 0.0;
        self.reduce(window).max(2 * self.cfg.mss)
    }
}

impl Controller for Cubic {
    fn initial_window(&self) -> Window {
        Window {
            cwnd: self.cfg.initial_window,
            ssthresh: self.cfg.initial_ssthresh,
        }
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if let Some(r) = ack.rtt {
            let r = r.secs_f64();
            self.srtt = Some(self.srtt.map_or(r, |s| s + (r - s) / 8.0));
        }
        if ack.recovering {
            return;
        }
        let mss = self.cfg.mss;
        if w.cwnd < w.ssthresh {
            // Slow start, stopping at ssthresh; what is left of a byte-counted ACK goes on to
            // congestion avoidance.
            match self.cfg.growth {
                Growth::PerAck => w.cwnd += mss.min(w.ssthresh - w.cwnd),
                Growth::Abc { limit } => {
                    let rest = byte_counted_slow_start(w, ack.acked, limit, mss);
                    if rest > 0 {
                        self.avoid(w, ack.now, rest);
                    }
                }
            }
            return;
        }
        self.avoid(w, ack.now, ack.acked);
    }

    fn ssthresh_after_loss(&mut self, loss: &Loss) -> u64 {
        self.on_congestion(loss.window)
    }

    fn reduce(&self, window: u64) -> u64 {
        self.cfg.beta.of(window)
    }

    fn on_timeout(&mut self, w: Window, loss: &Loss, repeated: bool) -> Window {
        let ssthresh = if repeated {
            w.ssthresh
        } else {
            self.on_congestion(loss.window)
        };
        // Sec. 4.8: the first avoidance stage after a timeout takes K = 0 and W_max = its own
        // starting window.
        self.w_max = None;
        self.epoch = None;
        Window {
            cwnd: self.cfg.mss,
            ssthresh,
        }
    }

    fn on_idle(&mut self, w: &mut Window) {
        w.cwnd = w.cwnd.min(self.cfg.initial_window);
        self.epoch = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn cubic(fast_convergence: bool) -> Cubic {
        Cubic::new(CubicConfig {
            mss: MSS,
            initial_window: 10 * MSS,
            initial_ssthresh: u64::MAX / 4,
            beta: Millionths::from_f64(0.7).unwrap(),
            c: 0.4,
            fast_convergence,
            growth: Growth::PerAck,
        })
    }

    fn ack(now_ms: u64, acked: u64, rtt_ms: Option<u64>) -> Ack {
        Ack {
            now: SimTime::from_ms(now_ms),
            acked,
            rtt: rtt_ms.map(SimTime::from_ms),
            flight: 0,
            recovering: false,
        }
    }

    fn loss(window: u64) -> Loss {
        Loss {
            now: SimTime::ZERO,
            window,
            flight_size: window,
        }
    }

    #[test]
    fn a_loss_sets_ssthresh_to_beta_cwnd_and_w_max_with_fast_convergence() {
        let mut c = cubic(true);
        // 100 segments: ssthresh 70 segments, W_max 100.
        assert_eq!(c.ssthresh_after_loss(&loss(100_000)), 70_000);
        assert_eq!(c.w_max, Some(100.0));
        // The next loss below W_max: W_max = 80 (1 + 0.7) / 2 = 68 (Sec. 4.7).
        assert_eq!(c.ssthresh_after_loss(&loss(80_000)), 56_000);
        assert!((c.w_max.unwrap() - 68.0).abs() < 1e-9);
        // Without fast convergence W_max is the window itself.
        let mut c = cubic(false);
        c.ssthresh_after_loss(&loss(100_000));
        c.ssthresh_after_loss(&loss(80_000));
        assert_eq!(c.w_max, Some(80.0));
        // Never below 2 SMSS.
        assert_eq!(cubic(true).ssthresh_after_loss(&loss(2_000)), 2_000);
    }

    #[test]
    fn the_window_reaches_w_max_at_k_concave_before_and_convex_after() {
        // W_max = 100 segments, the stage starts at 70: K = cbrt(30 / 0.4) = 4.217 s.
        let mut c = cubic(true);
        let ssthresh = c.ssthresh_after_loss(&loss(100_000));
        let mut w = Window {
            cwnd: ssthresh,
            ssthresh,
        };
        let k = (30.0f64 / 0.4).cbrt();
        // An RTT of 100 ms, one ACK per segment of a window every RTT, for 8 s.
        let mut at = Vec::new();
        let mut t_ms = 0;
        c.on_ack(&mut w, &ack(0, 0, Some(100)));
        while t_ms < 8_000 {
            let n = w.cwnd / MSS;
            for i in 0..n {
                c.on_ack(&mut w, &ack(t_ms + i * 100 / n, MSS, None));
            }
            t_ms += 100;
            at.push((t_ms as f64 / 1000.0, w.cwnd as f64 / MSS as f64));
        }
        let near = |t: f64| at.iter().find(|(s, _)| *s >= t).unwrap().1;
        // At K the window is W_max (it aims one RTT ahead, so it is there within a segment).
        assert!((near(k) - 100.0).abs() < 1.5, "cwnd at K: {}", near(k));
        // Concave before K: growth slows as it nears W_max; convex after: it speeds up.
        let g = |a: f64, b: f64| near(b) - near(a);
        assert!(g(1.0, 2.0) > g(2.0, 3.0) && g(2.0, 3.0) > g(3.0, 4.0));
        assert!(g(5.0, 6.0) < g(6.0, 7.0) && g(6.0, 7.0) < g(7.0, 8.0));
        // Each step follows the curve: at t = 2 s, W_cubic(2.1 s) within a segment.
        let wc = |t: f64| 0.4 * (t - k).powi(3) + 100.0;
        assert!((near(2.0) - wc(2.0)).abs() < 1.5, "{} vs {}", near(2.0), wc(2.0));
    }

    #[test]
    fn small_windows_follow_the_reno_friendly_estimate() {
        // W_max = 10 segments: the cubic curve is flat, W_est grows by alpha = 3 x 0.3 / 1.7 =
        // 0.529 segments per window acknowledged until it reaches cwnd_prior (10), then by 1.
        let mut c = cubic(true);
        let ssthresh = c.ssthresh_after_loss(&loss(10_000));
        let mut w = Window {
            cwnd: ssthresh,
            ssthresh,
        };
        c.on_ack(&mut w, &ack(0, 0, Some(10)));
        // With a 10 ms RTT the cubic curve stays below W_est for the 20 windows (0.2 s, K =
        // cbrt(3 / 0.4) = 1.96 s): cwnd follows W_est, alpha per window until it passes
        // cwnd_prior = 10 segments, then one segment per window, as Reno.
        let mut t = 0;
        let mut per_window = Vec::new();
        for _ in 0..20 {
            let before = w.cwnd;
            let n = w.cwnd / MSS;
            for i in 0..n {
                c.on_ack(&mut w, &ack(t + i * 10 / n, MSS, None));
            }
            t += 10;
            per_window.push((w.cwnd - before) as f64 / MSS as f64);
        }
        let alpha = 3.0 * 0.3 / 1.7;
        assert!(
            per_window[..4].iter().all(|g| (g - alpha).abs() < 0.1),
            "{per_window:?}"
        );
        assert!(
            per_window[15..].iter().all(|g| (g - 1.0).abs() < 0.1),
            "{per_window:?}"
        );
    }

    #[test]
    fn a_timeout_restarts_from_one_segment_and_the_next_stage_from_its_own_start() {
        let mut c = cubic(true);
        let w = Window {
            cwnd: 50_000,
            ssthresh: u64::MAX / 4,
        };
        let after = c.on_timeout(w, &loss(50_000), false);
        assert_eq!(
            after,
            Window {
                cwnd: MSS,
                ssthresh: 35_000
            }
        );
        assert_eq!(c.w_max, None);
        // A repeated timeout keeps ssthresh.
        assert_eq!(c.on_timeout(after, &loss(MSS), true).ssthresh, 35_000);
        // The first avoidance stage: K = 0 and W_max its starting window.
        let e = c.begin_epoch(SimTime::ZERO, 35.0);
        assert_eq!((e.k, e.w_max), (0.0, 35.0));
    }

    #[test]
    fn slow_start_stops_at_ssthresh() {
        let mut c = cubic(true);
        let mut w = Window {
            cwnd: 9_500,
            ssthresh: 10_000,
        };
        c.on_ack(&mut w, &ack(0, MSS, None));
        assert_eq!(w.cwnd, 10_000);
    }
}
