//! Byte Queue Limits on a link's device queue (`bql = { ... }` beside `device_queue`,
//! docs/queues.md "Byte Queue Limits"): the device queue takes packets from the discipline
//! only while the bytes it holds stay under a limit that adapts to what the transmitter
//! consumes between two completions.
//!
//! `Dql` is the limit's algorithm, Linux's lib/dynamic_queue_limits.c (`dql_queued`,
//! `dql_avail`, `dql_completed`; Tom Herbert, 2011) as ns-3 ports it
//! (src/network/utils/dynamic-queue-limits.cc, `DynamicQueueLimits::Queued`, `Available`,
//! `Completed`): 32-bit counters that wrap, compared as signed differences (`POSDIFF`,
//! `AFTER_EQ`). `Link::pump_bql` drives it as ns-3's point-to-point device and
//! `NetDeviceQueue` do (src/network/utils/net-device-queue-interface.{h,cc}).

use super::InFlight;
use super::Link;
use crate::time::SimTime;

/// Linux's `DQL_MAX_OBJECT` (include/linux/dynamic_queue_limits.h): the largest count one
/// `dql_queued` may add.
const DQL_MAX_OBJECT: u32 = u32::MAX / 16;
/// Linux's `DQL_MAX_LIMIT`, the default and the largest `max_limit` (ns-3's `MaxLimit`
/// attribute has the same default and range).
pub const DQL_MAX_LIMIT: u32 = u32::MAX / 2 - DQL_MAX_OBJECT;

/// `POSDIFF(A, B)`: A - B if that is positive as a signed difference, else 0.
#[inline]
fn posdiff(a: u32, b: u32) -> u32 {
    let d = a.wrapping_sub(b);
    if (d as i32) > 0 {
        d
    } else {
        0
    }
}

/// `AFTER_EQ(A, B)`: A is B or after it, on counters that wrap.
#[inline]
fn after_eq(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}

/// The dynamic limit of one transmit queue (Linux's `struct dql`), in bytes.
#[derive(Clone, Debug)]
pub struct Dql {
    /// Bytes ever queued.
    num_queued: u32,
    /// `limit + num_completed` as of the last completion: what `num_queued` may reach.
    adj_limit: u32,
    /// The count of the last `queued`.
    last_obj_cnt: u32,
    limit: u32,
    /// Bytes ever completed.
    num_completed: u32,
    /// How far the queue was over the limit at the last completion.
    prev_ovlimit: u32,
    /// `num_queued` at the last completion.
    prev_num_queued: u32,
    /// `last_obj_cnt` at the last completion.
    prev_last_obj_cnt: u32,
    /// The least slack seen since `slack_start`.
    lowest_slack: u32,
    slack_start: SimTime,
    hold_time: SimTime,
    min_limit: u32,
    max_limit: u32,
}

impl Dql {
    /// A reset queue (`dql_init` + `dql_reset`): nothing queued or completed, the limit at
    /// `min_limit` (Linux since 2025; ns-3 and Linux before it start at 0, the default
    /// `min_limit`) and `adj_limit` 0 (neither reset touches it), so the first packet queued
    /// makes `avail` negative until its completion.
    pub fn new(hold_time: SimTime, min_limit: u32, max_limit: u32) -> Self {
        Dql {
            num_queued: 0,
            adj_limit: 0,
            last_obj_cnt: 0,
            limit: min_limit,
            num_completed: 0,
            prev_ovlimit: 0,
            prev_num_queued: 0,
            prev_last_obj_cnt: 0,
            lowest_slack: u32::MAX,
            slack_start: SimTime::ZERO,
            hold_time,
            min_limit,
            max_limit,
        }
    }

    /// The current limit, in bytes.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// `dql_queued`: `count` bytes enter the queue.
    #[inline]
    pub fn queued(&mut self, count: u32) {
        debug_assert!(count <= DQL_MAX_OBJECT);
        self.last_obj_cnt = count;
        self.num_queued = self.num_queued.wrapping_add(count);
    }

    /// `dql_avail`: bytes that may still be queued (negative: over the limit).
    #[inline]
    pub fn avail(&self) -> i32 {
        self.adj_limit.wrapping_sub(self.num_queued) as i32
    }

    /// `dql_completed`: `count` bytes left the queue at `now`; the limit is recomputed.
    pub fn completed(&mut self, now: SimTime, count: u32) {
        let num_queued = self.num_queued;
        debug_assert!(count <= num_queued.wrapping_sub(self.num_completed));
        let completed = self.num_completed.wrapping_add(count);
        let mut limit = self.limit;
        let mut ovlimit = posdiff(num_queued.wrapping_sub(self.num_completed), limit);
        let inprogress = num_queued.wrapping_sub(completed);
        let prev_inprogress = self.prev_num_queued.wrapping_sub(self.num_completed);
        let all_prev_completed = after_eq(completed, self.prev_num_queued);
        if (ovlimit != 0 && inprogress == 0) || (self.prev_ovlimit != 0 && all_prev_completed) {
            // Starved: the queue was over the limit and has emptied (or could have, before
            // this completion ran). The limit grows by the bytes both queued and completed
            // since the last completion, plus the previous excess.
            limit = limit
                .wrapping_add(posdiff(completed, self.prev_num_queued))
                .wrapping_add(self.prev_ovlimit);
            self.slack_start = now;
            self.lowest_slack = u32::MAX;
        } else if inprogress != 0 && prev_inprogress != 0 && !all_prev_completed {
            // Busy over the whole interval: the slack is the excess over what was needed not
            // to starve (twice what completed is the bound), or the part of the last
            // queueing beyond the previous excess; the least slack seen over `hold_time` is
            // then taken off the limit.
            let slack = posdiff(
                limit.wrapping_add(self.prev_ovlimit),
                completed.wrapping_sub(self.num_completed).wrapping_mul(2),
            );
            let slack_last_objs = if self.prev_ovlimit != 0 {
                posdiff(self.prev_last_obj_cnt, self.prev_ovlimit)
            } else {
                0
            };
            let slack = slack.max(slack_last_objs);
            if slack < self.lowest_slack {
                self.lowest_slack = slack;
            }
            if now > self.slack_start.saturating_add(self.hold_time) {
                limit = posdiff(limit, self.lowest_slack);
                self.slack_start = now;
                self.lowest_slack = u32::MAX;
            }
        }
        limit = limit.max(self.min_limit).min(self.max_limit);
        if limit != self.limit {
            self.limit = limit;
            ovlimit = 0;
        }
        self.adj_limit = limit.wrapping_add(completed);
        self.prev_ovlimit = ovlimit;
        self.prev_last_obj_cnt = self.last_obj_cnt;
        self.num_completed = completed;
        self.prev_num_queued = num_queued;
    }
}

/// A device queue's BQL: the limit and whether it has stopped the queue (Linux's
/// `__QUEUE_STATE_STACK_XOFF`, ns-3's `m_stoppedByQueueLimits`), set when a packet queued
/// leaves `avail` negative and cleared only by a completion that leaves it non-negative.
#[derive(Clone, Debug)]
pub(super) struct Bql {
    pub(super) dql: Dql,
    pub(super) stopped: bool,
}

impl Link {
    /// `pump` on a device queue with BQL. As ns-3's traffic-control layer and point-to-point
    /// device do it: the discipline is asked for packets while the queue is stopped neither by
    /// BQL nor by a full ring (`QueueDisc::Run` / `DequeuePacket`); each packet it gives is
    /// queued to BQL (`NetDeviceQueue::NotifyQueuedBytes` from `PacketEnqueued`, which stops
    /// the queue if `avail` goes negative) and enters the ring, whose head an idle transmitter
    /// takes at once (`PointToPointNetDevice::Send`). A packet leaving the ring for the wire
    /// (there, or at the end of the previous serialization, `TransmitComplete`) is completed
    /// to BQL after the current step (`PacketDequeued` schedules `NotifyTransmittedBytes` for
    /// the same instant): so a packet counts as queued from the discipline's dequeue until its
    /// serialization starts. A completion that leaves `avail` non-negative restarts a
    /// stopped queue and the discipline is asked again. (Linux drivers complete at the end of
    /// the transmission, in their completion handler: not modelled.)
    #[inline(never)]
    pub(super) fn pump_bql(&mut self, now: SimTime, flight: &mut InFlight) -> Option<SimTime> {
        let mut started = None;
        let mut completion = None;
        if self.wire.is_none() {
            if let Some(p) = self.device.as_mut().and_then(|d| d.ring.pop_front()) {
                started = Some(self.start(now, &p, flight));
                completion = Some(p.size);
            }
        }
        loop {
            // The completion runs before the wake's dequeues (`PacketDequeued`'s deferred step:
            // `NotifyTransmittedBytes`, then `Wake`), after those of the step that started the
            // packet (an arrival at an idle device: `QueueDisc::Run` goes on after `Send`).
            if let Some(bytes) = completion.take() {
                let d = self.device.as_mut().expect("a device queue");
                let bql = d.bql.as_mut().expect("BQL");
                bql.dql.completed(now, bytes);
                if bql.dql.avail() >= 0 {
                    bql.stopped = false;
                }
            }
            self.run_discipline_bql(now, flight, &mut started, &mut completion);
            if completion.is_none() {
                break;
            }
        }
        started
    }

    /// `QueueDisc::Run` on a device queue with BQL (`pump_bql`): at most one packet can start
    /// here (the transmitter is busy after it), and its completion is left in `completion`.
    #[inline(never)]
    fn run_discipline_bql(
        &mut self,
        now: SimTime,
        flight: &mut InFlight,
        started: &mut Option<SimTime>,
        completion: &mut Option<u32>,
    ) {
        loop {
            let d = self.device.as_ref().expect("a device queue");
            let stopped = d.bql.as_ref().is_some_and(|b| b.stopped);
            if stopped || d.ring.len() >= d.cap || self.queue.is_empty() {
                break;
            }
            let Some(p) = self.dequeue_counted(now) else { break };
            let d = self.device.as_mut().expect("a device queue");
            let bql = d.bql.as_mut().expect("BQL");
            bql.dql.queued(p.size);
            if bql.dql.avail() < 0 {
                bql.stopped = true;
            }
            if self.wire.is_none() {
                debug_assert!(d.ring.is_empty(), "an idle transmitter with packets in its ring");
                *started = Some(self.start(now, &p, flight));
                *completion = Some(p.size);
            } else {
                d.ring.push_back(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// The limit after each step of a script of (time in µs, bytes queued before, bytes
    /// completed), from a queue whose counters start at `base` (0: fresh).
    fn script(dql: &mut Dql, base: u32, steps: &[(u64, u32, u32)]) -> Vec<(u32, i32)> {
        dql.num_queued = base;
        dql.num_completed = base;
        dql.prev_num_queued = base;
        dql.adj_limit = base;
        steps
            .iter()
            .map(|&(t, q, c)| {
                for _ in 0..q / 1500 {
                    dql.queued(1500);
                }
                dql.completed(SimTime(t * 1000), c);
                (dql.limit(), dql.avail())
            })
            .collect()
    }

    /// Three packets of 1500 bytes queued at once, one completed, then the other two: the
    /// first completion finds the queue over its limit of 0 but still busy, and changes
    /// nothing; the second finds it empty (starved, `dql_completed`'s first branch), and the
    /// limit grows by the bytes queued and completed since the first (none: all three were
    /// queued before it) plus the excess then, 4500 bytes. Four more packets and a steady
    /// queue: the third completion (at 0.2 ms) follows the starvation, so it has no previous
    /// interval in progress; the fourth (0.3 ms) and fifth (1.2 ms) see a busy interval with
    /// slack posdiff(4500 + 1500, 2 x 1500) = 3000 bytes each; at 1.2 ms the hold time (1 ms
    /// since the starvation at 0.1 ms) has passed and the least slack is taken off: 1500.
    /// `avail` is `adj_limit` - queued, `adj_limit` the limit plus the bytes completed.
    const STEPS: [(u64, u32, u32); 5] = [
        (0, 4500, 1500),
        (100, 0, 3000),
        (200, 6000, 1500),
        (300, 1500, 1500),
        (1200, 1500, 1500),
    ];

    #[test]
    fn the_limit_grows_on_starvation_and_sheds_the_slack_held_over_hold_time() {
        let mut dql = Dql::new(SimTime(MS), 0, DQL_MAX_LIMIT);
        assert_eq!(dql.limit(), 0);
        let got = script(&mut dql, 0, &STEPS);
        // adj_limit, queued: 1500, 4500 | 9000, 4500 | 10500, 10500 | 12000, 12000 |
        // 10500, 13500.
        assert_eq!(
            got,
            vec![(0, -3000), (4500, 4500), (4500, 0), (4500, 0), (1500, -3000)]
        );
    }

    /// The same script with counters about to wrap (32 bits, as in Linux and ns-3): the same
    /// limits.
    #[test]
    fn the_limit_is_the_same_across_the_counters_wrap() {
        let mut dql = Dql::new(SimTime(MS), 0, DQL_MAX_LIMIT);
        let got = script(&mut dql, u32::MAX - 5000, &STEPS);
        assert_eq!(
            got,
            vec![(0, -3000), (4500, 4500), (4500, 0), (4500, 0), (1500, -3000)]
        );
    }

    /// `max_limit` caps the growth (3000, not 4500); `min_limit` is where the limit starts
    /// and floors the decrease (3000, not 1500). With min_limit 3000 the first completion
    /// leaves an excess of 1500 over the limit, so the second is a starvation by
    /// `dql_completed`'s second rule (over the limit before, and all of it completed): 3000
    /// + 0 + 1500 = 4500 again.
    #[test]
    fn min_and_max_limit_bound_the_limit() {
        let mut dql = Dql::new(SimTime(MS), 0, 3000);
        let got = script(&mut dql, 0, &STEPS[..2]);
        assert_eq!(got, vec![(0, -3000), (3000, 3000)]);
        let mut dql = Dql::new(SimTime(MS), 3000, DQL_MAX_LIMIT);
        assert_eq!(dql.limit(), 3000);
        let got = script(&mut dql, 0, &STEPS);
        assert_eq!(
            got,
            vec![(3000, 0), (4500, 4500), (4500, 0), (4500, 0), (3000, -1500)]
        );
    }

    /// The slack is only taken off once the hold time has passed: with a 2 ms hold time the
    /// completion at 1.2 ms keeps 4500.
    #[test]
    fn no_decrease_within_the_hold_time() {
        let mut dql = Dql::new(SimTime(2 * MS), 0, DQL_MAX_LIMIT);
        let got = script(&mut dql, 0, &STEPS);
        assert_eq!(got.last(), Some(&(4500, 0)));
    }
}
