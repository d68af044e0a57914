//! What the world tells the trace recorder (`crate::trace`): queue lengths and the packet
//! events of an offer to a link. (The window trace is each sender's, in its instruments.)

use super::Simulation;
use crate::net::link::Offer;
use crate::net::packet::Packet;
use crate::net::DropCause;
use crate::time::SimTime;
use crate::trace::PacketEventKind as Ev;

impl Simulation {
    pub(super) fn trace_queue(&mut self, now: SimTime, link: u32) {
        let q = &self.links[link as usize].queue;
        self.trace.queue(now, link, q.len() as u64, q.bytes());
    }

    /// The packet events of a TxDone on a traced link: the packets the queue dropped at
    /// dequeue (CoDel) before the next one started, its marks at dequeue (the next one's,
    /// before its `dequeue`), and the next one's dequeue if one `started`. (Out of line, as
    /// `trace_offer` is: the packet path of untraced links only tests the flag.)
    #[inline(never)]
    pub(super) fn trace_tx_done(&mut self, now: SimTime, link: u32, started: bool) {
        self.trace_drops(now, link);
        self.trace_marks(now, link);
        if started {
            let l = &self.links[link as usize];
            let p = l.on_wire(self.q.key(), &self.flight).expect("just started");
            self.trace.packet(now, link, Ev::Dequeue, p, &self.segs, None);
        }
    }

    /// The events of a packet offered to a traced link: enqueue (and dequeue if the
    /// transmitter was idle), the queue's drops with their causes (the arrival, or packets
    /// dropped to make room for it, which is then enqueued), or a loss-module drop.
    #[inline(never)]
    pub(super) fn trace_offer(&mut self, now: SimTime, link: u32, pkt: &Packet, offer: Offer) {
        let (t, s) = (&mut self.trace, &self.segs);
        match offer {
            Offer::Lost => t.packet(now, link, Ev::Lost, pkt, s, Some(DropCause::Loss)),
            Offer::Queued => {
                t.packet(now, link, Ev::Enqueue, pkt, s, None);
                self.trace_marks(now, link);
            }
            Offer::Transmit(_) => {
                t.packet(now, link, Ev::Enqueue, pkt, s, None);
                // Marked at enqueue (or at its dequeue at the idle link): its dequeue shows
                // the codepoint it leaves with.
                let marked = self.links[link as usize].marked().last().map(|m| m.0);
                self.trace_marks(now, link);
                let p = marked.unwrap_or(*pkt);
                self.trace.packet(now, link, Ev::Dequeue, &p, &self.segs, None);
            }
            Offer::Dropped { arrival } => {
                if !arrival {
                    t.packet(now, link, Ev::Enqueue, pkt, s, None);
                    self.trace_marks(now, link);
                }
                self.trace_drops(now, link);
            }
        }
    }

    /// The packets the link's queue marked CE in its last operation, with their causes.
    pub(super) fn trace_marks(&mut self, now: SimTime, link: u32) {
        for &(p, cause) in self.links[link as usize].marked() {
            self.trace.mark(now, link, &p, &self.segs, cause);
        }
    }

    /// The packets the link's queue dropped in its last operation, with their causes.
    pub(super) fn trace_drops(&mut self, now: SimTime, link: u32) {
        for &(p, cause) in self.links[link as usize].dropped() {
            let cause = Some(DropCause::from(cause));
            self.trace.packet(now, link, Ev::Drop, &p, &self.segs, cause);
        }
    }
}
