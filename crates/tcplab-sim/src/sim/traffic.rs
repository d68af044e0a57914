//! Driving background sources from the simulation: their timers, the HTTP request/response
//! hand-offs between the two connections of a session, and UDP deliveries.

use super::{Role, Simulation};
use crate::engine::{Event, Side};
use crate::net::packet::Packet;
use crate::tcp::endpoint::{TcpReceiver, TcpSender};
use crate::time::SimTime;
use crate::traffic::Source;

impl Simulation {
    /// `Event::Traffic { source }`: an HTTP session's think time is over (or it starts), or a
    /// UDP source's next datagram is due.
    pub(super) fn traffic_timer(&mut self, now: SimTime, source: u32) {
        match &mut self.bg.sources[source as usize] {
            Source::Http(h) => {
                if let Some(bytes) = h.on_timer(now) {
                    let flow = h.request_flow;
                    self.write(now, flow, bytes);
                }
            }
            Source::Udp(u) => {
                let (pkt, next) = u.on_timer(now, &mut self.segs);
                let node = u.src;
                let next = next.max(SimTime(now.ns() + 1));
                self.q.schedule(next, Event::Traffic { source });
                self.forward(now, node, &pkt);
            }
        }
    }

    /// The application writes `bytes` on `flow`'s sender.
    fn write(&mut self, now: SimTime, flow: u32, bytes: u64) {
        let mut out = std::mem::take(&mut self.out);
        self.flows[flow as usize].sender.app_write(now, bytes, &mut out);
        self.emit(now, flow, Side::Sender, &mut out);
        self.out = out;
        self.arm(flow, Side::Sender);
    }

    /// Data reached `flow`'s receiver: if it is an HTTP request connection and the whole
    /// request is in, the server starts the response.
    pub(super) fn traffic_after_data(&mut self, now: SimTime, flow: u32) {
        let f = &self.flows[flow as usize];
        let Role::HttpRequest { source } = f.role else {
            return;
        };
        let delivered = f.receiver.bytes_delivered();
        if let Source::Http(h) = &mut self.bg.sources[source as usize] {
            if let Some(size) = h.on_request_delivered(delivered) {
                let resp = h.response_flow;
                self.write(now, resp, size);
            }
        }
    }

    /// An ACK reached `flow`'s sender: if it is an HTTP response connection with everything
    /// acknowledged, the response is complete and the client starts thinking.
    pub(super) fn traffic_after_ack(&mut self, now: SimTime, flow: u32) {
        let f = &self.flows[flow as usize];
        let Role::HttpResponse { source } = f.role else {
            return;
        };
        if !f.sender.all_acked() {
            return;
        }
        if let Source::Http(h) = &mut self.bg.sources[source as usize] {
            if let Some(at) = h.on_response_acked(now) {
                self.q.schedule(at, Event::Traffic { source });
            }
        }
    }

    /// A UDP datagram reached its receiver.
    pub(super) fn udp_delivered(&mut self, pkt: &Packet) {
        if let Some(Source::Udp(u)) = self.bg.sources.get_mut(pkt.flow as usize) {
            u.on_delivered(pkt);
        }
    }
}
