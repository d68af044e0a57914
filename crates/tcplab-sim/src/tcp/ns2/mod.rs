//! The `ns2` compatibility profile: a model of ns-2's one-way TCP agents (`Agent/TCP`,
//! `TCP/Reno`, `TCP/Newreno`, `TCP/Sack1`) and sinks (`TCPSink`, `TCPSink/Sack1`) in packet
//! units, written from ns-2's documented behaviour (see docs/ns2-profile.md).
//!
//! Separate from the native byte-based senders on purpose: ns-2 numbers packets, keeps cwnd
//! as a float in packets and uses int() for the usable window, acknowledges "the highest
//! packet received in order" (ACK 0 acknowledges the SYN), measures RTT on a 10 ms clock of
//! a given phase with BSD fixed point, and has its own halving and burst rules. None of
//! that should leak into the RFC senders.
//!
//! Packets: `seq` is the packet number (0 is the 40-byte SYN), `len` 1000 / `size` 1040 for
//! data; ACKs carry the ns-2 ACK number in both `seq` and `ack`, 40 bytes plus 8 per SACK
//! block. SACK blocks are [left, right) packet ranges stored as offsets from `ack`
//! (wrapping, since ns-2's sink can report blocks below the cumulative ACK).

pub mod agent;
mod ecn;
mod fack;
mod sack1;
pub mod sink;
mod timer;

pub use agent::{Ns2Sender, Ns2Variant};
pub use sink::Ns2Sink;

use crate::tcp::segment::SackBlocks;

/// Encodes ns-2 SACK blocks [l, r) relative to the ACK number.
pub(crate) fn encode_blocks(ack: i64, blocks: &[(i64, i64)]) -> SackBlocks {
    let mut s = SackBlocks::default();
    for (i, &(l, r)) in blocks.iter().take(4).enumerate() {
        s.blocks[i] = ((l - ack) as i32 as u32, (r - ack) as i32 as u32);
        s.n += 1;
    }
    s
}

/// Decodes the blocks of an ns-2 ACK.
pub(crate) fn decode_blocks(ack: i64, s: &SackBlocks) -> Vec<(i64, i64)> {
    s.blocks[..s.n as usize]
        .iter()
        .map(|&(l, r)| (ack + l as i32 as i64, ack + r as i32 as i64))
        .collect()
}
