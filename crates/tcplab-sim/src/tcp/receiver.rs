//! The TCP receiver: cumulative ACKs, out-of-order buffering, and the ACK policy
//! (every segment, or delayed per RFC 1122 Sec. 4.2.3.2 / RFC 5681 Sec. 4.2).
//! Sans-IO: it takes `(now, segment)` and returns ACKs and its next deadline.

use crate::net::packet::{NodeId, Packet, PacketKind};
use crate::time::SimTime;

/// When the receiver sends an ACK.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AckPolicy {
    /// One ACK per arriving segment.
    Immediate,
    /// ACK every second full-sized segment, or when `timeout` has passed since the first
    /// unacknowledged one; ACK at once for out-of-order data and for data that fills a gap.
    Delayed { timeout: SimTime },
}

#[derive(Clone, Debug)]
pub struct Receiver {
    flow: u32,
    node: NodeId,
    peer: NodeId,
    ack_size: u32,
    policy: AckPolicy,
    /// Next byte expected in order (RFC 793 RCV.NXT).
    rcv_nxt: u64,
    /// Out-of-order data above rcv_nxt: sorted, disjoint [start, end) ranges.
    ooo: Vec<(u64, u64)>,
    /// In-order segments received and not yet acknowledged.
    unacked_segments: u32,
    delack_deadline: Option<SimTime>,
    /// RFC 7323 TS.Recent and Last.ACK.sent.
    ts_recent: SimTime,
    last_ack_sent: u64,
    /// Bytes delivered in order to the application.
    pub bytes_delivered: u64,
    pub acks_sent: u64,
}

impl Receiver {
    pub fn new(flow: u32, node: NodeId, peer: NodeId, ack_size: u32, policy: AckPolicy) -> Self {
        Receiver {
            flow,
            node,
            peer,
            ack_size,
            policy,
            rcv_nxt: 0,
            ooo: Vec::new(),
            unacked_segments: 0,
            delack_deadline: None,
            ts_recent: SimTime::ZERO,
            last_ack_sent: 0,
            bytes_delivered: 0,
            acks_sent: 0,
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// When the delayed-ACK timer wants to fire, if it is running.
    pub fn deadline(&self) -> Option<SimTime> {
        self.delack_deadline
    }

    /// A data segment arrived.
    pub fn on_segment(&mut self, now: SimTime, seg: &Packet, out: &mut Vec<Packet>) {
        // RFC 7323 Sec. 4.3: remember the timestamp of the segment at the left edge, so a
        // delayed ACK echoes the earliest unacknowledged segment's time.
        if seg.seq <= self.last_ack_sent && seg.ts_val >= self.ts_recent {
            self.ts_recent = seg.ts_val;
        }
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
        while let Some(&(s, e)) = self.ooo.first() {
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
        match self.policy {
            AckPolicy::Immediate => self.send_ack(out),
            AckPolicy::Delayed { timeout } => {
                self.unacked_segments += 1;
                if self.unacked_segments >= 2 {
                    self.send_ack(out);
                } else if self.delack_deadline.is_none() {
                    self.delack_deadline = Some(now + timeout);
                }
            }
        }
    }

    /// The delayed-ACK timer may have expired.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if matches!(self.delack_deadline, Some(d) if d <= now) {
            self.send_ack(out);
        }
    }

    fn insert_ooo(&mut self, start: u64, end: u64) {
        let i = self.ooo.partition_point(|&(_, e)| e < start);
        let mut s = start;
        let mut e = end;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            s = s.min(self.ooo[j].0);
            e = e.max(self.ooo[j].1);
            j += 1;
        }
        self.ooo.splice(i..j, std::iter::once((s, e)));
    }

    fn send_ack(&mut self, out: &mut Vec<Packet>) {
        self.unacked_segments = 0;
        self.delack_deadline = None;
        self.last_ack_sent = self.rcv_nxt;
        self.acks_sent += 1;
        out.push(Packet {
            flow: self.flow,
            kind: PacketKind::Ack,
            src: self.node,
            dst: self.peer,
            seq: 0,
            len: 0,
            size: self.ack_size,
            ack: self.rcv_nxt,
            ts_val: SimTime::ZERO,
            ts_ecr: self.ts_recent,
            retransmit: false,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(seq: u64, len: u32, t: u64) -> Packet {
        Packet {
            flow: 0,
            kind: PacketKind::Data,
            src: 0,
            dst: 1,
            seq,
            len,
            size: len + 40,
            ack: 0,
            ts_val: SimTime(t),
            ts_ecr: SimTime::ZERO,
            retransmit: false,
        }
    }

    fn acks(out: &[Packet]) -> Vec<u64> {
        out.iter().map(|p| p.ack).collect()
    }

    #[test]
    fn immediate_acks_every_segment_and_dupacks_a_gap() {
        let mut r = Receiver::new(0, 1, 0, 40, AckPolicy::Immediate);
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
        let mut r = Receiver::new(0, 1, 0, 40, AckPolicy::Delayed { timeout: to });
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
            0,
            1,
            0,
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
    fn ooo_ranges_merge() {
        let mut r = Receiver::new(0, 1, 0, 40, AckPolicy::Immediate);
        let mut out = vec![];
        for s in [500u64, 300, 400, 700] {
            r.on_segment(SimTime(0), &seg(s, 100, 0), &mut out);
        }
        assert_eq!(r.ooo, vec![(300, 600), (700, 800)]);
        r.on_segment(SimTime(0), &seg(0, 300, 0), &mut out);
        assert_eq!(r.rcv_nxt(), 600);
        assert_eq!(r.ooo, vec![(700, 800)]);
    }
}
