//! One direction of a point-to-point link: a loss module, a queue, a transmitter of fixed rate
//! and a propagation delay. Packets on the wire propagate in FIFO order (constant delay), so
//! they wait in `propagating` and the engine's Deliver event only names the link.
//!
//! Every packet that passes the loss module goes through the queue: it is stamped with the time
//! (`Packet::enqueued`) and offered to the discipline; when the transmitter is idle (so the queue
//! is empty) it is taken straight back out (its sojourn time is zero), or, for a discipline that
//! is transparent when empty (`QueueDiscipline::transparent_limit`), sent without entering it. The discipline may drop at either end;
//! the link counts each drop by cause and keeps the packets dropped by the last `offer` or
//! `tx_done` in `dropped()`, so the simulation can trace drops made at dequeue.

use super::loss::LossModel;
use super::packet::{NodeId, Packet};
use super::queue::{DropCause, Drops, Queue};
use crate::stats::LinkCounters;
use crate::time::{serialization_time, SimTime};
use std::collections::VecDeque;

/// Gives an emptied buffer's memory back once it has held more than a few packets: with
/// thousands of flows each link's buffer would otherwise keep its flow's largest burst for the
/// rest of the run (and the sum of those is far more than the packets in flight at any time).
#[inline]
pub(crate) fn release_if_idle<T>(buf: &mut VecDeque<T>) {
    if buf.is_empty() && buf.capacity() > 64 {
        *buf = VecDeque::new();
    }
}

/// What happened to a packet offered to a link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Offer {
    /// Dropped by the loss module.
    Lost,
    /// The queue dropped this packet: the arrival itself (as offered), or a waiting packet the
    /// discipline dropped to make room for the arrival (then the arrival was queued).
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
    /// Serialization time of the packet on the wire (computed once, when it starts).
    wire_time: SimTime,
    /// The last packet size serialized and its time: most packets on a link direction have
    /// the same size, so the 128-bit division is rarely needed.
    memo: (u32, SimTime),
    propagating: VecDeque<Packet>,
    pub counters: LinkCounters,
    last_change: SimTime,
    /// What the queue dropped during the last `offer` or `tx_done`.
    dropped: Drops,
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
            wire_time: SimTime::ZERO,
            memo: (0, SimTime::ZERO),
            propagating: VecDeque::new(),
            counters: LinkCounters::default(),
            last_change: SimTime::ZERO,
            dropped: Drops::new(),
        }
    }

    /// Brings the integral of RED's average up to `now` (RED queues only; called when the
    /// counters are read, not on the packet path).
    pub fn integrate_red_avg(&mut self, now: SimTime) {
        if let crate::net::queue::Discipline::Red(r) = self.queue.discipline() {
            self.counters.red_avg_area = r.avg_area(now);
        }
    }

    /// RED's current average, if the queue is RED.
    pub fn red_avg(&self) -> Option<f64> {
        match self.queue.discipline() {
            crate::net::queue::Discipline::Red(r) => Some(r.avg()),
            _ => None,
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
        self.dropped.clear();
        // An idle transmitter means an empty queue: the arrival passes straight through, and
        // the queue's length stays zero, so the integrals need no update.
        let idle = self.on_wire.is_none();
        if idle {
            if let Some(limit) = self.queue.transparent() {
                if limit.admits_alone(pkt.size) {
                    let t = self.serialization(pkt.size);
                    self.on_wire = Some(Packet { enqueued: now, ..pkt });
                    self.wire_time = t;
                    return Offer::Transmit(t);
                }
                self.dropped.push((pkt, DropCause::Overflow));
            }
        } else {
            self.integrate(now);
        }
        if self.dropped.is_empty() {
            if let Err(cause) = self.queue.enqueue(now, &pkt, &mut self.dropped) {
                self.dropped.push((pkt, cause));
            }
        }
        debug_assert!(
            self.dropped.len() <= 1,
            "one drop per enqueue (Offer reports one)"
        );
        self.count_from(0);
        if idle && !self.queue.is_empty() {
            if let Some(t) = self.start_next(now) {
                debug_assert!(self.dropped.is_empty(), "a drop at an idle link");
                return Offer::Transmit(t);
            }
        }
        match self.dropped.first() {
            Some(&(d, _)) => Offer::Dropped(d),
            None => Offer::Queued,
        }
    }

    /// `serialization_time(size, rate)`, remembered for the last size.
    #[inline]
    fn serialization(&mut self, size: u32) -> SimTime {
        if size != self.memo.0 {
            self.memo = (size, serialization_time(size, self.rate_bps));
        }
        self.memo.1
    }

    /// Counts the drops in `dropped` from position `from` on, by cause.
    #[inline]
    fn count_from(&mut self, from: usize) {
        for &(_, cause) in &self.dropped[from..] {
            self.counters.drops_queue += 1;
            match cause {
                DropCause::Overflow => self.counters.drops_overflow += 1,
                DropCause::Early => self.counters.drops_early += 1,
                DropCause::Sojourn => self.counters.drops_sojourn += 1,
            }
        }
    }

    /// Puts the queue's next packet on the wire, if there is one; returns its serialization
    /// time. Drops the discipline makes on the way are added to `dropped` and counted.
    #[inline(always)]
    fn start_next(&mut self, now: SimTime) -> Option<SimTime> {
        let counted = self.dropped.len();
        let next = self.queue.dequeue(now, &mut self.dropped);
        if self.dropped.len() > counted {
            self.count_from(counted);
        }
        next.map(|p| {
            let t = self.serialization(p.size);
            self.on_wire = Some(p);
            self.wire_time = t;
            t
        })
    }

    /// The packet on the wire is fully serialized. Returns when it reaches the far end and,
    /// if another packet starts, how long its serialization takes. Packets the queue dropped
    /// while choosing the next one are in `dropped()`.
    pub fn tx_done(&mut self, now: SimTime) -> (SimTime, Option<SimTime>) {
        let pkt = self.on_wire.take().expect("TxDone with nothing on the wire");
        self.counters.packets_sent += 1;
        self.counters.bytes_sent += pkt.size as u64;
        self.counters.busy_ns += self.wire_time.ns();
        self.propagating.push_back(pkt);
        self.integrate(now);
        self.dropped.clear();
        let next = self.start_next(now);
        (now + self.delay, next)
    }

    /// The packets the queue dropped during the last `offer` or `tx_done`, in order, with
    /// their causes (for `tx_done`: drops at dequeue, which the packet trace records as "d").
    pub fn dropped(&self) -> &[(Packet, DropCause)] {
        &self.dropped
    }

    /// The oldest propagating packet reaches the far end.
    pub fn deliver(&mut self) -> Packet {
        self.counters.delivered += 1;
        let p = self
            .propagating
            .pop_front()
            .expect("Deliver with nothing propagating");
        release_if_idle(&mut self.propagating);
        p
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
