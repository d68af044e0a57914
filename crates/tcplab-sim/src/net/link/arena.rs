//! The packets propagating on every link, in one arena (`InFlight`), each link's a list
//! threaded through it (`Propagating`): the storage behind `Link`'s FIFO of packets on their
//! way to the far end (net/link.rs).

use super::prefetch;
use crate::engine::Key;
use crate::net::packet::{NodeId, Packet, SegId};
use crate::time::SimTime;

/// No slot: the end of a link's list of propagating packets.
pub(super) const NIL: u32 = u32::MAX;

/// A propagating packet, the next packet on the same link and that one's Deliver key: 52
/// bytes, aligned to a cache line, so a Deliver reads one line. (The packet's segment is
/// elsewhere, `net::packet::Segments`; a packet's own key is in the event queue while it is
/// the oldest on its link, and before that in the slot of the packet ahead of it, so that
/// continuing a link's stream does not wait for a second slot: at 10,000 flows that read was
/// a quarter of the run's time, bench/README.md, "2026-11-27, d7a0a86".)
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
pub(super) struct Slot {
    pub(super) pkt: Packet,
    pub(super) next: u32,
    /// The next packet's segment if that packet ends its route at this link's far end (an
    /// endpoint reads it right after its Deliver: fetched ahead), else NIL.
    pub(super) next_seg: u32,
    pub(super) next_key: Key,
}

/// The packets propagating on every link of a simulation, in one arena: each link's, oldest
/// first, are a list threaded through it (`Propagating`), and a slot freed by a delivery is
/// the next one taken (the most recently used, likely still in cache).
///
/// It replaced a ring per link: a ring grew by reallocation whenever a link held more packets
/// than its ring (a sender's burst, a flow's packets spaced by a faster bottleneck), and gave
/// that memory back when it emptied; 10,000 flows reallocated 2.3 million times in 5 simulated
/// seconds, 128 flows 124,000 times in 30 (bench/README.md, "2026-11-27, 2de4bee"). The arena grows only
/// to the most packets in flight at once, whatever the links.
#[derive(Debug)]
pub struct InFlight {
    slots: Vec<Slot>,
    free: u32,
}

/// An empty arena (`InFlight::new`: no slot, the free list empty).
impl Default for InFlight {
    fn default() -> Self {
        InFlight::new()
    }
}

impl InFlight {
    pub fn new() -> Self {
        InFlight {
            slots: Vec::new(),
            free: NIL,
        }
    }

    #[inline]
    pub(super) fn take(&mut self, pkt: &Packet) -> u32 {
        let slot = Slot {
            pkt: *pkt,
            next: NIL,
            next_seg: NIL,
            next_key: (SimTime::ZERO, 0),
        };
        if self.free != NIL {
            let i = self.free;
            let s = &mut self.slots[i as usize];
            self.free = s.next;
            *s = slot;
            i
        } else {
            assert!(
                self.slots.len() < NIL as usize,
                "more than 2^32 - 1 packets in flight"
            );
            self.slots.push(slot);
            (self.slots.len() - 1) as u32
        }
    }

    #[inline]
    pub(super) fn give(&mut self, i: u32) {
        self.slots[i as usize].next = self.free;
        self.free = i;
    }
}

/// A link's propagating packets: a list in the `InFlight` arena, oldest first.
#[derive(Clone, Copy, Debug)]
pub(super) struct Propagating {
    head: u32,
    tail: u32,
    /// The tail before the last `push_back` (where `set_key` writes the new tail's key).
    before_tail: u32,
    pub(super) len: u32,
}

impl Propagating {
    pub(super) const EMPTY: Propagating = Propagating {
        head: NIL,
        tail: NIL,
        before_tail: NIL,
        len: 0,
    };

    /// Appends `pkt`; its Deliver key follows (`set_key`).
    #[inline]
    pub(super) fn push_back(&mut self, arena: &mut InFlight, pkt: &Packet) {
        let i = arena.take(pkt);
        if self.tail == NIL {
            self.head = i;
        } else {
            arena.slots[self.tail as usize].next = i;
        }
        self.before_tail = self.tail;
        self.tail = i;
        self.len += 1;
    }

    /// The Deliver key of the packet just appended: kept in the slot ahead of it (with its
    /// segment, if its route ends at `far_end`), or, if it is the only one (true), the
    /// caller's to put in the event queue.
    #[inline]
    pub(super) fn set_key(&mut self, arena: &mut InFlight, key: Key, far_end: NodeId) -> bool {
        if self.len == 1 {
            return true;
        }
        let p = arena.slots[self.tail as usize].pkt;
        let ahead = &mut arena.slots[self.before_tail as usize];
        ahead.next_key = key;
        ahead.next_seg = if p.dst == far_end { p.seg.0 } else { NIL };
        false
    }

    /// Takes the oldest packet off; returns it and the key of the next one's Deliver (with
    /// the next one's segment if it ends its route at this link's far end).
    #[inline]
    pub(super) fn pop_front(&mut self, arena: &mut InFlight) -> Option<(Packet, Option<Key>, Option<SegId>)> {
        if self.head == NIL {
            return None;
        }
        let i = self.head;
        let s = &arena.slots[i as usize];
        let (pkt, next) = (s.pkt, s.next);
        self.head = next;
        self.len -= 1;
        let (next_key, next_seg) = if next == NIL {
            self.tail = NIL;
            (None, None)
        } else {
            // The next packet's slot is this link's next Deliver: fetched now, without
            // waiting for it (its key is at hand in this slot).
            prefetch((&arena.slots[next as usize] as *const Slot).cast());
            (Some(s.next_key), (s.next_seg != NIL).then_some(SegId(s.next_seg)))
        };
        arena.give(i);
        Some((pkt, next_key, next_seg))
    }

    #[inline]
    pub(super) fn back<'a>(&self, arena: &'a InFlight) -> Option<&'a Slot> {
        (self.tail != NIL).then(|| &arena.slots[self.tail as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::segment::Segment;

    fn pkt(flow: u32, seq: u64) -> Packet {
        // The segment's place names the packet (no `Segments` here).
        let seg = Segment::data(seq, 1000, 1040);
        Packet::tcp(flow, 0, 1, &seg, SegId(seq as u32))
    }

    fn key(t: u64, seq: u64) -> Key {
        (SimTime(t), seq)
    }

    /// Two links' lists interleaved in one arena: each comes out in its own order, each
    /// delivery hands over the next packet's key on the same link, and a freed slot is the
    /// next one taken, so the arena holds no more slots than packets were ever in flight at once.
    #[test]
    fn lists_in_one_arena_keep_each_links_order() {
        let mut arena = InFlight::new();
        let (mut a, mut b) = (Propagating::EMPTY, Propagating::EMPTY);
        for i in 0..3u64 {
            a.push_back(&mut arena, &pkt(1, i));
            // The first packet's key is the caller's (the event queue's), the others' are kept.
            assert_eq!(a.set_key(&mut arena, key(10 + i, 2 * i), 9), i == 0);
            b.push_back(&mut arena, &pkt(2, 100 + i));
            // Every packet goes to node 1: b's far end (their segments are handed on), not a's (9).
            assert_eq!(b.set_key(&mut arena, key(20 + i, 2 * i + 1), 1), i == 0);
        }
        assert_eq!((a.len, b.len, arena.slots.len()), (3, 3, 6));
        let (p, next, seg) = a.pop_front(&mut arena).unwrap();
        assert_eq!(
            (p.flow, p.seg.0 as u64, next, seg),
            (1, 0, Some(key(11, 2)), None)
        );
        let (p, next, seg) = b.pop_front(&mut arena).unwrap();
        assert_eq!(
            (p.flow, p.seg.0 as u64, next, seg),
            (2, 100, Some(key(21, 3)), Some(SegId(101)))
        );
        // The two freed slots are taken again before the arena grows.
        a.push_back(&mut arena, &pkt(1, 3));
        assert!(!a.set_key(&mut arena, key(13, 6), 9));
        b.push_back(&mut arena, &pkt(2, 103));
        assert!(!b.set_key(&mut arena, key(23, 7), 1));
        assert_eq!(arena.slots.len(), 6);
        assert_eq!(a.back(&arena).unwrap().pkt.seg.0 as u64, 3);
        let seqs = |l: &mut Propagating, arena: &mut InFlight| {
            std::iter::from_fn(|| l.pop_front(arena).map(|(p, ..)| p.seg.0 as u64)).collect::<Vec<_>>()
        };
        assert_eq!(
            a.pop_front(&mut arena).map(|(p, n, _)| (p.seg.0 as u64, n)),
            Some((1, Some(key(12, 4))))
        );
        assert_eq!(
            a.pop_front(&mut arena).map(|(p, n, _)| (p.seg.0 as u64, n)),
            Some((2, Some(key(13, 6))))
        );
        assert_eq!(seqs(&mut a, &mut arena), vec![3]);
        assert_eq!(seqs(&mut b, &mut arena), vec![101, 102, 103]);
        assert_eq!((a.len, a.head, a.tail), (0, NIL, NIL));
        assert!(a.back(&arena).is_none() && a.pop_front(&mut arena).is_none());
        // Emptied, a list starts again from any free slot.
        b.push_back(&mut arena, &pkt(2, 104));
        assert!(b.set_key(&mut arena, key(24, 8), 1));
        assert_eq!(
            b.pop_front(&mut arena).map(|(p, n, s)| (p.seg.0 as u64, n, s)),
            Some((104, None, None))
        );
        assert_eq!(arena.slots.len(), 6);
    }
}
