//! The event queue and run loop: the only place that knows about scheduling.
//!
//! Binary heaps keyed by (time, insertion sequence), so events due at the same time run in the
//! order they were scheduled (FIFO tie-break). Timers are cancelled lazily: the owner keeps the
//! deadline it wants, and a stale timer event is recognised and ignored when it fires.
//!
//! Two heaps, one order: the links' events (TxDone, Deliver) in one, everything else (the
//! endpoints' timers, flow starts, traffic sources, the warm-up) in the other, and the next
//! event is the earlier of the two tops. Every key is unique, so the order is exactly that of
//! one heap holding both. The split is for the cache: with thousands of flows nearly every
//! pending event is a timer (10,000 flows: about 22,000 timers against 500 busy links), most
//! of which fire rarely, while the links' few hundred events run millions of times a second;
//! in a heap of their own those stay within a few kilobytes.
//!
//! The event being processed stays at the top of the links' heap when it is a Deliver or a
//! TxDone, and the link's next one of the same kind takes its place (one sift instead of a
//! pop and a push): `continue_stream`, and `schedule_reserved` during a TxDone with
//! `end_tx_done` after it. Every key scheduled meanwhile is later than the running event's, so
//! the held entry is the top until then.

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

/// A pending event under its key. Compared as one 128-bit number (time in the high 64 bits,
/// sequence number in the low): one branch-free comparison orders two entries. Stored as two
/// 64-bit halves, so an entry is 24 bytes (a `u128` field would align it to 32).
#[derive(Debug)]
struct Entry {
    time: u64,
    seq: u64,
    event: Event,
}

impl Entry {
    #[inline]
    fn new(time: SimTime, seq: u64, event: Event) -> Entry {
        Entry {
            time: time.0,
            seq,
            event,
        }
    }

    #[inline]
    fn key(&self) -> u128 {
        ((self.time as u128) << 64) | self.seq as u128
    }

    #[inline]
    fn time(&self) -> SimTime {
        SimTime(self.time)
    }

    #[inline]
    fn seq(&self) -> u64 {
        self.seq
    }
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
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
        o.key().cmp(&self.key())
    }
}

/// Where an event stands in the processing order: its time, then its sequence number.
pub type Key = (SimTime, u64);

/// Future events in time order, equal times in FIFO order.
#[derive(Debug, Default)]
pub struct EventQueue {
    /// TxDone and Deliver events.
    heap: BinaryHeap<Entry>,
    /// Every other event: timers, flow starts, traffic sources, the warm-up.
    timers: BinaryHeap<Entry>,
    next_seq: u64,
    now: SimTime,
    /// The sequence number of the event being processed (or of the last one).
    seq: u64,
    processed: u64,
    /// The event being processed is a Deliver still at the top of the heap, waiting for
    /// `continue_stream` to put its link's next Deliver in its place.
    held: bool,
    /// The event being processed is a TxDone still at the top of the heap: the link's next
    /// TxDone, if one is scheduled while it runs, takes its place (one sift instead of a pop
    /// and a push); `end_tx_done` takes it off otherwise.
    held_tx: bool,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// The time of the event being processed (or of the last one).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The key of the event being processed: an event with a smaller key has run.
    #[inline]
    pub fn key(&self) -> Key {
        (self.now, self.seq)
    }

    /// Events taken off the queue so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.timers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.timers.is_empty()
    }

    /// Schedules `event` at absolute time `at` (never in the past); returns its sequence
    /// number.
    #[inline]
    pub fn schedule(&mut self, at: SimTime, event: Event) -> u64 {
        let seq = self.reserve();
        self.schedule_reserved(at, seq, event);
        seq
    }

    /// Takes the sequence number that an event scheduled now would have, without scheduling
    /// one: an event that may turn out to be needed later (a link's end of transmission) and
    /// then runs exactly where it would have run had it been scheduled now.
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Schedules `event` at `at` under a sequence number taken earlier by `reserve`. Its key
    /// must be later than the event being processed.
    #[inline]
    pub fn schedule_reserved(&mut self, at: SimTime, seq: u64, event: Event) {
        debug_assert!((at, seq) >= self.key(), "event scheduled in the past");
        let e = Entry::new(at.max(self.now), seq, event);
        match event {
            Event::TxDone { .. } if self.held_tx => {
                // The held entry has run: any new entry may take its place (in `dispatch` it
                // is the same link's next TxDone, the only one scheduled during a TxDone).
                self.held_tx = false;
                *self.heap.peek_mut().expect("the TxDone is at the top") = e;
            }
            Event::TxDone { .. } | Event::Deliver { .. } => self.heap.push(e),
            _ => self.timers.push(e),
        }
    }

    /// Takes the next event due at or before `until`, advancing the clock to it.
    ///
    /// Deliver events come in streams, one per link: a link's packets arrive in the order they
    /// were sent, so only the oldest's Deliver is in the heap, and the dispatcher of a Deliver
    /// must call `continue_stream` with the key of the link's next one (the heap's top is
    /// then replaced in place: one sift instead of a pop and a push).
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        debug_assert!(!self.held, "a Deliver's stream was not continued");
        debug_assert!(!self.held_tx, "a TxDone was not ended");
        // The heaps' order is reversed: the greater entry is the earlier.
        let (top, timer) = match (self.heap.peek(), self.timers.peek()) {
            (Some(l), Some(t)) if t > l => (t, true),
            (Some(l), _) => (l, false),
            (None, Some(t)) => (t, true),
            (None, None) => return None,
        };
        if top.time() > until {
            return None;
        }
        let (time, seq, event) = (top.time(), top.seq(), top.event);
        if timer {
            self.timers.pop();
        } else if let Event::Deliver { .. } = event {
            self.held = true;
        } else if let Event::TxDone { .. } = event {
            self.held_tx = true;
        } else {
            self.heap.pop();
        }
        self.now = time;
        self.seq = seq;
        self.processed += 1;
        Some((time, event))
    }

    /// Ends the Deliver being processed (see `pop_until`): its link's next Deliver, at key
    /// `next`, takes its place, or none does.
    #[inline]
    pub fn continue_stream(&mut self, next: Option<Key>) {
        debug_assert!(self.held, "continue_stream outside a Deliver");
        self.held = false;
        match next {
            Some((time, seq)) => {
                debug_assert!((time, seq) > self.key(), "a stream goes forward");
                let mut top = self.heap.peek_mut().expect("the Deliver is at the top");
                top.time = time.0;
                top.seq = seq;
            }
            None => {
                self.heap.pop();
            }
        }
    }

    /// Ends the TxDone being processed (see `held_tx`): off the heap, unless the link's next
    /// TxDone took its place.
    #[inline]
    pub fn end_tx_done(&mut self) {
        if self.held_tx {
            self.held_tx = false;
            self.heap.pop();
        }
    }

    /// The time of the next event, if any (an emulation sleeps until then).
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        match (self.heap.peek(), self.timers.peek()) {
            (Some(l), Some(t)) => Some(l.time().min(t.time())),
            (l, t) => l.or(t).map(|e| e.time()),
        }
    }

    /// Moves the clock to `t` once the queue holds nothing earlier (end of a run, or an
    /// emulated packet arriving from outside at `t`).
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
        let order: Vec<_> = std::iter::from_fn(|| {
            let next = q.pop_until(SimTime::MAX);
            q.end_tx_done();
            next
        })
        .collect();
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

    /// Deliver streams and reserved keys pop in exactly the order of a plain heap holding
    /// every event: the order is by (time, sequence number) alone.
    #[test]
    fn streams_and_reserved_keys_keep_the_heap_order() {
        let mut q = EventQueue::new();
        // A stream of three Delivers on link 7 (only the first in the heap), a TxDone whose
        // key is reserved before them and scheduled later, and other events in between.
        let tx = q.reserve(); // seq 0
        let d: Vec<Key> = (0..3).map(|i| (SimTime(10 + i * 10), q.reserve())).collect(); // 1..3
        q.schedule_reserved(d[0].0, d[0].1, Event::Deliver { link: 7 });
        q.schedule(
            SimTime(20),
            Event::Timer {
                flow: 1,
                side: Side::Sender,
            },
        ); // seq 4: after d[1]
        q.schedule(SimTime(10), Event::Warmup); // seq 5: after d[0]
        q.schedule_reserved(SimTime(10), tx, Event::TxDone { link: 7 }); // seq 0: first
        let mut order = Vec::new();
        let mut next = 1;
        while let Some((t, e)) = q.pop_until(SimTime::MAX) {
            order.push((t.0, q.key().1, e));
            match e {
                Event::Deliver { .. } => {
                    q.continue_stream(d.get(next).copied());
                    next += 1;
                }
                Event::TxDone { .. } => q.end_tx_done(),
                _ => {}
            }
        }
        let deliver = Event::Deliver { link: 7 };
        assert_eq!(
            order,
            vec![
                (10, 0, Event::TxDone { link: 7 }),
                (10, 1, deliver),
                (10, 5, Event::Warmup),
                (20, 2, deliver),
                (
                    20,
                    4,
                    Event::Timer {
                        flow: 1,
                        side: Side::Sender
                    }
                ),
                (30, 3, deliver),
            ]
        );
    }

    /// A TxDone that schedules its link's next one while it runs is replaced by it in the
    /// heap; one that schedules none is taken off when it ends: either way the order is the
    /// plain heap's.
    #[test]
    fn a_txdone_replaced_by_its_links_next_keeps_the_heap_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), Event::TxDone { link: 1 }); // seq 0
        q.schedule(SimTime(20), Event::TxDone { link: 2 }); // seq 1
        q.schedule(SimTime(30), Event::Warmup); // seq 2
        let mut order = Vec::new();
        while let Some((t, e)) = q.pop_until(SimTime::MAX) {
            order.push((t.0, q.key().1, e));
            if let Event::TxDone { link } = e {
                // Link 1 starts two more packets (at 10: the next ends at 25, after link 2's;
                // at 25: at 30, after the warm-up's key); link 2 none.
                if link == 1 && t.0 < 30 {
                    let at = if t.0 == 10 { 25 } else { 30 };
                    q.schedule(SimTime(at), Event::TxDone { link: 1 });
                    // A Deliver scheduled in the same event sits beside it.
                    q.schedule(SimTime(at + 5), Event::Deliver { link: 9 });
                }
                q.end_tx_done();
            } else if let Event::Deliver { .. } = e {
                q.continue_stream(None);
            }
        }
        let (tx1, tx2) = (Event::TxDone { link: 1 }, Event::TxDone { link: 2 });
        let d = Event::Deliver { link: 9 };
        assert_eq!(
            order,
            vec![
                (10, 0, tx1),
                (20, 1, tx2),
                (25, 3, tx1),
                (30, 2, Event::Warmup),
                (30, 4, d),
                (30, 5, tx1),
                (35, 6, d),
            ]
        );
        assert!(q.is_empty());
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
