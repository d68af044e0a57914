//! The TCP sender machinery every variant shares: sequence space, the send loop, window growth
//! (slow start and congestion avoidance), RTT sampling, the retransmit timer, and the loss
//! instruments. What differs between variants — how a loss is detected and repaired — lives in
//! `LossRecovery` (one small file per variant), called at the three seams: a duplicate ACK, a
//! new ACK, and a timeout. Sans-IO: the sender takes `(now, ACK)` or `(now)` for its timer, and
//! returns segments to send and its next deadline.

use super::recovery::LossRecovery;
use super::rto::RttEstimator;
use crate::net::packet::{NodeId, Packet, PacketKind};
use crate::stats::FlowCounters;
use crate::time::SimTime;

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
    pub initial_rto: SimTime,
    pub min_rto: SimTime,
    pub max_rto: SimTime,
    pub rto_granularity: SimTime,
}

/// Why the window was cut: the start of (or a further reduction inside) a loss episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossSignal {
    FastRetransmit,
    Timeout,
}

/// A loss episode in Mathis et al. 1997 Sec. 3.3 and footnote 10: from the first window
/// reduction until everything outstanding at that moment is acknowledged. It counts as one CA
/// event if it was a single fast retransmit that kept the self-clock, otherwise as one non-CA
/// event; every retransmission in it after the first is an "other loss".
#[derive(Clone, Copy, Debug)]
struct Episode {
    recover: u64,
    clean: bool,
    retransmissions: u64,
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
    pub rtt: RttEstimator,
    rto_deadline: Option<SimTime>,
    /// Karn: the one segment being timed (its end) and when it was sent, if any.
    timed: Option<(u64, SimTime)>,
    episode: Option<Episode>,
    pub counters: FlowCounters,
    last_integrated: SimTime,
    pub started: bool,
    pub trace: Option<Vec<(SimTime, u64, u64)>>,
    pub trace_limit: usize,
}

impl SenderCore {
    pub fn mss(&self) -> u64 {
        self.cfg.mss as u64
    }

    /// Data sent and not yet acknowledged (RFC 5681 FlightSize).
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// RFC 5681 Eq. 4: ssthresh = max(FlightSize / 2, 2 * SMSS).
    pub fn halve_ssthresh(&mut self) {
        self.ssthresh = (self.flight_size() / 2).max(2 * self.mss());
    }

    fn app_limit(&self) -> u64 {
        self.cfg.total_bytes.unwrap_or(u64::MAX)
    }

    /// Has the application's data all been acknowledged?
    pub fn finished(&self) -> bool {
        self.snd_una >= self.app_limit()
    }

    /// Window growth for one new ACK: slow start below ssthresh (cwnd += SMSS), congestion
    /// avoidance above (cwnd += SMSS*SMSS/cwnd, Jacobson & Karels 1988 App. B; RFC 5681 Eq. 3).
    pub fn grow_window(&mut self) {
        let mss = self.mss();
        if self.cwnd < self.ssthresh {
            self.cwnd += mss;
        } else {
            self.cwnd += (mss * mss / self.cwnd).max(1);
        }
    }

    /// May the third duplicate ACK trigger a fast retransmit? Only once the cumulative ACK
    /// covers `recover` (RFC 6582 Sec. 3.2 step 1).
    pub fn fast_retransmit_allowed(&self) -> bool {
        self.snd_una >= self.recover
    }

    /// Records a window reduction: opens a loss episode or marks the open one as not clean.
    pub fn signal_loss(&mut self, signal: LossSignal) {
        match (&mut self.episode, signal) {
            (None, s) => {
                self.counters.loss_events += 1;
                self.episode = Some(Episode {
                    recover: self.snd_max,
                    clean: s == LossSignal::FastRetransmit,
                    retransmissions: 0,
                });
            }
            (Some(e), _) => e.clean = false,
        }
        match signal {
            LossSignal::FastRetransmit => self.counters.fast_retransmits += 1,
            LossSignal::Timeout => self.counters.timeouts += 1,
        }
    }

    /// Sends the segment starting at `seq` (at most one MSS, never beyond the data).
    pub fn send_segment(&mut self, now: SimTime, seq: u64, out: &mut Vec<Packet>) {
        let len = self.mss().min(self.app_limit() - seq) as u32;
        let retransmit = seq < self.snd_max;
        let end = seq + len as u64;
        if retransmit {
            self.counters.segments_retransmitted += 1;
            // Karn: a retransmission makes the timed segment's sample ambiguous.
            self.timed = None;
            if let Some(e) = &mut self.episode {
                e.retransmissions += 1;
            }
        } else if self.timed.is_none() && !self.cfg.timestamps {
            self.timed = Some((end, now));
        }
        self.counters.segments_sent += 1;
        self.snd_max = self.snd_max.max(end);
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto()); // RFC 6298 Sec. 5.1
        }
        out.push(Packet {
            flow: self.flow,
            kind: PacketKind::Data,
            src: self.node,
            dst: self.peer,
            seq,
            len,
            size: len + self.cfg.header_bytes,
            ack: 0,
            ts_val: now,
            ts_ecr: SimTime::ZERO,
            retransmit,
        });
    }

    /// The send loop: new or go-back-N data while the window allows. A segment smaller than
    /// the MSS is sent only at the end of the data (sender silly-window avoidance).
    pub fn send_allowed(&mut self, now: SimTime, window: u64, out: &mut Vec<Packet>) {
        let limit = self.snd_una + window.min(self.cfg.rwnd);
        let app = self.app_limit();
        while self.snd_nxt < app && self.snd_nxt < limit {
            let usable = limit - self.snd_nxt;
            if usable < self.mss() && app - self.snd_nxt > usable {
                break;
            }
            let seq = self.snd_nxt;
            self.send_segment(now, seq, out);
            self.snd_nxt = out.last().map_or(seq, |p| p.end());
        }
    }

    fn integrate(&mut self, now: SimTime) {
        let dt = now.ns().saturating_sub(self.last_integrated.ns());
        self.counters.cwnd_area += self.cwnd as u128 * dt as u128;
        self.last_integrated = now;
    }

    fn record_trace(&mut self, now: SimTime) {
        if let Some(t) = &mut self.trace {
            let changed = t
                .last()
                .is_none_or(|&(_, c, s)| c != self.cwnd || s != self.ssthresh);
            if changed && t.len() < self.trace_limit {
                t.push((now, self.cwnd, self.ssthresh));
            }
        }
    }
}

/// A TCP sender: the shared core plus one variant's loss recovery.
#[derive(Clone, Debug)]
pub struct Sender {
    pub core: SenderCore,
    pub recovery: LossRecovery,
}

impl Sender {
    pub fn new(flow: u32, node: NodeId, peer: NodeId, cfg: SenderConfig, recovery: LossRecovery) -> Self {
        let rtt = RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto, cfg.rto_granularity);
        let core = SenderCore {
            flow,
            node,
            peer,
            cwnd: cfg.initial_window as u64 * cfg.mss as u64,
            ssthresh: cfg.initial_ssthresh,
            cfg,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            dupacks: 0,
            recover: 0,
            rtt,
            rto_deadline: None,
            timed: None,
            episode: None,
            counters: FlowCounters::default(),
            last_integrated: SimTime::ZERO,
            started: false,
            trace: None,
            trace_limit: 0,
        };
        Sender { core, recovery }
    }

    /// Keeps a bounded trace of (time, cwnd, ssthresh) at every change.
    pub fn enable_trace(&mut self, max_points: usize) {
        self.core.trace = Some(Vec::new());
        self.core.trace_limit = max_points;
    }

    /// When the retransmit timer wants to fire, if it is running.
    pub fn deadline(&self) -> Option<SimTime> {
        self.core.rto_deadline
    }

    /// Brings the time integrals (mean cwnd) up to `now`.
    pub fn integrate(&mut self, now: SimTime) {
        self.core.integrate(now);
    }

    pub fn start(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.core.started = true;
        self.core.last_integrated = now;
        self.send(now, out);
        self.core.record_trace(now);
    }

    /// The application hands the sender `bytes` more to send (request/response traffic). A
    /// sender configured with `total_bytes = Some(0)` waits for writes; an unlimited one ignores
    /// them. Returns the segments that can leave now.
    pub fn app_write(&mut self, now: SimTime, bytes: u64, out: &mut Vec<Packet>) {
        if let Some(total) = self.core.cfg.total_bytes {
            self.core.integrate(now);
            self.core.cfg.total_bytes = Some(total + bytes);
            self.send(now, out);
            self.core.record_trace(now);
        }
    }

    /// True when everything the application wrote has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.core.finished()
    }

    fn send(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let w = self.recovery.send_window(&self.core);
        self.core.send_allowed(now, w, out);
    }

    /// An ACK arrived.
    pub fn on_ack(&mut self, now: SimTime, ack: &Packet, out: &mut Vec<Packet>) {
        let c = &mut self.core;
        c.integrate(now);
        if ack.ack > c.snd_una {
            let newly_acked = ack.ack - c.snd_una;
            // RTT sample: RTTM on every ACK of new data with timestamps, else the timed segment.
            if c.cfg.timestamps {
                // The receiver echoes the earliest unacknowledged segment's TSval (RFC 7323).
                let r = now - ack.ts_ecr;
                c.rtt.sample(r);
                c.counters.add_rtt(r);
            } else if let Some((end, sent)) = c.timed {
                if ack.ack >= end {
                    let r = now - sent;
                    c.rtt.sample(r);
                    c.counters.add_rtt(r);
                    c.timed = None;
                }
            }
            c.snd_una = ack.ack;
            c.snd_nxt = c.snd_nxt.max(c.snd_una);
            c.counters.bytes_acked += newly_acked;
            if !self.recovery.on_new_ack(c, now, newly_acked, out) {
                c.grow_window();
            }
            c.dupacks = 0;
            // RFC 6298 Sec. 5.2 / 5.3: stop the timer when all is acknowledged, else restart it.
            c.rto_deadline = if c.snd_una >= c.snd_max {
                None
            } else {
                Some(now + c.rtt.rto())
            };
            if let Some(e) = c.episode {
                if c.snd_una >= e.recover {
                    if e.clean {
                        c.counters.ca_events += 1;
                    } else {
                        c.counters.non_ca_events += 1;
                    }
                    c.counters.other_losses += e.retransmissions.saturating_sub(1);
                    c.episode = None;
                }
            }
        } else if ack.ack == c.snd_una && c.snd_max > c.snd_una {
            // RFC 5681 Sec. 2: a duplicate ACK (no data, same window, data outstanding).
            c.dupacks += 1;
            self.recovery.on_dupack(c, now, out);
        }
        self.send(now, out);
        self.core.record_trace(now);
    }

    /// The retransmit timer may have expired (RFC 6298 Sec. 5.4-5.6): every variant collapses
    /// the window to one segment and goes back to snd_una (go-back-N), backing the timer off.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let c = &mut self.core;
        match c.rto_deadline {
            Some(d) if d <= now => {}
            _ => return,
        }
        c.integrate(now);
        // RFC 5681 Sec. 3.1: ssthresh is held constant across repeated timeouts of a segment.
        if c.rtt.backoff() == 0 {
            c.halve_ssthresh();
        }
        c.cwnd = c.mss();
        c.recover = c.snd_max;
        c.snd_nxt = c.snd_una;
        c.dupacks = 0;
        c.timed = None;
        c.signal_loss(LossSignal::Timeout);
        c.rtt.back_off();
        c.rto_deadline = Some(now + c.rtt.rto());
        self.recovery.on_timeout(c);
        self.send(now, out);
        self.core.record_trace(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::reno::Reno;

    fn sender() -> Sender {
        let cfg = SenderConfig {
            mss: 1000,
            header_bytes: 40,
            initial_window: 1,
            initial_ssthresh: u64::MAX / 4,
            rwnd: 1 << 30,
            total_bytes: None,
            timestamps: false,
            initial_rto: SimTime::from_secs(1),
            min_rto: SimTime::from_ms(200),
            max_rto: SimTime::from_secs(60),
            rto_granularity: SimTime::ZERO,
        };
        Sender::new(0, 0, 1, cfg, LossRecovery::Reno(Reno::default()))
    }

    fn ack(n: u64) -> Packet {
        Packet {
            flow: 0,
            kind: PacketKind::Ack,
            src: 1,
            dst: 0,
            seq: 0,
            len: 0,
            size: 40,
            ack: n,
            ts_val: SimTime::ZERO,
            ts_ecr: SimTime::ZERO,
            retransmit: false,
        }
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
}
