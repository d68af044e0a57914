//! The sender state the seams share: the sequence space, the window, the SACK scoreboard, the
//! retransmit timer and the transmission primitives (`send_segment`, the send loop), with the
//! loss instruments. The loss recoveries (`recovery/`) read and change it; the shared sender
//! (`sender.rs`) drives it. It depends on neither, only on the congestion control's vocabulary
//! (`cc::Window`, `cc::Loss`), so the module graph is a DAG: sender -> recovery -> state -> cc,
//! and sender -> {state, cc}; recovery -> cc (a recovery asks the controller for ssthresh).

use super::cc::{Loss, Window};
use super::ecn::SenderEcn;
use super::instruments::Instruments;
pub use super::instruments::LossSignal;
use super::rate::RateSampler;
use super::rto::RtoEstimator;
use super::sack::Scoreboard;
use super::segment::Segment;
use crate::net::packet::NodeId;
use crate::time::SimTime;

/// Everything a sender is configured with (resolved from the scenario).
#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub mss: u32,
    pub header_bytes: u32,
    /// The receiver's advertised window, in bytes.
    pub rwnd: u64,
    /// Bytes the application sends; None for an unlimited bulk transfer.
    pub total_bytes: Option<u64>,
    /// RFC 7323 timestamps: RTT measured on every ACK (RTTM) instead of one timed segment.
    pub timestamps: bool,
    /// The duplicate-ACK threshold (RFC 5681: 3).
    pub dupthresh: u32,
    /// RFC 3042: one new segment on each of the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// RFC 5681 Sec. 4.1 (Jacobson App. C): after an idle period longer than the RTO, the
    /// congestion control restarts the window (`Controller::on_idle`).
    pub idle_restart: bool,
    /// Keep a SACK scoreboard (SACK-based variants).
    pub sack: bool,
    /// F-RTO (RFC 5682 Sec. 2.1; Sec. 3 with a SACK scoreboard): detect a spurious retransmit
    /// timeout and undo it.
    pub frto: bool,
    /// Linux: retransmitting snd_una's segment restarts the retransmission timer (RFC 6298
    /// Sec. 5.3 restarts it only on ACKs of new data).
    pub rto_restart_on_retransmit: bool,
}

/// What a loss recovery did with a new ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckResult {
    /// The recovery set cwnd itself: the congestion control is told (`cc::Ack::recovering`)
    /// and does not grow it on this ACK.
    pub window_set: bool,
    /// Restart the retransmit timer (RFC 6298 Sec. 5.3); NewReno's Impatient variant declines
    /// after the first partial ACK.
    pub restart_timer: bool,
    /// The bytes the congestion control grows the window by on this ACK instead of the
    /// flow's `ack_counting` (the ACK that ends a SACK recovery, `recovery_exit_growth`).
    pub grow_by: Option<u64>,
}

impl AckResult {
    /// Normal growth, timer restarted.
    pub const GROW: AckResult = AckResult {
        window_set: false,
        restart_timer: true,
        grow_by: None,
    };
    /// The variant set the window; timer restarted.
    pub const SET: AckResult = AckResult {
        window_set: true,
        restart_timer: true,
        grow_by: None,
    };
}

/// Shared sender state, in the papers' and RFCs' vocabulary. The loss recoveries read and
/// write it; the congestion control sees only its `win`.
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
    /// cwnd and ssthresh: the congestion control grows them and answers the ssthresh after a
    /// loss; a recovery sets cwnd while it repairs.
    pub win: Window,
    /// Consecutive duplicate ACKs.
    pub dupacks: u32,
    /// Highest byte sent (plus one) when the last timeout or guarded fast retransmit happened:
    /// duplicate ACKs that do not cover it cannot trigger a new fast retransmit (RFC 6582
    /// Sec. 3.2 step 1; ns-2's `bug_fix_`), so dupACKs for data sent before a timeout do not
    /// halve the window again.
    pub recover: u64,
    pub rtt: RtoEstimator,
    /// The SACK scoreboard, for SACK-based variants. The optional parts (this, `rate`,
    /// `pacing`) are boxed: inline they took 176 bytes of every sender that has none of them
    /// (a Reno flow), 14% of a `Flow`.
    pub sb: Option<Box<Scoreboard>>,
    // The retransmit timer, Karn's timed segment and the last transmission: the sender's
    // (sender.rs), set here only by the transmission primitives.
    pub(super) rto_deadline: Option<SimTime>,
    /// Karn: the one segment being timed (its end) and when it was sent, if any.
    pub(super) timed: Option<(u64, SimTime)>,
    pub(super) last_send: Option<SimTime>,
    /// Bytes limited transmit sent since the cumulative ACK last advanced (RFC 3042): left out
    /// of the FlightSize a loss reports (RFC 5681 Sec. 3.2 step 2).
    pub(super) limited_bytes: u64,
    /// Mathis' instruments: what this sender reports of its sends, samples and reductions.
    pub inst: Instruments,
    /// Delivery-rate estimation, for a congestion control that reads it (BBR); None otherwise.
    pub rate: Option<Box<RateSampler>>,
    /// The pacing the congestion control asks for, if any (`Controller::pacing_rate_bps`).
    pub pacing: Option<Box<Pacing>>,
    /// ECN (`ecn.rs`): off unless the flow uses it.
    pub ecn: SenderEcn,
}

/// Linux's internal TCP pacing (`tcp_update_skb_after_send`, `tcp_pacing_check`): each
/// transmission moves the earliest departure time of the next one to
/// max(that time, now) + len / rate, and no segment leaves before it. `len` is the payload
/// (the unit of the delivery rate the controller measures; Linux counts `skb->len`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Pacing {
    /// The rate, payload bits per second (0: not pacing).
    pub rate_bps: u64,
    /// The earliest departure time of the next segment.
    pub next_send: SimTime,
    /// A send loop stopped at `next_send`: the sender's deadline includes it.
    pub blocked: bool,
}

impl SenderCore {
    pub fn new(
        flow: u32,
        node: NodeId,
        peer: NodeId,
        cfg: SenderConfig,
        win: Window,
        rtt: RtoEstimator,
    ) -> Self {
        SenderCore {
            flow,
            node,
            peer,
            win,
            sb: cfg.sack.then(Box::default),
            cfg,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            dupacks: 0,
            recover: 0,
            rtt,
            rto_deadline: None,
            timed: None,
            last_send: None,
            limited_bytes: 0,
            inst: Instruments::default(),
            rate: None,
            pacing: None,
            ecn: SenderEcn::default(),
        }
    }

    pub fn mss(&self) -> u64 {
        self.cfg.mss as u64
    }

    /// Data sent and not yet acknowledged (RFC 5681 FlightSize).
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// The facts of a loss detected now, for the congestion control: the window in use,
    /// min(cwnd, rwnd), and RFC 5681's FlightSize without what limited transmit sent on this
    /// episode's duplicate ACKs (Sec. 3.2 step 2: with RFC 3042 in use, that data "MUST NOT be
    /// included").
    pub fn loss(&self, now: SimTime) -> Loss {
        Loss {
            now,
            window: self.win.cwnd.min(self.cfg.rwnd),
            flight_size: self.flight_size() - self.limited_bytes.min(self.flight_size()),
        }
    }

    /// The facts of a retransmit timeout. With a SACK scoreboard, FlightSize is the data
    /// actually in flight, RFC 6675's pipe (Sec. 4 SetPipe: unSACKed segments not deemed lost,
    /// plus retransmissions), not snd_max - snd_una, which counts the SACKed data: after a
    /// recovery stalled on a lost retransmission that can be many times the window (issue #18's
    /// traced case: 367 packets with cwnd 31), and the next slow start would overshoot. ns-3's
    /// `ReTxTimeout` does the same (`GetSsThresh(tcb, BytesInFlight())`). Without SACK it is
    /// RFC 5681's FlightSize, and with no SACK information the two are equal.
    pub fn timeout_loss(&self, now: SimTime) -> Loss {
        let mut l = self.loss(now);
        if let Some(sb) = &self.sb {
            let lost = sb.lost_flags(self.cfg.dupthresh, self.mss());
            l.flight_size = sb.pipe(&lost);
        }
        l
    }

    /// Data in flight: RFC 6675's pipe with a scoreboard (Linux's `tcp_packets_in_flight`),
    /// else FlightSize.
    pub fn in_flight(&self) -> u64 {
        match &self.sb {
            Some(sb) => sb.pipe(&sb.lost_flags(self.cfg.dupthresh, self.mss())),
            None => self.flight_size(),
        }
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

    /// The same with RFC 6675's guard for a SACK recovery (`reentry = "rfc6675"`), HighACK >=
    /// RecoveryPoint (Sec. 5.1; ns-3 3.44: `m_highRxAckMark >= m_recover`, tcp-socket-base.cc
    /// line 1810; Linux holds its recovery state until something above high_seq is
    /// acknowledged only for Reno, `tcp_try_undo_recovery`): so also when snd_una has reached
    /// `recover` exactly, provided the scoreboard holds SACKed data. RFC 6675 Sec. 2 counts as
    /// duplicates only ACKs whose SACK blocks report new data, and the plain duplicates of
    /// go-back-N's resent data above cannot start a recovery.
    pub fn sack_recovery_allowed(&self) -> bool {
        self.fast_retransmit_allowed()
            || (self.snd_una == self.recover && self.sb.as_ref().is_some_and(|sb| sb.sacked_segments() > 0))
    }

    /// Reports a window reduction to the instruments (a loss episode opens, or the open one
    /// is marked as not clean).
    pub fn signal_loss(&mut self, signal: LossSignal) {
        self.inst.window_reduced(signal, self.snd_max);
        if self.ecn.on {
            // RFC 3168 Sec. 6.1.2: CWR after a reduction "for any reason"; no ECE reduction
            // in this window.
            self.ecn.reduced(self.snd_max, false);
        }
    }

    /// Pacing holds the next segment back (it may leave at `next_send`): the send loops stop.
    /// Always false without pacing.
    #[inline]
    pub fn paced_out(&mut self, now: SimTime) -> bool {
        match &mut self.pacing {
            Some(p) if p.rate_bps > 0 && now < p.next_send => {
                p.blocked = true;
                true
            }
            _ => false,
        }
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
                sb.mark_rtx(seq, snd_max, now);
            }
        } else {
            if self.timed.is_none() && !self.cfg.timestamps {
                self.timed = Some((end, now));
            }
            if let Some(sb) = &mut self.sb {
                sb.on_send_new(seq, end, now);
            }
        }
        self.inst.sent(retransmit);
        if let Some(r) = &mut self.rate {
            r.on_send(seq, end, now, self.snd_una == self.snd_max);
        }
        if let Some(p) = &mut self.pacing {
            if p.rate_bps > 0 {
                let gap = len as u128 * 8_000_000_000 / p.rate_bps as u128;
                p.next_send = p.next_send.max(now) + SimTime::from_ns(gap as u64);
            }
        }
        self.snd_max = self.snd_max.max(end);
        self.last_send = Some(now);
        if retransmit && seq == self.snd_una && self.cfg.rto_restart_on_retransmit {
            // tcp_xmit_retransmit_queue: the head of the retransmission queue went out again,
            // so the timer runs a full RTO from now.
            self.rto_deadline = Some(self.rtt.deadline(now));
        } else if self.rto_deadline.is_none() {
            self.rto_deadline = Some(self.rtt.deadline(now)); // RFC 6298 Sec. 5.1
        }
        let mut seg = Segment {
            ts_val: now,
            retransmit,
            ..Segment::data(seq, len as u32, len as u32 + self.cfg.header_bytes)
        };
        if self.ecn.on {
            self.ecn.mark(&mut seg);
        }
        out.push(seg);
    }

    /// Sends one new segment at the right edge if `window` (bytes above snd_una) and the
    /// receiver's window allow it; returns whether it did.
    pub fn send_new_segment(&mut self, now: SimTime, window: u64, out: &mut Vec<Segment>) -> bool {
        let seq = self.snd_max;
        let len = self.mss().min(self.app_limit().saturating_sub(seq));
        let limit = self.snd_una + window.min(self.cfg.rwnd);
        if len == 0 || seq + len > limit || self.snd_nxt != self.snd_max || self.paced_out(now) {
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
            if usable < self.mss() && app - self.snd_nxt > usable || self.paced_out(now) {
                break;
            }
            let seq = self.snd_nxt;
            self.send_segment(now, seq, out);
            self.snd_nxt = out.last().map_or(seq, |p| p.end());
        }
    }

    /// RFC 3042 limited transmit: on the first and second duplicate ACK, one new segment if the
    /// flight stays within cwnd + 2 SMSS.
    pub(super) fn limited_transmit(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.cfg.limited_transmit && self.dupacks <= 2 {
            let w = self.win.cwnd + 2 * self.mss();
            let before = self.snd_max;
            if self.send_new_segment(now, w, out) {
                self.limited_bytes += self.snd_max - before;
            }
        }
    }

    /// Reports the window after an event to the instruments.
    pub(super) fn record_trace(&mut self, now: SimTime) {
        self.inst.observe(now, self.win.cwnd, self.win.ssthresh);
    }
}
