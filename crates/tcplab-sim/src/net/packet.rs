//! What travels on links: a routed packet holding a TCP segment (data or ACK), or a UDP
//! datagram of a background source.

use crate::tcp::segment::{Segment, SegmentKind};
use crate::time::SimTime;

/// The IP header's ECN field (RFC 3168 Sec. 5), with its wire values: what a sender marks
/// (ECT(0) for classic ECN, ECT(1) for L4S, RFC 9331) and what a queue may turn into CE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable transport: a queue can only drop it.
    #[default]
    NotEct = 0b00,
    /// ECN-capable, the L4S identifier (RFC 9331 Sec. 5.1).
    Ect1 = 0b01,
    /// ECN-capable, classic (RFC 3168).
    Ect0 = 0b10,
    /// Congestion Experienced: set by a queue instead of a drop.
    Ce = 0b11,
}

impl Ecn {
    /// The codepoint of the two ECN bits of the IP header's TOS / traffic-class byte.
    pub fn from_bits(bits: u8) -> Ecn {
        match bits & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    /// The two bits as they are on the wire.
    pub fn bits(self) -> u8 {
        self as u8
    }

    /// ECN-capable: a queue may mark it CE instead of dropping it (RFC 3168 Sec. 5: ECT(0),
    /// ECT(1), and CE, which stays CE).
    pub fn is_capable(self) -> bool {
        self != Ecn::NotEct
    }
}

/// Index of a node in the topology's arena.
pub type NodeId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    Data,
    Ack,
    /// A UDP datagram of a background source (`flow` is the source's index in its own table).
    Udp,
}

/// Where a packet's segment is kept: an index into the simulation's `Segments`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SegId(pub u32);

/// A packet, copied hop by hop: the routing fields the network reads (flow, kind, addresses,
/// size, the time it was queued) and where its TCP segment is kept (`seg`), which only the
/// endpoints, the traces and the captures read. A UDP datagram's segment is a data-kind
/// segment whose `seq` numbers the datagram.
///
/// The segment (80 bytes) stays in one place for the packet's whole life instead of being
/// copied with it: a packet is 32 bytes, so a propagating packet with its Deliver key fits in
/// one cache line, and a queue of packets is a quarter of the size (bench/README.md,
/// "2026-11-27, d7a0a86"). A packet owns its segment: whoever ends its life (an endpoint's delivery, a drop, a
/// loss) releases it (`Segments::release`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    /// When the packet entered the queue of the link it is on (or last was on): stamped by the
    /// link on every enqueue, read by disciplines that measure sojourn time (CoDel, RFC 8289
    /// Sec. 5.4).
    pub enqueued: SimTime,
    pub flow: u32,
    pub src: NodeId,
    pub dst: NodeId,
    /// Bytes on the wire (payload + headers).
    pub size: u32,
    pub seg: SegId,
    pub kind: PacketKind,
    /// The IP ECN field as the packet travels: the sender's codepoint (`Segment::ecn`), made
    /// CE by a queue that marks it. The receiving endpoint reads it from its segment, where
    /// the world writes it on delivery (`Segments::set_ecn`, in `sim/dispatch.rs`).
    pub ecn: Ecn,
}

impl Packet {
    /// A packet of `flow` routed from `src` to `dst` carrying `seg` (kept at `id`).
    #[inline]
    pub fn tcp(flow: u32, src: NodeId, dst: NodeId, seg: &Segment, id: SegId) -> Packet {
        Packet {
            flow,
            kind: match seg.kind {
                SegmentKind::Data => PacketKind::Data,
                SegmentKind::Ack => PacketKind::Ack,
            },
            src,
            dst,
            size: seg.size,
            enqueued: SimTime::ZERO,
            seg: id,
            ecn: seg.ecn,
        }
    }
}

/// The segments of the packets alive in a simulation, each kept in one place from the moment
/// its packet is made to the moment it is delivered or dropped. A released place is the next
/// one taken (likely still in cache).
#[derive(Debug, Default)]
pub struct Segments {
    segs: Vec<Segment>,
    free: Vec<u32>,
    /// Which places are taken (debug builds: a release of a free place is a bug).
    #[cfg(debug_assertions)]
    taken: Vec<bool>,
}

impl Segments {
    pub fn new() -> Self {
        Segments::default()
    }

    /// Keeps `seg`; where it is kept.
    #[inline]
    pub fn put(&mut self, seg: Segment) -> SegId {
        match self.free.pop() {
            Some(i) => {
                self.segs[i as usize] = seg;
                #[cfg(debug_assertions)]
                {
                    self.taken[i as usize] = true;
                }
                SegId(i)
            }
            None => {
                assert!(
                    self.segs.len() < u32::MAX as usize,
                    "more than 2^32 - 1 packets alive"
                );
                self.segs.push(seg);
                #[cfg(debug_assertions)]
                self.taken.push(true);
                SegId((self.segs.len() - 1) as u32)
            }
        }
    }

    /// A packet of `flow` from `src` to `dst` carrying `seg`, which is kept here until the
    /// packet's life ends.
    #[inline]
    pub fn packet(&mut self, flow: u32, src: NodeId, dst: NodeId, seg: Segment) -> Packet {
        let id = self.put(seg);
        Packet::tcp(flow, src, dst, &seg, id)
    }

    /// UDP datagram number `seq` of source `flow`, `size` bytes on the wire, sent at `now`.
    pub fn udp(&mut self, flow: u32, src: NodeId, dst: NodeId, seq: u64, size: u32, now: SimTime) -> Packet {
        let seg = Segment {
            ts_val: now,
            ..Segment::data(seq, size, size)
        };
        Packet {
            kind: PacketKind::Udp,
            ..self.packet(flow, src, dst, seg)
        }
    }

    #[inline]
    pub fn get(&self, id: SegId) -> &Segment {
        #[cfg(debug_assertions)]
        assert!(
            self.taken[id.0 as usize],
            "segment {} read after its release",
            id.0
        );
        &self.segs[id.0 as usize]
    }

    /// Sets the IP ECN field of `id`'s segment: the codepoint its packet arrived with, which
    /// the receiving endpoint reads (a queue marks the packet, not the segment).
    #[inline]
    pub fn set_ecn(&mut self, id: SegId, ecn: Ecn) {
        #[cfg(debug_assertions)]
        assert!(
            self.taken[id.0 as usize],
            "segment {} written after its release",
            id.0
        );
        self.segs[id.0 as usize].ecn = ecn;
    }

    /// Asks for `id`'s segment to be brought into the cache ahead of its reading.
    #[inline]
    pub fn prefetch(&self, id: SegId) {
        if let Some(s) = self.segs.get(id.0 as usize) {
            // A segment is 80 bytes: its first and its last byte's lines.
            let p = (s as *const Segment).cast::<u8>();
            crate::net::link::prefetch(p);
            crate::net::link::prefetch(p.wrapping_add(std::mem::size_of::<Segment>() - 1));
        }
    }

    /// The packet's life has ended: its place is free.
    #[inline]
    pub fn release(&mut self, id: SegId) {
        #[cfg(debug_assertions)]
        {
            let t = &mut self.taken[id.0 as usize];
            assert!(*t, "segment {} released twice", id.0);
            *t = false;
        }
        self.free.push(id.0);
    }

    /// Segments kept now: one per packet alive (queued, on the wire, propagating).
    pub fn live(&self) -> usize {
        self.segs.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_is_32_bytes_and_a_segment_80() {
        // The layout the link's arena and the prefetches are sized for (see `Packet`).
        assert_eq!(std::mem::size_of::<Packet>(), 32);
        assert_eq!(std::mem::size_of::<Segment>(), 80);
    }

    #[test]
    fn ecn_codepoints_are_the_wire_bits() {
        for bits in 0..4u8 {
            assert_eq!(Ecn::from_bits(bits).bits(), bits);
        }
        assert_eq!(Ecn::Ect0.bits(), 0b10, "RFC 3168 Sec. 5: ECT(0) is 10");
        assert_eq!(Ecn::Ect1.bits(), 0b01);
        assert!(Ecn::Ce.is_capable() && Ecn::Ect1.is_capable() && !Ecn::NotEct.is_capable());
    }
}
