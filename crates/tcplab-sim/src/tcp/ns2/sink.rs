//! ns-2's one-way sinks: `TCPSink` (one ACK per arriving packet, ACK number = highest packet
//! received in order) and `TCPSink/Sack1` (plus up to three SACK blocks: the block holding
//! the packet just received, then the remembered earlier blocks, newest first).

use super::encode_blocks;
use crate::net::packet::Ecn;
use crate::tcp::segment::{Segment, TcpFlags};
use crate::time::SimTime;
use std::collections::BTreeSet;

pub struct Ns2Sink {
    sack: bool,
    /// Payload bytes of a data packet (the agent's packetSize_).
    pub packet_size: u32,
    max_blocks: usize,
    /// Next packet expected in order.
    next: i64,
    maxseen: i64,
    /// Packets received above `next`.
    seen: BTreeSet<i64>,
    /// ns-2's SackStack: earlier blocks, most recent first (at most `max_blocks`).
    stack: Vec<(i64, i64)>,
    /// ts_to_echo_ and last_ack_sent_ (ts_echo_bugfix_ true, ts_echo_rfc1323_ false).
    ts_to_echo: SimTime,
    last_ack_sent: i64,
    pub acks_sent: u64,
    pub packets_received: u64,
    /// ecn_unacked_: a CE mark not yet answered by CWR (`ns2/ecn.rs`).
    ecn_unacked: bool,
    /// Count data packets and CE marks for the flow's ECN columns (the flow asks for ECN).
    pub ecn: bool,
    pub ce_received: u64,
    pub data_received: u64,
}

impl Ns2Sink {
    pub fn new(sack: bool, packet_size: u32) -> Self {
        Ns2Sink {
            sack,
            packet_size,
            max_blocks: 3,
            next: 0,
            maxseen: 0,
            seen: BTreeSet::new(),
            stack: Vec::new(),
            ts_to_echo: SimTime::ZERO,
            last_ack_sent: 0,
            acks_sent: 0,
            packets_received: 0,
            ecn_unacked: false,
            ecn: false,
            ce_received: 0,
            data_received: 0,
        }
    }

    /// Data packets received in order (the SYN is packet 0).
    pub fn packets_delivered(&self) -> u64 {
        (self.next - 1).max(0) as u64
    }

    fn is_seen(&self, s: i64) -> bool {
        s < self.next || self.seen.contains(&s)
    }

    pub fn on_segment(&mut self, _now: SimTime, pkt: &Segment, out: &mut Vec<Segment>) {
        self.packets_received += 1;
        let s = pkt.seq as i64;
        if pkt.ts_val >= self.ts_to_echo && s <= self.last_ack_sent + 1 {
            self.ts_to_echo = pkt.ts_val;
        }
        let is_dup = self.is_seen(s);
        if !is_dup {
            if s > self.maxseen {
                self.maxseen = s;
            }
            self.seen.insert(s);
            while self.seen.remove(&self.next) {
                self.next += 1;
            }
        }
        let cum = self.next - 1;
        let blocks = if self.sack {
            self.blocks(s, cum, is_dup)
        } else {
            Vec::new()
        };
        let mut ack = Segment::ack(0, 40);
        ack.seq = cum.max(0) as u64;
        ack.ack = cum.max(0) as u64;
        ack.sack = encode_blocks(cum, &blocks);
        ack.size = 40 + 8 * blocks.len() as u32;
        ack.ts_ecr = self.ts_to_echo;
        self.echo(pkt, &mut ack);
        self.last_ack_sent = cum;
        self.acks_sent += 1;
        out.push(ack);
    }

    /// ECN's echo (tcp-sink.cc's `ack`; `ns2/ecn.rs`): CWR clears the pending echo, a CE mark
    /// on an ECT packet sets it, the ACK of an ECT packet carries it; the ACK of a Not-ECT
    /// packet with ECE (the SYN) carries ECE.
    fn echo(&mut self, pkt: &Segment, ack: &mut Segment) {
        let ect = pkt.ecn.is_capable();
        if pkt.flags.has(TcpFlags::CWR) {
            self.ecn_unacked = false;
        }
        if pkt.ecn == Ecn::Ce {
            self.ecn_unacked = true;
            self.ce_received += 1;
        }
        if pkt.seq > 0 {
            self.data_received += 1;
        }
        if ect {
            ack.flags.set(TcpFlags::ECE, self.ecn_unacked);
        } else if pkt.flags.has(TcpFlags::ECE) {
            ack.flags.set(TcpFlags::ECE, true);
        }
    }

    /// The SACK blocks of the ACK for packet `old` (ns-2's Sacker, no D-SACK).
    fn blocks(&mut self, old: i64, seqno: i64, is_dup: bool) -> Vec<(i64, i64)> {
        let mut b = Vec::new();
        if seqno >= self.maxseen && !self.stack.is_empty() {
            self.stack.clear();
            return b;
        }
        if !(seqno < self.maxseen || is_dup) {
            return b;
        }
        // First block: the run of received packets around `old`.
        let mut right = -1;
        for i in old..=self.maxseen {
            if !self.is_seen(i) {
                right = i;
                break;
            }
        }
        if right == -1 {
            right = self.maxseen + 1;
        }
        let mut left = -1;
        if old <= seqno {
            left = 0;
        } else {
            let mut i = right - 1;
            while i > seqno {
                if !self.is_seen(i) {
                    left = i + 1;
                    break;
                }
                i -= 1;
            }
            b.push((left, right));
        }
        let (recent_l, recent_r) = (left, right);
        let mut k = 0;
        while b.len() < self.max_blocks {
            let Some(&(l, r)) = self.stack.get(k) else {
                break;
            };
            if l < 0 || r < 0 || r > self.maxseen + 1 {
                break;
            }
            if recent_l <= l && recent_r >= r {
                self.stack.remove(k);
                continue;
            }
            b.push((l, r));
            k += 1;
        }
        if old > seqno {
            self.stack.insert(0, (recent_l, recent_r));
            self.stack.truncate(self.max_blocks);
        }
        b
    }
}
