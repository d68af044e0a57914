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
//!   (tcp_cubic.c, on by default there) or HyStart++ (RFC 9406); see [`HyStart`].
//! * After an idle period (RFC 5681 Sec. 4.1) cwnd restarts from min(IW, cwnd) and a new epoch
//!   begins at the next ACK, with K from the current W_max (Linux instead shifts the epoch by
//!   the idle time; both resume on the same curve shape).
//!
//! Windows inside the model are in segments (f64), as in the RFC; cwnd itself stays in bytes.
//!
//! `style = Linux` replaces the congestion avoidance above by Linux's (tcp_cubic.c,
//! `bictcp_update` with `tcp_cong_avoid_ai`, Linux 6.6), in whole segments; see [`Style`].

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
    /// The slow-start exit.
    pub hystart: HyStart,
    /// Whose congestion avoidance: RFC 9438's or Linux's.
    pub style: Style,
}

/// Where RFC 9438 and Linux's tcp_cubic.c differ in congestion avoidance, whose rules apply.
///
/// `Linux` (tcp_cubic.c's `bictcp_update` and `tcp_cong_avoid_ai`, Linux 6.6), in whole
/// segments as the kernel counts them:
/// * the Reno-friendly estimate `tcp_cwnd` starts at cwnd and gains one segment per
///   `cwnd x beta_scale / 8` segments acknowledged, beta_scale = 8 (1024 + beta) / 3 / (1024 -
///   beta) = 15 for beta = 717/1024, i.e. alpha = 8/15 per window, for ever: RFC 9438's switch
///   to alpha = 1 once the estimate reaches cwnd_prior (Sec. 4.3) is not in the kernel;
/// * cwnd grows by one segment per `cnt` segments acknowledged, cnt = cwnd / (target - cwnd)
///   for the cubic target at t + delay_min (the smallest RTT, not the smoothed one), at most
///   cwnd / (tcp_cwnd - cwnd) when the estimate is ahead, at least 2 (1.5 cwnd per round
///   trip), and at most 20 while no loss has set W_max (5% per round trip);
/// * cnt is recomputed at most once per jiffy (1 ms, HZ = 1000), and not while cwnd is
///   unchanged and 31 ms have not passed (`HZ / 32`);
/// * W_max (`last_max_cwnd`) and fast convergence in whole segments; a timeout forgets W_max,
///   the epoch and delay_min (`bictcp_reset` in `bictcp_state`); RTT samples within 1 s of an
///   epoch's start do not lower delay_min (`cubictcp_acked`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Rfc9438,
    Linux,
}

/// `HZ / 32` jiffies at HZ = 1000, and one jiffy.
const LINUX_CNT_HOLD: SimTime = SimTime::from_ms(31);
const JIFFY_NS: u64 = 1_000_000;

/// tcp_cubic.c's per-connection state (`struct bictcp`) that `Style::Linux` uses, windows in
/// segments.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct LinuxCa {
    cnt: u64,
    last_max_cwnd: u64,
    last_cwnd: u64,
    last_time: SimTime,
    origin: u64,
    /// K, seconds.
    k: f64,
    delay_min: Option<SimTime>,
    epoch_start: Option<SimTime>,
    ack_cnt: u64,
    tcp_cwnd: u64,
    /// `snd_cwnd_cnt`: segments acknowledged toward the next increment.
    cwnd_cnt: u64,
    /// Bytes acknowledged short of a whole segment.
    carry: u64,
}

/// How slow start ends before a loss does.
///
/// * `Linux`: HyStart as in Linux's tcp_cubic.c (`hystart_detect` = 3), while cwnd >=
///   `hystart_low_window` (16 segments). A round starts with the first ACK beyond the data
///   outstanding when the last round started (`bictcp_hystart_reset`). The ACK train: while
///   ACKs arrive within 2 ms (`hystart_ack_delta_us`) of each other since the round start,
///   once the train is longer than (delay_min + 1 ms) / 2 (Linux 6.x adds
///   `hystart_ack_delay`, min(1 ms, 4 GSO sizes at the pacing rate), here 1 ms, and halves
///   the threshold without fq pacing), slow start ends. The delay: after the first 8 RTT
///   samples of a round (`HYSTART_MIN_SAMPLES`), their minimum above delay_min + clamp(delay_min
///   / 8, 4 ms, 16 ms) ends slow start. On either, ssthresh = cwnd. delay_min is the smallest
///   RTT seen (not updated within 1 s of an avoidance epoch's start); a timeout resets it and
///   re-arms HyStart (`bictcp_reset` in `bictcp_state`).
/// * `Rfc9406`: HyStart++ (RFC 9406 Sec. 4.2): after N_RTT_SAMPLE (8) samples in a round, a
///   round minimum RTT >= the last round's + clamp(last / 8, 4 ms, 16 ms) enters Conservative
///   Slow Start, which grows by a quarter of slow start's increase (CSS_GROWTH_DIVISOR 4);
///   a round minimum (after 8 samples) below the one that entered CSS returns to slow start;
///   after CSS_ROUNDS (5) rounds in CSS, ssthresh = cwnd. Slow start counts bytes with L = 8
///   segments per ACK (Sec. 4.3: a sender that does not pace), in CSS a quarter of that. Only
///   in the initial slow start, while ssthresh has its initial value (Sec. 4.3's SHOULD): a
///   loss in slow start or CSS sets ssthresh and ends it, and the slow start after a timeout
///   is standard (up to the ssthresh the timeout set). A round ends with the first ACK beyond
///   the data outstanding when it began (windowEnd).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStart {
    Off,
    Linux,
    Rfc9406,
}

const HYSTART_LOW_WINDOW: u64 = 16;
const HYSTART_ACK_DELTA: SimTime = SimTime::from_ms(2);
const HYSTART_ACK_DELAY: SimTime = SimTime::from_ms(1);
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: u64 = 4;
const CSS_ROUNDS: u32 = 5;
/// RFC 9406 Sec. 4.3: L, the most slow start may grow per ACK, in segments, for a sender that
/// does not pace (infinity for one that does).
const HYSTART_PP_L: u32 = 8;

/// clamp(rtt / 8, 4 ms, 16 ms): the RTT increase that counts (Linux's
/// `HYSTART_DELAY_THRESH`, RFC 9406's RttThresh).
fn delay_thresh(rtt: SimTime) -> SimTime {
    SimTime::from_ns((rtt.ns() / 8).clamp(4_000_000, 16_000_000))
}

/// The slow-start exit's state (both kinds).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Exit {
    /// Bytes acknowledged so far, and the count at which the current round ends (the data
    /// outstanding when it began: Linux's `end_seq` = snd_nxt, RFC 9406's windowEnd).
    acked_total: u64,
    round_end: u64,
    round_start: SimTime,
    last_ack: SimTime,
    /// The smallest RTT of this round so far, and how many samples it has seen.
    round_min: Option<SimTime>,
    samples: u32,
    /// Linux: the smallest RTT seen; found: slow start was ended.
    delay_min: Option<SimTime>,
    found: bool,
    /// RFC 9406: lastRoundMinRTT, cssBaselineMinRtt (Some while in CSS), rounds in CSS.
    last_round_min: Option<SimTime>,
    css_baseline: Option<SimTime>,
    css_rounds: u32,
    /// Bytes of CSS growth not yet a whole byte x CSS_GROWTH_DIVISOR.
    css_carry: u64,
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
    exit: Exit,
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
            exit: Exit::default(),
            linux: LinuxCa::default(),
        }
    }

    /// When the current avoidance stage began, in either style.
    fn epoch_start(&self) -> Option<SimTime> {
        match self.cfg.style {
            Style::Rfc9438 => self.epoch.map(|e| e.start),
            Style::Linux => self.linux.epoch_start,
        }
    }

    /// beta in 1024ths, as tcp_cubic.c's module parameter (717 for 0.7).
    fn beta_1024(&self) -> u64 {
        (self.beta() * 1024.0).round() as u64
    }

    /// Linux's congestion avoidance on an ACK of `acked` bytes (`cubictcp_cong_avoid` after
    /// slow start): `bictcp_update`, then `tcp_cong_avoid_ai`.
    fn avoid_linux(&mut self, w: &mut Window, now: SimTime, acked: u64) {
        let mss = self.cfg.mss;
        let total = acked + self.linux.carry;
        self.linux.carry = total % mss;
        let acked = total / mss;
        if acked == 0 {
            return;
        }
        let cwnd = (w.cwnd / mss).max(1);
        self.bictcp_update(now, cwnd, acked);
        let l = &mut self.linux;
        let cnt = l.cnt.max(1);
        if l.cwnd_cnt >= cnt {
            l.cwnd_cnt = 0;
            w.cwnd += mss;
        }
        l.cwnd_cnt += acked;
        if l.cwnd_cnt >= cnt {
            let d = l.cwnd_cnt / cnt;
            l.cwnd_cnt -= d * cnt;
            w.cwnd += d * mss;
        }
    }

    /// tcp_cubic.c's `bictcp_update`: sets `cnt`, the segments acknowledged per increment.
    fn bictcp_update(&mut self, now: SimTime, cwnd: u64, acked: u64) {
        let c = self.cfg.c;
        let b = self.beta_1024();
        let l = &mut self.linux;
        l.ack_cnt += acked;
        if l.last_cwnd == cwnd && now.saturating_sub(l.last_time) <= LINUX_CNT_HOLD {
            return;
        }
        let same_jiffy = now.ns() / JIFFY_NS == l.last_time.ns() / JIFFY_NS;
        if !(l.epoch_start.is_some() && same_jiffy) {
            l.last_cwnd = cwnd;
            l.last_time = now;
            let start = *l.epoch_start.get_or_insert_with(|| {
                l.ack_cnt = acked;
                l.tcp_cwnd = cwnd;
                if l.last_max_cwnd <= cwnd {
                    l.k = 0.0;
                    l.origin = cwnd;
                } else {
                    l.k = ((l.last_max_cwnd - cwnd) as f64 / c).cbrt();
                    l.origin = l.last_max_cwnd;
                }
                now
            });
            let t = now.saturating_sub(start).secs_f64() + l.delay_min.map_or(0.0, |d| d.secs_f64());
            let delta = (c * (t - l.k).abs().powi(3)).floor() as u64;
            let target = if t < l.k {
                l.origin.saturating_sub(delta)
            } else {
                l.origin + delta
            };
            l.cnt = if target > cwnd {
                cwnd / (target - cwnd)
            } else {
                100 * cwnd
            };
            if l.last_max_cwnd == 0 && l.cnt > 20 {
                l.cnt = 20;
            }
        }
        // TCP friendliness: beta_scale = 8 (1024 + beta) / 3 / (1024 - beta), in integers.
        let beta_scale = 8 * (1024 + b) / 3 / (1024 - b).max(1);
        let delta = ((cwnd * beta_scale) >> 3).max(1);
        while l.ack_cnt > delta {
            l.ack_cnt -= delta;
            l.tcp_cwnd += 1;
        }
        if l.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (l.tcp_cwnd - cwnd);
            l.cnt = l.cnt.min(max_cnt);
        }
        l.cnt = l.cnt.max(2);
    }

    /// The slow-start exit sees an ACK while cwnd < ssthresh, before slow start grows the
    /// window; it may set ssthresh = cwnd.
    fn slow_start_exit(&mut self, w: &mut Window, ack: &Ack) {
        let epoch_start = self.epoch_start();
        let x = &mut self.exit;
        x.acked_total += ack.acked;
        let new_round = x.acked_total > x.round_end;
        match self.cfg.hystart {
            HyStart::Off => {}
            HyStart::Linux => {
                // bictcp_acked, then bictcp_cong_avoid's round reset.
                if let Some(rtt) = ack.rtt {
                    let rtt = rtt.max(SimTime::from_us(1));
                    let fresh_epoch = epoch_start
                        .is_some_and(|start| ack.now.saturating_sub(start) < SimTime::from_secs(1));
                    if !fresh_epoch {
                        x.delay_min = Some(x.delay_min.map_or(rtt, |d| d.min(rtt)));
                    }
                    if let (false, Some(delay_min)) = (x.found, x.delay_min) {
                        if w.cwnd >= HYSTART_LOW_WINDOW * self.cfg.mss {
                            Self::hystart_update(x, w, ack.now, rtt, delay_min);
                        }
                    }
                }
                if new_round {
                    x.round_start = ack.now;
                    x.last_ack = ack.now;
                    x.round_end = x.acked_total + ack.flight;
                    x.round_min = None;
                    x.samples = 0;
                }
            }
            HyStart::Rfc9406 => {
                if new_round {
                    x.round_end = x.acked_total + ack.flight;
                    x.last_round_min = x.round_min;
                    x.round_min = None;
                    x.samples = 0;
                    if x.css_baseline.is_some() {
                        x.css_rounds += 1;
                        if x.css_rounds >= CSS_ROUNDS {
                            w.ssthresh = w.cwnd;
                            return;
                        }
                    }
                }
                if let Some(rtt) = ack.rtt {
                    x.round_min = Some(x.round_min.map_or(rtt, |m| m.min(rtt)));
                    x.samples += 1;
                }
                if x.samples < N_RTT_SAMPLE {
                    return;
                }
                let Some(cur) = x.round_min else { return };
                match (x.css_baseline, x.last_round_min) {
                    // Sec. 4.2: in CSS, only the round's minimum against the baseline counts
                    // (lastRoundMinRTT need not be valid).
                    (Some(base), _) if cur < base => x.css_baseline = None,
                    (None, Some(last)) if cur >= last.saturating_add(delay_thresh(last)) => {
                        x.css_baseline = Some(cur);
                        x.css_rounds = 0;
                    }
                    _ => {}
                }
            }
        }
    }

    /// Linux's `hystart_update`: the ACK train and the delay increase.
    fn hystart_update(x: &mut Exit, w: &mut Window, now: SimTime, rtt: SimTime, delay_min: SimTime) {
        if now.saturating_sub(x.last_ack) <= HYSTART_ACK_DELTA {
            x.last_ack = now;
            let threshold = SimTime::from_ns(delay_min.saturating_add(HYSTART_ACK_DELAY).ns() / 2);
            if now.saturating_sub(x.round_start) > threshold {
                x.found = true;
                w.ssthresh = w.cwnd;
            }
        }
        x.round_min = Some(x.round_min.map_or(rtt, |m| m.min(rtt)));
        if x.samples < N_RTT_SAMPLE {
            x.samples += 1;
        } else if x.round_min > Some(delay_min.saturating_add(delay_thresh(delay_min))) {
            x.found = true;
            w.ssthresh = w.cwnd;
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
            Style::Rfc9438 => self.avoid(w, now, acked),
            Style::Linux => self.avoid_linux(w, now, acked),
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
        if self.cfg.style == Style::Linux {
            // bictcp_recalc_ssthresh, in whole segments; tcp_init_cwnd_reduction clears
            // snd_cwnd_cnt.
            let cwnd = window / self.cfg.mss;
            let b = self.beta_1024();
            let l = &mut self.linux;
            l.epoch_start = None;
            l.cwnd_cnt = 0;
            l.last_max_cwnd = if cwnd < l.last_max_cwnd && self.cfg.fast_convergence {
                cwnd * (1024 + b) / 2048
            } else {
                cwnd
            };
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
        self.exit.css_baseline = None;
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
            if self.cfg.style == Style::Linux {
                // cubictcp_acked: not within a second of an epoch's start.
                let l = &mut self.linux;
                if !l
                    .epoch_start
                    .is_some_and(|s| ack.now.saturating_sub(s) < SimTime::from_secs(1))
                {
                    let d = r.max(SimTime::from_us(1));
                    l.delay_min = Some(l.delay_min.map_or(d, |m| m.min(d)));
                }
            }
            let r = r.secs_f64();
            self.srtt = Some(self.srtt.map_or(r, |s| s + (r - s) / 8.0));
        }
        if ack.recovering {
            return;
        }
        let mss = self.cfg.mss;
        // RFC 9406 Sec. 4.3: HyStart++ only in the initial slow start, while ssthresh is at
        // its initial value (not after a loss or a timeout; after an idle restart, which Sec.
        // 4.3 allows, yes).
        let hystart_pp = self.cfg.hystart == HyStart::Rfc9406 && w.ssthresh == self.cfg.initial_ssthresh;
        // RFC 9406: an ACK grows the window by the rule in force when it arrived.
        let in_css = hystart_pp && self.exit.css_baseline.is_some();
        let exit_on = match self.cfg.hystart {
            HyStart::Off => false,
            HyStart::Linux => true,
            HyStart::Rfc9406 => hystart_pp,
        };
        if w.cwnd < w.ssthresh && exit_on {
            self.slow_start_exit(w, ack);
        }
        if w.cwnd < w.ssthresh {
            let before = w.cwnd;
            // Slow start, stopping at ssthresh; what is left of a byte-counted ACK goes on to
            // congestion avoidance. HyStart++ counts bytes with L = 8 (RFC 9406 Sec. 4.3, a
            // sender that does not pace, as CUBIC here never does).
            let growth = if hystart_pp {
                Growth::Abc { limit: HYSTART_PP_L }
            } else {
                self.cfg.growth
            };
            match growth {
                Growth::PerAck => w.cwnd += mss.min(w.ssthresh - w.cwnd),
                Growth::Abc { limit } => {
                    let rest = byte_counted_slow_start(w, ack.acked, limit, mss);
                    if rest > 0 {
                        self.congestion_avoidance(w, ack.now, rest);
                    }
                }
            }
            if in_css && w.cwnd < w.ssthresh {
                // RFC 9406's Conservative Slow Start: a quarter of slow start's increase.
                let x = &mut self.exit;
                let grown = w.cwnd - before + x.css_carry;
                x.css_carry = grown % CSS_GROWTH_DIVISOR;
                w.cwnd = before + grown / CSS_GROWTH_DIVISOR;
            }
            return;
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
        if self.cfg.style == Style::Linux {
            // bictcp_reset: W_max, the epoch, delay_min and the counts are forgotten.
            self.linux = LinuxCa::default();
        }
        // bictcp_state(TCP_CA_Loss): bictcp_reset and bictcp_hystart_reset; a new round
        // begins with the next ACK.
        self.exit = Exit {
            acked_total: self.exit.acked_total,
            round_end: self.exit.acked_total,
            ..Exit::default()
        };
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
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn cubic(fast_convergence: bool) -> Cubic {
        with_hystart(fast_convergence, HyStart::Off)
    }

    fn with_hystart(fast_convergence: bool, hystart: HyStart) -> Cubic {
        Cubic::new(CubicConfig {
            mss: MSS,
            initial_window: 10 * MSS,
            initial_ssthresh: u64::MAX / 4,
            beta: Millionths::from_f64(0.7).unwrap(),
            c: 0.4,
            fast_convergence,
            growth: Growth::PerAck,
            hystart,
            style: Style::Rfc9438,
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

    /// One round of a window-limited slow start: `n` segments in flight are acknowledged one
    /// by one, `spacing_us` apart from `start_us`, each with an RTT sample of `rtt_us`; the
    /// sender sends what cwnd allows after each ACK. Returns the segments sent in the round
    /// (the next round's ACKs).
    fn round(c: &mut Cubic, w: &mut Window, start_us: u64, n: u64, spacing_us: u64, rtt_us: u64) -> u64 {
        let mut sent = 0;
        for i in 0..n {
            let rest = n - i - 1;
            let a = Ack {
                now: SimTime::from_us(start_us + i * spacing_us),
                acked: MSS,
                rtt: Some(SimTime::from_us(rtt_us)),
                flight: (rest + sent) * MSS,
                recovering: false,
            };
            c.on_ack(w, &a);
            sent = sent.max((w.cwnd / MSS).saturating_sub(rest));
        }
        sent
    }

    fn opened() -> Window {
        Window {
            cwnd: 10 * MSS,
            ssthresh: u64::MAX / 4,
        }
    }

    /// Rounds 1 s apart with ACKs `spacing_us` apart, the RTT of round r `rtt_us(r)`, until
    /// slow start ends or `rounds` rounds; the window after each round.
    fn slow_start(
        c: &mut Cubic,
        rounds: u64,
        spacing_us: u64,
        rtt_us: impl Fn(u64) -> u64,
    ) -> (Window, Vec<u64>) {
        let mut w = opened();
        let mut n = 10;
        let mut after = Vec::new();
        for r in 0..rounds {
            n = round(c, &mut w, r * 1_000_000, n, spacing_us, rtt_us(r));
            after.push(w.cwnd);
            if w.cwnd >= w.ssthresh {
                break;
            }
        }
        (w, after)
    }

    #[test]
    fn without_an_exit_slow_start_doubles_the_window_every_round() {
        let (w, after) = slow_start(
            &mut cubic(true),
            4,
            3_000,
            |r| if r >= 3 { 120_000 } else { 100_000 },
        );
        assert_eq!(after, [20_000, 40_000, 80_000, 160_000]);
        assert_eq!(w.ssthresh, u64::MAX / 4);
    }

    #[test]
    fn linux_hystart_ends_slow_start_on_a_delay_increase_after_eight_samples() {
        // delay_min 100 ms; from round 3 (80 segments) the RTT is 120 ms > 100 + 12.5 ms.
        // Round 3's first ACK still counts in round 2 (bictcp_acked runs before the round
        // reset in bictcp_cong_avoid); its ACKs 1-8 are the 8 samples, ACK 9 ends slow start
        // with cwnd = 80 + 9 segments. ACKs 3 ms apart never make a train.
        let mut c = with_hystart(true, HyStart::Linux);
        let (w, after) = slow_start(&mut c, 6, 3_000, |r| if r >= 3 { 120_000 } else { 100_000 });
        assert_eq!(w.ssthresh, 89_000);
        assert_eq!(after.len(), 4);
        assert_eq!(&after[..3], [20_000, 40_000, 80_000]);
        // A rise of 12 ms (below the threshold) does not end it.
        let mut c = with_hystart(true, HyStart::Linux);
        let (w, _) = slow_start(&mut c, 4, 3_000, |r| if r >= 3 { 112_000 } else { 100_000 });
        assert_eq!(w.ssthresh, u64::MAX / 4);
    }

    #[test]
    fn linux_hystart_ends_slow_start_when_the_ack_train_passes_half_delay_min() {
        // RTT 20 ms, ACKs 100 us apart (a fast bottleneck): the threshold is (20 + 1) / 2 =
        // 10.5 ms. Round 3's train (80 ACKs) lasts 7.9 ms; in round 4 (160 segments) ACK 106
        // is 10.6 ms after the round start: ssthresh = cwnd = 160 + 106 segments.
        let mut c = with_hystart(true, HyStart::Linux);
        let (w, after) = slow_start(&mut c, 8, 100, |_| 20_000);
        assert_eq!(after.len(), 5);
        assert_eq!(w.ssthresh, 266_000);
        // ACKs 2 ms apart: the train passes 10.5 ms at ACK 6 of a round, but in round 0 cwnd
        // reaches hystart_low_window (16 segments) only at ACK 6, and the train counts from the
        // last ACK HyStart saw (the round start, 12 ms before): it ends slow start at ACK 6 of
        // round 1, cwnd 20 + 6 segments.
        let mut c = with_hystart(true, HyStart::Linux);
        let (w, after) = slow_start(&mut c, 8, 2_000, |_| 20_000);
        assert_eq!((after.len(), w.ssthresh), (2, 26_000));
    }

    #[test]
    fn hystart_plus_plus_enters_css_grows_by_a_quarter_and_exits_after_five_rounds() {
        // Round 3 (80 segments) has RTT 120 ms >= 100 + 12.5 ms: its 8th sample (ACK 7) enters
        // CSS after growing the window by a full segment (cwnd 88); its other 72 ACKs add a
        // quarter segment each (106). Rounds 4-7 grow by a quarter per ACK: 106 -> 132.5 ->
        // 165.5 -> 206.75 -> 258.25 segments; the start of round 8 completes CSS's 5th round
        // and ends slow start with ssthresh = cwnd (the rest of round 8 is avoidance).
        let mut c = with_hystart(true, HyStart::Rfc9406);
        let (w, after) = slow_start(&mut c, 12, 3_000, |r| if r >= 3 { 120_000 } else { 100_000 });
        assert_eq!(
            after[..8],
            [20_000, 40_000, 80_000, 106_000, 132_500, 165_500, 206_750, 258_250]
        );
        assert_eq!(after.len(), 9);
        assert_eq!(w.ssthresh, 258_250);
    }

    #[test]
    fn hystart_plus_plus_returns_to_slow_start_when_the_rtt_falls_back() {
        // As above, but round 4 is back at 100 ms: its 8th sample (ACK 7, grown by a quarter
        // like ACKs 0-6) is below CSS's baseline of 120 ms, so its other 98 ACKs grow by a full
        // segment: 106 + 2 + 98 = 206 segments, and slow start goes on doubling.
        let mut c = with_hystart(true, HyStart::Rfc9406);
        let (w, after) = slow_start(&mut c, 6, 3_000, |r| if r == 3 { 120_000 } else { 100_000 });
        assert_eq!(after, [20_000, 40_000, 80_000, 106_000, 206_000, 412_000]);
        assert_eq!(w.ssthresh, u64::MAX / 4);
    }

    #[test]
    fn hystart_plus_plus_is_not_used_after_a_timeout() {
        // RFC 9406 Sec. 4.3: only the initial slow start. After a timeout (ssthresh 0.7 x 100
        // segments) slow start doubles the window every round although round 3's RTT (200 ms)
        // is far above round 2's (100 ms + 12.5 ms): 2, 4, 8, 16, 32, 64 segments. (Used after
        // the timeout too, round 3's 8th sample entered CSS and round 4 would end at 20.)
        let mut c = with_hystart(true, HyStart::Rfc9406);
        let mut w = c.on_timeout(
            Window {
                cwnd: 100 * MSS,
                ssthresh: u64::MAX / 4,
            },
            &loss(100 * MSS),
            false,
        );
        assert_eq!((w.cwnd, w.ssthresh), (1000, 70_000));
        let (mut n, mut after) = (1, vec![]);
        for r in 0..6 {
            let rtt = if r >= 3 { 200_000 } else { 100_000 };
            n = round(&mut c, &mut w, r * 1_000_000, n, 3_000, rtt);
            after.push(w.cwnd);
        }
        assert_eq!(after, [2000, 4000, 8000, 16_000, 32_000, 64_000]);
    }

    #[test]
    fn hystart_plus_plus_leaves_css_on_a_low_round_even_after_a_round_without_samples() {
        // CSS entered in round 3 (120 ms, baseline 120 ms) as in the test above; round 4's
        // ACKs carry no RTT sample (lastRoundMinRTT becomes invalid), round 5's are back at
        // 100 ms: its 8th sample is below the baseline, which is all Sec. 4.2 asks in CSS, so
        // slow start resumes: 132.5 + 8 x 0.25 + 124 = 258.5 segments (165.5 staying in CSS).
        let mut c = with_hystart(true, HyStart::Rfc9406);
        let mut w = opened();
        let mut n = 10;
        let mut after = vec![];
        for r in 0..6 {
            let rtt = match r {
                3 => Some(120_000),
                4 => None,
                _ => Some(100_000),
            };
            let mut sent = 0;
            for i in 0..n {
                let rest = n - i - 1;
                let a = Ack {
                    now: SimTime::from_us(r * 1_000_000 + i * 3_000),
                    acked: MSS,
                    rtt: rtt.map(SimTime::from_us),
                    flight: (rest + sent) * MSS,
                    recovering: false,
                };
                c.on_ack(&mut w, &a);
                sent = sent.max((w.cwnd / MSS).saturating_sub(rest));
            }
            n = sent;
            after.push(w.cwnd);
        }
        assert_eq!(after, [20_000, 40_000, 80_000, 106_000, 132_500, 258_500]);
    }

    #[test]
    fn hystart_plus_plus_slow_start_grows_at_most_eight_segments_per_ack() {
        // RFC 9406 Sec. 4.3, L = 8 for a sender that does not pace: an ACK of 20 segments grows
        // the window by 8 (10 -> 18 segments), whatever the flow's own byte-counting limit
        // (65535 here, as in profile = "linux"); without HyStart++ by all 20.
        let mut c = with_hystart(true, HyStart::Rfc9406);
        c.cfg.growth = Growth::Abc { limit: 65535 };
        let mut w = opened();
        c.on_ack(&mut w, &ack(100, 20 * MSS, Some(100)));
        assert_eq!(w.cwnd, 18_000);
        let mut c = with_hystart(true, HyStart::Off);
        c.cfg.growth = Growth::Abc { limit: 65535 };
        let mut w = opened();
        c.on_ack(&mut w, &ack(100, 20 * MSS, Some(100)));
        assert_eq!(w.cwnd, 30_000);
    }

    fn linux_style(c: f64) -> Cubic {
        let mut x = cubic(true);
        x.cfg.style = Style::Linux;
        x.cfg.c = c;
        x
    }

    /// ACKs of one segment each, 50 ms apart from `t0_ms` (longer than the 31 ms for which
    /// Linux keeps cnt), no RTT samples; the ACK numbers (1-based) at which cwnd reached a
    /// new whole segment, and that segment count.
    fn growth_points(c: &mut Cubic, w: &mut Window, t0_ms: u64, acks: u64) -> Vec<(u64, u64)> {
        let mut out = vec![];
        for i in 1..=acks {
            let before = w.cwnd / MSS;
            c.on_ack(w, &ack(t0_ms + 50 * (i - 1), MSS, None));
            if w.cwnd / MSS != before {
                out.push((i, w.cwnd / MSS));
            }
        }
        out
    }

    #[test]
    fn linux_epoch_start_k_target_and_cnt() {
        // A loss at cwnd 10 (last_max_cwnd 10, ssthresh 7), then the first avoidance ACK at
        // 10 s with an RTT sample of 100 ms (delay_min 100 ms): K = cbrt(3 / 0.4) s, the
        // origin 10, t = 0 + delay_min = 0.1 s, delta = floor(0.4 (K - 0.1)^3) = floor(2.56) =
        // 2, target 8, cnt = 7 / (8 - 7) = 7; the Reno-friendly estimate starts at cwnd (7)
        // with ack_cnt 1.
        let mut c = linux_style(0.4);
        assert_eq!(c.ssthresh_after_loss(&loss(10 * MSS)), 7 * MSS);
        assert_eq!(c.linux.last_max_cwnd, 10);
        let mut w = Window {
            cwnd: 7 * MSS,
            ssthresh: 7 * MSS,
        };
        c.on_ack(&mut w, &ack(10_000, MSS, Some(100)));
        let l = c.linux;
        assert!((l.k - 7.5f64.cbrt()).abs() < 1e-12);
        assert_eq!(
            (l.origin, l.cnt, l.tcp_cwnd, l.ack_cnt, l.cwnd_cnt),
            (10, 7, 7, 1, 1)
        );
        assert_eq!(l.delay_min, Some(SimTime::from_ms(100)));
        // 50 ms later twice: delta still 2 (t = 0.15, 0.2 s), cnt 7; at t = 0.25 s delta =
        // floor(0.4 x 1.7074^3) = 1, target 9, cnt = 7 / 2 = 3: snd_cwnd_cnt (3) has reached
        // it, so cwnd grows to 8 before this ACK is counted.
        for (i, t) in [10_050, 10_100].into_iter().enumerate() {
            c.on_ack(&mut w, &ack(t, MSS, None));
            assert_eq!(
                (c.linux.cnt, c.linux.cwnd_cnt, w.cwnd),
                (7, 2 + i as u64, 7 * MSS)
            );
        }
        c.on_ack(&mut w, &ack(10_150, MSS, None));
        assert_eq!((c.linux.cnt, c.linux.cwnd_cnt, w.cwnd), (3, 1, 8 * MSS));
    }

    #[test]
    fn linux_reno_friendly_estimate_keeps_alpha_after_cwnd_prior() {
        // After a loss at 10 (cwnd_prior 10), an avoidance stage starting at cwnd 10 with a
        // negligible cubic term (C = 1e-4: K = 0, the target stays 10 for 21 s) grows only by
        // the Reno-friendly estimate. Linux: one segment per floor(cwnd x 15 / 8) segments
        // acknowledged, for ever: 11 at ACK 19 (18 + 1), 12 at ACK 39 (+20), 13 at ACK 61
        // (+22), i.e. 8/15 segment per window. RFC 9438: W_est starts at cwnd_prior, so alpha
        // is 1 at once, one segment per window (W_est gains 1 / cwnd per ACK, cwnd follows it
        // byte by byte): 11 at ACK 11, 12 at 22, 13 at 35.
        let mut c = linux_style(1e-4);
        c.ssthresh_after_loss(&loss(10 * MSS));
        let mut w = Window {
            cwnd: 10 * MSS,
            ssthresh: 7 * MSS,
        };
        assert_eq!(
            growth_points(&mut c, &mut w, 20_000, 61),
            [(19, 11), (39, 12), (61, 13)]
        );
        let mut c = cubic(true);
        c.cfg.c = 1e-4;
        c.ssthresh_after_loss(&loss(10 * MSS));
        let mut w = Window {
            cwnd: 10 * MSS,
            ssthresh: 7 * MSS,
        };
        assert_eq!(
            growth_points(&mut c, &mut w, 20_000, 35),
            [(11, 11), (22, 12), (35, 13)]
        );
    }

    #[test]
    fn linux_cnt_is_at_most_20_before_the_first_loss() {
        // No loss yet (last_max_cwnd 0): K = 0, the target is cwnd, cnt would be 100 x cwnd;
        // Linux holds it at 20 ("increase cwnd 5% per RTT") until the Reno-friendly estimate
        // (one segment per 18 segments acknowledged at cwnd 10) asks for more at ACK 19.
        let mut c = linux_style(0.4);
        let mut w = Window {
            cwnd: 10 * MSS,
            ssthresh: 10 * MSS,
        };
        for i in 0..18 {
            c.on_ack(&mut w, &ack(30_000 + 50 * i, MSS, None));
            assert_eq!((c.linux.cnt, w.cwnd), (20, 10 * MSS));
        }
        c.on_ack(&mut w, &ack(30_900, MSS, None));
        assert_eq!((c.linux.tcp_cwnd, c.linux.cnt, w.cwnd), (11, 10, 11 * MSS));
    }

    #[test]
    fn linux_cnt_is_kept_within_31_ms_while_cwnd_is_unchanged() {
        // bictcp_update returns early when cwnd has not changed and 31 ms (HZ / 32) have not
        // passed: the ACK counts toward the estimate but cnt is not recomputed.
        let mut c = linux_style(0.4);
        c.ssthresh_after_loss(&loss(10 * MSS));
        let mut w = Window {
            cwnd: 7 * MSS,
            ssthresh: 7 * MSS,
        };
        c.on_ack(&mut w, &ack(10_000, MSS, Some(100)));
        assert_eq!(c.linux.last_time, SimTime::from_ms(10_000));
        c.on_ack(&mut w, &ack(10_031, MSS, None));
        assert_eq!(
            (c.linux.last_time, c.linux.ack_cnt),
            (SimTime::from_ms(10_000), 2)
        );
        c.on_ack(&mut w, &ack(10_032, MSS, None));
        assert_eq!(c.linux.last_time, SimTime::from_ms(10_032));
    }

    #[test]
    fn linux_timeout_forgets_w_max_and_delay_min() {
        let mut c = linux_style(0.4);
        c.ssthresh_after_loss(&loss(10 * MSS));
        let mut w = Window {
            cwnd: 7 * MSS,
            ssthresh: 7 * MSS,
        };
        c.on_ack(&mut w, &ack(10_000, MSS, Some(100)));
        let w = c.on_timeout(w, &loss(8 * MSS), false);
        assert_eq!((w.cwnd, w.ssthresh), (MSS, 5_600));
        assert_eq!(c.linux, LinuxCa::default());
    }
}
