//! PIE known answers (RFC 8033): the drop probability after scripted updates, computed in each
//! test from the formulas of Sec. 4.2 (with the auto-tuning divisor and the cap of Sec. 5.5),
//! the burst allowance window (Sec. 4.4), the uncongested and de-randomization gates (Secs. 4.1,
//! 5.4), the ECN threshold (Sec. 5.1), the dequeue-rate estimate (Sec. 5.2) and the errors.

use super::*;
use crate::net::packet::Ecn;
use crate::net::queue::tests::pkt;

const MS: u64 = 1_000_000;

fn at(ms: u64) -> SimTime {
    SimTime(ms * MS)
}

fn params() -> PieParams {
    PieParams::DEFAULT
}

/// One update with the delay sample `qdelay_ms` and a non-empty queue.
fn step(v: &mut PieVars, p: &PieParams, qdelay_ms: u64) {
    v.current_qdelay = at(qdelay_ms);
    v.update(p, 10_000);
}

#[test]
fn drop_probability_follows_sec_4_2_with_the_auto_tuning_divisors() {
    let p = params();
    let mut v = PieVars::new(&p);
    // Update 1: qdelay 20 ms, qdelay_old 0, drop_prob 0 < 1e-6: divisor 2048.
    step(&mut v, &p, 20);
    let e1 = (0.125 * (0.02 - 0.015) + 1.25 * (0.02 - 0.0)) / 2048.0;
    assert_eq!(v.drop_prob, e1);
    assert!((0.00001..0.0001).contains(&e1), "{e1}: next divisor 128");
    // Update 2: 20 ms again (no proportional term), 1e-5 <= drop_prob < 1e-4: divisor 128.
    step(&mut v, &p, 20);
    let e2 = e1 + (0.125 * (0.02 - 0.015) + 1.25 * (0.02 - 0.02)) / 128.0;
    assert_eq!(v.drop_prob, e2);
    // Update 3: 100 ms (rising by 80 ms): still divisor 128.
    step(&mut v, &p, 100);
    let e3 = e2 + (0.125 * (0.1 - 0.015) + 1.25 * (0.1 - 0.02)) / 128.0;
    assert_eq!(v.drop_prob, e3);
    assert!((0.0001..0.001).contains(&e3), "{e3}: next divisor 32");
    // Update 4: 300 ms: divisor 32.
    step(&mut v, &p, 300);
    let e4 = e3 + (0.125 * (0.3 - 0.015) + 1.25 * (0.3 - 0.1)) / 32.0;
    assert_eq!(v.drop_prob, e4);
    assert!((0.001..0.01).contains(&e4), "{e4}: next divisor 8");
    // Update 5: back to 10 ms: the adjustment is negative, divisor 8.
    step(&mut v, &p, 10);
    let e5 = e4 + (0.125 * (0.01 - 0.015) + 1.25 * (0.01 - 0.3)) / 8.0;
    assert!(e5 < 0.0);
    assert_eq!(v.drop_prob, 0.0, "bounded below by 0");
    assert_eq!(v.qdelay_old, at(10));
}

#[test]
fn the_divisor_table_matches_sec_4_2() {
    let got: Vec<f64> = [0.0, 0.000005, 0.00005, 0.0005, 0.005, 0.05, 0.1, 0.5]
        .iter()
        .map(|&p| tuning_divisor(p))
        .collect();
    assert_eq!(got, vec![2048.0, 512.0, 128.0, 32.0, 8.0, 2.0, 1.0, 1.0]);
}

#[test]
fn increases_are_capped_at_2_percent_above_10_percent_unless_cap_drop_is_off() {
    let p = params();
    let mut v = PieVars::new(&p);
    v.drop_prob = 0.15;
    v.qdelay_old = at(20);
    step(&mut v, &p, 60);
    // Uncapped: 0.125 * 0.045 + 1.25 * 0.04 = 0.055625 > 0.02.
    assert_eq!(v.drop_prob, 0.15 + 0.02);
    let q = PieParams {
        cap_drop: false,
        ..params()
    };
    let mut v = PieVars::new(&q);
    v.drop_prob = 0.15;
    v.qdelay_old = at(20);
    step(&mut v, &q, 60);
    assert_eq!(v.drop_prob, 0.15 + (0.125 * (0.06 - 0.015) + 1.25 * (0.06 - 0.02)));
    // Below 10% the cap does not apply (divisor 2 at 5%).
    let mut v = PieVars::new(&p);
    v.drop_prob = 0.05;
    v.qdelay_old = at(20);
    step(&mut v, &p, 60);
    assert_eq!(v.drop_prob, 0.05 + (0.125 * (0.06 - 0.015) + 1.25 * (0.06 - 0.02)) / 2.0);
    // Bounded above by 1.
    let mut v = PieVars::new(&q);
    v.drop_prob = 0.99;
    step(&mut v, &q, 500);
    assert_eq!(v.drop_prob, 1.0);
}

#[test]
fn an_empty_queue_decays_the_probability_by_2_percent_per_update() {
    let p = params();
    let mut v = PieVars::new(&p);
    v.drop_prob = 0.5;
    v.qdelay_old = SimTime::ZERO;
    v.current_qdelay = at(40);
    // The queue is empty at the update: the sample is 0 (timestamps, Sec. 4.3), and with
    // qdelay_old 0 the probability decays after the (negative) adjustment.
    v.update(&p, 0);
    assert_eq!(v.current_qdelay, SimTime::ZERO);
    assert_eq!(v.drop_prob, (0.5 + 0.125 * (0.0 - 0.015)) * 0.98);
    // With a non-zero previous sample there is no decay.
    let mut v = PieVars::new(&p);
    v.drop_prob = 0.5;
    v.qdelay_old = at(4);
    v.update(&p, 0);
    assert_eq!(v.drop_prob, 0.5 + (0.125 * (0.0 - 0.015) + 1.25 * (0.0 - 0.004)));
}

#[test]
fn the_burst_allowance_runs_down_by_tupdate_and_is_restored_when_congestion_is_gone() {
    let p = params();
    let mut v = PieVars::new(&p);
    assert_eq!(v.burst_allowance, at(150));
    // Congested updates (delay 20 ms, at or above target / 2 = 7.5 ms): 150 -> 0 in 10 steps.
    for k in 1..=10u64 {
        step(&mut v, &p, 20);
        assert_eq!(v.burst_allowance, at(150 - 15 * k));
    }
    step(&mut v, &p, 20);
    assert_eq!(v.burst_allowance, SimTime::ZERO, "bottomed at 0");
    // The update itself never restores it (App. A: the decrement is its last step), even
    // with drop_prob 0 and both samples below 7.5 ms.
    let mut w = PieVars::new(&p);
    w.burst_allowance = SimTime::ZERO;
    w.qdelay_old = at(5);
    step(&mut w, &p, 5);
    assert_eq!((w.drop_prob, w.burst_allowance), (0.0, SimTime::ZERO));
    // The next arrival does (App. A's `enque`): drop_prob 0, the current sample (5 ms, a
    // packet waiting) and qdelay_old (5 ms) below 7.5 ms.
    w.restore_burst(&p, 1500);
    assert_eq!(w.burst_allowance, at(150));
    // drop_prob > 0: not restored.
    let mut w = PieVars::new(&p);
    w.burst_allowance = SimTime::ZERO;
    w.drop_prob = 0.5;
    w.qdelay_old = at(5);
    step(&mut w, &p, 5);
    assert!(w.drop_prob > 0.0);
    w.restore_burst(&p, 1500);
    assert_eq!(w.burst_allowance, SimTime::ZERO);
    // One sample at 7.5 ms or more: not restored; the current one of an empty queue is 0.
    let mut w = PieVars::new(&p);
    w.burst_allowance = SimTime::ZERO;
    w.qdelay_old = SimTime(7_500_000);
    w.current_qdelay = at(5);
    w.restore_burst(&p, 1500);
    assert_eq!(w.burst_allowance, SimTime::ZERO);
    w.qdelay_old = at(5);
    w.current_qdelay = SimTime(7_500_000);
    w.restore_burst(&p, 1500);
    assert_eq!(w.burst_allowance, SimTime::ZERO);
    w.restore_burst(&p, 0);
    assert_eq!(w.burst_allowance, at(150));
}

#[test]
fn the_allowance_is_restored_at_the_arrival_after_the_update_that_ends_congestion() {
    // App. A's order, one sample apart from a restore inside the update. The allowance is
    // spent (0) with drop_prob 0 and a 10 ms delay (above target / 2 = 7.5 ms, below the
    // target, so the probability stays 0). The update at 15 ms sees 5 ms with qdelay_old
    // 10 ms: both samples of that update are not below 7.5 ms, yet the arrival right after
    // it finds drop_prob 0, the current sample 5 ms and qdelay_old 5 ms: restored to 150 ms
    // there, not one update later.
    let p = params();
    let mut q = pie(p);
    for s in 0..3 {
        offer(&mut q, SimTime::ZERO, ect(s, Ecn::NotEct)).unwrap();
    }
    q.vars.burst_allowance = SimTime::ZERO;
    q.vars.qdelay_old = at(10);
    q.vars.current_qdelay = at(5);
    assert_eq!(offer(&mut q, at(15), ect(10, Ecn::NotEct)), Ok(false));
    assert_eq!((q.vars.qdelay_old, q.vars.drop_prob), (at(5), 0.0));
    assert_eq!(q.vars.burst_allowance, at(150));
}

#[test]
fn an_idle_queue_runs_the_allowance_down_as_the_updates_would() {
    // The skipped updates of an empty queue at rest leave exactly what running them leaves.
    let p = params();
    let mut skipped = PieVars::new(&p);
    skipped.catch_up(at(100), &p, 0);
    let mut run = PieVars::new(&p);
    for _ in 0..6 {
        run.update(&p, 0);
    }
    run.next_update = at(105);
    assert_eq!(skipped, run);
    assert_eq!(skipped.burst_allowance, at(60));
}

fn pie(p: PieParams) -> Pie {
    Pie::new(Limit::Packets(1000), p, Stream::new(1, "queue:test"))
}

fn ect(seq: u64, ecn: Ecn) -> Packet {
    Packet { ecn, ..pkt(seq, 1500) }
}

/// Offers `p` at `now`: Ok(marked) or the drop's cause.
fn offer(q: &mut Pie, now: SimTime, p: Packet) -> Result<bool, DropCause> {
    let (mut drops, mut marks) = (Drops::new(), Marks::new());
    // Stamped as the link stamps it.
    let p = Packet { enqueued: now, ..p };
    q.enqueue(now, p, &mut drops, &mut marks)?;
    assert!(drops.is_empty());
    Ok(match marks.as_slice() {
        [] => false,
        [(m, MarkCause::Early)] => {
            assert_eq!((m.seg, m.ecn), (p.seg, Ecn::Ce));
            true
        }
        other => panic!("unexpected marks {other:?}"),
    })
}

#[test]
fn no_early_drop_while_the_burst_allowance_lasts_then_every_arrival_at_probability_1() {
    // Three packets wait (4500 > 2 x 1500 bytes) with a 100 ms delay sample; drop_prob is 1
    // and stays there (the updates see 100 ms and a growing integral). The allowance of
    // 150 ms is spent at the 10th update, t = 150 ms: arrivals before it are admitted, the
    // one at 150 ms (the update runs first) and after are dropped early.
    let mut q = pie(PieParams {
        derandomize: false,
        ..params()
    });
    for s in 0..3 {
        assert_eq!(offer(&mut q, SimTime::ZERO, ect(s, Ecn::NotEct)), Ok(false));
    }
    q.vars.drop_prob = 1.0;
    q.vars.qdelay_old = at(100);
    q.vars.current_qdelay = at(100);
    let mut admitted = Vec::new();
    for (i, t) in [1, 14, 15, 100, 149, 150, 151, 200].into_iter().enumerate() {
        let r = offer(&mut q, at(t), ect(10 + i as u64, Ecn::NotEct));
        admitted.push((t, r));
        assert_eq!(q.vars.drop_prob, 1.0);
    }
    use DropCause::Early;
    assert_eq!(
        admitted,
        vec![
            (1, Ok(false)),
            (14, Ok(false)),
            (15, Ok(false)),
            (100, Ok(false)),
            (149, Ok(false)),
            (150, Err(Early)),
            (151, Err(Early)),
            (200, Err(Early)),
        ]
    );
    assert_eq!(q.vars.burst_allowance, SimTime::ZERO);
    assert_eq!(q.vars.next_update, at(210));
}

/// A queue at `drop_prob` with the allowance spent, 3 packets waiting and a 20 ms sample,
/// at t = 1 ms (before the first update).
fn congested(p: PieParams, drop_prob: f64) -> Pie {
    let mut q = pie(p);
    for s in 0..3 {
        offer(&mut q, SimTime::ZERO, ect(s, Ecn::NotEct)).unwrap();
    }
    q.vars.burst_allowance = SimTime::ZERO;
    q.vars.qdelay_old = at(20);
    q.vars.drop_prob = drop_prob;
    q
}

#[test]
fn no_early_drop_when_uncongested() {
    // Sec. 4.1: qdelay_old < 7.5 ms with drop_prob < 0.2, or at most 2 x 1500 bytes waiting.
    let np = PieParams {
        derandomize: false,
        ..params()
    };
    let mut q = congested(np, 0.19);
    q.vars.qdelay_old = at(7);
    for s in 0..20 {
        assert_eq!(offer(&mut q, at(1), ect(10 + s, Ecn::NotEct)), Ok(false));
    }
    // At drop_prob 0.2 the delay gate opens: with probability 1 the arrival is dropped.
    let mut q = congested(np, 1.0);
    q.vars.qdelay_old = at(7);
    assert_eq!(offer(&mut q, at(1), ect(10, Ecn::NotEct)), Err(DropCause::Early));
    // Two packets (3000 bytes) waiting: no drop, even at probability 1.
    let mut q = pie(np);
    for s in 0..2 {
        offer(&mut q, SimTime::ZERO, ect(s, Ecn::NotEct)).unwrap();
    }
    q.vars.burst_allowance = SimTime::ZERO;
    q.vars.qdelay_old = at(20);
    q.vars.drop_prob = 1.0;
    assert_eq!(offer(&mut q, at(1), ect(2, Ecn::NotEct)), Ok(false));
    assert_eq!(offer(&mut q, at(1), ect(3, Ecn::NotEct)), Err(DropCause::Early));
}

#[test]
fn derandomization_spaces_the_drops_by_the_accumulated_probability() {
    // Sec. 5.4: accu_prob grows by drop_prob at each arrival past the gates; below 0.85 no
    // drop and no draw, so at 0.1 the first 8 arrivals (0.1 .. 0.8) are admitted without
    // touching the stream; the 9th (0.9) draws.
    let mut q = congested(params(), 0.1);
    let fresh = Stream::new(1, "queue:test");
    for s in 0..8 {
        assert_eq!(offer(&mut q, at(1), ect(10 + s, Ecn::NotEct)), Ok(false));
    }
    assert!((q.vars.accu_prob - 0.8).abs() < 1e-12);
    assert_eq!(q.rng.clone().uniform(), fresh.clone().uniform(), "no draw yet");
    let _ = offer(&mut q, at(1), ect(20, Ecn::NotEct));
    assert_ne!(q.rng.clone().uniform(), fresh.clone().uniform(), "drawn");
    // At 8.5 the drop is certain, without a draw, and a drop resets the sum.
    let mut q = congested(params(), 0.1);
    q.vars.accu_prob = 8.4;
    assert_eq!(offer(&mut q, at(1), ect(10, Ecn::NotEct)), Err(DropCause::Early));
    assert_eq!(q.vars.accu_prob, 0.0);
    assert_eq!(q.rng.clone().uniform(), fresh.clone().uniform());
}

#[test]
fn with_ecn_arrivals_are_marked_at_or_below_mark_ecnth_and_dropped_above() {
    let ecn = PieParams {
        ecn: true,
        ..params()
    };
    // accu_prob at 8.5 makes each decision certain (Sec. 5.4), so the outcome is the ECN
    // rule's alone. At drop_prob = mark_ecnth = 0.1 (Linux: prob <= MAX_PROB / 10): marked
    // and admitted, ECT(0), ECT(1) and CE alike; a Not-ECT arrival is dropped.
    let mut q = congested(ecn, 0.1);
    q.vars.accu_prob = 8.5;
    assert_eq!(offer(&mut q, at(1), ect(10, Ecn::Ect0)), Ok(true));
    assert_eq!(offer(&mut q, at(1), ect(11, Ecn::Ect1)), Ok(true));
    assert_eq!(offer(&mut q, at(1), ect(12, Ecn::Ce)), Ok(true));
    assert_eq!(offer(&mut q, at(1), ect(13, Ecn::NotEct)), Err(DropCause::Early));
    assert_eq!(q.vars.accu_prob, 0.0, "a drop resets the sum, a mark does not");
    // Just above the threshold: dropped.
    let mut q = congested(ecn, 0.1 + 1e-9);
    q.vars.accu_prob = 8.5;
    assert_eq!(offer(&mut q, at(1), ect(10, Ecn::Ect0)), Err(DropCause::Early));
    // A lower threshold, and ECN off.
    let low = PieParams {
        mark_ecnth: 0.05,
        ..ecn
    };
    let mut q = congested(low, 0.1);
    q.vars.accu_prob = 8.5;
    assert_eq!(offer(&mut q, at(1), ect(10, Ecn::Ect0)), Err(DropCause::Early));
    let mut q = congested(params(), 0.1);
    q.vars.accu_prob = 8.5;
    assert_eq!(offer(&mut q, at(1), ect(10, Ecn::Ect0)), Err(DropCause::Early));
    // The marked packets leave CE.
    let mut q = congested(ecn, 0.1);
    q.vars.accu_prob = 8.5;
    offer(&mut q, at(1), ect(10, Ecn::Ect0)).unwrap();
    let (mut d, mut m) = (Drops::new(), Marks::new());
    let out: Vec<Ecn> = std::iter::from_fn(|| q.dequeue(at(1), &mut d, &mut m))
        .map(|p| p.ecn)
        .collect();
    assert_eq!(out, vec![Ecn::NotEct, Ecn::NotEct, Ecn::NotEct, Ecn::Ce]);
}

#[test]
fn a_full_buffer_drops_and_resets_the_accumulated_probability() {
    let mut q = Pie::new(Limit::Packets(2), params(), Stream::new(1, "queue:test"));
    offer(&mut q, SimTime::ZERO, ect(0, Ecn::NotEct)).unwrap();
    offer(&mut q, SimTime::ZERO, ect(1, Ecn::NotEct)).unwrap();
    q.vars.accu_prob = 3.0;
    assert_eq!(offer(&mut q, SimTime::ZERO, ect(2, Ecn::Ect0)), Err(DropCause::Overflow));
    assert_eq!(q.vars.accu_prob, 0.0);
}

#[test]
fn the_timestamp_sample_is_the_last_departures_sojourn_time() {
    let mut q = pie(params());
    for s in 0..3 {
        offer(&mut q, at(s), ect(s, Ecn::NotEct)).unwrap();
    }
    let (mut d, mut m) = (Drops::new(), Marks::new());
    q.dequeue(at(10), &mut d, &mut m).unwrap();
    assert_eq!(q.vars.current_qdelay, at(10));
    q.dequeue(at(12), &mut d, &mut m).unwrap();
    assert_eq!(q.vars.current_qdelay, at(11));
    // The update at 15 ms sees 11 ms with one packet waiting.
    q.dequeue(at(15), &mut d, &mut m).unwrap();
    assert_eq!(q.vars.qdelay_old, at(11));
    let e = (0.125 * (0.011 - 0.015) + 1.25 * (0.011 - 0.0)) / 2048.0;
    assert_eq!(q.vars.drop_prob, e);
    assert_eq!(q.vars.current_qdelay, at(13));
}

#[test]
fn the_dequeue_rate_estimate_follows_appendix_b() {
    // 20 packets of 1000 bytes; one leaves every ms from t = 0. After the first departure
    // 19000 >= 16384 bytes wait: a measurement starts at 0. The 17th departure after it
    // (t = 17 ms) brings dq_count to 17000 >= 16384: avg_dq_time = 17 ms (the first
    // estimate is taken whole). 2000 bytes then wait: no new measurement.
    let p = PieParams {
        dq_rate_estimator: true,
        ..params()
    };
    let mut v = PieVars::new(&p);
    let mut bytes = 20_000u64;
    for t in 0..=17u64 {
        bytes -= 1000;
        v.on_dequeue(at(t), &p, &pkt(t, 1000), bytes);
    }
    assert_eq!((v.avg_dq_time, v.in_measurement), (17.0e6, false));
    // The update's sample: 2000 bytes x 17 ms / 16384 = 2.0751953125 ms (to the ns).
    v.update(&p, 2000);
    assert_eq!(v.current_qdelay, SimTime(2_075_195));
    // A second measurement of 16 ms (16 departures of 1024 bytes, one per ms, from 100 ms)
    // is averaged with weight 16384 / 65536 = 0.25: 16 x 0.25 + 17 x 0.75 = 16.75 ms.
    v.on_dequeue(at(100), &p, &pkt(100, 1024), 20_000);
    assert!(v.in_measurement);
    for k in 1..=16u64 {
        v.on_dequeue(at(100 + k), &p, &pkt(100 + k, 1024), 20_000 - 1024 * k);
    }
    assert_eq!(v.avg_dq_time, 16.0e6 * 0.25 + 17.0e6 * 0.75);
}

#[test]
fn an_idle_queue_at_rest_skips_its_updates() {
    let mut q = pie(params());
    let (mut d, mut m) = (Drops::new(), Marks::new());
    offer(&mut q, at(1), ect(0, Ecn::NotEct)).unwrap();
    q.dequeue(at(1), &mut d, &mut m).unwrap();
    // 10 s idle: the state is at rest; the next update is the first multiple of 15 ms after.
    offer(&mut q, SimTime::from_secs(10), ect(1, Ecn::NotEct)).unwrap();
    assert_eq!(q.vars.next_update, SimTime(10_005 * MS));
    assert_eq!(q.vars, {
        let mut v = PieVars::new(&params());
        v.next_update = SimTime(10_005 * MS);
        v
    });
}

#[test]
fn every_option_out_of_range_is_one_error_naming_it() {
    let check = |spec: PieSpec| {
        Pie::validate(&spec, Limit::Packets(1000), "q")
            .map_err(|e| e.to_string())
            .err()
    };
    assert_eq!(check(PieSpec::default()), None);
    let d = |s: &str| Some(Duration(SimTime::from_secs_f64(s.parse::<f64>().unwrap())));
    let cases: Vec<(PieSpec, &str, &str)> = vec![
        (PieSpec { target: d("0"), ..Default::default() }, "q.pie.target", "target > 0"),
        (PieSpec { tupdate: d("0"), ..Default::default() }, "q.pie.tupdate", "tupdate > 0"),
        (PieSpec { alpha: Some(0.0), ..Default::default() }, "q.pie.alpha", "0 < alpha <= 32"),
        (PieSpec { alpha: Some(33.0), ..Default::default() }, "q.pie.alpha", "0 < alpha <= 32"),
        (PieSpec { alpha: Some(f64::NAN), ..Default::default() }, "q.pie.alpha", "(0, 32]"),
        (PieSpec { beta: Some(-1.0), ..Default::default() }, "q.pie.beta", "0 < beta <= 32"),
        (
            PieSpec { mark_ecnth: Some(0.2), ..Default::default() },
            "q.pie.mark_ecnth",
            "without ecn",
        ),
        (
            PieSpec { ecn: true, mark_ecnth: Some(1.5), ..Default::default() },
            "q.pie.mark_ecnth",
            "0 <= mark_ecnth <= 1",
        ),
        (
            PieSpec { dq_threshold: Some(Size(1000)), ..Default::default() },
            "q.pie.dq_threshold",
            "without dq_rate_estimator",
        ),
        (
            PieSpec { dq_rate_estimator: true, dq_threshold: Some(Size(0)), ..Default::default() },
            "q.pie.dq_threshold",
            "1 <= dq_threshold <= 65536",
        ),
        (
            PieSpec {
                dq_rate_estimator: true,
                dq_threshold: Some(Size(65537)),
                ..Default::default()
            },
            "q.pie.dq_threshold",
            "1 <= dq_threshold <= 65536",
        ),
        (
            PieSpec { mean_packet: Some(Size(0)), ..Default::default() },
            "q.pie.mean_packet",
            "mean_packet > 0",
        ),
    ];
    for (spec, field, expected) in cases {
        let e = check(spec).unwrap_or_else(|| panic!("{field} accepted"));
        assert!(e.contains(field) && e.contains(expected), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    // max_burst = 0 is allowed (no allowance).
    assert_eq!(check(PieSpec { max_burst: d("0"), ..Default::default() }), None);
}
