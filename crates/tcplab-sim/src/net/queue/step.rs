//! Step marking: the AQM DCTCP is specified with (Alizadeh et al., SIGCOMM 2010, Sec. 3.1;
//! RFC 8257 Sec. 3.1). A FIFO that marks every ECN-capable arrival CE while the instantaneous
//! queue is at or above a threshold K, and is otherwise a drop-tail queue: a Not-ECT packet is
//! never dropped early, only when the buffer is full (as is an ECT one).
//!
//! The decision is made at *arrival*, on the queue the arrival finds: the packets (or bytes)
//! waiting, not counting the one being serialized nor the arrival itself. An arrival that
//! finds at least K waiting is marked (`>= K`, as ns-3's `RedQueueDisc` with MinTh = MaxTh = K
//! and QW = 1 compares, and as Linux's `red` with qth_min = qth_max = K and W = 1 returns
//! RED_HARD_MARK for `qavg >= qth_max`). The DCTCP paper states the rule as an occupancy
//! *greater than* K: its K is this queue's K + 1. ns-3's RED also needs more than one packet
//! waiting (`nQueued > 1`), so there K = 1 behaves as K = 2 here; Linux's red compares bytes of
//! backlog. Marking at departure instead (the departing packet by the queue it leaves
//! behind) is not offered: DCTCP's switches, ns-2's, ns-3's and Linux's step queues all mark
//! on arrival.
//!
//! The threshold is `threshold` packets or `threshold_bytes` bytes (one of them), and must be
//! below the limit when both are in the same unit (an arrival finding the limit is dropped, so
//! a threshold at the limit would never mark). With K >= 1 the empty queue is transparent: an
//! arrival at an idle link finds nothing waiting and is never marked.

use super::{invalid, set_ce};
use super::{DropCause, Drops, Fifo, Limit, LinkContext, MarkCause, Marks, QueueDiscipline};
use crate::error::Error;
use crate::net::packet::Packet;
use crate::time::{SimTime, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The step queue's options (`step = { threshold = 65 }` or `step = { threshold_bytes = ... }`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    /// K in packets: an ECN-capable arrival that finds at least K packets waiting is marked
    /// CE. Required (or `threshold_bytes`); below the limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<u64>,
    /// K in bytes: an ECN-capable arrival that finds at least this many bytes waiting is
    /// marked CE (instead of `threshold`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_bytes: Option<Size>,
}

/// The marking threshold, in packets or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threshold {
    Packets(u64),
    Bytes(u64),
}

impl StepSpec {
    fn threshold(&self) -> Threshold {
        match (self.threshold, self.threshold_bytes) {
            (_, Some(Size(b))) => Threshold::Bytes(b),
            (Some(k), None) => Threshold::Packets(k),
            (None, None) => Threshold::Packets(u64::MAX), // rejected by validate
        }
    }
}

#[derive(Clone, Debug)]
pub struct Step {
    fifo: Fifo,
    limit: Limit,
    threshold: Threshold,
}

impl Step {
    pub fn new(limit: Limit, threshold: Threshold) -> Self {
        Step {
            fifo: Fifo::default(),
            limit,
            threshold,
        }
    }

    /// Does an arrival that finds the queue as it is now get marked (if ECN-capable)?
    #[inline]
    fn above(&self) -> bool {
        match self.threshold {
            Threshold::Packets(k) => self.fifo.len() as u64 >= k,
            Threshold::Bytes(k) => self.fifo.bytes() >= k,
        }
    }
}

impl QueueDiscipline for Step {
    type Spec = StepSpec;

    fn validate(spec: &StepSpec, limit: Limit, at: &str) -> Result<(), Error> {
        let table = format!("{at}.step");
        match (spec.threshold, spec.threshold_bytes, limit) {
            (None, None, _) => Err(invalid(
                format!("{table}.threshold"),
                "missing (expected threshold, packets, or threshold_bytes: the marking threshold K)",
            )),
            (Some(_), Some(_), _) => Err(invalid(
                format!("{table}.threshold_bytes"),
                "given with threshold (expected one of threshold, packets, or threshold_bytes)",
            )),
            (Some(k), None, Limit::Packets(n)) if k >= n => Err(invalid(
                format!("{table}.threshold"),
                format!("{k} packets is not below the limit of {n} (expected 0 <= threshold < limit)"),
            )),
            (None, Some(Size(k)), Limit::Bytes(n)) if k >= n => Err(invalid(
                format!("{table}.threshold_bytes"),
                format!(
                    "{k} bytes is not below limit_bytes {n} (expected 0 <= threshold_bytes < limit_bytes)"
                ),
            )),
            _ => Ok(()),
        }
    }

    fn build(spec: &StepSpec, limit: Limit, _link: &LinkContext<'_>) -> Self {
        Step::new(limit, spec.threshold())
    }

    /// Tail drop when full; otherwise an ECN-capable arrival that finds at least K waiting is
    /// marked CE (cause `threshold`) and admitted.
    #[inline]
    fn enqueue(
        &mut self,
        _now: SimTime,
        mut pkt: Packet,
        _drops: &mut Drops,
        marks: &mut Marks,
    ) -> Result<(), DropCause> {
        if !self.fifo.fits(self.limit, &pkt) {
            return Err(DropCause::Overflow);
        }
        if self.above() && set_ce(&mut pkt) {
            marks.push((pkt, MarkCause::Threshold));
        }
        self.fifo.push(pkt);
        Ok(())
    }

    #[inline]
    fn dequeue(&mut self, _now: SimTime, _drops: &mut Drops, _marks: &mut Marks) -> Option<Packet> {
        self.fifo.pop()
    }

    /// With K >= 1 an arrival at the empty queue is never marked: it passes unchanged.
    fn transparent_limit(&self) -> Option<Limit> {
        match self.threshold {
            Threshold::Packets(0) | Threshold::Bytes(0) => None,
            _ => Some(self.limit),
        }
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }
}

#[cfg(test)]
mod tests {
    //! Known answers: which arrivals of a scripted sequence are marked, by the queue each finds.

    use super::*;
    use crate::net::packet::Ecn;
    use crate::net::queue::tests::pkt;
    use crate::net::queue::{Discipline, Queue};

    const T0: SimTime = SimTime::ZERO;

    fn step(limit: Limit, k: Threshold) -> Queue {
        Queue::new(Discipline::Step(Box::new(Step::new(limit, k))))
    }

    fn ect(seq: u64, size: u32, ecn: Ecn) -> Packet {
        Packet { ecn, ..pkt(seq, size) }
    }

    /// Offers `p` at T0: Ok(true) if admitted and marked, Ok(false) admitted unmarked, Err if
    /// dropped.
    fn offer(q: &mut Queue, p: Packet) -> Result<bool, DropCause> {
        q.clear_marks();
        let mut drops = Drops::new();
        q.enqueue(T0, &p, &mut drops)?;
        assert!(drops.is_empty());
        Ok(match q.marked() {
            [] => false,
            [(m, MarkCause::Threshold)] => {
                assert_eq!((m.seg, m.ecn), (p.seg, Ecn::Ce));
                true
            }
            other => panic!("unexpected marks {other:?}"),
        })
    }

    #[test]
    fn marks_every_ect_arrival_that_finds_k_waiting_and_only_tail_drops() {
        // K = 3, limit 5. Arrivals 0..2 find 0, 1, 2 waiting: not marked. Arrival 3 finds 3: marked;
        // so is 4 (finds 4). A Not-ECT arrival finding 3 is admitted unmarked; at the limit
        // every arrival is dropped (overflow), ECT or not.
        let mut q = step(Limit::Packets(6), Threshold::Packets(3));
        let got: Vec<_> = (0..5).map(|s| offer(&mut q, ect(s, 1000, Ecn::Ect0))).collect();
        assert_eq!(got, vec![Ok(false), Ok(false), Ok(false), Ok(true), Ok(true)]);
        assert_eq!(offer(&mut q, ect(5, 1000, Ecn::NotEct)), Ok(false));
        assert_eq!(offer(&mut q, ect(6, 1000, Ecn::Ect0)), Err(DropCause::Overflow));
        assert_eq!(offer(&mut q, ect(7, 1000, Ecn::NotEct)), Err(DropCause::Overflow));
        // The queue holds the marks: the 4th and 5th leave as CE, the others as they came.
        let mut drops = Drops::new();
        let out: Vec<Ecn> = std::iter::from_fn(|| q.dequeue(T0, &mut drops))
            .map(|p| p.ecn)
            .collect();
        use Ecn::*;
        assert_eq!(out, vec![Ect0, Ect0, Ect0, Ce, Ce, NotEct]);
        // ECT(1) and CE arrivals are ECN-capable too (CE stays CE and counts as a mark).
        let mut q = step(Limit::Packets(10), Threshold::Packets(1));
        assert_eq!(offer(&mut q, ect(0, 1000, Ecn::NotEct)), Ok(false));
        assert_eq!(offer(&mut q, ect(1, 1000, Ecn::Ect1)), Ok(true));
        assert_eq!(offer(&mut q, ect(2, 1000, Ecn::Ce)), Ok(true));
    }

    #[test]
    fn the_queue_drains_below_k_and_marking_stops() {
        let mut q = step(Limit::Packets(100), Threshold::Packets(2));
        for s in 0..4 {
            offer(&mut q, ect(s, 1000, Ecn::Ect0)).unwrap();
        }
        let mut drops = Drops::new();
        // 4 waiting; two leave: 2 waiting, an arrival is marked; two more leave (3 -> 1): not.
        q.dequeue(T0, &mut drops);
        q.dequeue(T0, &mut drops);
        assert_eq!(offer(&mut q, ect(10, 1000, Ecn::Ect0)), Ok(true));
        q.dequeue(T0, &mut drops);
        q.dequeue(T0, &mut drops);
        assert_eq!(offer(&mut q, ect(11, 1000, Ecn::Ect0)), Ok(false));
    }

    #[test]
    fn a_byte_threshold_counts_the_bytes_waiting() {
        // K = 2500 bytes: 1000 + 1000 waiting (2000) is below; 1000 + 1000 + 600 is above.
        let mut q = step(Limit::Packets(100), Threshold::Bytes(2500));
        assert_eq!(offer(&mut q, ect(0, 1000, Ecn::Ect0)), Ok(false));
        assert_eq!(offer(&mut q, ect(1, 1000, Ecn::Ect0)), Ok(false));
        assert_eq!(offer(&mut q, ect(2, 600, Ecn::Ect0)), Ok(false));
        assert_eq!(offer(&mut q, ect(3, 40, Ecn::Ect0)), Ok(true));
    }

    #[test]
    fn is_transparent_when_empty_unless_k_is_zero() {
        assert!(step(Limit::Packets(5), Threshold::Packets(1)).transparent().is_some());
        let mut q = step(Limit::Packets(5), Threshold::Packets(0));
        assert!(q.transparent().is_none());
        assert_eq!(offer(&mut q, ect(0, 1000, Ecn::Ect0)), Ok(true));
    }

    #[test]
    fn a_threshold_at_or_above_the_limit_is_one_error_naming_the_field() {
        let check = |spec: StepSpec, limit| {
            Step::validate(&spec, limit, "q")
                .map_err(|e| e.to_string())
                .err()
        };
        let k = |t| StepSpec {
            threshold: Some(t),
            threshold_bytes: None,
        };
        assert_eq!(check(k(99), Limit::Packets(100)), None);
        let e = check(k(100), Limit::Packets(100)).unwrap();
        assert!(e.contains("q.step.threshold") && e.contains("threshold < limit"), "{e}");
        let e = check(StepSpec::default(), Limit::Packets(100)).unwrap();
        assert!(e.contains("q.step.threshold") && e.contains("missing"), "{e}");
        let b = StepSpec {
            threshold: None,
            threshold_bytes: Some(Size(150_000)),
        };
        let e = check(b.clone(), Limit::Bytes(150_000)).unwrap();
        assert!(e.contains("q.step.threshold_bytes"), "{e}");
        assert_eq!(check(b, Limit::Packets(100)), None);
    }
}
