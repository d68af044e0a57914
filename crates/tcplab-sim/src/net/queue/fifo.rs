//! A first-in first-out buffer of packets that counts its bytes: the helper the FIFO
//! disciplines keep their packets in (drop-tail, RED, Random Drop, Drop-from-Front, CoDel), and
//! each of FQ-CoDel's flow queues.

use super::Limit;
use crate::net::packet::Packet;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct Fifo {
    buf: VecDeque<Packet>,
    bytes: u64,
}

impl Fifo {
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Bytes waiting (the sum of the packets' sizes on the wire).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Does `pkt` fit under `limit` on top of what is waiting?
    #[inline]
    pub fn fits(&self, limit: Limit, pkt: &Packet) -> bool {
        match limit {
            Limit::Packets(n) => (self.buf.len() as u64) < n,
            Limit::Bytes(b) => self.bytes + pkt.size as u64 <= b,
        }
    }

    /// Would `pkt` fit once a waiting packet of `victim_size` bytes is removed?
    pub fn fits_without(&self, limit: Limit, victim_size: u32, pkt: &Packet) -> bool {
        match limit {
            Limit::Packets(n) => (self.buf.len() as u64) <= n,
            Limit::Bytes(b) => self.bytes - victim_size as u64 + pkt.size as u64 <= b,
        }
    }

    #[inline]
    pub fn push(&mut self, pkt: Packet) {
        self.bytes += pkt.size as u64;
        self.buf.push_back(pkt);
    }

    /// Removes the head.
    #[inline]
    pub fn pop(&mut self) -> Option<Packet> {
        let p = self.buf.pop_front()?;
        self.bytes -= p.size as u64;
        crate::net::link::release_if_idle(&mut self.buf);
        Some(p)
    }

    /// Removes the waiting packet at position `i` (0 = head), if there is one.
    pub fn remove(&mut self, i: usize) -> Option<Packet> {
        let p = self.buf.remove(i)?;
        self.bytes -= p.size as u64;
        Some(p)
    }

    pub fn front(&self) -> Option<&Packet> {
        self.buf.front()
    }

    /// The waiting packet at position `i` (0 = head).
    pub fn get(&self, i: usize) -> Option<&Packet> {
        self.buf.get(i)
    }

    /// The waiting packets, head first.
    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        self.buf.iter()
    }
}
