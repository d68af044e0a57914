//! A TCP segment: what an endpoint sends and receives. The network does not read it; it
//! carries it inside a routed `net::packet::Packet`, so the same endpoints can be driven by
//! the simulator, a scripted test or (later) an emulator carrying real bytes.

use crate::net::packet::Ecn;
use crate::time::SimTime;

/// Up to four SACK blocks (RFC 2018), stored as [start, end) offsets above the cumulative
/// ACK so a segment stays small. Block 0 is the most recent (RFC 2018 Sec. 4), or, with
/// `dsack`, a D-SACK block (RFC 2883 Sec. 4): the duplicate data the receiver just got, which
/// may lie below the cumulative ACK, so its offsets are read as signed (wrapping) 32-bit
/// numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub n: u8,
    /// Block 0 reports a duplicate (RFC 2883 D-SACK).
    pub dsack: bool,
    pub blocks: [(u32, u32); 4],
}

impl SackBlocks {
    /// The blocks as absolute [start, end) sequence ranges.
    pub fn iter(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        let dsack = self.dsack;
        self.blocks[..self.n as usize]
            .iter()
            .enumerate()
            .map(move |(i, &(s, e))| {
                if i == 0 && dsack {
                    let at = |o: u32| ack.wrapping_add(o as i32 as i64 as u64);
                    (at(s), at(e))
                } else {
                    (ack + s as u64, ack + e as u64)
                }
            })
    }

    /// The D-SACK block (RFC 2883), if block 0 is one, as an absolute [start, end) range.
    pub fn dsack_block(&self, ack: u64) -> Option<(u64, u64)> {
        if self.dsack && self.n > 0 {
            self.iter(ack).next()
        } else {
            None
        }
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

/// The TCP header's ECN flags (RFC 3168 Sec. 6.1; RFC 9768 reads ECE, CWR and AE together as
/// the ACE counter), one bit each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    /// ECN-Echo: the receiver saw CE (RFC 3168 Sec. 6.1.3).
    pub const ECE: u8 = 0x40;
    /// Congestion Window Reduced: the sender reduced for an ECE (RFC 3168 Sec. 6.1.2).
    pub const CWR: u8 = 0x80;
    /// SYN: the handshake's first two segments (RFC 9293 Sec. 3.1; `tcp/handshake.rs`).
    pub const SYN: u8 = 0x02;
    /// Accurate ECN's third counter bit (RFC 9768 Sec. 3.2.2; bit 7 of TCP header byte 12).
    pub const AE: u8 = 0x01;

    pub fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    pub fn set(&mut self, bit: u8, on: bool) {
        if on {
            self.0 |= bit;
        } else {
            self.0 &= !bit;
        }
    }
}

/// Which way a segment goes on a one-way connection: data from the sender, or a pure ACK from
/// the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    Data,
    Ack,
}

/// One TCP segment. Sequence numbers are byte offsets from the start of the stream (64-bit,
/// so they never wrap); the `ns2` agents number packets instead (see `tcp/ns2/mod.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub kind: SegmentKind,
    /// First payload byte (data); unused by the native receiver's ACKs.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Bytes on the wire: payload, TCP/IP headers and options (the IP datagram's length).
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
    /// The IP ECN field: as the endpoint sends it, and as it arrived at the peer (the world
    /// copies the packet's codepoint, CE if a queue marked it, back on delivery).
    pub ecn: Ecn,
    /// ECE, CWR (and AE) of the TCP header.
    pub flags: TcpFlags,
}

impl Segment {
    /// A data segment of `len` payload bytes at `seq`, `size` bytes on the wire.
    pub fn data(seq: u64, len: u32, size: u32) -> Segment {
        Segment {
            kind: SegmentKind::Data,
            seq,
            len,
            size,
            ack: 0,
            ts_val: SimTime::ZERO,
            ts_ecr: SimTime::ZERO,
            retransmit: false,
            sack: SackBlocks::default(),
            ecn: Ecn::NotEct,
            flags: TcpFlags::default(),
        }
    }

    /// A pure ACK of `ack`, `size` bytes on the wire.
    pub fn ack(ack: u64, size: u32) -> Segment {
        Segment {
            kind: SegmentKind::Ack,
            ack,
            ..Segment::data(0, 0, size)
        }
    }

    /// End of the payload: one past the last byte.
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}
