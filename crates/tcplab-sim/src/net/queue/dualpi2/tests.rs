//! DualPI2 known answers (RFC 9332 App. A.1): p', p_CL and p_C after scripted queue delays
//! (Fig. 6's float arithmetic, written out in each test), the classifier (Fig. 3), the step,
//! the coupled and squared marks with `recur` (Fig. 4), the overload rules (Sec. 4.2.3), the
//! WRR scheduler (Linux `dequeue_packet`) and the errors.

use super::*;
use crate::net::queue::tests::pkt;

const MS: u64 = 1_000_000;

fn at(ms: u64) -> SimTime {
    SimTime(ms * MS)
}

fn params() -> DualPi2Params {
    DualPi2Params::DEFAULT
}

#[test]
fn p_prime_follows_fig_6_with_the_default_gains() {
    let prm = params();
    let mut c = Pi2::new(&prm);
    // Update 1: curq 20 ms, prevq 0: p' = 0.16 (0.020 - 0.015) + 3.2 (0.020 - 0).
    c.update(&prm, at(20));
    let e1 = 0.0 + (0.16 * (0.02 - 0.015) + 3.2 * (0.02 - 0.0));
    assert_eq!((c.p, c.p_cl, c.p_c), (e1, 2.0 * e1, e1 * e1));
    assert!((e1 - 0.0648).abs() < 1e-15);
    // Update 2: 20 ms again: the integral term only.
    c.update(&prm, at(20));
    let e2 = e1 + (0.16 * (0.02 - 0.015) + 3.2 * (0.02 - 0.02));
    assert_eq!((c.p, c.p_cl, c.p_c), (e2, 2.0 * e2, e2 * e2));
    assert!((e2 - 0.0656).abs() < 1e-15);
    // Update 3: down to 5 ms.
    c.update(&prm, at(5));
    let e3 = e2 + (0.16 * (0.005 - 0.015) + 3.2 * (0.005 - 0.02));
    assert_eq!((c.p, c.p_cl, c.p_c), (e3, 2.0 * e3, e3 * e3));
    assert!((e3 - 0.016).abs() < 1e-15);
    // Update 4: empty (0): 0.016 - 0.0024 - 0.016 < 0, bounded at 0.
    c.update(&prm, SimTime::ZERO);
    assert_eq!((c.p, c.p_cl, c.p_c, c.prevq), (0.0, 0.0, 0.0, SimTime::ZERO));
    // A standing 500 ms: bounded at 1 (p_CL = 2, p_C = 1).
    for _ in 0..3 {
        c.update(&prm, at(500));
    }
    assert_eq!((c.p, c.p_cl, c.p_c), (1.0, 2.0, 1.0));
    // Without drop on overload p' stops at 1/k = 0.5 (Linux's MAX_PROB / coupling_factor).
    let ovf = DualPi2Params {
        drop_on_overload: false,
        ..params()
    };
    let mut c = Pi2::new(&ovf);
    c.update(&ovf, at(500));
    assert_eq!((c.p, c.p_cl, c.p_c), (0.5, 1.0, 0.25));
    // k = 3: p_CL = 3 p'.
    let k3 = DualPi2Params { k: 3.0, ..params() };
    let mut c = Pi2::new(&k3);
    c.update(&k3, at(20));
    assert_eq!((c.p_cl, c.p_c), (3.0 * e1, e1 * e1));
}

fn dq(prm: DualPi2Params) -> DualPi2 {
    DualPi2::new(Limit::Packets(10000), prm, Stream::new(1, "queue:test"))
}

fn with(ecn: Ecn, seq: u64, size: u32) -> Packet {
    Packet { ecn, ..pkt(seq, size) }
}

fn offer(q: &mut DualPi2, now: SimTime, p: Packet) -> Result<(), DropCause> {
    let p = Packet { enqueued: now, ..p };
    q.enqueue(now, p, &mut Drops::new(), &mut Marks::new())
}

/// What happened to each packet in a dequeue at `now`: ('m', cause) marked, 'd' dropped, 's'
/// sent unmarked, with its sequence number.
fn take(q: &mut DualPi2, now: SimTime) -> Option<Vec<(u64, char, Option<MarkCause>)>> {
    let (mut d, mut m) = (Drops::new(), Marks::new());
    let got = q.dequeue(now, &mut d, &mut m);
    let mut out: Vec<_> = d.iter().map(|(x, _)| (x.seg.0 as u64, 'd', None)).collect();
    assert!(d.iter().all(|(_, c)| *c == DropCause::Sojourn));
    // Drops made by a dequeue that then finds the queue empty count too (the link reports them).
    let Some(p) = got else {
        assert!(m.is_empty());
        return (!out.is_empty()).then_some(out);
    };
    match m.as_slice() {
        [] => out.push((p.seg.0 as u64, 's', None)),
        [(x, c)] => {
            assert_eq!((x.seg, x.ecn, p.ecn), (p.seg, Ecn::Ce, Ecn::Ce));
            out.push((p.seg.0 as u64, 'm', Some(*c)));
        }
        other => panic!("{other:?}"),
    }
    Some(out)
}

fn drain(q: &mut DualPi2, now: SimTime) -> Vec<(u64, char, Option<MarkCause>)> {
    std::iter::from_fn(|| take(q, now)).flatten().collect()
}

#[test]
fn ect1_and_ce_go_to_the_l_queue_everything_else_to_c() {
    let mut q = dq(params());
    for (s, e) in [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce].into_iter().enumerate() {
        offer(&mut q, SimTime::ZERO, with(e, s as u64, 1000)).unwrap();
    }
    assert_eq!(q.lens(), (2, 2));
    assert_eq!((q.len(), q.bytes()), (4, 4000));
    let seqs: Vec<Vec<u64>> = [&q.l, &q.c]
        .iter()
        .map(|l| l.fifo.iter().map(|p| p.seg.0 as u64).collect())
        .collect();
    assert_eq!(seqs, vec![vec![2, 3], vec![0, 1]]);
    // The buffer is shared: with limit 4 a fifth arrival overflows, whatever its class.
    let mut q = DualPi2::new(Limit::Packets(4), params(), Stream::new(1, "x"));
    for s in 0..4 {
        offer(&mut q, SimTime::ZERO, with(Ecn::Ect1, s, 1000)).unwrap();
    }
    assert_eq!(offer(&mut q, SimTime::ZERO, with(Ecn::NotEct, 9, 1000)), Err(DropCause::Overflow));
}

#[test]
fn an_l_packet_above_the_step_is_marked_threshold() {
    // p' = 0, step 1 ms (strictly above, Linux do_step_aqm).
    let mut q = dq(params());
    for s in 0..3 {
        offer(&mut q, SimTime::ZERO, with(Ecn::Ect1, s, 1000)).unwrap();
    }
    assert_eq!(take(&mut q, SimTime(999_999)), Some(vec![(0, 's', None)]));
    assert_eq!(take(&mut q, at(1)), Some(vec![(1, 's', None)]));
    assert_eq!(
        take(&mut q, SimTime(1_000_001)),
        Some(vec![(2, 'm', Some(MarkCause::Threshold))])
    );
    // In packets: more than 2 L packets left after the dequeue.
    let mut q = dq(DualPi2Params {
        step: StepThreshold::Packets(2),
        ..params()
    });
    for s in 0..5 {
        offer(&mut q, SimTime::ZERO, with(Ecn::Ect1, s, 1000)).unwrap();
    }
    let got: Vec<char> = drain(&mut q, SimTime::ZERO).iter().map(|x| x.1).collect();
    assert_eq!(got, vec!['m', 'm', 's', 's', 's']);
}

/// A queue whose controller is pinned at `p` (no update within the test: tupdate 1000 s).
fn pinned(prm: DualPi2Params, p: f64) -> DualPi2 {
    let prm = DualPi2Params {
        tupdate: SimTime::from_secs(1000),
        ..prm
    };
    let mut q = dq(prm);
    q.pi2.p = p;
    q.pi2.p_cl = prm.k * p;
    q.pi2.p_c = p * p;
    q
}

#[test]
fn coupled_and_squared_marks_follow_recur() {
    // p' = 0.125: p_CL = 0.25 for L, p_C = 1/64 for C. recur's count reaches exactly 1 at
    // the 4th L decision (not above 1), so the 5th is the first mark, then every 4th: 5, 9.
    let mut q = pinned(params(), 0.125);
    for s in 1..=12 {
        offer(&mut q, SimTime::ZERO, with(Ecn::Ect1, s, 1000)).unwrap();
    }
    let marked: Vec<u64> = drain(&mut q, SimTime::ZERO)
        .into_iter()
        .filter(|x| x.1 == 'm')
        .map(|x| {
            assert_eq!(x.2, Some(MarkCause::Sojourn));
            x.0
        })
        .collect();
    assert_eq!(marked, vec![5, 9]);
    // C: decisions 65 and 129 are positive; the 65th packet is Not-ECT (dropped, and the
    // dequeue goes on to the 66th), the 129th ECT(0) (marked).
    let mut q = pinned(params(), 0.125);
    for s in 1..=130 {
        let e = if s == 65 { Ecn::NotEct } else { Ecn::Ect0 };
        offer(&mut q, SimTime::ZERO, with(e, s, 1000)).unwrap();
    }
    let got = drain(&mut q, SimTime::ZERO);
    let not_sent: Vec<(u64, char)> = got.iter().filter(|x| x.1 != 's').map(|x| (x.0, x.1)).collect();
    assert_eq!(not_sent, vec![(65, 'd'), (129, 'm')]);
    assert_eq!(got.len(), 130);
    // The C queue's counters: the AQM's drop and mark, the 129 packets sent.
    let c = &q.lane_stats()[1];
    assert_eq!((c.packets, c.drops, c.marks), (129, 1, 1));
}

#[test]
fn overload_drops_l_packets_with_p_c_and_disables_classic_ecn() {
    // p' = 0.5: p_CL = 1 = p_Lmax, overload (Sec. 4.2.3). Each L packet: recur(p_C = 0.25)
    // drops, else recur(p_CL = 1) marks, on one count: drops at the 5th, 9th, 13th.
    let mut q = pinned(params(), 0.5);
    for s in 1..=13 {
        offer(&mut q, SimTime::ZERO, with(Ecn::Ect1, s, 1000)).unwrap();
    }
    let got = drain(&mut q, SimTime::ZERO);
    let drops: Vec<u64> = got.iter().filter(|x| x.1 == 'd').map(|x| x.0).collect();
    assert_eq!(drops, vec![5, 9, 13]);
    assert!(got.iter().all(|x| x.1 != 's'), "every other L packet is marked: {got:?}");
    // C: p_C = 0.25 >= p_Cmax = 1/k^2 = 0.25: ECT(0) packets are dropped (5th, 9th).
    let mut q = pinned(params(), 0.5);
    for s in 1..=10 {
        offer(&mut q, SimTime::ZERO, with(Ecn::Ect0, s, 1000)).unwrap();
    }
    let got = drain(&mut q, SimTime::ZERO);
    let not_sent: Vec<(u64, char)> = got.iter().filter(|x| x.1 != 's').map(|x| (x.0, x.1)).collect();
    assert_eq!(not_sent, vec![(5, 'd'), (9, 'd')]);
    // Without drop on overload (Linux `overflow`): L packets are only marked (recur(1):
    // all but the first), ECT(0) C packets marked.
    let ovf = DualPi2Params {
        drop_on_overload: false,
        ..params()
    };
    let mut q = pinned(ovf, 0.5);
    for s in 1..=6 {
        offer(&mut q, SimTime::ZERO, with(Ecn::Ect1, s, 1000)).unwrap();
    }
    let got: Vec<char> = drain(&mut q, SimTime::ZERO).iter().map(|x| x.1).collect();
    assert_eq!(got, vec!['s', 'm', 'm', 'm', 'm', 'm']);
    let mut q = pinned(ovf, 0.5);
    for s in 1..=10 {
        offer(&mut q, SimTime::ZERO, with(Ecn::Ect0, s, 1000)).unwrap();
    }
    let got = drain(&mut q, SimTime::ZERO);
    let not_sent: Vec<(u64, char)> = got.iter().filter(|x| x.1 != 's').map(|x| (x.0, x.1)).collect();
    assert_eq!(not_sent, vec![(5, 'm'), (9, 'm')]);
}

#[test]
fn the_wrr_scheduler_gives_the_l_queue_nine_packets_in_ten() {
    // Credit starts at 1500 (10 - 90) = -120000; an L packet of 1500 bytes while C waits adds
    // 10 x 1500, a C packet while L waits takes 90 x 1500 off: 9 L, 1 C, 9 L, 1 C, then L's
    // last two (credit back at -120000), then C alone.
    let mut q = dq(params());
    for s in 0..20 {
        offer(&mut q, SimTime::ZERO, with(Ecn::Ect1, s, 1500)).unwrap();
        offer(&mut q, SimTime::ZERO, with(Ecn::NotEct, 100 + s, 1500)).unwrap();
    }
    let order: String = drain(&mut q, SimTime::ZERO)
        .iter()
        .map(|x| if x.0 < 100 { 'L' } else { 'C' })
        .collect();
    let expected = format!("{}C{}C{}{}", "L".repeat(9), "L".repeat(9), "LL", "C".repeat(18));
    assert_eq!(order, expected);
    assert_eq!(q.credit, params().credit_init(), "restarted when both are empty");
    // wc = 50: alternate.
    let mut q = dq(DualPi2Params {
        wc: 50,
        ..params()
    });
    for s in 0..3 {
        offer(&mut q, SimTime::ZERO, with(Ecn::Ect1, s, 1500)).unwrap();
        offer(&mut q, SimTime::ZERO, with(Ecn::NotEct, 100 + s, 1500)).unwrap();
    }
    let order: String = drain(&mut q, SimTime::ZERO)
        .iter()
        .map(|x| if x.0 < 100 { 'L' } else { 'C' })
        .collect();
    assert_eq!(order, "LCLCLC");
}

#[test]
fn the_controller_runs_every_tupdate_on_the_c_heads_sojourn_time() {
    // A C packet waits from t = 0; the updates at 16 and 32 ms see 16 and 32 ms (they run
    // before the enqueue at 40 ms that triggers them).
    let mut q = dq(params());
    offer(&mut q, SimTime::ZERO, with(Ecn::NotEct, 0, 1000)).unwrap();
    offer(&mut q, at(40), with(Ecn::NotEct, 1, 1000)).unwrap();
    let e1 = 0.0 + (0.16 * (0.016 - 0.015) + 3.2 * (0.016 - 0.0));
    let e2 = e1 + (0.16 * (0.032 - 0.015) + 3.2 * (0.032 - 0.016));
    assert_eq!((q.pi2.p, q.pi2.prevq, q.pi2.next_update), (e2, at(32), at(48)));
    // An L packet alone: "classic" sees an empty C queue (p' stays 0), "max" sees the L head.
    let mut q = dq(params());
    offer(&mut q, SimTime::ZERO, with(Ecn::Ect1, 0, 1000)).unwrap();
    offer(&mut q, at(20), with(Ecn::Ect1, 1, 1000)).unwrap();
    assert_eq!(q.pi2.p, 0.0);
    let mut q = dq(DualPi2Params {
        curq: Curq::Max,
        ..params()
    });
    offer(&mut q, SimTime::ZERO, with(Ecn::Ect1, 0, 1000)).unwrap();
    offer(&mut q, at(20), with(Ecn::Ect1, 1, 1000)).unwrap();
    assert_eq!(q.pi2.p, 0.0 + (0.16 * (0.016 - 0.015) + 3.2 * (0.016 - 0.0)));
    // Idle at rest for 10 s: the next update is the first multiple of 16 ms after.
    let mut q = dq(params());
    offer(&mut q, SimTime::from_secs(10), with(Ecn::NotEct, 0, 1000)).unwrap();
    assert_eq!(q.pi2.next_update, SimTime(10_000 * MS + 16 * MS));
    assert_eq!(q.pi2.p, 0.0);
}

#[test]
fn random_marking_draws_from_the_stream() {
    // With p' pinned at 0.125 and `random`, L packets are marked with probability 0.25: over
    // 4000 packets the count is within 4 standard deviations (sd = sqrt(4000 x 0.25 x 0.75)).
    let mut q = pinned(
        DualPi2Params {
            marking: Likelihood::Random,
            ..params()
        },
        0.125,
    );
    for s in 0..4000 {
        offer(&mut q, SimTime::ZERO, with(Ecn::Ect1, s, 100)).unwrap();
    }
    let marks = drain(&mut q, SimTime::ZERO).iter().filter(|x| x.1 == 'm').count() as f64;
    let sd = (4000.0f64 * 0.25 * 0.75).sqrt();
    assert!((marks - 1000.0).abs() < 4.0 * sd, "{marks}");
    assert_ne!(marks, 1000.0, "not the recur count");
}

#[test]
fn every_option_out_of_range_is_one_error_naming_it() {
    let check = |spec: DualPi2Spec| {
        DualPi2::validate(&spec, Limit::Packets(1000), "q")
            .map_err(|e| e.to_string())
            .err()
    };
    assert_eq!(check(DualPi2Spec::default()), None);
    let zero = Some(Duration(SimTime::ZERO));
    let cases: Vec<(DualPi2Spec, &str, &str)> = vec![
        (DualPi2Spec { target: zero, ..Default::default() }, "q.dualpi2.target", "target > 0"),
        (DualPi2Spec { tupdate: zero, ..Default::default() }, "q.dualpi2.tupdate", "tupdate > 0"),
        (DualPi2Spec { alpha: Some(0.0), ..Default::default() }, "q.dualpi2.alpha", "0 < alpha <= 100"),
        (DualPi2Spec { beta: Some(101.0), ..Default::default() }, "q.dualpi2.beta", "0 < beta <= 100"),
        (DualPi2Spec { beta: Some(f64::NAN), ..Default::default() }, "q.dualpi2.beta", "(0, 100]"),
        (
            DualPi2Spec { coupling: Some(0.5), ..Default::default() },
            "q.dualpi2.coupling",
            "1 <= coupling <= 255",
        ),
        (
            DualPi2Spec {
                step_packets: Some(3),
                step_threshold: Some(Duration(SimTime::from_ms(1))),
                ..Default::default()
            },
            "q.dualpi2.step_packets",
            "one of step_threshold",
        ),
        (
            DualPi2Spec { classic_protection: Some(101), ..Default::default() },
            "q.dualpi2.classic_protection",
            "0 <= classic_protection <= 100",
        ),
    ];
    for (spec, field, expected) in cases {
        let e = check(spec).unwrap_or_else(|| panic!("{field} accepted"));
        assert!(e.contains(field) && e.contains(expected), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

#[test]
fn the_lane_counters_split_packets_drops_marks_and_sojourn_by_queue() {
    // p' = 0.125 as in `coupled_and_squared_marks_follow_recur` (the step out of the way at
    // 1 s), a buffer of 20 packets. 12 L packets at t = 0: marked 5th and 9th. 8 C packets at
    // t = 0, then 2 more arrivals find the buffer full: one L, one C (overflow drops).
    let prm = DualPi2Params {
        step: StepThreshold::Time(SimTime::from_secs(1)),
        ..params()
    };
    let mut q = pinned(prm, 0.125);
    q.limit = Limit::Packets(20);
    for s in 1..=12 {
        offer(&mut q, SimTime::ZERO, with(Ecn::Ect1, s, 1000)).unwrap();
    }
    for s in 1..=8 {
        offer(&mut q, SimTime::ZERO, with(Ecn::Ect0, 100 + s, 1000)).unwrap();
    }
    assert_eq!(offer(&mut q, at(1), with(Ecn::Ect1, 50, 1000)), Err(DropCause::Overflow));
    assert_eq!(offer(&mut q, at(1), with(Ecn::NotEct, 150, 1000)), Err(DropCause::Overflow));
    // One packet a millisecond from t = 1 ms. The WRR's credit, -120000, rises by 10 x 1000
    // per L packet: 0 after the 12th, so the 12 L packets go first (1 .. 12 ms), then the 8
    // C packets (13 .. 20 ms).
    let mut t = 1;
    while take(&mut q, at(t)).is_some() {
        t += 1;
    }
    let [l, c] = q.lane_stats().clone();
    assert_eq!((l.packets, l.drops, l.marks), (12, 1, 2));
    // C: p_C = 1/64 gives no positive decision within 8 packets.
    assert_eq!((c.packets, c.drops, c.marks), (8, 1, 0));
    let l_ms: u64 = (1..=12).sum();
    let c_ms: u64 = (13..=20).sum();
    assert_eq!(l.sojourn_ns, (l_ms * MS) as u128);
    assert_eq!(c.sojourn_ns, (c_ms * MS) as u128);
    assert_eq!(l.mean_sojourn_s(), (l_ms * MS) as f64 / 12.0 * 1e-9);
    // The 99th percentile of 12 (8) values is the largest: 12 ms (20 ms), to within 1/64.
    assert!((l.p99_sojourn_s() / 12e-3 - 1.0).abs() < 1.0 / 64.0);
    assert!((c.p99_sojourn_s() / 20e-3 - 1.0).abs() < 1.0 / 64.0);
    // The window opens: zero again.
    q.reset_lane_stats();
    assert_eq!(q.lane_stats(), &[LaneStats::default(), LaneStats::default()]);
}
