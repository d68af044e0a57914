//! One direction of a point-to-point link: a loss module, a queue, a transmitter of fixed rate
//! and a propagation delay. Packets on the wire propagate in FIFO order (constant delay), so
//! they wait in `propagating` and the engine's Deliver event only names the link.

use super::loss::LossModel;
use super::packet::{NodeId, Packet};
use super::queue::Queue;
use crate::stats::LinkCounters;
use crate::time::{serialization_time, SimTime};
use std::collections::VecDeque;

/// What happened to a packet offered to a link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Offer {
    /// Dropped by the loss module.
    Lost,
    /// The queue dropped this packet (the arrival on overflow, or the discipline's choice).
    Dropped(Packet),
    /// Waiting in the queue.
    Queued,
    /// The transmitter was idle: serialization starts now and ends after this long.
    Transmit(SimTime),
}

#[derive(Clone, Debug)]
pub struct Link {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: SimTime,
    pub queue: Queue,
    pub loss: Option<LossModel>,
    on_wire: Option<Packet>,
    propagating: VecDeque<Packet>,
    pub counters: LinkCounters,
    last_change: SimTime,
}

impl Link {
    pub fn new(
        name: String,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: SimTime,
        queue: Queue,
        loss: Option<LossModel>,
    ) -> Self {
        Link {
            name,
            from,
            to,
            rate_bps,
            delay,
            queue,
            loss,
            on_wire: None,
            propagating: VecDeque::new(),
            counters: LinkCounters::default(),
            last_change: SimTime::ZERO,
        }
    }

    /// Brings the queue-length integrals up to `now`.
    pub fn integrate(&mut self, now: SimTime) {
        let dt = (now.ns() - self.last_change.ns()) as u128;
        if dt > 0 {
            self.counters.queue_area += self.queue.len() as u128 * dt;
            self.counters.queue_bytes_area += self.queue.bytes() as u128 * dt;
            self.last_change = now;
        }
    }

    /// A packet arrives at the link's input.
    pub fn offer(&mut self, now: SimTime, pkt: Packet) -> Offer {
        self.counters.arrivals += 1;
        self.counters.bytes_in += pkt.size as u64;
        if let Some(loss) = &mut self.loss {
            if loss.drops(now, &pkt) {
                self.counters.drops_loss += 1;
                return Offer::Lost;
            }
        }
        if self.on_wire.is_none() {
            debug_assert!(self.queue.is_empty());
            if self.queue.drops_at_idle_link(now, &pkt) {
                self.counters.drops_queue += 1;
                return Offer::Dropped(pkt);
            }
            let t = serialization_time(pkt.size, self.rate_bps);
            self.on_wire = Some(pkt);
            return Offer::Transmit(t);
        }
        self.integrate(now);
        match self.queue.enqueue(now, pkt) {
            Some(dropped) => {
                self.counters.drops_queue += 1;
                Offer::Dropped(dropped)
            }
            None => Offer::Queued,
        }
    }

    /// The packet on the wire is fully serialized. Returns when it reaches the far end and,
    /// if another packet starts, how long its serialization takes.
    pub fn tx_done(&mut self, now: SimTime) -> (SimTime, Option<SimTime>) {
        let pkt = self.on_wire.take().expect("TxDone with nothing on the wire");
        self.counters.packets_sent += 1;
        self.counters.bytes_sent += pkt.size as u64;
        self.counters.busy_ns += serialization_time(pkt.size, self.rate_bps).ns();
        self.propagating.push_back(pkt);
        self.integrate(now);
        let next = self.queue.dequeue(now).map(|p| {
            let t = serialization_time(p.size, self.rate_bps);
            self.on_wire = Some(p);
            t
        });
        (now + self.delay, next)
    }

    /// The oldest propagating packet reaches the far end.
    pub fn deliver(&mut self) -> Packet {
        self.counters.delivered += 1;
        self.propagating
            .pop_front()
            .expect("Deliver with nothing propagating")
    }

    /// The packet being serialized, if any.
    pub fn on_wire(&self) -> Option<&Packet> {
        self.on_wire.as_ref()
    }

    /// Packets inside the link: queued, on the wire, or propagating.
    pub fn in_link(&self) -> u64 {
        (self.queue.len() + self.propagating.len() + self.on_wire.is_some() as usize) as u64
    }
}
