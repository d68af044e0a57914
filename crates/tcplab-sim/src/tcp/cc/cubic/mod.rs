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
//!   at ssthresh, or ended early by a slow-start exit (`hystart`): Linux's HyStart
//!   (tcp_cubic.c, on by default there) or HyStart++ (RFC 9406); see `slow_start.rs`.
//! * After an idle period (RFC 5681 Sec. 4.1) cwnd restarts from min(IW, cwnd) and a new epoch
//!   begins at the next ACK, with K from the current W_max (Linux instead shifts the epoch by
//!   the idle time; both resume on the same curve shape).
//!
//! Windows inside the model are in segments (f64), as in the RFC; cwnd itself stays in bytes.
//!
//! `style = Linux` replaces the congestion avoidance above by Linux's (tcp_cubic.c,
//! `bictcp_update` with `tcp_cong_avoid_ai`, Linux 6.6), in whole segments; see [`CubicStyle`].

mod linux;

use super::aimd::{byte_counted_slow_start, is_decrease_factor, Growth, WindowGrowth};
use super::slow_start::{HyStart, SlowStart};
use super::{invalid, Ack, Controller, FromOptions, Loss, Millionths, Setup, Window};
use crate::error::Error;
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
pub use linux::{CubicIncrease, CubicStyle};
use linux::{LinuxCa, LINUX_HZ};

/// CUBIC's options: `cc = { algorithm = "cubic", beta = 0.7, c = 0.4, ... }`, each optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CubicOptions {
    /// beta_cubic: after a loss the window is beta x cwnd, 0 < beta < 1 (RFC 9438 Sec. 4.6;
    /// default 0.7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    /// C of W_cubic(t) = C (t - K)^3 + W_max, segments/s^3, 0 < C <= 100 (default 0.4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c: Option<f64>,
    /// Fast convergence, RFC 9438 Sec. 4.7 (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fast_convergence: Option<bool>,
    /// Slow start per ACK (default) or by bytes acknowledged (RFC 3465).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub growth: Option<WindowGrowth>,
    /// RFC 3465's L in segments, with growth = "abc" only (default 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub abc_limit: Option<u32>,
    /// The slow-start exit: "off" (default), "linux" (HyStart, tcp_cubic.c) or "rfc9406"
    /// (HyStart++).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hystart: Option<HyStart>,
    /// Whose congestion avoidance: "rfc9438" (default) or "linux" (tcp_cubic.c's
    /// bictcp_update, docs/tcp-family.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub style: Option<CubicStyle>,
    /// With style = "linux": the kernel's timer frequency CONFIG_HZ, 100, 250, 300 or 1000,
    /// whose jiffies time tcp_cubic.c's epoch and the updates of cnt (250 in profile = "linux",
    /// the kernel's default; left out: the 1 ms clock of tcplab before it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hz: Option<u32>,
    /// With style = "linux": how the credit of acknowledged segments becomes window: "linux"
    /// (default, `tcp_cong_avoid_ai`: every whole cnt at once) or "ns3" (ns-3 3.44's
    /// `TcpCubic::IncreaseWindow`: at most one segment per ACK, the rest kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub increase: Option<CubicIncrease>,
}

impl FromOptions for Cubic {
    type Options = CubicOptions;

    fn validate(o: &CubicOptions, at: &str) -> Result<(), Error> {
        if let Some(b) = o.beta.filter(|&b| !is_decrease_factor(b)) {
            return Err(invalid(
                format!("{at}.beta"),
                format!("{b} is not a valid decrease factor (expected 0 < beta < 1, to 6 decimal places)"),
            ));
        }
        if let Some(c) = o.c.filter(|&c| !(c > 0.0 && c <= 100.0)) {
            return Err(invalid(
                format!("{at}.c"),
                format!("{c} is not a valid C (expected 0 < C <= 100 segments per second cubed)"),
            ));
        }
        if let Some(hz) = o.hz {
            if !LINUX_HZ.contains(&hz) {
                return Err(invalid(
                    format!("{at}.hz"),
                    format!("{hz} (expected one of Linux's CONFIG_HZ: 100, 250, 300 or 1000)"),
                ));
            }
            if o.style != Some(CubicStyle::Linux) {
                return Err(invalid(
                    format!("{at}.hz"),
                    format!("{hz} with style = \"rfc9438\" (hz is a rule of style = \"linux\")"),
                ));
            }
        }
        if o.increase.is_some_and(|i| i != CubicIncrease::Linux) && o.style != Some(CubicStyle::Linux) {
            return Err(invalid(
                format!("{at}.increase"),
                "a rule of style = \"linux\" (ns-3's CUBIC counts as tcp_cubic.c does), but style is \"rfc9438\"",
            ));
        }
        Growth::validate(o.growth, o.abc_limit, at)
    }

    fn build(o: &CubicOptions, f: &Setup) -> Self {
        Cubic::new(CubicConfig {
            mss: f.mss,
            initial_window: f.initial_window,
            initial_ssthresh: f.initial_ssthresh,
            // Validated: in range to 6 decimal places.
            beta: o.beta.and_then(Millionths::from_f64).unwrap_or(Millionths(700_000)),
            c: o.c.unwrap_or(0.4),
            fast_convergence: o.fast_convergence.unwrap_or(true),
            growth: Growth::of(o.growth, o.abc_limit),
            hystart: o.hystart.unwrap_or_default(),
            style: o.style.unwrap_or_default(),
            hz: o.hz,
            increase: o.increase.unwrap_or_default(),
        })
    }
}

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
    /// The slow-start exit.
    pub hystart: HyStart,
    /// Whose congestion avoidance: RFC 9438's or Linux's.
    pub style: CubicStyle,
    /// With `style = Linux`: CONFIG_HZ, the jiffies of tcp_cubic.c's clock; None for the 1 ms
    /// clock with a 31 ms hold (tcplab before the option).
    pub hz: Option<u32>,
    /// With `style = Linux`: how acknowledged segments become window.
    pub increase: CubicIncrease,
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
    exit: SlowStart,
    linux: LinuxCa,
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
            exit: SlowStart::new(cfg.hystart),
            linux: LinuxCa::default(),
        }
    }

    /// When the current avoidance stage began, in either style.
    fn epoch_start(&self) -> Option<SimTime> {
        match self.cfg.style {
            CubicStyle::Rfc9438 => self.epoch.map(|e| e.start),
            CubicStyle::Linux => self.linux.epoch_start,
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

    /// Congestion avoidance on an ACK of `acked` bytes, by the rules of `style`.
    fn congestion_avoidance(&mut self, w: &mut Window, now: SimTime, acked: u64) {
        match self.cfg.style {
            CubicStyle::Rfc9438 => self.avoid(w, now, acked),
            CubicStyle::Linux => self.avoid_linux(w, now, acked),
        }
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
        let linux = self.cfg.style == CubicStyle::Linux;
        if linux {
            self.linux_loss(window);
        }
        let cwnd = window as f64 / self.cfg.mss as f64;
        let w_max = match self.w_max {
            Some(last) if self.cfg.fast_convergence && cwnd < last => cwnd * (1.0 + self.beta()) / 2.0,
            _ => cwnd,
        };
        self.w_max = Some(w_max);
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.carry = 0.0;
        self.exit.on_loss();
        if linux {
            return self.linux_ssthresh(window);
        }
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
            if self.cfg.style == CubicStyle::Linux {
                self.linux_rtt_sample(ack.now, r);
            }
            let r = r.secs_f64();
            self.srtt = Some(self.srtt.map_or(r, |s| s + (r - s) / 8.0));
        }
        if ack.recovering {
            return;
        }
        if w.cwnd < w.ssthresh {
            let mss = self.cfg.mss;
            let epoch_start = self.epoch_start();
            let (growth, initial) = (self.cfg.growth, self.cfg.initial_ssthresh);
            let step = self.exit.on_ack(w, ack, mss, growth, initial, epoch_start);
            if w.cwnd < w.ssthresh {
                // Slow start, stopping at ssthresh; what is left of a byte-counted ACK goes
                // on to congestion avoidance.
                let before = w.cwnd;
                match step.growth {
                    Growth::PerAck => w.cwnd += mss.min(w.ssthresh - w.cwnd),
                    Growth::Abc { limit } => {
                        let rest = byte_counted_slow_start(w, ack.acked, limit, mss);
                        if rest > 0 {
                            self.congestion_avoidance(w, ack.now, rest);
                        }
                    }
                }
                if step.css {
                    self.exit.conserve(w, before);
                }
                return;
            }
        }
        self.congestion_avoidance(w, ack.now, ack.acked);
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
        if self.cfg.style == CubicStyle::Linux {
            // bictcp_reset: W_max, the epoch, delay_min and the counts are forgotten.
            self.linux = LinuxCa::default();
        }
        self.exit.on_timeout();
        Window {
            cwnd: self.cfg.mss,
            ssthresh,
        }
    }

    fn on_idle(&mut self, w: &mut Window) {
        w.cwnd = w.cwnd.min(self.cfg.initial_window);
        self.epoch = None;
        self.linux.epoch_start = None;
    }
}

#[cfg(test)]
mod tests;
