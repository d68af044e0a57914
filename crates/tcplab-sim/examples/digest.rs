//! Runs scenarios and writes each run's complete results (every table and trace, as JSON, with
//! the event count left out) to a directory, one file per case, so that two builds of the
//! simulator can be compared result for result: a shortcut in the core must change the event
//! count and nothing else. Used by `bench/same_results.sh`.
//!
//! `cargo run --release -p tcplab-sim --example digest -- OUT_DIR CASE...`, where a CASE is a
//! scenario file optionally followed by `--set` style overrides separated by `;`:
//! `scenarios/dumbbell.toml;network.dumbbell.bottleneck.queue.discipline=red;seed=3`.

use std::path::Path;

fn main() {
    let mut args = std::env::args().skip(1);
    let out = args.next().expect("usage: digest OUT_DIR CASE...");
    std::fs::create_dir_all(&out).expect("create OUT_DIR");
    for (i, case) in args.enumerate() {
        let mut parts = case.split(';');
        let file = parts.next().unwrap_or_default();
        let sets: Vec<(String, String)> = parts
            .map(|kv| {
                let (k, v) = kv.split_once('=').expect("override is key=value");
                (k.to_string(), v.to_string())
            })
            .collect();
        let text = std::fs::read_to_string(file).expect("read scenario");
        let sc = match tcplab_sim::load(&text, &sets) {
            Ok(sc) => sc,
            Err(e) => {
                println!("{i:3} {case}: invalid: {e}");
                continue;
            }
        };
        let mut r = tcplab_sim::run(&sc);
        let events = r.events;
        r.events = 0;
        let json = serde_json::to_string(&r).expect("results serialize");
        let name = Path::new(file).file_stem().unwrap().to_string_lossy();
        std::fs::write(format!("{out}/{i:03}-{name}.json"), &json).expect("write");
        println!("{i:3} {case}: {events} events, {} bytes", json.len());
    }
}
