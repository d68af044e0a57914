//! The integration tests of tcplab-sim, linked into one test binary (`autotests = false` and a
//! single `[[test]]` in Cargo.toml): one link instead of one per file (bench/README.md, "Test
//! loop"). Each file keeps its tests in its own module; `common.rs` is shared.
//!
//! One file's tests: `cargo test -p tcplab-sim --profile test-release --test all -- pcap_read::`.
//! A new file `tests/x.rs` needs a `mod x;` line here.

mod common;

mod bbr;
mod cc;
mod endpoints;
mod external;
mod family;
mod frto;
mod known_answers;
mod linux;
mod networks;
mod ns2_reference;
mod pcap;
mod pcap_read;
mod pcap_roundtrip;
mod properties;
mod queues;
mod rack;
mod rto_restart;
mod traces;
mod unit_vectors;
