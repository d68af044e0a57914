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
//!
//! When a packet starts its serialization its arrival at the far end is already known (start +
//! serialization + delay), so it joins `propagating` at once and its Deliver event is scheduled
//! then. The end of the serialization (TxDone) matters only if it starts another packet, or if
//! the discipline acts when the queue empties: for a transparent discipline with nothing waiting
//! (the common case on all but the bottleneck) the simulation only reserves the TxDone's key
//! (`Wire`), and schedules the event under that key if a packet arrives to wait behind it, so
//! the TxDone runs where it would have run had it been scheduled: one event per hop instead of
//! two on an uncongested link. (The Deliver, scheduled at the start as ns-2 does, sits among
//! events of the same nanosecond by that moment: docs/architecture.md.)
//!
//! A link may have a device queue under its discipline (`device_queue` in the scenario,
//! `DeviceQueue`): the discipline is then asked for packets whenever that ring of N packets has
//! room, and the transmitter takes them from the ring (`Link::pump`), as ns-3's point-to-point
//! device and a Linux NIC without BQL do; every end of serialization is then an event. Without
//! one (the default) nothing here changes: `offer` and `tx_done` test one pointer.

use super::loss::LossModel;
use super::packet::{NodeId, Packet, SegId};
use super::queue::{DropCause, Drops, MarkCause, Queue};
use crate::engine::Key;
use crate::stats::LinkCounters;
use crate::time::{serialization_time, SimTime};
use std::collections::VecDeque;

mod arena;
mod bql;
pub use arena::InFlight;
use arena::Propagating;
pub use bql::{Dql, DQL_MAX_LIMIT};

/// Gives an emptied buffer's memory back once it has held more than a few packets: with
/// thousands of flows each link's buffer would otherwise keep its flow's largest burst for the
/// rest of the run (and the sum of those is far more than the packets in flight at any time).
/// Four packets (the smallest allocation a `VecDeque` of packets makes) are kept: at 64, 10,000
/// flows through the scale benchmark peaked at 21.7 KiB per flow, at 4 at 9.2 KiB.
#[inline]
pub(crate) fn release_if_idle<T>(buf: &mut VecDeque<T>) {
    if buf.is_empty() && buf.capacity() > 4 {
        *buf = VecDeque::new();
    }
}

/// Asks the processor to bring the cache line of address `p` in, without waiting for it.
#[inline(always)]
pub(crate) fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it reads nothing and cannot fault, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// What happened to a packet offered to a link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Offer {
    /// Dropped by the loss module.
    Lost,
    /// The queue dropped a packet (the first of `Link::dropped`): the arrival itself, or a
    /// waiting packet the discipline dropped to make room for the arrival (then the arrival was
    /// queued).
    Dropped { arrival: bool },
    /// Waiting in the queue.
    Queued,
    /// The transmitter was idle: serialization starts now and ends after this long.
    Transmit(SimTime),
}

/// The packet being serialized (the last one in `propagating`): when its serialization ends,
/// the key of its TxDone event, and whether that event is in the event queue or only reserved.
#[derive(Clone, Copy, Debug)]
pub struct Wire {
    pub until: SimTime,
    pub seq: u64,
    pub scheduled: bool,
    /// Its serialization time and size (counted when it started).
    time: SimTime,
    size: u32,
}

impl Wire {
    /// The end of this serialization comes after the event of key `key`.
    #[inline]
    pub fn ends_after(&self, key: Key) -> bool {
        (self.until, self.seq) > key
    }
}

#[derive(Clone, Debug)]
pub struct Link {
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: SimTime,
    pub queue: Queue,
    /// Boxed: most links have none, and inline it made every `Link` 88 bytes larger (a
    /// quarter of the link memory of a 10,000-flow dumbbell).
    pub loss: Option<Box<LossModel>>,
    /// The packet being serialized, if the transmitter is busy (possibly a reserved TxDone
    /// whose key has passed: `settle`).
    wire: Option<Wire>,
    /// The end of a serialization need not be an event when nothing waits (the discipline is
    /// transparent and the link is not traced).
    pub shortcut: bool,
    /// Not one connection's own access or egress link (`LinkResult::shared`).
    pub shared: bool,
    /// The last packet size serialized and its time: most packets on a link direction have
    /// the same size, so the 128-bit division is rarely needed.
    memo: (u32, SimTime),
    /// Packets serialized or being serialized, oldest first, each with the key of its
    /// Deliver event (only the oldest's is in the event queue: `EventQueue::continue_stream`).
    propagating: Propagating,
    pub counters: LinkCounters,
    last_change: SimTime,
    /// What the queue dropped during the last `offer` or `tx_done`.
    dropped: Drops,
    /// The device queue under the discipline, if the link has one (`device_queue` in the
    /// scenario; boxed: most links have none, and the packet path tests only the pointer).
    device: Option<Box<DeviceQueue>>,
}

/// A device (driver) queue of `cap` packets between the discipline and the transmitter, with
/// flow control, as ns-3's `PointToPointNetDevice` under its traffic-control layer and a Linux
/// NIC's ring without BQL: the discipline is asked for a packet whenever the ring has room, so
/// while the transmitter is busy up to `cap` packets wait here, already out of the discipline.
/// The packet being serialized is not in the ring (ns-3's device dequeues it from its queue
/// when its transmission starts). docs/queues.md, "Device queue".
#[derive(Clone, Debug)]
struct DeviceQueue {
    cap: usize,
    ring: VecDeque<Packet>,
    /// Byte Queue Limits on the ring, if set (`bql` in the scenario; net/link/bql.rs).
    bql: Option<bql::Bql>,
}

impl Link {
    pub fn new(
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: SimTime,
        queue: Queue,
        loss: Option<LossModel>,
    ) -> Self {
        let shortcut = queue.transparent().is_some();
        Link {
            from,
            to,
            rate_bps,
            delay,
            queue,
            loss: loss.map(Box::new),
            wire: None,
            shortcut,
            shared: true,
            memo: (0, SimTime::ZERO),
            propagating: Propagating::EMPTY,
            counters: LinkCounters::default(),
            last_change: SimTime::ZERO,
            dropped: Drops::new(),
            device: None,
        }
    }

    /// Gives the link a device queue of `n` packets under its discipline (none if `n` is 0).
    /// Every end of a serialization is then an event (the ring is refilled there).
    pub fn with_device_queue(mut self, n: u32) -> Self {
        if n > 0 {
            self.device = Some(Box::new(DeviceQueue {
                cap: n as usize,
                ring: VecDeque::with_capacity(n as usize),
                bql: None,
            }));
            self.shortcut = false;
        }
        self
    }

    /// Puts Byte Queue Limits on the device queue (net/link/bql.rs): `dql` is its limit's
    /// state, fresh. Without a device queue there is nothing to limit (the scenario refuses
    /// `bql` there).
    pub fn with_bql(mut self, dql: Dql) -> Self {
        if let Some(d) = self.device.as_mut() {
            d.bql = Some(bql::Bql { dql, stopped: false });
        }
        self
    }

    /// The device queue's BQL limit in bytes, if it has BQL.
    pub fn bql_limit(&self) -> Option<u32> {
        self.device
            .as_ref()
            .and_then(|d| d.bql.as_ref())
            .map(|b| b.dql.limit())
    }

    /// The device queue's capacity in packets (0: none).
    pub fn device_queue(&self) -> usize {
        self.device.as_ref().map_or(0, |d| d.cap)
    }

    /// Packets waiting in the device queue (out of the discipline, not yet on the wire).
    pub fn in_device_queue(&self) -> usize {
        self.device.as_ref().map_or(0, |d| d.ring.len())
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

    /// A reserved end of serialization whose key has passed (by the event `key`) has
    /// happened: the transmitter is idle.
    #[inline]
    fn settle(&mut self, key: Key) {
        if let Some(w) = &self.wire {
            if !w.scheduled && !w.ends_after(key) {
                self.wire = None;
            }
        }
    }

    /// A packet arrives at the link's input during the event of key `key` (its time is now).
    ///
    /// Only the common case is here: an arrival at an idle transmitter whose discipline is
    /// transparent when empty goes straight to the wire. The loss module (`lost`) and the queue
    /// (`offer_queue`) are calls of their own, so that this path saves few registers.
    #[inline]
    pub fn offer(&mut self, key: Key, pkt: &Packet, flight: &mut InFlight) -> Offer {
        let now = key.0;
        self.counters.arrivals += 1;
        self.counters.bytes_in += pkt.size as u64;
        if self.loss.is_some() && self.lost(now, pkt) {
            return Offer::Lost;
        }
        self.dropped.clear();
        if self.device.is_none() {
            // An idle transmitter means an empty queue: the arrival passes straight through,
            // and the queue's length stays zero, so the integrals need no update.
            self.settle(key);
            if self.wire.is_none() {
                if let Some(limit) = self.queue.transparent() {
                    // No marks are left from an earlier operation: a transparent discipline
                    // marks only at enqueue (never an arrival at its empty queue), and every
                    // enqueue and end of serialization clears them first.
                    debug_assert!(self.queue.marked().is_empty());
                    if limit.admits_alone(pkt.size) {
                        let mut stamped = *pkt;
                        stamped.enqueued = now;
                        return Offer::Transmit(self.start(now, &stamped, flight));
                    }
                }
            }
        }
        self.offer_queue(now, pkt, flight)
    }

    /// The loss module's decision on an arrival (counted if it drops it).
    #[inline(never)]
    fn lost(&mut self, now: SimTime, pkt: &Packet) -> bool {
        let lost = self.loss.as_mut().is_some_and(|l| l.drops(now, pkt));
        if lost {
            self.counters.drops_loss += 1;
        }
        lost
    }

    /// `offer` past the loss module, unless the arrival went straight to the wire: it enters
    /// the discipline (or is refused as an overflow by a transparent one that it does not fit).
    #[inline(never)]
    fn offer_queue(&mut self, now: SimTime, pkt: &Packet, flight: &mut InFlight) -> Offer {
        if self.device.is_some() {
            return self.offer_device(now, pkt, flight);
        }
        let idle = self.wire.is_none();
        if idle {
            if self.queue.transparent().is_some() {
                // It does not fit the empty queue (`offer` sent it otherwise).
                self.dropped.push((*pkt, DropCause::Overflow));
            }
        } else {
            self.integrate(now);
        }
        self.queue.clear_marks();
        if self.dropped.is_empty() {
            if let Err(cause) = self.queue.enqueue(now, pkt, &mut self.dropped) {
                self.dropped.push((*pkt, cause));
            }
        }
        debug_assert!(
            self.dropped.len() <= 1,
            "one drop per enqueue (Offer reports one)"
        );
        self.count_from(0);
        self.count_marks(0);
        if idle && !self.queue.is_empty() {
            if let Some(t) = self.start_next(now, flight) {
                debug_assert!(self.dropped.is_empty(), "a drop at an idle link");
                return Offer::Transmit(t);
            }
        }
        match self.dropped.first() {
            Some((d, _)) => Offer::Dropped { arrival: d == pkt },
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

    /// Counts the queue's marks from position `from` on, by cause.
    #[inline]
    fn count_marks(&mut self, from: usize) {
        let marks = self.queue.marked();
        if marks.len() > from {
            for &(_, cause) in &marks[from..] {
                self.counters.marks += 1;
                match cause {
                    MarkCause::Early => self.counters.marks_early += 1,
                    MarkCause::Sojourn => self.counters.marks_sojourn += 1,
                    MarkCause::Threshold => self.counters.marks_threshold += 1,
                }
            }
        }
    }

    /// The discipline's next packet at `now`, with the drops and marks that dequeue made
    /// counted. Always inlined: on the per-packet path, left as a call it cost the dumbbell
    /// bench 0.9% more instructions.
    #[inline(always)]
    fn dequeue_counted(&mut self, now: SimTime) -> Option<Packet> {
        let counted = self.dropped.len();
        let marked = self.queue.marked().len();
        let next = self.queue.dequeue(now, &mut self.dropped);
        if self.dropped.len() > counted {
            self.count_from(counted);
        }
        self.count_marks(marked);
        next
    }

    /// Puts the queue's next packet on the wire, if there is one; returns its serialization
    /// time. Drops the discipline makes on the way are added to `dropped` and counted, and so
    /// are its marks (the queue's `marked`).
    #[inline(always)]
    fn start_next(&mut self, now: SimTime, flight: &mut InFlight) -> Option<SimTime> {
        self.dequeue_counted(now).map(|p| self.start(now, &p, flight))
    }

    /// `pkt` starts its serialization: it is counted as sent and joins the packets
    /// propagating (the caller schedules its Deliver and sets its TxDone's key, `set_wire`).
    #[inline(always)]
    fn start(&mut self, now: SimTime, pkt: &Packet, flight: &mut InFlight) -> SimTime {
        let t = self.serialization(pkt.size);
        self.counters.packets_sent += 1;
        self.counters.bytes_sent += pkt.size as u64;
        self.counters.busy_ns += t.ns();
        self.wire = Some(Wire {
            until: now + t,
            seq: 0,
            scheduled: false,
            time: t,
            size: pkt.size,
        });
        self.propagating.push_back(flight, pkt);
        t
    }

    /// The key of the TxDone of the packet that just started, and whether it is scheduled.
    #[inline]
    pub fn set_wire(&mut self, seq: u64, scheduled: bool) {
        let w = self.wire.as_mut().expect("a packet just started");
        w.seq = seq;
        w.scheduled = scheduled;
    }

    /// The key of the Deliver event of the packet that just started; true if it is the
    /// oldest propagating packet (its Deliver goes into the event queue now; the others
    /// follow in turn).
    #[inline]
    pub fn set_arrival(&mut self, key: Key, flight: &mut InFlight) -> bool {
        debug_assert!(self.propagating.len > 0, "a packet just started");
        self.propagating.set_key(flight, key, self.to)
    }

    /// The serialization in progress whose TxDone is only reserved, if packets now wait
    /// behind it (so the TxDone must run): marks it scheduled and returns its key.
    #[inline]
    pub fn needs_tx_done(&mut self) -> Option<Key> {
        match &mut self.wire {
            Some(w) if !w.scheduled && !self.queue.is_empty() => {
                w.scheduled = true;
                Some((w.until, w.seq))
            }
            _ => None,
        }
    }

    /// The counters as they stand after the event of key `key`: a packet whose serialization
    /// ends after it is not sent yet (it is counted when it starts).
    pub fn counters_at(&self, key: Key) -> LinkCounters {
        let mut c = self.counters;
        if let Some(w) = &self.wire {
            if w.ends_after(key) {
                c.packets_sent -= 1;
                c.bytes_sent -= w.size as u64;
                c.busy_ns -= w.time.ns();
            }
        }
        c
    }

    /// The packet on the wire is fully serialized (its TxDone event). Returns, if another
    /// packet starts, how long its serialization takes. Packets the queue dropped while
    /// choosing the next one are in `dropped()`.
    pub fn tx_done(&mut self, now: SimTime, flight: &mut InFlight) -> Option<SimTime> {
        debug_assert!(
            self.wire.is_some_and(|w| w.scheduled && w.until == now),
            "TxDone with nothing on the wire"
        );
        self.wire = None;
        self.integrate(now);
        self.dropped.clear();
        self.queue.clear_marks();
        if self.device.is_some() {
            return self.pump(now, flight);
        }
        self.start_next(now, flight)
    }

    /// `offer` on a link with a device queue (after the loss module): the arrival enters the
    /// discipline, which is then asked for packets while the device queue has room
    /// (`pump`). The discipline holds packets only while the ring is full, so an arrival at an
    /// idle link goes straight through both to the wire. (Kept out of line, and `pump` too, so
    /// that the packet path of the links without a device queue compiles as before.)
    #[cold]
    #[inline(never)]
    fn offer_device(&mut self, now: SimTime, pkt: &Packet, flight: &mut InFlight) -> Offer {
        self.integrate(now);
        self.queue.clear_marks();
        if let Err(cause) = self.queue.enqueue(now, pkt, &mut self.dropped) {
            self.dropped.push((*pkt, cause));
        }
        debug_assert!(
            self.dropped.len() <= 1,
            "one drop per enqueue (Offer reports one)"
        );
        self.count_from(0);
        self.count_marks(0);
        let dropped = self.dropped.len();
        let started = self.pump(now, flight);
        // With room in the ring the discipline held only the arrival, whose sojourn is zero:
        // nothing is dropped on its way out.
        debug_assert_eq!(self.dropped.len(), dropped, "a drop at dequeue during an offer");
        if let Some(t) = started {
            return Offer::Transmit(t);
        }
        match self.dropped.first() {
            Some((d, _)) => Offer::Dropped { arrival: d == pkt },
            None => Offer::Queued,
        }
    }

    /// The transmitter and the device queue take what they can at `now`: an idle transmitter
    /// starts the ring's oldest packet (or, with the ring empty, the discipline's next one),
    /// then the discipline is asked for packets while the ring has room, each dequeue being
    /// the discipline's (its sojourn times and drops are measured there). ns-3 does the same
    /// in `PointToPointNetDevice::TransmitComplete` (the device queue's head starts) followed
    /// by the device queue's wake (`NetDeviceQueue::Wake`, scheduled at the same time) and
    /// `QueueDisc::Run`. Returns the serialization time of the packet that started, if one did.
    #[inline(never)]
    fn pump(&mut self, now: SimTime, flight: &mut InFlight) -> Option<SimTime> {
        if self.device.as_ref().is_some_and(|d| d.bql.is_some()) {
            return self.pump_bql(now, flight);
        }
        let mut started = None;
        if self.wire.is_none() {
            let head = self.device.as_mut().and_then(|d| d.ring.pop_front());
            started = match head {
                Some(p) => Some(self.start(now, &p, flight)),
                None => self.start_next(now, flight),
            };
        }
        loop {
            let d = self.device.as_ref().expect("a device queue");
            if d.ring.len() >= d.cap || self.queue.is_empty() {
                break;
            }
            match self.dequeue_counted(now) {
                Some(p) => self.device.as_mut().expect("a device queue").ring.push_back(p),
                None => break,
            }
        }
        started
    }

    /// The packets the queue dropped during the last `offer` or `tx_done`, in order, with
    /// their causes (for `tx_done`: drops at dequeue, which the packet trace records as "d").
    pub fn dropped(&self) -> &[(Packet, DropCause)] {
        &self.dropped
    }

    /// The packets the queue marked CE during the last `offer` or `tx_done`, in order, with
    /// their causes (as they are after the mark).
    pub fn marked(&self) -> &[(Packet, MarkCause)] {
        self.queue.marked()
    }

    /// Empties `dropped()` (the simulation has released those packets' segments).
    #[inline]
    pub fn forget_dropped(&mut self) {
        self.dropped.clear();
    }

    /// The oldest propagating packet reaches the far end; with the key of the next one's
    /// Deliver, if another is propagating, and that one's segment if it ends its route there
    /// (to fetch ahead: `Segments::prefetch`).
    #[inline]
    pub fn deliver(&mut self, flight: &mut InFlight) -> (Packet, Option<Key>, Option<SegId>) {
        self.counters.delivered += 1;
        self.propagating
            .pop_front(flight)
            .expect("Deliver with nothing propagating")
    }

    /// The packet being serialized, if any (after the event of key `key`).
    pub fn on_wire<'a>(&self, key: Key, flight: &'a InFlight) -> Option<&'a Packet> {
        match &self.wire {
            Some(w) if w.scheduled || w.ends_after(key) => self.propagating.back(flight).map(|e| &e.pkt),
            _ => None,
        }
    }

    /// Packets inside the link: queued (in the discipline or the device queue), on the wire, or
    /// propagating.
    pub fn in_link(&self) -> u64 {
        (self.queue.len() + self.in_device_queue() + self.propagating.len as usize) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::segment::Segment;

    fn pkt(flow: u32, seq: u64) -> Packet {
        // The segment's place names the packet (no `Segments` here).
        let seg = Segment::data(seq, 1000, 1040);
        Packet::tcp(flow, 0, 1, &seg, crate::net::packet::SegId(seq as u32))
    }

    /// A link of 8 Mbit/s (one byte per microsecond) with queue `q` and a device queue of `n`
    /// packets, fed `arrivals` (time in µs, packet id, bytes); arrivals are processed before
    /// an end of serialization at the same time. Returns, per packet id, the time (µs) the
    /// discipline let it go (its dequeue) and the time its serialization started, and the
    /// packets the discipline dropped with the time.
    #[allow(clippy::type_complexity)]
    fn drive(
        q: Queue,
        n: u32,
        arrivals: &[(u64, u32, u32)],
    ) -> (Vec<(u32, u64, u64)>, Vec<(u32, u64, DropCause)>) {
        let l = Link::new(0, 1, 8_000_000, SimTime::ZERO, q, None).with_device_queue(n);
        drive_link(l, arrivals)
    }

    /// `drive` on a given link.
    #[allow(clippy::type_complexity)]
    fn drive_link(
        mut l: Link,
        arrivals: &[(u64, u32, u32)],
    ) -> (Vec<(u32, u64, u64)>, Vec<(u32, u64, DropCause)>) {
        const US: u64 = 1000;
        let mut flight = InFlight::new();
        let mut out_of_queue: Vec<(u32, u64)> = Vec::new();
        let mut started: Vec<(u32, u64)> = Vec::new();
        let mut drops = Vec::new();
        let mut next = 0;
        let mut wire_end: Option<SimTime> = None;
        let mut seq = 0u64;
        loop {
            let arrival = arrivals.get(next).map(|a| SimTime(a.0 * US));
            let now = match (arrival, wire_end) {
                (None, None) => break,
                (Some(a), Some(w)) => a.min(w),
                (a, w) => a.or(w).unwrap(),
            };
            seq += 1;
            let t = if arrival == Some(now) {
                let (_, id, size) = arrivals[next];
                next += 1;
                let mut p = pkt(id, id as u64);
                p.size = size;
                match l.offer((now, seq), &p, &mut flight) {
                    Offer::Transmit(t) => Some(t),
                    _ => None,
                }
            } else {
                wire_end = None;
                l.tx_done(now, &mut flight)
            };
            drops.extend(l.dropped().iter().map(|&(p, c)| (p.flow, now.ns() / US, c)));
            l.forget_dropped();
            if let Some(t) = t {
                l.set_wire(seq, true);
                wire_end = Some(now + t);
                let p = l.on_wire((now, seq), &flight).unwrap();
                started.push((p.flow, now.ns() / US));
            } else if l.wire.is_some() && wire_end.is_none() {
                // A link without a device queue reserved the TxDone (transparent queue).
                let w = l.wire.unwrap();
                wire_end = Some(w.until);
                l.set_wire(w.seq, true);
            }
            // What has left the discipline by now: the packet on the wire and the ring's.
            let ring: Vec<_> = l
                .device
                .as_ref()
                .map(|d| d.ring.iter().copied().collect())
                .unwrap_or_default();
            for p in ring.iter().chain(l.on_wire((now, seq), &flight)) {
                if !out_of_queue.iter().any(|&(id, _)| id == p.flow) {
                    out_of_queue.push((p.flow, now.ns() / US));
                }
            }
            assert!(l.device_queue() == 0 || ring.len() <= l.device_queue());
        }
        let times = started
            .iter()
            .map(|&(id, s)| {
                let d = out_of_queue.iter().find(|&&(i, _)| i == id).unwrap().1;
                (id, d, s)
            })
            .collect();
        (times, drops)
    }

    fn droptail() -> Queue {
        Queue::drop_tail(crate::net::queue::Limit::Packets(100))
    }

    /// An arrival at an idle link goes to the wire without entering a transparent queue
    /// (`offer`'s fast path) only if it fits the empty queue; otherwise it is refused as an
    /// overflow there (`offer_queue`), the same at an idle link as at a busy one. A 1000-byte
    /// drop-tail queue, 8 Mbit/s (1 byte per µs).
    #[test]
    fn an_arrival_that_does_not_fit_the_empty_queue_is_an_overflow() {
        let q = Queue::drop_tail(crate::net::queue::Limit::Bytes(1000));
        // (µs, id, bytes): 1 does not fit even alone; 2 fits and starts; 3 waits behind it;
        // 4 finds the link idle again and does not fit.
        let arrivals = [(0, 1, 1001), (0, 2, 1000), (100, 3, 400), (2000, 4, 1001)];
        let (times, drops) = drive(q, 0, &arrivals);
        assert_eq!(times, vec![(2, 0, 0), (3, 1000, 1000)]);
        assert_eq!(
            drops,
            vec![(1, 0, DropCause::Overflow), (4, 2000, DropCause::Overflow)]
        );
    }

    /// The loss module decides before the queue, and counts what it drops (`lost`): every
    /// third arrival here (p = 1/3, Mathis et al.'s periodic loss).
    #[test]
    fn the_loss_module_drops_before_the_queue() {
        let loss = crate::net::loss::LossModel::EveryNth { n: 3, count: 0 };
        let mut l = Link::new(0, 1, 8_000_000, SimTime::ZERO, droptail(), Some(loss));
        let mut flight = InFlight::new();
        let offers: Vec<Offer> = (1..=6)
            .map(|i| l.offer((SimTime(i * 10_000_000), i), &pkt(0, i), &mut flight))
            .collect();
        let lost: Vec<bool> = offers.iter().map(|o| *o == Offer::Lost).collect();
        assert_eq!(lost, [false, false, true, false, false, true]);
        assert_eq!((l.counters.arrivals, l.counters.drops_loss), (6, 2));
        assert_eq!(l.counters.drops_queue, 0);
    }

    /// With a one-packet device queue the discipline is asked for a packet as soon as the ring
    /// has room: each packet leaves it when the packet ahead of it starts its serialization,
    /// one packet-time early, and its sojourn there is shorter by that time; the wire sees the
    /// same packets at the same times. 8 Mbit/s: 1000 bytes take 1000 µs.
    #[test]
    fn device_queue_asks_the_discipline_one_packet_early() {
        // (µs, id, bytes)
        let arrivals = [
            (0, 1, 1000),
            (0, 2, 500),
            (200, 3, 1500),
            (300, 4, 200),
            (4000, 5, 1000),
        ];
        let (times, drops) = drive(droptail(), 1, &arrivals);
        assert!(drops.is_empty());
        // (id, left the discipline at, started at): 1 goes straight to the idle wire; 2, at
        // once, into the empty ring; 3 and 4 wait in the discipline until the packet ahead of
        // them starts (2 at 1000 µs, 3 at 1500 µs); 5 finds the link idle.
        assert_eq!(
            times,
            vec![
                (1, 0, 0),
                (2, 0, 1000),
                (3, 1000, 1500),
                (4, 1500, 3000),
                (5, 4000, 4000)
            ]
        );
        // Sojourn times in the discipline: 0, 0, 800, 1200, 0 µs.
        let sojourn: Vec<u64> = times
            .iter()
            .map(|&(id, d, _)| d - arrivals[id as usize - 1].0)
            .collect();
        assert_eq!(sojourn, vec![0, 0, 800, 1200, 0]);
        // Without a device queue (0 is none): each leaves when it starts.
        let (times, _) = drive(droptail(), 0, &arrivals);
        assert_eq!(
            times,
            vec![
                (1, 0, 0),
                (2, 1000, 1000),
                (3, 1500, 1500),
                (4, 3000, 3000),
                (5, 4000, 4000)
            ]
        );
        // A ring of 2: 3 joins 2 in the ring on arrival, 4 leaves when 2 starts.
        let (times, _) = drive(droptail(), 2, &arrivals);
        assert_eq!(
            times,
            vec![
                (1, 0, 0),
                (2, 0, 1000),
                (3, 200, 1500),
                (4, 1000, 3000),
                (5, 4000, 4000)
            ]
        );
    }

    /// Byte Queue Limits on a ring of 3 (hold time 1 ms): six 1000-byte packets at once, 8
    /// Mbit/s (1000 µs each). Packet 1 leaves the discipline and starts at once; queued to
    /// BQL it leaves `avail` at -1000 (the limit is 0), and its completion (it left the ring)
    /// finds the queue starved: limit 1000, `adj_limit` 2000. Packets 2 and 3 then enter the
    /// ring (avail 0, then -1000: stopped); 4, 5 and 6 wait in the discipline although the
    /// ring has room. At 1 ms packet 2 starts; its completion leaves avail at 0, which
    /// restarts the queue: 4 leaves (stopped again). At 2 ms packet 3 starts; that completion
    /// is a starvation by the second rule (over the limit before, everything queued then now
    /// completed): limit 1000 + 1000 = 2000, so 5 and 6 leave together. Without BQL, 2, 3 and
    /// 4 would have left at 0, 5 at 1 ms and 6 at 2 ms.
    #[test]
    fn bql_keeps_packets_in_the_discipline_until_the_limit_has_room() {
        let dql = || Dql::new(SimTime::from_ms(1), 0, DQL_MAX_LIMIT);
        let arrivals: Vec<(u64, u32, u32)> = (1..=6).map(|k| (0, k, 1000)).collect();
        let l = Link::new(0, 1, 8_000_000, SimTime::ZERO, droptail(), None)
            .with_device_queue(3)
            .with_bql(dql());
        let (times, drops) = drive_link(l, &arrivals);
        assert!(drops.is_empty());
        assert_eq!(
            times,
            vec![
                (1, 0, 0),
                (2, 0, 1000),
                (3, 0, 2000),
                (4, 1000, 3000),
                (5, 2000, 4000),
                (6, 2000, 5000)
            ]
        );
        let (plain, _) = drive(droptail(), 3, &arrivals);
        assert_eq!(
            plain.iter().map(|t| t.1).collect::<Vec<_>>(),
            vec![0, 0, 0, 0, 1000, 2000]
        );
        // The limit at the end, and a link without a device queue takes no BQL.
        let mut l = Link::new(0, 1, 8_000_000, SimTime::ZERO, droptail(), None)
            .with_device_queue(3)
            .with_bql(dql());
        let mut flight = InFlight::new();
        assert_eq!(l.bql_limit(), Some(0));
        l.offer((SimTime::ZERO, 1), &pkt(1, 1), &mut flight);
        assert_eq!(l.bql_limit(), Some(pkt(1, 1).size));
        let l = Link::new(0, 1, 8_000_000, SimTime::ZERO, droptail(), None).with_bql(dql());
        assert_eq!(l.bql_limit(), None);
    }

    /// The order at the end of a serialization under BQL: the packet leaving the ring is
    /// completed before the discipline is asked again (ns-3's `PacketDequeued` step calls
    /// `NotifyTransmittedBytes`, then `Wake`). A ring of one, three 1000-byte packets at once:
    /// packet 1 starts and its completion makes the limit 1000 (starved); 2 fills the ring
    /// (avail 0), 3 waits for the ring. At 1 ms packet 2's completion comes first (queued 2000,
    /// completed 2000: nothing over the limit, limit unchanged, avail 1000) and 3 then enters
    /// the ring (avail 0); at 2 ms packet 3's completion finds no excess either: the limit stays
    /// 1000. (Queued before that completion, 3 would have left an excess of 1000 over the
    /// limit, and the next completion would have been a starvation: 2000.)
    #[test]
    fn bql_completes_before_the_discipline_is_asked_again() {
        let mut l = Link::new(0, 1, 8_000_000, SimTime::ZERO, droptail(), None)
            .with_device_queue(1)
            .with_bql(Dql::new(SimTime::from_ms(1), 0, DQL_MAX_LIMIT));
        let mut flight = InFlight::new();
        for k in 1..=3u64 {
            let mut p = pkt(k as u32, k);
            p.size = 1000;
            let o = l.offer((SimTime::ZERO, k), &p, &mut flight);
            if k == 1 {
                assert_eq!(o, Offer::Transmit(SimTime::from_ms(1)));
                l.set_wire(k, true);
            }
        }
        assert_eq!(
            (l.bql_limit(), l.in_device_queue(), l.queue.len()),
            (Some(1000), 1, 1)
        );
        for (t, left) in [(1, 0), (2, 0)] {
            let now = SimTime::from_ms(t);
            assert_eq!(l.tx_done(now, &mut flight), Some(SimTime::from_ms(1)));
            l.set_wire(10 + t, true);
            assert_eq!(l.queue.len(), left);
            assert_eq!(l.bql_limit(), Some(1000), "at {t} ms");
        }
    }

    /// CoDel (target 5 ms, interval 10 ms) with sixteen packets queued at once, the twelfth
    /// of 200 bytes and the others of 1500 (1500 µs each on the wire, the small one 200 µs).
    /// Without a device queue packet k leaves at its start, 1.5 (k - 1) ms for k <= 12: the
    /// first sojourn of at least 5 ms is packet 5's at 6 ms, so dropping is allowed from 16 ms,
    /// and the first dequeue from then on is packet 12's, at 16.5 ms: the small packet is
    /// dropped. With a device queue of one, packet k (k >= 2) leaves when packet k - 1 starts,
    /// 1.5 (k - 2) ms: packet 6 is the first above target (6 ms), dropping is again allowed from
    /// 16 ms, packet 12 leaves at 15 ms and packet 13 at 16.5 ms: a large packet is dropped.
    #[test]
    fn device_queue_moves_codels_drop_to_another_packet() {
        let codel = || {
            let spec: crate::net::queue::QueueSpec = toml::from_str(
                "discipline = \"codel\"\nlimit = 1000\ncodel = { target = \"5ms\", interval = \"10ms\" }",
            )
            .unwrap();
            let ctx = crate::net::queue::LinkContext {
                name: "l",
                rate_bps: 8_000_000,
                seed: 1,
            };
            Queue::new(crate::net::queue::Discipline::build(&spec, &ctx))
        };
        let arrivals: Vec<(u64, u32, u32)> = (1..=16)
            .map(|k| (0, k, if k == 12 { 200 } else { 1500 }))
            .collect();
        let (times, drops) = drive(codel(), 0, &arrivals);
        assert_eq!(drops, vec![(12, 16_500, DropCause::Sojourn)]);
        let start = |t: &[(u32, u64, u64)], id: u32| t.iter().find(|x| x.0 == id).map(|x| (x.1, x.2));
        assert_eq!(start(&times, 11), Some((15_000, 15_000)));
        assert_eq!(start(&times, 13), Some((16_500, 16_500)));
        assert_eq!(start(&times, 16), Some((21_000, 21_000)));
        let (times, drops) = drive(codel(), 1, &arrivals);
        assert_eq!(drops, vec![(13, 16_500, DropCause::Sojourn)]);
        // 12 left at 15 ms and starts at 16.5; 14 left at 16.5 (when 13 was dropped), and
        // starts after the small packet, at 16.7 ms.
        assert_eq!(start(&times, 6), Some((6_000, 7_500)));
        assert_eq!(start(&times, 12), Some((15_000, 16_500)));
        assert_eq!(start(&times, 14), Some((16_500, 16_700)));
        assert_eq!(start(&times, 16), Some((18_200, 19_700)));
    }
}
