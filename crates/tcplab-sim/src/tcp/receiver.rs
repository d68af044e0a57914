//! The TCP receiver: cumulative ACKs, out-of-order buffering, and the ACK policy
//! (every segment, or delayed per RFC 1122 Sec. 4.2.3.2 / RFC 5681 Sec. 4.2).
//! Sans-IO: it takes `(now, segment)` and returns ACKs and its next deadline.

use super::segment::{SackBlocks, Segment};
use crate::time::SimTime;

/// When the receiver sends an ACK.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AckPolicy {
    /// One ACK per arriving segment.
    Immediate,
    /// ACK every second full-sized segment, or when `timeout` has passed since the first
    /// unacknowledged one; ACK at once for out-of-order data and for data that fills a gap.
    Delayed { timeout: SimTime },
    /// ACK every `k` in-order segments (or after `timeout`): Mathis et al.'s "buggy" receivers.
    Every { k: u32, timeout: SimTime },
    /// 4.3BSD: ACK once `threshold` bytes (35% of the window) are unacknowledged, otherwise on
    /// the next edge of the 200 ms fast timer (edges at multiples of `tick`).
    Bsd43 { threshold: u64, tick: SimTime },
}

#[derive(Clone, Debug)]
pub struct Receiver {
    ack_size: u32,
    policy: AckPolicy,
    /// Next byte expected in order (RFC 793 RCV.NXT).
    rcv_nxt: u64,
    /// Out-of-order data above rcv_nxt: sorted, disjoint [start, end) ranges, each with the
    /// arrival count of its latest segment (for RFC 2018's most-recent-first order).
    ooo: Vec<(u64, u64, u64)>,
    arrivals: u64,
    /// SACK blocks per ACK (RFC 2018: 4 fit in the option space, 3 beside timestamps); 0 = off.
    max_sack_blocks: u8,
    /// In-order segments (and bytes) received and not yet acknowledged.
    unacked_segments: u32,
    unacked_bytes: u64,
    delack_deadline: Option<SimTime>,
    /// RFC 7323 TS.Recent and Last.ACK.sent.
    ts_recent: SimTime,
    last_ack_sent: u64,
    /// Bytes delivered in order to the application.
    pub bytes_delivered: u64,
    pub acks_sent: u64,
}

impl Receiver {
    pub fn new(ack_size: u32, policy: AckPolicy) -> Self {
        Receiver {
            ack_size,
            policy,
            rcv_nxt: 0,
            ooo: Vec::new(),
            arrivals: 0,
            max_sack_blocks: 0,
            unacked_segments: 0,
            unacked_bytes: 0,
            delack_deadline: None,
            ts_recent: SimTime::ZERO,
            last_ack_sent: 0,
            bytes_delivered: 0,
            acks_sent: 0,
        }
    }

    /// Sends SACK blocks (RFC 2018), at most `max_blocks` per ACK.
    pub fn with_sack(mut self, max_blocks: u8) -> Self {
        self.max_sack_blocks = max_blocks.min(4);
        self
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// When the delayed-ACK timer wants to fire, if it is running.
    pub fn deadline(&self) -> Option<SimTime> {
        self.delack_deadline
    }

    /// A data segment arrived.
    pub fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        // RFC 7323 Sec. 4.3: remember the timestamp of the segment at the left edge, so a
        // delayed ACK echoes the earliest unacknowledged segment's time.
        if seg.seq <= self.last_ack_sent && seg.ts_val >= self.ts_recent {
            self.ts_recent = seg.ts_val;
        }
        self.arrivals += 1;
        let (start, end) = (seg.seq, seg.end());
        if end <= self.rcv_nxt {
            // Entirely old data: a duplicate. ACK at once so the sender learns where we are.
            self.send_ack(out);
            return;
        }
        if start > self.rcv_nxt {
            // A gap: buffer it and send an immediate (duplicate) ACK (RFC 5681 Sec. 4.2).
            self.insert_ooo(start, end);
            self.send_ack(out);
            return;
        }
        // In order (possibly overlapping old data): advance, then absorb buffered data.
        let had_gap = !self.ooo.is_empty();
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        while let Some(&(s, e, _)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo.remove(0);
        }
        self.bytes_delivered += self.rcv_nxt - before;
        if had_gap {
            // Data that fills all or part of a gap is acknowledged at once (RFC 5681 Sec. 4.2).
            self.send_ack(out);
            return;
        }
        self.unacked_segments += 1;
        self.unacked_bytes += self.rcv_nxt - before;
        let (k, deadline) = match self.policy {
            AckPolicy::Immediate => (1, now),
            AckPolicy::Delayed { timeout } => (2, now + timeout),
            AckPolicy::Every { k, timeout } => (k, now + timeout),
            AckPolicy::Bsd43 { threshold, tick } => {
                let due = self.unacked_bytes >= threshold;
                (
                    if due { 1 } else { u32::MAX },
                    SimTime((now.ns() / tick.ns() + 1) * tick.ns()),
                )
            }
        };
        if self.unacked_segments >= k {
            self.send_ack(out);
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(deadline);
        }
    }

    /// The delayed-ACK timer may have expired.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if matches!(self.delack_deadline, Some(d) if d <= now) {
            self.send_ack(out);
        }
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        let i = self.ooo.partition_point(|&(_, e, _)| e < start);
        let mut s = start;
        let mut e = end;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            s = s.min(self.ooo[j].0);
            e = e.max(self.ooo[j].1);
            j += 1;
        }
        self.ooo.splice(i..j, std::iter::once((s, e, self.arrivals)));
    }

    /// RFC 2018 Sec. 4: the first block holds the most recently received segment; the others
    /// follow in order of their latest update.
    fn sack_blocks(&self) -> SackBlocks {
        let mut b = SackBlocks::default();
        if self.max_sack_blocks == 0 || self.ooo.is_empty() {
            return b;
        }
        let mut ranges: Vec<&(u64, u64, u64)> = self.ooo.iter().collect();
        ranges.sort_by_key(|r| std::cmp::Reverse(r.2));
        for &&(s, e, _) in ranges.iter().take(self.max_sack_blocks as usize) {
            b.blocks[b.n as usize] = ((s - self.rcv_nxt) as u32, (e - self.rcv_nxt) as u32);
            b.n += 1;
        }
        b
    }

    fn send_ack(&mut self, out: &mut Vec<Segment>) {
        self.unacked_segments = 0;
        self.unacked_bytes = 0;
        self.delack_deadline = None;
        self.last_ack_sent = self.rcv_nxt;
        self.acks_sent += 1;
        let sack = self.sack_blocks();
        out.push(Segment {
            ts_ecr: self.ts_recent,
            sack,
            ..Segment::ack(self.rcv_nxt, self.ack_size + sack.option_bytes())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(seq: u64, len: u32, t: u64) -> Segment {
        Segment {
            ts_val: SimTime(t),
            ..Segment::data(seq, len, len + 40)
        }
    }

    fn acks(out: &[Segment]) -> Vec<u64> {
        out.iter().map(|p| p.ack).collect()
    }

    #[test]
    fn immediate_acks_every_segment_and_dupacks_a_gap() {
        let mut r = Receiver::new(40, AckPolicy::Immediate);
        let mut out = vec![];
        r.on_segment(SimTime(1), &seg(0, 100, 1), &mut out);
        r.on_segment(SimTime(2), &seg(200, 100, 2), &mut out); // 100..200 lost
        r.on_segment(SimTime(3), &seg(300, 100, 3), &mut out);
        r.on_segment(SimTime(4), &seg(100, 100, 4), &mut out); // fills the gap
        assert_eq!(acks(&out), vec![100, 100, 100, 400]);
        assert_eq!(r.bytes_delivered, 400);
    }

    #[test]
    fn delayed_acks_every_second_segment_or_on_timer() {
        let to = SimTime::from_ms(200);
        let mut r = Receiver::new(40, AckPolicy::Delayed { timeout: to });
        let mut out = vec![];
        r.on_segment(SimTime(0), &seg(0, 100, 0), &mut out);
        assert!(out.is_empty());
        assert_eq!(r.deadline(), Some(to));
        r.on_segment(SimTime(10), &seg(100, 100, 10), &mut out);
        assert_eq!(acks(&out), vec![200]);
        // ts echo is the earliest unacknowledged segment's (RFC 7323)
        assert_eq!(out[0].ts_ecr, SimTime(0));
        assert_eq!(r.deadline(), None);
        r.on_segment(SimTime(20), &seg(200, 100, 20), &mut out);
        r.on_timer(SimTime(20) + to, &mut out);
        assert_eq!(acks(&out), vec![200, 300]);
    }

    #[test]
    fn delayed_ack_is_immediate_for_out_of_order_and_gap_filling_data() {
        let mut r = Receiver::new(
            40,
            AckPolicy::Delayed {
                timeout: SimTime::from_ms(200),
            },
        );
        let mut out = vec![];
        r.on_segment(SimTime(0), &seg(100, 100, 0), &mut out); // out of order
        assert_eq!(acks(&out), vec![0]);
        r.on_segment(SimTime(1), &seg(0, 100, 1), &mut out); // fills the gap
        assert_eq!(acks(&out), vec![0, 200]);
    }

    #[test]
    fn every_k_and_bsd43_policies() {
        let mut r = Receiver::new(
            40,
            AckPolicy::Every {
                k: 3,
                timeout: SimTime::from_ms(200),
            },
        );
        let mut out = vec![];
        for k in 0..7u64 {
            r.on_segment(SimTime(k), &seg(100 * k, 100, k), &mut out);
        }
        assert_eq!(acks(&out), vec![300, 600]);
        // 4.3BSD: window 1000 bytes, threshold 35% = 350: the 4th 100-byte segment triggers it;
        // a lone segment waits for the next 200 ms edge.
        let tick = SimTime::from_ms(200);
        let mut r = Receiver::new(40, AckPolicy::Bsd43 { threshold: 350, tick });
        let mut out = vec![];
        for k in 0..4u64 {
            r.on_segment(SimTime::from_ms(10 + k), &seg(100 * k, 100, 0), &mut out);
        }
        assert_eq!(acks(&out), vec![400]);
        r.on_segment(SimTime::from_ms(250), &seg(400, 100, 0), &mut out);
        assert_eq!(r.deadline(), Some(SimTime::from_ms(400)));
        r.on_timer(SimTime::from_ms(400), &mut out);
        assert_eq!(acks(&out), vec![400, 500]);
    }

    #[test]
    fn ooo_ranges_merge() {
        let mut r = Receiver::new(40, AckPolicy::Immediate);
        let mut out = vec![];
        for s in [500u64, 300, 400, 700] {
            r.on_segment(SimTime(0), &seg(s, 100, 0), &mut out);
        }
        let ranges: Vec<(u64, u64)> = r.ooo.iter().map(|&(s, e, _)| (s, e)).collect();
        assert_eq!(ranges, vec![(300, 600), (700, 800)]);
        r.on_segment(SimTime(0), &seg(0, 300, 0), &mut out);
        assert_eq!(r.rcv_nxt(), 600);
        assert_eq!(r.ooo.len(), 1);
        assert_eq!((r.ooo[0].0, r.ooo[0].1), (700, 800));
    }

    #[test]
    fn sack_blocks_most_recent_first_and_capped() {
        // RFC 2018 Sec. 4: segments 1, 3, 5, 7, 9 (of 100 bytes) arrive, 0, 2, 4... lost.
        let mut r = Receiver::new(40, AckPolicy::Immediate).with_sack(3);
        let mut out = vec![];
        for k in [1u64, 3, 5, 7, 9] {
            r.on_segment(SimTime(0), &seg(100 * k, 100, 0), &mut out);
        }
        let last = out.last().unwrap();
        let blocks: Vec<(u64, u64)> = last.sack.iter(last.ack).collect();
        assert_eq!(blocks, vec![(900, 1000), (700, 800), (500, 600)]);
        // 3 blocks = 2 + 24 option bytes, padded to 28.
        assert_eq!(last.size, 40 + 28);
        // Segment 4 arrives: it joins 3 and 5 into one block, which becomes the first.
        r.on_segment(SimTime(0), &seg(400, 100, 0), &mut out);
        let last = out.last().unwrap();
        let blocks: Vec<(u64, u64)> = last.sack.iter(last.ack).collect();
        assert_eq!(blocks, vec![(300, 600), (900, 1000), (700, 800)]);
    }
}
