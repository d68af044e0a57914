//! CUBIC's congestion avoidance as Linux runs it (`style = "linux"`): tcp_cubic.c's
//! `bictcp_update` with `tcp_cong_avoid_ai` (Linux 6.6), in whole segments, and the parts of
//! its loss, timeout and RTT handling that differ from RFC 9438 (`mod.rs`).

use super::Cubic;
use crate::tcp::cc::Window;
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
/// * cnt is recomputed at most once per jiffy, and not while cwnd is unchanged and HZ / 32
///   jiffies have not passed: with `hz` on the kernel's jiffies (t and K in 2^-10 s, as
///   tcp_cubic.c computes them), without it on a 1 ms jiffy with a 31 ms hold;
/// * W_max (`last_max_cwnd`), fast convergence and ssthresh (max(cwnd x beta / 1024, 2),
///   `cubictcp_recalc_ssthresh`) in whole segments; a timeout forgets W_max,
///   the epoch and delay_min (`bictcp_reset` in `bictcp_state`); RTT samples within 1 s of an
///   epoch's start do not lower delay_min (`cubictcp_acked`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CubicStyle {
    /// RFC 9438: W_est grows by alpha_cubic until it reaches cwnd_prior, then by 1.
    #[default]
    Rfc9438,
    /// Linux's tcp_cubic.c (bictcp_update): the Reno-friendly estimate grows by 8/15 segment
    /// per window for ever, the cubic target at t + min RTT, whole segments.
    Linux,
}

/// How `style = "linux"` turns the segments acknowledged into window (`increase`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CubicIncrease {
    /// `tcp_cong_avoid_ai` (Linux 6.6): a credit of cnt or more left from before gives one
    /// segment and is cleared; then the ACK's segments join the credit and every whole cnt of
    /// it is one segment more, at once.
    #[default]
    Linux,
    /// ns-3 3.44's `TcpCubic::IncreaseWindow` (tcp-cubic.cc lines 216-231): the ACK's segments
    /// join the credit, and if it reaches cnt, one segment and cnt off the credit; at most one
    /// segment per ACK, the rest kept for the next ones.
    Ns3,
}

/// `HZ / 32` jiffies at HZ = 1000, and one jiffy (the clock without `hz`).
const LINUX_CNT_HOLD: SimTime = SimTime::from_ms(31);
const JIFFY_NS: u64 = 1_000_000;
/// The values of CONFIG_HZ Linux offers (kernel/Kconfig.hz; 250 is its default).
pub(super) const LINUX_HZ: [u32; 4] = [100, 250, 300, 1000];
/// tcp_cubic.c's time unit in `bictcp_update`: 2^-BICTCP_HZ s, BICTCP_HZ = 10.
const BICTCP_HZ: u32 = 10;

/// `tcp_jiffies32` at `now` for a kernel of `hz` (jiffies counted from time zero).
fn jiffies(now: SimTime, hz: u32) -> u64 {
    (now.ns() as u128 * hz as u128 / 1_000_000_000) as u64
}

/// `usecs_to_jiffies`: rounded up.
fn usecs_to_jiffies(d: SimTime, hz: u32) -> u64 {
    let us = d.ns() / 1000;
    (us as u128 * hz as u128).div_ceil(1_000_000) as u64
}

/// tcp_cubic.c's per-connection state (`struct bictcp`) that `CubicStyle::Linux` uses, windows in
/// segments.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct LinuxCa {
    pub(super) cnt: u64,
    pub(super) last_max_cwnd: u64,
    pub(super) last_cwnd: u64,
    pub(super) last_time: SimTime,
    pub(super) origin: u64,
    /// K, seconds (with `hz`: in 2^-10 s, tcp_cubic.c's `bic_K`).
    pub(super) k: f64,
    pub(super) delay_min: Option<SimTime>,
    pub(super) epoch_start: Option<SimTime>,
    pub(super) ack_cnt: u64,
    pub(super) tcp_cwnd: u64,
    /// `snd_cwnd_cnt`: segments acknowledged toward the next increment.
    pub(super) cwnd_cnt: u64,
    /// Bytes acknowledged short of a whole segment.
    pub(super) carry: u64,
}

impl LinuxCa {
    /// cnt for the cubic target `target` (`bictcp_update`): cwnd / (target - cwnd), or
    /// 100 cwnd at or above it; at most 20 before any loss set W_max.
    fn set_cnt(&mut self, target: u64, cwnd: u64) {
        self.cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100 * cwnd
        };
        if self.last_max_cwnd == 0 && self.cnt > 20 {
            self.cnt = 20;
        }
    }

    /// `bictcp_update` up to its friendliness part on tcp_cubic.c's own clock: jiffies at
    /// `hz`, t and K in 2^-10 s (`t <<= BICTCP_HZ; do_div(t, HZ)`), the cube as
    /// `(cube_rtt_scale * offs^3) >> (10 + 3 BICTCP_HZ)` with cube_rtt_scale = bic_scale x 10,
    /// bic_scale = C x 1024 / 10 (41 for C = 0.4). False when it returns before that part:
    /// cwnd unchanged within HZ / 32 jiffies.
    fn update_jiffies(&mut self, now: SimTime, cwnd: u64, acked: u64, c: f64, hz: u32) -> bool {
        let j = jiffies(now, hz);
        let last = jiffies(self.last_time, hz);
        if self.last_cwnd == cwnd && j.saturating_sub(last) <= (hz / 32) as u64 {
            return false;
        }
        // "The CUBIC function can update ca->cnt at most once per jiffy."
        if self.epoch_start.is_some() && j == last {
            return true;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;
        let cube_rtt_scale = (c * 1024.0 / 10.0).round().max(1.0) as u64 * 10;
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.k = 0.0;
                    self.origin = cwnd;
                } else {
                    // bic_K = cubic_root(cube_factor x (W_max - cwnd)), cube_factor =
                    // 2^40 / cube_rtt_scale (the kernel's table-and-Newton root, exact here).
                    let k3 = ((self.last_max_cwnd - cwnd) << (10 + 3 * BICTCP_HZ)) as f64
                        / cube_rtt_scale as f64;
                    self.k = k3.cbrt().floor();
                    self.origin = self.last_max_cwnd;
                }
                now
            }
        };
        let ticks = jiffies(now, hz) - jiffies(start, hz)
            + self.delay_min.map_or(0, |d| usecs_to_jiffies(d, hz));
        let t = (ticks << BICTCP_HZ) / hz as u64;
        let k = self.k as u64;
        let offs = t.abs_diff(k) as u128;
        let delta = ((cube_rtt_scale as u128 * offs * offs * offs) >> (10 + 3 * BICTCP_HZ)) as u64;
        let target = if t < k {
            self.origin.saturating_sub(delta)
        } else {
            self.origin + delta
        };
        self.set_cnt(target, cwnd);
        true
    }
}

impl Cubic {
    /// Linux's congestion avoidance on an ACK of `acked` bytes (`cubictcp_cong_avoid` after
    /// slow start): `bictcp_update`, then `tcp_cong_avoid_ai`.
    pub(super) fn avoid_linux(&mut self, w: &mut Window, now: SimTime, acked: u64) {
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
        if self.cfg.increase == CubicIncrease::Ns3 {
            l.cwnd_cnt += acked;
            if l.cwnd_cnt >= cnt {
                l.cwnd_cnt -= cnt;
                w.cwnd += mss;
            }
            return;
        }
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
        if let Some(hz) = self.cfg.hz {
            if !l.update_jiffies(now, cwnd, acked, c, hz) {
                return;
            }
        } else {
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
                l.set_cnt(target, cwnd);
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

    /// `cubictcp_acked`: an RTT sample lowers delay_min, but not within a second of an
    /// epoch's start.
    pub(super) fn linux_rtt_sample(&mut self, now: SimTime, rtt: SimTime) {
        let hz = self.cfg.hz;
        let l = &mut self.linux;
        let settled = l.epoch_start.is_none_or(|s| match hz {
            // `(s32)(tcp_jiffies32 - ca->epoch_start) < HZ` discards the sample.
            Some(hz) => jiffies(now, hz) - jiffies(s, hz) >= hz as u64,
            None => now.saturating_sub(s) >= SimTime::from_secs(1),
        });
        if settled {
            let d = rtt.max(SimTime::from_us(1));
            l.delay_min = Some(l.delay_min.map_or(d, |m| m.min(d)));
        }
    }

    /// `bictcp_recalc_ssthresh` for a window of `window` bytes, in whole segments;
    /// tcp_init_cwnd_reduction clears snd_cwnd_cnt.
    pub(super) fn linux_loss(&mut self, window: u64) {
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

    /// `cubictcp_recalc_ssthresh`'s return for a window of `window` bytes: max(snd_cwnd x
    /// beta / 1024, 2) in whole segments (4 segments give 2, where 0.7 x 4 is 2.8), bytes.
    pub(super) fn linux_ssthresh(&self, window: u64) -> u64 {
        let mss = self.cfg.mss;
        ((window / mss) * self.beta_1024() / 1024).max(2) * mss
    }

    /// beta in 1024ths, as tcp_cubic.c's module parameter (717 for 0.7).
    pub(super) fn beta_1024(&self) -> u64 {
        (self.beta() * 1024.0).round() as u64
    }
}
