//! Queue disciplines. A queue holds packets waiting for a link; its discipline decides, when a
//! packet arrives, whether to admit it and which packet (if any) to drop. Drop-tail is here;
//! RED, Random Drop and Drop-from-Front are further `Discipline` variants.

mod droptail;

pub use droptail::DropTail;

use crate::net::packet::Packet;
use std::collections::VecDeque;

/// A queue's capacity, in packets or in bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
}

/// The policy that decides drops.
#[derive(Clone, Debug)]
pub enum Discipline {
    DropTail(DropTail),
}

/// A FIFO of packets with a capacity and a drop policy.
#[derive(Clone, Debug)]
pub struct Queue {
    buf: VecDeque<Packet>,
    bytes: u64,
    limit: Limit,
    discipline: Discipline,
}

impl Queue {
    pub fn new(limit: Limit, discipline: Discipline) -> Self {
        Queue {
            buf: VecDeque::new(),
            bytes: 0,
            limit,
            discipline,
        }
    }

    pub fn drop_tail(limit: Limit) -> Self {
        Self::new(limit, Discipline::DropTail(DropTail))
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn limit(&self) -> Limit {
        self.limit
    }

    /// Offers a packet; returns the packet dropped, if any (the arrival itself or another).
    pub fn enqueue(&mut self, pkt: Packet) -> Option<Packet> {
        let parts = QueueParts {
            buf: &mut self.buf,
            bytes: &mut self.bytes,
            limit: self.limit,
        };
        match &mut self.discipline {
            Discipline::DropTail(d) => d.enqueue(parts, pkt),
        }
    }

    pub fn dequeue(&mut self) -> Option<Packet> {
        let p = self.buf.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
}

/// The parts of a queue a discipline may touch.
pub struct QueueParts<'a> {
    pub buf: &'a mut VecDeque<Packet>,
    pub bytes: &'a mut u64,
    pub limit: Limit,
}

impl QueueParts<'_> {
    pub fn fits(&self, pkt: &Packet) -> bool {
        match self.limit {
            Limit::Packets(n) => (self.buf.len() as u64) < n,
            Limit::Bytes(b) => *self.bytes + pkt.size as u64 <= b,
        }
    }
    pub fn push(&mut self, pkt: Packet) {
        *self.bytes += pkt.size as u64;
        self.buf.push_back(pkt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{PacketKind, SackBlocks};
    use crate::time::SimTime;

    pub(crate) fn pkt(seq: u64, size: u32) -> Packet {
        Packet {
            flow: 0,
            kind: PacketKind::Data,
            src: 0,
            dst: 1,
            seq,
            len: size.saturating_sub(40),
            size,
            ack: 0,
            ts_val: SimTime::ZERO,
            ts_ecr: SimTime::ZERO,
            retransmit: false,
            sack: SackBlocks::default(),
        }
    }

    #[test]
    fn drop_tail_packets_limit() {
        let mut q = Queue::drop_tail(Limit::Packets(2));
        assert!(q.enqueue(pkt(0, 1000)).is_none());
        assert!(q.enqueue(pkt(1, 1000)).is_none());
        let dropped = q.enqueue(pkt(2, 1000)).expect("third arrival dropped");
        assert_eq!(dropped.seq, 2);
        assert_eq!(q.dequeue().unwrap().seq, 0);
        assert!(q.enqueue(pkt(3, 1000)).is_none());
        assert_eq!(q.len(), 2);
        assert_eq!(q.bytes(), 2000);
    }

    #[test]
    fn drop_tail_bytes_limit() {
        let mut q = Queue::drop_tail(Limit::Bytes(2500));
        assert!(q.enqueue(pkt(0, 1000)).is_none());
        assert!(q.enqueue(pkt(1, 1000)).is_none());
        // 3000 > 2500: dropped; a 500-byte packet still fits exactly.
        assert!(q.enqueue(pkt(2, 1000)).is_some());
        assert!(q.enqueue(pkt(3, 500)).is_none());
        assert_eq!(q.bytes(), 2500);
    }
}
