//! Known answers of Prague's rules (tcp_prague.c's integer arithmetic), with scripted
//! feedback: each ACK's packets delivered and CE-marked, the round's end.

use super::*;

const MSS: u64 = 1000;

fn prague(o: PragueOptions) -> Prague {
    let setup = Setup {
        mss: MSS,
        initial_window: 10 * MSS,
        initial_ssthresh: u64::MAX / 4,
        rwnd: 1 << 30,
    };
    let mut p = Prague::build(&o, &setup);
    // prague_init's first round: next_seq = snd_nxt, here 1 (the SYN's sequence number).
    p.next_seq = 1;
    p
}

/// An ACK at 10 ms that ends the round (snd_una reaches `next_seq`,
/// `prague_e2e_rtt_elapsed`'s `!before(snd_una, next_seq)`) or stops one byte short of it.
fn feedback(p: &mut Prague, w: &mut Window, delivered: u32, ce: u32, round_end: bool) {
    let una = p.next_seq - !round_end as u64;
    ack_at(p, w, 10, (una, p.next_seq + 100 * MSS), delivered, ce);
}

/// An ACK at `now_ms` leaving (snd_una, snd_max) = `seq`.
fn ack_at(p: &mut Prague, w: &mut Window, now_ms: u64, seq: (u64, u64), delivered: u32, ce: u32) {
    p.on_ecn_ack(&EcnAck {
        acked: delivered as u64 * MSS,
        ece: ce > 0,
        delivered,
        ce_packets: ce,
        ce_bytes: ce as u64 * MSS,
        snd_una: seq.0,
        snd_max: seq.1,
        ..Default::default()
    });
    p.on_ack(
        w,
        &Ack {
            now: SimTime::from_ms(now_ms),
            acked: delivered as u64 * MSS,
            rtt: None,
            flight: 0,
            recovering: false,
        },
    );
}

fn loss(now_ms: u64) -> Loss {
    Loss {
        now: SimTime::from_ms(now_ms),
        window: 21 * MSS,
        flight_size: 21 * MSS,
    }
}

#[test]
fn alpha_is_updated_once_per_round_from_the_ce_fraction_after_the_first_mark() {
    let mut p = prague(PragueOptions::default());
    let mut w = Window {
        cwnd: 20 * MSS,
        ssthresh: 20 * MSS,
    };
    // No CE yet: the round ends, alpha stays at 1 (no proof of an AQM, `saw_ce`).
    feedback(&mut p, &mut w, 4, 0, true);
    assert_eq!(p.upscaled_alpha, 1 << 24);
    // A round of 10 packets, 5 CE: F = 1/2, alpha = 15/16 + 1/32 = 31/32 (upscaled by 16:
    // 2^24 - 2^20 + 2^19).
    feedback(&mut p, &mut w, 6, 3, false);
    assert_eq!(p.upscaled_alpha, 1 << 24, "only at the round's end");
    feedback(&mut p, &mut w, 4, 2, true);
    assert_eq!(p.upscaled_alpha, 16_252_928);
    assert_eq!(p.alpha(), 31.0 / 32.0);
    // A round without marks: alpha x 15/16 = 465/512.
    feedback(&mut p, &mut w, 8, 0, true);
    assert_eq!(p.upscaled_alpha, 15_237_120);
    assert_eq!(p.alpha(), 465.0 / 512.0);
}

#[test]
fn the_ce_response_goes_into_the_carry_and_cwnd_follows_one_segment_per_ack() {
    let mut p = prague(PragueOptions::default());
    let mut w = Window {
        cwnd: 20 * MSS,
        ssthresh: u64::MAX / 4,
    };
    // prague_enter_cwr with alpha = 1: the reduction 20 x 1/2 = 10 segments (2^-20 units,
    // rounded to nearest) goes into the carry; cwnd and ssthresh are not touched.
    assert!(p.on_ecn_echo(&mut w, &loss(0)));
    assert_eq!((w.cwnd, w.ssthresh, p.cwnd_cnt), (20 * MSS, u64::MAX / 4, -10_485_760));
    // An ACK whose packet is CE grows nothing (unsaturated marking) and reaches the adjust
    // step: one segment down, ssthresh = cwnd (slow start ends).
    feedback(&mut p, &mut w, 1, 1, false);
    assert_eq!((w.cwnd, w.ssthresh, p.cwnd_cnt), (19 * MSS, 19 * MSS, -9_437_184));
    // Each unmarked packet adds (2^20 + cwnd / 2) / cwnd to the carry and cwnd steps down
    // once more: 18, 17, ..., 11 after 8 ACKs (-8333420 after the first), then the carry is
    // above -1 segment (-495073) and cwnd stays: the growth paid ~0.5 of the 10 segments.
    let mut seen = vec![];
    for _ in 0..9 {
        feedback(&mut p, &mut w, 1, 0, false);
        seen.push(w.cwnd / MSS);
    }
    assert_eq!(seen, [18, 17, 16, 15, 14, 13, 12, 11, 11]);
    assert_eq!(w.ssthresh, 11 * MSS);
    // alpha = 31/32 (1015808 / 2^20) at cwnd 10: 10 x 31/64 = 4.84375 segments, rounded to
    // nearest in 2^-20 units (5079040), all in the carry.
    let mut w = Window {
        cwnd: 10 * MSS,
        ssthresh: 10 * MSS,
    };
    p.upscaled_alpha = 16_252_928;
    p.cwnd_cnt = 0;
    assert!(p.on_ecn_echo(&mut w, &loss(100)));
    assert_eq!((w.cwnd, p.cwnd_cnt), (10 * MSS, -5_079_040));
    feedback(&mut p, &mut w, 1, 1, false);
    assert_eq!((w.cwnd, w.ssthresh, p.cwnd_cnt), (9 * MSS, 9 * MSS, -5_079_040 + (1 << 20)));
    // Never below 2 segments: the step from 2 stops there and drops the carry.
    let mut small = Window {
        cwnd: 2 * MSS,
        ssthresh: 2 * MSS,
    };
    p.upscaled_alpha = 1 << 24;
    p.cwnd_cnt = 0;
    p.on_ecn_echo(&mut small, &loss(200));
    feedback(&mut p, &mut small, 1, 1, false);
    assert_eq!((small.cwnd, small.ssthresh, p.cwnd_cnt), (2 * MSS, 2 * MSS, 0));
}

#[test]
fn additive_increase_is_one_segment_per_window_and_slow_start_counts_unmarked_packets() {
    let mut p = prague(PragueOptions::default());
    let mut w = Window {
        cwnd: 10 * MSS,
        ssthresh: 12 * MSS,
    };
    // Slow start: 3 packets, 1 CE -> + 2 segments (to ssthresh).
    feedback(&mut p, &mut w, 3, 1, false);
    assert_eq!(w.cwnd, 12 * MSS);
    // Then 12 ACKs of one packet each: (2^20 + 6) / 12 = 87381 each, 1048572 in all: one
    // segment short by 4 units, so the 13th ACK completes it.
    for _ in 0..12 {
        feedback(&mut p, &mut w, 1, 0, false);
    }
    assert_eq!((w.cwnd, p.cwnd_cnt), (12 * MSS, 1_048_572));
    feedback(&mut p, &mut w, 1, 0, false);
    assert_eq!((w.cwnd, p.cwnd_cnt), (13 * MSS, 1_048_572 + 87_381 - (1 << 20)));
}

#[test]
fn rtt_scaling_slows_growth_below_the_target_rtt_after_the_transition() {
    // rate: srtt 5 ms (39 units of 128 us), target 25 ms (195 units): ai = 2^20 x 39^2 /
    // 195^2, rounded = 41943.
    let mut p = prague(PragueOptions {
        rtt_scaling: Some(RttScaling::Rate),
        rtt_transition: Some(0),
        ..Default::default()
    });
    p.srtt_ns = Some(5_000_000);
    assert_eq!(p.ai_ack_increase(), 41_943);
    // additive: target = 25 ms + srtt = 234 units: 2^20 x 39^2 / 234^2 = 29127.
    p.scaling = RttScaling::Additive;
    assert_eq!(p.ai_ack_increase(), 29_127);
    // none, or before the transition: 2^20.
    p.scaling = RttScaling::None;
    assert_eq!(p.ai_ack_increase(), 1 << 20);
    let mut q = prague(PragueOptions {
        rtt_scaling: Some(RttScaling::Rate),
        ..Default::default()
    });
    q.srtt_ns = Some(5_000_000);
    assert_eq!(q.ai_ack_increase(), 1 << 20, "500 rounds first");
    // RTT-independent: a second CE response within the target RTT is skipped.
    let mut w = Window {
        cwnd: 20 * MSS,
        ssthresh: 20 * MSS,
    };
    p.scaling = RttScaling::Rate;
    assert!(p.on_ecn_echo(&mut w, &loss(100)));
    assert!(!p.on_ecn_echo(&mut w, &loss(110)), "10 ms < 25 ms");
    assert!(p.on_ecn_echo(&mut w, &loss(126)));
}

#[test]
fn rtt_independent_rounds_run_on_to_the_first_ack_a_target_rtt_after_the_last_update() {
    // tcp_prague.c: prague_cong_control checks prague_should_update_ewma on every ACK; when
    // RTT independent, the update (prague_update_alpha, then prague_new_round: next_seq =
    // snd_nxt, round + 1) waits for prague_target_rtt_elapsed, and the round goes on until
    // then. srtt 5 ms, target 25 ms, transition 0: RTT independent out of slow start.
    let mut p = prague(PragueOptions {
        rtt_transition: Some(0),
        ..Default::default()
    });
    p.srtt_ns = Some(5_000_000);
    let mut w = Window {
        cwnd: 20 * MSS,
        ssthresh: 20 * MSS,
    };
    // 30 ms, snd_una past next_seq (1), 30 ms since alpha_stamp (0): F = 1/2, alpha = 31/32;
    // the next round ends past snd_max = 20 000.
    ack_at(&mut p, &mut w, 30, (1_000, 20_000), 2, 1);
    assert_eq!((p.upscaled_alpha, p.round, p.next_seq), (16_252_928, 1, 20_000));
    assert_eq!(p.alpha_stamp, SimTime::from_ms(30));
    // 36 and 42 ms: the round's data are acknowledged, but 25 ms have not elapsed: no update,
    // next_seq and round stay (the flow's observation window would have moved on at 36 ms).
    ack_at(&mut p, &mut w, 36, (21_000, 30_000), 4, 0);
    ack_at(&mut p, &mut w, 42, (22_000, 31_000), 4, 4);
    assert_eq!((p.upscaled_alpha, p.round, p.next_seq), (16_252_928, 1, 20_000));
    // 55 ms (25 ms after the update), an ACK that ends no observation window: the update, F
    // over the whole round = 4 CE of 10 packets = floor(2^20 x 4 / 10) = 419 430; alpha =
    // 16 252 928 - 16 252 928 / 16 + 419 430 = 15 656 550; next_seq = snd_max now.
    ack_at(&mut p, &mut w, 55, (23_000, 40_000), 2, 0);
    assert_eq!((p.upscaled_alpha, p.round, p.next_seq), (15_656_550, 2, 40_000));
    assert_eq!(p.alpha_stamp, SimTime::from_ms(55));
    // 81 ms: 26 ms since, but snd_una (39 999) has not reached next_seq: no update.
    ack_at(&mut p, &mut w, 81, (39_999, 41_000), 2, 2);
    assert_eq!((p.upscaled_alpha, p.round), (15_656_550, 2));
    // In slow start (cwnd < ssthresh) the flow is not RTT independent: the round ends when
    // snd_una reaches next_seq (40 000), 1 ms after the last update; F = 2/4, no round counted.
    w.ssthresh = 40 * MSS;
    ack_at(&mut p, &mut w, 82, (40_000, 50_000), 2, 0);
    assert_eq!((p.upscaled_alpha, p.round, p.next_seq), (15_656_550 - 978_534 + 524_288, 2, 50_000));
}

#[test]
fn the_defaults_are_tcp_prague_c_s_rate_scaling_to_25_ms_after_500_rounds() {
    // tcp_prague.c: prague_rtt_scaling = RTT_CONTROL_RATE, prague_rtt_target = 25 ms (195
    // units of 128 us), DEFAULT_RTT_TRANSITION = 500 rounds out of slow start.
    let mut p = prague(PragueOptions::default());
    assert_eq!((p.scaling, p.target, p.transition), (RttScaling::Rate, 195, 500));
    p.srtt_ns = Some(5_000_000);
    let mut w = Window {
        cwnd: 20 * MSS,
        ssthresh: 20 * MSS,
    };
    for _ in 0..499 {
        feedback(&mut p, &mut w, 1, 0, true);
    }
    assert_eq!((p.round, p.ai_ack_increase()), (499, 1 << 20));
    // The 500th round: ai = 2^20 x 39^2 / 195^2 at srtt 5 ms, and the second of two CE
    // responses 10 ms apart is skipped (`prague_enter_cwr`).
    feedback(&mut p, &mut w, 1, 0, true);
    assert_eq!((p.round, p.ai_ack_increase()), (500, 41_943));
    assert!(p.on_ecn_echo(&mut w, &loss(100)));
    assert!(!p.on_ecn_echo(&mut w, &loss(110)));
}

#[test]
fn loss_is_reno_and_options_are_checked_by_name() {
    let mut p = prague(PragueOptions::default());
    let w = Window {
        cwnd: 21 * MSS,
        ssthresh: u64::MAX / 4,
    };
    assert_eq!(p.ssthresh_after_loss(&loss(0)), 10 * MSS);
    let t = p.on_timeout(w, &loss(0), false);
    assert_eq!((t.cwnd, t.ssthresh), (MSS, 10 * MSS));
    let bad = PragueOptions {
        target_rtt: Some(crate::time::Duration(SimTime::from_ms(500))),
        ..Default::default()
    };
    let e = Prague::validate(&bad, "flows[0].cc").unwrap_err().to_string();
    assert!(e.contains("flows[0].cc.target_rtt") && e.contains("1ms to 100ms"), "{e}");
}

#[test]
fn without_ecn_feedback_the_window_grows_from_the_bytes_acknowledged() {
    // A handshake that agreed no ECN: no `on_ecn_ack`; slow start still counts the packets.
    let mut p = prague(PragueOptions::default());
    let mut w = p.initial_window();
    let ack = Ack {
        now: SimTime::from_ms(10),
        acked: 2 * MSS,
        rtt: None,
        flight: 0,
        recovering: false,
    };
    p.on_ack(&mut w, &ack);
    assert_eq!(w.cwnd, 12 * MSS);
}
