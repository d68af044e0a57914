//! Queue disciplines: the buffer in front of a link's transmitter and the policy that decides
//! which packets it drops. A discipline sees both ends (DESIGN.md, "Queue disciplines decide at
//! both ends"): `enqueue` when a packet arrives and `dequeue` when the transmitter takes the
//! next one, both with the time, and both may drop. Each discipline owns its buffers (a FIFO
//! for most, one queue per flow for FQ-CoDel); packets carry the time they were enqueued
//! (`Packet::enqueued`, stamped as they enter the queue), which is what CoDel measures.
//!
//! Disciplines that draw random numbers (RED, Random Drop) or hash flows (FQ-CoDel) get their
//! own stream from (seed, link name), so every run is deterministic. docs/queues.md lists what
//! each implements and the drop causes they report.

#[macro_use]
mod registry;

mod fifo;
#[cfg(test)]
mod tests;

pub use dualpi2::{LaneStats, SojournHistogram};
pub use fifo::Fifo;
pub use red::{RedParams, RedRules, RedSpec};

use crate::error::Error;
use crate::net::packet::Packet;
use crate::rng::Stream;
use crate::time::SimTime;

// The registry: one line per discipline, `module::Type = "name" { options }, "description";`
// (registry.rs says what it generates).
disciplines! {
    droptail::DropTail = "droptail", "Drop the arrival when the buffer is full.";
    red::Red = "red" { red } boxed, "Random Early Detection (Floyd & Jacobson 1993), options in `red`.";
    random_drop::RandomDrop = "random_drop" boxed, "When full, drop a waiting packet chosen uniformly.";
    drop_front::DropFront = "drop_front", "When full, drop the packet at the head of the queue.";
    codel::Codel = "codel" { codel } boxed, "CoDel (RFC 8289), options in `codel`.";
    fq_codel::FqCodel = "fq_codel" { fq_codel } boxed, "FQ-CoDel (RFC 8290), options in `fq_codel`.";
    step::Step = "step" { step } boxed, "Mark ECN-capable arrivals CE while the queue is at least a threshold (DCTCP), options in `step`.";
    pie::Pie = "pie" { pie } boxed, "PIE (RFC 8033), options in `pie`.";
    dualpi2::DualPi2 = "dualpi2" { dualpi2 } boxed, "DualPI2, the coupled dual queue of RFC 9332 (L queue: ECT(1) and CE), options in `dualpi2`.";
}

/// A queue's capacity, in packets or in bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Packets(u64),
    Bytes(u64),
}

impl Limit {
    /// Does a packet of `size` bytes fit an empty queue?
    #[inline]
    pub fn admits_alone(self, size: u32) -> bool {
        match self {
            Limit::Packets(n) => n >= 1,
            Limit::Bytes(b) => size as u64 <= b,
        }
    }
}

/// Why a queue dropped a packet. Names follow the literature: a buffer `overflow` (the limit
/// is reached: drop-tail's arrival, the victim of Random Drop or Drop-from-Front, FQ-CoDel's
/// drop from the fattest flow, RFC 8290 Sec. 4.1); an `early` drop, an active queue's choice
/// at enqueue before the buffer is full (RED, Floyd & Jacobson 1993 Sec. 4, including its drops
/// when the average is above max_th); a `sojourn` drop, an active queue's choice at dequeue
/// because packets have waited too long (CoDel's control law, RFC 8289 Secs. 3.3 and 5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropCause {
    Overflow,
    Early,
    Sojourn,
}

/// Why a queue marked a packet CE (RFC 3168 Sec. 5) instead of dropping it, counted per link
/// beside the drops: `early`, an active queue's probabilistic choice at enqueue (RED's early
/// decision, PIE's); `sojourn`, CoDel's control law at dequeue (RFC 8289, marking where it
/// would drop); `threshold`, a step on the instantaneous queue or sojourn time (the `step`
/// discipline, CoDel's and FQ-CoDel's `ce_threshold`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkCause {
    Early,
    Sojourn,
    Threshold,
}

impl MarkCause {
    /// Every cause, in the order of the links table's columns.
    pub const ALL: [MarkCause; 3] = [MarkCause::Early, MarkCause::Sojourn, MarkCause::Threshold];

    /// The name used in traces and tables: "early", "sojourn", "threshold".
    pub const fn name(self) -> &'static str {
        match self {
            MarkCause::Early => "early",
            MarkCause::Sojourn => "sojourn",
            MarkCause::Threshold => "threshold",
        }
    }
}

/// Packets a discipline marked CE in one operation, in order, each as it is after the mark.
pub type Marks = Vec<(Packet, MarkCause)>;

/// Marks `pkt` CE if it is ECN-capable and says so (Linux's `INET_ECN_set_ce`: ECT(0), ECT(1)
/// and CE, which stays CE, are marked; a Not-ECT packet is not, and the caller drops it).
#[inline]
pub fn set_ce(pkt: &mut Packet) -> bool {
    if pkt.ecn.is_capable() {
        pkt.ecn = crate::net::packet::Ecn::Ce;
        true
    } else {
        false
    }
}

/// A user error in a queue's options: the field's path and what is wrong with its value.
/// (Here rather than `scenario::invalid`, so queues do not depend on the scenario module.)
pub(crate) fn invalid(field: impl Into<String>, message: impl Into<String>) -> Error {
    Error::Invalid {
        field: field.into(),
        message: message.into(),
    }
}

/// Packets a discipline dropped, in the order it dropped them, with their causes. The link
/// owns one, clears it before each operation and counts what it holds afterwards.
pub type Drops = Vec<(Packet, DropCause)>;

/// What a discipline may know of the link it serves when it is built.
pub struct LinkContext<'a> {
    /// The link direction's name, e.g. "bottleneck.fwd".
    pub name: &'a str,
    pub rate_bps: u64,
    /// The scenario's seed.
    pub seed: u64,
}

impl LinkContext<'_> {
    /// The discipline's own random stream: (seed, "queue:" + link name).
    pub fn stream(&self) -> Stream {
        Stream::new(self.seed, &format!("queue:{}", self.name))
    }
}

/// Options of a discipline that has none (no sub-table in the scenario).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, serde::Deserialize, serde::Serialize, schemars::JsonSchema,
)]
pub struct NoOptions {}

/// The interface every discipline implements. Both ends see `now` and may drop; a dropped
/// packet goes into `drops` with its cause (an arrival the discipline refuses is returned as
/// `Err(cause)` instead: the caller still holds it). Both may also mark a packet CE instead
/// of dropping it (`set_ce`): the packet stays (queued, or returned by `dequeue`) with
/// `ecn = Ce`, and a copy goes into `marks` with the cause. A discipline drops at most one packet per
/// `enqueue` (the arrival, or one victim to make room for it): the link reports that one to the
/// simulation, which traces it. `dequeue` may drop any number before it returns a packet.
pub trait QueueDiscipline: Sized {
    /// The options sub-table a scenario may give (`NoOptions` if none).
    type Spec: Clone
        + Default
        + std::fmt::Debug
        + serde::Serialize
        + serde::de::DeserializeOwned
        + schemars::JsonSchema;

    /// The capacity when a scenario gives no limit.
    const DEFAULT_LIMIT: Limit = Limit::Packets(100);

    /// Checks the options (`at` is the queue's field path, e.g. "network.path.hops[0].queue";
    /// an option's path is `{at}.{sub-table}.{option}`). Errors name the field, the value and
    /// what was expected.
    fn validate(_spec: &Self::Spec, _limit: Limit, _at: &str) -> Result<(), Error> {
        Ok(())
    }

    /// The discipline for a validated queue of capacity `limit` on `link`.
    fn build(spec: &Self::Spec, limit: Limit, link: &LinkContext<'_>) -> Self;

    /// A packet (already stamped with `enqueued = now`) arrives. `Ok` if admitted (a victim
    /// dropped to make room goes into `drops`), `Err(cause)` if the arrival is refused.
    fn enqueue(
        &mut self,
        now: SimTime,
        pkt: Packet,
        drops: &mut Drops,
        marks: &mut Marks,
    ) -> Result<(), DropCause>;

    /// The transmitter takes the next packet at `now`; `None` means the queue is empty (the
    /// link goes idle). Packets dropped on the way go into `drops`.
    fn dequeue(&mut self, now: SimTime, drops: &mut Drops, marks: &mut Marks) -> Option<Packet>;

    /// `Some(limit)` if the discipline is transparent when empty: an arrival at an empty queue
    /// that fits `limit` comes straight back out of `enqueue` then `dequeue` unchanged, leaving
    /// no state behind, and one that does not fit is refused as an overflow. The link then sends
    /// arrivals at an idle transmitter without calling the discipline (the hot path of most
    /// links). `None` (the default): every arrival is enqueued and dequeued.
    fn transparent_limit(&self) -> Option<Limit> {
        None
    }

    /// Packets waiting.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes waiting.
    fn bytes(&self) -> u64;
}

/// A link's queue: its discipline, called through static dispatch, the packets and bytes it
/// holds (kept here from what goes in and out, so reading them costs no dispatch), and the
/// packets it marked since the link last cleared them (`marked`).
#[derive(Clone, Debug)]
pub struct Queue {
    discipline: Discipline,
    len: usize,
    bytes: u64,
    transparent: Option<Limit>,
    marks: Marks,
}

impl Queue {
    pub fn new(discipline: Discipline) -> Self {
        Queue {
            transparent: discipline.transparent_limit(),
            discipline,
            len: 0,
            bytes: 0,
            marks: Marks::new(),
        }
    }

    pub fn drop_tail(limit: Limit) -> Self {
        Self::new(Discipline::DropTail(DropTail::new(limit)))
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn discipline(&self) -> &Discipline {
        &self.discipline
    }

    /// DualPI2's per-queue counters (`[L, C]`); None for the other disciplines.
    pub fn lane_stats(&self) -> Option<&[dualpi2::LaneStats; 2]> {
        match &self.discipline {
            Discipline::DualPi2(d) => Some(d.lane_stats()),
            _ => None,
        }
    }

    /// Opens the measurement window of the discipline's own counters (DualPI2's lanes).
    pub fn reset_lane_stats(&mut self) {
        if let Discipline::DualPi2(d) = &mut self.discipline {
            d.reset_lane_stats();
        }
    }

    /// Takes the packets dropped from the buffer (`drops[from..]`) off the counts.
    #[inline]
    fn forget(&mut self, drops: &Drops, from: usize) {
        if drops.len() > from {
            for (p, _) in &drops[from..] {
                self.len -= 1;
                self.bytes -= p.size as u64;
            }
        }
    }

    #[inline]
    fn check(&self) {
        debug_assert_eq!(
            (self.len, self.bytes),
            (self.discipline.len(), self.discipline.bytes())
        );
    }

    /// Offers a copy of `pkt` stamped with its enqueue time, `now` (see
    /// `QueueDiscipline::enqueue`; a refused arrival is the caller's to report). Always inlined:
    /// with a second caller (`Link::offer_device`) the compiler stopped inlining it into
    /// `Link::offer` (0.3% of the dumbbell benchmark's instructions).
    #[inline(always)]
    pub fn enqueue(&mut self, now: SimTime, pkt: &Packet, drops: &mut Drops) -> Result<(), DropCause> {
        let from = drops.len();
        let size = pkt.size as u64;
        // A copy of the whole packet, then the stamp (cheaper than a copy field by field).
        let mut stamped = *pkt;
        stamped.enqueued = now;
        let r = self.discipline.enqueue(now, stamped, drops, &mut self.marks);
        if r.is_ok() {
            self.len += 1;
            self.bytes += size;
        }
        self.forget(drops, from);
        self.check();
        r
    }

    /// The next packet for the transmitter at `now` (see `QueueDiscipline::dequeue`). Always
    /// inlined: with the marks' argument the compiler stopped inlining it into `Link::tx_done`.
    #[inline(always)]
    pub fn dequeue(&mut self, now: SimTime, drops: &mut Drops) -> Option<Packet> {
        let from = drops.len();
        let p = self.discipline.dequeue(now, drops, &mut self.marks);
        self.forget(drops, from);
        if let Some(p) = &p {
            self.len -= 1;
            self.bytes -= p.size as u64;
        }
        self.check();
        p
    }

    /// The packets marked CE since the last `clear_marks`, in order, as they are after the
    /// mark (at enqueue: the arrival; at dequeue: the packet returned).
    #[inline]
    pub fn marked(&self) -> &[(Packet, MarkCause)] {
        &self.marks
    }

    #[inline]
    pub fn clear_marks(&mut self) {
        self.marks.clear();
    }

    /// The limit under which the empty queue is transparent, if it is (see
    /// `QueueDiscipline::transparent_limit`).
    #[inline]
    pub fn transparent(&self) -> Option<Limit> {
        self.transparent
    }
}
