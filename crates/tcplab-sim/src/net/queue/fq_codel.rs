//! FQ-CoDel, Flow Queue CoDel (Hoeiland-Joergensen, McKenney, Taht, Gettys & Dumazet,
//! RFC 8290): packets are hashed by flow into `flows` queues (Sec. 4.1; default 1024,
//! Sec. 5.2.5), each with its own CoDel state (Sec. 5.1). The scheduler is deficit round robin
//! with a byte `quantum` (Sec. 5.2.4, default 1514) over two lists (Sec. 4.2): a queue that
//! becomes active joins the *new* list with a quantum of credit, and new queues are served
//! before *old* ones, so sparse flows (whose queue empties between their packets) see almost no
//! queueing. A queue that has spent its credit gets another quantum and moves to the end of the
//! old list. CoDel runs on the selected queue at dequeue and may drop from its head. A queue
//! found empty moves from the new list to the end of the old list (so a flow cannot stay new by
//! emptying its queue each time, starving the old ones), or leaves the old list.
//!
//! The limit (`limit`, in packets, default 10240; Sec. 5.2.3) covers all queues together. When
//! an arrival takes the total above it, one packet is dropped from the head of the queue with
//! the most bytes (Sec. 4.1): usually another flow's packet, not the arrival. (Linux drops a
//! batch of up to 64 packets, or half that queue, at once to bound its CPU cost; the RFC's one
//! packet per excess arrival keeps the total at the limit just the same.)
//!
//! Departures from Linux, all documented in docs/queues.md: the flow hash is a SplitMix64 mix of
//! (packet kind, flow id) and a per-link perturbation drawn from the link's stream, instead of
//! a Jenkins hash of the 5-tuple; CoDel's `maxpacket` check uses the flow queue's own backlog
//! (as ns-3 does) where Linux uses the whole qdisc's; a new queue that empties always moves to
//! the old list (RFC 8290 Sec. 4.2) where Linux removes it when the old list is empty. ECN
//! (`ecn`, `ce_threshold`) is each queue's CoDel's (codel.rs).

use super::codel::{CodelParams, CodelVars};
use super::{DropCause, Drops, Marks, Fifo, Limit, LinkContext, QueueDiscipline};
use crate::error::Error;
use crate::net::packet::{Packet, PacketKind};
use super::invalid;
use crate::time::{Duration, SimTime, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The smallest quantum accepted: one Ethernet MTU, the largest IP packet of a standard path
/// (a 1460-byte MSS with 40 bytes of headers), so a queue with credit can always send a full
/// packet in its turn.
pub const MIN_QUANTUM: u64 = 1500;
/// The most flow queues accepted (Linux's bound).
pub const MAX_FLOWS: u32 = 65536;

/// FQ-CoDel's options in a scenario (`fq_codel = { quantum = 1514, flows = 1024 }`).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqCodelSpec {
    /// CoDel's TARGET for each flow queue (default 5 ms; RFC 8290 Sec. 5.2.2).
    #[serde(default)]
    pub target: Option<Duration>,
    /// CoDel's INTERVAL for each flow queue (default 100 ms; RFC 8290 Sec. 5.2.1).
    #[serde(default)]
    pub interval: Option<Duration>,
    /// CoDel's maxpacket: no drop while a flow queue holds at most this many bytes (default
    /// 1514).
    #[serde(default)]
    pub maxpacket: Option<Size>,
    /// Bytes of credit a queue gets per round (default 1514; RFC 8290 Sec. 5.2.4). At least
    /// 1500, one MTU.
    #[serde(default)]
    pub quantum: Option<Size>,
    /// Number of flow queues packets are hashed into (default 1024; RFC 8290 Sec. 5.2.5).
    #[serde(default)]
    pub flows: Option<u32>,
    /// Mark ECN-capable packets CE where each queue's CoDel would drop them (RFC 8290
    /// Sec. 5.2.6). Default off here; Linux's fq_codel turns it on by default.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ecn: bool,
    /// Mark a packet CE when its sojourn time is above this at dequeue (RFC 8290 Sec. 5.2.7's
    /// CE threshold; Linux's `ce_threshold`), whether or not `ecn` is on. Default none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ce_threshold: Option<Duration>,
}

/// Which list a flow queue is on (RFC 8290 Sec. 4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    Inactive,
    New,
    Old,
}

#[derive(Clone, Debug)]
struct FlowQueue {
    fifo: Fifo,
    codel: CodelVars,
    deficit: i64,
    list: List,
}

const NO_QUEUE: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct FqCodel {
    params: CodelParams,
    quantum: i64,
    limit: u64,
    perturbation: u64,
    /// Bucket (hash mod flows) -> index in `queues`, or NO_QUEUE before its first packet.
    slot: Vec<u32>,
    /// The flow queues that have been used, in order of first use.
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: u64,
}

/// SplitMix64's finalizer: a cheap, well-spread 64-bit mix.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FqCodel {
    /// `limit` in packets across all queues; `perturbation` salts the flow hash.
    pub fn new(params: CodelParams, quantum: u32, flows: u32, limit: u64, perturbation: u64) -> Self {
        FqCodel {
            params,
            quantum: quantum as i64,
            limit,
            perturbation,
            slot: vec![NO_QUEUE; flows.max(1) as usize],
            queues: Vec::new(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: 0,
        }
    }

    /// The bucket a packet hashes to (RFC 8290 Sec. 4.1's classification): its flow is its
    /// kind (TCP data, TCP ACK, UDP) and flow id, salted with the link's perturbation.
    pub fn bucket(&self, pkt: &Packet) -> usize {
        let kind = match pkt.kind {
            PacketKind::Data => 0u64,
            PacketKind::Ack => 1,
            PacketKind::Udp => 2,
        };
        let h = mix(self.perturbation ^ ((pkt.flow as u64) << 2 | kind));
        (h % self.slot.len() as u64) as usize
    }

    /// Bytes waiting in the queue of `pkt`'s bucket.
    pub fn queue_bytes(&self, pkt: &Packet) -> u64 {
        match self.slot[self.bucket(pkt)] {
            NO_QUEUE => 0,
            i => self.queues[i as usize].fifo.bytes(),
        }
    }

    /// The index of the queue with the most bytes (the first of equals).
    fn fattest(&self) -> usize {
        let mut best = 0;
        for (i, q) in self.queues.iter().enumerate() {
            if q.fifo.bytes() > self.queues[best].fifo.bytes() {
                best = i;
            }
        }
        best
    }
}

impl QueueDiscipline for FqCodel {
    type Spec = FqCodelSpec;

    const DEFAULT_LIMIT: Limit = Limit::Packets(10240);

    fn validate(spec: &FqCodelSpec, limit: Limit, at: &str) -> Result<(), Error> {
        if let Limit::Bytes(_) = limit {
            return Err(invalid(
                format!("{at}.limit_bytes"),
                "does not apply to discipline \"fq_codel\" (expected limit, in packets across all flow queues)",
            ));
        }
        let table = format!("{at}.fq_codel");
        CodelParams::resolve(spec.target, spec.interval, spec.maxpacket)
            .check(&table, spec.target.is_some())?;
        if let Some(Size(q)) = spec.quantum {
            if q < MIN_QUANTUM || q > u32::MAX as u64 {
                return Err(invalid(
                    format!("{table}.quantum"),
                    format!("{q} bytes is not a valid quantum (expected {MIN_QUANTUM}..=4294967295 bytes: at least one MTU)"),
                ));
            }
        }
        if let Some(n) = spec.flows {
            if n == 0 || n > MAX_FLOWS {
                return Err(invalid(
                    format!("{table}.flows"),
                    format!("{n} is not a valid number of flow queues (expected 1..={MAX_FLOWS})"),
                ));
            }
        }
        Ok(())
    }

    fn build(spec: &FqCodelSpec, limit: Limit, link: &LinkContext<'_>) -> Self {
        let params = CodelParams::resolve(spec.target, spec.interval, spec.maxpacket)
            .with_ecn(spec.ecn, spec.ce_threshold);
        let limit = match limit {
            Limit::Packets(n) => n,
            Limit::Bytes(_) => 10240, // rejected by validate
        };
        // A 53-bit salt from the link's own stream: the same link hashes alike in every run.
        let perturbation = (link.stream().uniform() * (1u64 << 53) as f64) as u64;
        FqCodel::new(
            params,
            spec.quantum.map_or(1514, |s| s.0 as u32),
            spec.flows.unwrap_or(1024),
            limit,
            perturbation,
        )
    }

    /// RFC 8290 Sec. 4.1: classify, append (the link has stamped the time), activate the queue
    /// on the new list, and if the total is above the limit drop the fattest queue's head.
    #[inline(never)]
    fn enqueue(
        &mut self,
        _now: SimTime,
        pkt: Packet,
        drops: &mut Drops,
        _marks: &mut Marks,
    ) -> Result<(), DropCause> {
        let b = self.bucket(&pkt);
        if self.slot[b] == NO_QUEUE {
            self.slot[b] = self.queues.len() as u32;
            self.queues.push(FlowQueue {
                fifo: Fifo::default(),
                codel: CodelVars::default(),
                deficit: 0,
                list: List::Inactive,
            });
        }
        let i = self.slot[b];
        let q = &mut self.queues[i as usize];
        self.len += 1;
        self.bytes += pkt.size as u64;
        q.fifo.push(pkt);
        if q.list == List::Inactive {
            q.list = List::New;
            q.deficit = self.quantum;
            self.new_flows.push_back(i);
        }
        if self.len as u64 > self.limit {
            let fat = self.fattest();
            if let Some(victim) = self.queues[fat].fifo.pop() {
                self.len -= 1;
                self.bytes -= victim.size as u64;
                drops.push((victim, DropCause::Overflow));
            }
        }
        Ok(())
    }

    /// RFC 8290 Sec. 4.2: pick the first queue with credit (new list first), let its CoDel
    /// dequeue, and charge the packet to its credit.
    #[inline(never)]
    fn dequeue(&mut self, now: SimTime, drops: &mut Drops, marks: &mut Marks) -> Option<Packet> {
        loop {
            let (from_new, i) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (true, i),
                (None, Some(&i)) => (false, i),
                (None, None) => return None,
            };
            let q = &mut self.queues[i as usize];
            let list = if from_new {
                &mut self.new_flows
            } else {
                &mut self.old_flows
            };
            if q.deficit <= 0 {
                // Credit spent: another quantum, and to the end of the old list.
                q.deficit += self.quantum;
                q.list = List::Old;
                list.pop_front();
                self.old_flows.push_back(i);
                continue;
            }
            let before = drops.len();
            let pkt = q.codel.dequeue(now, &self.params, &mut q.fifo, drops, marks);
            for (d, _) in &drops[before..] {
                self.len -= 1;
                self.bytes -= d.size as u64;
            }
            if let Some(p) = pkt {
                q.deficit -= p.size as i64;
                self.len -= 1;
                self.bytes -= p.size as u64;
                return Some(p);
            }
            // Empty: a new queue goes to the end of the old list, an old one leaves.
            list.pop_front();
            if from_new {
                q.list = List::Old;
                self.old_flows.push_back(i);
            } else {
                q.list = List::Inactive;
            }
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests;
