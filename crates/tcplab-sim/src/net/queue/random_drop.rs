//! Random Drop (Hashem 1989; Barakat & Altman 1999 Sec. 7.2 "RD"): when an arrival finds the
//! buffer full, a packet chosen uniformly among those waiting is dropped and the arrival is
//! admitted. The arrival (often a retransmission after a silence, Barakat & Altman Sec. 7.1)
//! therefore always gets a place.
//!
//! With a byte limit, if dropping the chosen victim does not make the arrival fit, the arrival
//! is dropped instead and the queue is left as it was (one victim per arrival).

use super::QueueParts;
use crate::net::packet::Packet;
use crate::rng::Stream;

#[derive(Clone, Debug)]
pub struct RandomDrop {
    rng: Stream,
}

impl RandomDrop {
    pub fn new(rng: Stream) -> Self {
        RandomDrop { rng }
    }

    pub fn enqueue(&mut self, mut q: QueueParts<'_>, pkt: Packet) -> Option<Packet> {
        if q.fits(&pkt) {
            q.push(pkt);
            return None;
        }
        let n = q.buf.len();
        if n == 0 {
            return Some(pkt);
        }
        // Uniform index in 0..n: floor(u * n) with u in [0, 1) never reaches n.
        let i = ((self.rng.uniform() * n as f64) as usize).min(n - 1);
        if q.fits_without(q.buf[i].size, &pkt) {
            let victim = q.remove(i);
            q.push(pkt);
            Some(victim)
        } else {
            Some(pkt)
        }
    }
}
