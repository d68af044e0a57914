//! Queue disciplines. A queue holds packets waiting for a link; its discipline decides, when a
//! packet arrives, whether to admit it and which packet (if any) to drop: drop-tail, RED,
//! Random Drop and Drop-from-Front. Disciplines that need time or randomness (RED) get the
//! arrival time and their own random stream, so every run is deterministic.

mod drop_front;
mod droptail;
mod random_drop;
mod red;
#[cfg(test)]
mod tests;

pub use drop_front::DropFront;
pub use droptail::DropTail;
pub use random_drop::RandomDrop;
pub use red::{Red, RedParams};

use crate::net::packet::Packet;
use crate::time::SimTime;
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
    Red(Box<Red>),
    RandomDrop(RandomDrop),
    DropFront(DropFront),
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

    pub fn discipline(&self) -> &Discipline {
        &self.discipline
    }

    /// Offers a packet at time `now`; returns the packet dropped, if any (the arrival itself
    /// or another one the discipline chose).
    #[inline]
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Option<Packet> {
        let parts = QueueParts {
            buf: &mut self.buf,
            bytes: &mut self.bytes,
            limit: self.limit,
        };
        match &mut self.discipline {
            Discipline::DropTail(d) => d.enqueue(parts, pkt),
            Discipline::Red(d) => d.enqueue(now, parts, pkt),
            Discipline::RandomDrop(d) => d.enqueue(parts, pkt),
            Discipline::DropFront(d) => d.enqueue(parts, pkt),
        }
    }

    /// An arrival finds the link idle (empty queue, transmitter free). Only an active queue
    /// (RED) may drop it; the others always let it through. Returns true to drop it.
    #[inline]
    pub fn drops_at_idle_link(&mut self, now: SimTime, pkt: &Packet) -> bool {
        match &mut self.discipline {
            Discipline::Red(d) => d.arrival_at_idle_link(now, pkt),
            _ => false,
        }
    }

    /// The transmitter takes the next packet at `now`; `None` means the link goes idle.
    #[inline]
    pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        match self.buf.pop_front() {
            Some(p) => {
                self.bytes -= p.size as u64;
                Some(p)
            }
            None => {
                if let Discipline::Red(d) = &mut self.discipline {
                    d.link_idle(now);
                }
                None
            }
        }
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

    /// Would `pkt` fit once a waiting packet of `victim_size` bytes is removed?
    pub fn fits_without(&self, victim_size: u32, pkt: &Packet) -> bool {
        match self.limit {
            Limit::Packets(n) => (self.buf.len() as u64) <= n,
            Limit::Bytes(b) => *self.bytes - victim_size as u64 + pkt.size as u64 <= b,
        }
    }

    pub fn push(&mut self, pkt: Packet) {
        *self.bytes += pkt.size as u64;
        self.buf.push_back(pkt);
    }

    /// Removes the waiting packet at position `i` (0 = head).
    pub fn remove(&mut self, i: usize) -> Packet {
        let p = self.buf.remove(i).expect("index within the queue");
        *self.bytes -= p.size as u64;
        p
    }
}
