//! Mathis et al. 1997's instruments, computed in one place for every sender implementation
//! (the RFC senders and the `ns2` agents alike). A sender reports what it does — segments
//! sent, RTT samples, window reductions, the cumulative ACK advancing, its window after each
//! event — and the instruments derive the loss episodes, CA / non-CA events, other losses,
//! loss events, mean RTT and the time-average window from those reports. The loss-episode
//! rules are [`episode`]'s, which the capture analyzer (`capture::analyze`) feeds as well.

pub mod episode;

pub use episode::{EpisodeCounts, EpisodeEnd, LossEpisodes, LossSignal};

use crate::stats::FlowCounters;
use crate::time::SimTime;

/// One point of the window trace: the window after an event that changed it. `ssthresh` is
/// `None` while it is still "arbitrarily high" (RFC 5681 Sec. 3.1), before the first loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CwndPoint {
    pub time: SimTime,
    pub cwnd_bytes: u64,
    pub ssthresh_bytes: Option<u64>,
}

/// ssthresh at or above this is reported as unset (the initial "infinite" value).
pub const SSTHRESH_UNSET: u64 = u64::MAX / 8;

/// The instruments of one sender.
#[derive(Clone, Debug, Default)]
pub struct Instruments {
    pub counters: FlowCounters,
    /// The loss-episode instrument (its counts are `counters.episodes`).
    episodes: LossEpisodes,
    /// The window as last reported, and since when (for the time integral).
    cwnd: u64,
    ssthresh: u64,
    since: SimTime,
    started: bool,
    /// The receive window in bytes (0: none): the usable window is min(cwnd, this).
    window_limit: u64,
    /// An ECN controller's congestion estimate (DCTCP's alpha) as last reported, and since
    /// when (for `counters.estimate_area`); None for the other controllers.
    estimate: Option<(f64, SimTime)>,
    /// Boxed: most senders are not traced (8 bytes instead of 32 in each).
    trace: Option<Box<WindowTrace>>,
}

/// A bounded window trace.
#[derive(Clone, Debug)]
struct WindowTrace {
    points: Vec<CwndPoint>,
    limit: usize,
}

impl Instruments {
    /// Keeps a bounded trace of the window at every change.
    pub fn enable_trace(&mut self, max_points: usize) {
        self.trace = Some(Box::new(WindowTrace {
            points: Vec::new(),
            limit: max_points,
        }));
    }

    /// The receiver's window (bytes) that caps the usable window, for `window_area`.
    pub fn set_window_limit(&mut self, bytes: u64) {
        self.window_limit = bytes;
    }

    /// The sender starts at `now` with this window.
    pub fn start(&mut self, now: SimTime, cwnd: u64, ssthresh: u64) {
        self.started = true;
        self.since = now;
        self.observe(now, cwnd, ssthresh);
    }

    pub fn started(&self) -> bool {
        self.started
    }

    /// A segment left: new data, or a retransmission (which, inside an episode, counts
    /// toward its other losses).
    #[inline]
    pub fn sent(&mut self, retransmit: bool) {
        self.counters.segments_sent += 1;
        if retransmit {
            self.counters.segments_retransmitted += 1;
            self.episodes.retransmitted();
        }
    }

    /// The sender measured a round-trip time.
    #[inline]
    pub fn rtt_sample(&mut self, rtt: SimTime) {
        self.counters.add_rtt(rtt);
    }

    /// The sender reduced its window for `signal`; `snd_max` is one past the highest sequence
    /// sent so far. Opens a loss episode (one loss event, Parvez et al. 2010 Sec. II-B), or
    /// marks the open one as not clean.
    pub fn window_reduced(&mut self, signal: LossSignal, snd_max: u64) {
        if self.episodes.window_reduced(signal, snd_max as i64) {
            self.counters.episodes.opened();
        }
        match signal {
            LossSignal::FastRetransmit => self.counters.fast_retransmits += 1,
            LossSignal::Timeout => self.counters.timeouts += 1,
        }
    }

    /// The cumulative ACK advanced to `snd_una`, acknowledging `newly_acked` bytes. Closes the
    /// open episode once it covers everything outstanding when the episode began.
    #[inline]
    pub fn acked(&mut self, snd_una: u64, newly_acked: u64) {
        self.counters.bytes_acked += newly_acked;
        if let Some(end) = self.episodes.acked(snd_una as i64) {
            self.counters.episodes.ended(end);
        }
    }

    /// The window after an event at `now` (bytes). The previous window is integrated up to
    /// `now`; a change is traced.
    #[inline]
    pub fn observe(&mut self, now: SimTime, cwnd: u64, ssthresh: u64) {
        self.integrate(now);
        if cwnd == self.cwnd
            && ssthresh == self.ssthresh
            && self.trace.as_ref().is_some_and(|t| !t.points.is_empty())
        {
            return;
        }
        self.cwnd = cwnd;
        self.ssthresh = ssthresh;
        if let Some(t) = &mut self.trace {
            if t.points.len() < t.limit {
                t.points.push(CwndPoint {
                    time: now,
                    cwnd_bytes: cwnd,
                    ssthresh_bytes: (ssthresh < SSTHRESH_UNSET).then_some(ssthresh),
                });
            }
        }
    }

    /// Brings the time integral of the window up to `now`.
    #[inline]
    pub fn integrate(&mut self, now: SimTime) {
        if self.started {
            let dt = now.ns().saturating_sub(self.since.ns());
            self.counters.cwnd_area += self.cwnd as u128 * dt as u128;
            let usable = if self.window_limit > 0 {
                self.cwnd.min(self.window_limit)
            } else {
                self.cwnd
            };
            self.counters.window_area += usable as u128 * dt as u128;
            self.since = self.since.max(now);
        }
    }

    /// The controller's congestion estimate after an event at `now` (DCTCP's alpha, once per
    /// window of data): the previous value is integrated up to `now`.
    pub fn estimate(&mut self, now: SimTime, value: f64) {
        self.integrate_estimate(now);
        self.estimate = Some((value, now));
    }

    /// Brings the time integral of the congestion estimate up to `now` (kept apart from
    /// `integrate`, which runs at every event: the estimate changes once per window).
    pub fn integrate_estimate(&mut self, now: SimTime) {
        if let Some((value, since)) = &mut self.estimate {
            let dt = now.ns().saturating_sub(since.ns());
            self.counters.estimate_area += *value * dt as f64;
            self.counters.estimate_ns += dt;
            *since = (*since).max(now);
        }
    }

    /// The window trace, and whether it hit its limit.
    pub fn take_trace(&mut self) -> Option<(Vec<CwndPoint>, bool)> {
        let t = self.trace.take()?;
        let full = t.points.len() >= t.limit;
        Some((t.points, full))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_clean_fast_retransmit_is_a_ca_event_and_a_timeout_inside_makes_it_non_ca() {
        let mut i = Instruments::default();
        i.window_reduced(LossSignal::FastRetransmit, 10_000);
        i.sent(true);
        i.acked(5_000, 5_000); // partial: episode still open
        assert_eq!(i.counters.episodes.ca_events, 0);
        i.acked(10_000, 5_000);
        let e = i.counters.episodes;
        assert_eq!((e.ca_events, e.non_ca_events), (1, 0));
        i.window_reduced(LossSignal::FastRetransmit, 20_000);
        i.sent(true);
        i.window_reduced(LossSignal::Timeout, 20_000);
        i.sent(true);
        i.sent(true);
        i.acked(20_000, 10_000);
        let (c, e) = (i.counters, i.counters.episodes);
        assert_eq!((e.ca_events, e.non_ca_events, e.other_losses), (1, 1, 2));
        assert_eq!((e.loss_events, c.fast_retransmits, c.timeouts), (2, 2, 1));
        assert_eq!((c.segments_sent, c.segments_retransmitted), (4, 4));
    }

    #[test]
    fn window_integral_holds_each_value_until_the_next_report() {
        let mut i = Instruments::default();
        i.enable_trace(10);
        i.start(SimTime(100), 1000, u64::MAX / 4);
        i.observe(SimTime(200), 2000, u64::MAX / 4);
        i.observe(SimTime(250), 2000, u64::MAX / 4); // unchanged: not traced
        i.observe(SimTime(300), 1000, 1000);
        i.integrate(SimTime(400));
        assert_eq!(i.counters.cwnd_area, 1000 * 100 + 2000 * 100 + 1000 * 100);
        let (t, full) = i.take_trace().unwrap();
        assert!(!full);
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].ssthresh_bytes, None);
        assert_eq!(t[2].ssthresh_bytes, Some(1000));
    }

    #[test]
    fn congestion_estimate_is_held_until_the_next_report() {
        // Alpha 1 from 1 s, 0.5 from 3 s, integrated to 4 s: 1 x 2 + 0.5 x 1 = 2.5 over 3 s.
        // Without a report (a controller with no estimate) nothing accumulates.
        let mut i = Instruments::default();
        i.integrate_estimate(SimTime::from_secs(1));
        assert_eq!((i.counters.estimate_area, i.counters.estimate_ns), (0.0, 0));
        i.estimate(SimTime::from_secs(1), 1.0);
        i.estimate(SimTime::from_secs(3), 0.5);
        i.integrate_estimate(SimTime::from_secs(4));
        assert_eq!(i.counters.estimate_area, 2.5e9);
        assert_eq!(i.counters.estimate_ns, 3_000_000_000);
        // Integrating twice to the same instant adds nothing.
        i.integrate_estimate(SimTime::from_secs(4));
        assert_eq!(i.counters.estimate_area, 2.5e9);
    }
}
