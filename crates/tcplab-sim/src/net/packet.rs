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

/// Up to four SACK blocks (RFC 2018), stored as [start, end) offsets above the cumulative
/// ACK so a packet stays small. Block 0 is the most recent (RFC 2018 Sec. 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub n: u8,
    pub blocks: [(u32, u32); 4],
}

impl SackBlocks {
    /// The blocks as absolute [start, end) sequence ranges.
    pub fn iter(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.blocks[..self.n as usize]
            .iter()
            .map(move |&(s, e)| (ack + s as u64, ack + e as u64))
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Bytes of TCP option on the wire: kind, length, 8 per block, padded to 4 by NOPs.
    pub fn option_bytes(&self) -> u32 {
        if self.n == 0 {
            0
        } else {
            (2 + 8 * self.n as u32).div_ceil(4) * 4
        }
    }
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
    /// SACK blocks carried by an ACK.
    pub sack: SackBlocks,
    /// When the packet entered the queue of the link it is on (or last was on): stamped by the
    /// link on every enqueue, read by disciplines that measure sojourn time (CoDel, RFC 8289
    /// Sec. 5.4).
    pub enqueued: SimTime,
}

impl Packet {
    /// A packet with these addresses and sizes, and no ACK, timestamps or SACK blocks: the
    /// one constructor; endpoints fill in the rest with struct-update syntax.
    pub fn new(
        flow: u32,
        kind: PacketKind,
        src: NodeId,
        dst: NodeId,
        seq: u64,
        len: u32,
        size: u32,
    ) -> Packet {
        Packet {
            flow,
            kind,
            src,
            dst,
            seq,
            len,
            size,
            ack: 0,
            ts_val: SimTime::ZERO,
            ts_ecr: SimTime::ZERO,
            retransmit: false,
            sack: SackBlocks::default(),
            enqueued: SimTime::ZERO,
        }
    }

    /// End of the payload: one past the last byte.
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}
