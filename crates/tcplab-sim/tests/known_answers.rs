//! Known-answer tests: scripted losses on a one-hop path, exact expected cwnd, ssthresh,
//! retransmissions and timer behaviour, as RFC 5681 / RFC 6298 and Jacobson (1988) prescribe.

use crate::common;
use common::*;

const RTT: f64 = 0.1; // 2 x 50 ms; serialization at 1 Gbit/s adds ~17 us

/// Segments sent per round trip, by floor(t / RTT).
fn per_round(r: &tcplab_sim::RunResult, rounds: usize) -> Vec<usize> {
    let mut n = vec![0; rounds];
    for s in data_sent(r) {
        let k = (s.t / RTT) as usize;
        if k < rounds {
            n[k] += 1;
        }
    }
    n
}

#[test]
fn slow_start_doubles_cwnd_every_round_trip() {
    // ACK every segment, IW = 1: 1, 2, 4, 8, 16, 32 segments per round (Jacobson 1988 Sec. 2).
    let r = run(&one_hop("ack = \"immediate\"", &[], "0.65s"));
    assert_eq!(per_round(&r, 6), vec![1, 2, 4, 8, 16, 32]);
    // cwnd grows one MSS per ACK: after round k it is 2^(k+1) segments.
    let c = cwnd(&r);
    let at_round_end: Vec<u64> = (1..=5)
        .map(|k| c.iter().rfind(|x| x.t < k as f64 * RTT + 0.05).unwrap().cwnd)
        .collect();
    assert_eq!(at_round_end, vec![2000, 4000, 8000, 16000, 32000]);
}

#[test]
fn delayed_acks_slow_start_grows_by_half() {
    // With an ACK per two segments, cwnd grows by 1.5x per round: 1 (timer ACK after 200 ms),
    // then 2 -> ACK -> 3, 3 -> ACKs for 2 (+1 left for the timer)...
    let r = run(&one_hop("ack = \"delayed\"", &[], "1.0s"));
    let c = cwnd(&r);
    // The first segment is acknowledged by the 200 ms delayed-ACK timer: RTT + 200 ms.
    assert!((c[1].t - 0.3).abs() < 0.001, "first ACK at {}", c[1].t);
    assert_eq!(c[1].cwnd, 2000);
    assert_eq!(c[1].ssthresh, None, "no loss yet: ssthresh is still infinite");
}

#[test]
fn congestion_avoidance_adds_about_one_mss_per_round_trip() {
    // IW = ssthresh = 4 segments: congestion avoidance from the start. Per ACK,
    // cwnd += MSS*MSS/cwnd (RFC 5681 Eq. 3): 4000 -> 4250 -> 4485 -> 4707 -> 4919 (by hand).
    let r = run(&one_hop(
        "ack = \"immediate\"\ninitial_window = 4\ninitial_ssthresh = 4000",
        &[],
        "2.05s",
    ));
    let c = cwnd(&r);
    let first: Vec<u64> = c.iter().take(5).map(|x| x.cwnd).collect();
    assert_eq!(first, vec![4000, 4250, 4485, 4707, 4919]);
    // Over 20 round trips the window gains a little under one MSS per round (integer rounding
    // and the per-ACK form both shave it: about 0.95 MSS here).
    let end = c.last().unwrap().cwnd;
    let per_rtt = (end - 4000) as f64 / 20.0;
    assert!((900.0..1000.0).contains(&per_rtt), "growth per RTT {per_rtt}");
    assert_eq!(r.flows[0].segments_retransmitted, 0);
}

/// IW = 10 = ssthresh: CA from the start; the 15th segment (seq 14000) is lost.
const CA10: &str = "ack = \"immediate\"\ninitial_window = 10\ninitial_ssthresh = 10000";

#[test]
fn reno_three_dupacks_halve_the_window() {
    let r = run(&one_hop(&format!("tcp = \"reno\"\n{CA10}"), &[15], "3s"));
    let rtx = retransmissions(&r);
    assert_eq!(rtx.len(), 1, "{rtx:?}");
    let (t_fr, seq) = (rtx[0].t, rtx[0].seq);
    assert_eq!(seq, 14000);
    // The retransmission leaves on the third duplicate ACK: the ACKs of segments 16, 17, 18
    // arrive one RTT after those were sent (second round, t ~ 0.1 s) plus one more RTT.
    assert!((0.2..0.21).contains(&t_fr), "fast retransmit at {t_fr}");
    let c = cwnd(&r);
    let at_fr = c.iter().find(|x| x.t >= t_fr).unwrap();
    // RFC 5681 Eq. 4: ssthresh = FlightSize / 2 (flight = snd_max - snd_una = snd_max - 14000)
    let flight = snd_max_before(&r, t_fr + 1e-9, 1000) - 14000;
    assert_eq!(at_fr.ssthresh, Some(flight / 2));
    assert_eq!(
        at_fr.cwnd,
        flight / 2 + 3000,
        "cwnd = ssthresh + 3 MSS on entering recovery"
    );
    // The ACK of the retransmission ends recovery: cwnd deflates to ssthresh exactly.
    let exit = c
        .iter()
        .find(|x| x.t > t_fr + 0.09 && x.cwnd <= flight / 2)
        .unwrap();
    assert_eq!(exit.cwnd, flight / 2);
    let f = &r.flows[0];
    assert_eq!(
        (
            f.fast_retransmits,
            f.timeouts,
            f.ca_events,
            f.non_ca_events,
            f.loss_events
        ),
        (1, 0, 1, 0, 1)
    );
    assert_eq!(f.other_losses, 0);
}

#[test]
fn tahoe_three_dupacks_reset_to_one_segment_and_slow_start() {
    let r = run(&one_hop(&format!("tcp = \"tahoe\"\n{CA10}"), &[15], "3s"));
    let rtx = retransmissions(&r);
    assert_eq!(
        rtx.len(),
        1,
        "go-back-N resends only the hole: the rest arrived ({rtx:?})"
    );
    let (t_fr, seq) = (rtx[0].t, rtx[0].seq);
    assert_eq!(seq, 14000);
    let c = cwnd(&r);
    let at_fr = c.iter().find(|x| x.t >= t_fr).unwrap();
    let flight = snd_max_before(&r, t_fr + 1e-9, 1000) - 14000;
    assert_eq!((at_fr.cwnd, at_fr.ssthresh), (1000, Some(flight / 2)));
    // Slow start again: the next changes add one MSS per ACK (immediate ACKs).
    let after: Vec<u64> = c.iter().filter(|x| x.t > t_fr).take(3).map(|x| x.cwnd).collect();
    assert_eq!(after, vec![2000, 3000, 4000]);
    let f = &r.flows[0];
    assert_eq!(
        (f.fast_retransmits, f.timeouts, f.ca_events, f.loss_events),
        (1, 0, 1, 1)
    );
}

#[test]
fn retransmit_timer_backs_off_exponentially_up_to_the_cap() {
    // IW = 1 and the first seven transmissions lost: no duplicate ACKs, only the timer.
    // RTO starts at 1 s and doubles per expiry, capped at max_rto = 8 s (RFC 6298 Sec. 5.5):
    // sends at 0, 1, 3, 7, 15, 23, 31 (all lost) and 39 (gets through).
    let r = run(&one_hop("max_rto = \"8s\"", &[1, 2, 3, 4, 5, 6, 7], "39.5s"));
    let times: Vec<f64> = data_sent(&r)
        .iter()
        .map(|s| (s.t * 1000.0).round() / 1000.0)
        .collect();
    assert_eq!(times[..8], [0.0, 1.0, 3.0, 7.0, 15.0, 23.0, 31.0, 39.0]);
    assert!(times[8] > 39.1, "the next segment waits for the ACK: {times:?}");
    let f = &r.flows[0];
    assert_eq!(f.timeouts, 7);
    // One loss episode, ended when the ACK covered it: a non-CA event (it needed timeouts).
    assert_eq!((f.ca_events, f.non_ca_events, f.loss_events), (0, 1, 1));
    // Karn: the ACK at 39.1 s of a segment first sent at 0 s gives no sample; the only samples
    // are the new segments' (100 ms).
    assert!((f.mean_rtt_s - 0.1).abs() < 1e-3, "mean RTT {}", f.mean_rtt_s);
}

#[test]
fn karn_keeps_the_backed_off_timer_until_a_clean_sample() {
    // The first segment is lost once: RTO fires at 1 s, the retransmission's ACK yields no
    // sample (ambiguous), so the next new segment is timed with the backed-off RTO (2 s).
    let r = run(&one_hop("ack = \"immediate\"", &[1], "1.35s"));
    let f = &r.flows[0];
    assert_eq!(f.timeouts, 1);
    // Samples come only from segments sent after the retransmission: exactly 100 ms + serial.
    assert!((f.mean_rtt_s - 0.1).abs() < 0.0001, "{}", f.mean_rtt_s);
}
