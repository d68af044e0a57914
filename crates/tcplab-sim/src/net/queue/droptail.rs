//! Drop-tail: admit an arrival if it fits, otherwise drop the arrival.

use super::QueueParts;
use crate::net::packet::Packet;

#[derive(Clone, Copy, Debug, Default)]
pub struct DropTail;

impl DropTail {
    pub fn enqueue(&mut self, mut q: QueueParts<'_>, pkt: Packet) -> Option<Packet> {
        if q.fits(&pkt) {
            q.push(pkt);
            None
        } else {
            Some(pkt)
        }
    }
}
