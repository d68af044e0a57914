//! The capture analyzer's speed: a simulated capture (one flow, 100 Mbit/s, 1% loss, captured
//! at the sender's node, snap length 96) analyzed from memory, one core. Prints packets/s.
//!
//!     cargo bench -p tcplab-sim --bench analyze

use std::time::Instant;
use tcplab_sim::capture::analyze::{analyze, Options};

fn main() {
    let text = r#"
duration = "100s"
seed = 1
[trace]
pcap = { node = "n0", file = "unused.pcap", max_packets = 3000000, snaplen = 96 }
[network.path]
hops = [{ rate = "1Gbit/s", delay = "5ms", queue = { limit = 10000 }, loss = { model = "bernoulli", p = "0.1%" } }]
[[flows]]
tcp = "sack"
timestamps = true
"#;
    let r = tcplab_sim::run_toml(text, &[]).expect("scenario");
    let cap = &r.traces.pcap[0];
    println!(
        "capture: {} packets, {} bytes{}",
        cap.packets,
        cap.bytes.len(),
        if cap.truncated { " (truncated)" } else { "" }
    );
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        let a = analyze(&cap.bytes[..], Options::default()).expect("analysis");
        let s = t.elapsed().as_secs_f64();
        assert_eq!(a.tcp_packets, cap.packets);
        best = best.min(s);
    }
    println!(
        "analyze: best of 5 {:.3} s, {:.2} M packets/s ({:.0} MB/s)",
        best,
        cap.packets as f64 / best / 1e6,
        cap.bytes.len() as f64 / best / 1e6
    );
}
