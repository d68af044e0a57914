//! The event queue and run loop: the only place that knows about scheduling.
//!
//! A binary heap keyed by (time, insertion sequence), so events due at the same time run in the
//! order they were scheduled (FIFO tie-break). Timers are cancelled lazily: the owner keeps the
//! deadline it wants, and a stale timer event is recognised and ignored when it fires.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What can happen in the simulated network. Small and `Copy`: packets wait in the links'
/// own FIFOs, so an event names the link rather than carrying the packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A link finished serializing the packet at the head of its queue.
    TxDone { link: u32 },
    /// The oldest packet propagating on a link reaches the far end.
    Deliver { link: u32 },
    /// An endpoint's timer may be due (checked against the endpoint's own deadline).
    Timer { flow: u32, side: Side },
    /// A flow starts sending.
    FlowStart { flow: u32 },
    /// The measurement window opens: instruments take their warm-up snapshot.
    Warmup,
    /// A background traffic source's timer (an HTTP think time ends, a datagram is due).
    Traffic { source: u32 },
}

/// Which end of a flow a timer belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Sender,
    Receiver,
}

#[derive(Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

/// Future events in time order, equal times in FIFO order.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    now: SimTime,
    processed: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// The time of the event being processed (or of the last one).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Events taken off the queue so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `event` at absolute time `at` (never in the past).
    pub fn schedule(&mut self, at: SimTime, event: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry {
            time: at.max(self.now),
            seq,
            event,
        });
    }

    /// Takes the next event due at or before `until`, advancing the clock to it.
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        if self.heap.peek()?.time > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.now = e.time;
        self.processed += 1;
        Some((e.time, e.event))
    }

    /// Moves the clock to `t` once the queue holds nothing earlier (end of a run).
    pub fn advance_to(&mut self, t: SimTime) {
        if t > self.now {
            self.now = t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_order_then_fifo() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(20), Event::TxDone { link: 1 });
        q.schedule(SimTime(10), Event::TxDone { link: 2 });
        q.schedule(SimTime(20), Event::TxDone { link: 3 });
        q.schedule(SimTime(10), Event::TxDone { link: 4 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(SimTime::MAX)).collect();
        let links: Vec<u32> = order
            .iter()
            .map(|(_, e)| match e {
                Event::TxDone { link } => *link,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(links, vec![2, 4, 1, 3]);
        assert_eq!(q.processed(), 4);
    }

    #[test]
    fn stops_at_horizon() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(5), Event::Warmup);
        q.schedule(SimTime(50), Event::Warmup);
        assert!(q.pop_until(SimTime(10)).is_some());
        assert!(q.pop_until(SimTime(10)).is_none());
        assert_eq!(q.len(), 1);
    }
}
