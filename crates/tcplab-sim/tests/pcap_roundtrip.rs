//! The round trip of issue #13: simulate with a capture at each sender's node, analyze the
//! capture, and require the analyzer's counts to equal the simulator's own instruments for
//! every variant on the queueless path and on the dumbbell.

use crate::common;

use tcplab_sim::capture::analyze::{self, DirectionResult, Options};
use tcplab_sim::stats::FlowResult;

const VARIANTS: [&str; 6] = ["tahoe", "reno", "newreno", "sack", "fack", "sackrh"];

/// The analyzer's view of flow `i`'s capture over the run's window [warmup, duration].
fn analyzed(bytes: &[u8], warmup_ns: u64, duration_ns: u64) -> DirectionResult {
    let opt = Options {
        from_ns: warmup_ns,
        to_ns: Some(duration_ns),
        ..Options::default()
    };
    let a = analyze::analyze(bytes, opt).unwrap();
    assert_eq!(a.first_ns, 0, "the flow starts at 0, so does its capture");
    let data: Vec<_> = a.directions.into_iter().filter(|d| d.dir == 0).collect();
    assert_eq!(data.len(), 1);
    data.into_iter().next().unwrap()
}

/// The counts that must be equal, by name.
fn counts(f: &FlowResult) -> Vec<(&'static str, u64)> {
    vec![
        ("segments_sent", f.segments_sent),
        ("segments_retransmitted", f.segments_retransmitted),
        ("fast_retransmits", f.fast_retransmits),
        ("timeouts", f.timeouts),
        ("bytes_acked", f.bytes_acked),
        ("ca_events", f.ca_events),
        ("non_ca_events", f.non_ca_events),
        ("other_losses", f.other_losses),
        ("loss_events", f.loss_events),
    ]
}

fn counts_of(d: &DirectionResult) -> Vec<(&'static str, u64)> {
    vec![
        ("segments_sent", d.segments_sent),
        ("segments_retransmitted", d.segments_retransmitted),
        ("fast_retransmits", d.fast_retransmits),
        ("timeouts", d.timeouts),
        ("bytes_acked", d.bytes_acked),
        ("ca_events", d.ca_events),
        ("non_ca_events", d.non_ca_events),
        ("other_losses", d.other_losses),
        ("loss_events", d.loss_events),
    ]
}

fn compare(label: &str, f: &FlowResult, d: &DirectionResult) -> Vec<String> {
    let mut bad = Vec::new();
    for ((name, sim), (_, got)) in counts(f).into_iter().zip(counts_of(d)) {
        if sim != got {
            bad.push(format!("{label}: {name} simulator {sim}, analyzer {got}"));
        }
    }
    // p and the loss event rate are ratios of those counts: equal to the last bit.
    if f.p.to_bits() != d.p.to_bits() && !(f.p.is_nan() && d.p.is_nan()) {
        bad.push(format!("{label}: p simulator {}, analyzer {}", f.p, d.p));
    }
    if f.loss_event_rate != d.loss_event_rate {
        bad.push(format!(
            "{label}: loss_event_rate simulator {}, analyzer {}",
            f.loss_event_rate, d.loss_event_rate
        ));
    }
    // With timestamps the sender samples RTT on every ACK of new data from the echoed TSval;
    // the capture's TSval ticks in microseconds, so each sample may differ by < 1 us.
    if d.ts_rtt_samples > 0 && (f.mean_rtt_s - d.ts_mean_rtt_s).abs() >= 1e-6 {
        bad.push(format!(
            "{label}: mean RTT simulator {}, analyzer {}",
            f.mean_rtt_s, d.ts_mean_rtt_s
        ));
    }
    println!(
        "{label:<28} sent {:>7} rtx {:>5} (fast {:>4} rto {:>3}) CA {:>4} nonCA {:>3} other {:>4} events {:>4} p {:.5} goodput sim {:>10.0} analyzer {:>10.0} (bytes acked x 8 / window)",
        d.segments_sent, d.segments_retransmitted, d.fast_retransmits, d.timeouts, d.ca_events, d.non_ca_events,
        d.other_losses, d.loss_events, d.p, f.goodput_bps, d.goodput_bps
    );
    bad
}

#[test]
fn queueless_path_every_variant_counts_equal_the_simulators() {
    let mut bad = Vec::new();
    for v in VARIANTS {
        for ts in [false, true] {
            let text = format!(
                r#"
duration = "60s"
warmup = "5s"
seed = 7
[trace]
pcap = {{ node = "n0", file = "unused.pcap", max_packets = 400000 }}
[network.path]
hops = [{{ rate = "100Mbit/s", delay = "30ms", queue = {{ limit = 10000 }}, loss = {{ model = "bernoulli", p = "1%" }} }}]
[[flows]]
tcp = "{v}"
ack = "delayed"
timestamps = {ts}
mss = 1460
"#
            );
            let r = common::run(&text);
            assert!(!r.traces.truncated);
            let d = analyzed(&r.traces.pcap[0].bytes, 5_000_000_000, 60_000_000_000);
            bad.extend(compare(&format!("queueless {v} ts={ts}"), &r.flows[0], &d));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn dumbbell_every_variant_counts_equal_the_simulators() {
    let mut bad = Vec::new();
    for v in VARIANTS {
        let pcaps: Vec<String> = (0..4)
            .map(|i| format!("{{ node = \"s{i}\", file = \"s{i}.pcap\", max_packets = 400000 }}"))
            .collect();
        let text = format!(
            r#"
duration = "40s"
warmup = "10s"
seed = 1
[trace]
pcap = [{}]
[network.dumbbell]
bottleneck = {{ rate = "10Mbit/s", delay = "10ms", queue = {{ limit = 30 }} }}
access_rate = "100Mbit/s"
access_delays = ["1ms", "5ms", "15ms", "30ms"]
[[flows]]
tcp = "{v}"
[[flows]]
tcp = "{v}"
[[flows]]
tcp = "{v}"
[[flows]]
tcp = "{v}"
"#,
            pcaps.join(", ")
        );
        let r = common::run(&text);
        assert!(!r.traces.truncated);
        for i in 0..4 {
            let d = analyzed(&r.traces.pcap[i].bytes, 10_000_000_000, 40_000_000_000);
            bad.extend(compare(&format!("dumbbell {v} flow {i}"), &r.flows[i], &d));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
