//! Drop-tail: admit an arrival if it fits, otherwise drop the arrival.

use super::{DropCause, Drops, Marks, Fifo, Limit, LinkContext, NoOptions, QueueDiscipline};
use crate::net::packet::Packet;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct DropTail {
    fifo: Fifo,
    limit: Limit,
}

impl DropTail {
    pub fn new(limit: Limit) -> Self {
        DropTail {
            fifo: Fifo::default(),
            limit,
        }
    }

    /// The waiting packets.
    pub fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

impl QueueDiscipline for DropTail {
    type Spec = NoOptions;

    fn build(_: &NoOptions, limit: Limit, _: &LinkContext<'_>) -> Self {
        Self::new(limit)
    }

    #[inline]
    fn enqueue(
        &mut self,
        _now: SimTime,
        pkt: Packet,
        _drops: &mut Drops,
        _marks: &mut Marks,
    ) -> Result<(), DropCause> {
        if self.fifo.fits(self.limit, &pkt) {
            self.fifo.push(pkt);
            Ok(())
        } else {
            Err(DropCause::Overflow)
        }
    }

    #[inline]
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
