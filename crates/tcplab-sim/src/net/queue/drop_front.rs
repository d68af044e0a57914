//! Drop-from-Front (Lakshman, Neidhardt & Ott 1996; Barakat & Altman 1999 Sec. 7.2 "DF"): when
//! an arrival finds the buffer full, the packet at the head of the queue is dropped and the
//! arrival is admitted. The sender then learns of the loss a queue's worth of time earlier
//! than with drop-tail.
//!
//! With a byte limit, one head packet may not free enough room: if dropping the head does not
//! make the arrival fit, the arrival is dropped instead and the queue is left as it was (one
//! victim per arrival, so every drop is one packet in the link's instruments).

use super::{DropCause, Drops, Marks, Fifo, Limit, LinkContext, NoOptions, QueueDiscipline};
use crate::net::packet::Packet;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct DropFront {
    fifo: Fifo,
    limit: Limit,
}

impl DropFront {
    pub fn new(limit: Limit) -> Self {
        DropFront {
            fifo: Fifo::default(),
            limit,
        }
    }

    /// The waiting packets.
    pub fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

impl QueueDiscipline for DropFront {
    type Spec = NoOptions;

    fn build(_: &NoOptions, limit: Limit, _: &LinkContext<'_>) -> Self {
        Self::new(limit)
    }

    fn enqueue(
        &mut self,
        _now: SimTime,
        pkt: Packet,
        drops: &mut Drops,
        _marks: &mut Marks,
    ) -> Result<(), DropCause> {
        let q = &mut self.fifo;
        if q.fits(self.limit, &pkt) {
            q.push(pkt);
            return Ok(());
        }
        match q.front() {
            Some(head) if q.fits_without(self.limit, head.size, &pkt) => {
                if let Some(victim) = q.pop() {
                    drops.push((victim, DropCause::Overflow));
                }
                q.push(pkt);
                Ok(())
            }
            _ => Err(DropCause::Overflow),
        }
    }

    fn dequeue(&mut self, _now: SimTime, _drops: &mut Drops, _marks: &mut Marks) -> Option<Packet> {
        self.fifo.pop()
    }

    /// An empty buffer lets an arrival that fits straight through; nothing else changes.
    fn transparent_limit(&self) -> Option<Limit> {
        Some(self.limit)
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }
}
