//! Turning events into calls: a link finishing a transmission or delivering a packet, an
//! endpoint's timer, a flow starting. An endpoint's output segments are wrapped into routed
//! packets and offered to the first link toward their destination; its new deadline becomes a
//! timer event if it is earlier than the one already pending (lazy cancellation).

use super::{Flow, Simulation};
use crate::engine::{Event, Side};
use crate::net::link::Offer;
use crate::net::packet::{NodeId, Packet, PacketKind};
use crate::tcp::endpoint::{Endpoint, TcpSender};
use crate::tcp::segment::Segment;
use crate::time::SimTime;
use crate::trace::PacketEventKind;

impl Flow {
    /// The node an endpoint sits at, and the one its segments go to.
    #[inline]
    pub(super) fn ends(&self, side: Side) -> (NodeId, NodeId) {
        match side {
            Side::Sender => (self.src, self.dst),
            Side::Receiver => (self.dst, self.src),
        }
    }

    /// A segment from the peer reaches the endpoint on `side`.
    #[inline]
    fn on_segment(&mut self, side: Side, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        match side {
            Side::Sender => self.sender.on_segment(now, seg, out),
            Side::Receiver => self.receiver.on_segment(now, seg, out),
        }
    }

    #[inline]
    fn on_timer(&mut self, side: Side, now: SimTime, out: &mut Vec<Segment>) {
        match side {
            Side::Sender => self.sender.on_timer(now, out),
            Side::Receiver => self.receiver.on_timer(now, out),
        }
    }
}

impl Simulation {
    pub(super) fn dispatch(&mut self, now: SimTime, ev: Event) {
        match ev {
            Event::TxDone { link } => {
                let next = self.links[link as usize].tx_done(now, &mut self.flight);
                if self.emulating {
                    self.dropped_at_dequeue(link);
                }
                if let Some(t) = next {
                    self.started(now, link, t);
                }
                if self.trace.traces_packets(link) {
                    self.trace_tx_done(now, link, next.is_some());
                }
                self.release_dropped(link);
                self.trace_queue(now, link);
                self.q.end_tx_done();
            }
            Event::Deliver { link } => {
                let l = &mut self.links[link as usize];
                let node = l.to;
                let (pkt, next, ahead) = l.deliver(&mut self.flight);
                self.q.continue_stream(next);
                if let Some(id) = ahead {
                    self.segs.prefetch(id);
                }
                self.trace
                    .packet(now, link, PacketEventKind::Receive, &pkt, &self.segs, None);
                self.trace.captures.delivered(now, link, &pkt, &self.segs);
                if pkt.dst == node {
                    self.deliver_to_endpoint(now, pkt);
                } else {
                    self.forward(now, node, &pkt);
                }
            }
            Event::Timer { flow, side } => {
                let f = &mut self.flows[flow as usize];
                let armed = match side {
                    Side::Sender => &mut f.sender_armed,
                    Side::Receiver => &mut f.receiver_armed,
                };
                if *armed == Some(now) {
                    *armed = None;
                }
                let mut out = std::mem::take(&mut self.out);
                f.on_timer(side, now, &mut out);
                self.emit(now, flow, side, &mut out);
                self.out = out;
                self.arm(flow, side);
            }
            Event::FlowStart { flow } => {
                if self.flows[flow as usize].external {
                    return;
                }
                let mut out = std::mem::take(&mut self.out);
                self.flows[flow as usize].sender.start(now, &mut out);
                self.emit(now, flow, Side::Sender, &mut out);
                self.out = out;
                self.arm(flow, Side::Sender);
            }
            Event::Warmup => self.snapshot(now),
            Event::Traffic { source } => self.traffic_timer(now, source),
        }
    }

    /// A packet reached its destination node: its segment goes to the endpoint.
    fn deliver_to_endpoint(&mut self, now: SimTime, pkt: Packet) {
        let flow = pkt.flow;
        let side = match pkt.kind {
            PacketKind::Data => Side::Receiver,
            PacketKind::Ack => Side::Sender,
            PacketKind::Udp => {
                self.udp_delivered(&pkt);
                return self.segs.release(pkt.seg);
            }
        };
        // `emulating` first: the flag sits at the far end of a large `Flow`, a cache miss of
        // its own with thousands of flows (8% of `dispatch` at 10,000 flows).
        if self.emulating && self.flows[flow as usize].external {
            return self.arrived_outside(now, side, pkt);
        }
        // The endpoint reads the segment where it is kept (no copy), with the IP ECN field
        // the packet arrives with (CE if a queue marked it). Then the packet's life ends: its
        // segment's place is free for the first one the endpoint sends (still in cache).
        self.segs.set_ecn(pkt.seg, pkt.ecn);
        let mut out = std::mem::take(&mut self.out);
        let f = &mut self.flows[flow as usize];
        f.on_segment(side, now, self.segs.get(pkt.seg), &mut out);
        self.segs.release(pkt.seg);
        if side == Side::Sender && f.finite && f.completed.is_none() && f.sender.all_acked() {
            f.completed = Some(now);
            self.finite_flows_left -= 1;
        }
        self.emit(now, flow, side, &mut out);
        self.out = out;
        self.arm(flow, side);
        match side {
            Side::Receiver => self.traffic_after_data(now, flow),
            Side::Sender => self.traffic_after_ack(now, flow),
        }
    }

    /// Wraps an endpoint's segments into packets and puts them on the first link toward the
    /// peer.
    pub(super) fn emit(&mut self, now: SimTime, flow: u32, side: Side, out: &mut Vec<Segment>) {
        let (node, peer) = self.flows[flow as usize].ends(side);
        for seg in out.drain(..) {
            let pkt = self.segs.packet(flow, node, peer, seg);
            self.forward(now, node, &pkt);
        }
    }

    /// Offers a packet at `node` to the next link of its route.
    pub(super) fn forward(&mut self, now: SimTime, node: NodeId, pkt: &Packet) {
        let link = self.routes.next(node, pkt.dst);
        debug_assert!(
            link != crate::net::topology::NO_ROUTE,
            "no route from {node} to {}",
            pkt.dst
        );
        self.trace.captures.offered(now, link, pkt, &self.segs);
        let l = &mut self.links[link as usize];
        let offer = l.offer(self.q.key(), pkt, &mut self.flight);
        if self.emulating {
            match offer {
                Offer::Lost => self.dropped_outside(pkt),
                Offer::Dropped { .. } => {
                    let d = self.links[link as usize].dropped()[0].0;
                    self.dropped_outside(&d)
                }
                _ => {}
            }
        }
        let l = &mut self.links[link as usize];
        match offer {
            Offer::Transmit(t) => self.started(now, link, t),
            Offer::Queued | Offer::Dropped { .. } => {
                // A packet waits behind one whose TxDone was only reserved: it must run now.
                if let Some((at, seq)) = l.needs_tx_done() {
                    self.q.schedule_reserved(at, seq, Event::TxDone { link });
                }
                self.trace_queue(now, link);
            }
            Offer::Lost => {}
        }
        if self.trace.traces_packets(link) {
            self.trace_offer(now, link, pkt, offer);
        }
        // (`Link::offer` drops nothing when it queues or transmits the arrival; the run's
        // end checks that no segment was left behind: `results`.)
        match offer {
            Offer::Lost => self.segs.release(pkt.seg),
            Offer::Dropped { .. } => self.release_dropped(link),
            Offer::Queued | Offer::Transmit(_) => {}
        }
    }

    /// The packets `link`'s queue dropped in its last operation (an offer or a TxDone) are
    /// gone, once traced and reported: their segments are released and the list emptied.
    #[inline]
    fn release_dropped(&mut self, link: u32) {
        let l = &mut self.links[link as usize];
        for &(p, _) in l.dropped() {
            self.segs.release(p.seg);
        }
        l.forget_dropped();
    }

    /// A packet started its serialization on `link` at `now`, for `t`: its TxDone is scheduled
    /// if the link will need it (packets wait behind it, or the link has no shortcut),
    /// otherwise only reserved (see `net::link`); then its arrival at the far end.
    #[inline(always)]
    fn started(&mut self, now: SimTime, link: u32, t: SimTime) {
        let l = &mut self.links[link as usize];
        let needed = !l.shortcut || !l.queue.is_empty();
        let seq = if needed {
            self.q.schedule(now + t, Event::TxDone { link })
        } else {
            self.q.reserve()
        };
        l.set_wire(seq, needed);
        let arrive = (now + t + l.delay, self.q.reserve());
        if l.set_arrival(arrive, &mut self.flight) {
            self.q
                .schedule_reserved(arrive.0, arrive.1, Event::Deliver { link });
        }
    }

    /// Schedules a timer event if the endpoint's deadline is earlier than any pending one.
    pub(super) fn arm(&mut self, flow: u32, side: Side) {
        let f = &mut self.flows[flow as usize];
        let (deadline, armed) = match side {
            Side::Sender => (f.sender.deadline(), &mut f.sender_armed),
            Side::Receiver => (f.receiver.deadline(), &mut f.receiver_armed),
        };
        if let Some(d) = deadline {
            if armed.is_none_or(|a| d < a) {
                *armed = Some(d);
                self.q.schedule(d, Event::Timer { flow, side });
            }
        }
    }
}
