//! BBR v1 (`tcp/cc/bbr.rs`, Linux's tcp_bbr.c) and the pacing of the send loop: known answers
//! on a clean single-flow path, and what BBR is designed to do on a large buffer.
//!
//! The path: 100 Mbit/s access hop, then a 10 Mbit/s bottleneck with 20 ms one way; Linux's
//! defaults (`profile = "linux"`: MSS 1448 + 52 header bytes with timestamps, IW 10, SACK,
//! the Linux receiver). The bottleneck carries 10e6 / 8 x 1448 / 1500 = 1,206,666.67 payload
//! bytes per second; the round-trip propagation time seen by a full segment and its ACK is
//! 40 ms + 1.2 ms + 0.12 ms (one 1500-byte serialization per hop) + 41.6 us + 4.16 us (one
//! 52-byte ACK per hop) = 41.36576 ms.

use crate::common;

use tcplab_sim::sim::Simulation;
use tcplab_sim::tcp::cc::bbr::{Bbr, Mode, Transition, DRAIN_GAIN, HIGH_GAIN, PACING_GAIN};
use tcplab_sim::tcp::cc::CongestionControl;
use tcplab_sim::time::SimTime;

const MSS: u64 = 1448;
/// floor(10e6 / 8 x 1448 / 1500): the bottleneck's payload rate, bytes/s.
const BOTTLENECK_BPS: u64 = 1_206_666;
const RTPROP: SimTime = SimTime::from_ns(41_365_760);

fn path(limit: u32, duration: &str, seed: u64, extra: &str) -> String {
    format!(
        r#"
duration = "{duration}"
seed = {seed}
[network.path]
hops = [
  {{ rate = "100Mbit/s", delay = "0ms", queue = {{ limit = 10000 }} }},
  {{ rate = "10Mbit/s", delay = "20ms", queue = {{ limit = {limit} }} }},
]
[[flows]]
profile = "linux"
{extra}
"#
    )
}

/// `path` with Bernoulli loss `p` on the bottleneck hop.
fn lossy_path(limit: u32, duration: &str, seed: u64, extra: &str, p: f64) -> String {
    let q = format!("queue = {{ limit = {limit} }} }}");
    let lossy = format!("queue = {{ limit = {limit} }}, loss = {{ model = \"bernoulli\", p = {p} }} }}");
    path(limit, duration, seed, extra).replace(&q, &lossy)
}

fn bbr_path(duration: &str, seed: u64) -> String {
    path(1000, duration, seed, "cc = \"bbr\"")
}

fn sim(text: &str) -> Simulation {
    let sc = tcplab_sim::load(text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    Simulation::new(&sc)
}

fn bbr(s: &Simulation) -> &Bbr {
    match &s.sender(0).expect("a native sender").cc {
        CongestionControl::Bbr(b) => b,
        other => panic!("not BBR: {other:?}"),
    }
}

fn cwnd(s: &Simulation) -> u64 {
    s.sender(0).unwrap().core.win.cwnd
}

/// BtlBw at the start of each round of Startup: round r's max filter after its first sample.
fn startup_rounds(s: &mut Simulation) -> Vec<(u64, u64)> {
    let mut rounds = vec![];
    for us in (0..700_000).step_by(100) {
        s.run_until(SimTime::from_us(us));
        let b = bbr(s);
        if rounds.last().is_none_or(|&(r, _)| r != b.round()) && b.round() > 0 {
            rounds.push((b.round(), b.btl_bw()));
        }
    }
    rounds
}

/// Startup grows BtlBw by more than 25% a round until the bottleneck's rate (round 5:
/// 1,206,666 < 5/4 x 1,087,454), then three rounds without 25% growth (5, 6, 7): full
/// bandwidth is found at round 7, which is when Drain begins; Drain ends (in flight at most
/// one BDP) within that round, and ProbeBW begins.
#[test]
fn startup_finds_full_bandwidth_at_round_7_then_drain_then_probe_bw() {
    let mut s = sim(&bbr_path("1s", 1));
    let rounds = startup_rounds(&mut s);
    assert_eq!(
        &rounds[..5],
        &[
            (1, 35_004),
            (2, 350_047),
            (3, 710_248),
            (4, 1_087_454),
            (5, BOTTLENECK_BPS)
        ]
    );
    // 35,004 B/s: the first segment, 1448 bytes, over one RTprop.
    assert_eq!(1448 * 1_000_000_000 / RTPROP.ns(), 35_004);
    s.run_until(SimTime::from_secs(1));
    let t: Vec<(u64, Mode)> = bbr(&s).transitions().iter().map(|t| (t.round, t.mode)).collect();
    assert_eq!(t, vec![(7, Mode::Drain), (7, Mode::ProbeBw)]);
}

/// The bandwidth estimate on a single-flow path is the bottleneck's payload rate, to the
/// byte per second, and RTprop the path's propagation and serialization time, to the ns.
#[test]
fn btl_bw_is_the_bottleneck_rate_and_rtprop_the_path_round_trip() {
    let mut s = sim(&bbr_path("5s", 1));
    s.run_until(SimTime::from_secs(5));
    let b = bbr(&s);
    assert_eq!(b.btl_bw(), BOTTLENECK_BPS);
    assert_eq!(b.min_rtt(), Some(RTPROP));
}

/// The pacing gain of each mode and ProbeBW phase (tcp_bbr.c's constants: 739/256 = 2.8867
/// in Startup, 88/256 in Drain, [5/4, 3/4, 1, 1, 1, 1, 1, 1] in ProbeBW, 1 in ProbeRTT), the
/// cwnd gains (2.8867 in Startup and Drain, 2 in ProbeBW, 1 in ProbeRTT), and the pacing rate
/// the sender is given: 99% of gain x BtlBw, in bits.
#[test]
fn pacing_gain_of_each_phase_and_the_rate_the_sender_paces_at() {
    assert_eq!((HIGH_GAIN, DRAIN_GAIN), (739, 88));
    assert_eq!(PACING_GAIN, [320, 192, 256, 256, 256, 256, 256, 256]);
    let mut s = sim(&bbr_path("12s", 1));
    let mut seen = std::collections::BTreeMap::new();
    for ms in 0..12_000 {
        s.run_until(SimTime::from_ms(ms));
        let b = bbr(&s);
        let key = (
            format!("{:?}", b.mode()),
            if b.mode() == Mode::ProbeBw {
                b.cycle_index()
            } else {
                9
            },
        );
        let rate = s.sender(0).unwrap().pacing_rate_bps().unwrap();
        seen.insert(
            key,
            (
                b.pacing_gain(),
                b.cwnd_gain(),
                if b.mode() == Mode::Startup { 0 } else { rate },
            ),
        );
    }
    let r = |gain: u64| BOTTLENECK_BPS * gain * 99 / 25_600 * 8;
    let want = [
        (("Drain", 9), (88, 739, r(88))),
        (("ProbeBw", 0), (320, 512, r(320))),
        (("ProbeBw", 1), (192, 512, r(192))),
        (("ProbeBw", 2), (256, 512, r(256))),
        (("ProbeBw", 3), (256, 512, r(256))),
        (("ProbeBw", 4), (256, 512, r(256))),
        (("ProbeBw", 5), (256, 512, r(256))),
        (("ProbeBw", 6), (256, 512, r(256))),
        (("ProbeBw", 7), (256, 512, r(256))),
        (("ProbeRtt", 9), (256, 256, r(256))),
        (("Startup", 9), (739, 739, 0)),
    ];
    let got: Vec<_> = seen.iter().map(|((m, i), v)| ((m.as_str(), *i), *v)).collect();
    assert_eq!(got, want);
    assert_eq!(r(320), 11_945_992);
}

/// Pacing holds segments apart: in ProbeBW (after 1 s) no two data segments enter the access
/// link closer than 1448 bytes at the highest pacing rate (5/4 phase, 11,945,992 bit/s):
/// floor(1448 x 8e9 / 11,945,992) = 969,697 ns, and back-to-back paced segments are exactly
/// that far apart. Without pacing (CUBIC) an ACK releases its segments in a burst: several
/// reach the access link in the same nanosecond.
#[test]
fn the_send_loop_paces_at_the_controllers_rate() {
    let min_gap = |extra: &str| {
        let text = path(1000, "4s", 1, extra).replace(
            "[network.path]",
            "trace = { links = [\"hop0.fwd\"], max_points = 100000 }\n[network.path]",
        );
        let r = common::run(&text);
        let sent: Vec<f64> = common::data_sent(&r)
            .iter()
            .filter(|p| p.t > 1.0)
            .map(|p| p.t)
            .collect();
        assert!(sent.len() > 2000, "{} segments", sent.len());
        sent.windows(2)
            .map(|w| ((w[1] - w[0]) * 1e9).round() as u64)
            .min()
            .unwrap()
    };
    assert_eq!(1448u128 * 8_000_000_000 / 11_945_992, 969_697);
    assert_eq!(min_gap("cc = \"bbr\""), 969_697);
    assert_eq!(min_gap("cc = \"cubic\""), 0);
}

/// ProbeRTT: entered on the first ACK more than 10 s after RTprop was last measured lower
/// (its stamp is the first ACK, at RTprop: 41.36576 ms; nothing lower comes, so it is never
/// renewed), with cwnd 4 segments; it lasts at least 200 ms after in flight falls to 4
/// segments, plus a round; then ProbeBW resumes with the cwnd from before.
#[test]
fn probe_rtt_after_10_s_without_a_lower_rtt_with_cwnd_4_segments() {
    let mut s = sim(&bbr_path("11s", 1));
    s.run_until(SimTime::from_ms(10_000));
    let before = cwnd(&s);
    assert_eq!(bbr(&s).mode(), Mode::ProbeBw);
    let stamp = RTPROP + SimTime::from_secs(10);
    s.run_until(stamp);
    assert_eq!(bbr(&s).mode(), Mode::ProbeBw, "not before 10 s");
    let mut entered = None;
    let mut min_cwnd = u64::MAX;
    for us in (stamp.ns() / 1000..11_000_000).step_by(10) {
        s.run_until(SimTime::from_us(us));
        if bbr(&s).mode() == Mode::ProbeRtt {
            entered.get_or_insert(us);
            min_cwnd = min_cwnd.min(cwnd(&s));
            assert_eq!(cwnd(&s), 4 * MSS, "cwnd in ProbeRTT at {us} us");
        }
    }
    let t: Vec<Transition> = bbr(&s).transitions()[2..].to_vec();
    assert_eq!(t[0].mode, Mode::ProbeRtt);
    assert_eq!(t[1].mode, Mode::ProbeBw);
    // The first ACK after the stamp + 10 s (ACKs arrive every 2 segments, 2.4 ms apart).
    assert!(
        t[0].at > stamp && t[0].at - stamp < SimTime::from_us(2400),
        "{:?}",
        t[0]
    );
    assert!(t[1].at - t[0].at >= SimTime::from_ms(200) + RTPROP, "{t:?}");
    assert_eq!((entered.is_some(), min_cwnd), (true, 4 * MSS));
    assert_eq!(cwnd(&s), before, "cwnd restored");
}

/// ProbeBW begins at a random phase other than the 3/4 one (tcp_bbr.c: cycle_idx = 7 -
/// random(0..7), then one advance), drawn from the flow's seeded stream: a seed gives the same
/// phase every time, and different seeds give different phases.
#[test]
fn probe_bw_starts_at_a_seeded_random_phase_never_the_draining_one() {
    let entry_phase = |seed| {
        let mut s = sim(&bbr_path("1s", seed));
        s.run_until(SimTime::from_secs(1));
        let t = bbr(&s).transitions()[1];
        assert_eq!(t.mode, Mode::ProbeBw);
        let mut s2 = sim(&bbr_path("1s", seed));
        s2.run_until(t.at);
        bbr(&s2).cycle_index()
    };
    let phases: Vec<usize> = (1..=12).map(entry_phase).collect();
    assert!(!phases.contains(&1), "{phases:?}");
    let distinct: std::collections::BTreeSet<_> = phases.iter().collect();
    assert!(distinct.len() >= 4, "{phases:?}");
    assert_eq!(phases, (1..=12).map(entry_phase).collect::<Vec<_>>());
}

/// Same scenario and seed, byte-identical results and the same BBR history.
#[test]
fn bbr_runs_are_deterministic() {
    let run = || {
        let mut s = sim(&bbr_path("12s", 3));
        s.run_until(SimTime::from_secs(12));
        let t = bbr(&s).transitions().to_vec();
        (t, serde_json::to_string(&s.run()).unwrap())
    };
    let (a, b) = (run(), run());
    assert_eq!(a, b);
    assert_eq!(a.0.len(), 4); // Drain, ProbeBW, ProbeRTT, ProbeBW
}

/// What BBR is designed for: one flow on 10 Mbit/s, 40 ms, with a 1000-packet buffer (about 29
/// BDPs) keeps the bottleneck busy (> 90%) with a standing queue below one BDP (34 packets),
/// and loses nothing. CUBIC on the same path fills the buffer until it drops.
#[test]
fn one_bbr_flow_fills_the_pipe_without_filling_the_buffer() {
    let bdp_packets = BOTTLENECK_BPS as f64 * RTPROP.secs_f64() / MSS as f64;
    assert_eq!(bdp_packets.floor(), 34.0);
    let r = common::run(&path(1000, "30s", 1, "cc = \"bbr\""));
    let l = &r.links[2];
    assert_eq!(l.link, "hop1.fwd");
    assert!(l.utilization > 0.9, "utilization {}", l.utilization);
    assert!(
        l.mean_queue_packets < bdp_packets,
        "queue {}",
        l.mean_queue_packets
    );
    assert_eq!((l.drops_queue, r.flows[0].segments_retransmitted), (0, 0));
    let c = common::run(&path(1000, "30s", 1, "cc = \"cubic\""));
    let lc = &c.links[2];
    assert!(
        lc.mean_queue_packets > 10.0 * bdp_packets && lc.drops_queue > 0,
        "{lc:?}"
    );
}

/// BBR v1 does not take loss as a congestion signal: with 1% random loss on the bottleneck it
/// still keeps it above 80% busy, where loss-based CUBIC falls far below.
#[test]
fn random_loss_barely_moves_bbr() {
    let lossy = |cc: &str| {
        let text = lossy_path(1000, "30s", 1, cc, 0.01);
        common::run(&text).links[2].utilization
    };
    let (bbr, cubic) = (lossy("cc = \"bbr\""), lossy("cc = \"cubic\""));
    assert!(bbr > 0.8 && cubic < 0.5, "bbr {bbr}, cubic {cubic}");
}

#[test]
fn bbr_has_no_options() {
    let text = path(100, "1s", 1, "cc = { algorithm = \"bbr\", beta = 0.7 }");
    let e = tcplab_sim::run_toml(&text, &[]).unwrap_err().to_string();
    assert!(
        e.contains("flows[0].cc.beta") && e.contains("bbr has no options"),
        "{e}"
    );
}

/// BBR under every loss recovery, with 2% random loss on the bottleneck hop:
/// every run completes, conserves packets on the bottleneck, and keeps cwnd at or above its
/// floor of 4 segments outside ProbeRTT's and a timeout's one segment.
#[test]
fn bbr_runs_under_every_recovery_with_loss() {
    let names = ["tahoe", "reno", "newreno", "sack", "fack", "sackrh"].map(|v| format!("\"{v}\""));
    let rack = "{ variant = \"sack\", prr = true, rack = true }".to_string();
    for tcp in names.iter().chain([&rack]) {
        let flow = format!("tcp = {tcp}\ncc = \"bbr\"\nack = \"delayed\"\nmss = 1448");
        let text = lossy_path(100, "20s", 7, &flow, 0.02);
        let text = text.replace("profile = \"linux\"\n", "");
        let r = tcplab_sim::run_toml(&text, &[]).unwrap_or_else(|e| panic!("{tcp}: {e}"));
        let f = &r.flows[0];
        assert!(
            f.bytes_delivered > 1_000_000 && f.segments_retransmitted > 0,
            "{tcp}: {f:?}"
        );
        for l in &r.totals {
            assert_eq!(
                l.arrivals,
                l.drops_queue + l.drops_loss + l.delivered + l.in_link,
                "{tcp}: {l:?}"
            );
        }
    }
}

/// Loss in ProbeBW (one scripted drop at the bottleneck): tcp_bbr.c's packet conservation
/// while the recovery lasts (cwnd never below what is in flight), the cwnd from before the
/// loss restored when it ends, and the model kept (BtlBw still the bottleneck rate).
#[test]
fn a_loss_keeps_the_model_conserves_packets_in_recovery_and_restores_cwnd() {
    let text = path(1000, "6s", 1, "cc = \"bbr\"").replace(
        "queue = { limit = 1000 } }",
        "queue = { limit = 1000 }, loss = { model = \"script\", packets = [3000] } }",
    );
    let mut s = sim(&text);
    let (mut before, mut recovered, mut steps_in_recovery) = (None, None, 0);
    for us in (3_000_000..6_000_000).step_by(50) {
        s.run_until(SimTime::from_us(us));
        let snd = s.sender(0).unwrap();
        let in_recovery = snd.recovery.in_recovery();
        match (in_recovery, before, recovered) {
            (false, _, None) if steps_in_recovery == 0 => before = Some(snd.core.win.cwnd),
            (true, _, None) => {
                steps_in_recovery += 1;
                assert!(
                    snd.core.win.cwnd >= snd.core.in_flight(),
                    "at {us} us: {:?}",
                    snd.core.win
                );
            }
            (false, Some(_), None) => recovered = Some(snd.core.win.cwnd),
            _ => {}
        }
    }
    assert!(steps_in_recovery > 0, "no recovery");
    let (before, after) = (before.unwrap(), recovered.unwrap());
    assert!(
        after >= before,
        "cwnd {before} before the loss, {after} after the recovery"
    );
    assert_eq!(bbr(&s).btl_bw(), BOTTLENECK_BPS);
    assert_eq!(s.sender(0).unwrap().core.inst.counters.fast_retransmits, 1);
}
