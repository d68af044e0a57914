//! A link's device queue (`device_queue = N`, docs/queues.md "Device queue") through whole
//! scenarios: none and 0 give the same results, a ring of one conserves packets, repeats
//! exactly and keeps its statistics to the discipline, and bad values are named. Its timing
//! against hand-computed answers is in `net/link.rs` (`device_queue_*`).

use crate::common::{conserved, link};
use tcplab_sim::run_toml;

fn sets(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// Two bulk flows and a 200-byte CBR stream through a 10 Mbit/s CoDel bottleneck.
const CODEL_CBR: &str = r#"
seed = 1
duration = "20s"
warmup = "5s"
[network.dumbbell]
bottleneck = { rate = "10Mbit/s", delay = "20ms", queue = { discipline = "codel", limit = 1000 } }
access_rate = "100Mbit/s"
access_delay = "1ms"
[[flows]]
profile = "linux"
[[flows]]
profile = "linux"
start = "0.1s"
[[traffic]]
kind = "cbr"
rate = "1Mbit/s"
packet = "200B"
"#;

#[test]
fn no_device_queue_and_zero_are_the_same_link() {
    let a = run_toml(CODEL_CBR, &[]).unwrap_or_else(|e| panic!("{e}"));
    let b = run_toml(
        CODEL_CBR,
        &sets(&[("network.dumbbell.bottleneck.device_queue", "0")]),
    )
    .unwrap();
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
}

#[test]
fn a_device_queue_conserves_packets_repeats_and_moves_codels_drops() {
    let one = sets(&[("network.dumbbell.bottleneck.device_queue", "1")]);
    let none = run_toml(CODEL_CBR, &[]).unwrap();
    let a = run_toml(CODEL_CBR, &one).unwrap_or_else(|e| panic!("{e}"));
    let b = run_toml(CODEL_CBR, &one).unwrap();
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    conserved(&a);
    let neck = |r: &tcplab_sim::RunResult| link(r, "bottleneck.fwd");
    let (with, without) = (neck(&a), neck(&none));
    // CoDel still drops only at dequeue (the ring never overflows: it is fed only with room).
    assert!(with.drops_sojourn > 0 && with.drops_overflow == 0);
    assert_eq!(with.drops_queue, with.drops_sojourn);
    // The discipline is asked one packet early: its drops fall elsewhere; the link stays as
    // busy.
    assert_ne!(with.drops_sojourn, without.drops_sojourn);
    assert!((with.utilization - without.utilization).abs() < 0.02);
}

#[test]
fn bad_device_queues_are_named() {
    let err = |v: &str| {
        run_toml(
            CODEL_CBR,
            &sets(&[("network.dumbbell.bottleneck.device_queue", v)]),
        )
        .expect_err("rejected")
        .to_string()
    };
    assert_eq!(
        err("70000"),
        "network.dumbbell.bottleneck.device_queue: 70000 packets (expected 0, for none, to 65536)"
    );
    let e = err("-1");
    assert!(e.contains("device_queue"), "{e}");
    let e = err("\"one\"");
    assert!(e.contains("device_queue"), "{e}");
    // A graph link takes it too, and names its own path.
    let text = "duration = \"1s\"\n[network.graph]\nlinks = [{ from = \"a\", to = \"b\", rate = \"1Mbit/s\", delay = \"1ms\", device_queue = 100000 }]\nflows = [{ from = \"a\", to = \"b\" }]\n[[flows]]\n";
    let e = run_toml(text, &[]).expect_err("rejected").to_string();
    assert!(
        e.contains("device_queue: 100000 packets (expected 0, for none, to 65536)"),
        "{e}"
    );
}
