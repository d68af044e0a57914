//! The sender's SACK scoreboard (RFC 6675 Sec. 2-4): which segments in [snd_una, snd_max) the
//! receiver has SACKed, which were retransmitted in the current recovery, and from these
//! IsLost, pipe and NextSeg. Segments are whole transmissions (never re-split), kept in order.

use crate::time::SimTime;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seg {
    pub start: u64,
    pub end: u64,
    pub sacked: bool,
    /// Retransmitted during the current loss recovery (RFC 6675 "HighRxt" bookkeeping).
    pub rtx: bool,
    /// snd_max when it was last retransmitted (FACK's lost-retransmission detection).
    pub rtx_snd_max: u64,
    /// When it was last (re)transmitted: RACK's Segment.xmit_ts (RFC 8985 Sec. 5.2).
    pub xmit_ts: SimTime,
    /// RACK marked it lost (RFC 8985 Sec. 6.2 step 5) and it has not been retransmitted since.
    pub lost: bool,
    /// Retransmitted at least once (RFC 8985's Segment.retransmitted; `rtx` is per recovery).
    pub retransmitted: bool,
}

impl Seg {
    pub fn len(&self) -> u64 {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<Seg>,
    /// One past the highest SACKed byte (snd.fack of FACK, minus snd_una's floor).
    highest_sacked: u64,
    /// With `log_delivered` on (RACK), the segments the last ACK delivered (cumulatively or by
    /// SACK), for RFC 8985 Sec. 6.2 steps 2-3; the sender clears it before each ACK.
    pub log_delivered: bool,
    pub delivered: Vec<Seg>,
    /// `ack_counting = "delivered"`: the sender grows the window by the data an ACK newly
    /// delivered, read from this scoreboard (the SACKed bytes before and after the ACK).
    pub count_delivered: bool,
}

impl Scoreboard {
    pub fn segments(&self) -> &VecDeque<Seg> {
        &self.segs
    }

    /// A new segment went out at the right edge at `now`.
    pub fn on_send_new(&mut self, start: u64, end: u64, now: SimTime) {
        debug_assert!(self.segs.back().is_none_or(|s| s.end == start));
        self.segs.push_back(Seg {
            start,
            end,
            sacked: false,
            rtx: false,
            rtx_snd_max: 0,
            xmit_ts: now,
            lost: false,
            retransmitted: false,
        });
    }

    /// The cumulative ACK advanced to `ack`.
    pub fn on_cumulative_ack(&mut self, ack: u64) {
        while let Some(front) = self.segs.front_mut() {
            if front.end <= ack {
                let seg = self.segs.pop_front().expect("front exists");
                if self.log_delivered && !seg.sacked {
                    self.delivered.push(seg);
                }
            } else {
                if front.start < ack {
                    front.start = ack;
                }
                break;
            }
        }
    }

    /// Applies an ACK's SACK blocks; returns true if any segment became SACKed (RFC 6675's
    /// test for a duplicate ACK that counts).
    pub fn on_sack(&mut self, blocks: impl Iterator<Item = (u64, u64)>) -> bool {
        let mut changed = false;
        for (s, e) in blocks {
            let i = self.segs.partition_point(|seg| seg.end <= s);
            for seg in self.segs.range_mut(i..) {
                if seg.start >= e {
                    break;
                }
                if seg.start >= s && seg.end <= e && !seg.sacked {
                    seg.sacked = true;
                    seg.lost = false;
                    changed = true;
                    self.highest_sacked = self.highest_sacked.max(seg.end);
                    if self.log_delivered {
                        self.delivered.push(*seg);
                    }
                }
            }
        }
        changed
    }

    /// Forgets SACK state (after a timeout the receiver may have reneged: RFC 2018 Sec. 8).
    pub fn clear(&mut self) {
        for s in &mut self.segs {
            s.sacked = false;
            s.rtx = false;
            s.lost = false;
        }
        self.highest_sacked = 0;
    }

    /// Starts a new recovery: no segment counts as retransmitted in it yet.
    pub fn clear_rtx(&mut self) {
        for s in &mut self.segs {
            s.rtx = false;
        }
    }

    /// One past the highest SACKed byte, at least `snd_una` (FACK's snd.fack).
    pub fn fack(&self, snd_una: u64) -> u64 {
        self.highest_sacked.max(snd_una)
    }

    pub fn is_sacked_at(&self, seq: u64) -> Option<Seg> {
        let i = self.segs.partition_point(|s| s.end <= seq);
        self.segs.get(i).filter(|s| s.start <= seq).copied()
    }

    /// The segment at `start` was retransmitted at `now`: RACK's xmit_ts moves to now, and a
    /// segment RACK had marked lost is in flight again.
    pub fn mark_rtx(&mut self, start: u64, snd_max: u64, now: SimTime) {
        let i = self.segs.partition_point(|s| s.end <= start);
        if let Some(s) = self.segs.get_mut(i) {
            s.rtx = true;
            s.rtx_snd_max = snd_max;
            s.xmit_ts = now;
            s.lost = false;
            s.retransmitted = true;
        }
    }

    /// Segments SACKed above the cumulative ACK (RACK.segs_sacked, RFC 8985 Sec. 6.2 step 4).
    pub fn sacked_segments(&self) -> u32 {
        self.segs.iter().filter(|s| s.sacked).count() as u32
    }

    /// Mutable access for RACK's loss marking (RFC 8985 Sec. 6.2 step 5).
    pub fn segments_mut(&mut self) -> impl Iterator<Item = &mut Seg> {
        self.segs.iter_mut()
    }

    /// RACK's lost flags (RFC 8985 replaces RFC 6675's IsLost with them).
    pub fn rack_lost_flags(&self) -> Vec<bool> {
        self.segs.iter().map(|s| s.lost).collect()
    }

    /// RACK's pipe: the unSACKed segments not marked lost (a retransmission that is again in
    /// flight counts once; Linux's packets_out - (sacked_out + lost_out) + retrans_out).
    pub fn rack_pipe(&self) -> u64 {
        self.segs
            .iter()
            .filter(|s| !s.sacked && !s.lost)
            .map(Seg::len)
            .sum()
    }

    /// The first unSACKed segment RACK marked lost (its retransmission clears the mark).
    pub fn first_rack_lost(&self) -> Option<Seg> {
        self.segs.iter().find(|s| !s.sacked && s.lost).copied()
    }

    /// Makes segment `i` eligible for retransmission again (its retransmission was lost).
    pub fn revive(&mut self, i: usize) {
        if let Some(s) = self.segs.get_mut(i) {
            s.rtx = false;
        }
    }

    /// RFC 6675 IsLost for every segment: lost if at least `dupthresh` discontiguous SACKed
    /// segments lie above it, or more than (dupthresh - 1) * mss SACKed bytes. One pass from the
    /// top. Returns a flag per segment (in order).
    pub fn lost_flags(&self, dupthresh: u32, mss: u64) -> Vec<bool> {
        let mut flags = vec![false; self.segs.len()];
        let (mut sacked_bytes, mut sacked_segs) = (0u64, 0u32);
        for (i, s) in self.segs.iter().enumerate().rev() {
            if s.sacked {
                sacked_bytes += s.len();
                sacked_segs += 1;
            } else {
                flags[i] = sacked_segs >= dupthresh || sacked_bytes > (dupthresh as u64 - 1) * mss;
            }
        }
        flags
    }

    /// RFC 6675 SetPipe: for each unSACKed segment, its bytes count once if not lost and once
    /// more if retransmitted.
    /// Bytes the receiver has SACKed above the cumulative ACK.
    pub fn sacked_bytes(&self) -> u64 {
        self.segs.iter().filter(|s| s.sacked).map(|s| s.len()).sum()
    }

    pub fn pipe(&self, lost: &[bool]) -> u64 {
        self.segs
            .iter()
            .zip(lost)
            .filter(|(s, _)| !s.sacked)
            .map(|(s, &l)| if l { 0 } else { s.len() } + if s.rtx { s.len() } else { 0 })
            .sum()
    }

    /// RFC 6675 NextSeg rule 1: the first unSACKed, lost, not yet retransmitted segment.
    pub fn first_lost_hole(&self, lost: &[bool]) -> Option<Seg> {
        self.segs
            .iter()
            .zip(lost)
            .find(|(s, &l)| !s.sacked && !s.rtx && l)
            .map(|(s, _)| *s)
    }

    /// NextSeg rule 3: the first unSACKed, not retransmitted segment below a SACKed one.
    pub fn first_hole_below_sacked(&self) -> Option<Seg> {
        self.segs
            .iter()
            .find(|s| !s.sacked && !s.rtx && s.end <= self.highest_sacked)
            .copied()
    }

    /// NextSeg rule 4 (rescue retransmission): the highest unSACKed segment.
    pub fn highest_unsacked(&self) -> Option<Seg> {
        self.segs.iter().rev().find(|s| !s.sacked).copied()
    }

    /// Bytes retransmitted in this recovery and still neither SACKed nor acknowledged (FACK's
    /// retran_data).
    pub fn retran_data(&self) -> u64 {
        self.segs
            .iter()
            .filter(|s| s.rtx && !s.sacked)
            .map(Seg::len)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::default();
        for k in 0..n {
            b.on_send_new(k * 100, (k + 1) * 100, SimTime::ZERO);
        }
        b
    }

    #[test]
    fn islost_pipe_and_nextseg_rfc6675() {
        // 10 segments of 100 bytes; 0 and 2 lost; 1, 3, 4, 5 SACKed.
        let mut b = board(10);
        assert!(b.on_sack([(100, 200), (300, 600)].into_iter()));
        assert!(!b.on_sack([(300, 600)].into_iter())); // nothing new: not a counting dupack
        let lost = b.lost_flags(3, 100);
        // Segment 0 has 4 SACKed segments above: lost. Segment 2 has 3 above (3, 4, 5): lost.
        // Segments 6..9 have none above: not lost.
        assert_eq!(
            lost,
            vec![true, false, true, false, false, false, false, false, false, false]
        );
        // pipe: unSACKed and not lost = 6, 7, 8, 9 = 400 bytes.
        assert_eq!(b.pipe(&lost), 400);
        assert_eq!(b.first_lost_hole(&lost).unwrap().start, 0);
        b.mark_rtx(0, 1000, SimTime::ZERO);
        // A retransmitted lost segment counts once in pipe (RFC 6675 SetPipe).
        assert_eq!(b.pipe(&lost), 500);
        assert_eq!(b.first_lost_hole(&lost).unwrap().start, 200);
        assert_eq!(b.fack(0), 600);
        assert_eq!(b.retran_data(), 100);
        b.on_cumulative_ack(200);
        assert_eq!(b.segments().front().unwrap().start, 200);
        assert_eq!(b.highest_unsacked().unwrap().start, 900);
    }

    #[test]
    fn bytes_rule_marks_loss_with_fewer_segments() {
        // Two SACKed segments of 150 bytes (> 2 * 100) above segment 0 make it lost.
        let mut b = Scoreboard::default();
        b.on_send_new(0, 100, SimTime::ZERO);
        b.on_send_new(100, 250, SimTime::ZERO);
        b.on_send_new(250, 400, SimTime::ZERO);
        b.on_sack([(100, 400)].into_iter());
        assert_eq!(b.lost_flags(3, 100), vec![true, false, false]);
    }
}
