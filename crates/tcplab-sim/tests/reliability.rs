//! Hostile and mistaken inputs: each is refused with one error naming its field, before anything
//! is allocated or run (docs/limits.md), and the fuzzers' corpus and crashes read cleanly.

use crate::common::one_hop;

/// The error of `load`, or a panic naming what was accepted.
fn refused(flow: &str, sets: &[(&str, &str)]) -> String {
    let text = one_hop(flow, &[], "10s");
    let sets: Vec<(String, String)> = sets.iter().map(|(p, v)| (p.to_string(), v.to_string())).collect();
    match tcplab_sim::load(&text, &sets) {
        Ok(_) => panic!("accepted: {flow} {sets:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn header_bytes_is_a_header_and_the_packet_fits_ip() {
    // 2^32 - 1 used to wrap mss + header in u32: the run went on with 999-byte packets.
    let e = refused("header_bytes = 4294967295", &[]);
    assert!(
        e.starts_with("flows[0].header_bytes: 4294967295 (expected 20 to 64535 bytes"),
        "{e}"
    );
    let e = refused("header_bytes = 0", &[]);
    assert!(e.starts_with("flows[0].header_bytes: 0 (expected 20 to"), "{e}");
    // The largest packet IP carries is still accepted.
    let ok = one_hop("header_bytes = 64535", &[], "1s");
    tcplab_sim::load(&ok, &[]).unwrap();
}

/// A timer that can be armed for 0 (or 1 ns) fires again at the instant it fires: the run
/// never advances its clock. Every estimator's shortest timeout is bounded.
#[test]
fn the_retransmission_timer_cannot_fire_without_the_clock_advancing() {
    // Jacobson's coarse clock with a 1 ns tick and no lower bound.
    let e = refused(
        "rto_estimator = \"jacobson88\"\nclock_tick = \"1ns\"\nmin_rto = 0",
        &[],
    );
    assert_eq!(
        e,
        "flows[0].min_rto: 0s with clock_tick 0.000000001s lets the retransmission timer fire every \
         0.000000001s (expected min_rto >= 0.000001s, or clock_tick >= 0.000001s)"
    );
    // RFC 6298 with G = 1 ns and a ceiling of 0: every timeout was 0.
    let e = refused(
        "min_rto = 0\nrto_granularity = \"1ns\"",
        &[("flows.0.max_rto", "0")],
    );
    assert!(
        e.starts_with("flows[0].max_rto: 0s (expected at least 0.000001s"),
        "{e}"
    );
    let e = refused("min_rto = 0\nrto_granularity = \"1ns\"\ninitial_rto = 0", &[]);
    assert!(
        e.starts_with("flows[0].initial_rto: 0s (expected at least"),
        "{e}"
    );
    let e = refused("min_rto = 0\nrto_granularity = \"1ns\"", &[]);
    assert!(
        e.starts_with("flows[0].min_rto: 0s with rto_granularity 0.000000001s"),
        "{e}"
    );
    // RFC 793's fine clock, and ns-2's agent (at least 2 ticks).
    let e = refused("tcp = \"bsd43\"\nclock_tick = 0\nmin_rto = 0", &[]);
    assert!(e.starts_with("flows[0].min_rto: 0s with clock_tick 0s"), "{e}");
    let e = refused(
        "tcp = \"reno\"\nprofile = \"ns2\"\nack = \"immediate\"\nclock_tick = \"1ns\"\nmin_rto = 0",
        &[],
    );
    assert!(e.contains("fire every 0.000000002s"), "{e}");
    // A fine estimator with a small floor still runs.
    let ok = one_hop("min_rto = 0\nrto_granularity = \"1us\"", &[], "1s");
    tcplab_sim::run_toml(&ok, &[]).unwrap();
}

#[test]
fn networks_are_bounded_before_they_are_built() {
    let lot = |n: &str| {
        format!(
            "duration = \"1s\"\n[network.parking_lot]\nn = {n}\ncongested = {{ rate = \"10Mbit/s\", delay = \"10ms\" }}\n[[flows]]\n"
        )
    };
    let t = std::time::Instant::now();
    let e = tcplab_sim::load(&lot("2000000000"), &[]).unwrap_err().to_string();
    assert!(
        e.starts_with("network.parking_lot.n: a network of up to 4000000002 nodes and 4000000002 links"),
        "{e}"
    );
    assert!(
        e.ends_with("(expected at most 2100000 nodes and 2100000 links)"),
        "{e}"
    );
    assert!(t.elapsed().as_secs() < 2, "{:?}", t.elapsed());
    tcplab_sim::load(&lot("1000"), &[]).unwrap();
    // The largest run the connections' budget allows still fits: 1,000,000 flows on a dumbbell.
    let dumbbell = "duration = \"1s\"\n[network.dumbbell]\nbottleneck = { rate = \"10Mbit/s\", delay = \"10ms\" }\n[[flows]]\ncount = 1000000\n";
    tcplab_sim::scenario::parse(dumbbell, &[]).unwrap();
}
