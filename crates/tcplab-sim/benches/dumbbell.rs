//! Foundation benchmark: N Reno flows through a 100 Mbit/s bottleneck with a 100-packet
//! drop-tail queue and 20 ms one-way delay, 1 Gbit/s access links (1 ms), 30 s simulated.
//! Prints wall time, events/s, bottleneck packets per wall-second, all link transmissions per
//! wall-second and peak memory (VmHWM). Run: `cargo bench -p tcplab-sim --bench dumbbell`
//! (optional args: flow counts, e.g. `-- 16 128`; env TCPLAB_BENCH_REPS, default 3).

use std::time::Instant;

fn scenario(flows: usize) -> String {
    let mut s = String::from(
        "seed = 1\nduration = \"30s\"\n[network.dumbbell]\n\
         bottleneck = { rate = \"100Mbit/s\", delay = \"20ms\", queue = { limit = 100 } }\n\
         access_rate = \"1Gbit/s\"\naccess_delay = \"1ms\"\n",
    );
    for _ in 0..flows {
        s.push_str("[[flows]]\ntcp = \"reno\"\n");
    }
    s
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let counts = if args.is_empty() { vec![1, 16, 128] } else { args };
    let reps: usize = std::env::var("TCPLAB_BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    println!(
        "{:>6} {:>9} {:>12} {:>14} {:>16} {:>16} {:>10} {:>15}",
        "flows",
        "wall s",
        "events",
        "events/s",
        "bottleneck pkt/s",
        "all-link pkt/s",
        "peak MiB",
        "bottleneck pkts"
    );
    for n in counts {
        let sc = tcplab_sim::scenario::parse(&scenario(n), &[]).expect("benchmark scenario is valid");
        let mut walls = Vec::new();
        let mut last = None;
        for _ in 0..reps {
            let t0 = Instant::now();
            let r = tcplab_sim::run(&sc);
            walls.push(t0.elapsed().as_secs_f64());
            last = Some(r);
        }
        walls.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let wall = walls[walls.len() / 2]; // median
        let r = last.unwrap();
        let bottleneck = r
            .links
            .iter()
            .find(|l| l.link == "bottleneck.fwd")
            .unwrap()
            .packets_sent;
        let all: u64 = r.links.iter().map(|l| l.packets_sent).sum();
        println!(
            "{:>6} {:>9.3} {:>12} {:>14.0} {:>16.0} {:>16.0} {:>10.1} {:>15}",
            n,
            wall,
            r.events,
            r.events as f64 / wall,
            bottleneck as f64 / wall,
            all as f64 / wall,
            peak_rss_kib().unwrap_or(0) as f64 / 1024.0,
            bottleneck
        );
    }
}
