//! Helpers shared by the integration tests: a one-hop scripted path and trace readers.
#![allow(dead_code)]

use tcplab_sim::stats::RunResult;

/// One hop, 1 Gbit/s each way (serialization is negligible), 50 ms one-way delay, a queue that
/// never fills, MSS 1000 + 40 header bytes, and the given flow options and loss script.
pub fn one_hop(flow: &str, drops: &[u64], duration: &str) -> String {
    let loss = if drops.is_empty() {
        String::new()
    } else {
        format!(", loss = {{ model = \"script\", packets = {drops:?} }}")
    };
    format!(
        r#"
duration = "{duration}"
trace = {{ cwnd = true, links = ["hop0.fwd", "hop0.rev"] }}
[network.path]
hops = [{{ rate = "1Gbit/s", delay = "50ms", queue = {{ limit = 10000 }}{loss} }}]
[[flows]]
mss = 1000
{flow}
"#
    )
}

pub fn run(text: &str) -> RunResult {
    tcplab_sim::run_toml(text, &[]).unwrap_or_else(|e| panic!("scenario failed: {e}\n{text}"))
}

/// Data segments offered to the forward link (sent by the sender): (time s, seq, retransmit).
pub fn data_sent(r: &RunResult) -> Vec<(f64, u64, bool)> {
    r.traces
        .packets
        .iter()
        .filter(|e| e.1 == 0 && (e.2 == "+" || e.2 == "l") && e.4 == "data")
        .map(|e| (e.0, e.5, e.8))
        .collect()
}

/// Retransmitted segments: (time s, seq).
pub fn retransmissions(r: &RunResult) -> Vec<(f64, u64)> {
    data_sent(r)
        .into_iter()
        .filter(|s| s.2)
        .map(|s| (s.0, s.1))
        .collect()
}

/// (time s, cwnd, ssthresh) of flow 0 at every change; an ssthresh not yet set (the initial
/// "arbitrarily high" value) reads as u64::MAX.
pub fn cwnd(r: &RunResult) -> Vec<(f64, u64, u64)> {
    r.traces
        .cwnd
        .iter()
        .filter(|c| c.1 == 0)
        .map(|c| (c.0, c.2, c.3.unwrap_or(u64::MAX)))
        .collect()
}

/// Highest sequence (one past the end) sent before time t.
pub fn snd_max_before(r: &RunResult, t: f64, mss: u64) -> u64 {
    data_sent(r)
        .iter()
        .filter(|s| s.0 < t)
        .map(|s| s.1 + mss)
        .max()
        .unwrap_or(0)
}
