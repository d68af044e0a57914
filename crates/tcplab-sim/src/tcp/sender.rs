//! The TCP sender every variant shares: it drives the state (`state.rs`: sequence space, send
//! loop, SACK scoreboard, instruments) through ACKs, the retransmit timer (RTT sampling, Karn,
//! RFC 6298 restarts and backoff), limited transmit and idle restart, and calls two seams:
//!
//! * the **loss recovery** (`recovery/`, one file per variant): how a loss is detected and
//!   repaired and what the send loop may send meanwhile, at four points — a duplicate ACK, a
//!   new ACK, a timeout, and the send loop;
//! * the **congestion control** (`cc/`, one file per algorithm): window growth on every ACK of
//!   new data, the ssthresh after a loss (which the recovery asks for), the window after a
//!   timeout and after an idle period, and a pacing rate.
//!
//! After a timeout, F-RTO (`frto.rs`, RFC 5682) may find it spurious and undo it.
//!
//! Sans-IO: the sender takes `(now, ACK)` or `(now)` for its timer, and returns segments to
//! send and its next deadline.

use super::cc::{Ack, CaState, CongestionControl, Controller, Delivery};
use super::cwr::CwrPrr;
use super::frto::{self, Frto, Observed, Verdict};
use super::handshake::{self, SynSent};
use super::rate::RateSample;
use super::recovery::{AckEvent, Ctx, LossRecovery};
use super::rto::RtoEstimator;
use super::segment::{Segment, TcpFlags};
use super::state::{LossSignal, Pacing, SenderConfig, SenderCore};
use crate::net::packet::NodeId;
use crate::time::SimTime;

/// A TCP sender: the shared core, one variant's loss recovery, one congestion control.
#[derive(Clone, Debug)]
pub struct Sender {
    pub core: SenderCore,
    pub recovery: LossRecovery,
    pub cc: CongestionControl,
    /// F-RTO's state after a timeout, while it decides whether the timeout was spurious.
    frto: Option<Frto>,
    /// Timeouts F-RTO found spurious (and undid).
    pub spurious_timeouts: u64,
    /// After a retransmit timeout, until `recover` is acknowledged (Linux's TCP_CA_Loss):
    /// told to a controller that reads delivery rates.
    in_loss: bool,
    /// The SYN, while it is outstanding (`handshake.rs`); None once data may flow (always
    /// without `handshake`).
    pub syn: Option<Box<SynSent>>,
    /// What ECN becomes when the SYN-ACK agrees to it: (needs ECN, L4S).
    ecn_setup: (bool, bool),
}

impl Sender {
    pub fn new(
        flow: u32,
        node: NodeId,
        peer: NodeId,
        cfg: SenderConfig,
        recovery: LossRecovery,
        cc: CongestionControl,
        rtt: RtoEstimator,
    ) -> Self {
        let mut core = SenderCore::new(flow, node, peer, cfg, cc.initial_window(), rtt);
        if cc.wants_delivery_rate() {
            core.rate = Some(Box::default());
        }
        core.pacing = cc.pacing_rate_bps().map(|rate_bps| {
            Box::new(Pacing {
                rate_bps,
                ..Default::default()
            })
        });
        Sender {
            core,
            recovery,
            cc,
            frto: None,
            spurious_timeouts: 0,
            in_loss: false,
            syn: None,
            ecn_setup: (false, false),
        }
    }

    /// Opens with the SYN exchange (`handshake.rs`): the SYN asks for `asked`; when agreed,
    /// ECN is set up for a controller that needs it (`needs_ecn`) or sends ECT(1) (`l4s`).
    pub fn with_handshake(mut self, asked: crate::scenario::EcnSetting, needs_ecn: bool, l4s: bool) -> Self {
        self.syn = Some(Box::new(SynSent::new(asked)));
        self.ecn_setup = (needs_ecn, l4s);
        self
    }

    /// The rate the congestion control wants the send loop to pace at (payload bit/s), if
    /// any: the send loop holds each segment until max(the last departure, now) + its
    /// length / rate (`state.rs`, `Pacing`).
    pub fn pacing_rate_bps(&self) -> Option<u64> {
        self.cc.pacing_rate_bps()
    }

    /// Gives the congestion control the flow's own random stream (BBR's ProbeBW phase).
    pub fn seed_cc(&mut self, rng: crate::rng::Stream) {
        self.cc.seed(rng);
    }

    /// The congestion control's pacing rate, as it stands, into the send loop.
    fn update_pacing(&mut self) {
        if let (Some(p), Some(rate)) = (&mut self.core.pacing, self.cc.pacing_rate_bps()) {
            p.rate_bps = rate;
        }
    }

    /// Keeps a bounded trace of (time, cwnd, ssthresh) at every change.
    pub fn enable_trace(&mut self, max_points: usize) {
        self.core.inst.enable_trace(max_points);
    }

    /// When the retransmit timer (or a timer of the loss recovery: RACK's, TLP's) wants to
    /// fire, if one is running.
    pub fn deadline(&self) -> Option<SimTime> {
        let d = match (self.core.rto_deadline, self.recovery.deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match self.core.pacing.as_deref() {
            Some(p) if p.blocked => Some(d.map_or(p.next_send, |d| d.min(p.next_send))),
            _ => d,
        }
    }

    /// Brings the time integrals (mean cwnd) up to `now`.
    pub fn integrate(&mut self, now: SimTime) {
        self.core.inst.integrate(now);
    }

    pub fn start(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if let Some(h) = &mut self.syn {
            let c = &mut self.core;
            out.push(h.syn(
                now,
                c.cfg.header_bytes + handshake::syn_option_bytes(c.cfg.timestamps),
            ));
            c.rto_deadline = Some(c.rtt.deadline(now));
            return;
        }
        self.start_data(now, out);
    }

    /// The data start: at once, or when the SYN-ACK arrives.
    fn start_data(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let w = self.core.win;
        self.core.inst.set_window_limit(self.core.cfg.rwnd);
        self.core.inst.start(now, w.cwnd, w.ssthresh);
        if let Some(a) = self.cc.ecn_estimate() {
            self.core.inst.estimate(now, a);
        }
        self.send(now, out);
        self.core.record_trace(now);
    }

    /// The application hands the sender `bytes` more to send (request/response traffic). A
    /// sender configured with `total_bytes = Some(0)` waits for writes; an unlimited one ignores
    /// them. After an idle period longer than the RTO the congestion control restarts the
    /// window (RFC 5681 Sec. 4.1, Jacobson & Karels App. C).
    pub fn app_write(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Segment>) {
        let c = &mut self.core;
        if let Some(total) = c.cfg.total_bytes {
            let idle = c.cfg.idle_restart
                && c.snd_una == c.snd_max
                && c.last_send.is_some_and(|last| now - last > c.rtt.rto());
            if idle {
                self.cc.on_idle(&mut c.win);
                self.update_pacing();
            }
            self.core.cfg.total_bytes = Some(total + bytes);
            if self.syn.is_some() {
                return; // the data waits for the SYN-ACK
            }
            let first = out.len();
            self.send(now, out);
            self.core.ecn.cwr_sent(&out[first..]);
            self.core.record_trace(now);
        }
    }

    /// True when everything the application wrote has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.core.finished()
    }

    fn send(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if let Some(p) = &mut self.core.pacing {
            p.blocked = false;
        }
        self.recovery.send(&mut Ctx {
            core: &mut self.core,
            cc: &mut self.cc,
            now,
            out,
        });
        let c = &mut self.core;
        if c.rate.is_some() && c.snd_max >= c.app_limit() {
            // Nothing left to send and the window not full: application-limited (draft
            // Sec. 3.4; Linux's tcp_rate_check_app_limited).
            let in_flight = c.in_flight();
            if in_flight < c.win.cwnd {
                if let Some(r) = &mut c.rate {
                    r.mark_app_limited(in_flight);
                }
            }
        }
    }

    /// The delivery-rate sample of an ACK and the in-flight data before it, for a controller
    /// that reads them (None otherwise).
    fn rate_sample(&mut self, now: SimTime, ack: &Segment) -> Option<(RateSample, u64)> {
        let c = &mut self.core;
        let prior_in_flight = c.in_flight();
        let r = c.rate.as_mut()?;
        Some((r.on_ack(now, ack.ack, ack.sack.iter(ack.ack)), prior_in_flight))
    }

    /// Linux's `tcp_cong_control` for a controller that reads delivery rates.
    fn cong_control(&mut self, now: SimTime, rs: RateSample, prior_in_flight: u64) {
        let c = &mut self.core;
        if self.in_loss && c.snd_una >= c.recover {
            self.in_loss = false;
        }
        let state = if self.recovery.in_recovery() {
            CaState::Recovery
        } else if self.in_loss {
            CaState::Loss
        } else {
            CaState::Open
        };
        let Some(r) = &c.rate else { return };
        let d = Delivery {
            now,
            rs,
            delivered: r.delivered,
            delivered_time: r.delivered_time,
            prior_in_flight,
            in_flight: c.in_flight(),
            srtt: c.rtt.srtt(),
            state,
            edt_wait: c
                .pacing
                .as_deref()
                .map_or(SimTime::ZERO, |p| p.next_send.saturating_sub(now)),
        };
        if self.cc.cong_control(&mut c.win, &d) {
            if let Some(r) = &mut c.rate {
                r.mark_app_limited(d.in_flight);
            }
        }
        self.update_pacing();
    }

    /// What an ACK of `newly_acked` bytes delivered (`ack_counting = "delivered"`), with
    /// `sacked_before` bytes SACKed before it: Linux (`tcp_newly_delivered`) and ns-3
    /// (`currentDelivered`) grow the window by that, so bytes SACKed earlier, counted when they
    /// were SACKed, are not counted again by the cumulative ACK that covers them.
    #[cold]
    #[inline(never)]
    fn delivered(c: &SenderCore, newly_acked: u64, sacked_before: u64) -> u64 {
        let sacked_now = c.sb.as_ref().map_or(0, |sb| sb.sacked_bytes());
        (newly_acked + sacked_now).saturating_sub(sacked_before)
    }

    /// An ACK arrived.
    pub fn on_ack(&mut self, now: SimTime, ack: &Segment, out: &mut Vec<Segment>) {
        let rate = self.rate_sample(now, ack);
        let first = out.len();
        let c = &mut self.core;
        let mut sack_news = false;
        let (mut rtt_sample, mut acked) = (None, 0);
        let mut fa = Observed::new(c, ack);
        // The SACKed bytes before this ACK, for what it delivered (Linux's tcp_newly_delivered):
        // the window's growth with `ack_counting = "delivered"`, and a CWR reduction's step.
        // Only taken when one of them reads it: it is a walk of the scoreboard.
        let (mut sacked_before, mut count_delivered) = (None, false);
        if let Some(sb) = &mut c.sb {
            sb.delivered.clear();
            count_delivered = sb.count_delivered;
            if count_delivered || (c.ecn.on && c.ecn.prr_cwr) {
                sacked_before = Some(sb.sacked_bytes());
            }
            if ack.ack > c.snd_una {
                sb.on_cumulative_ack(ack.ack);
            }
            sack_news = sb.on_sack(ack.sack.iter(ack.ack));
            fa.read_scoreboard(self.frto, sb, ack);
        }
        if ack.ack > c.snd_una {
            let newly_acked = ack.ack - c.snd_una;
            // RTT sample: RTTM on every ACK of new data with timestamps (the receiver echoes the
            // earliest unacknowledged segment's TSval, RFC 7323), else the timed segment.
            let sent = if c.cfg.timestamps {
                Some(ack.ts_ecr)
            } else {
                c.timed.filter(|&(end, _)| ack.ack >= end).map(|(_, sent)| sent)
            };
            let rtt = sent.map(|sent| now - sent);
            (rtt_sample, acked) = (rtt, newly_acked);
            if let Some(sent) = sent {
                c.rtt.sample(sent, now);
                c.inst.rtt_sample(now - sent);
                c.timed = None;
            }
            c.snd_una = ack.ack;
            c.snd_nxt = c.snd_nxt.max(c.snd_una);
            c.limited_bytes = 0;
            let mut cx = Ctx {
                core: c,
                cc: &mut self.cc,
                now,
                out,
            };
            let r = self.recovery.on_new_ack(&mut cx, newly_acked);
            if c.ecn.on {
                // Before the window grows, as Linux enters CWR in tcp_fastretrans_alert
                // before tcp_cong_control.
                Self::ecn_echo(c, &mut self.cc, &self.recovery, now, ack, newly_acked);
                c.cwr_step(newly_acked, sacked_before.unwrap_or(0));
            }
            let sample = Ack {
                now,
                acked: match (r.grow_by, sacked_before) {
                    (Some(b), _) => b,
                    (None, Some(before)) if count_delivered => Self::delivered(c, newly_acked, before),
                    _ => newly_acked,
                },
                rtt,
                flight: c.flight_size(),
                // No growth while an ECE response's window is out (Linux's CWR state).
                recovering: r.window_set
                    || (c.ecn.on && c.ecn.in_ece_round(c.snd_una) && !self.cc.grows_in_cwr()),
            };
            self.cc.on_ack(&mut c.win, &sample);
            c.dupacks = 0;
            // RFC 6298 Sec. 5.2 / 5.3: stop the timer when all is acknowledged, else restart it.
            if c.snd_una >= c.snd_max {
                c.rto_deadline = None;
            } else if r.restart_timer || c.rto_deadline.is_none() {
                c.rto_deadline = Some(c.rtt.deadline(now));
            }
            c.inst.acked(c.snd_una, newly_acked);
        } else if ack.ack == c.snd_una && c.snd_max > c.snd_una && !ack.flags.has(TcpFlags::SYN) {
            // RFC 5681 Sec. 2: a duplicate ACK (no data, same window, data outstanding); with a
            // scoreboard, only one whose SACK blocks say something new counts (RFC 6675 Sec. 2).
            if c.sb.is_none() || sack_news || ack.sack.is_empty() {
                c.dupacks += 1;
                if !self.recovery.in_recovery() {
                    c.limited_transmit(now, out);
                }
                self.recovery.on_dupack(&mut Ctx {
                    core: c,
                    cc: &mut self.cc,
                    now,
                    out,
                });
            }
            if c.ecn.on {
                Self::ecn_echo(c, &mut self.cc, &self.recovery, now, ack, 0);
                c.cwr_step(0, sacked_before.unwrap_or(0));
            }
        } else if self.syn.is_some() && ack.flags.has(TcpFlags::SYN) {
            return self.on_synack(now, ack, out);
        }
        let ev = AckEvent {
            ack,
            rtt: rtt_sample,
            acked,
        };
        let mut cx = Ctx {
            core: &mut self.core,
            cc: &mut self.cc,
            now,
            out,
        };
        self.recovery.on_any_ack(&mut cx, ev);
        if let Some((rs, prior_in_flight)) = rate {
            self.cong_control(now, rs, prior_in_flight);
        }
        let verdict = frto::step(
            &mut self.frto,
            fa,
            &mut self.core,
            &mut self.recovery,
            &mut self.spurious_timeouts,
        );
        match verdict {
            Verdict::Usual | Verdict::Spurious => self.send(now, out),
            Verdict::Hold => {}
            Verdict::NewData => frto::send_new_data(&mut self.core, now, out),
        }
        self.core.ecn.cwr_sent(&out[first..]);
        self.core.record_trace(now);
    }

    /// The SYN-ACK (`handshake.rs`): the first RTT sample or RFC 6298 Sec. 5.7's fallback,
    /// the window, ECN as agreed; then the ACK of the SYN-ACK and the first data leave.
    fn on_synack(&mut self, now: SimTime, synack: &Segment, out: &mut Vec<Segment>) {
        let Some(h) = self.syn.take() else { return };
        let c = &mut self.core;
        // Timestamps: the echo of the SYN that arrived; else Karn: only an unrepeated SYN.
        let sent = if c.cfg.timestamps {
            Some(synack.ts_ecr)
        } else {
            (h.syns == 1).then_some(h.sent)
        };
        match sent {
            Some(sent) => {
                c.rtt.sample(sent, now);
                c.inst.rtt_sample(now - sent);
            }
            None => c.rtt.fallback(handshake::FALLBACK_RTO),
        }
        if h.syns > 2 {
            // Linux's tcp_init_transfer: more than one SYN retransmission -> 1 segment.
            c.win.cwnd = c.cfg.mss as u64;
        }
        let agreed = h.outcome(synack);
        let (needs_ecn, l4s) = self.ecn_setup;
        let prr_cwr = c.ecn.prr_cwr;
        c.ecn = match agreed {
            crate::scenario::EcnSetting::Off => super::ecn::SenderEcn::default(),
            crate::scenario::EcnSetting::Classic => super::ecn::SenderEcn::classic(needs_ecn, l4s),
            crate::scenario::EcnSetting::Accecn => super::ecn::SenderEcn::accecn(needs_ecn, l4s, c.cfg.mss),
        };
        c.ecn.prr_cwr = prr_cwr;
        c.rto_deadline = None;
        out.push(h.ack(now, synack, agreed, c.cfg.header_bytes));
        self.start_data(now, out);
    }

    /// ECN's part of an ACK (`ecn.rs`): the controller counts it (DCTCP), and an ECE reduces
    /// the window once per window of data, not during a loss recovery (RFC 3168 Sec. 6.1.2).
    fn ecn_echo(
        c: &mut SenderCore,
        cc: &mut CongestionControl,
        recovery: &LossRecovery,
        now: SimTime,
        ack: &Segment,
        acked: u64,
    ) {
        let (una, max, mss) = (c.snd_una, c.snd_max, c.cfg.mss as u64);
        if c.ecn.cwr.is_some() && c.ecn.may_reduce(una) {
            // The CWR state ends: cwnd = ssthresh (cwr.rs, `tcp_end_cwnd_reduction`).
            c.ecn.cwr = None;
            c.win.cwnd = c.win.ssthresh;
        }
        let e = c.ecn.ack(ack, acked, mss, una, max);
        cc.on_ecn_ack(&e);
        if e.window_end {
            if let Some(a) = cc.ecn_estimate() {
                c.inst.estimate(now, a);
            }
        }
        if !e.ece {
            return;
        }
        c.inst.counters.ece_acks += 1;
        if recovery.in_recovery() || !c.ecn.may_reduce(c.snd_una) {
            return;
        }
        let loss = c.loss(now);
        let prior_cwnd = c.win.cwnd;
        let reduced = cc.on_ecn_echo(&mut c.win, &loss);
        c.ecn.reduced(c.snd_max, reduced);
        if reduced {
            c.inst.counters.ecn_reductions += 1;
            if c.ecn.prr_cwr && !cc.grows_in_cwr() {
                // Linux's CWR state (cwr.rs): the controller's ssthresh, cwnd lowered to it
                // by PRR from this ACK on.
                c.win.cwnd = prior_cwnd;
                c.ecn.cwr = Some(CwrPrr::new(prior_cwnd, mss));
            }
        }
    }

    /// The retransmit timer may have expired (RFC 6298 Sec. 5.4-5.6): the congestion control
    /// sets the window (one segment for AIMD), every variant goes back to snd_una (go-back-N),
    /// and the timer backs off.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        // Pacing let the next segment go.
        let first = out.len();
        if matches!(self.core.pacing.as_deref(), Some(p) if p.blocked && p.next_send <= now) {
            self.send(now, out);
            self.core.record_trace(now);
        }
        // The recovery's timers first: a loss probe re-arms the retransmit timer (RFC 8985
        // Sec. 7.3), so a probe due at the same instant as the RTO replaces it.
        self.recovery.on_timer(&mut Ctx {
            core: &mut self.core,
            cc: &mut self.cc,
            now,
            out,
        });
        self.core.ecn.cwr_sent(&out[first..]);
        if !out.is_empty() {
            self.core.record_trace(now);
        }
        let c = &mut self.core;
        match c.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        if let Some(h) = &mut self.syn {
            // The SYN's timer (handshake.rs): the SYN again, the timer backed off.
            c.rtt.back_off();
            c.rto_deadline = Some(c.rtt.deadline(now));
            out.push(h.syn(
                now,
                c.cfg.header_bytes + handshake::syn_option_bytes(c.cfg.timestamps),
            ));
            return;
        }
        // F-RTO step 1 (frto.rs), with the window before the timeout.
        self.frto = frto::start(self.frto, c, &self.recovery);
        // A repeated timeout of one segment (the timer is backed off) may keep ssthresh
        // (RFC 5681 Sec. 3.1). FlightSize is the data in flight (RFC 6675 pipe with SACK).
        let loss = c.timeout_loss(now);
        c.win = self.cc.on_timeout(c.win, &loss, c.rtt.backoff() > 0);
        c.recover = c.snd_max;
        c.snd_nxt = c.snd_una;
        c.dupacks = 0;
        c.timed = None;
        if let Some(sb) = &mut c.sb {
            sb.clear_rtx();
        }
        if let Some(r) = &mut c.rate {
            r.on_timeout();
            self.in_loss = true;
        }
        c.signal_loss(LossSignal::Timeout);
        c.rtt.back_off();
        c.rto_deadline = Some(c.rtt.deadline(now));
        self.recovery.on_timeout(&mut Ctx {
            core: c,
            cc: &mut self.cc,
            now,
            out,
        });
        self.send(now, out);
        self.core.record_trace(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::{Aimd, FromOptions, Setup};
    use crate::tcp::recovery::reno::Reno;
    use crate::tcp::rto::RttEstimator;

    fn sender() -> Sender {
        let cfg = SenderConfig {
            mss: 1000,
            header_bytes: 40,
            rwnd: 1 << 30,
            total_bytes: None,
            timestamps: false,
            dupthresh: 3,
            limited_transmit: false,
            idle_restart: true,
            sack: false,
            frto: false,
            rto_restart_on_retransmit: false,
        };
        let setup = Setup {
            mss: 1000,
            initial_window: 1000,
            initial_ssthresh: u64::MAX / 4,
            rwnd: 1 << 30,
        };
        let cc = CongestionControl::Aimd(Aimd::build(&Default::default(), &setup));
        let rtt = RtoEstimator::Rfc6298(RttEstimator::new(
            SimTime::from_secs(1),
            SimTime::from_ms(200),
            SimTime::from_secs(60),
            SimTime::ZERO,
        ));
        Sender::new(0, 0, 1, cfg, LossRecovery::Reno(Reno::default()), cc, rtt)
    }

    /// Issue #18's traced case, scaled: a SACK sender with 400 segments out; segment 0 is
    /// lost, three duplicate ACKs start the recovery (ssthresh = cwnd = 200 segments) and
    /// retransmit it; then the receiver SACKs 1..367 and the sender fills the window with 166 new
    /// segments (pipe: the retransmission, 33 old and 166 new unSACKed segments = 200). The
    /// retransmission is lost, so the RTO ends the recovery: ssthresh = pipe / 2 = 100 segments,
    /// where snd_max - snd_una (566 segments, 366 of them SACKed) would give 283.
    #[test]
    fn rto_after_a_stalled_sack_recovery_takes_ssthresh_from_pipe() {
        let mut s = sender();
        s.core.cfg.sack = true;
        s.core.sb = Some(Box::default());
        s.recovery = LossRecovery::Sack(crate::tcp::recovery::sack::SackRecovery::new(false));
        s.core.win.cwnd = 400_000;
        let mut out = vec![];
        s.start(SimTime::ZERO, &mut out);
        assert_eq!(out.len(), 400);
        out.clear();
        for k in 1..=3u32 {
            let mut a = ack(0);
            a.sack.n = 1;
            a.sack.blocks[0] = (1000, 1000 + k * 1000);
            s.on_ack(SimTime::from_ms(100), &a, &mut out);
        }
        assert!(out.iter().any(|p| p.retransmit && p.seq == 0), "fast retransmit");
        let mut a = ack(0);
        a.sack.n = 1;
        a.sack.blocks[0] = (1000, 367_000);
        s.on_ack(SimTime::from_ms(101), &a, &mut out);
        let t = s.deadline().unwrap();
        assert_eq!((s.core.snd_una, s.core.snd_max), (0, 566_000));
        s.on_timer(t, &mut out);
        assert_eq!(s.core.win.ssthresh, 100_000);
        assert_eq!(s.core.win.cwnd, 1000);
    }

    fn ack(n: u64) -> Segment {
        Segment::ack(n, 40)
    }

    #[test]
    fn karn_no_sample_from_a_retransmission_and_backoff_kept_until_a_clean_one() {
        let mut s = sender();
        let mut out = vec![];
        s.start(SimTime::ZERO, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(s.deadline(), Some(SimTime::from_secs(1)));
        out.clear();
        s.on_timer(SimTime::from_secs(1), &mut out); // RTO: retransmit, back off to 2 s
        assert!(out[0].retransmit);
        assert_eq!(s.deadline(), Some(SimTime::from_secs(3)));
        out.clear();
        // The ACK of the retransmission is ambiguous: no sample, RTO stays backed off.
        s.on_ack(SimTime::from_ms(1100), &ack(1000), &mut out);
        assert_eq!(s.core.rtt.srtt(), None);
        assert_eq!(s.core.rtt.rto(), SimTime::from_secs(2));
        assert_eq!(s.deadline(), Some(SimTime::from_ms(3100)));
        // New data (slow start: 2 segments) is timed; its ACK gives a clean 100 ms sample,
        // which resets the backoff: RTO = 100 + 4 * 50 = 300 ms.
        assert_eq!(out.len(), 2);
        out.clear();
        s.on_ack(SimTime::from_ms(1200), &ack(2000), &mut out);
        assert_eq!(s.core.rtt.srtt(), Some(SimTime::from_ms(100)));
        assert_eq!(s.core.rtt.backoff(), 0);
        assert_eq!(s.core.rtt.rto(), SimTime::from_ms(300));
    }

    #[test]
    fn app_writes_release_data_to_a_waiting_sender() {
        let mut s = sender();
        s.core.cfg.total_bytes = Some(0);
        let mut out = vec![];
        s.start(SimTime::ZERO, &mut out);
        assert!(out.is_empty() && s.all_acked());
        s.app_write(SimTime::from_ms(5), 2500, &mut out);
        assert_eq!(out.len(), 1); // IW = 1 segment
        s.on_ack(SimTime::from_ms(105), &ack(1000), &mut out);
        let lens: Vec<u32> = out.iter().map(|p| p.len).collect();
        assert_eq!(lens, vec![1000, 1000, 500]); // slow start: 2 more, the last one short
        s.on_ack(SimTime::from_ms(205), &ack(2500), &mut out);
        assert!(s.all_acked());
    }

    #[test]
    fn idle_restart_returns_to_the_initial_window_after_an_rto_of_silence() {
        // RFC 5681 Sec. 4.1 (Jacobson & Karels App. C): idle longer than the RTO -> cwnd = IW.
        let mut s = sender();
        s.core.cfg.total_bytes = Some(0);
        let mut out = vec![];
        s.start(SimTime::ZERO, &mut out);
        s.app_write(SimTime::ZERO, 3000, &mut out);
        s.on_ack(SimTime::from_ms(100), &ack(1000), &mut out);
        s.on_ack(SimTime::from_ms(200), &ack(3000), &mut out);
        assert!(s.core.win.cwnd >= 3000);
        // Two 100 ms samples: RTO = 100 + 4 * 37.5 = 250 ms. The last send was at 100 ms, so a
        // write at 320 ms (220 ms idle) keeps the window ...
        assert_eq!(s.core.rtt.rto(), SimTime::from_ms(250));
        s.app_write(SimTime::from_ms(320), 1000, &mut out);
        assert!(s.core.win.cwnd >= 3000);
        s.on_ack(SimTime::from_ms(420), &ack(4000), &mut out);
        // ... and one after more than an RTO of silence restarts from IW = 1 segment.
        s.app_write(SimTime::from_ms(1500), 1000, &mut out);
        assert_eq!(s.core.win.cwnd, 1000);
    }
}
