//! Known answers for the TCP family: the Fall & Floyd (1996) scenarios — 1, 2, 3 and 4 segments
//! dropped from one window — for every variant, plus limited transmit, the 4.3BSD sender, the
//! coarse-clock timer and byte counting. One hop, 100 ms RTT, MSS 1000, ACK every segment;
//! IW = ssthresh = 20 segments (congestion avoidance from the start). The second window's
//! segments 24, 26, 28, 30 (the 25th, 27th, ... packets) are the ones dropped.

use crate::common;
use common::*;
use tcplab_sim::RunResult;

/// `tcp` is a variant name or an inline table with the recovery's options.
fn ff(tcp: &str, drops: usize, extra: &str) -> RunResult {
    let list: Vec<u64> = [25, 27, 29, 31][..drops].to_vec();
    let tcp = if tcp.starts_with('{') {
        tcp.to_string()
    } else {
        format!("\"{tcp}\"")
    };
    let flow =
        format!("tcp = {tcp}\nack = \"immediate\"\ninitial_window = 20\ninitial_ssthresh = 20000\n{extra}");
    run(&one_hop(&flow, &list, "4s"))
}

/// Retransmitted segment numbers (seq / MSS) in order, with the round trip they left in.
fn rtx_rounds(r: &RunResult) -> Vec<(u64, u64)> {
    retransmissions(r)
        .iter()
        .map(|s| ((s.t / 0.1) as u64, s.seq / 1000))
        .collect()
}

fn rtx_segs(r: &RunResult) -> Vec<u64> {
    rtx_rounds(r).iter().map(|x| x.1).collect()
}

fn counts(r: &RunResult) -> (u64, u64, u64, u64) {
    let f = &r.flows[0];
    (f.fast_retransmits, f.timeouts, f.ca_events, f.non_ca_events)
}

/// ssthresh right after time t (once a loss has set it).
fn ssthresh_after(r: &RunResult, t: f64) -> u64 {
    let w = cwnd(r).into_iter().rfind(|c| c.t <= t).unwrap();
    w.ssthresh.expect("ssthresh set by then")
}

#[test]
fn tahoe_goes_back_n_in_slow_start_and_never_times_out() {
    // After the fast retransmit of 24, go-back-N in slow start resends what follows the hole,
    // including segments the receiver already has (27, 29, 30, ...): Tahoe's known cost.
    let expected: [&[u64]; 4] = [
        &[24],
        &[24, 26, 27],
        &[24, 26, 27, 28, 29, 30],
        &[24, 26, 27, 28, 29, 30, 31, 32],
    ];
    for (n, want) in (1..=4).zip(expected) {
        let r = ff("tahoe", n, "");
        assert_eq!(rtx_segs(&r)[..want.len()], *want, "{n} drops");
        assert_eq!(
            counts(&r),
            (1, 0, 1, 0),
            "{n} drops: one fast retransmit, no timeout"
        );
        // cwnd = 1 segment, ssthresh = half the 21-segment flight, at the fast retransmit.
        let at = cwnd(&r).into_iter().find(|c| c.cwnd == 1000).unwrap();
        assert_eq!(at.ssthresh, Some(10500));
    }
}

#[test]
fn reno_one_drop_one_halving_and_several_drops_halve_again_or_time_out() {
    let r = ff("reno", 1, "");
    assert_eq!(rtx_segs(&r), vec![24]);
    assert_eq!(counts(&r), (1, 0, 1, 0));
    // Two drops: Reno leaves recovery on the partial ACK, then halves again for the second hole.
    let r = ff("reno", 2, "");
    assert_eq!(rtx_rounds(&r), vec![(2, 24), (3, 26)]);
    assert_eq!(counts(&r), (2, 0, 0, 1));
    // With cwnd halving (BSD, ns-2) the window is halved twice: 10 then 5 segments.
    let r = ff("reno", 2, "cc = { ssthresh_rule = \"cwnd\" }");
    let ss: Vec<u64> = cwnd(&r)
        .iter()
        .filter_map(|c| c.ssthresh)
        .filter(|&s| s < 20000)
        .collect();
    let mut distinct = ss.clone();
    distinct.dedup();
    assert_eq!(distinct[..2], [10578, 5289], "{distinct:?}");
    // With RFC 5681's FlightSize the second "halving" counts the data sent on the inflated
    // window, so ssthresh rises (10.5 -> 13.5 segments): the rule matters, hence the option.
    let r = ff("reno", 2, "");
    assert_eq!(ssthresh_after(&r, 0.35), 13500);
    // Three or four drops: too few dupACKs remain for the third hole: a timeout.
    for n in [3, 4] {
        let r = ff("reno", n, "");
        assert_eq!(counts(&r).1, 1, "{n} drops time out");
        assert_eq!(rtx_rounds(&r)[..2], [(2, 24), (4, 26)]);
    }
}

#[test]
fn newreno_repairs_one_hole_per_round_trip_without_a_timeout() {
    for n in 1..=4 {
        let r = ff("newreno", n, "");
        let want: Vec<(u64, u64)> = (0..n as u64).map(|k| (2 + k, 24 + 2 * k)).collect();
        assert_eq!(rtx_rounds(&r), want, "{n} drops");
        assert_eq!(counts(&r), (1, 0, 1, 0), "{n} drops");
        assert_eq!(ssthresh_after(&r, 1.0), 10500);
    }
}

#[test]
fn newreno_impatient_times_out_where_slow_but_steady_does_not() {
    // Six holes need six round trips (0.6 s) at one per RTT; with a 300 ms minimum RTO the
    // Impatient variant's timer (not restarted after the first partial ACK) fires first.
    let six = |timer: &str| {
        let flow = format!(
            "tcp = {{ variant = \"newreno\", partial_ack_timer = \"{timer}\" }}\nack = \"immediate\"\ninitial_window = 20\ninitial_ssthresh = 20000\nmin_rto = \"300ms\""
        );
        run(&one_hop(&flow, &[25, 27, 29, 31, 33, 35], "4s"))
    };
    assert_eq!(counts(&six("impatient")).1, 1);
    assert_eq!(counts(&six("slow_but_steady")).1, 0);
}

/// An RTO inside a NewReno recovery (the Impatient timer of the test above, six holes): RFC 5681
/// Sec. 3.1 Eq. (4) alone (`rto_in_recovery = "flight_size"`) takes ssthresh from a FlightSize
/// that holds the new data the inflated window sent during the recovery, and raises it above the
/// recovery's 10500; the default (`no_raise`, Linux's tcp_enter_loss keeping the recovery's
/// ssthresh) keeps 10500. cwnd is one segment after the timeout either way (RFC 5681 Eq. (5)).
#[test]
fn newreno_rto_inside_recovery_does_not_raise_ssthresh_by_default() {
    let six = |rule: &str| {
        let flow = format!(
            "tcp = {{ variant = \"newreno\"{rule} }}\nack = \"immediate\"\ninitial_window = 20\ninitial_ssthresh = 20000\nmin_rto = \"300ms\""
        );
        run(&one_hop(&flow, &[25, 27, 29, 31, 33, 35], "4s"))
    };
    // (ssthresh, cwnd) at the timeout: the first window of one segment after the recovery began.
    let at_rto = |r: &RunResult| {
        let w = cwnd(r);
        let c = w.iter().find(|c| c.t > 0.2 && c.cwnd == 1000).expect("a timeout");
        (c.ssthresh.expect("set"), c.cwnd)
    };
    let default = six("");
    assert_eq!(counts(&default).1, 1);
    assert_eq!(ssthresh_after(&default, 0.29), 10500, "the recovery's");
    assert_eq!(at_rto(&default), (10500, 1000));
    assert_eq!(at_rto(&six(", rto_in_recovery = \"no_raise\"")), (10500, 1000));
    // Eq. (4): the timer fires at 0.6 s (300 ms after the first partial ACK), the fourth hole
    // (segment 30) retransmitted, with snd_una = 30000 and snd_max = 67000: FlightSize is 37
    // segments, and ssthresh = 37000 / 2, above even the 21 segments the window held before.
    let eq4 = six(", rto_in_recovery = \"flight_size\"");
    assert_eq!(at_rto(&eq4), (18500, 1000));
}

#[test]
fn newreno_full_deflation_sets_cwnd_to_ssthresh_on_partial_acks() {
    let r = ff("{ variant = \"newreno\", partial_deflation = false }", 3, "");
    let in_recovery: Vec<u64> = cwnd(&r)
        .iter()
        .filter(|c| c.t > 0.29 && c.t < 0.45)
        .map(|c| c.cwnd)
        .collect();
    assert!(in_recovery.contains(&10500), "{in_recovery:?}");
    assert_eq!(counts(&r), (1, 0, 1, 0));
}

#[test]
fn sack_repairs_every_hole_in_one_round_trip() {
    for n in 1..=4 {
        let r = ff("sack", n, "");
        let want: Vec<(u64, u64)> = (0..n as u64).map(|k| (2, 24 + 2 * k)).collect();
        assert_eq!(rtx_rounds(&r), want, "{n} drops");
        assert_eq!(counts(&r), (1, 0, 1, 0), "{n} drops");
        assert_eq!(ssthresh_after(&r, 1.0), 10500); // RFC 6675: FlightSize / 2
    }
}

#[test]
fn fack_rh_repairs_every_hole_and_ends_at_half_what_the_network_held() {
    // One loss from a 21-segment window: Eq. 15, (21 - 1) / 2 = 10 segments exactly.
    let r = ff("fack", 1, "");
    assert_eq!(ssthresh_after(&r, 1.0), 10000);
    for n in 1..=4 {
        let r = ff("fack", n, "");
        let want: Vec<(u64, u64)> = (0..n as u64).map(|k| (2, 24 + 2 * k)).collect();
        assert_eq!(rtx_rounds(&r), want, "{n} drops");
        assert_eq!(counts(&r), (1, 0, 1, 0), "{n} drops");
        // Never more than half the window before the loss (the bounding parameter).
        assert!(ssthresh_after(&r, 1.0) <= 10578);
    }
}

#[test]
fn fack_sends_new_data_before_the_dupack_threshold() {
    // Mathis Sec. 3.4: FACK-RH sends a new segment after the first duplicate ACK, before the
    // threshold (on the second: one segment per two ACKs from the first SACK block). IW = 4 with
    // the first segment lost: FACK keeps its clock going without a timeout.
    let flow = |tcp: &str| {
        format!("tcp = \"{tcp}\"\nack = \"immediate\"\ninitial_window = 4\ninitial_ssthresh = 4000")
    };
    let r = run(&one_hop(&flow("fack"), &[1], "2s"));
    let first_new_after_loss = data_sent(&r)
        .iter()
        .find(|s| s.t > 0.05 && !s.retransmit)
        .map(|s| s.seq);
    assert_eq!(
        first_new_after_loss,
        Some(4000),
        "segment 4 goes out on the first dupACK"
    );
    assert_eq!(counts(&r).1, 0);
}

#[test]
fn sackrh_halves_gradually() {
    let r = ff("sackrh", 1, "");
    assert_eq!(rtx_segs(&r), vec![24]);
    // During recovery cwnd falls by half a segment per ACK, from ~21 segments to 10.5.
    let during: Vec<u64> = cwnd(&r)
        .iter()
        .filter(|c| c.t > 0.2 && c.t < 0.3)
        .map(|c| c.cwnd)
        .collect();
    assert!(during.windows(2).any(|w| w[0] == w[1] + 500), "{during:?}");
    assert_eq!(ssthresh_after(&r, 1.0), 10500);
    assert_eq!(counts(&r), (1, 0, 1, 0));
}

#[test]
fn limited_transmit_turns_a_timeout_into_a_fast_retransmit() {
    // A 3-segment window with the first segment lost yields only 2 dupACKs: a timeout. RFC 3042
    // sends a new segment on each of them, and the third dupACK arrives.
    let flow = |lt: bool| {
        format!("tcp = \"reno\"\nack = \"immediate\"\ninitial_window = 3\ninitial_ssthresh = 3000\nlimited_transmit = {lt}")
    };
    assert_eq!(counts(&run(&one_hop(&flow(false), &[1], "3s"))).1, 1);
    let r = run(&one_hop(&flow(true), &[1], "3s"));
    assert_eq!(counts(&r), (1, 0, 1, 0));
}

#[test]
fn limited_transmit_data_stays_out_of_the_flightsize_that_sets_ssthresh() {
    // RFC 5681 Sec. 3.2 step 2: with RFC 3042 in use, the segments limited transmit sent on the
    // first two duplicate ACKs MUST NOT count in FlightSize. 8 segments out, the first lost:
    // limited transmit adds segments 9 and 10, so snd_max - snd_una is 10 segments at the third
    // dupACK, but ssthresh is FlightSize/2 = 8000/2 either way (it was 5000 with limited transmit).
    let flow = |lt: bool| {
        format!("tcp = \"reno\"\nack = \"immediate\"\ninitial_window = 8\ninitial_ssthresh = 8000\nlimited_transmit = {lt}")
    };
    for lt in [false, true] {
        let r = run(&one_hop(&flow(lt), &[1], "1s"));
        assert_eq!(counts(&r).0, 1, "limited_transmit = {lt}");
        assert_eq!(ssthresh_after(&r, 0.9), 4000, "limited_transmit = {lt}");
    }
}

#[test]
fn bsd43_sends_the_whole_window_and_goes_back_n_after_a_timeout() {
    // No slow start: the receiver's 8-segment window leaves at once; no fast retransmit.
    let flow = "tcp = \"bsd43\"\nack = \"immediate\"\nrwnd = 8000\ninitial_rto = \"1s\"\nclock_tick = \"0\"";
    let r = run(&one_hop(flow, &[3], "2.5s"));
    let at0 = data_sent(&r).iter().filter(|s| s.t == 0.0).count();
    assert_eq!(at0, 8);
    let f = &r.flows[0];
    assert_eq!((f.fast_retransmits, f.timeouts), (0, 1));
    // At the timeout the whole window goes again from the hole: 8 segments at one instant.
    let t = retransmissions(&r)[0].t;
    let burst = data_sent(&r).iter().filter(|s| s.t == t).count();
    assert_eq!(burst, 8);
}

#[test]
fn jacobson_timer_fires_on_the_500ms_slow_tick() {
    // BSD's initial RTO of 3 s = 6 ticks of 500 ms; armed at t = 0 it expires on the 6th edge.
    // Then rto = 2 x 6 ticks (backoff) from the edge at 3.0: 9.0 s.
    let flow = "rto_estimator = \"jacobson88\"\ninitial_rto = \"3s\"\nmin_rto = \"1s\"";
    let r = run(&one_hop(flow, &[1, 2], "9.5s"));
    let times: Vec<f64> = data_sent(&r)
        .iter()
        .map(|s| (s.t * 1000.0).round() / 1000.0)
        .collect();
    assert_eq!(times[..3], [0.0, 3.0, 9.0]);
}

#[test]
fn byte_counting_doubles_per_round_with_delayed_acks_per_ack_growth_does_not() {
    // Delayed ACKs: one ACK per two segments. Per ACK, slow start grows 1.5x per round; with
    // ABC (L = 2) it grows by the bytes acknowledged: 2x per round (RFC 3465 Sec. 2.1).
    let w = |growth: &str| {
        let r = run(&one_hop(
            &format!("ack = \"delayed\"\ninitial_window = 2\ncc = {{ growth = \"{growth}\" }}"),
            &[],
            "0.75s",
        ));
        cwnd(&r).last().unwrap().cwnd
    };
    let (per_ack, abc) = (w("per_ack"), w("abc"));
    assert!(abc as f64 > 1.8 * per_ack as f64, "abc {abc} per_ack {per_ack}");
}

#[test]
fn prr_sends_one_segment_per_two_acks_then_slow_starts_up_to_ssthresh() {
    // RFC 6937 Sec. 3 on a window of 20 segments (MSS 1000) in congestion avoidance, the first
    // lost, an ACK per segment: 19 duplicate ACKs, each SACKing one segment (DeliveredData =
    // 1000). ssthresh = 10000 (d x FlightSize), RecoverFS = 20000. The third dupACK starts the
    // recovery and sends the fast retransmission (prr_out = 1000); pipe is then 17000 >
    // ssthresh, so sndcnt = ceil(prr_delivered x 10000 / 20000) - prr_out, in bytes: 0 on
    // dupACKs 3 and 4, 500 on 5 (less than a segment: nothing sent), 1000 on 6 (segment 20),
    // ... one new segment per two ACKs, on dupACKs 6, 8, 10, 12. Pipe then falls by half a
    // segment per ACK and reaches ssthresh: the slow-start reduction bound sends one segment
    // per ACK on dupACKs 15-19. Nine new segments (20-28) in all, and the recovery ends with
    // cwnd = ssthresh. RFC 6675 alone (prr = false) sends nothing until pipe is below cwnd =
    // ssthresh, then the same nine segments one per ACK at the end of the train.
    let flow = |prr: bool| {
        format!("tcp = {{ variant = \"sack\", prr = {prr} }}\nack = \"immediate\"\ninitial_window = 20\ninitial_ssthresh = 20000")
    };
    // (segments sent after the fast retransmission during the dupACK train, their times after
    // it in units of one ACK spacing: 1040 bytes at 1 Gbit/s = 8.32 us)
    let train = |prr: bool| {
        let r = run(&one_hop(&flow(prr), &[1], "1s"));
        let sent = data_sent(&r);
        let rtx = sent.iter().position(|s| s.retransmit).unwrap();
        let t_rtx = sent[rtx].t;
        let during: Vec<&Sent> = sent[rtx + 1..].iter().filter(|s| s.t < t_rtx + 0.09).collect();
        let seqs: Vec<u64> = during.iter().map(|s| s.seq / 1000).collect();
        let slots: Vec<i64> = during
            .iter()
            .map(|s| ((s.t - t_rtx) / 8.32e-6).round() as i64)
            .collect();
        (seqs, slots, r)
    };
    let (seqs, slots, r) = train(true);
    assert_eq!(seqs, (20..=28).collect::<Vec<u64>>());
    // dupACK k arrives k - 3 ACK spacings after the third.
    assert_eq!(slots, [3, 5, 7, 9, 12, 13, 14, 15, 16]);
    // The window comes down to ssthresh at the end of the recovery, never below it.
    let lowest = lowest_cwnd(&r, 0.1, 0.3);
    assert_eq!(lowest, 10000, "recovery ends at ssthresh");
    let (seqs, slots, _) = train(false);
    assert_eq!(seqs, (20..=28).collect::<Vec<u64>>());
    assert_eq!(slots, [8, 9, 10, 11, 12, 13, 14, 15, 16]);
}
