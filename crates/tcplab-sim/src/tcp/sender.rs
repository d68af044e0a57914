//! The TCP sender machinery every variant shares: sequence space, the send loop, window growth
//! (slow start and congestion avoidance, per ACK or per byte), RTT sampling, the retransmit
//! timer, limited transmit, idle restart, the SACK scoreboard, and the loss instruments. What
//! differs between variants — how a loss is detected and repaired and which window the send
//! loop uses — lives in `LossRecovery` (one small file per variant), called at four seams: a
//! duplicate ACK, a new ACK, a timeout, and the send loop. Sans-IO: the sender takes
//! `(now, ACK)` or `(now)` for its timer, and returns segments to send and its next deadline.

use super::instruments::Instruments;
pub use super::instruments::LossSignal;
use super::recovery::LossRecovery;
use super::rto::RtoEstimator;
use super::sack::Scoreboard;
use super::segment::Segment;
use crate::net::packet::NodeId;
use crate::time::SimTime;

/// How the window grows on a new ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// One increment per ACK, as the papers' senders do (Jacobson & Karels App. B).
    PerAck,
    /// Appropriate Byte Counting (RFC 3465): by bytes acknowledged, at most `limit` SMSS per
    /// ACK in slow start; one SMSS per cwnd of acknowledged bytes in congestion avoidance.
    Abc { limit: u32 },
}

/// Everything a sender is configured with (resolved from the scenario).
#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub mss: u32,
    pub header_bytes: u32,
    /// Initial congestion window, in segments.
    pub initial_window: u32,
    /// Initial slow-start threshold in bytes (RFC 5681: arbitrarily high).
    pub initial_ssthresh: u64,
    /// The receiver's advertised window, in bytes.
    pub rwnd: u64,
    /// Bytes the application sends; None for an unlimited bulk transfer.
    pub total_bytes: Option<u64>,
    /// RFC 7323 timestamps: RTT measured on every ACK (RTTM) instead of one timed segment.
    pub timestamps: bool,
    pub growth: Growth,
    /// The duplicate-ACK threshold (RFC 5681: 3).
    pub dupthresh: u32,
    /// RFC 3042: one new segment on each of the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// RFC 5681 Sec. 4.1 (Jacobson App. C): after an idle period longer than the RTO, restart
    /// from the initial window.
    pub idle_restart: bool,
    /// Keep a SACK scoreboard (SACK-based variants).
    pub sack: bool,
    /// Halve cwnd rather than FlightSize on a loss (see `SenderCore::halve_ssthresh`).
    pub ssthresh_from_cwnd: bool,
}

/// What a variant did with a new ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckResult {
    /// The variant set cwnd itself: no slow-start / CA growth on this ACK.
    pub window_set: bool,
    /// Restart the retransmit timer (RFC 6298 Sec. 5.3); NewReno's Impatient variant declines
    /// after the first partial ACK.
    pub restart_timer: bool,
}

impl AckResult {
    /// Normal growth, timer restarted.
    pub const GROW: AckResult = AckResult {
        window_set: false,
        restart_timer: true,
    };
    /// The variant set the window; timer restarted.
    pub const SET: AckResult = AckResult {
        window_set: true,
        restart_timer: true,
    };
}

/// Shared sender state, in the papers' and RFCs' vocabulary. Variants read and write it.
#[derive(Clone, Debug)]
pub struct SenderCore {
    pub flow: u32,
    pub node: NodeId,
    pub peer: NodeId,
    pub cfg: SenderConfig,
    /// Oldest unacknowledged byte.
    pub snd_una: u64,
    /// Next byte to send (rewound by go-back-N).
    pub snd_nxt: u64,
    /// Highest byte sent so far, plus one.
    pub snd_max: u64,
    /// Congestion window in bytes.
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Consecutive duplicate ACKs.
    pub dupacks: u32,
    /// Highest byte sent (plus one) when the last timeout or guarded fast retransmit happened:
    /// duplicate ACKs that do not cover it cannot trigger a new fast retransmit (RFC 6582
    /// Sec. 3.2 step 1; ns-2's `bug_fix_`), so dupACKs for data sent before a timeout do not
    /// halve the window again.
    pub recover: u64,
    pub rtt: RtoEstimator,
    /// The SACK scoreboard, for SACK-based variants.
    pub sb: Option<Scoreboard>,
    rto_deadline: Option<SimTime>,
    /// Karn: the one segment being timed (its end) and when it was sent, if any.
    timed: Option<(u64, SimTime)>,
    /// ABC: bytes acknowledged toward the next congestion-avoidance increment.
    abc_bytes: u64,
    last_send: Option<SimTime>,
    /// Mathis' instruments: what this sender reports of its sends, samples and reductions.
    pub inst: Instruments,
}

impl SenderCore {
    pub fn mss(&self) -> u64 {
        self.cfg.mss as u64
    }

    /// Data sent and not yet acknowledged (RFC 5681 FlightSize).
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// RFC 5681 Eq. 4: ssthresh = max(FlightSize / 2, 2 * SMSS); or, with
    /// `ssthresh_from_cwnd`, half the congestion window (BSD, Linux and ns-2; what the papers'
    /// simulators did). They differ after an inflated fast recovery, when FlightSize includes
    /// data sent on the inflated window.
    pub fn halve_ssthresh(&mut self) {
        let base = if self.cfg.ssthresh_from_cwnd {
            self.cwnd.min(self.cfg.rwnd)
        } else {
            self.flight_size()
        };
        self.ssthresh = (base / 2).max(2 * self.mss());
    }

    pub fn app_limit(&self) -> u64 {
        self.cfg.total_bytes.unwrap_or(u64::MAX)
    }

    /// Has the application's data all been acknowledged?
    pub fn finished(&self) -> bool {
        self.snd_una >= self.app_limit()
    }

    /// May the third duplicate ACK trigger a fast retransmit? Only if the cumulative ACK covers
    /// more than the highest byte sent at the last reaction, i.e. ACK > `recover` (RFC 6582
    /// Sec. 3.2 step 1; `recover` here is one past that byte), or before any reaction. Without
    /// the strict inequality, go-back-N's duplicates of data the receiver already holds produce
    /// dupACKs equal to `recover` and a spurious second fast retransmit.
    pub fn fast_retransmit_allowed(&self) -> bool {
        self.recover == 0 || self.snd_una > self.recover
    }

    /// Window growth for one new ACK of `acked` bytes: slow start below ssthresh, congestion
    /// avoidance above (per ACK: cwnd += SMSS*SMSS/cwnd, Jacobson & Karels 1988 App. B,
    /// RFC 5681 Eq. 3; or by bytes, RFC 3465).
    pub fn grow_window(&mut self, acked: u64) {
        let mss = self.mss();
        match self.cfg.growth {
            Growth::PerAck => {
                if self.cwnd < self.ssthresh {
                    self.cwnd += mss;
                } else {
                    self.cwnd += (mss * mss / self.cwnd).max(1);
                }
            }
            Growth::Abc { limit } => {
                if self.cwnd < self.ssthresh {
                    self.cwnd += acked.min(limit as u64 * mss);
                } else {
                    self.abc_bytes += acked;
                    if self.abc_bytes >= self.cwnd {
                        self.abc_bytes -= self.cwnd;
                        self.cwnd += mss;
                    }
                }
            }
        }
    }

    /// Reports a window reduction to the instruments (a loss episode opens, or the open one
    /// is marked as not clean).
    pub fn signal_loss(&mut self, signal: LossSignal) {
        self.inst.window_reduced(signal, self.snd_max);
    }

    /// Sends the segment starting at `seq` (at most one MSS, never beyond the data, and a
    /// retransmission never beyond what was sent before).
    pub fn send_segment(&mut self, now: SimTime, seq: u64, out: &mut Vec<Segment>) {
        let retransmit = seq < self.snd_max;
        let mut len = self.mss().min(self.app_limit() - seq);
        if retransmit {
            len = len.min(self.snd_max - seq);
        }
        let end = seq + len;
        if retransmit {
            // Karn: a retransmission makes the timed segment's sample ambiguous.
            self.timed = None;
            let snd_max = self.snd_max;
            if let Some(sb) = &mut self.sb {
                sb.mark_rtx(seq, snd_max);
            }
        } else {
            if self.timed.is_none() && !self.cfg.timestamps {
                self.timed = Some((end, now));
            }
            if let Some(sb) = &mut self.sb {
                sb.on_send_new(seq, end);
            }
        }
        self.inst.sent(retransmit);
        self.snd_max = self.snd_max.max(end);
        self.last_send = Some(now);
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(self.rtt.deadline(now)); // RFC 6298 Sec. 5.1
        }
        out.push(Segment {
            ts_val: now,
            retransmit,
            ..Segment::data(seq, len as u32, len as u32 + self.cfg.header_bytes)
        });
    }

    /// Sends one new segment at the right edge if `window` (bytes above snd_una) and the
    /// receiver's window allow it; returns whether it did.
    pub fn send_new_segment(&mut self, now: SimTime, window: u64, out: &mut Vec<Segment>) -> bool {
        let seq = self.snd_max;
        let len = self.mss().min(self.app_limit().saturating_sub(seq));
        let limit = self.snd_una + window.min(self.cfg.rwnd);
        if len == 0 || seq + len > limit || self.snd_nxt != self.snd_max {
            return false;
        }
        self.send_segment(now, seq, out);
        self.snd_nxt = self.snd_max;
        true
    }

    /// The send loop: new or go-back-N data while `window` allows (segments the receiver has
    /// SACKed are skipped). A segment smaller than the MSS is sent only at the end of the data
    /// (sender silly-window avoidance).
    pub fn send_allowed(&mut self, now: SimTime, window: u64, out: &mut Vec<Segment>) {
        let limit = self.snd_una + window.min(self.cfg.rwnd);
        let app = self.app_limit();
        while self.snd_nxt < app && self.snd_nxt < limit {
            if self.snd_nxt < self.snd_max {
                if let Some(seg) = self.sb.as_ref().and_then(|sb| sb.is_sacked_at(self.snd_nxt)) {
                    if seg.sacked {
                        self.snd_nxt = seg.end;
                        continue;
                    }
                }
            }
            let usable = limit - self.snd_nxt;
            if usable < self.mss() && app - self.snd_nxt > usable {
                break;
            }
            let seq = self.snd_nxt;
            self.send_segment(now, seq, out);
            self.snd_nxt = out.last().map_or(seq, |p| p.end());
        }
    }

    /// RFC 3042 limited transmit: on the first and second duplicate ACK, one new segment if the
    /// flight stays within cwnd + 2 SMSS.
    fn limited_transmit(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.cfg.limited_transmit && self.dupacks <= 2 {
            let w = self.cwnd + 2 * self.mss();
            self.send_new_segment(now, w, out);
        }
    }

    /// Reports the window after an event to the instruments.
    fn record_trace(&mut self, now: SimTime) {
        self.inst.observe(now, self.cwnd, self.ssthresh);
    }
}

/// A TCP sender: the shared core plus one variant's loss recovery.
#[derive(Clone, Debug)]
pub struct Sender {
    pub core: SenderCore,
    pub recovery: LossRecovery,
}

impl Sender {
    pub fn new(
        flow: u32,
        node: NodeId,
        peer: NodeId,
        cfg: SenderConfig,
        recovery: LossRecovery,
        rtt: RtoEstimator,
    ) -> Self {
        let core = SenderCore {
            flow,
            node,
            peer,
            cwnd: cfg.initial_window as u64 * cfg.mss as u64,
            ssthresh: cfg.initial_ssthresh,
            sb: cfg.sack.then(Scoreboard::default),
            cfg,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            dupacks: 0,
            recover: 0,
            rtt,
            rto_deadline: None,
            timed: None,
            abc_bytes: 0,
            last_send: None,
            inst: Instruments::default(),
        };
        let mut s = Sender { core, recovery };
        s.recovery.init(&mut s.core);
        s
    }

    /// Keeps a bounded trace of (time, cwnd, ssthresh) at every change.
    pub fn enable_trace(&mut self, max_points: usize) {
        self.core.inst.enable_trace(max_points);
    }

    /// When the retransmit timer wants to fire, if it is running.
    pub fn deadline(&self) -> Option<SimTime> {
        self.core.rto_deadline
    }

    /// Brings the time integrals (mean cwnd) up to `now`.
    pub fn integrate(&mut self, now: SimTime) {
        self.core.inst.integrate(now);
    }

    pub fn start(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let (cwnd, ssthresh) = (self.core.cwnd, self.core.ssthresh);
        self.core.inst.start(now, cwnd, ssthresh);
        self.send(now, out);
        self.core.record_trace(now);
    }

    /// The application hands the sender `bytes` more to send (request/response traffic). A
    /// sender configured with `total_bytes = Some(0)` waits for writes; an unlimited one ignores
    /// them. After an idle period longer than the RTO the window restarts from the initial
    /// window (RFC 5681 Sec. 4.1, Jacobson & Karels App. C).
    pub fn app_write(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Segment>) {
        let c = &mut self.core;
        if let Some(total) = c.cfg.total_bytes {
            if c.cfg.idle_restart && c.snd_una == c.snd_max {
                if let Some(last) = c.last_send {
                    if now - last > c.rtt.rto() {
                        c.cwnd = c.cwnd.min(c.cfg.initial_window as u64 * c.mss());
                    }
                }
            }
            c.cfg.total_bytes = Some(total + bytes);
            self.send(now, out);
            self.core.record_trace(now);
        }
    }

    /// True when everything the application wrote has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.core.finished()
    }

    fn send(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.recovery.send(&mut self.core, now, out);
    }

    /// An ACK arrived.
    pub fn on_ack(&mut self, now: SimTime, ack: &Segment, out: &mut Vec<Segment>) {
        let c = &mut self.core;
        let mut sack_news = false;
        if let Some(sb) = &mut c.sb {
            if ack.ack > c.snd_una {
                sb.on_cumulative_ack(ack.ack);
            }
            sack_news = sb.on_sack(ack.sack.iter(ack.ack));
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
            if let Some(sent) = sent {
                c.rtt.sample(sent, now);
                c.inst.rtt_sample(now - sent);
                c.timed = None;
            }
            c.snd_una = ack.ack;
            c.snd_nxt = c.snd_nxt.max(c.snd_una);
            let r = self.recovery.on_new_ack(c, now, newly_acked, out);
            if !r.window_set {
                c.grow_window(newly_acked);
            }
            c.dupacks = 0;
            // RFC 6298 Sec. 5.2 / 5.3: stop the timer when all is acknowledged, else restart it.
            if c.snd_una >= c.snd_max {
                c.rto_deadline = None;
            } else if r.restart_timer || c.rto_deadline.is_none() {
                c.rto_deadline = Some(c.rtt.deadline(now));
            }
            c.inst.acked(c.snd_una, newly_acked);
        } else if ack.ack == c.snd_una && c.snd_max > c.snd_una {
            // RFC 5681 Sec. 2: a duplicate ACK (no data, same window, data outstanding); with a
            // scoreboard, only one whose SACK blocks say something new counts (RFC 6675 Sec. 2).
            if c.sb.is_none() || sack_news || ack.sack.is_empty() {
                c.dupacks += 1;
                if !self.recovery.in_recovery() {
                    c.limited_transmit(now, out);
                }
                self.recovery.on_dupack(c, now, out);
            }
        }
        self.send(now, out);
        self.core.record_trace(now);
    }

    /// The retransmit timer may have expired (RFC 6298 Sec. 5.4-5.6): every variant collapses
    /// the window to one segment and goes back to snd_una (go-back-N), backing the timer off.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let c = &mut self.core;
        match c.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        // RFC 5681 Sec. 3.1: ssthresh is held constant across repeated timeouts of a segment.
        if c.rtt.backoff() == 0 {
            c.halve_ssthresh();
        }
        c.cwnd = c.mss();
        c.recover = c.snd_max;
        c.snd_nxt = c.snd_una;
        c.dupacks = 0;
        c.timed = None;
        c.abc_bytes = 0;
        if let Some(sb) = &mut c.sb {
            sb.clear_rtx();
        }
        c.signal_loss(LossSignal::Timeout);
        c.rtt.back_off();
        c.rto_deadline = Some(c.rtt.deadline(now));
        self.recovery.on_timeout(c);
        self.send(now, out);
        self.core.record_trace(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::reno::Reno;
    use crate::tcp::rto::RttEstimator;

    fn sender() -> Sender {
        let cfg = SenderConfig {
            mss: 1000,
            header_bytes: 40,
            initial_window: 1,
            initial_ssthresh: u64::MAX / 4,
            rwnd: 1 << 30,
            total_bytes: None,
            timestamps: false,
            growth: Growth::PerAck,
            dupthresh: 3,
            limited_transmit: false,
            idle_restart: true,
            sack: false,
            ssthresh_from_cwnd: false,
        };
        let rtt = RtoEstimator::Rfc6298(RttEstimator::new(
            SimTime::from_secs(1),
            SimTime::from_ms(200),
            SimTime::from_secs(60),
            SimTime::ZERO,
        ));
        Sender::new(0, 0, 1, cfg, LossRecovery::Reno(Reno::default()), rtt)
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
        assert!(s.core.cwnd >= 3000);
        // Two 100 ms samples: RTO = 100 + 4 * 37.5 = 250 ms. The last send was at 100 ms, so a
        // write at 320 ms (220 ms idle) keeps the window ...
        assert_eq!(s.core.rtt.rto(), SimTime::from_ms(250));
        s.app_write(SimTime::from_ms(320), 1000, &mut out);
        assert!(s.core.cwnd >= 3000);
        s.on_ack(SimTime::from_ms(420), &ack(4000), &mut out);
        // ... and one after more than an RTO of silence restarts from IW = 1 segment.
        s.app_write(SimTime::from_ms(1500), 1000, &mut out);
        assert_eq!(s.core.cwnd, 1000);
    }
}
