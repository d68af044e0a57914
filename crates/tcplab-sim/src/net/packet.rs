//! What travels on links: TCP data segments and ACKs, and UDP datagrams.

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

/// A packet, moved by value. Sequence numbers are byte offsets from the start of the stream
/// (64-bit, so they never wrap). `size` is what occupies the wire: payload plus headers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    pub flow: u32,
    pub kind: PacketKind,
    pub src: NodeId,
    pub dst: NodeId,
    /// First payload byte (data) — for ACKs, unused.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Bytes on the wire (payload + headers).
    pub size: u32,
    /// Cumulative ACK: the next byte the receiver expects (ACKs only).
    pub ack: u64,
    /// Timestamp value (RFC 7323 TSval): the sender's clock when the segment left.
    pub ts_val: SimTime,
    /// Timestamp echo (RFC 7323 TSecr), carried by ACKs.
    pub ts_ecr: SimTime,
    /// True for a data segment that repeats bytes sent before (instrumentation only).
    pub retransmit: bool,
}

impl Packet {
    /// End of the payload: one past the last byte.
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}
