//! Known-answer tests of the FIFO disciplines' drop decisions on scripted arrivals.

use super::*;
use crate::rng::Stream;
use crate::tcp::segment::Segment;

pub(crate) fn pkt(seq: u64, size: u32) -> Packet {
    // The segment's place names the packet in the assertions (no `Segments` here).
    let seg = Segment::data(seq, size.saturating_sub(40), size);
    Packet::tcp(0, 0, 1, &seg, crate::net::packet::SegId(seq as u32))
}

const T0: SimTime = SimTime::ZERO;

/// The queue as the link drives it: offers `pkt` at `now` (stamped), returns the packet
/// dropped, if any (the arrival itself, or the victim that made room for it).
pub(crate) trait Drive {
    fn offer(&mut self, now: SimTime, pkt: Packet) -> Option<Packet>;
    fn take(&mut self, now: SimTime) -> Option<Packet>;
}

impl Drive for Queue {
    fn offer(&mut self, now: SimTime, pkt: Packet) -> Option<Packet> {
        let mut drops = Drops::new();
        match self.enqueue(now, &pkt, &mut drops) {
            Err(_) => Some(pkt),
            Ok(()) => {
                assert!(drops.len() <= 1);
                drops.first().map(|d| d.0)
            }
        }
    }

    fn take(&mut self, now: SimTime) -> Option<Packet> {
        let mut drops = Drops::new();
        let p = self.dequeue(now, &mut drops);
        assert!(drops.is_empty(), "these disciplines never drop at dequeue");
        p
    }
}

fn seqs(q: &Queue) -> Vec<u64> {
    let fifo = match q.discipline() {
        Discipline::DropTail(d) => d.fifo(),
        Discipline::DropFront(d) => d.fifo(),
        Discipline::RandomDrop(d) => d.fifo(),
        Discipline::Red(d) => d.fifo(),
        _ => unreachable!(),
    };
    fifo.iter().map(|p| p.seg.0 as u64).collect()
}

#[test]
fn drop_tail_packets_limit() {
    let mut q = Queue::drop_tail(Limit::Packets(2));
    assert!(q.offer(T0, pkt(0, 1000)).is_none());
    assert!(q.offer(T0, pkt(1, 1000)).is_none());
    let dropped = q.offer(T0, pkt(2, 1000)).expect("third arrival dropped");
    assert_eq!(dropped.seg.0 as u64, 2);
    assert_eq!(q.take(T0).unwrap().seg.0 as u64, 0);
    assert!(q.offer(T0, pkt(3, 1000)).is_none());
    assert_eq!(q.len(), 2);
    assert_eq!(q.bytes(), 2000);
}

#[test]
fn drop_tail_bytes_limit() {
    let mut q = Queue::drop_tail(Limit::Bytes(2500));
    assert!(q.offer(T0, pkt(0, 1000)).is_none());
    assert!(q.offer(T0, pkt(1, 1000)).is_none());
    // 3000 > 2500: dropped; a 500-byte packet still fits exactly.
    assert!(q.offer(T0, pkt(2, 1000)).is_some());
    assert!(q.offer(T0, pkt(3, 500)).is_none());
    assert_eq!(q.bytes(), 2500);
}

#[test]
fn drop_from_front_drops_the_head_and_admits_the_arrival() {
    let mut q = Queue::new(Discipline::DropFront(DropFront::new(Limit::Packets(3))));
    for s in 0..3 {
        assert!(q.offer(T0, pkt(s, 1000)).is_none());
    }
    assert_eq!(q.offer(T0, pkt(3, 1000)).unwrap().seg.0 as u64, 0);
    assert_eq!(q.offer(T0, pkt(4, 1000)).unwrap().seg.0 as u64, 1);
    assert_eq!(seqs(&q), vec![2, 3, 4]);
    assert_eq!(q.bytes(), 3000);
}

#[test]
fn drop_from_front_with_bytes_drops_the_arrival_if_the_head_is_too_small() {
    let mut q = Queue::new(Discipline::DropFront(DropFront::new(Limit::Bytes(2500))));
    for (s, size) in [(0, 500), (1, 1000), (2, 1000)] {
        assert!(q.offer(T0, pkt(s, size)).is_none());
    }
    // Dropping the 500-byte head leaves 2000 + 1500 > 2500: the arrival goes instead.
    assert_eq!(q.offer(T0, pkt(3, 1500)).unwrap().seg.0 as u64, 3);
    assert_eq!(seqs(&q), vec![0, 1, 2]);
    // A 500-byte arrival fits once the head goes: 2500 - 500 + 500 = 2500.
    assert_eq!(q.offer(T0, pkt(4, 500)).unwrap().seg.0 as u64, 0);
    assert_eq!(seqs(&q), vec![1, 2, 4]);
    assert_eq!(q.bytes(), 2500);
}

#[test]
fn random_drop_victim_is_the_streams_uniform_choice() {
    let mut q = Queue::new(Discipline::RandomDrop(Box::new(RandomDrop::new(
        Limit::Packets(4),
        Stream::new(5, "queue:x"),
    ))));
    for s in 0..4 {
        assert!(q.offer(T0, pkt(s, 1000)).is_none());
    }
    // The same stream, drawn by hand: victim index floor(u * 4) among the waiting packets.
    let mut shadow: Vec<u64> = (0..4).collect();
    let mut u = Stream::new(5, "queue:x");
    for s in 4..40 {
        let i = (u.uniform() * 4.0) as usize;
        let expected = shadow.remove(i);
        shadow.push(s);
        assert_eq!(
            q.offer(T0, pkt(s, 1000)).unwrap().seg.0 as u64,
            expected,
            "arrival {s}"
        );
        assert_eq!(seqs(&q), shadow);
    }
}

#[test]
fn random_drop_spreads_victims_uniformly_over_positions() {
    let mut q = Queue::new(Discipline::RandomDrop(Box::new(RandomDrop::new(
        Limit::Packets(5),
        Stream::new(9, "queue:y"),
    ))));
    for s in 0..5 {
        q.offer(T0, pkt(s, 1000));
    }
    let mut by_pos = [0u32; 5];
    for s in 5..50_005 {
        let before = seqs(&q);
        let v = q.offer(T0, pkt(s, 1000)).unwrap().seg.0 as u64;
        by_pos[before.iter().position(|&x| x == v).unwrap()] += 1;
    }
    // 10000 expected per position, binomial sd ~ 89: allow 5 sd.
    for c in by_pos {
        assert!((c as i64 - 10_000).abs() < 450, "{by_pos:?}");
    }
}

fn red_with(p: RedParams, limit: Limit) -> Queue {
    // 8 Mbit/s: a 1000-byte packet takes exactly 1 ms.
    let d = Red::new(limit, p, 8_000_000, Stream::new(3, "queue:red"));
    Queue::new(Discipline::Red(Box::new(d)))
}

fn params(w_q: f64, min_th: f64, max_th: f64, max_p: f64, gentle: bool) -> RedParams {
    RedParams {
        w_q,
        max_p,
        gentle,
        ..RedParams::ns2(min_th, max_th)
    }
}

fn red(w_q: f64, min_th: f64, max_th: f64, max_p: f64, gentle: bool, limit: u64) -> Queue {
    red_with(params(w_q, min_th, max_th, max_p, gentle), Limit::Packets(limit))
}

fn avg(q: &Queue) -> f64 {
    match q.discipline() {
        Discipline::Red(r) => r.avg(),
        _ => unreachable!(),
    }
}

const fn ms(x: u64) -> SimTime {
    SimTime::from_us(x * 1000)
}

#[test]
fn red_average_is_the_ewma_of_the_queue_seen_by_arrivals() {
    // No early drops (min_th above anything seen): avg <- (1 - w) avg + w q with w = 1/2,
    // by hand: 0, 0, 0.5, 1.25, 2.125.
    let mut q = red(0.5, 50.0, 100.0, 0.1, false, 1000);
    assert!(q.offer(T0, pkt(0, 1000)).is_none()); // idle link since 0: m = 0, then q = 0
    assert_eq!(q.take(T0).unwrap().seg.0 as u64, 0); // on the wire
    let mut got = vec![];
    for s in 1..5 {
        assert!(q.offer(T0, pkt(s, 1000)).is_none());
        got.push(avg(&q));
    }
    assert_eq!(got, vec![0.0, 0.5, 1.25, 2.125]);
}

#[test]
fn red_idle_gap_decays_the_average_then_takes_one_ewma_step() {
    // As above to avg = 2.125 with 4 waiting; the link sends them at 1..4 ms and finds the
    // buffer empty at 5 ms. An arrival at 8.5 ms: m = floor(3.5 ms / 1 ms) = 3 packet times,
    // then red.cc's EWMA step with q = 0: 2.125 / 8 / 2 = 0.1328125.
    let mut q = red(0.5, 50.0, 100.0, 0.1, false, 1000);
    q.offer(T0, pkt(0, 1000));
    q.take(T0);
    for s in 1..5 {
        q.offer(T0, pkt(s, 1000));
    }
    assert_eq!(avg(&q), 2.125);
    for t in 1..5 {
        assert!(q.take(ms(t)).is_some());
    }
    assert!(q.take(ms(5)).is_none());
    assert!(q.offer(SimTime::from_us(8_500), pkt(9, 1000)).is_none());
    assert_eq!(avg(&q), 0.1328125);
    assert!(q.take(SimTime::from_us(8_500)).is_some());
    // Busy again: the next arrival is one EWMA step (q = 0, the packet is on the wire).
    q.offer(ms(9), pkt(10, 1000));
    assert_eq!(avg(&q), 0.06640625);
}

#[test]
fn red_idle_period_goes_on_after_an_early_drop_at_the_idle_link() {
    // FJ93 Fig. 2 as printed drops early at any queue length, so an arrival at an idle link
    // can be dropped: the idle period must go on (issue #18's lock-out). w = 1/2, min_th 0.1,
    // max_th 0.2: p1 (q = 0, avg 0) admitted; p2, p3 (q = 1: avg 0.5, 0.75) dropped.
    let p = RedParams {
        rules: RedRules::Fj93Fig2,
        wait: false,
        ..params(0.5, 0.1, 0.2, 0.1, false)
    };
    let mut q = red_with(p, Limit::Packets(100));
    q.offer(T0, pkt(0, 1000));
    q.take(T0);
    assert!(q.offer(T0, pkt(1, 1000)).is_none());
    assert!(q.offer(T0, pkt(2, 1000)).is_some());
    assert!(q.offer(T0, pkt(3, 1000)).is_some());
    assert_eq!(avg(&q), 0.75);
    assert!(q.take(ms(1)).is_some());
    assert!(q.take(ms(2)).is_none()); // idle from 2 ms
                                      // 3.5 ms: m = 1, avg 0.375 >= max_th: dropped at the idle link.
    assert!(q.offer(SimTime::from_us(3_500), pkt(4, 1000)).is_some());
    assert_eq!(avg(&q), 0.375);
    // 6.5 ms: still idle, m = 3 since 3.5 ms: 0.375 / 8, below min_th: admitted. (Before the
    // fix this arrival took one busy EWMA step, avg 0.1875, and kept drawing drops.)
    assert!(q.offer(SimTime::from_us(6_500), pkt(5, 1000)).is_none());
    assert_eq!(avg(&q), 0.046875);
}

#[test]
fn red_idle_period_goes_on_after_a_forced_drop_at_the_idle_link() {
    // A byte limit of 1500 B (thresholds in bytes); w = 1/2. p0 on the wire, p1 admitted
    // (q = 0 B), p2 does not fit: overflow, avg 500 B. Idle from 2 ms.
    let mut q = red_with(params(0.5, 1000.0, 1500.0, 0.1, false), Limit::Bytes(1500));
    q.offer(T0, pkt(0, 1000));
    q.take(T0);
    assert!(q.offer(T0, pkt(1, 1000)).is_none());
    assert!(q.offer(T0, pkt(2, 1000)).is_some());
    assert_eq!(avg(&q), 500.0);
    q.take(ms(1));
    assert!(q.take(ms(2)).is_none());
    // 3.5 ms: a 2000-byte packet never fits: m = 1 and one step with q = 0: 125.
    assert!(q.offer(SimTime::from_us(3_500), pkt(3, 2000)).is_some());
    assert_eq!(avg(&q), 125.0);
    // 6.5 ms: idle since 3.5 ms, m = 3: 125 / 8 / 2.
    assert!(q.offer(SimTime::from_us(6_500), pkt(4, 1000)).is_none());
    assert_eq!(avg(&q), 7.8125);
}

#[test]
fn red_link_never_busy_decays_from_time_zero() {
    // The link is idle from 0 whatever happens first: an overflow at 2.5 ms (nothing fits a
    // 500-byte limit) keeps it idle; the first packet that fits, at 5 ms, sees m = 2.
    let mut q = red_with(params(0.5, 100.0, 400.0, 0.1, false), Limit::Bytes(500));
    assert!(q.offer(SimTime::from_us(2_500), pkt(0, 1000)).is_some());
    assert_eq!(avg(&q), 0.0);
    assert!(q.offer(ms(5), pkt(1, 400)).is_none());
    assert_eq!(avg(&q), 0.0);
}

/// Holds the queue at `hold` packets by offering arrivals at T0 (w_q = 1 makes avg the queue
/// each arrival finds) and then `n` arrivals of `sizes` (cycled): a dropped one leaves the
/// queue as it was, an admitted one is followed by a departure. Returns which were dropped.
fn red_drops(mut q: Queue, hold: u64, n: u64, sizes: &[u32]) -> Vec<bool> {
    let mut s = 0;
    while (q.len() as u64) < hold {
        q.offer(T0, pkt(s, 1000));
        s += 1;
        assert!(s < 100_000, "cannot fill to {hold}");
    }
    (0..n)
        .map(|s| {
            let size = sizes[s as usize % sizes.len()];
            let dropped = q.offer(T0, pkt(1_000_000 + s, size)).is_some();
            if !dropped {
                q.take(T0);
            }
            dropped
        })
        .collect()
}

/// red.cc's decisions for arrivals that all see the queue at `hold` (w_q = 1), its own text:
/// `++count; count_bytes += size`; `modify_p(p_b, count, ...)`; `u <= p` drops. `count`,
/// `count_bytes` are the state the filling left.
fn red_cc(p: &RedParams, pb: f64, mut count: i64, mut cbytes: u64, sizes: &[u32], n: usize) -> Vec<bool> {
    let mut u = Stream::new(3, "queue:red");
    let mean = p.mean_packet as u64;
    (0..n)
        .map(|i| {
            let size = sizes[i % sizes.len()];
            count += 1;
            cbytes += size as u64;
            let c = if p.byte_mode {
                (cbytes / mean) as f64
            } else {
                count as f64
            };
            let mut pa = if p.wait {
                if c * pb < 1.0 {
                    0.0
                } else if c * pb < 2.0 {
                    pb / (2.0 - c * pb)
                } else {
                    1.0
                }
            } else if c * pb < 1.0 {
                pb / (1.0 - c * pb)
            } else {
                1.0
            };
            if p.byte_mode && pa < 1.0 {
                pa = pa * size as f64 / mean as f64;
            }
            let d = u.uniform() <= pa.min(1.0);
            if d {
                count = 0;
                cbytes = 0;
            }
            d
        })
        .collect()
}

fn gaps(drops: &[bool]) -> Vec<usize> {
    let at: Vec<usize> = drops.iter().enumerate().filter(|d| *d.1).map(|d| d.0).collect();
    at.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn red_ns2_count_rule_with_wait_spaces_drops_uniformly_from_1_over_pb() {
    // avg = 3 between min_th 2 and max_th 4, max_p 0.2: p_b = 0.1. Filling: arrivals see q = 0,
    // 1 (below min_th) and 2 (>= min_th, more than one waiting, `old` was 0: count <- 1, no
    // draw). Then every arrival sees q = 3.
    let p = params(1.0, 2.0, 4.0, 0.2, false);
    let drops = red_drops(red_with(p, Limit::Packets(100)), 3, 20_000, &[1000]);
    assert_eq!(drops, red_cc(&p, 0.1, 1, 1000, &[1000], 20_000));
    // With wait, the gap is uniform on 10..=19 arrivals (each 1/10): never outside, mean 14.5.
    let g = gaps(&drops);
    assert!(g.iter().all(|&x| (10..=19).contains(&x)), "{g:?}");
    let mean = g.iter().sum::<usize>() as f64 / g.len() as f64;
    assert!((mean - 14.5).abs() < 0.15, "mean gap {mean}");
    // Without wait: p_a = p_b / (1 - count p_b), gaps uniform on 1..=9.
    let p = RedParams { wait: false, ..p };
    let drops = red_drops(red_with(p, Limit::Packets(100)), 3, 20_000, &[1000]);
    assert_eq!(drops, red_cc(&p, 0.1, 1, 1000, &[1000], 20_000));
    let g = gaps(&drops);
    assert!(g.iter().all(|&x| (1..=9).contains(&x)), "{g:?}");
    let mean = g.iter().sum::<usize>() as f64 / g.len() as f64;
    assert!((mean - 5.0).abs() < 0.1, "mean gap {mean}");
}

#[test]
fn red_ns2_byte_mode_counts_mean_packets_and_scales_by_size() {
    // As above (p_b = 0.1) in byte mode with arrivals of 500 and 1500 bytes: count is
    // count_bytes / 1000 (integer division), p_a is scaled by size / 1000 after modify_p.
    let p = RedParams {
        byte_mode: true,
        ..params(1.0, 2.0, 4.0, 0.2, false)
    };
    let sizes = [500, 1500, 1500, 500, 500];
    let drops = red_drops(red_with(p, Limit::Packets(100)), 3, 20_000, &sizes);
    assert_eq!(drops, red_cc(&p, 0.1, 1, 1000, &sizes, 20_000));
    // Large packets are dropped more often than small ones, about 3 times as often.
    let (mut big, mut small) = (0.0, 0.0);
    for (i, &d) in drops.iter().enumerate() {
        if d {
            if sizes[i % 5] == 1500 {
                big += 1.0
            } else {
                small += 1.0
            }
        }
    }
    let ratio = (big / 2.0) / (small / 3.0);
    assert!(ratio > 2.0 && ratio < 4.5, "{ratio}");
}

#[test]
fn red_ns2_never_drops_early_while_at_most_one_packet_waits() {
    // w = 1, min_th 0.5, max_th 1: p0 on the wire; p1 finds 0 waiting, p2 finds 1 (avg 1 >=
    // max_th): both admitted (red.cc's `qlen > 1`); p3 finds 2: `old` was 0, so count <- 1 and
    // it is admitted; p4, p5 find 3 with p_b = 1: dropped.
    let mut q = red(1.0, 0.5, 1.0, 0.1, false, 100);
    q.offer(T0, pkt(0, 1000));
    q.take(T0);
    let got: Vec<bool> = (1..6).map(|s| q.offer(T0, pkt(s, 1000)).is_some()).collect();
    assert_eq!(got, vec![false, false, false, true, true]);
    // FJ93 Fig. 2 as printed drops p2 already (avg 1 >= max_th with one waiting).
    let p = RedParams {
        rules: RedRules::Fj93Fig2,
        wait: false,
        ..params(1.0, 0.5, 1.0, 0.1, false)
    };
    let mut q = red_with(p, Limit::Packets(100));
    q.offer(T0, pkt(0, 1000));
    q.take(T0);
    let got: Vec<bool> = (1..4).map(|s| q.offer(T0, pkt(s, 1000)).is_some()).collect();
    assert_eq!(got, vec![false, true, true]);
}

#[test]
fn red_admits_below_min_th_and_drops_every_arrival_above_max_th() {
    assert!(red_drops(red(1.0, 5.0, 10.0, 1.0, false, 100), 4, 1000, &[1000])
        .iter()
        .all(|d| !d));
    // Held at 10 = max_th (after the filling's first arrival at >= min_th set `old`).
    assert!(red_drops(red(1.0, 5.0, 10.0, 0.1, false, 100), 10, 1000, &[1000])
        .iter()
        .all(|&d| d));
}

#[test]
fn red_gentle_ramps_from_max_p_to_one_between_max_th_and_twice_it() {
    // avg = 15 with max_th 10: p_b = 0.1 + 0.9 * 5 / 10 = 0.55; with wait, count 1 gives
    // p_a = 0 (count p_b < 1), count 2 gives 0.55 / 0.9, count 3 gives 1: gaps of 2 or 3.
    let d = red_drops(red(1.0, 5.0, 10.0, 0.1, true, 100), 15, 1000, &[1000]);
    let g = gaps(&d);
    assert!(g.iter().all(|&x| x == 2 || x == 3), "{g:?}");
    assert!(g.contains(&2) && g.contains(&3));
    // At 2 max_th and above every arrival is dropped, as without gentle mode.
    assert!(red_drops(red(1.0, 5.0, 10.0, 0.1, true, 100), 20, 100, &[1000])
        .iter()
        .all(|&x| x));
}

#[test]
fn red_forced_drop_when_the_buffer_is_full() {
    // Thresholds above the queue: RED never drops early, the limit still applies.
    let mut q = red(0.002, 50.0, 100.0, 0.1, false, 3);
    for s in 0..3 {
        assert!(q.offer(T0, pkt(s, 1000)).is_none());
    }
    assert_eq!(q.offer(T0, pkt(3, 1000)).unwrap().seg.0 as u64, 3);
}

/// What happens to each of `n` 1000-byte arrivals of codepoint `ecn` at a RED queue held at
/// `hold` packets as in `red_drops` (an admitted arrival is followed by a departure): 'd'
/// dropped, 'm' marked CE and admitted, '-' admitted unmarked.
fn red_outcomes(mut q: Queue, hold: u64, n: u64, ecn: crate::net::packet::Ecn) -> Vec<char> {
    let mut s = 0;
    while (q.len() as u64) < hold {
        q.offer(T0, pkt(s, 1000));
        s += 1;
    }
    (0..n)
        .map(|s| {
            q.clear_marks();
            let p = Packet {
                ecn,
                ..pkt(1_000_000 + s, 1000)
            };
            if q.offer(T0, p).is_some() {
                assert!(q.marked().is_empty());
                return 'd';
            }
            q.take(T0);
            match q.marked() {
                [] => '-',
                [(m, MarkCause::Early)] if m.seg == p.seg && m.ecn == crate::net::packet::Ecn::Ce => 'm',
                other => panic!("{other:?}"),
            }
        })
        .collect()
}

fn red_ecn(p: RedParams, mark_p: f64) -> Queue {
    red_with(
        RedParams {
            ecn: true,
            mark_p,
            ..p
        },
        Limit::Packets(100),
    )
}

#[test]
fn red_ecn_marks_where_ns2_drops_while_p_b_is_below_mark_p() {
    use crate::net::packet::Ecn;
    // As red_ns2_count_rule_with_wait: p_b = 0.1 at avg 3, the same draws (a mark admits the
    // arrival and the queue is held as after a drop). With mark_p 0.2 every early decision
    // on an ECT(0) arrival is a mark, exactly where red.cc drops.
    let p = params(1.0, 2.0, 4.0, 0.2, false);
    let expected = red_cc(&p, 0.1, 1, 1000, &[1000], 5000);
    let got = red_outcomes(red_ecn(p, 0.2), 3, 5000, Ecn::Ect0);
    let want: Vec<char> = expected.iter().map(|&d| if d { 'm' } else { '-' }).collect();
    assert_eq!(got, want);
    assert!(got.iter().filter(|&&c| c == 'm').count() > 300);
    // ns-2's default mark_p_ 0.1: v_prob1 = 0.1 is not below it, so red.cc drops (strict <).
    let got = red_outcomes(red_ecn(p, 0.1), 3, 5000, Ecn::Ect0);
    let want: Vec<char> = expected.iter().map(|&d| if d { 'd' } else { '-' }).collect();
    assert_eq!(got, want);
    // A Not-ECT arrival is dropped, ECN or not; ECT(1) is marked as ECT(0).
    let got = red_outcomes(red_ecn(p, 0.2), 3, 5000, Ecn::NotEct);
    assert_eq!(got, want);
    let got = red_outcomes(red_ecn(p, 0.2), 3, 5000, Ecn::Ect1);
    assert!(got.iter().all(|&c| c != 'd') && got.contains(&'m'));
}

#[test]
fn red_ecn_drops_above_max_th_and_marks_the_gentle_ramp_below_mark_p() {
    use crate::net::packet::Ecn;
    // Held at max_th (10): p_b = 1, not below any mark_p: every ECT arrival is dropped.
    let p = params(1.0, 5.0, 10.0, 0.1, false);
    assert!(red_outcomes(red_ecn(p, 1.0), 10, 1000, Ecn::Ect0)
        .iter()
        .all(|&c| c == 'd'));
    // Gentle, held at 15: p_b = 0.55 (draws as in red_gentle_ramps...): marked with mark_p 1,
    // dropped with ns-2's 0.1.
    let p = params(1.0, 5.0, 10.0, 0.1, true);
    let marked = red_outcomes(red_ecn(p, 1.0), 15, 1000, Ecn::Ect0);
    let dropped = red_outcomes(red_ecn(p, 0.1), 15, 1000, Ecn::Ect0);
    assert!(!marked.contains(&'d') && marked.contains(&'m'));
    let swap: Vec<char> = dropped.iter().map(|&c| if c == 'd' { 'm' } else { c }).collect();
    assert_eq!(marked, swap);
    // The full buffer still drops an ECT arrival (overflow): limit 3, thresholds above it.
    let mut q = red_with(
        RedParams {
            ecn: true,
            ..params(0.002, 50.0, 100.0, 0.1, false)
        },
        Limit::Packets(3),
    );
    for s in 0..3 {
        assert!(q
            .offer(
                T0,
                Packet {
                    ecn: Ecn::Ect0,
                    ..pkt(s, 1000)
                }
            )
            .is_none());
    }
    assert!(q
        .offer(
            T0,
            Packet {
                ecn: Ecn::Ect0,
                ..pkt(3, 1000)
            }
        )
        .is_some());
}

#[test]
fn red_mark_p_is_checked() {
    let at = |spec: &str| {
        let s: RedSpec = toml::from_str(spec).unwrap();
        Red::validate(&s, Limit::Packets(100), "q").map_err(|e| e.to_string())
    };
    assert!(at("ecn = true\nmark_p = 1.0").is_ok());
    let e = at("ecn = true\nmark_p = 0").unwrap_err();
    assert!(e.contains("q.red.mark_p") && e.contains("0 < mark_p <= 1"), "{e}");
    let e = at("mark_p = 0.5").unwrap_err();
    assert!(e.contains("q.red.mark_p") && e.contains("ecn = true"), "{e}");
}

#[test]
fn red_harddrop_decides_the_region_where_p_b_is_1_as_linux_does() {
    use crate::net::packet::Ecn;
    // Linux sch_red.c red_enqueue, RED_HARD_MARK: with ecn and without harddrop an ECT
    // arrival is marked (forced_mark), a Not-ECT one dropped (INET_ECN_set_ce fails); with
    // harddrop, or without ecn, every arrival is dropped (forced_drop).
    let hard = |harddrop: bool, gentle: bool, rules: RedRules| RedParams {
        ecn: true,
        mark_p: 0.1,
        harddrop,
        rules,
        ..params(1.0, 5.0, 10.0, 0.1, gentle)
    };
    let q = |p: RedParams| red_with(p, Limit::Packets(100));
    for rules in [RedRules::Ns2, RedRules::Fj93Fig2] {
        // Held at max_th (w_q 1: the average is the queue): p_b = 1. (With fig2's rules the
        // first arrival still sees the idle decay of the filling, avg 0: it is left out.)
        let all = |v: Vec<char>, c: char| v.len() == 200 && v[1..].iter().all(|&x| x == c);
        assert!(all(
            red_outcomes(q(hard(false, false, rules)), 10, 200, Ecn::Ect0),
            'm'
        ));
        assert!(all(
            red_outcomes(q(hard(false, false, rules)), 10, 200, Ecn::Ect1),
            'm'
        ));
        assert!(all(
            red_outcomes(q(hard(false, false, rules)), 10, 200, Ecn::NotEct),
            'd'
        ));
        assert!(all(
            red_outcomes(q(hard(true, false, rules)), 10, 200, Ecn::Ect0),
            'd'
        ));
        // Gentle: the hard region starts at 2 max_th.
        assert!(all(
            red_outcomes(q(hard(false, true, rules)), 20, 200, Ecn::Ect0),
            'm'
        ));
        assert!(all(
            red_outcomes(q(hard(true, true, rules)), 20, 200, Ecn::Ect0),
            'd'
        ));
        let off = RedParams {
            ecn: false,
            ..hard(false, false, rules)
        };
        assert!(all(red_outcomes(q(off), 10, 200, Ecn::Ect0), 'd'));
    }
    // Below the hard region harddrop changes nothing: gentle, held at 15, p_b = 0.55 is not
    // below mark_p 0.1, so the ramp's decisions drop either way, with the same draws.
    let a = red_outcomes(q(hard(false, true, RedRules::Ns2)), 15, 1000, Ecn::Ect0);
    let b = red_outcomes(q(hard(true, true, RedRules::Ns2)), 15, 1000, Ecn::Ect0);
    assert_eq!(a, b);
    assert!(a.contains(&'d') && a.contains(&'-') && !a.contains(&'m'));
    // Left out, harddrop is true (today's rule, ns-2's).
    let s: RedSpec = toml::from_str("ecn = true").unwrap();
    assert!(s.params(Limit::Packets(100)).harddrop);
}

#[test]
fn red_harddrop_needs_ecn() {
    let s: RedSpec = toml::from_str("harddrop = false").unwrap();
    let e = Red::validate(&s, Limit::Packets(100), "q")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "q.red.harddrop: given without ecn (expected ecn = true with harddrop)"
    );
    let s: RedSpec = toml::from_str("ecn = true\nharddrop = false").unwrap();
    assert!(Red::validate(&s, Limit::Packets(100), "q").is_ok());
}
