//! Known-answer tests of the FIFO disciplines' drop decisions on scripted arrivals.

use super::*;
use crate::rng::Stream;
use crate::tcp::segment::Segment;

pub(crate) fn pkt(seq: u64, size: u32) -> Packet {
    Packet::tcp(0, 0, 1, Segment::data(seq, size.saturating_sub(40), size))
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
    fifo.iter().map(|p| p.seg.seq).collect()
}

#[test]
fn drop_tail_packets_limit() {
    let mut q = Queue::drop_tail(Limit::Packets(2));
    assert!(q.offer(T0, pkt(0, 1000)).is_none());
    assert!(q.offer(T0, pkt(1, 1000)).is_none());
    let dropped = q.offer(T0, pkt(2, 1000)).expect("third arrival dropped");
    assert_eq!(dropped.seg.seq, 2);
    assert_eq!(q.take(T0).unwrap().seg.seq, 0);
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
    assert_eq!(q.offer(T0, pkt(3, 1000)).unwrap().seg.seq, 0);
    assert_eq!(q.offer(T0, pkt(4, 1000)).unwrap().seg.seq, 1);
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
    assert_eq!(q.offer(T0, pkt(3, 1500)).unwrap().seg.seq, 3);
    assert_eq!(seqs(&q), vec![0, 1, 2]);
    // A 500-byte arrival fits once the head goes: 2500 - 500 + 500 = 2500.
    assert_eq!(q.offer(T0, pkt(4, 500)).unwrap().seg.seq, 0);
    assert_eq!(seqs(&q), vec![1, 2, 4]);
    assert_eq!(q.bytes(), 2500);
}

#[test]
fn random_drop_victim_is_the_streams_uniform_choice() {
    let mut q = Queue::new(Discipline::RandomDrop(RandomDrop::new(
        Limit::Packets(4),
        Stream::new(5, "queue:x"),
    )));
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
            q.offer(T0, pkt(s, 1000)).unwrap().seg.seq,
            expected,
            "arrival {s}"
        );
        assert_eq!(seqs(&q), shadow);
    }
}

#[test]
fn random_drop_spreads_victims_uniformly_over_positions() {
    let mut q = Queue::new(Discipline::RandomDrop(RandomDrop::new(
        Limit::Packets(5),
        Stream::new(9, "queue:y"),
    )));
    for s in 0..5 {
        q.offer(T0, pkt(s, 1000));
    }
    let mut by_pos = [0u32; 5];
    for s in 5..50_005 {
        let before = seqs(&q);
        let v = q.offer(T0, pkt(s, 1000)).unwrap().seg.seq;
        by_pos[before.iter().position(|&x| x == v).unwrap()] += 1;
    }
    // 10000 expected per position, binomial sd ~ 89: allow 5 sd.
    for c in by_pos {
        assert!((c as i64 - 10_000).abs() < 450, "{by_pos:?}");
    }
}

fn red(w_q: f64, min_th: f64, max_th: f64, max_p: f64, gentle: bool, limit: u64) -> Queue {
    let params = RedParams {
        w_q,
        min_th,
        max_th,
        max_p,
        gentle,
        byte_mode: false,
        mean_packet: 1000,
    };
    // 8 Mbit/s: a 1000-byte packet takes exactly 1 ms.
    let d = Red::new(
        Limit::Packets(limit),
        params,
        8_000_000,
        Stream::new(3, "queue:red"),
    );
    Queue::new(Discipline::Red(d))
}

fn avg(q: &Queue) -> f64 {
    match q.discipline() {
        Discipline::Red(r) => r.avg(),
        _ => unreachable!(),
    }
}

#[test]
fn red_average_is_the_ewma_of_the_queue_seen_by_arrivals() {
    // max_p = 0: no early drops, so the queue grows by one per arrival and avg follows
    // avg <- (1 - w) avg + w q with w = 1/2 (FJ93 Fig. 2), by hand: 0, 0.5, 1.25, 2.125.
    let mut q = red(0.5, 2.0, 100.0, 0.0, false, 1000);
    // The first arrival finds the link idle since t = 0: m = 0, avg stays 0.
    q.offer(T0, pkt(0, 1000));
    assert_eq!(avg(&q), 0.0);
    let mut got = vec![];
    for s in 1..4 {
        q.offer(T0, pkt(s, 1000));
        got.push(avg(&q));
    }
    assert_eq!(got, vec![0.5, 1.25, 2.125]);
}

#[test]
fn red_idle_time_decays_the_average_by_the_packets_not_sent() {
    let mut q = red(0.5, 100.0, 200.0, 0.1, false, 1000);
    q.offer(T0, pkt(0, 1000));
    for s in 1..5 {
        q.offer(T0, pkt(s, 1000)); // avg: 0.5, 1.25, 2.125, 3.0625
    }
    assert_eq!(avg(&q), 3.0625);
    while q.take(SimTime::from_ms(10)).is_some() {}
    // Idle from 10 ms to 13.5 ms: m = floor(3.5 ms / 1 ms) = 3 packet times.
    q.offer(SimTime::from_us(13_500), pkt(9, 1000));
    assert_eq!(avg(&q), 3.0625 * 0.125);
    // The link is busy again: the next arrival uses the EWMA (queue of 1 packet).
    q.offer(SimTime::from_ms(14), pkt(10, 1000));
    assert_eq!(avg(&q), 3.0625 * 0.125 * 0.5 + 0.5);
}

/// Holds the queue at `hold` packets (w_q = 1 makes avg the instantaneous queue) and offers
/// `n` arrivals; returns which were dropped. Filling may itself drop (and draw): arrivals are
/// offered until the queue holds `hold`.
fn red_drops(mut q: Queue, hold: u64, n: u64) -> Vec<bool> {
    let mut s = 0;
    while (q.len() as u64) < hold {
        q.offer(T0, pkt(s, 1000));
        s += 1;
        assert!(s < 100_000, "cannot fill to {hold}");
    }
    (0..n)
        .map(|s| {
            let dropped = q.offer(T0, pkt(1_000_000 + s, 1000)).is_some();
            if !dropped {
                q.take(T0);
            }
            dropped
        })
        .collect()
}

#[test]
fn red_spreads_drops_with_the_count_rule() {
    // avg = 3 between min_th 2 and max_th 4, max_p 0.2: p_b = 0.1 and
    // p_a = p_b / (1 - count p_b), count = arrivals admitted since the last drop (FJ93 Sec. 7).
    let drops = red_drops(red(1.0, 2.0, 4.0, 0.2, false, 100), 3, 20_000);
    // Filling: arrivals see q = 0 (idle), 1 (below min_th: count 0) and 2 (= min_th: p_b = 0,
    // one draw that cannot drop, count 1). So the held phase starts with count 1, one draw used.
    let mut u = Stream::new(3, "queue:red");
    u.uniform();
    let mut count: u64 = 1;
    for (i, &got) in drops.iter().enumerate() {
        let c = count as f64;
        let pa = if c * 0.1 >= 1.0 {
            1.0
        } else {
            0.1 / (1.0 - c * 0.1)
        };
        let d = u.uniform() < pa;
        count = if d { 0 } else { count + 1 };
        assert_eq!(got, d, "arrival {i}");
    }
    // The gap between drops is uniform on 1..=10 arrivals (FJ93 Sec. 7): never more than 10,
    // mean 5.5.
    let at: Vec<usize> = drops.iter().enumerate().filter(|d| *d.1).map(|d| d.0).collect();
    let gaps: Vec<usize> = at.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|&g| (1..=10).contains(&g)));
    let mean = gaps.iter().sum::<usize>() as f64 / gaps.len() as f64;
    assert!((mean - 5.5).abs() < 0.1, "mean gap {mean}");
    for g in 1..=10 {
        let share = gaps.iter().filter(|&&x| x == g).count() as f64 / gaps.len() as f64;
        assert!((share - 0.1).abs() < 0.02, "gap {g}: {share}");
    }
}

#[test]
fn red_admits_below_min_th_and_drops_every_arrival_above_max_th() {
    assert!(red_drops(red(1.0, 5.0, 10.0, 1.0, false, 100), 4, 1000)
        .iter()
        .all(|d| !d));
    assert!(red_drops(red(1.0, 5.0, 10.0, 0.1, false, 100), 10, 1000)
        .iter()
        .all(|&d| d));
}

#[test]
fn red_gentle_ramps_from_max_p_to_one_between_max_th_and_twice_it() {
    // avg = 15 with max_th 10: p_b = 0.1 + 0.9 * 5 / 10 = 0.55: not every arrival is dropped,
    // but the count rule makes p_a = 0.55 / 0.45 > 1 once one arrival was admitted.
    let d = red_drops(red(1.0, 5.0, 10.0, 0.1, true, 100), 15, 1000);
    let rate = d.iter().filter(|&&x| x).count();
    assert!(rate > 500 && rate < 1000, "{rate}");
    assert!(d.windows(2).all(|w| w[0] || w[1]), "two admitted in a row");
    // At 2 max_th and above every arrival is dropped, as without gentle mode.
    assert!(red_drops(red(1.0, 5.0, 10.0, 0.1, true, 100), 20, 100)
        .iter()
        .all(|&x| x));
}

#[test]
fn red_forced_drop_when_the_buffer_is_full() {
    // Thresholds above the limit: RED never drops early, the limit still applies.
    let mut q = red(0.002, 50.0, 100.0, 0.1, false, 3);
    for s in 0..3 {
        assert!(q.offer(T0, pkt(s, 1000)).is_none());
    }
    assert_eq!(q.offer(T0, pkt(3, 1000)).unwrap().seg.seq, 3);
}
