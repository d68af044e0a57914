//! Random Drop (Hashem 1989; Barakat & Altman 1999 Sec. 7.2 "RD"): when an arrival finds the
//! buffer full, a packet chosen uniformly among those waiting is dropped and the arrival is
//! admitted. The arrival (often a retransmission after a silence, Barakat & Altman Sec. 7.1)
//! therefore always gets a place.
//!
//! With a byte limit, if dropping the chosen victim does not make the arrival fit, the arrival
//! is dropped instead and the queue is left as it was (one victim per arrival).

use super::{DropCause, Drops, Marks, Fifo, Limit, LinkContext, NoOptions, QueueDiscipline};
use crate::net::packet::Packet;
use crate::rng::Stream;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct RandomDrop {
    fifo: Fifo,
    limit: Limit,
    rng: Stream,
}

impl RandomDrop {
    pub fn new(limit: Limit, rng: Stream) -> Self {
        RandomDrop {
            fifo: Fifo::default(),
            limit,
            rng,
        }
    }

    /// The waiting packets.
    pub fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

impl QueueDiscipline for RandomDrop {
    type Spec = NoOptions;

    fn build(_: &NoOptions, limit: Limit, link: &LinkContext<'_>) -> Self {
        Self::new(limit, link.stream())
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
        let n = q.len();
        if n == 0 {
            return Err(DropCause::Overflow);
        }
        // Uniform index in 0..n: floor(u * n) with u in [0, 1) never reaches n.
        let i = ((self.rng.uniform() * n as f64) as usize).min(n - 1);
        let victim_size = q.get(i).map_or(0, |p| p.size);
        if !q.fits_without(self.limit, victim_size, &pkt) {
            return Err(DropCause::Overflow);
        }
        if let Some(victim) = q.remove(i) {
            drops.push((victim, DropCause::Overflow));
        }
        q.push(pkt);
        Ok(())
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
