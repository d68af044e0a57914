//! The opt-in, bounded traces the world records: queue lengths and per-link packet events.
//! (The window trace is each sender's, in its instruments.)

use super::Simulation;
use crate::net::link::Offer;
use crate::net::packet::{Packet, PacketKind};
use crate::stats::PacketEvent;
use crate::time::SimTime;

impl Simulation {
    pub(super) fn trace_queue(&mut self, now: SimTime, link: u32) {
        if let Some(t) = &mut self.queue_trace {
            if t.len() < self.trace_limit {
                t.push((now.secs_f64(), link, self.links[link as usize].queue.len() as u64));
            }
        }
    }

    /// The events of a packet offered to a traced link (ns-2's `+ - d`, and `l` for a
    /// loss-module drop).
    pub(super) fn trace_offer(&mut self, now: SimTime, link: u32, pkt: &Packet, offer: Offer) {
        match offer {
            Offer::Lost => self.trace_packet(now, link, "l", pkt),
            Offer::Queued => self.trace_packet(now, link, "+", pkt),
            Offer::Transmit(_) => {
                self.trace_packet(now, link, "+", pkt);
                self.trace_packet(now, link, "-", pkt);
            }
            Offer::Dropped(d) => {
                if d != *pkt {
                    self.trace_packet(now, link, "+", pkt);
                }
                self.trace_packet(now, link, "d", &d);
            }
        }
    }

    pub(super) fn trace_packet(&mut self, now: SimTime, link: u32, ev: &'static str, p: &Packet) {
        if self.packet_trace.len() < self.trace_limit {
            let kind = match p.kind {
                PacketKind::Data => "data",
                PacketKind::Ack => "ack",
                PacketKind::Udp => "udp",
            };
            self.packet_trace.push(PacketEvent(
                now.secs_f64(),
                link,
                ev,
                p.flow,
                kind,
                p.seg.seq,
                p.seg.ack,
                p.size,
                p.seg.retransmit,
            ));
        }
    }
}
