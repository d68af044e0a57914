//! What travels on links: a routed packet holding a TCP segment (data or ACK), or a UDP
//! datagram of a background source.

use crate::tcp::segment::{Segment, SegmentKind};
use crate::time::SimTime;

/// Index of a node in the topology's arena.
pub type NodeId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    Data,
    Ack,
    /// A UDP datagram of a background source (`flow` is the source's index in its own table).
    Udp,
}

/// A packet, moved by value: the routing fields the network reads (flow, kind, addresses,
/// size) and the TCP segment it carries, which only endpoints read. A UDP datagram carries a
/// data-kind segment whose `seq` numbers the datagram.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    pub flow: u32,
    pub kind: PacketKind,
    pub src: NodeId,
    pub dst: NodeId,
    /// Bytes on the wire (payload + headers).
    pub size: u32,
    /// When the packet entered the queue of the link it is on (or last was on): stamped by the
    /// link on every enqueue, read by disciplines that measure sojourn time (CoDel, RFC 8289
    /// Sec. 5.4).
    pub enqueued: SimTime,
    pub seg: Segment,
}

impl Packet {
    /// A TCP segment of `flow` routed from `src` to `dst`.
    #[inline]
    pub fn tcp(flow: u32, src: NodeId, dst: NodeId, seg: Segment) -> Packet {
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
            seg,
        }
    }

    /// UDP datagram number `seq` of source `flow`, `size` bytes on the wire.
    pub fn udp(flow: u32, src: NodeId, dst: NodeId, seq: u64, size: u32) -> Packet {
        Packet {
            kind: PacketKind::Udp,
            ..Packet::tcp(flow, src, dst, Segment::data(seq, size, size))
        }
    }
}
