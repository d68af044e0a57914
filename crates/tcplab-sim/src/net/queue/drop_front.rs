//! Drop-from-Front (Lakshman, Neidhardt & Ott 1996; Barakat & Altman 1999 Sec. 7.2 "DF"): when
//! an arrival finds the buffer full, the packet at the head of the queue is dropped and the
//! arrival is admitted. The sender then learns of the loss a queue's worth of time earlier
//! than with drop-tail.
//!
//! With a byte limit, one head packet may not free enough room: if dropping the head does not
//! make the arrival fit, the arrival is dropped instead and the queue is left as it was (one
//! victim per arrival, so every drop is one packet in the link's instruments).

use super::QueueParts;
use crate::net::packet::Packet;

#[derive(Clone, Copy, Debug, Default)]
pub struct DropFront;

impl DropFront {
    pub fn enqueue(&mut self, mut q: QueueParts<'_>, pkt: Packet) -> Option<Packet> {
        if q.fits(&pkt) {
            q.push(pkt);
            return None;
        }
        match q.buf.front() {
            Some(head) if q.fits_without(head.size, &pkt) => {
                let victim = q.remove(0);
                q.push(pkt);
                Some(victim)
            }
            _ => Some(pkt),
        }
    }
}
