//! BBR's known answers, hook by hook.

use super::*;
use crate::tcp::rate::RateSample;

const MSS: u64 = 1448;

/// A BBR in ProbeBW (phase 3, gain 1) past Startup: BtlBw 1,206,666 B/s, RTprop
/// 41.36576 ms, no ACK aggregation measured yet. Its cwnd target is then
/// bbr_quantization_budget(bbr_bdp(2)) = 69 segments (1,206,666 x 0.04136576 x 2 / 1448 =
/// 68.94, rounded up) + 3 x the TSO goal of 2 (the pacing rate, 1,194,599 B/s, is above
/// 1.2 Mbit/s and under 1448 x 1024 B/s) = 75, rounded up to even: 76 segments.
fn probe_bw() -> Bbr {
    let mut b = Bbr::new(BbrConfig {
        mss: MSS,
        initial_window: 10 * MSS,
    });
    b.mode = Mode::ProbeBw;
    b.full_bw_reached = true;
    b.cycle_idx = 3;
    b.pacing_gain = UNIT;
    b.cwnd_gain = CWND_GAIN;
    b.bw.reset(5, 1_206_666);
    b.rtt_cnt = 5;
    b.min_rtt = Some(SimTime::from_ns(41_365_760));
    b.min_rtt_stamp = SimTime::from_secs(1);
    b
}

fn ack(state: CaState, acked: u64) -> Delivery {
    Delivery {
        now: SimTime::from_secs(2),
        rs: RateSample {
            acked_sacked: acked,
            ..RateSample::default()
        },
        delivered: 0,
        delivered_time: SimTime::from_secs(2),
        prior_in_flight: 50 * MSS,
        in_flight: 50 * MSS,
        srtt: None,
        state,
        edt_wait: SimTime::ZERO,
    }
}

/// Linux's tcp_cong_control gives a `cong_control` controller the window alone: past the
/// packet-conservation round of a recovery, cwnd = min(BBR's own cwnd + acked, target),
/// whatever PRR would have made of it. Here BBR's window is 60 segments and the recovery's
/// PRR step has just written 40: two segments acknowledged give 62 segments (89,776 bytes),
/// not 42; ACKs keep adding until the 76-segment target (110,048 bytes), where it stays.
#[test]
fn in_a_recovery_bbr_grows_its_own_window_not_the_one_prr_wrote() {
    let mut b = probe_bw();
    b.prev_state = CaState::Recovery;
    b.packet_conservation = false;
    b.own_cwnd = Some(60 * MSS);
    let mut w = Window {
        cwnd: 40 * MSS,
        ssthresh: 80 * MSS,
    };
    b.cong_control(&mut w, &ack(CaState::Recovery, 2 * MSS));
    assert_eq!(w.cwnd, 62 * MSS);
    assert_eq!(w.cwnd, 89_776);
    for _ in 0..20 {
        w.cwnd = 30 * MSS; // what PRR writes on each of these ACKs
        b.cong_control(&mut w, &ack(CaState::Recovery, 2 * MSS));
    }
    assert_eq!(w.cwnd, 76 * MSS);
    assert_eq!(w.cwnd, 110_048);
    // The ACK that ends the recovery (the recovery wrote cwnd = ssthresh): BBR's own window,
    // at least the one saved before the recovery (bbr_set_cwnd_to_recover_or_restore).
    b.prior_cwnd = 70 * MSS;
    w.cwnd = 20 * MSS;
    b.cong_control(&mut w, &ack(CaState::Open, 2 * MSS));
    assert_eq!(w.cwnd, 76 * MSS);
    // In the open state the window is BBR's as it stands (nothing else writes it there).
    w.cwnd = 50 * MSS;
    b.cong_control(&mut w, &ack(CaState::Open, 2 * MSS));
    assert_eq!(w.cwnd, 52 * MSS);
}
