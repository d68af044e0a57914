//! How a simulated packet becomes an Ethernet/IPv4/TCP (or UDP) frame: the addresses, ports
//! and initial sequence numbers of each flow, the options, and the checksums.
//!
//! TCP flow `f` (foreground flows first, then background connections, as in the traces):
//! sender 10.0.0.0 + (f + 1), port 10000 + f mod 50000; receiver 10.128.0.0 + (f + 1), port
//! 5001. UDP source `f`: 10.64.0.0 + (f + 1) port 10000 + f mod 50000 to 10.192.0.0 + (f + 1)
//! port 9. The sender's initial sequence number is [`sender_isn`] (flow 0's wraps past 2^32
//! after 64 KiB, so every capture exercises sequence wrap-around); the stream's byte 0 is
//! ISN + 1, as after a handshake. With `handshake = true` the SYN (sequence number ISN, no ACK
//! flag), the SYN-ACK (the receiver's ISN, ACK of ISN + 1) and the ACK that follows are written
//! with their flags (SYN, ACK; ECN's AE, CWR and ECE as negotiated, `tcp/handshake.rs`) and the
//! SYN options a Linux SYN carries: MSS, SACK-permitted, timestamps if on, window scale 0.

use crate::net::packet::{Packet, PacketKind};
use crate::tcp::accecn::{ace, AccEcnOption, ECT_BYTES_INIT};
use crate::tcp::segment::{Segment, TcpFlags};
use crate::time::SimTime;

/// Ethernet addresses of the sender's and the receiver's side (locally administered).
pub const MAC_SENDER: [u8; 6] = [0x02, 0, 0, 0, 0, 0x01];
pub const MAC_RECEIVER: [u8; 6] = [0x02, 0, 0, 0, 0, 0x02];
pub const RECEIVER_PORT: u16 = 5001;
pub const UDP_PORT: u16 = 9;

/// What the frame of a flow's packets needs beyond the packet itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowWire {
    /// RFC 7323 timestamps option on every segment.
    pub timestamps: bool,
    /// The receiver's window field (the advertised window, at most 65535: the SYNs of a
    /// handshake offer window scale 0, and a capture without one negotiates none).
    pub window: u16,
    /// The MSS option of the SYN and SYN-ACK (`handshake = true`).
    pub mss: u16,
    /// The flow negotiated AccECN: its receiver's ACKs carry the AccECN option
    /// (`tcp/accecn.rs`, kept in their `ts_val`).
    pub accecn: bool,
}

pub fn sender_ip(flow: u32) -> [u8; 4] {
    (0x0A00_0000u32 + flow + 1).to_be_bytes()
}
pub fn receiver_ip(flow: u32) -> [u8; 4] {
    (0x0A80_0000u32 + flow + 1).to_be_bytes()
}
pub fn udp_sender_ip(source: u32) -> [u8; 4] {
    (0x0A40_0000u32 + source + 1).to_be_bytes()
}
pub fn udp_receiver_ip(source: u32) -> [u8; 4] {
    (0x0AC0_0000u32 + source + 1).to_be_bytes()
}
pub fn sender_port(flow: u32) -> u16 {
    10_000 + (flow % 50_000) as u16
}
/// The sender's initial sequence number: 2^32 - 65536 for flow 0, spread for the others.
pub fn sender_isn(flow: u32) -> u32 {
    0xFFFF_0000u32.wrapping_add(flow.wrapping_mul(0x9E37_79B9))
}
/// The receiver's initial sequence number.
pub fn receiver_isn(flow: u32) -> u32 {
    sender_isn(flow) ^ 0x8000_0000
}

/// Timestamp option clock: one tick per microsecond of simulated time.
pub fn ts_ticks(t: SimTime) -> u32 {
    (t.ns() / 1_000) as u32
}

/// The Internet checksum (RFC 1071) of `data`, continuing from `sum`.
fn sum16(mut sum: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [b] = chunks.remainder() {
        sum += (*b as u32) << 8;
    }
    sum
}

fn fold(mut sum: u32) -> u16 {
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

/// The frame of `p` at time `now` (Ethernet, IPv4, then TCP with its options or UDP), with a
/// zero payload, written to `out` (cleared first). Returns the frame's full length; `out`
/// holds at most `snap` bytes of it.
pub fn encode(
    p: &Packet,
    s: &Segment,
    wire: FlowWire,
    now: SimTime,
    ip_id: u16,
    snap: usize,
    out: &mut Vec<u8>,
) -> usize {
    out.clear();
    let (src_mac, dst_mac) = match p.kind {
        PacketKind::Ack => (MAC_RECEIVER, MAC_SENDER),
        _ => (MAC_SENDER, MAC_RECEIVER),
    };
    out.extend_from_slice(&dst_mac);
    out.extend_from_slice(&src_mac);
    out.extend_from_slice(&0x0800u16.to_be_bytes());
    let ip_at = out.len();
    let (proto, src, dst, l4) = match p.kind {
        PacketKind::Udp => (
            17u8,
            udp_sender_ip(p.flow),
            udp_receiver_ip(p.flow),
            udp_header(p),
        ),
        PacketKind::Data => (
            6u8,
            sender_ip(p.flow),
            receiver_ip(p.flow),
            tcp_header(p, s, wire, now),
        ),
        PacketKind::Ack => (
            6u8,
            receiver_ip(p.flow),
            sender_ip(p.flow),
            tcp_header(p, s, wire, now),
        ),
    };
    let (l4_bytes, l4_len) = l4;
    let payload = match p.kind {
        PacketKind::Udp => p.size.saturating_sub(28) as usize,
        _ => s.len as usize,
    };
    let total = 20 + l4_len + payload;
    // TOS: DSCP 0 and the ECN field as the packet is at the capture point (RFC 3168 Sec. 5):
    // the sender's codepoint, CE after a queue that marked it.
    out.extend_from_slice(&[0x45, p.ecn.bits()]);
    out.extend_from_slice(&(total as u16).to_be_bytes());
    out.extend_from_slice(&ip_id.to_be_bytes());
    out.extend_from_slice(&0x4000u16.to_be_bytes()); // don't fragment
    out.extend_from_slice(&[64, proto, 0, 0]);
    out.extend_from_slice(&src);
    out.extend_from_slice(&dst);
    let ip_sum = fold(sum16(0, &out[ip_at..ip_at + 20]));
    out[ip_at + 10..ip_at + 12].copy_from_slice(&ip_sum.to_be_bytes());
    // Pseudo-header + L4 header; the zero payload adds nothing to the sum.
    let l4_at = out.len();
    out.extend_from_slice(&l4_bytes[..l4_len]);
    let mut sum = sum16(0, &src);
    sum = sum16(sum, &dst);
    sum += proto as u32 + (l4_len + payload) as u32;
    sum = sum16(sum, &out[l4_at..]);
    let mut ck = fold(sum);
    let ck_at = if proto == 6 { l4_at + 16 } else { l4_at + 6 };
    if proto == 17 && ck == 0 {
        ck = 0xFFFF; // RFC 768: a computed zero is sent as all ones
    }
    out[ck_at..ck_at + 2].copy_from_slice(&ck.to_be_bytes());
    let frame = out.len() + payload;
    let keep = frame.min(snap);
    if keep > out.len() {
        out.resize(keep, 0);
    } else {
        out.truncate(keep);
    }
    frame
}

/// The TCP header with options (checksum zero), and its length.
fn tcp_header(p: &Packet, s: &Segment, wire: FlowWire, now: SimTime) -> ([u8; 60], usize) {
    let f = p.flow;
    // A SYN occupies the sequence number before the stream's byte 0 (RFC 9293 Sec. 3.4).
    let syn = s.flags.has(TcpFlags::SYN);
    let (sport, dport, seq, ack) = match p.kind {
        PacketKind::Ack => (
            RECEIVER_PORT,
            sender_port(f),
            receiver_isn(f).wrapping_add(u32::from(!syn)),
            sender_isn(f).wrapping_add(1).wrapping_add(s.ack as u32),
        ),
        _ if syn => (sender_port(f), RECEIVER_PORT, sender_isn(f), 0),
        _ => (
            sender_port(f),
            RECEIVER_PORT,
            sender_isn(f).wrapping_add(1).wrapping_add(s.seq as u32),
            receiver_isn(f).wrapping_add(1),
        ),
    };
    let mut h = [0u8; 60];
    h[0..2].copy_from_slice(&sport.to_be_bytes());
    h[2..4].copy_from_slice(&dport.to_be_bytes());
    h[4..8].copy_from_slice(&seq.to_be_bytes());
    h[8..12].copy_from_slice(&ack.to_be_bytes());
    let push = p.kind == PacketKind::Data && s.len > 0;
    // ACK (but not on the sender's SYN), SYN, PSH on data, with the segment's CWR and ECE
    // (RFC 3168 Sec. 6.1: bits 0x80 and 0x40 of byte 13)...
    let ack_flag = !(syn && p.kind != PacketKind::Ack);
    h[13] = if ack_flag { 0x10 } else { 0 }
        | if syn { 0x02 } else { 0 }
        | if push { 0x08 } else { 0 }
        | (s.flags.0 & (TcpFlags::CWR | TcpFlags::ECE));
    let window = if p.kind == PacketKind::Ack {
        wire.window
    } else {
        u16::MAX
    };
    h[14..16].copy_from_slice(&window.to_be_bytes());
    let mut n = 20;
    if syn {
        // MSS (kind 2), then SACK-permitted (kind 4) before the timestamps, else padded by
        // two NOPs; window scale 0 (kind 3) last, after a NOP (Linux's SYN order).
        h[n..n + 4].copy_from_slice(&[2, 4, (wire.mss >> 8) as u8, wire.mss as u8]);
        n += 4;
        if !wire.timestamps {
            h[n..n + 4].copy_from_slice(&[1, 1, 4, 2]);
            n += 4;
        } else {
            h[n..n + 2].copy_from_slice(&[4, 2]);
            n += 2;
        }
    }
    if wire.timestamps {
        let tsval = match p.kind {
            // The receiver's ACKs carry no clock of their own in the simulator: the capture
            // time stands for it.
            PacketKind::Ack => ts_ticks(now),
            _ => ts_ticks(s.ts_val),
        };
        let tsecr = if p.kind == PacketKind::Ack {
            ts_ticks(s.ts_ecr)
        } else {
            0
        };
        if syn {
            h[n..n + 2].copy_from_slice(&[8, 10]);
            h[n + 2..n + 6].copy_from_slice(&tsval.to_be_bytes());
            h[n + 6..n + 10].copy_from_slice(&tsecr.to_be_bytes());
            n += 10;
        } else {
            h[n..n + 4].copy_from_slice(&[1, 1, 8, 10]);
            h[n + 4..n + 8].copy_from_slice(&tsval.to_be_bytes());
            h[n + 8..n + 12].copy_from_slice(&tsecr.to_be_bytes());
            n += 12;
        }
    }
    if syn {
        h[n..n + 4].copy_from_slice(&[1, 3, 3, 0]);
        n += 4;
    }
    if p.kind == PacketKind::Ack && !s.sack.is_empty() {
        let blocks = s.sack.n as usize;
        h[n..n + 4].copy_from_slice(&[1, 1, 5, 2 + 8 * blocks as u8]);
        n += 4;
        let base = sender_isn(f).wrapping_add(1);
        for (start, end) in s.sack.iter(s.ack) {
            h[n..n + 4].copy_from_slice(&base.wrapping_add(start as u32).to_be_bytes());
            h[n + 4..n + 8].copy_from_slice(&base.wrapping_add(end as u32).to_be_bytes());
            n += 8;
        }
    }
    if let Some(o) = accecn_option(p, s, wire) {
        n = write_accecn(&mut h, n, o);
    }
    // ...and AE, the low bit of byte 12 (RFC 9768 Sec. 3.2.2: formerly NS).
    h[12] = ((n / 4) as u8) << 4 | (s.flags.0 & TcpFlags::AE);
    (h, n)
}

/// The AccECN option a segment carries on the wire, if any: the receiver's ACKs of an AccECN
/// flow, as the simulator stamped them (`AccEcnReceiver::stamp`); and an AccECN SYN-ACK (its
/// ECN bits one of RFC 9768 Table 3's codes), which carries the counters' initial values with
/// all three fields (Sec. 3.2.3.2.1: the server SHOULD include it; the 12 bytes the simulator
/// counts in its size, `tcp/handshake.rs`).
fn accecn_option(p: &Packet, s: &Segment, wire: FlowWire) -> Option<AccEcnOption> {
    if p.kind != PacketKind::Ack || !wire.accecn {
        return None;
    }
    if s.flags.has(TcpFlags::SYN) {
        return (ace(s.flags) > 1).then_some(AccEcnOption {
            fields: 3,
            order1: false,
            first: ECT_BYTES_INIT,
            ceb: 0,
        });
    }
    let o = AccEcnOption::decode(s.ts_val.ns());
    (o.fields > 0).then_some(o)
}

/// Writes `o` at `n` (RFC 9768 Sec. 3.2.3, Figure 4): kind 172 (order 0: EE0B, ECEB, EE1B)
/// or 174 (order 1: EE1B, ECEB, EE0B), length 2 + 3 per field, led by NOPs to its padded size.
/// The third field, the counter of the codepoint the flow does not send, holds its initial
/// value 1 (nothing in the network re-marks ECT(0) to ECT(1) or back). Returns the new end.
fn write_accecn(h: &mut [u8; 60], mut n: usize, o: AccEcnOption) -> usize {
    let len = 2 + 3 * o.fields as usize;
    for _ in len..o.wire_bytes() as usize {
        h[n] = 1;
        n += 1;
    }
    h[n] = if o.order1 { 174 } else { 172 };
    h[n + 1] = len as u8;
    n += 2;
    for v in [o.first, o.ceb, ECT_BYTES_INIT]
        .into_iter()
        .take(o.fields as usize)
    {
        h[n..n + 3].copy_from_slice(&v.to_be_bytes()[1..]);
        n += 3;
    }
    n
}

fn udp_header(p: &Packet) -> ([u8; 60], usize) {
    let mut h = [0u8; 60];
    let len = 8 + p.size.saturating_sub(28) as u16;
    h[0..2].copy_from_slice(&sender_port(p.flow).to_be_bytes());
    h[2..4].copy_from_slice(&UDP_PORT.to_be_bytes());
    h[4..6].copy_from_slice(&len.to_be_bytes());
    (h, 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::SegId;
    use crate::tcp::segment::SackBlocks;

    #[test]
    fn a_data_segment_of_flow_0_is_the_expected_bytes() {
        let seg = Segment {
            ts_val: SimTime(2_500_000),
            ..Segment::data(1000, 100, 152)
        };
        let p = Packet::tcp(0, 0, 1, &seg, SegId(0));
        let mut out = Vec::new();
        let wire = FlowWire {
            mss: 1448,
            timestamps: true,
            window: 65535,
            accecn: false,
        };
        let n = encode(&p, &seg, wire, SimTime(3_000_000), 7, 65535, &mut out);
        assert_eq!(n, 14 + 20 + 32 + 100);
        assert_eq!(out.len(), n);
        // IPv4: total length 152 (the simulated size with timestamps), id 7, 10.0.0.1 -> 10.128.0.1.
        assert_eq!(&out[14..20], &[0x45, 0, 0, 152, 0, 7]);
        assert_eq!(&out[26..34], &[10, 0, 0, 1, 10, 128, 0, 1]);
        // TCP: ports 10000 -> 5001, seq = 0xFFFF0000 + 1 + 1000, data offset 8 words, ACK|PSH.
        assert_eq!(&out[34..38], &[0x27, 0x10, 0x13, 0x89]);
        assert_eq!(u32::from_be_bytes(out[38..42].try_into().unwrap()), 0xFFFF_03E9);
        assert_eq!((out[46], out[47]), (0x80, 0x18));
        // Timestamps: TSval 2500 us, TSecr 0.
        assert_eq!(&out[54..58], &[1, 1, 8, 10]);
        assert_eq!(u32::from_be_bytes(out[58..62].try_into().unwrap()), 2500);
        // Both checksums verify: the one's-complement sum over the covered bytes is 0xFFFF.
        assert_eq!(fold(sum16(0, &out[14..34])), 0);
        let mut s = sum16(0, &out[26..34]);
        s += 6 + (n - 34) as u32;
        assert_eq!(fold(sum16(s, &out[34..])), 0);
    }

    #[test]
    fn an_ack_carries_sack_blocks_in_wire_sequence_numbers_and_snap_cuts_the_frame() {
        let mut blocks = SackBlocks::default().blocks;
        blocks[0] = (1000, 2000);
        blocks[1] = (3000, 4000);
        let sack = SackBlocks {
            n: 2,
            blocks,
            ..SackBlocks::default()
        };
        let seg = Segment {
            sack,
            ts_ecr: SimTime(1_000),
            ..Segment::ack(70_000, 40 + 20)
        };
        let p = Packet::tcp(0, 1, 0, &seg, SegId(0));
        let mut out = Vec::new();
        let wire = FlowWire {
            mss: 1448,
            timestamps: false,
            window: 4096,
            accecn: false,
        };
        let n = encode(&p, &seg, wire, SimTime(5_000), 1, 54, &mut out);
        assert_eq!(n, 14 + 20 + 20 + 20);
        assert_eq!(out.len(), 54, "cut to the snap length");
        let mut full = Vec::new();
        encode(&p, &seg, wire, SimTime(5_000), 1, 65535, &mut full);
        // ack = ISN + 1 + 70000 wraps: 0xFFFF0000 + 70001 = 0x00001171.
        assert_eq!(u32::from_be_bytes(full[42..46].try_into().unwrap()), 0x0000_1171);
        assert_eq!(&full[54..58], &[1, 1, 5, 18]);
        let first = u32::from_be_bytes(full[58..62].try_into().unwrap());
        assert_eq!(first, 0xFFFF_0001u32.wrapping_add(71_000));
        assert_eq!(u16::from_be_bytes([full[48], full[49]]), 4096);
    }

    /// An AccECN receiver's ACKs as `tcp/ecn.rs` sizes them (the header, the timestamps, the
    /// SACK blocks and the option `AccEcnReceiver::stamp` fitted): the frame's IP length is the
    /// simulated size, and the option is RFC 9768 Figure 4's, led by NOPs to its padded size.
    #[test]
    fn an_accecn_ack_carries_its_option_and_the_simulated_size() {
        use crate::tcp::accecn::AccEcnReceiver;
        let wire = FlowWire {
            mss: 1448,
            timestamps: true,
            window: 65535,
            accecn: true,
        };
        let mut rx = AccEcnReceiver::new(true, true);
        let mut ce = Segment::data(0, 1000, 1052);
        ce.ecn = crate::net::packet::Ecn::Ce;
        rx.on_data(&ce);
        // No SACK block: three fields (11 bytes + 1 NOP); two blocks: two fields (8 bytes).
        for (blocks, option) in [
            (0u64, vec![1u8, 174, 11, 0, 0, 1, 0, 3, 0xE8, 0, 0, 1]),
            (2, vec![174, 8, 0, 0, 1, 0, 3, 0xE8]),
        ] {
            let mut sack = SackBlocks::default();
            for b in 0..blocks as usize {
                sack.blocks[b] = (4000 + 2000 * b as u32, 5000 + 2000 * b as u32);
            }
            sack.n = blocks as u8;
            let mut ack = Segment {
                sack,
                ..Segment::ack(1000, 52)
            };
            let sack_bytes = ack.sack.option_bytes();
            ack.size += sack_bytes;
            ack.size += rx.stamp(&mut ack, sack_bytes);
            let p = Packet::tcp(0, 1, 0, &ack, SegId(0));
            let mut out = Vec::new();
            let n = encode(&p, &ack, wire, SimTime(1_000), 1, 65535, &mut out);
            assert_eq!(n, 14 + ack.size as usize, "{blocks} blocks");
            assert_eq!(u16::from_be_bytes([out[16], out[17]]) as u32, ack.size);
            assert_eq!(&out[n - option.len()..], &option[..], "{blocks} blocks");
            // ACE: r.cep 6 = (AE, CWR, ECE) (1, 1, 0).
            assert_eq!((out[46] & 1, out[47] & 0xC0), (1, 0x80));
        }
    }

    #[test]
    fn the_ecn_field_is_the_packets_codepoint_and_cwr_ece_ae_are_the_segments_flags() {
        use crate::net::packet::Ecn;
        let wire = FlowWire {
            mss: 1448,
            timestamps: true,
            window: 65535,
            accecn: false,
        };
        let mut seg = Segment {
            ts_val: SimTime(2_500_000),
            ecn: Ecn::Ect0,
            ..Segment::data(1000, 100, 152)
        };
        seg.flags.set(TcpFlags::CWR, true);
        let mut p = Packet::tcp(0, 0, 1, &seg, SegId(0));
        let mut out = Vec::new();
        encode(&p, &seg, wire, SimTime(3_000_000), 7, 65535, &mut out);
        // IPv4 TOS 0x02: ECT(0) (RFC 3168 Sec. 5); header checksum 0x25d6 (0x25d8 with TOS 0,
        // the frame of the first test).
        assert_eq!(&out[14..16], &[0x45, 0x02]);
        assert_eq!(&out[24..26], &[0x25, 0xd6]);
        // TCP byte 13: CWR|ACK|PSH; byte 12: 8 words, AE clear.
        assert_eq!((out[46], out[47]), (0x80, 0x98));
        // The same packet after a queue marked it: CE, and the checksum follows.
        p.ecn = Ecn::Ce;
        encode(&p, &seg, wire, SimTime(3_000_000), 7, 65535, &mut out);
        assert_eq!(&out[14..16], &[0x45, 0x03]);
        assert_eq!(&out[24..26], &[0x25, 0xd5]);
        assert_eq!(fold(sum16(0, &out[14..34])), 0);
        // The TCP checksum does not cover the IP ECN field, but does cover the flags.
        let tcp_ck = |f: &[u8]| [f[50], f[51]];
        let marked = tcp_ck(&out);
        p.ecn = Ecn::Ect1;
        encode(&p, &seg, wire, SimTime(3_000_000), 7, 65535, &mut out);
        assert_eq!(out[15], 0x01, "ECT(1)");
        assert_eq!(tcp_ck(&out), marked);
        // An ACK with ECE and AE (RFC 9768's ACE bits 0b101), not ECN-capable itself.
        let mut ack = Segment::ack(70_000, 40);
        ack.flags.set(TcpFlags::ECE, true);
        ack.flags.set(TcpFlags::AE, true);
        let p = Packet::tcp(0, 1, 0, &ack, SegId(0));
        let wire = FlowWire {
            mss: 1448,
            timestamps: false,
            window: 4096,
            accecn: false,
        };
        encode(&p, &ack, wire, SimTime(5_000), 1, 65535, &mut out);
        assert_eq!(out[15], 0x00, "Not-ECT");
        assert_eq!((out[46], out[47]), (0x51, 0x50), "5 words | AE; ECE|ACK");
        let mut s = sum16(0, &out[26..34]);
        s += 6 + (out.len() - 34) as u32;
        assert_eq!(fold(sum16(s, &out[34..])), 0, "the TCP checksum covers the flags");
    }
}
