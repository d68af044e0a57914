//! ns-2's one-way TCP senders in packet units: Tahoe (`Agent/TCP`), Reno, NewReno (the
//! "careful" variant, no partial window deflation) and Sack1, with ns-2's RTT clock, fixed
//! point estimator, timer rules, halving (ssthresh = cwnd = int(window / 2)) and burst
//! rules. Sans-IO: `start`, `on_ack`, `on_timer`, `deadline`.

use super::decode_blocks;
use super::ecn::Ns2Ecn;
use super::fack::{FackState, RhState};
use super::sack1::Scoreboard;
use crate::tcp::instruments::{Instruments, LossSignal};
use crate::tcp::segment::Segment;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ns2Variant {
    Tahoe,
    Reno,
    Newreno,
    Sack1,
    /// `Agent/TCP/Fack` (no rampdown, no ss-div4).
    Fack,
    /// `Agent/TCP/SackRH`: SACK with Rate-Halving.
    SackRH,
}

impl Ns2Variant {
    /// Does the profile model this agent's ECN (`ecn.rs`)? Not Fack's (tcp-fack.cc: "FACK has
    /// not been updated to make sure the ECN works") nor SackRH's (its own ECN rules).
    pub fn has_ecn(self) -> bool {
        matches!(
            self,
            Ns2Variant::Tahoe | Ns2Variant::Reno | Ns2Variant::Newreno | Ns2Variant::Sack1
        )
    }
}

/// ns-2's `last_cwnd_action_`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Action {
    None,
    Dupack,
    Timeout,
    Exited,
    /// CWND_ACTION_ECN (`ecn.rs`).
    Ecn,
}

/// Parameters of an ns-2 agent (the ns-2 names in comments).
#[derive(Clone, Debug)]
pub struct Ns2Config {
    pub variant: Ns2Variant,
    /// packetSize_ (payload bytes) and tcpip_base_hdr_size_.
    pub packet_size: u32,
    pub header: u32,
    /// window_: cap on the usable window, packets.
    pub window: u32,
    /// windowInit_.
    pub window_init: u32,
    /// singledup_ (Limited Transmit).
    pub singledup: bool,
    /// Sack1's partial_ack_.
    pub partial_ack: bool,
    /// tcpTick_ and the clock phase boot_time_ (ns).
    pub tick_ns: u64,
    pub boot_ns: u64,
    /// rtxcur_init_, minrto_, maxrto_.
    pub rto_init: SimTime,
    pub min_rto: SimTime,
    pub max_rto: SimTime,
    /// ecn_: ECN (`ecn.rs`).
    pub ecn: bool,
}

pub(crate) const NUMDUPACKS: i64 = 3;

pub struct Ns2Sender {
    pub cfg: Ns2Config,
    pub cwnd: f64,
    pub ssthresh: i64,
    pub(super) t_seqno: i64,
    pub(super) highest_ack: i64,
    pub(super) last_ack: i64,
    pub(super) maxseq: i64,
    pub(super) recover: i64,
    pub(super) dupacks: i64,
    pub(super) dupwnd: i64,
    pub(super) last_action: Action,
    // RTT
    pub(super) rtt_active: bool,
    pub(super) rtt_seq: i64,
    pub(super) rtt_ts: SimTime,
    pub(super) t_srtt: i32,
    pub(super) t_rttvar: i32,
    /// The last RTT sample, ticks.
    pub(super) t_rtt: i32,
    /// t_rtxcur_ in ns.
    pub(super) rtxcur: u64,
    pub(super) backoff: u64,
    pub(super) timer: Option<SimTime>,
    // Sack1
    pub(super) fastrecov: bool,
    pub(super) pipe: i64,
    pub(super) timeout_flag: bool,
    pub(super) sb: Scoreboard,
    pub(super) next_pkt: i64,
    pub(super) firstpartial: bool,
    // Fack and SackRH
    pub(super) fk: FackState,
    pub(super) rh: RhState,
    pub(super) ecn: Ns2Ecn,
    /// Mathis' instruments (shared with the native senders): reported in packet numbers for
    /// sequences, bytes for windows and acknowledged data.
    pub inst: Instruments,
    /// ns-2's traced variables (`VAR_NAMES`) after every event that changed one, if enabled.
    pub vars: Option<Vec<(SimTime, [f64; VAR_NAMES.len()])>>,
    /// Points kept per trace.
    pub trace_limit: usize,
}

/// The sender variables ns-2 traces, with ns-2's names and units (cwnd_ in packets,
/// rtt_/srtt_/rttvar_ in seconds as ns-2 prints them: srtt_ = (t_srtt >> 3) ticks,
/// rttvar_ = t_rttvar / 4 ticks).
pub const VAR_NAMES: [&str; 10] = [
    "cwnd_",
    "ssthresh_",
    "dupacks_",
    "ack_",
    "maxseq_",
    "t_seqno_",
    "backoff_",
    "rtt_",
    "srtt_",
    "rttvar_",
];

impl Ns2Sender {
    pub fn new(cfg: Ns2Config) -> Self {
        let ssthresh = cfg.window as i64;
        let rtxcur = cfg.rto_init.ns();
        let tick_ns = cfg.tick_ns.max(1);
        Ns2Sender {
            cfg,
            cwnd: 1.0,
            ssthresh,
            t_seqno: 0,
            highest_ack: -1,
            last_ack: -1,
            maxseq: -1,
            recover: 0,
            dupacks: 0,
            dupwnd: 0,
            last_action: Action::None,
            rtt_active: false,
            rtt_seq: -1,
            rtt_ts: SimTime::ZERO,
            t_srtt: 0,
            // rttvar_init_ 12 s: int(12 / tick) << 2 (irrelevant once the SYN is sampled)
            t_rttvar: ((12_000_000_000 / tick_ns) << 2) as i32,
            rtxcur,
            backoff: 1,
            timer: None,
            fastrecov: false,
            pipe: -1,
            timeout_flag: false,
            sb: Scoreboard::new(),
            next_pkt: 0,
            firstpartial: false,
            fk: FackState::default(),
            rh: RhState::default(),
            ecn: Ns2Ecn::default(),
            inst: Instruments::default(),
            vars: None,
            trace_limit: usize::MAX,
            t_rtt: 0,
        }
    }

    pub fn deadline(&self) -> Option<SimTime> {
        self.timer
    }

    pub(super) fn is_reno_family(&self) -> bool {
        matches!(self.cfg.variant, Ns2Variant::Reno | Ns2Variant::Newreno)
    }

    pub(super) fn record(&mut self, now: SimTime) {
        if self.vars.is_some() {
            let tick = self.cfg.tick_ns as f64 * 1e-9;
            let v = [
                self.cwnd,
                self.ssthresh as f64,
                self.dupacks as f64,
                self.highest_ack as f64,
                self.maxseq as f64,
                self.t_seqno as f64,
                self.backoff as f64,
                self.t_rtt as f64 * tick,
                (self.t_srtt >> 3) as f64 * tick,
                self.t_rttvar as f64 * tick / 4.0,
            ];
            let limit = self.trace_limit;
            if let Some(vars) = &mut self.vars {
                if vars.len() < limit && vars.last().is_none_or(|l| l.1 != v) {
                    vars.push((now, v));
                }
            }
        }
        let (cwnd, ssthresh) = self.window_bytes();
        self.inst.observe(now, cwnd, ssthresh);
    }

    /// cwnd_ and ssthresh_ in bytes, for the instruments.
    pub(super) fn window_bytes(&self) -> (u64, u64) {
        let size = self.cfg.packet_size as f64;
        (
            (self.cwnd * size).round() as u64,
            self.ssthresh.max(0) as u64 * self.cfg.packet_size as u64,
        )
    }

    /// Reports a window reduction for a loss (before its retransmission leaves).
    pub(super) fn signal_loss(&mut self, signal: LossSignal) {
        self.inst.window_reduced(signal, (self.maxseq + 1) as u64);
    }

    /// window(): the usable window in packets.
    pub(super) fn window(&self) -> i64 {
        if self.cfg.variant == Ns2Variant::Fack {
            return (self.cwnd.min(self.cfg.window as f64) + self.fk.wintrim) as i64;
        }
        let w = self.cwnd as i64 + if self.is_reno_family() { self.dupwnd } else { 0 };
        w.min(self.cfg.window as i64)
    }

    // ---- sending ----

    /// Sends `seqno` from a scoreboard-driven loop and moves t_seqno past it.
    pub(super) fn output_advance(&mut self, now: SimTime, seqno: i64, out: &mut Vec<Segment>) {
        self.output(now, seqno, out);
        if self.t_seqno <= seqno {
            self.t_seqno = seqno + 1;
        }
    }

    pub(super) fn output(&mut self, now: SimTime, seqno: i64, out: &mut Vec<Segment>) {
        let force = self.highest_ack == self.maxseq;
        let (len, size) = if seqno == 0 {
            (0, self.cfg.header)
        } else {
            (self.cfg.packet_size, self.cfg.packet_size + self.cfg.header)
        };
        let mut p = Segment::data(seqno as u64, len, size);
        p.ts_val = now;
        p.retransmit = seqno <= self.maxseq;
        self.ecn_output(&mut p, seqno);
        out.push(p);
        self.inst.sent(seqno <= self.maxseq);
        if seqno > self.maxseq {
            self.maxseq = seqno;
            if !self.rtt_active {
                self.rtt_active = true;
                if seqno > self.rtt_seq {
                    self.rtt_seq = seqno;
                    self.rtt_ts = now;
                }
            }
        }
        let pending = self.timer.is_some_and(|t| t > now);
        if !pending || force {
            self.set_rtx_timer(now);
        }
    }

    pub(super) fn send_much(&mut self, now: SimTime, maxburst: u32, out: &mut Vec<Segment>) {
        match self.cfg.variant {
            Ns2Variant::Sack1 => return self.sack_send_much(now, maxburst, out),
            Ns2Variant::Fack => return self.fack_send_much(now, maxburst, out),
            Ns2Variant::SackRH => return self.rh_send_much(now, maxburst, out),
            _ => {}
        }
        let mut win = self.window();
        let mut n = 0;
        while self.t_seqno <= self.highest_ack + win {
            self.output(now, self.t_seqno, out);
            n += 1;
            self.t_seqno += 1;
            win = self.window();
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
    }

    pub(super) fn send_one(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.t_seqno <= self.highest_ack + self.cfg.window as i64
            && (self.t_seqno as f64) <= self.highest_ack as f64 + self.cwnd + self.dupacks as f64
        {
            self.output(now, self.t_seqno, out);
            self.t_seqno += 1;
        }
    }

    // ---- window changes ----

    pub(super) fn opencwnd(&mut self) {
        if self.cwnd < self.ssthresh as f64 {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
    }

    /// slowdown(CLOSE_SSTHRESH_HALF | (half ? CLOSE_CWND_HALF : CLOSE_CWND_ONE)).
    pub(super) fn slowdown(&mut self, half_cwnd: bool) {
        let halfwin = self.window() / 2;
        self.ssthresh = halfwin;
        self.cwnd = if half_cwnd { halfwin as f64 } else { 1.0 };
        if self.ssthresh < 2 {
            self.ssthresh = 2;
        }
        self.ecn.cong_action = true;
    }

    /// The bookkeeping of an ACK of new data: highest ACK, t_seqno, and the RTT sample of the
    /// timed segment (which ends any backoff).
    pub(super) fn take_ack(&mut self, now: SimTime, ack: i64) {
        self.last_ack = ack;
        self.highest_ack = ack;
        if self.t_seqno < ack + 1 {
            self.t_seqno = ack + 1;
        }
        if self.rtt_active && ack >= self.rtt_seq {
            if self.ecn_ends_backoff() {
                self.backoff = 1;
            }
            self.rtt_active = false;
            self.rtt_update(now, self.rtt_ts);
        }
    }

    pub(super) fn newack(&mut self, now: SimTime, ack: i64) {
        self.dupacks = 0;
        self.take_ack(now, ack);
        self.newtimer(now, ack);
    }

    pub(super) fn recv_newack_helper(&mut self, now: SimTime, ack: i64) {
        self.newack(now, ack);
        if self.ecn_may_open() {
            self.opencwnd();
        }
        self.ecn_after_newack(false);
    }

    pub(super) fn fast_retransmit_allowed(&self) -> bool {
        self.highest_ack > self.recover
            || (self.cfg.variant == Ns2Variant::Reno && self.last_action == Action::Dupack)
            || self.highest_ack == 0
    }

    pub(super) fn dupack_action(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if !self.fast_retransmit_allowed() {
            self.ecn_dupack_action(now, out);
            return;
        }
        self.signal_loss(LossSignal::FastRetransmit);
        match self.cfg.variant {
            Ns2Variant::Tahoe => {
                self.recover = self.maxseq;
                self.last_action = Action::Dupack;
                self.slowdown(false);
                self.reset_rtx_timer(now, false, false);
            }
            Ns2Variant::Reno | Ns2Variant::Newreno => {
                self.recover = self.maxseq;
                if self.cfg.variant == Ns2Variant::Newreno {
                    self.reset_rtx_timer(now, true, false);
                }
                self.last_action = Action::Dupack;
                self.slowdown(true);
                if self.cfg.variant == Ns2Variant::Reno {
                    self.reset_rtx_timer(now, true, false);
                }
                self.output(now, self.last_ack + 1, out);
                self.dupwnd = NUMDUPACKS;
            }
            Ns2Variant::Fack | Ns2Variant::SackRH => unreachable!("no dupack_action"),
            Ns2Variant::Sack1 => {
                self.recover = self.maxseq;
                self.pipe = self.maxseq - self.highest_ack - NUMDUPACKS;
                self.reset_rtx_timer(now, true, false);
                self.fastrecov = true;
                self.sb.mark_retran(self.highest_ack + 1);
                self.last_action = Action::Dupack;
                self.slowdown(true);
                self.output(now, self.last_ack + 1, out);
            }
        }
    }

    // ---- the sans-IO interface ----

    pub fn start(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let (cwnd, ssthresh) = self.window_bytes();
        // ns-2's window_ (packets) caps the usable window as the receive window does.
        self.inst
            .set_window_limit(self.cfg.window as u64 * self.cfg.packet_size as u64);
        self.inst.start(now, cwnd, ssthresh);
        self.send_much(now, 0, out);
        self.record(now);
    }

    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.timer != Some(now) {
            return;
        }
        self.timer = None;
        if self.highest_ack == self.maxseq {
            // Nothing outstanding: the window restarts, but nothing was lost.
            self.inst.counters.timeouts += 1;
        } else {
            self.signal_loss(LossSignal::Timeout);
        }
        match self.cfg.variant {
            Ns2Variant::Fack => return self.fack_timeout(now, out),
            Ns2Variant::SackRH => return self.rh_timeout(now, out),
            Ns2Variant::Reno | Ns2Variant::Newreno => {
                self.dupwnd = 0;
                self.dupacks = 0;
                self.recover = self.maxseq;
            }
            Ns2Variant::Sack1 => {
                self.dupacks = 0;
                self.fastrecov = false;
                self.timeout_flag = true;
                if self.highest_ack > self.last_ack {
                    self.last_ack = self.highest_ack;
                }
                self.recover = self.maxseq;
                self.sb.clear();
            }
            Ns2Variant::Tahoe => {}
        }
        // TcpAgent::timeout
        if self.cwnd < 1.0 {
            self.cwnd = 1.0;
        }
        let idle = self.highest_ack == self.maxseq;
        self.recover = self.maxseq;
        if self.highest_ack == -1 && self.cfg.window_init > 1 {
            self.cfg.window_init = 1;
        }
        if idle {
            self.cwnd = 1.0;
            self.ecn.cong_action = true;
        } else if self.cfg.ecn && self.last_action == Action::Ecn {
            // In the window of an ECN response: slowdown(CLOSE_CWND_ONE), ssthresh kept.
            self.cwnd = 1.0;
            self.ssthresh = self.ssthresh.max(2);
            self.ecn.cong_action = true;
        } else {
            self.last_action = Action::Timeout;
            self.slowdown(false);
        }
        self.reset_rtx_timer(now, false, !idle);
        self.last_action = Action::Timeout;
        self.send_much(now, 0, out);
        self.record(now);
    }

    pub fn on_ack(&mut self, now: SimTime, pkt: &Segment, out: &mut Vec<Segment>) {
        let ack = pkt.ack as i64;
        let before = self.highest_ack;
        self.ecn_on_ack(pkt);
        match self.cfg.variant {
            Ns2Variant::Tahoe => self.recv_tahoe(now, ack, out),
            Ns2Variant::Reno => self.recv_reno(now, ack, out),
            Ns2Variant::Newreno => self.recv_newreno(now, ack, out),
            Ns2Variant::Sack1 => {
                let blocks = decode_blocks(ack, &pkt.sack);
                self.recv_sack1(now, ack, &blocks, out)
            }
            Ns2Variant::Fack => {
                let blocks = decode_blocks(ack, &pkt.sack);
                self.recv_fack(now, ack, &blocks, pkt.ts_ecr, out)
            }
            Ns2Variant::SackRH => {
                let blocks = decode_blocks(ack, &pkt.sack);
                self.recv_rh(now, ack, &blocks, out)
            }
        }
        if self.highest_ack > before {
            // Packet 0 is the SYN: no payload.
            let packets = (self.highest_ack.max(0) - before.max(0)) as u64;
            let una = (self.highest_ack + 1) as u64;
            self.inst.acked(una, packets * self.cfg.packet_size as u64);
        }
        self.record(now);
    }

    pub(super) fn initial_window_check(&mut self) {
        if self.last_ack == 0 {
            self.cwnd = self.cfg.window_init as f64;
        }
    }

    /// One more duplicate ACK: the reaction at the threshold, window inflation beyond it
    /// (Reno and NewReno, `inflate`), or limited transmit (singledup_) below it.
    pub(super) fn count_dupack(&mut self, now: SimTime, inflate: bool, out: &mut Vec<Segment>) {
        self.dupacks += 1;
        if self.dupacks == NUMDUPACKS {
            self.dupack_action(now, out);
        } else if inflate && self.dupacks > NUMDUPACKS && self.last_action == Action::Dupack {
            self.dupwnd += 1;
        } else if self.dupacks < NUMDUPACKS && self.cfg.singledup {
            self.send_one(now, out);
        }
    }

    pub(super) fn recv_tahoe(&mut self, now: SimTime, ack: i64, out: &mut Vec<Segment>) {
        if ack > self.last_ack {
            self.recv_newack_helper(now, ack);
            self.initial_window_check();
        } else if ack == self.last_ack {
            self.count_dupack(now, false, out);
        }
        if ack >= self.last_ack {
            self.send_much(now, 0, out);
        }
    }

    pub(super) fn recv_reno(&mut self, now: SimTime, ack: i64, out: &mut Vec<Segment>) {
        if ack > self.last_ack {
            if self.last_action == Action::Dupack {
                self.last_action = Action::Exited;
            }
            self.dupwnd = 0;
            self.recv_newack_helper(now, ack);
            self.initial_window_check();
        } else if ack == self.last_ack {
            self.count_dupack(now, true, out);
        }
        if ack >= self.last_ack && (self.dupacks == 0 || self.dupacks > NUMDUPACKS - 1) {
            self.send_much(now, 0, out);
        }
    }

    pub(super) fn recv_newreno(&mut self, now: SimTime, ack: i64, out: &mut Vec<Segment>) {
        if ack > self.last_ack {
            if ack >= self.recover || self.last_action != Action::Dupack {
                if self.dupwnd > 0 {
                    self.dupwnd = 0;
                    if self.last_action == Action::Dupack {
                        self.last_action = Action::Exited;
                    }
                }
                self.recv_newack_helper(now, ack);
                self.initial_window_check();
            } else {
                // partial ACK: full deflation, timer restarted, next hole resent
                self.dupwnd = 0;
                self.newtimer(now, ack);
                self.last_ack = ack;
                self.highest_ack = ack;
                if self.t_seqno < ack + 1 {
                    self.t_seqno = ack + 1;
                }
                if self.rtt_active && ack >= self.rtt_seq {
                    self.rtt_active = false;
                    self.backoff = 1;
                }
                self.output(now, self.last_ack + 1, out);
            }
        } else if ack == self.last_ack {
            self.count_dupack(now, true, out);
        }
        if ack >= self.last_ack {
            if self.dupacks == 0 {
                self.send_much(now, 0, out);
            } else if self.dupacks > NUMDUPACKS - 1 {
                self.send_much(now, 2, out);
            }
        }
    }
}
