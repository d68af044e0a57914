//! BBR v1 as Linux ships it (`net/ipv4/tcp_bbr.c`, Cardwell et al. 2016), driven by the
//! delivery-rate samples of `tcp/rate.rs` through [`Controller::cong_control`] on every ACK
//! (Linux's `cong_control` hook: BBR, not the loss recovery, sets cwnd, also in recovery).
//!
//! * The model: BtlBw, a running max of the delivery rate over 10 rounds (Linux's
//!   `minmax_running_max`, `bbr_bw_rtts` = 10; app-limited samples count only if they raise
//!   it); RTprop, the min RTT over 10 s (`bbr_min_rtt_win_sec`). A round starts when a
//!   segment sent after the previous round start is delivered (`next_rtt_delivered`).
//! * Startup: pacing and cwnd gain 2/ln 2 (Linux's 739/256 = 2.8867); full bandwidth is reached
//!   after 3 rounds in a row without 25% growth of BtlBw (`bbr_check_full_bw_reached`).
//! * Drain: pacing gain 256/2885 (88/256), cwnd gain 2.8867, until what is in flight (at the
//!   next departure time) is at most one BDP; ssthresh = that BDP.
//! * ProbeBW: the pacing-gain cycle [5/4, 3/4, 1, 1, 1, 1, 1, 1], cwnd gain 2, entered at a
//!   random phase other than 3/4 (`bbr_reset_probe_bw_mode`, from the flow's seeded stream);
//!   a phase lasts one min RTT, the 5/4 phase longer until in flight reaches 5/4 BDP, the 3/4
//!   one shorter once in flight is at most one BDP (`bbr_is_next_cycle_phase`).
//! * ProbeRTT: when RTprop is 10 s old, cwnd 4 segments until in flight is at most 4 segments,
//!   then for max(200 ms, one round); then RTprop's stamp is renewed, cwnd restored to at least
//!   its earlier value and the mode is ProbeBW (or Startup without full bandwidth).
//! * cwnd = cwnd_gain x BDP (in segments, rounded up) + the ACK-aggregation allowance
//!   (`bbr_update_ack_aggregation`: the max extra acked over 5-round windows, at most 100 ms
//!   of BtlBw) + Linux's quantization budget (3 x the TSO goal, rounded up to even, +2 in the
//!   5/4 phase), at least 4 segments; it grows by the bytes acknowledged towards that target
//!   (always while below it or before IW is delivered, in Startup).
//! * Loss: on entering fast recovery, packet conservation for one round (cwnd = in flight +
//!   acked, never less); on leaving it, cwnd back to at least its value before
//!   (`bbr_set_cwnd_to_recover_or_restore`). A timeout: cwnd 1 segment, full-bandwidth
//!   detection restarts (`bbr_set_state(TCP_CA_Loss)`). The model is kept: BBR v1 does not
//!   react to loss otherwise.
//! * Pacing rate: 99% (`bbr_pacing_margin_percent`) of pacing_gain x BtlBw; before the first
//!   sample, high_gain x cwnd / srtt (1 ms before an RTT is known), and in Startup it only
//!   rises.
//!
//! Simplified (docs/tcp-family.md): no long-term bandwidth (policer) detection
//! (`bbr_lt_bw_sampling`); `rs->losses` is not counted (cwnd is not cut by newly marked
//! losses outside the recovery entry); idle restart is RFC 5681's (after an RTO of silence)
//! rather than Linux's app-limited `CA_EVENT_TX_START`; the TSO goal enters only the cwnd
//! budget (segments leave one by one); an expired RTprop takes the next sample even from a
//! delayed ACK (Linux skips `is_ack_delayed` samples there). Units: bytes and nanoseconds
//! (Linux: packets and us).

mod model;

use super::{Ack, CaState, Controller, Delivery, FromOptions, Loss, NoOptions, Setup, Window};
use model::MaxFilter;
use crate::rng::Stream;
use crate::time::SimTime;

/// Gains in Linux's fixed point, BBR_UNIT = 256.
const UNIT: u64 = 256;
/// 2/ln 2, `bbr_high_gain` = BBR_UNIT x 2885 / 1000 + 1.
pub const HIGH_GAIN: u64 = UNIT * 2885 / 1000 + 1;
/// 1 / high gain, `bbr_drain_gain` = BBR_UNIT x 1000 / 2885.
pub const DRAIN_GAIN: u64 = UNIT * 1000 / 2885;
/// `bbr_cwnd_gain`.
pub const CWND_GAIN: u64 = UNIT * 2;
/// `bbr_pacing_gain`: the ProbeBW cycle.
pub const PACING_GAIN: [u64; 8] = [UNIT * 5 / 4, UNIT * 3 / 4, UNIT, UNIT, UNIT, UNIT, UNIT, UNIT];
/// Rounds of the BtlBw max filter (`bbr_bw_rtts`).
const BW_RTTS: u64 = 10;
/// RTprop's window (`bbr_min_rtt_win_sec`).
const MIN_RTT_WIN: SimTime = SimTime::from_secs(10);
/// ProbeRTT's minimum duration (`bbr_probe_rtt_mode_ms`).
const PROBE_RTT_TIME: SimTime = SimTime::from_ms(200);
/// The cwnd floor, segments (`bbr_cwnd_min_target`).
pub const CWND_MIN_SEGMENTS: u64 = 4;
/// 3 rounds without 25% growth (`bbr_full_bw_cnt`, `bbr_full_bw_thresh`).
const FULL_BW_CNT: u32 = 3;
const FULL_BW_THRESH: u64 = UNIT * 5 / 4;
/// ACK aggregation (`bbr_extra_acked_win_rtts`, `bbr_extra_acked_max_us`,
/// `bbr_ack_epoch_acked_reset_thresh` in segments).
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const EXTRA_ACKED_MAX: SimTime = SimTime::from_ms(100);
const ACK_EPOCH_RESET_SEGMENTS: u64 = 1 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// One change of mode: when, in which round (`rtt_cnt`), to what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transition {
    pub at: SimTime,
    pub round: u64,
    pub mode: Mode,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BbrConfig {
    /// SMSS, bytes.
    pub mss: u64,
    /// IW, bytes (Linux's TCP_INIT_CWND is 10 segments).
    pub initial_window: u64,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    cfg: BbrConfig,
    mode: Mode,
    /// Rounds so far (`rtt_cnt`), and the `delivered` count that ends the current one.
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    /// BtlBw, bytes per second.
    bw: MaxFilter,
    min_rtt: Option<SimTime>,
    min_rtt_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    packet_conservation: bool,
    prev_state: CaState,
    idle_restart: bool,
    prior_cwnd: u64,
    full_bw: u64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    cycle_idx: usize,
    cycle_stamp: SimTime,
    pacing_gain: u64,
    cwnd_gain: u64,
    /// The pacing rate, bytes per second (Linux's `sk_pacing_rate`).
    pacing_rate: u64,
    has_seen_rtt: bool,
    extra_acked: [u64; 2],
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    ack_epoch_stamp: SimTime,
    ack_epoch_acked: u64,
    rng: Stream,
    transitions: Vec<Transition>,
    /// The window BBR itself last set (`cong_control`, a timeout, an idle restart).
    own_cwnd: Option<u64>,
}

impl Bbr {
    pub fn new(cfg: BbrConfig) -> Self {
        let mut b = Bbr {
            cfg,
            mode: Mode::Startup,
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            bw: MaxFilter::default(),
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            packet_conservation: false,
            prev_state: CaState::Open,
            idle_restart: false,
            prior_cwnd: 0,
            full_bw: 0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: SimTime::ZERO,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_rate: 0,
            has_seen_rtt: false,
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            ack_epoch_stamp: SimTime::ZERO,
            ack_epoch_acked: 0,
            rng: Stream::new(0, "bbr"),
            transitions: vec![],
            own_cwnd: None,
        };
        b.init_pacing_rate(cfg.initial_window, None);
        b
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The mode changes so far (at most 10,000 kept).
    pub fn transitions(&self) -> &[Transition] {
        &self.transitions
    }

    /// Rounds so far.
    pub fn round(&self) -> u64 {
        self.rtt_cnt
    }

    /// BtlBw, payload bytes per second.
    pub fn btl_bw(&self) -> u64 {
        self.bw.get()
    }

    pub fn min_rtt(&self) -> Option<SimTime> {
        self.min_rtt
    }

    /// The current pacing gain, in 1/256.
    pub fn pacing_gain(&self) -> u64 {
        self.pacing_gain
    }

    /// The current cwnd gain, in 1/256.
    pub fn cwnd_gain(&self) -> u64 {
        self.cwnd_gain
    }

    /// The ProbeBW phase (index into [`PACING_GAIN`]).
    pub fn cycle_index(&self) -> usize {
        self.cycle_idx
    }

    fn enter(&mut self, mode: Mode, now: SimTime) {
        self.mode = mode;
        if self.transitions.len() < 10_000 {
            self.transitions.push(Transition {
                at: now,
                round: self.rtt_cnt,
                mode,
            });
        }
    }

    /// Bytes per second x gain, less the 1% margin (`bbr_rate_bytes_per_sec`).
    fn rate(bw: u64, gain: u64) -> u64 {
        (bw as u128 * gain as u128 * 99 / (UNIT as u128 * 100)) as u64
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain x cwnd / srtt (1 ms before a sample).
    fn init_pacing_rate(&mut self, cwnd: u64, srtt: Option<SimTime>) {
        let rtt = match srtt {
            Some(s) => {
                self.has_seen_rtt = true;
                s.ns().max(1000)
            }
            None => 1_000_000,
        };
        let bw = (cwnd as u128 * 1_000_000_000 / rtt as u128) as u64;
        self.pacing_rate = Self::rate(bw, HIGH_GAIN);
    }

    /// `bbr_tso_segs_goal`: the segments a TSO burst would carry at this pacing rate.
    fn tso_segs_goal(&self) -> u64 {
        let min = if self.pacing_rate < 1_200_000 / 8 { 1 } else { 2 };
        let bytes = (self.pacing_rate >> 10).min(65_536 - 1 - 320);
        min.max((bytes / self.cfg.mss).min(0x7fff))
    }

    /// `bbr_bdp`: gain x BtlBw x RTprop, whole segments rounded up, in bytes.
    fn bdp(&self, bw: u64, gain: u64) -> u64 {
        let Some(rtt) = self.min_rtt else {
            return self.cfg.initial_window;
        };
        let w = bw as u128 * rtt.ns() as u128 * gain as u128;
        let segs = w.div_ceil(UNIT as u128 * 1_000_000_000 * self.cfg.mss as u128);
        segs as u64 * self.cfg.mss
    }

    /// `bbr_quantization_budget`, bytes.
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let mss = self.cfg.mss;
        let segs = cwnd.div_ceil(mss) + 3 * self.tso_segs_goal();
        let mut segs = (segs + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            segs += 2;
        }
        segs * mss
    }

    /// `bbr_inflight`: the in-flight target for `gain`, bytes.
    pub fn inflight(&self, bw: u64, gain: u64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`: what will be in flight at the next departure time.
    fn in_net_at_edt(&self, in_flight: u64, edt_wait: SimTime) -> u64 {
        let delivered = (self.bw.get() as u128 * edt_wait.ns() as u128 / 1_000_000_000) as u64;
        let mut at_edt = in_flight;
        if self.pacing_gain > UNIT {
            at_edt += self.tso_segs_goal() * self.cfg.mss;
        }
        at_edt.saturating_sub(delivered)
    }

    fn save_cwnd(&mut self, cwnd: u64) {
        if self.prev_state == CaState::Open && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    fn reset_startup(&mut self, now: SimTime) {
        self.enter(Mode::Startup, now);
    }

    fn reset_probe_bw(&mut self, now: SimTime, d: &Delivery) {
        self.enter(Mode::ProbeBw, now);
        // cycle_idx = CYCLE_LEN - 1 - random(0..7), then one advance: any phase but 3/4.
        let r = ((self.rng.uniform() * 7.0) as usize).min(6);
        self.cycle_idx = 7 - r;
        self.advance_cycle(d);
    }

    fn advance_cycle(&mut self, d: &Delivery) {
        self.cycle_idx = (self.cycle_idx + 1) % 8;
        self.cycle_stamp = d.delivered_time;
    }

    fn reset_mode(&mut self, d: &Delivery) {
        if self.full_bw_reached {
            self.reset_probe_bw(d.now, d);
        } else {
            self.reset_startup(d.now);
        }
    }

    fn is_next_cycle_phase(&self, d: &Delivery) -> bool {
        let rtt = self.min_rtt.unwrap_or(SimTime::ZERO);
        let full_length = d.delivered_time - self.cycle_stamp.min(d.delivered_time) > rtt;
        if self.pacing_gain == UNIT {
            return full_length;
        }
        let in_flight = self.in_net_at_edt(d.prior_in_flight, d.edt_wait);
        let bw = self.bw.get();
        if self.pacing_gain > UNIT {
            return full_length && in_flight >= self.inflight(bw, self.pacing_gain);
        }
        full_length || in_flight <= self.inflight(bw, UNIT)
    }

    fn check_drain(&mut self, w: &mut Window, d: &Delivery) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.enter(Mode::Drain, d.now);
            w.ssthresh = self.inflight(self.bw.get(), UNIT);
        }
        if self.mode == Mode::Drain
            && self.in_net_at_edt(d.in_flight, d.edt_wait) <= self.inflight(self.bw.get(), UNIT)
        {
            self.reset_probe_bw(d.now, d);
        }
    }

    fn update_min_rtt(&mut self, w: &mut Window, d: &Delivery) -> bool {
        let now = d.now;
        let expired = now > self.min_rtt_stamp + MIN_RTT_WIN;
        if let Some(rtt) = d.rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt < m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.enter(Mode::ProbeRtt, now);
            self.save_cwnd(w.cwnd);
            self.probe_rtt_done = None;
        }
        let mut app_limited = false;
        if self.mode == Mode::ProbeRtt {
            // Linux: tp->app_limited, so the low delivery rate does not lower BtlBw.
            app_limited = true;
            let min_target = CWND_MIN_SEGMENTS * self.cfg.mss;
            if self.probe_rtt_done.is_none() && d.in_flight <= min_target {
                self.probe_rtt_done = Some(now + PROBE_RTT_TIME);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = d.delivered;
            } else if let Some(done) = self.probe_rtt_done {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    // bbr_check_probe_rtt_done.
                    self.min_rtt_stamp = now;
                    w.cwnd = w.cwnd.max(self.prior_cwnd);
                    self.reset_mode(d);
                }
            }
        }
        if d.rs.acked_sacked > 0 {
            self.idle_restart = false;
        }
        app_limited
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (PACING_GAIN[self.cycle_idx], CWND_GAIN),
            Mode::ProbeRtt => (UNIT, UNIT),
        };
    }

    fn set_pacing_rate(&mut self, w: &Window, d: &Delivery) {
        if !self.has_seen_rtt && d.srtt.is_some() {
            self.init_pacing_rate(w.cwnd, d.srtt);
        }
        let rate = Self::rate(self.bw.get(), self.pacing_gain);
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: Some(cwnd) while packet conservation holds.
    fn recover_or_restore(&mut self, cwnd: &mut u64, d: &Delivery) -> bool {
        let acked = d.rs.acked_sacked;
        let state = d.state;
        if state == CaState::Recovery && self.prev_state != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = d.delivered; // start a round now
            *cwnd = d.in_flight + acked;
        } else if self.prev_state != CaState::Open && state == CaState::Open {
            *cwnd = (*cwnd).max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_state = state;
        if self.packet_conservation {
            *cwnd = (*cwnd).max(d.in_flight + acked);
            return true;
        }
        false
    }

    fn set_cwnd(&mut self, w: &mut Window, d: &Delivery) {
        let mss = self.cfg.mss;
        let acked = d.rs.acked_sacked;
        let mut cwnd = w.cwnd;
        if acked > 0 && !self.recover_or_restore(&mut cwnd, d) {
            let bw = self.bw.get();
            let target = self.quantization_budget(self.bdp(bw, self.cwnd_gain) + self.ack_aggregation_cwnd());
            if self.full_bw_reached {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || d.delivered < self.cfg.initial_window {
                cwnd += acked;
            }
            cwnd = cwnd.max(CWND_MIN_SEGMENTS * mss);
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(CWND_MIN_SEGMENTS * mss);
        }
        w.cwnd = cwnd;
    }
}

impl FromOptions for Bbr {
    type Options = NoOptions;

    fn build(_: &NoOptions, f: &Setup) -> Self {
        Bbr::new(BbrConfig {
            mss: f.mss,
            initial_window: f.initial_window,
        })
    }
}

impl Controller for Bbr {
    fn initial_window(&self) -> Window {
        Window {
            cwnd: self.cfg.initial_window,
            ssthresh: u64::MAX / 4,
        }
    }

    /// BBR sets the window in `cong_control`, on every ACK.
    fn on_ack(&mut self, _: &mut Window, _: &Ack) {}

    /// `bbr_ssthresh`: remember cwnd for the restore after recovery; ssthresh is not BBR's
    /// signal, so the recovery is handed the window in use (it keeps sending at that window
    /// until `cong_control` applies packet conservation on the same ACK).
    fn ssthresh_after_loss(&mut self, loss: &Loss) -> u64 {
        self.save_cwnd(loss.window);
        loss.window
    }

    fn reduce(&self, window: u64) -> u64 {
        window
    }

    /// `tcp_enter_loss` with `bbr_set_state(TCP_CA_Loss)`: cwnd 1 segment, the cwnd before
    /// saved, full-bandwidth detection starts over, the model is kept.
    fn on_timeout(&mut self, w: Window, loss: &Loss, repeated: bool) -> Window {
        if !repeated {
            self.save_cwnd(loss.window);
        }
        self.prev_state = CaState::Loss;
        self.full_bw = 0;
        self.round_start = true;
        self.own_cwnd = Some(self.cfg.mss);
        Window {
            cwnd: self.cfg.mss,
            ssthresh: w.ssthresh,
        }
    }

    /// RFC 5681 Sec. 4.1's restart (Linux's `tcp_cwnd_restart` also applies to BBR), and
    /// `bbr_cwnd_event(CA_EVENT_TX_START)`: in ProbeBW pace at BtlBw.
    fn on_idle(&mut self, w: &mut Window) {
        w.cwnd = w.cwnd.min(self.cfg.initial_window);
        self.own_cwnd = Some(w.cwnd);
        self.idle_restart = true;
        self.ack_epoch_acked = 0;
        if self.mode == Mode::ProbeBw {
            self.pacing_rate = Self::rate(self.bw.get(), UNIT);
        }
    }

    fn pacing_rate_bps(&self) -> Option<u64> {
        Some(self.pacing_rate.saturating_mul(8))
    }

    fn wants_delivery_rate(&self) -> bool {
        true
    }

    fn seed(&mut self, rng: Stream) {
        self.rng = rng;
    }

    /// BBR v1 ignores ECN, as Linux's does: `tcp_enter_cwr` calls `bbr_ssthresh`, which leaves
    /// ssthresh alone, and a controller with `cong_control` gets no PRR, so nothing lowers
    /// the window (the sender still sets CWR).
    fn on_ecn_echo(&mut self, _: &mut Window, _: &Loss) -> bool {
        false
    }

    /// `bbr_main`: update the model, then the pacing rate and cwnd. Linux's `tcp_cong_control`
    /// leaves the window of a controller with `cong_control` to it alone: no PRR
    /// (`tcp_cwnd_reduction`) during a recovery and no cwnd = ssthresh when it ends
    /// (`tcp_end_cwnd_reduction` returns early). tcplab's recovery sets cwnd by its own rule on
    /// every ACK, so on an ACK in a recovery or the one that ends it BBR starts from the window
    /// it set itself, not from what the recovery wrote.
    fn cong_control(&mut self, w: &mut Window, d: &Delivery) -> bool {
        if let Some(own) = self.own_cwnd {
            if d.state == CaState::Recovery || self.prev_state == CaState::Recovery {
                w.cwnd = own;
            }
        }
        self.update_bw(d);
        self.update_ack_aggregation(d, w.cwnd);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(d) {
            self.advance_cycle(d);
        }
        self.check_full_bw_reached(d);
        self.check_drain(w, d);
        let app_limited = self.update_min_rtt(w, d);
        self.update_gains();
        self.set_pacing_rate(w, d);
        self.set_cwnd(w, d);
        self.own_cwnd = Some(w.cwnd);
        app_limited
    }
}

#[cfg(test)]
mod tests;
