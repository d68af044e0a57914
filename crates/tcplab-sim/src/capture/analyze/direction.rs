//! One data direction of a TCP connection, as a capture near its sender shows it: sequence
//! numbers unwrapped to 64-bit offsets, retransmissions and their causes, the loss episodes
//! of Mathis et al. 1997 (counted by the simulated senders' own rules,
//! `tcp::instruments::episode`, fed with what the wire shows), RTT samples, and the flight
//! size.

use crate::tcp::instruments::{EpisodeCounts, LossEpisodes, LossSignal};
use std::collections::VecDeque;

/// Why a retransmission left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtxCause {
    /// ACK-clocked with no loss episode open (three duplicate ACKs, SACK or RACK evidence):
    /// the start of a fast-recovery episode. Also a repeated fast retransmit at the third
    /// duplicate ACK of an open episode (Reno's second halving).
    Fast,
    /// Sent with no ACK for longer than half a smoothed RTT (at least 2 ms): the
    /// retransmission timer (or a tail-loss probe) fired.
    Timeout,
    /// ACK-clocked inside an open episode: partial-ACK, SACK-driven or go-back-N repairs.
    Recovery,
}

/// The counters of one direction over the analysis window.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DirCounters {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub segments_retransmitted: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub recovery_retransmits: u64,
    pub dsacks: u64,
    pub spurious_retransmits: u64,
    pub dupacks: u64,
    /// Pure ACKs (no payload) for this direction's data.
    pub acks: u64,
    pub bytes_acked: u64,
    /// Mathis' loss episodes (counted when an episode opens, or ends, inside the window).
    pub episodes: EpisodeCounts,
    pub rtt_samples: u64,
    pub rtt_sum_ns: u128,
    pub rtt_min_ns: u64,
    pub rtt_max_ns: u64,
    pub ts_rtt_samples: u64,
    pub ts_rtt_sum_ns: u128,
    pub rto_samples: u64,
    pub rto_sum_ns: u128,
    /// Time integral of the flight size (bytes x ns) and its maximum.
    pub flight_area: u128,
    pub flight_max: u64,
}

/// A send this soon after an ACK answers it (a host's processing time; 0 in a simulation).
const ACK_CLOCKED_NS: f64 = 50e3;

/// What a packet told this direction, for the caller's optional per-packet records.
#[derive(Clone, Copy, Debug, Default)]
pub struct Seen {
    /// Relative sequence of the segment or ACK.
    pub seq: i64,
    pub retransmit: bool,
    /// RTT samples the ACK produced (Karn, timestamp echo), ns.
    pub rtt_karn: Option<u64>,
    pub rtt_ts: Option<u64>,
}

/// Duplicate ACKs that signal a loss (RFC 5681 Sec. 3.2).
pub const DUPTHRESH: u32 = 3;

#[derive(Clone, Debug, Default)]
pub struct Direction {
    /// Wire sequence number of relative offset 0 (ISN + 1 with a handshake, else the first
    /// sequence or ACK number seen).
    pub base: Option<u32>,
    pub handshake: bool,
    pub mid_stream: bool,
    pub mss: u32,
    pub syn_mss: Option<u16>,
    pub wscale: Option<u8>,
    pub snd_una: i64,
    pub snd_max: i64,
    /// Highest relative sequence seen on the wire (for unwrapping) and wraps past 2^32.
    reference: i64,
    lowest: i64,
    started: bool,
    dupacks: u32,
    fast_since_advance: bool,
    last_ack_ns: Option<u64>,
    first_send_ns: Option<u64>,
    last_send_ns: u64,
    /// The receiver sent SACK blocks.
    sack_seen: bool,
    /// Relative sequence of the sender's FIN (it takes one sequence number, not a byte).
    fin_at: Option<i64>,
    last_timeout_episode: bool,
    /// The loss-episode instrument, fed with the window reductions the retransmissions'
    /// causes imply (`Fast`: a fast retransmit, `Timeout`: a timeout), every retransmission
    /// and every advance of the cumulative ACK.
    episodes: LossEpisodes,
    /// The snd_una last retransmitted in the open episode (reset when an episode opens).
    una_rtx: Option<i64>,
    /// New segments not yet acknowledged: (end, time sent, retransmitted since).
    karn: VecDeque<(i64, u64, bool)>,
    /// Distinct TSvals of data segments not yet echoed, with the time first seen.
    tsvals: VecDeque<(u32, u64)>,
    /// Recent retransmitted ranges, to tell a D-SACK of a retransmission.
    recent_rtx: VecDeque<(i64, i64)>,
    srtt: f64,
    rttvar: f64,
    have_srtt: bool,
    /// The smallest RTT sample so far (ns): the path without its queues.
    min_rtt: f64,
    /// snd_max at the last timeout: the end of the sender's recovery after it.
    rto_recover: i64,
    flight_since: u64,
    pub total_segments: u64,
    pub c: DirCounters,
}

impl Direction {
    /// The 64-bit offset of wire sequence `raw`, the nearest to what was seen last.
    fn unwrap(&mut self, raw: u32) -> i64 {
        let base = *self.base.get_or_insert(raw);
        let rel = raw.wrapping_sub(base);
        let r = self.reference + (rel.wrapping_sub(self.reference as u32) as i32) as i64;
        self.reference = self.reference.max(r);
        self.lowest = self.lowest.min(r);
        r
    }

    fn start_at(&mut self, rel: i64, now: u64) {
        if !self.started {
            self.started = true;
            self.snd_una = rel;
            self.snd_max = rel;
            self.flight_since = now;
        }
    }

    /// Brings the flight-size integral up to `now` (counted inside the window only).
    fn integrate(&mut self, now: u64, window: (u64, u64)) {
        let (lo, hi) = window;
        let a = self.flight_since.max(lo);
        let b = now.min(hi);
        if b > a {
            let flight = (self.snd_max - self.snd_una).max(0) as u128;
            self.c.flight_area += flight * (b - a) as u128;
        }
        self.flight_since = self.flight_since.max(now);
    }

    /// A SYN from this direction's sender.
    pub fn syn(&mut self, seq: u32, mss: Option<u16>, wscale: Option<u8>) {
        if self.base.is_none() {
            self.base = Some(seq.wrapping_add(1));
            self.handshake = true;
        }
        self.syn_mss = self.syn_mss.or(mss);
        self.wscale = self.wscale.or(wscale);
    }

    /// The sender's FIN at wire sequence `seq` (after any payload of its segment).
    pub fn fin(&mut self, seq: u32) {
        if self.base.is_some() && self.fin_at.is_none() {
            let at = self.unwrap(seq);
            self.fin_at = Some(at);
        }
    }

    /// A data segment [seq, seq + len) at `now`; `ts` its TSval.
    pub fn data(&mut self, now: u64, seq: u32, len: u32, ts: Option<u32>, window: (u64, u64)) -> Seen {
        if self.base.is_none() {
            self.mid_stream = true;
        }
        let start = self.unwrap(seq);
        let end = start + len as i64;
        self.start_at(start, now);
        self.integrate(now, window);
        self.first_send_ns.get_or_insert(now);
        self.last_send_ns = now;
        self.mss = self.mss.max(len);
        self.total_segments += 1;
        let inside = now >= window.0 && now <= window.1;
        let retransmit = start < self.snd_max;
        if inside {
            self.c.segments_sent += 1;
            self.c.bytes_sent += len as u64;
        }
        if retransmit {
            let cause = self.cause(now, start);
            match cause {
                RtxCause::Fast => {
                    self.fast_since_advance = true;
                    self.signal(LossSignal::FastRetransmit, inside);
                }
                RtxCause::Timeout => {
                    let since = self.last_ack_ns.or(self.first_send_ns).unwrap_or(now);
                    if inside && !self.last_timeout_episode {
                        self.c.rto_samples += 1;
                        self.c.rto_sum_ns += (now - since) as u128;
                    }
                    self.signal(LossSignal::Timeout, inside);
                    // The sender's recovery after a timeout runs to what it had sent by then
                    // (RFC 6582 Sec. 4's `recover`); its repairs up to there signal nothing new,
                    // even after the episode (which ends where its first signal's recovery
                    // does, as the sender's instruments count it) has closed.
                    self.rto_recover = self.rto_recover.max(self.snd_max);
                    self.last_timeout_episode = true;
                    // The timer restarts: a repeated timeout is measured from here.
                    self.last_ack_ns = Some(now);
                }
                RtxCause::Recovery => {}
            }
            if inside {
                self.c.segments_retransmitted += 1;
                match cause {
                    RtxCause::Fast => self.c.fast_retransmits += 1,
                    RtxCause::Timeout => self.c.timeouts += 1,
                    RtxCause::Recovery => self.c.recovery_retransmits += 1,
                }
            }
            if self.episodes.retransmitted() && start == self.snd_una {
                self.una_rtx = Some(start);
            }
            // Karn: samples of the repeated bytes are ambiguous.
            for k in self.karn.iter_mut().filter(|k| k.0 > start) {
                k.2 = true;
            }
            if self.recent_rtx.len() == 64 {
                self.recent_rtx.pop_front();
            }
            self.recent_rtx.push_back((start, end));
        } else {
            self.karn.push_back((end, now, false));
        }
        // Every TSval, retransmissions' too: an ACK for a repaired hole echoes the repair's.
        if let Some(tsval) = ts {
            if self.tsvals.back().is_none_or(|&(v, _)| v != tsval) {
                self.tsvals.push_back((tsval, now));
            }
        }
        if end > self.snd_max {
            self.snd_max = end;
            self.reference = self.reference.max(end);
        }
        if inside {
            self.c.flight_max = self.c.flight_max.max((self.snd_max - self.snd_una).max(0) as u64);
        }
        Seen {
            seq: start,
            retransmit,
            ..Seen::default()
        }
    }

    /// The cause of a retransmission of `start` at `now`.
    fn cause(&self, now: u64, start: i64) -> RtxCause {
        // An ACK-clocked send (paced or not, or Linux's RACK timer) follows its ACK within a
        // fraction of the path's round trip. Half the smallest RTT, not of srtt: a queue that
        // builds (a slow-start overshoot) inflates srtt, and a timer that fires a little after
        // the last of a stream of duplicate ACKs would pass for ACK-clocked.
        let threshold = if self.have_srtt {
            (self.min_rtt / 2.0).max(2e6)
        } else {
            2e6
        };
        let since_ack = self.last_ack_ns.map(|t| (now - t) as f64);
        if since_ack.is_none_or(|g| g > threshold) {
            return RtxCause::Timeout;
        }
        // snd_una sent a second time in one episode, and not in answer to an ACK: only the
        // timer does that (a lost retransmission is not repaired by ACKs in RFC 6675 or
        // NewReno; RACK's repair answers an ACK). A timer firing inside a stream of duplicate
        // ACKs lands within a packet time of one of them, so the gap rule above cannot see it.
        if start == self.snd_una
            && self.episodes.is_open()
            && self.una_rtx == Some(start)
            && since_ack.is_some_and(|g| g > ACK_CLOCKED_NS)
        {
            return RtxCause::Timeout;
        }
        if !self.episodes.is_open() {
            return if self.snd_una < self.rto_recover {
                RtxCause::Recovery
            } else {
                RtxCause::Fast
            };
        }
        // Reno leaves recovery on a partial ACK and halves again at the third duplicate;
        // a SACK sender (RFC 6675, Linux) stays in its recovery until `recover`.
        if !self.sack_seen && start == self.snd_una && self.dupacks == DUPTHRESH && !self.fast_since_advance {
            RtxCause::Fast
        } else {
            RtxCause::Recovery
        }
    }

    /// A window reduction, as a sender reports it to its instruments: opens an episode (a
    /// loss event, counted inside the window) or spoils the open one.
    fn signal(&mut self, signal: LossSignal, inside: bool) {
        if self.episodes.window_reduced(signal, self.snd_max) {
            self.una_rtx = None;
            if inside {
                self.c.episodes.opened();
            }
        }
    }

    /// An ACK from the receiver at `now` (cumulative `ack`, TSecr, SACK blocks, payload of
    /// the ACKing packet, whether it is a SYN or FIN).
    #[allow(clippy::too_many_arguments)]
    pub fn ack(
        &mut self,
        now: u64,
        ack: u32,
        tsecr: Option<u32>,
        sack: &[(u32, u32)],
        pure: bool,
        window: (u64, u64),
    ) -> Seen {
        let mut rel = self.unwrap(ack);
        if let Some(f) = self.fin_at {
            rel = rel.min(f); // the FIN's sequence number is no byte of data
        }
        self.start_at(rel, now);
        self.integrate(now, window);
        let inside = now >= window.0 && now <= window.1;
        let mut seen = Seen {
            seq: rel,
            ..Seen::default()
        };
        self.sack_seen |= !sack.is_empty();
        if inside && pure {
            self.c.acks += 1;
        }
        // D-SACK (RFC 2883): a first block below the cumulative ACK, or inside the second.
        if let Some(&(l, r)) = sack.first() {
            let (l, r) = (self.unwrap(l), self.unwrap(r));
            let inside_second = sack.get(1).is_some_and(|&(l2, r2)| {
                let (l2, r2) = (self.unwrap(l2), self.unwrap(r2));
                l >= l2 && r <= r2
            });
            if (l < rel || inside_second) && inside {
                self.c.dsacks += 1;
                if self.recent_rtx.iter().any(|&(a, b)| a < r && l < b) {
                    self.c.spurious_retransmits += 1;
                }
            }
        }
        if rel > self.snd_max {
            // Acknowledges bytes the capture did not see (it started mid-stream, or lost them).
            self.snd_max = rel;
            self.reference = self.reference.max(rel);
        }
        if rel > self.snd_una {
            let newly = (rel - self.snd_una) as u64;
            if inside {
                self.c.bytes_acked += newly;
            }
            self.snd_una = rel;
            self.dupacks = 0;
            self.fast_since_advance = false;
            self.last_timeout_episode = false;
            self.last_ack_ns = Some(now);
            let mut last = None;
            while let Some(&(end, t, rtx)) = self.karn.front() {
                if end > rel {
                    break;
                }
                last = Some((end, t, rtx));
                self.karn.pop_front();
            }
            if let Some((_, t, false)) = last {
                seen.rtt_karn = Some(now - t);
            }
            if let Some(ecr) = tsecr {
                // Older TSvals will not be echoed again; the echoed one may be (a receiver
                // keeps echoing its TS.Recent until newer in-order data arrives).
                while let Some(&(v, t)) = self.tsvals.front() {
                    if v == ecr {
                        seen.rtt_ts = Some(now - t);
                        break;
                    }
                    if (v.wrapping_sub(ecr) as i32) > 0 {
                        break;
                    }
                    self.tsvals.pop_front();
                }
            }
            for (s, ts) in [(seen.rtt_karn, false), (seen.rtt_ts, true)] {
                let Some(s) = s else { continue };
                if inside {
                    if ts {
                        self.c.ts_rtt_samples += 1;
                        self.c.ts_rtt_sum_ns += s as u128;
                    } else {
                        self.c.rtt_samples += 1;
                        self.c.rtt_sum_ns += s as u128;
                        self.c.rtt_min_ns = if self.c.rtt_samples == 1 {
                            s
                        } else {
                            self.c.rtt_min_ns.min(s)
                        };
                        self.c.rtt_max_ns = self.c.rtt_max_ns.max(s);
                    }
                }
            }
            if let Some(s) = seen.rtt_ts.or(seen.rtt_karn) {
                self.rtt_sample(s as f64);
            }
            if let Some(end) = self.episodes.acked(self.snd_una) {
                if inside {
                    self.c.episodes.ended(end);
                }
            }
        } else if rel == self.snd_una && pure && self.snd_max > self.snd_una {
            self.dupacks += 1;
            self.last_ack_ns = Some(now);
            if inside {
                self.c.dupacks += 1;
            }
        }
        seen
    }

    /// RFC 6298 Sec. 2 smoothing of a sample (ns).
    fn rtt_sample(&mut self, r: f64) {
        if self.have_srtt {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
            self.min_rtt = self.min_rtt.min(r);
        } else {
            self.srtt = r;
            self.rttvar = r / 2.0;
            self.have_srtt = true;
            self.min_rtt = r;
        }
    }

    /// RFC 6298's RTO from the smoothed samples (no lower bound), ns; None without samples.
    pub fn rto_estimate_ns(&self) -> Option<f64> {
        self.have_srtt.then_some(self.srtt + 4.0 * self.rttvar)
    }

    /// Closes the flight integral at the end of the capture.
    pub fn finish(&mut self, now: u64, window: (u64, u64)) {
        self.integrate(now, window);
    }

    /// Times the wire sequence numbers seen wrapped past 2^32.
    pub fn wraps(&self) -> u32 {
        let base = self.base.unwrap_or(0) as i64;
        (((base + self.reference) >> 32) - ((base + self.lowest) >> 32)).max(0) as u32
    }

    /// When the first and the last data segment were seen.
    pub fn send_span(&self) -> Option<(u64, u64)> {
        self.first_send_ns.map(|f| (f, self.last_send_ns))
    }

    /// Is a loss episode still open (the capture ended inside it)?
    pub fn episode_open(&self) -> bool {
        self.episodes.is_open()
    }
}
