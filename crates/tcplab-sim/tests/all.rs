//! The integration tests of tcplab-sim, linked into one test binary (`autotests = false` and a
//! single `[[test]]` in Cargo.toml): one link instead of one per file (bench/README.md, "Test
//! loop"). Each file keeps its tests in its own module; `common.rs` is shared.
//!
//! One file's tests: `cargo test -p tcplab-sim --profile test-release --test all -- pcap_read::`.
//! A new file `tests/x.rs` needs a `mod x;` line here; `every_file_is_a_module` below fails
//! until it has one, so no file's tests are left out silently.

mod common;

mod ack_counting;
mod bbr;
mod bql;
mod cc;
mod cwr;
mod device_queue;
mod ecn;
mod endpoints;
mod external;
mod family;
mod frto;
mod fuzz_corpus;
mod known_answers;
mod l4s;
mod linux;
mod marking;
mod networks;
mod ns2_ecn;
mod ns2_reference;
mod pcap;
mod pcap_accecn;
mod pcap_ecn;
mod pcap_read;
mod pcap_roundtrip;
mod pi_queues;
mod properties;
mod prr_rules;
mod queues;
mod rack;
mod recovery_exit;
mod recovery_guard;
mod reliability;
mod rto_restart;
mod traces;
mod unit_vectors;

/// Every `tests/*.rs` file is one of the modules above: with `autotests = false` a file without
/// its `mod` line would compile into nothing and its tests would never run.
#[test]
fn every_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = std::fs::read_to_string(dir.join("all.rs")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.extension().is_some_and(|e| e == "rs")
            && stem != "all"
            && !this.contains(&format!("\nmod {stem};\n"))
        {
            missing.push(stem);
        }
    }
    assert!(
        missing.is_empty(),
        "tests/*.rs without a `mod` line in tests/all.rs: {missing:?}"
    );
}
