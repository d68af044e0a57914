//! The TCP receiver: cumulative ACKs, out-of-order buffering, SACK and D-SACK blocks, and the
//! ACK policy (every segment, delayed per RFC 1122 Sec. 4.2.3.2 / RFC 5681 Sec. 4.2, or
//! Linux's, `linux_ack.rs`). Sans-IO: it takes `(now, segment)` and returns ACKs and its next
//! deadline.

use super::ecn::{EcnFeedback, ReceiverEcn};
use super::handshake::Listener;
use super::linux_ack::LinuxAck;
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
    /// Linux 6.x (`linux_ack.rs`): quick ACKs at the start and after idle, every second full
    /// segment, a delayed-ACK timeout from the ato estimator between 40 and 200 ms.
    Linux(LinuxAck),
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
    /// Report duplicate data in a D-SACK block (RFC 2883), with SACK on.
    dsack: bool,
    /// The duplicate range the next ACK reports (RFC 2883 Sec. 4 rule 2: in one ACK only).
    pending_dsack: Option<(u64, u64)>,
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
    /// ECN feedback (`ecn.rs`): off unless the flow uses ECN.
    pub ecn: ReceiverEcn,
    /// The SYN's answer, with `handshake` (`handshake.rs`).
    pub listen: Option<Box<Listener>>,
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
            dsack: false,
            pending_dsack: None,
            unacked_segments: 0,
            unacked_bytes: 0,
            delack_deadline: None,
            ts_recent: SimTime::ZERO,
            last_ack_sent: 0,
            bytes_delivered: 0,
            acks_sent: 0,
            ecn: ReceiverEcn::default(),
            listen: None,
        }
    }

    /// Waits for a SYN (`handshake.rs`), whose answer sets up ECN.
    pub fn with_handshake(mut self, l: Listener) -> Self {
        self.listen = Some(Box::new(l));
        self
    }

    /// A SYN or the ACK of the SYN-ACK (`handshake.rs`): no payload, old sequence space.
    fn on_control(&mut self, seg: &Segment, out: &mut Vec<Segment>) {
        let Some(l) = &mut self.listen else { return };
        if !seg.flags.has(super::segment::TcpFlags::SYN) {
            return; // the ACK of the SYN-ACK: nothing to answer
        }
        let (mut synack, first) = l.on_syn(seg, self.ack_size);
        let linux = matches!(self.policy, AckPolicy::Linux(_));
        match first {
            Some(crate::scenario::EcnSetting::Classic) => {
                let f = if l.dctcp {
                    EcnFeedback::Dctcp
                } else {
                    EcnFeedback::Classic
                };
                self.ecn = ReceiverEcn::new(f, linux);
            }
            Some(crate::scenario::EcnSetting::Accecn) => {
                self.ecn = ReceiverEcn::accecn(linux, l.l4s, l.timestamps);
            }
            _ => {}
        }
        synack.ts_ecr = self.ts_recent;
        out.push(synack);
    }

    /// Echoes congestion marks (RFC 3168 Sec. 6.1.3, or DCTCP's RFC 8257 Sec. 3.2).
    pub fn with_ecn(mut self, feedback: EcnFeedback) -> Self {
        self.ecn = ReceiverEcn::new(feedback, matches!(self.policy, AckPolicy::Linux(_)));
        self
    }

    /// Sends SACK blocks (RFC 2018), at most `max_blocks` per ACK.
    pub fn with_sack(mut self, max_blocks: u8) -> Self {
        self.max_sack_blocks = max_blocks.min(4);
        self
    }

    /// Reports duplicate segments in D-SACK blocks (RFC 2883; needs `with_sack`).
    pub fn with_dsack(mut self) -> Self {
        self.dsack = true;
        self
    }

    /// Linux's ACK policy (`ack = "linux"`).
    pub fn linux_acks(&self) -> bool {
        matches!(self.policy, AckPolicy::Linux(_))
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
        let mut ack_now = false;
        if self.ecn.feedback != EcnFeedback::Off && seg.len > 0 {
            let a = self.ecn.on_data(seg, end > self.rcv_nxt);
            if a.flush_prior && self.unacked_segments > 0 {
                // RFC 8257 Sec. 3.2: the delayed ACK of the data before this segment leaves
                // now, with the CE state of that data.
                let prior = self.ecn.prior_ece();
                self.send_ack_with(out, prior);
            }
            if let (AckPolicy::Linux(l), true) = (&mut self.policy, a.quickack > 0) {
                l.enter_quickack(a.quickack);
            }
            ack_now = a.ack_now;
        }
        if end <= self.rcv_nxt {
            if seg.len == 0 {
                return self.on_control(seg, out);
            }
            // Entirely old data: a duplicate. ACK at once so the sender learns where we are
            // (Linux: `tcp_enter_quickack_mode` too), reporting it as a D-SACK.
            self.note_duplicate(start, end);
            if let AckPolicy::Linux(l) = &mut self.policy {
                l.enter_quickack_mode();
            }
            self.send_ack(out);
            return;
        }
        if start > self.rcv_nxt {
            // A gap: buffer it and send an immediate (duplicate) ACK (RFC 5681 Sec. 4.2).
            if self.ooo.iter().any(|&(s, e, _)| s <= start && end <= e) {
                self.note_duplicate(start, end);
            }
            self.insert_ooo(start, end);
            self.send_ack(out);
            return;
        }
        if start < self.rcv_nxt {
            self.note_duplicate(start, self.rcv_nxt); // partly old (RFC 2883 Sec. 4.1.x)
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
        if let AckPolicy::Linux(l) = &mut self.policy {
            l.on_data(now);
        }
        if had_gap || self.pending_dsack.is_some() {
            // Data that fills all or part of a gap is acknowledged at once (RFC 5681 Sec. 4.2).
            self.send_ack(out);
            return;
        }
        self.unacked_segments += 1;
        self.unacked_bytes += self.rcv_nxt - before;
        if let AckPolicy::Linux(l) = self.policy {
            // __tcp_ack_snd_check: more than one full segment unacknowledged, or quick-ACK
            // mode: now; else tcp_send_delayed_ack.
            let at = if ack_now || l.ack_now(self.unacked_bytes) {
                None
            } else {
                l.delayed_deadline(now, self.delack_deadline)
            };
            match at {
                Some(at) => self.delack_deadline = Some(at),
                None => self.send_ack(out),
            }
            return;
        }
        let (k, deadline) = match self.policy {
            AckPolicy::Immediate => (1, now),
            AckPolicy::Linux(_) => unreachable!("handled above"),
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
        if self.unacked_segments >= k || ack_now {
            self.send_ack(out);
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(deadline);
        }
    }

    /// The delayed-ACK timer may have expired.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if matches!(self.delack_deadline, Some(d) if d <= now) {
            if let AckPolicy::Linux(l) = &mut self.policy {
                l.on_delack_timer();
            }
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
        if self.max_sack_blocks == 0 {
            return b;
        }
        if let Some((s, e)) = self.pending_dsack {
            // RFC 2883 Sec. 4: the D-SACK block first (below the cumulative ACK it is a
            // negative offset); a duplicate inside an out-of-order range is followed by that
            // range, which the arrival just made the most recent.
            let off = |x: u64| x.wrapping_sub(self.rcv_nxt) as u32;
            b.blocks[0] = (off(s), off(e));
            b.n = 1;
            b.dsack = true;
        }
        if self.ooo.is_empty() {
            return b;
        }
        let mut ranges: Vec<&(u64, u64, u64)> = self.ooo.iter().collect();
        ranges.sort_by_key(|r| std::cmp::Reverse(r.2));
        for &&(s, e, _) in ranges.iter().take(self.max_sack_blocks as usize - b.n as usize) {
            b.blocks[b.n as usize] = ((s - self.rcv_nxt) as u32, (e - self.rcv_nxt) as u32);
            b.n += 1;
        }
        b
    }

    /// Duplicate data [start, end) arrived: the next ACK reports it (RFC 2883), if D-SACK is
    /// on and the gap to rcv_nxt fits the signed 32-bit offset of a SACK block.
    fn note_duplicate(&mut self, start: u64, end: u64) {
        if self.dsack && self.max_sack_blocks > 0 && self.rcv_nxt - start.min(self.rcv_nxt) < 1 << 31 {
            self.pending_dsack = Some((start, end));
        }
    }

    fn send_ack(&mut self, out: &mut Vec<Segment>) {
        let ece = self.ecn.ece();
        self.send_ack_with(out, ece);
    }

    /// An ACK of everything received in order, with `ece` if ECN is in use.
    fn send_ack_with(&mut self, out: &mut Vec<Segment>, ece: bool) {
        if let AckPolicy::Linux(l) = &mut self.policy {
            l.on_ack_sent();
        }
        self.unacked_segments = 0;
        self.unacked_bytes = 0;
        self.delack_deadline = None;
        self.last_ack_sent = self.rcv_nxt;
        self.acks_sent += 1;
        let sack = self.sack_blocks();
        self.pending_dsack = None;
        out.push(Segment {
            ts_ecr: self.ts_recent,
            sack,
            ..Segment::ack(self.rcv_nxt, self.ack_size + sack.option_bytes())
        });
        if self.ecn.feedback != EcnFeedback::Off {
            // Stamped where it lies: a flow without ECN builds its ACK in place.
            if let Some(ack) = out.last_mut() {
                self.ecn.stamp(ack, ece);
            }
        }
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

    fn linux(rwnd: u64) -> Receiver {
        let l = LinuxAck::new(1000, rwnd, SimTime::from_ms(200));
        Receiver::new(40, AckPolicy::Linux(l)).with_sack(3).with_dsack()
    }

    fn linux_state(r: &Receiver) -> LinuxAck {
        match r.policy {
            AckPolicy::Linux(l) => l,
            _ => unreachable!(),
        }
    }

    #[test]
    fn linux_quick_acks_at_the_start_then_every_second_full_segment() {
        // 64 KB / (2 x 1000) = 32 quick ACKs, at most TCP_MAX_QUICKACKS = 16: segments 0-15
        // (one per ms) are acknowledged one by one, then every second one.
        let mut r = linux(1 << 20);
        let mut out = vec![];
        for k in 0..20u64 {
            r.on_segment(SimTime::from_ms(k), &seg(1000 * k, 1000, k), &mut out);
        }
        let mut want: Vec<u64> = (1..=16).map(|k| 1000 * k).collect();
        want.extend([18000, 20000]);
        assert_eq!(acks(&out), want);
        // A small window: rcv_wnd / (2 rcv_mss) = 8000 / 2000 = 4 quick ACKs.
        let mut r = linux(8000);
        let mut out = vec![];
        for k in 0..8u64 {
            r.on_segment(SimTime::from_ms(k), &seg(1000 * k, 1000, k), &mut out);
        }
        assert_eq!(acks(&out), vec![1000, 2000, 3000, 4000, 6000, 8000]);
    }

    #[test]
    fn linux_delayed_ack_timeout_follows_ato_and_idle_restarts_quick_acks() {
        let mut r = linux(8000); // 4 quick ACKs
        let mut out = vec![];
        for k in 0..4u64 {
            r.on_segment(SimTime::from_ms(k), &seg(1000 * k, 1000, k), &mut out);
        }
        // Quick mode over: ato = TCP_ATO_MIN. A lone segment at 10 ms (m = 7 ms <= 20 ms:
        // ato = 40/2 + 20 = 40 ms) waits 40 ms; the timer firing doubles ato to 80 ms.
        assert_eq!(linux_state(&r).quick, 0);
        r.on_segment(SimTime::from_ms(10), &seg(4000, 1000, 10), &mut out);
        assert_eq!(r.deadline(), Some(SimTime::from_ms(50)));
        r.on_timer(SimTime::from_ms(50), &mut out);
        assert_eq!(acks(&out).last(), Some(&5000));
        assert_eq!(linux_state(&r).ato, SimTime::from_ms(80));
        // m = 140 ms (between ato and the RTO): ato stays 80 ms, the ACK waits 80 ms and the
        // timer doubles ato again, to 160 ms.
        r.on_segment(SimTime::from_ms(150), &seg(5000, 1000, 150), &mut out);
        assert_eq!(r.deadline(), Some(SimTime::from_ms(230)));
        r.on_timer(SimTime::from_ms(230), &mut out);
        assert_eq!(linux_state(&r).ato, SimTime::from_ms(160));
        // m = 50 ms < ato: ato = 160/2 + 50 = 130 ms.
        r.on_segment(SimTime::from_ms(200), &seg(6000, 1000, 200), &mut out);
        assert_eq!(linux_state(&r).ato, SimTime::from_ms(130));
        assert_eq!(r.deadline(), Some(SimTime::from_ms(330)));
        // The second full segment is acknowledged at once; after that, an idle gap above the
        // RTO (200 ms) re-enters quick-ACK mode: the next 4 segments are acknowledged one by
        // one.
        r.on_segment(SimTime::from_ms(300), &seg(7000, 1000, 300), &mut out);
        assert_eq!(acks(&out).last(), Some(&8000));
        let n = out.len();
        for k in 0..4u64 {
            r.on_segment(
                SimTime::from_ms(600 + k),
                &seg(8000 + 1000 * k, 1000, 600),
                &mut out,
            );
        }
        assert_eq!(acks(&out[n..]), vec![9000, 10000, 11000, 12000]);
    }

    #[test]
    fn dsack_reports_each_duplicate_once_first_rfc2883() {
        let mut r = Receiver::new(40, AckPolicy::Immediate).with_sack(3).with_dsack();
        let mut out = vec![];
        let blocks =
            |p: &Segment| -> (bool, Vec<(u64, u64)>) { (p.sack.dsack, p.sack.iter(p.ack).collect()) };
        r.on_segment(SimTime(0), &seg(0, 100, 0), &mut out);
        r.on_segment(SimTime(0), &seg(100, 100, 0), &mut out);
        // Sec. 4.1.1: a duplicate below the cumulative ACK; the next ACK has no D-SACK.
        r.on_segment(SimTime(0), &seg(0, 100, 0), &mut out);
        assert_eq!(blocks(&out[2]), (true, vec![(0, 100)]));
        assert_eq!(out[2].sack.dsack_block(200), Some((0, 100)));
        // 200..300 lost, 300..500 arrive, then 300..400 again: D-SACK first, then the
        // out-of-order block containing it (Sec. 4 rule 4).
        r.on_segment(SimTime(0), &seg(300, 100, 0), &mut out);
        assert_eq!(blocks(out.last().unwrap()), (false, vec![(300, 400)]));
        r.on_segment(SimTime(0), &seg(400, 100, 0), &mut out);
        r.on_segment(SimTime(0), &seg(300, 100, 0), &mut out);
        assert_eq!(blocks(out.last().unwrap()), (true, vec![(300, 400), (300, 500)]));
        // A segment partly below rcv_nxt: the old part is the duplicate.
        r.on_segment(SimTime(0), &seg(150, 150, 0), &mut out);
        let last = out.last().unwrap();
        assert_eq!(last.ack, 500);
        assert_eq!(blocks(last), (true, vec![(150, 200)]));
        // Without dsack the same duplicate carries no block.
        let mut r = Receiver::new(40, AckPolicy::Immediate).with_sack(3);
        let mut out = vec![];
        r.on_segment(SimTime(0), &seg(0, 100, 0), &mut out);
        r.on_segment(SimTime(0), &seg(0, 100, 0), &mut out);
        assert!(out[1].sack.is_empty());
    }
}
