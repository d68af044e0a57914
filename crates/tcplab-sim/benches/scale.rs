//! Scale benchmark (issue #11): N Reno bulk flows (MSS 1460, delayed ACKs) through a 10 Gbit/s,
//! 20 ms bottleneck with a 10,000-packet drop-tail queue; 1 Gbit/s, 1 ms access links; starts
//! drawn uniformly over the first second (so the flows do not all start in the same instant).
//! Each flow count runs in its own process (so peak memory is that count's), and prints:
//! parse time, set-up time (`Simulation::new`: topology, routes, endpoints), the memory the
//! built simulation holds per flow (resident set after set-up minus before, per flow), the run's
//! wall time, simulated seconds per wall second, events per wall second, bottleneck packets per
//! wall second, peak memory (VmHWM) in all and per flow, and the simulation's own peak per flow
//! ("sim peak KiB/flow": the peak resident set from the end of the parse to the end of the run,
//! minus the resident set at the end of the parse, per flow). The flows are one `[[flows]]`
//! table with `count = N`; before `count` existed the bench wrote N tables, whose parse took
//! 0.55 s at 100,000 flows and left memory with the allocator (bench/README.md, "2026-11-27, d4da9f3").
//!
//! Run: `cargo bench -p tcplab-sim --bench scale -- 1000 10000 100000` (default those counts);
//! env TCPLAB_SCALE_DURATION (simulated seconds, default 5).

use std::process::Command;
use std::time::Instant;

fn scenario(flows: usize, duration: f64) -> String {
    let mut s = format!(
        "seed = 1\nduration = \"{duration}s\"\n[network.dumbbell]\n\
         bottleneck = {{ rate = \"10Gbit/s\", delay = \"20ms\", queue = {{ limit = 10000 }} }}\n\
         access_rate = \"1Gbit/s\"\naccess_delay = \"1ms\"\n"
    );
    s.push_str(&format!(
        "[[flows]]\ncount = {flows}\ntcp = \"reno\"\nstart = [\"0s\", \"1s\"]\n"
    ));
    s
}

fn status_kib(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

const HEADER: &str = "  flows  parse s  setup s  idle KiB/flow    run s  sim/wall     events   events/s  bottleneck pkt/s  peak MiB  peak KiB/flow  sim peak KiB/flow";

fn one(n: usize, duration: f64) {
    let text = scenario(n, duration);
    let t0 = Instant::now();
    let sc = tcplab_sim::scenario::parse(&text, &[]).expect("benchmark scenario is valid");
    drop(text);
    let parse = t0.elapsed().as_secs_f64();
    // Resets VmHWM to the current resident set (Linux: clear_refs "5"), so the peak read after
    // the run is the simulation's.
    let parse_peak = status_kib("VmHWM:");
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let rss0 = status_kib("VmRSS:");
    let t1 = Instant::now();
    let sim = tcplab_sim::sim::Simulation::new(&sc);
    let setup = t1.elapsed().as_secs_f64();
    let idle = status_kib("VmRSS:").saturating_sub(rss0) as f64 / n as f64;
    let t2 = Instant::now();
    let r = sim.run();
    let run = t2.elapsed().as_secs_f64();
    let bottleneck = r
        .links
        .iter()
        .find(|l| l.link == "bottleneck.fwd")
        .map_or(0, |l| l.packets_sent);
    let sim_hwm = status_kib("VmHWM:");
    let sim_peak = if reset {
        format!("{:.2}", sim_hwm.saturating_sub(rss0) as f64 / n as f64)
    } else {
        "-".to_string()
    };
    let peak = sim_hwm.max(parse_peak) as f64;
    println!(
        "{:>7} {:>8.3} {:>8.3} {:>14.2} {:>8.3} {:>9.3} {:>10} {:>10.0} {:>17.0} {:>9.1} {:>14.2} {:>18}",
        n,
        parse,
        setup,
        idle,
        run,
        duration / run,
        r.events,
        r.events as f64 / run,
        bottleneck as f64 / run,
        peak / 1024.0,
        peak / n as f64,
        sim_peak
    );
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let duration: f64 = std::env::var("TCPLAB_SCALE_DURATION")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5.0);
    if std::env::var("TCPLAB_SCALE_CHILD").is_ok() {
        one(args[0], duration);
        return;
    }
    let counts = if args.is_empty() {
        vec![1000, 10_000, 100_000]
    } else {
        args
    };
    println!("{duration} s simulated");
    println!("{HEADER}");
    let exe = std::env::current_exe().expect("own path");
    for n in counts {
        let status = Command::new(&exe)
            .arg(n.to_string())
            .env("TCPLAB_SCALE_CHILD", "1")
            .status()
            .expect("run a child");
        if !status.success() {
            println!("{n:>7} failed: {status}");
        }
    }
}
