//! Byte Queue Limits on a link's device queue (`bql`, docs/queues.md "Byte Queue Limits")
//! through whole scenarios: a limit that never binds is the plain ring, BQL repeats exactly,
//! conserves packets and moves the discipline's marks, and bad settings are named. The
//! limit's evolution and the times at which the discipline is asked, against hand-computed
//! answers, are in `net/link/bql.rs` and `net/link.rs` (`bql_*`).

use crate::common::{conserved, link};
use tcplab_sim::run_toml;

fn sets(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// Two ECN flows (DCTCP) through a 10 Mbit/s CoDel bottleneck with a CE threshold, a ring of 3.
const CODEL_RING: &str = r#"
seed = 1
duration = "10s"
warmup = "2s"
[network.dumbbell]
bottleneck = { rate = "10Mbit/s", delay = "10ms", queue = { discipline = "codel", limit = 1000, codel = { ecn = true, ce_threshold = "1ms" } }, device_queue = 3 }
access_rate = "100Mbit/s"
access_delay = "1ms"
[[flows]]
cc = "dctcp"
[[flows]]
cc = "dctcp"
start = "0.1s"
"#;

const NECK: &str = "network.dumbbell.bottleneck";

fn run(extra: &[(&str, &str)]) -> tcplab_sim::RunResult {
    let v: Vec<(String, &str)> = extra.iter().map(|(k, v)| (format!("{NECK}.{k}"), *v)).collect();
    let v: Vec<(&str, &str)> = v.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    run_toml(CODEL_RING, &sets(&v)).unwrap_or_else(|e| panic!("{e}"))
}

fn json(r: &tcplab_sim::RunResult) -> String {
    serde_json::to_string(r).unwrap()
}

/// With min_limit = max_limit far above the ring's bytes, the limit never stops the queue
/// after the first completion: the same run, byte for byte, as the ring alone (the first
/// packet of each busy period is stopped only until its own completion, at the same instant).
#[test]
fn a_limit_that_never_binds_is_the_plain_ring() {
    let plain = run(&[]);
    let wide = run(&[("bql.min_limit", "\"1MB\""), ("bql.max_limit", "\"1MB\"")]);
    assert!(plain.flows[0].segments_sent > 0);
    assert_eq!(json(&plain), json(&wide));
}

#[test]
fn bql_repeats_conserves_packets_and_moves_the_marks() {
    let bql = [("bql.hold_time", "\"1ms\"")];
    let a = run(&bql);
    assert_eq!(json(&a), json(&run(&bql)));
    conserved(&a);
    let neck = |r: &tcplab_sim::RunResult| link(r, "bottleneck.fwd");
    let (with, plain) = (neck(&a), neck(&run(&[])));
    // The discipline is asked later (the ring holds fewer bytes): its marks move; the link
    // stays as busy.
    assert_ne!(with.marks_threshold, plain.marks_threshold);
    assert!((with.utilization - plain.utilization).abs() < 0.02);
}

#[test]
fn bad_bql_settings_are_named() {
    let err = |toml: &str, set: &[(&str, &str)]| {
        let v: Vec<(String, &str)> = set.iter().map(|(k, v)| (format!("{NECK}.{k}"), *v)).collect();
        let v: Vec<(&str, &str)> = v.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        run_toml(toml, &sets(&v)).expect_err("rejected").to_string()
    };
    let no_ring = CODEL_RING.replace(", device_queue = 3", "");
    assert_eq!(
        err(&no_ring, &[("bql.hold_time", "\"1ms\"")]),
        "network.dumbbell.bottleneck.bql: limits a device queue, and the link has none \
         (expected device_queue >= 1 with bql)"
    );
    assert_eq!(
        err(CODEL_RING, &[("device_queue", "0"), ("bql.hold_time", "\"1ms\"")]),
        "network.dumbbell.bottleneck.bql: limits a device queue, and the link has none \
         (expected device_queue >= 1 with bql)"
    );
    assert_eq!(
        err(CODEL_RING, &[("bql.hold_time", "0")]),
        "network.dumbbell.bottleneck.bql.hold_time: 0 (expected a time > 0)"
    );
    assert_eq!(
        err(CODEL_RING, &[("bql.max_limit", "\"2GB\"")]),
        "network.dumbbell.bottleneck.bql.max_limit: 2000000000 bytes (expected 0 to \
         1879048192 bytes)"
    );
    assert_eq!(
        err(
            CODEL_RING,
            &[("bql.max_limit", "3000"), ("bql.min_limit", "4500")]
        ),
        "network.dumbbell.bottleneck.bql.min_limit: 4500 bytes (expected 0 to max_limit, \
         3000 bytes)"
    );
    for (k, v) in [
        ("bql.hold_time", "\"-1ms\""),
        ("bql.min_limit", "-5"),
        ("bql.limit", "3"),
    ] {
        let e = err(CODEL_RING, &[(k, v)]);
        assert!(e.contains("bql"), "{k} = {v}: {e}");
    }
    // A graph link takes it too, and names its own path.
    let text = "duration = \"1s\"\n[network.graph]\nlinks = [{ from = \"a\", to = \"b\", rate = \"1Mbit/s\", delay = \"1ms\", bql = {} }]\nflows = [{ from = \"a\", to = \"b\" }]\n[[flows]]\n";
    let e = run_toml(text, &[]).expect_err("rejected").to_string();
    assert!(e.contains("links[0].bql: limits a device queue"), "{e}");
}
