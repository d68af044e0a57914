//! CUBIC's known answers: RFC 9438's response, the slow-start exits as CUBIC uses them, and
//! Linux's `bictcp_update` style.

use super::*;

const MSS: u64 = 1000;

fn cubic(fast_convergence: bool) -> Cubic {
    with_hystart(fast_convergence, HyStart::Off)
}

fn with_hystart(fast_convergence: bool, hystart: HyStart) -> Cubic {
    Cubic::new(CubicConfig {
        mss: MSS,
        initial_window: 10 * MSS,
        initial_ssthresh: u64::MAX / 4,
        beta: Millionths::from_f64(0.7).unwrap(),
        c: 0.4,
        fast_convergence,
        growth: Growth::PerAck,
        hystart,
        style: CubicStyle::Rfc9438,
        hz: None,
        increase: CubicIncrease::Linux,
    })
}

fn ack(now_ms: u64, acked: u64, rtt_ms: Option<u64>) -> Ack {
    Ack {
        now: SimTime::from_ms(now_ms),
        acked,
        rtt: rtt_ms.map(SimTime::from_ms),
        flight: 0,
        recovering: false,
    }
}

fn loss(window: u64) -> Loss {
    Loss {
        now: SimTime::ZERO,
        window,
        flight_size: window,
    }
}

#[test]
fn a_loss_sets_ssthresh_to_beta_cwnd_and_w_max_with_fast_convergence() {
    let mut c = cubic(true);
    // 100 segments: ssthresh 70 segments, W_max 100.
    assert_eq!(c.ssthresh_after_loss(&loss(100_000)), 70_000);
    assert_eq!(c.w_max, Some(100.0));
    // The next loss below W_max: W_max = 80 (1 + 0.7) / 2 = 68 (Sec. 4.7).
    assert_eq!(c.ssthresh_after_loss(&loss(80_000)), 56_000);
    assert!((c.w_max.unwrap() - 68.0).abs() < 1e-9);
    // Without fast convergence W_max is the window itself.
    let mut c = cubic(false);
    c.ssthresh_after_loss(&loss(100_000));
    c.ssthresh_after_loss(&loss(80_000));
    assert_eq!(c.w_max, Some(80.0));
    // Never below 2 SMSS.
    assert_eq!(cubic(true).ssthresh_after_loss(&loss(2_000)), 2_000);
}

#[test]
fn the_window_reaches_w_max_at_k_concave_before_and_convex_after() {
    // W_max = 100 segments, the stage starts at 70: K = cbrt(30 / 0.4) = 4.217 s.
    let mut c = cubic(true);
    let ssthresh = c.ssthresh_after_loss(&loss(100_000));
    let mut w = Window {
        cwnd: ssthresh,
        ssthresh,
    };
    let k = (30.0f64 / 0.4).cbrt();
    // An RTT of 100 ms, one ACK per segment of a window every RTT, for 8 s.
    let mut at = Vec::new();
    let mut t_ms = 0;
    c.on_ack(&mut w, &ack(0, 0, Some(100)));
    while t_ms < 8_000 {
        let n = w.cwnd / MSS;
        for i in 0..n {
            c.on_ack(&mut w, &ack(t_ms + i * 100 / n, MSS, None));
        }
        t_ms += 100;
        at.push((t_ms as f64 / 1000.0, w.cwnd as f64 / MSS as f64));
    }
    let near = |t: f64| at.iter().find(|(s, _)| *s >= t).unwrap().1;
    // At K the window is W_max (it aims one RTT ahead, so it is there within a segment).
    assert!((near(k) - 100.0).abs() < 1.5, "cwnd at K: {}", near(k));
    // Concave before K: growth slows as it nears W_max; convex after: it speeds up.
    let g = |a: f64, b: f64| near(b) - near(a);
    assert!(g(1.0, 2.0) > g(2.0, 3.0) && g(2.0, 3.0) > g(3.0, 4.0));
    assert!(g(5.0, 6.0) < g(6.0, 7.0) && g(6.0, 7.0) < g(7.0, 8.0));
    // Each step follows the curve: at t = 2 s, W_cubic(2.1 s) within a segment.
    let wc = |t: f64| 0.4 * (t - k).powi(3) + 100.0;
    assert!((near(2.0) - wc(2.0)).abs() < 1.5, "{} vs {}", near(2.0), wc(2.0));
}

#[test]
fn small_windows_follow_the_reno_friendly_estimate() {
    // W_max = 10 segments: the cubic curve is flat, W_est grows by alpha = 3 x 0.3 / 1.7 =
    // 0.529 segments per window acknowledged until it reaches cwnd_prior (10), then by 1.
    let mut c = cubic(true);
    let ssthresh = c.ssthresh_after_loss(&loss(10_000));
    let mut w = Window {
        cwnd: ssthresh,
        ssthresh,
    };
    c.on_ack(&mut w, &ack(0, 0, Some(10)));
    // With a 10 ms RTT the cubic curve stays below W_est for the 20 windows (0.2 s, K =
    // cbrt(3 / 0.4) = 1.96 s): cwnd follows W_est, alpha per window until it passes
    // cwnd_prior = 10 segments, then one segment per window, as Reno.
    let mut t = 0;
    let mut per_window = Vec::new();
    for _ in 0..20 {
        let before = w.cwnd;
        let n = w.cwnd / MSS;
        for i in 0..n {
            c.on_ack(&mut w, &ack(t + i * 10 / n, MSS, None));
        }
        t += 10;
        per_window.push((w.cwnd - before) as f64 / MSS as f64);
    }
    let alpha = 3.0 * 0.3 / 1.7;
    assert!(
        per_window[..4].iter().all(|g| (g - alpha).abs() < 0.1),
        "{per_window:?}"
    );
    assert!(
        per_window[15..].iter().all(|g| (g - 1.0).abs() < 0.1),
        "{per_window:?}"
    );
}

#[test]
fn a_timeout_restarts_from_one_segment_and_the_next_stage_from_its_own_start() {
    let mut c = cubic(true);
    let w = Window {
        cwnd: 50_000,
        ssthresh: u64::MAX / 4,
    };
    let after = c.on_timeout(w, &loss(50_000), false);
    assert_eq!(
        after,
        Window {
            cwnd: MSS,
            ssthresh: 35_000
        }
    );
    assert_eq!(c.w_max, None);
    // A repeated timeout keeps ssthresh.
    assert_eq!(c.on_timeout(after, &loss(MSS), true).ssthresh, 35_000);
    // The first avoidance stage: K = 0 and W_max its starting window.
    let e = c.begin_epoch(SimTime::ZERO, 35.0);
    assert_eq!((e.k, e.w_max), (0.0, 35.0));
}

#[test]
fn slow_start_stops_at_ssthresh() {
    let mut c = cubic(true);
    let mut w = Window {
        cwnd: 9_500,
        ssthresh: 10_000,
    };
    c.on_ack(&mut w, &ack(0, MSS, None));
    assert_eq!(w.cwnd, 10_000);
}

/// One round of a window-limited slow start: `n` segments in flight are acknowledged one
/// by one, `spacing_us` apart from `start_us`, each with an RTT sample of `rtt_us`; the
/// sender sends what cwnd allows after each ACK. Returns the segments sent in the round
/// (the next round's ACKs).
fn round(c: &mut Cubic, w: &mut Window, start_us: u64, n: u64, spacing_us: u64, rtt_us: u64) -> u64 {
    let mut sent = 0;
    for i in 0..n {
        let rest = n - i - 1;
        let a = Ack {
            now: SimTime::from_us(start_us + i * spacing_us),
            acked: MSS,
            rtt: Some(SimTime::from_us(rtt_us)),
            flight: (rest + sent) * MSS,
            recovering: false,
        };
        c.on_ack(w, &a);
        sent = sent.max((w.cwnd / MSS).saturating_sub(rest));
    }
    sent
}

fn opened() -> Window {
    Window {
        cwnd: 10 * MSS,
        ssthresh: u64::MAX / 4,
    }
}

/// Rounds 1 s apart with ACKs `spacing_us` apart, the RTT of round r `rtt_us(r)`, until
/// slow start ends or `rounds` rounds; the window after each round.
fn slow_start(
    c: &mut Cubic,
    rounds: u64,
    spacing_us: u64,
    rtt_us: impl Fn(u64) -> u64,
) -> (Window, Vec<u64>) {
    let mut w = opened();
    let mut n = 10;
    let mut after = Vec::new();
    for r in 0..rounds {
        n = round(c, &mut w, r * 1_000_000, n, spacing_us, rtt_us(r));
        after.push(w.cwnd);
        if w.cwnd >= w.ssthresh {
            break;
        }
    }
    (w, after)
}

#[test]
fn without_an_exit_slow_start_doubles_the_window_every_round() {
    let (w, after) = slow_start(
        &mut cubic(true),
        4,
        3_000,
        |r| if r >= 3 { 120_000 } else { 100_000 },
    );
    assert_eq!(after, [20_000, 40_000, 80_000, 160_000]);
    assert_eq!(w.ssthresh, u64::MAX / 4);
}

#[test]
fn linux_hystart_ends_slow_start_on_a_delay_increase_after_eight_samples() {
    // delay_min 100 ms; from round 3 (80 segments) the RTT is 120 ms > 100 + 12.5 ms.
    // Round 3's first ACK still counts in round 2 (bictcp_acked runs before the round
    // reset in bictcp_cong_avoid); its ACKs 1-8 are the 8 samples, ACK 9 ends slow start
    // with cwnd = 80 + 9 segments. ACKs 3 ms apart never make a train.
    let mut c = with_hystart(true, HyStart::Linux);
    let (w, after) = slow_start(&mut c, 6, 3_000, |r| if r >= 3 { 120_000 } else { 100_000 });
    assert_eq!(w.ssthresh, 89_000);
    assert_eq!(after.len(), 4);
    assert_eq!(&after[..3], [20_000, 40_000, 80_000]);
    // A rise of 12 ms (below the threshold) does not end it.
    let mut c = with_hystart(true, HyStart::Linux);
    let (w, _) = slow_start(&mut c, 4, 3_000, |r| if r >= 3 { 112_000 } else { 100_000 });
    assert_eq!(w.ssthresh, u64::MAX / 4);
}

#[test]
fn linux_hystart_ends_slow_start_when_the_ack_train_passes_half_delay_min() {
    // RTT 20 ms, ACKs 100 us apart (a fast bottleneck): the threshold is (20 + 1) / 2 =
    // 10.5 ms. Round 3's train (80 ACKs) lasts 7.9 ms; in round 4 (160 segments) ACK 106
    // is 10.6 ms after the round start: ssthresh = cwnd = 160 + 106 segments.
    let mut c = with_hystart(true, HyStart::Linux);
    let (w, after) = slow_start(&mut c, 8, 100, |_| 20_000);
    assert_eq!(after.len(), 5);
    assert_eq!(w.ssthresh, 266_000);
    // ACKs 2 ms apart: the train passes 10.5 ms at ACK 6 of a round, but in round 0 cwnd
    // reaches hystart_low_window (16 segments) only at ACK 6, and the train counts from the
    // last ACK HyStart saw (the round start, 12 ms before): it ends slow start at ACK 6 of
    // round 1, cwnd 20 + 6 segments.
    let mut c = with_hystart(true, HyStart::Linux);
    let (w, after) = slow_start(&mut c, 8, 2_000, |_| 20_000);
    assert_eq!((after.len(), w.ssthresh), (2, 26_000));
}

#[test]
fn hystart_plus_plus_enters_css_grows_by_a_quarter_and_exits_after_five_rounds() {
    // Round 3 (80 segments) has RTT 120 ms >= 100 + 12.5 ms: its 8th sample (ACK 7) enters
    // CSS after growing the window by a full segment (cwnd 88); its other 72 ACKs add a
    // quarter segment each (106). Rounds 4-7 grow by a quarter per ACK: 106 -> 132.5 ->
    // 165.5 -> 206.75 -> 258.25 segments; the start of round 8 completes CSS's 5th round
    // and ends slow start with ssthresh = cwnd (the rest of round 8 is avoidance).
    let mut c = with_hystart(true, HyStart::Rfc9406);
    let (w, after) = slow_start(&mut c, 12, 3_000, |r| if r >= 3 { 120_000 } else { 100_000 });
    assert_eq!(
        after[..8],
        [20_000, 40_000, 80_000, 106_000, 132_500, 165_500, 206_750, 258_250]
    );
    assert_eq!(after.len(), 9);
    assert_eq!(w.ssthresh, 258_250);
}

#[test]
fn hystart_plus_plus_returns_to_slow_start_when_the_rtt_falls_back() {
    // As above, but round 4 is back at 100 ms: its 8th sample (ACK 7, grown by a quarter
    // like ACKs 0-6) is below CSS's baseline of 120 ms, so its other 98 ACKs grow by a full
    // segment: 106 + 2 + 98 = 206 segments, and slow start goes on doubling.
    let mut c = with_hystart(true, HyStart::Rfc9406);
    let (w, after) = slow_start(&mut c, 6, 3_000, |r| if r == 3 { 120_000 } else { 100_000 });
    assert_eq!(after, [20_000, 40_000, 80_000, 106_000, 206_000, 412_000]);
    assert_eq!(w.ssthresh, u64::MAX / 4);
}

#[test]
fn hystart_plus_plus_is_not_used_after_a_timeout() {
    // RFC 9406 Sec. 4.3: only the initial slow start. After a timeout (ssthresh 0.7 x 100
    // segments) slow start doubles the window every round although round 3's RTT (200 ms)
    // is far above round 2's (100 ms + 12.5 ms): 2, 4, 8, 16, 32, 64 segments. (Used after
    // the timeout too, round 3's 8th sample entered CSS and round 4 would end at 20.)
    let mut c = with_hystart(true, HyStart::Rfc9406);
    let mut w = c.on_timeout(
        Window {
            cwnd: 100 * MSS,
            ssthresh: u64::MAX / 4,
        },
        &loss(100 * MSS),
        false,
    );
    assert_eq!((w.cwnd, w.ssthresh), (1000, 70_000));
    let (mut n, mut after) = (1, vec![]);
    for r in 0..6 {
        let rtt = if r >= 3 { 200_000 } else { 100_000 };
        n = round(&mut c, &mut w, r * 1_000_000, n, 3_000, rtt);
        after.push(w.cwnd);
    }
    assert_eq!(after, [2000, 4000, 8000, 16_000, 32_000, 64_000]);
}

#[test]
fn hystart_plus_plus_leaves_css_on_a_low_round_even_after_a_round_without_samples() {
    // CSS entered in round 3 (120 ms, baseline 120 ms) as in the test above; round 4's
    // ACKs carry no RTT sample (lastRoundMinRTT becomes invalid), round 5's are back at
    // 100 ms: its 8th sample is below the baseline, which is all Sec. 4.2 asks in CSS, so
    // slow start resumes: 132.5 + 8 x 0.25 + 124 = 258.5 segments (165.5 staying in CSS).
    let mut c = with_hystart(true, HyStart::Rfc9406);
    let mut w = opened();
    let mut n = 10;
    let mut after = vec![];
    for r in 0..6 {
        let rtt = match r {
            3 => Some(120_000),
            4 => None,
            _ => Some(100_000),
        };
        let mut sent = 0;
        for i in 0..n {
            let rest = n - i - 1;
            let a = Ack {
                now: SimTime::from_us(r * 1_000_000 + i * 3_000),
                acked: MSS,
                rtt: rtt.map(SimTime::from_us),
                flight: (rest + sent) * MSS,
                recovering: false,
            };
            c.on_ack(&mut w, &a);
            sent = sent.max((w.cwnd / MSS).saturating_sub(rest));
        }
        n = sent;
        after.push(w.cwnd);
    }
    assert_eq!(after, [20_000, 40_000, 80_000, 106_000, 132_500, 258_500]);
}

#[test]
fn hystart_plus_plus_slow_start_grows_at_most_eight_segments_per_ack() {
    // RFC 9406 Sec. 4.3, L = 8 for a sender that does not pace: an ACK of 20 segments grows
    // the window by 8 (10 -> 18 segments), whatever the flow's own byte-counting limit
    // (65535 here, as in profile = "linux"); without HyStart++ by all 20.
    let mut c = with_hystart(true, HyStart::Rfc9406);
    c.cfg.growth = Growth::Abc { limit: 65535 };
    let mut w = opened();
    c.on_ack(&mut w, &ack(100, 20 * MSS, Some(100)));
    assert_eq!(w.cwnd, 18_000);
    let mut c = with_hystart(true, HyStart::Off);
    c.cfg.growth = Growth::Abc { limit: 65535 };
    let mut w = opened();
    c.on_ack(&mut w, &ack(100, 20 * MSS, Some(100)));
    assert_eq!(w.cwnd, 30_000);
}

fn linux_style(c: f64) -> Cubic {
    let mut x = cubic(true);
    x.cfg.style = CubicStyle::Linux;
    x.cfg.c = c;
    x
}

/// ACKs of one segment each, 50 ms apart from `t0_ms` (longer than the 31 ms for which
/// Linux keeps cnt), no RTT samples; the ACK numbers (1-based) at which cwnd reached a
/// new whole segment, and that segment count.
fn growth_points(c: &mut Cubic, w: &mut Window, t0_ms: u64, acks: u64) -> Vec<(u64, u64)> {
    let mut out = vec![];
    for i in 1..=acks {
        let before = w.cwnd / MSS;
        c.on_ack(w, &ack(t0_ms + 50 * (i - 1), MSS, None));
        if w.cwnd / MSS != before {
            out.push((i, w.cwnd / MSS));
        }
    }
    out
}

#[test]
fn linux_epoch_start_k_target_and_cnt() {
    // A loss at cwnd 10 (last_max_cwnd 10, ssthresh 7), then the first avoidance ACK at
    // 10 s with an RTT sample of 100 ms (delay_min 100 ms): K = cbrt(3 / 0.4) s, the
    // origin 10, t = 0 + delay_min = 0.1 s, delta = floor(0.4 (K - 0.1)^3) = floor(2.56) =
    // 2, target 8, cnt = 7 / (8 - 7) = 7; the Reno-friendly estimate starts at cwnd (7)
    // with ack_cnt 1.
    let mut c = linux_style(0.4);
    assert_eq!(c.ssthresh_after_loss(&loss(10 * MSS)), 7 * MSS);
    assert_eq!(c.linux.last_max_cwnd, 10);
    let mut w = Window {
        cwnd: 7 * MSS,
        ssthresh: 7 * MSS,
    };
    c.on_ack(&mut w, &ack(10_000, MSS, Some(100)));
    let l = c.linux;
    assert!((l.k - 7.5f64.cbrt()).abs() < 1e-12);
    assert_eq!(
        (l.origin, l.cnt, l.tcp_cwnd, l.ack_cnt, l.cwnd_cnt),
        (10, 7, 7, 1, 1)
    );
    assert_eq!(l.delay_min, Some(SimTime::from_ms(100)));
    // 50 ms later twice: delta still 2 (t = 0.15, 0.2 s), cnt 7; at t = 0.25 s delta =
    // floor(0.4 x 1.7074^3) = 1, target 9, cnt = 7 / 2 = 3: snd_cwnd_cnt (3) has reached
    // it, so cwnd grows to 8 before this ACK is counted.
    for (i, t) in [10_050, 10_100].into_iter().enumerate() {
        c.on_ack(&mut w, &ack(t, MSS, None));
        assert_eq!(
            (c.linux.cnt, c.linux.cwnd_cnt, w.cwnd),
            (7, 2 + i as u64, 7 * MSS)
        );
    }
    c.on_ack(&mut w, &ack(10_150, MSS, None));
    assert_eq!((c.linux.cnt, c.linux.cwnd_cnt, w.cwnd), (3, 1, 8 * MSS));
}

#[test]
fn ns3_increase_needs_the_linux_style() {
    let o = CubicOptions {
        increase: Some(CubicIncrease::Ns3),
        ..Default::default()
    };
    let e = Cubic::validate(&o, "flows[0].cc").unwrap_err().to_string();
    assert!(e.contains("flows[0].cc.increase") && e.contains("style"), "{e}");
    let o = CubicOptions {
        style: Some(CubicStyle::Linux),
        ..o
    };
    assert!(Cubic::validate(&o, "flows[0].cc").is_ok());
}

#[test]
fn ns3_increase_adds_one_segment_per_ack_and_keeps_the_credit() {
    // The state of `linux_epoch_start_k_target_and_cnt` after its first ACK (cwnd 7, cnt 7,
    // snd_cwnd_cnt 1), then at 10.05 s one ACK of 20 segments (a cumulative ACK covering
    // SACKed data): cnt stays 7 (target 8; the Reno-friendly estimate, 21 segments acked
    // against floor(7 x 15 / 8) = 13, reaches 8: cnt at most 7 / (8 - 7) = 7).
    //   linux (`tcp_cong_avoid_ai`): credit 1 + 20 = 21, three whole cnt: cwnd 10, credit 0.
    //   ns3 (`TcpCubic::IncreaseWindow`): credit 21 >= 7: one segment, cwnd 8, credit 14.
    let mut seen = vec![];
    for increase in [CubicIncrease::Linux, CubicIncrease::Ns3] {
        let mut c = linux_style(0.4);
        c.cfg.increase = increase;
        c.ssthresh_after_loss(&loss(10 * MSS));
        let mut w = Window {
            cwnd: 7 * MSS,
            ssthresh: 7 * MSS,
        };
        c.on_ack(&mut w, &ack(10_000, MSS, Some(100)));
        assert_eq!((c.linux.cnt, c.linux.cwnd_cnt, w.cwnd), (7, 1, 7 * MSS));
        c.on_ack(&mut w, &ack(10_050, 20 * MSS, None));
        seen.push((c.linux.cnt, w.cwnd / MSS, c.linux.cwnd_cnt));
    }
    assert_eq!(seen, [(7, 10, 0), (7, 8, 14)]);
}

#[test]
fn linux_reno_friendly_estimate_keeps_alpha_after_cwnd_prior() {
    // After a loss at 10 (cwnd_prior 10), an avoidance stage starting at cwnd 10 with a
    // negligible cubic term (C = 1e-4: K = 0, the target stays 10 for 21 s) grows only by
    // the Reno-friendly estimate. Linux: one segment per floor(cwnd x 15 / 8) segments
    // acknowledged, for ever: 11 at ACK 19 (18 + 1), 12 at ACK 39 (+20), 13 at ACK 61
    // (+22), i.e. 8/15 segment per window. RFC 9438: W_est starts at cwnd_prior, so alpha
    // is 1 at once, one segment per window (W_est gains 1 / cwnd per ACK, cwnd follows it
    // byte by byte): 11 at ACK 11, 12 at 22, 13 at 35.
    let mut c = linux_style(1e-4);
    c.ssthresh_after_loss(&loss(10 * MSS));
    let mut w = Window {
        cwnd: 10 * MSS,
        ssthresh: 7 * MSS,
    };
    assert_eq!(
        growth_points(&mut c, &mut w, 20_000, 61),
        [(19, 11), (39, 12), (61, 13)]
    );
    let mut c = cubic(true);
    c.cfg.c = 1e-4;
    c.ssthresh_after_loss(&loss(10 * MSS));
    let mut w = Window {
        cwnd: 10 * MSS,
        ssthresh: 7 * MSS,
    };
    assert_eq!(
        growth_points(&mut c, &mut w, 20_000, 35),
        [(11, 11), (22, 12), (35, 13)]
    );
}

#[test]
fn linux_cnt_is_at_most_20_before_the_first_loss() {
    // No loss yet (last_max_cwnd 0): K = 0, the target is cwnd, cnt would be 100 x cwnd;
    // Linux holds it at 20 ("increase cwnd 5% per RTT") until the Reno-friendly estimate
    // (one segment per 18 segments acknowledged at cwnd 10) asks for more at ACK 19.
    let mut c = linux_style(0.4);
    let mut w = Window {
        cwnd: 10 * MSS,
        ssthresh: 10 * MSS,
    };
    for i in 0..18 {
        c.on_ack(&mut w, &ack(30_000 + 50 * i, MSS, None));
        assert_eq!((c.linux.cnt, w.cwnd), (20, 10 * MSS));
    }
    c.on_ack(&mut w, &ack(30_900, MSS, None));
    assert_eq!((c.linux.tcp_cwnd, c.linux.cnt, w.cwnd), (11, 10, 11 * MSS));
}

#[test]
fn linux_cnt_is_kept_within_31_ms_while_cwnd_is_unchanged() {
    // bictcp_update returns early when cwnd has not changed and 31 ms (HZ / 32) have not
    // passed: the ACK counts toward the estimate but cnt is not recomputed.
    let mut c = linux_style(0.4);
    c.ssthresh_after_loss(&loss(10 * MSS));
    let mut w = Window {
        cwnd: 7 * MSS,
        ssthresh: 7 * MSS,
    };
    c.on_ack(&mut w, &ack(10_000, MSS, Some(100)));
    assert_eq!(c.linux.last_time, SimTime::from_ms(10_000));
    c.on_ack(&mut w, &ack(10_031, MSS, None));
    assert_eq!(
        (c.linux.last_time, c.linux.ack_cnt),
        (SimTime::from_ms(10_000), 2)
    );
    c.on_ack(&mut w, &ack(10_032, MSS, None));
    assert_eq!(c.linux.last_time, SimTime::from_ms(10_032));
}

#[test]
fn linux_timeout_forgets_w_max_and_delay_min() {
    let mut c = linux_style(0.4);
    c.ssthresh_after_loss(&loss(10 * MSS));
    let mut w = Window {
        cwnd: 7 * MSS,
        ssthresh: 7 * MSS,
    };
    c.on_ack(&mut w, &ack(10_000, MSS, Some(100)));
    let w = c.on_timeout(w, &loss(8 * MSS), false);
    // ssthresh = 8 x 717 / 1024 = 5 whole segments (cubictcp_recalc_ssthresh), not 5.6.
    assert_eq!((w.cwnd, w.ssthresh), (MSS, 5_000));
    assert_eq!(c.linux, LinuxCa::default());
}

#[test]
fn linux_hz_250_times_the_epoch_in_jiffies() {
    // hz = 250 (CONFIG_HZ_250: 4 ms jiffies). A loss at cwnd 10 (last_max_cwnd 10), then
    // the first avoidance ACK at 10 s (jiffy 2500) with an RTT sample of 101 ms: in
    // tcp_cubic.c's 2^-10 s units, bic_K = cbrt(2^40 x 3 / 410) = 2003 (cube_rtt_scale =
    // bic_scale 41 x 10), t = (0 + usecs_to_jiffies(101,000) = 26 jiffies) x 1024 / 250 =
    // 106, delta = 410 x 1897^3 >> 40 = 2, target 8, cnt = 7 / (8 - 7) = 7.
    let mut c = linux_style(0.4);
    c.cfg.hz = Some(250);
    c.ssthresh_after_loss(&loss(10 * MSS));
    let mut w = Window {
        cwnd: 7 * MSS,
        ssthresh: 7 * MSS,
    };
    c.on_ack(&mut w, &ack(10_000, MSS, Some(101)));
    let l = c.linux;
    assert_eq!((l.k, l.origin, l.cnt, l.tcp_cwnd, l.ack_cnt), (2003.0, 10, 7, 7, 1));
    // cwnd unchanged: held while jiffies - last_time <= HZ / 32 = 7 (jiffy 2507 at 10.031 s),
    // recomputed at jiffy 2508 (10.032 s).
    c.on_ack(&mut w, &ack(10_031, MSS, None));
    assert_eq!(c.linux.last_time, SimTime::from_ms(10_000));
    c.on_ack(&mut w, &ack(10_032, MSS, None));
    assert_eq!(c.linux.last_time, SimTime::from_ms(10_032));
    // At 10.150 s (jiffy 2537): t = (37 + 26) x 1024 / 250 = 258, delta = 410 x 1745^3 >>
    // 40 = 1, target 9, cnt = 7 / 2 = 3; snd_cwnd_cnt (3) has reached it: cwnd 8.
    c.on_ack(&mut w, &ack(10_150, MSS, None));
    assert_eq!((c.linux.cnt, w.cwnd), (3, 8 * MSS));
}

#[test]
fn linux_hz_250_discards_rtt_samples_within_hz_jiffies_of_the_epoch() {
    // cubictcp_acked: `(s32)(tcp_jiffies32 - ca->epoch_start) < HZ` discards a sample. The
    // epoch starts at 10.001 s (jiffy 2500); a sample at 11.000 s is jiffy 2750, 250 jiffies
    // later: kept, though less than 1 s has passed.
    let mut c = linux_style(0.4);
    c.cfg.hz = Some(250);
    c.ssthresh_after_loss(&loss(10 * MSS));
    let mut w = Window {
        cwnd: 7 * MSS,
        ssthresh: 7 * MSS,
    };
    c.on_ack(&mut w, &ack(10_001, MSS, Some(100)));
    c.on_ack(&mut w, &ack(10_999, MSS, Some(90)));
    assert_eq!(c.linux.delay_min, Some(SimTime::from_ms(100)));
    c.on_ack(&mut w, &ack(11_000, MSS, Some(90)));
    assert_eq!(c.linux.delay_min, Some(SimTime::from_ms(90)));
}

/// A one-flow scenario with this flow table (1 s, one 100 Mbit/s hop).
fn scenario_with(flow: &str) -> String {
    format!(
        "duration = \"1s\"\n[network.path]\nhops = [{{ rate = \"100Mbit/s\", delay = \"10ms\" }}]\n[[flows]]\n{flow}\n"
    )
}

#[test]
fn hz_is_checked_and_profile_linux_fills_in_250() {
    let err = |flow: &str| crate::load(&scenario_with(flow), &[]).unwrap_err().to_string();
    assert_eq!(
        err("cc = { algorithm = \"cubic\", style = \"linux\", hz = 500 }"),
        "flows[0].cc.hz: 500 (expected one of Linux's CONFIG_HZ: 100, 250, 300 or 1000)"
    );
    assert_eq!(
        err("cc = { algorithm = \"cubic\", hz = 250 }"),
        "flows[0].cc.hz: 250 with style = \"rfc9438\" (hz is a rule of style = \"linux\")"
    );
    assert_eq!(
        err("profile = \"linux\"\ncc = { algorithm = \"cubic\", style = \"rfc9438\", hz = 250 }"),
        "flows[0].cc.hz: 250 with style = \"rfc9438\" (hz is a rule of style = \"linux\")"
    );
    let cfg = |flow: &str| {
        let s = crate::load(&scenario_with(flow), &[]).unwrap();
        let json = serde_json::to_value(&s.flows[0].cc).unwrap();
        json.get("hz").cloned()
    };
    assert_eq!(cfg("profile = \"linux\""), Some(serde_json::json!(250)));
    assert_eq!(cfg("profile = \"linux\"\ncc = { algorithm = \"cubic\", hz = 1000 }"), Some(serde_json::json!(1000)));
    // The profile with RFC 9438's avoidance, and CUBIC without the profile: no hz.
    assert_eq!(cfg("profile = \"linux\"\ncc = { algorithm = \"cubic\", style = \"rfc9438\" }"), None);
    assert_eq!(cfg("cc = { algorithm = \"cubic\", style = \"linux\" }"), None);
}

#[test]
fn linux_ssthresh_is_in_whole_segments() {
    // cubictcp_recalc_ssthresh: max(snd_cwnd x 717 / 1024, 2) segments, integer division:
    // 4 -> 2 (RFC 9438: 0.7 x 4 = 2.8 segments), 5 -> 3 (3.5), 10 -> 7, 100 -> 70; a window
    // of 4.5 segments is snd_cwnd 4.
    for (segments, want) in [(4, 2), (5, 3), (10, 7), (100, 70), (2, 2)] {
        let mut c = linux_style(0.4);
        assert_eq!(c.ssthresh_after_loss(&loss(segments * MSS)), want * MSS, "{segments}");
    }
    let mut c = linux_style(0.4);
    assert_eq!(c.ssthresh_after_loss(&loss(4 * MSS + MSS / 2)), 2 * MSS);
    let mut c = cubic(true);
    assert_eq!(c.ssthresh_after_loss(&loss(4 * MSS)), 4 * MSS * 7 / 10);
}
