//! RACK-TLP loss detection (RFC 8985), the detection half of the SACK recovery with
//! `tcp = { variant = "sack", rack = true }`. The repair stays `sack.rs`'s (pipe, PRR or the
//! cut to ssthresh, RecoveryPoint); RACK replaces what decides that a segment is lost:
//!
//! * **RACK** (Sec. 6): every segment keeps the time it was last sent (`Seg::xmit_ts`). An ACK
//!   that delivers a segment tells the sender that everything sent sufficiently earlier should
//!   have been delivered too: a segment sent before the most recently sent delivered one
//!   (RACK.xmit_ts) is lost once `RACK.rtt + RACK.reo_wnd` has passed since it was sent. This
//!   also finds lost retransmissions, which RFC 6675's IsLost cannot (Sec. 9.2). The
//!   reordering window is min_RTT / 4, zero while no reordering has been seen and three
//!   segments are SACKed or a recovery is under way, grown by D-SACKs (RFC 2883) one
//!   multiple per round and reset after 16 recoveries without one (`reo_wnd_persist`).
//!   Segments not yet old enough arm the RACK timer.
//! * **TLP** (Sec. 7): when no ACK comes back for PTO = 2 SRTT (+ the worst-case delayed ACK
//!   when one segment is in flight; never later than the RTO), one probe goes out — new data
//!   if there is any, else the highest segment again — so that the ACK it draws lets RACK
//!   find a tail loss without a timeout. A retransmitted probe whose ACK goes past it with no
//!   D-SACK repaired a real loss, and the congestion control reacts once (Sec. 7.4).
//!
//! * **After an RTO** (Sec. 6.3, `mark_losses_on_rto`): the first unacknowledged segment is
//!   lost, every other one only if RACK.rtt + RACK.reo_wnd has passed since it was sent; the
//!   RTO recovery then retransmits what is marked, as a fast recovery does, instead of going
//!   back to snd_una over every unSACKed segment.
//!
//! Departures, said here once: min_RTT is the minimum over the connection (Linux keeps a
//! 5-minute windowed minimum, `tcp_min_rtt_wlen`).

use crate::tcp::sack::{Scoreboard, Seg};
use crate::time::SimTime;

/// RFC 8985 Sec. 7.2: WCDelAckT, the worst-case delayed-ACK time TLP allows for when one
/// segment is in flight (TLP.max_ack_delay).
pub const WC_DEL_ACK: SimTime = SimTime::from_ms(200);

/// RFC 8985 Sec. 7.2: the PTO before any RTT sample.
const PTO_NO_SRTT: SimTime = SimTime::from_secs(1);

/// Sec. 6.2 step 4: recoveries without a D-SACK before reo_wnd_mult falls back to 1.
const REO_WND_PERSIST: u32 = 16;

/// RACK_sent_after (Sec. 6.2): was (t1, seq1) sent after (t2, seq2)? Ties on time (segments
/// sent at one instant) are broken by sequence.
pub fn sent_after(t1: SimTime, seq1: u64, t2: SimTime, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

/// What one pass of RACK_detect_loss found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Detected {
    /// Segments newly marked lost.
    pub lost: u32,
    /// One of them had been retransmitted: a lost retransmission (Sec. 9.3).
    pub lost_retransmission: bool,
}

/// RACK's and TLP's per-connection state (RFC 8985 Sec. 6.1, 7.1).
#[derive(Clone, Debug)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment that has been delivered.
    xmit_ts: Option<SimTime>,
    end_seq: u64,
    /// RACK.rtt: the RTT of that segment's delivery.
    rtt: SimTime,
    /// RACK.min_RTT.
    pub min_rtt: Option<SimTime>,
    /// RACK.fack: the highest end_seq delivered.
    fack: u64,
    /// RACK.reordering_seen.
    pub reordering_seen: bool,
    /// RACK.reo_wnd_mult, RACK.reo_wnd_persist, RACK.dsack_round (Sec. 6.2 step 4).
    pub reo_wnd_mult: u32,
    pub reo_wnd_persist: u32,
    dsack_round: Option<u64>,
    /// The RACK reordering timer.
    pub reo_deadline: Option<SimTime>,
    /// RACK.reo_wnd as last computed (Sec. 6.2 step 4), which the marking after an RTO uses.
    pub reo_wnd: SimTime,
    /// After a timeout: snd_max at that moment, until the cumulative ACK reaches it (RTO
    /// recovery).
    pub rto_recovery_point: Option<u64>,
    /// TLP.end_seq and TLP.is_retrans of the probe in flight (Sec. 7.1).
    tlp_end_seq: Option<u64>,
    tlp_is_retrans: bool,
    /// The loss-probe timer.
    pub pto_deadline: Option<SimTime>,
    /// An RTT sample arrived since the last probe (Sec. 7.3 condition 2).
    rtt_since_probe: bool,
    /// Probes sent (instrumentation).
    pub probes: u64,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            xmit_ts: None,
            end_seq: 0,
            rtt: SimTime::ZERO,
            min_rtt: None,
            fack: 0,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: REO_WND_PERSIST,
            dsack_round: None,
            reo_deadline: None,
            reo_wnd: SimTime::ZERO,
            rto_recovery_point: None,
            tlp_end_seq: None,
            tlp_is_retrans: false,
            pto_deadline: None,
            rtt_since_probe: true,
            probes: 0,
        }
    }
}

impl Rack {
    /// The earlier of the RACK timer and the loss-probe timer.
    pub fn deadline(&self) -> Option<SimTime> {
        match (self.reo_deadline, self.pto_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Sec. 6.2 step 1: an RTT sample of the retransmit timer's estimator also updates
    /// RACK.min_RTT, and counts for TLP's "RTT sample since the last probe".
    pub fn on_rtt_sample(&mut self, rtt: SimTime) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.rtt_since_probe = true;
    }

    /// Sec. 6.2 steps 2 and 3 over the segments this ACK delivered (cumulatively or by SACK):
    /// RACK.rtt, RACK.xmit_ts / end_seq from the most recently sent one whose delivery is not
    /// ambiguous, and reordering_seen when a never-retransmitted segment is delivered below
    /// RACK.fack. `ts_ecr` is the ACK's timestamp echo when timestamps are on.
    pub fn update(&mut self, delivered: &mut [Seg], ts_ecr: Option<SimTime>, now: SimTime) {
        delivered.sort_by_key(|s| (s.xmit_ts, s.end));
        for s in delivered.iter() {
            let rtt = now - s.xmit_ts;
            if s.retransmitted {
                // Step 2: the ACK may be for the original transmission (Karn's ambiguity).
                if ts_ecr.is_some_and(|ecr| ecr < s.xmit_ts) {
                    continue;
                }
                if self.min_rtt.is_some_and(|m| rtt < m) {
                    continue;
                }
            } else {
                // Step 1: a never-retransmitted segment's delivery is an unambiguous sample.
                self.on_rtt_sample(rtt);
            }
            self.rtt = rtt;
            let newer = match self.xmit_ts {
                None => true,
                Some(t) => sent_after(s.xmit_ts, s.end, t, self.end_seq),
            };
            if newer {
                self.xmit_ts = Some(s.xmit_ts);
                self.end_seq = s.end;
            }
        }
        // Step 3: delivered in sequence order, a segment below the highest delivered one that
        // was never retransmitted arrived out of order.
        delivered.sort_by_key(|s| s.end);
        for s in delivered.iter() {
            if s.end > self.fack {
                self.fack = s.end;
            } else if s.end < self.fack && !s.retransmitted {
                self.reordering_seen = true;
            }
        }
    }

    /// Sec. 6.2 step 4, the D-SACK part: one more multiple of min_RTT / 4 per round trip in
    /// which a D-SACK arrives (a round ends when snd_una passes the snd_nxt of its first
    /// D-SACK), kept for 16 recoveries.
    pub fn on_dsack(&mut self, snd_una: u64, snd_nxt: u64, dsack: bool) {
        if self.dsack_round.is_some_and(|r| snd_una >= r) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() && dsack {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// Sec. 6.2 step 4: leaving fast or RTO recovery counts down reo_wnd_persist.
    pub fn on_recovery_exit(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// RACK_update_reo_wnd's window (Sec. 6.2 step 4): zero if no reordering has been seen and
    /// a recovery is under way or `dupthresh` segments are SACKed (which keeps the DupThresh
    /// rule's speed), else reo_wnd_mult x min_RTT / 4, at most SRTT (zero before any RTT).
    pub fn reo_wnd(
        &self,
        in_recovery: bool,
        segs_sacked: u32,
        dupthresh: u32,
        srtt: Option<SimTime>,
    ) -> SimTime {
        let in_recovery = in_recovery || self.rto_recovery_point.is_some();
        if !self.reordering_seen && (in_recovery || segs_sacked >= dupthresh) {
            return SimTime::ZERO;
        }
        let (Some(min), Some(srtt)) = (self.min_rtt, srtt) else {
            return SimTime::ZERO;
        };
        SimTime(min.ns() * self.reo_wnd_mult as u64 / 4).min(srtt)
    }

    /// RACK_detect_loss (Sec. 6.2 step 5): every unSACKed segment not yet marked lost and sent
    /// before RACK.xmit_ts is lost once RACK.rtt + reo_wnd has passed since it was sent; the
    /// others arm the RACK timer for the latest of their deadlines.
    pub fn detect_loss(&mut self, sb: &mut Scoreboard, now: SimTime, reo_wnd: SimTime) -> Detected {
        self.reo_deadline = None;
        let mut found = Detected::default();
        let Some(rack_ts) = self.xmit_ts else {
            return found;
        };
        for s in sb.segments_mut() {
            if s.sacked || s.lost || !sent_after(rack_ts, self.end_seq, s.xmit_ts, s.end) {
                continue;
            }
            let at = s.xmit_ts + self.rtt + reo_wnd;
            if at <= now {
                s.lost = true;
                found.lost += 1;
                found.lost_retransmission |= s.retransmitted;
            } else {
                self.reo_deadline = Some(self.reo_deadline.map_or(at, |d| d.max(at)));
            }
        }
        found
    }

    /// RACK_mark_losses_on_RTO (Sec. 6.3): the segment at snd_una is lost (it was sent an RTO
    /// ago); every other unSACKed segment is lost only if RACK.rtt + RACK.reo_wnd has passed
    /// since it was sent (`Segment.xmit_ts + RACK.rtt + RACK.reo_wnd - Now() <= 0`). Marks
    /// already set stay. Returns the number of segments newly marked.
    pub fn mark_losses_on_rto(&mut self, sb: &mut Scoreboard, snd_una: u64, now: SimTime) -> u32 {
        let mut n = 0;
        for s in sb.segments_mut() {
            if s.sacked || s.lost {
                continue;
            }
            if s.start <= snd_una || s.xmit_ts + self.rtt + self.reo_wnd <= now {
                s.lost = true;
                n += 1;
            }
        }
        n
    }

    /// Sec. 7.1: a fast or RTO recovery starts; any probe episode ends, no probe is pending.
    pub fn reset_tlp(&mut self) {
        self.tlp_end_seq = None;
        self.pto_deadline = None;
    }

    /// TLP_calc_PTO (Sec. 7.2): 2 SRTT, plus WCDelAckT when the flight is one segment; 1 s
    /// before any sample; never after the RTO would fire.
    pub fn arm_pto(
        &mut self,
        now: SimTime,
        srtt: Option<SimTime>,
        flight: u64,
        mss: u64,
        rto: Option<SimTime>,
    ) {
        let pto = match srtt {
            Some(s) => SimTime(2 * s.ns()) + if flight <= mss { WC_DEL_ACK } else { SimTime::ZERO },
            None => PTO_NO_SRTT,
        };
        let at = now + pto;
        self.pto_deadline = Some(rto.map_or(at, |r| at.min(r)));
    }

    /// Sec. 7.3: may a probe be sent now? Not while another is in flight, and only after an
    /// RTT sample since the last one.
    pub fn may_probe(&self) -> bool {
        self.tlp_end_seq.is_none() && self.rtt_since_probe
    }

    /// Sec. 7.3: a probe went out; snd_max is SND.NXT after it.
    pub fn probe_sent(&mut self, snd_max: u64, is_retrans: bool) {
        self.tlp_end_seq = Some(snd_max);
        self.tlp_is_retrans = is_retrans;
        self.rtt_since_probe = false;
        self.probes += 1;
    }

    /// TLP_process_ack (Sec. 7.4.2). Returns true when the ACK shows that a retransmitted
    /// probe repaired a loss (the ACK covers more than the probe and no D-SACK said the
    /// original had arrived): the congestion control must react once.
    pub fn tlp_process_ack(
        &mut self,
        ack: u64,
        dsack: Option<(u64, u64)>,
        dupack_without_sack: bool,
    ) -> bool {
        let Some(end) = self.tlp_end_seq else {
            return false;
        };
        if ack < end {
            return false;
        }
        if !self.tlp_is_retrans || dsack.is_some_and(|(_, e)| e == end) || dupack_without_sack {
            // New data delivered, or both the original and the probe arrived: no loss.
            self.tlp_end_seq = None;
            false
        } else if ack > end {
            self.tlp_end_seq = None;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64, sent_ms: impl Fn(u64) -> u64) -> Scoreboard {
        let mut b = Scoreboard::default();
        for k in 0..n {
            b.on_send_new(k * 100, (k + 1) * 100, SimTime::from_ms(sent_ms(k)));
        }
        b
    }

    #[test]
    fn reo_wnd_is_a_quarter_min_rtt_zero_after_dupthresh_sacks_and_grows_with_dsack() {
        let mut r = Rack::default();
        let srtt = Some(SimTime::from_ms(100));
        // No RTT yet: zero.
        assert_eq!(r.reo_wnd(false, 0, 3, srtt), SimTime::ZERO);
        r.on_rtt_sample(SimTime::from_ms(100));
        assert_eq!(r.reo_wnd(false, 2, 3, srtt), SimTime::from_ms(25));
        // Three SACKed segments or a recovery, no reordering seen: the DupThresh rule.
        assert_eq!(r.reo_wnd(false, 3, 3, srtt), SimTime::ZERO);
        assert_eq!(r.reo_wnd(true, 0, 3, srtt), SimTime::ZERO);
        r.reordering_seen = true;
        assert_eq!(r.reo_wnd(true, 5, 3, srtt), SimTime::from_ms(25));
        // A D-SACK: 2 x 25 ms; a second one in the same round does not grow it; the next
        // round's does (3 x 25 ms); capped at SRTT after 4.
        r.on_dsack(0, 1000, true);
        assert_eq!(r.reo_wnd(false, 0, 3, srtt), SimTime::from_ms(50));
        r.on_dsack(500, 1000, true);
        assert_eq!(r.reo_wnd_mult, 2);
        r.on_dsack(1000, 2000, true);
        assert_eq!(r.reo_wnd(false, 0, 3, srtt), SimTime::from_ms(75));
        for _ in 0..3 {
            r.dsack_round = None;
            r.on_dsack(0, 0, true);
        }
        assert_eq!(r.reo_wnd(false, 0, 3, srtt), SimTime::from_ms(100));
        // 16 recoveries without a D-SACK bring the multiplier back to 1.
        for k in 1..=16 {
            r.on_recovery_exit();
            assert_eq!(r.reo_wnd_mult == 1, k == 16, "after {k} recoveries");
        }
    }

    #[test]
    fn detect_loss_marks_by_time_and_arms_the_timer_for_the_rest() {
        // Segments 0..4 sent at 0, 1, 2, 3 ms; segment 3 delivered at 100 ms (RTT 97 ms).
        let mut b = board(4, |k| k);
        b.log_delivered = true;
        b.on_sack([(300, 400)].into_iter());
        let mut r = Rack::default();
        r.update(&mut b.delivered, None, SimTime::from_ms(100));
        assert_eq!(r.rtt, SimTime::from_ms(97));
        // reo_wnd 5 ms: segment k is lost at k + 97 + 5 ms. At 103 ms, 0 and 1 are lost, and
        // the timer waits for segment 2's deadline, 104 ms.
        let d = r.detect_loss(&mut b, SimTime::from_ms(103), SimTime::from_ms(5));
        assert_eq!(
            d,
            Detected {
                lost: 2,
                lost_retransmission: false
            }
        );
        assert_eq!(b.rack_lost_flags(), vec![true, true, false, false]);
        assert_eq!(r.reo_deadline, Some(SimTime::from_ms(104)));
        // pipe: segment 2 only (0 and 1 lost, 3 SACKed).
        assert_eq!(b.rack_pipe(), 100);
        // Segment 0 retransmitted at 110 ms is in flight again; if a segment sent after it is
        // delivered and 0's retransmission is not, it is a lost retransmission.
        b.mark_rtx(0, 400, SimTime::from_ms(110));
        assert_eq!(b.rack_pipe(), 200);
        b.on_send_new(400, 500, SimTime::from_ms(111));
        b.delivered.clear();
        b.on_sack([(400, 500)].into_iter());
        r.update(&mut b.delivered, None, SimTime::from_ms(211));
        let d = r.detect_loss(&mut b, SimTime::from_ms(211), SimTime::ZERO);
        assert_eq!(
            d,
            Detected {
                lost: 2,
                lost_retransmission: true
            }
        );
    }

    #[test]
    fn pto_is_two_srtt_plus_the_delayed_ack_allowance_for_one_segment_capped_by_the_rto() {
        let mut r = Rack::default();
        let srtt = Some(SimTime::from_ms(100));
        let now = SimTime::from_ms(1000);
        r.arm_pto(now, srtt, 3000, 1000, Some(SimTime::from_ms(2000)));
        assert_eq!(r.pto_deadline, Some(SimTime::from_ms(1200)));
        r.arm_pto(now, srtt, 1000, 1000, Some(SimTime::from_ms(2000)));
        assert_eq!(r.pto_deadline, Some(SimTime::from_ms(1400)));
        r.arm_pto(now, srtt, 1000, 1000, Some(SimTime::from_ms(1300)));
        assert_eq!(r.pto_deadline, Some(SimTime::from_ms(1300)));
        r.arm_pto(now, None, 1000, 1000, None);
        assert_eq!(r.pto_deadline, Some(SimTime::from_ms(2000)));
    }

    #[test]
    fn tlp_episode_outcomes() {
        // A retransmitted probe of [900, 1000): an ACK of 1000 leaves it open (the original
        // may still be D-SACKed), an ACK beyond it is a repaired loss.
        let mut r = Rack::default();
        r.probe_sent(1000, true);
        assert!(!r.may_probe());
        assert!(!r.tlp_process_ack(900, None, false));
        assert!(!r.tlp_process_ack(1000, None, false));
        assert!(r.tlp_process_ack(1100, None, false));
        assert!(!r.tlp_process_ack(1200, None, false));
        // A D-SACK of the probe: no loss.
        r.probe_sent(1000, true);
        assert!(!r.tlp_process_ack(1000, Some((900, 1000)), false));
        // A probe of new data: its ACK ends the episode, no loss.
        r.probe_sent(1000, false);
        assert!(!r.tlp_process_ack(1100, None, false));
        // No RTT sample since the last probe: no new one (Sec. 7.3).
        assert!(!r.may_probe());
        r.on_rtt_sample(SimTime::from_ms(100));
        assert!(r.may_probe());
    }
}
