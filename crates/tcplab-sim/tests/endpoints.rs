//! The one endpoint interface: every implementation (the RFC senders and ns-2's agents) is
//! driven the same way, reports Mathis' instruments through the same code, and can be driven
//! without the simulator.

use tcplab_sim::scenario;
use tcplab_sim::stats::{FlowResult, RunResult};
use tcplab_sim::tcp::endpoint::{Endpoint, TcpReceiver, TcpSender};
use tcplab_sim::tcp::segment::{Segment, SegmentKind};
use tcplab_sim::time::SimTime;

/// ns-2's tcpVariants path (s1 -8 Mb/s- r1 -800 kb/s, 100 ms, DropTail 8- k1), one flow from
/// 1 s, with the (n+1)-th arrival at the bottleneck dropped for each n in `drops`. The window
/// (20 packets: the path's bandwidth-delay product) never overflows the queue, so the
/// scripted drops are the only losses.
fn variants_path(flow: &str, drops: &[u64], duration: &str) -> String {
    let script: Vec<u64> = drops.iter().map(|n| n + 1).collect();
    format!(
        r#"
duration = "{duration}"
[network.path]
hops = [
  {{ rate = "8Mbit/s", delay = "0ms", queue = {{ limit = 49 }} }},
  {{ rate = "800kbit/s", delay = "100ms", queue = {{ limit = 7 }}, loss = {{ model = "script", packets = {script:?} }} }},
]
[[flows]]
{flow}
ack = "immediate"
mss = 1000
header_bytes = 40
initial_window = 2
rwnd = 20000
start = "1s"
initial_rto = "6s"
min_rto = "1s"
"#
    )
}

fn run(text: &str) -> RunResult {
    tcplab_sim::run_toml(text, &[]).unwrap_or_else(|e| panic!("scenario failed: {e}\n{text}"))
}

fn events(f: &FlowResult) -> (u64, u64, u64, u64, u64, u64) {
    (
        f.fast_retransmits,
        f.timeouts,
        f.loss_events,
        f.ca_events,
        f.non_ca_events,
        f.other_losses,
    )
}

#[test]
fn ns2_agents_report_mathis_instruments_like_the_native_senders() {
    // One drop (ns-2 packet 14): one clean fast retransmit for every agent but Tahoe's
    // go-back-N, which resends the rest of the window (other losses) in one CA event.
    for tcp in ["tahoe", "reno", "newreno", "sack", "fack", "sackrh"] {
        let flow = format!("profile = \"ns2\"\ntcp = \"{tcp}\"\nclock_tick = \"10ms\"");
        let r = run(&variants_path(&flow, &[14], "8s"));
        let f = &r.flows[0];
        assert_eq!(r.links.iter().map(|l| l.drops_queue).sum::<u64>(), 0, "{tcp}");
        assert_eq!(events(f).0..=events(f).3, 1..=1, "{tcp}: {:?}", events(f));
        assert_eq!((f.timeouts, f.non_ca_events), (0, 0), "{tcp}");
        if tcp != "tahoe" {
            assert_eq!(f.other_losses, 0, "{tcp}");
        }
        // p is CA events per acknowledged segment; the RTT is the path's 200 ms plus
        // serialization and queueing (1040 bytes at 800 kbit/s = 10.4 ms per packet).
        assert!(
            (f.p - f.mss_bytes as f64 / f.bytes_acked as f64).abs() < 1e-12,
            "{tcp}: p {}",
            f.p
        );
        assert!(
            f.mean_rtt_s > 0.21 && f.mean_rtt_s < 0.32,
            "{tcp}: rtt {}",
            f.mean_rtt_s
        );
        assert!(
            f.mean_cwnd_bytes > 2000.0 && f.mean_cwnd_bytes < 28_000.0,
            "{tcp}"
        );
    }
    // The native Reno sender on the same path and loss: the same episode counts.
    let r = run(&variants_path("tcp = \"reno\"", &[14], "8s"));
    assert_eq!(events(&r.flows[0]), (1, 0, 1, 1, 0, 0));
}

#[test]
fn a_timeout_makes_a_non_ca_event_for_ns2_agents_too() {
    // Reno loses three packets of one window: fast retransmit, then a timeout (the
    // tcpVariants "three drops" case).
    let r = run(&variants_path(
        "profile = \"ns2\"\ntcp = \"reno\"\nclock_tick = \"10ms\"",
        &[14, 26, 28],
        "8s",
    ));
    let f = &r.flows[0];
    assert_eq!(
        (f.loss_events, f.ca_events, f.non_ca_events),
        (1, 0, 1),
        "{:?}",
        events(f)
    );
    assert!(f.timeouts >= 1 && f.fast_retransmits >= 1);
}

#[test]
fn background_ftp_with_the_ns2_profile_runs_ns2_agents() {
    // The same ns-2 agent, once as a foreground flow and once as a background FTP source on
    // the same path and start: the same bytes, segment for segment.
    let fg = run(&variants_path(
        "profile = \"ns2\"\ntcp = \"newreno\"",
        &[14],
        "6s",
    ));
    let bg_text = variants_path("profile = \"ns2\"\ntcp = \"newreno\"", &[], "6s")
        .replace(
            "[[flows]]",
            "[[traffic]]\nkind = \"ftp\"\nstart = \"1s\"\nfrom = \"n0\"\nto = \"n2\"\n[traffic.tcp]",
        )
        .replace("start = \"1s\"\ninitial_rto", "initial_rto")
        .replace("packets = []", "packets = [15]");
    let doc = format!("{bg_text}\n");
    // A foreground flow must exist: a short one that starts after the run ends.
    let doc = doc.replace(
        "duration = \"6s\"",
        "duration = \"6s\"\n[[flows]]\ntcp = \"reno\"\nstart = \"10s\"\n",
    );
    let bg = run(&doc);
    let g = &bg.traffic[0];
    assert_eq!(
        g.bytes_delivered, fg.flows[0].bytes_delivered,
        "background ns2 FTP vs foreground ns2 flow"
    );
    assert_eq!(g.segments_sent, fg.flows[0].segments_sent);
    assert_eq!(g.segments_retransmitted, fg.flows[0].segments_retransmitted);
    // The native sender differs (no SYN, byte sequence numbers, other rules).
    let native = run(&doc.replace("profile = \"ns2\"\n", ""));
    assert_ne!(native.traffic[0].segments_sent, g.segments_sent);
}

#[test]
fn http_groups_reject_the_ns2_profile() {
    let text = r#"
duration = "1s"
[network.path]
hops = [{ rate = "10Mbit/s", delay = "10ms", queue = { limit = 20 } }]
[[flows]]
tcp = "reno"
[[traffic]]
kind = "http"
tcp = { profile = "ns2", tcp = "reno", ack = "immediate" }
"#;
    let e = tcplab_sim::run_toml(text, &[]).unwrap_err().to_string();
    assert!(e.starts_with("traffic[0].tcp.profile:"), "{e}");
}

/// Drives a sender and a receiver directly, through the endpoint interface only: a wire of
/// fixed one-way delay that never loses, and the endpoints' own deadlines.
fn drive(flow: &str, until: SimTime) -> (u64, u64) {
    let text = format!(
        "duration = \"10s\"\n[network.path]\nhops = [{{ rate = \"1Gbit/s\", delay = \"10ms\" }}]\n[[flows]]\n{flow}\nmss = 1000\nrwnd = \"64KiB\"\n"
    );
    let sc = scenario::parse(&text, &[]).unwrap();
    let (mut s, mut r) = tcplab_sim::tcp::endpoints_for(&sc.flows[0], 0, 0, 1, None);
    let delay = SimTime::from_ms(10);
    // (arrival time, to the receiver?, segment), kept in time order.
    let mut wire: Vec<(SimTime, bool, Segment)> = Vec::new();
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    let mut now = SimTime::ZERO;
    loop {
        for seg in out.drain(..) {
            let to_receiver = seg.kind == SegmentKind::Data;
            wire.push((now + delay, to_receiver, seg));
        }
        let Some((next, arrival)) =
            super::common::next_instant(&mut wire, |w| w.0, [s.deadline(), r.deadline()])
        else {
            break;
        };
        now = next;
        if now > until {
            break;
        }
        if arrival {
            let (_, to_receiver, seg) = wire.remove(0);
            if to_receiver {
                r.on_segment(now, &seg, &mut out);
            } else {
                s.on_segment(now, &seg, &mut out);
            }
        } else if s.deadline() == Some(now) {
            s.on_timer(now, &mut out);
        } else {
            r.on_timer(now, &mut out);
        }
    }
    (r.bytes_delivered(), s.instruments().counters.segments_sent)
}

#[test]
fn native_and_ns2_endpoints_run_without_the_simulator() {
    for flow in [
        "tcp = \"reno\"\nack = \"delayed\"",
        "tcp = \"sack\"",
        "profile = \"ns2\"\ntcp = \"sack\"\nack = \"immediate\"",
        "profile = \"ns2\"\ntcp = \"fack\"\nack = \"immediate\"",
    ] {
        let (delivered, sent) = drive(flow, SimTime::from_secs(1));
        // Slow start over a lossless 20 ms round trip doubles the window every round: in one
        // second far more than a megabyte, with nothing retransmitted.
        assert!(delivered > 1_000_000, "{flow}: {delivered}");
        assert!(sent * 1000 >= delivered, "{flow}");
    }
}
