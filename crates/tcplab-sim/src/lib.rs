//! tcplab-sim: a packet-level simulator of TCP congestion control as Jacobson & Karels (1988)
//! built it and its successors refined it. Pure Rust; the Python bindings live in `tcplab-py`.
//!
//! ```
//! let text = r#"
//! duration = "5s"
//! [network.path]
//! hops = [{ rate = "10Mbit/s", delay = "10ms", queue = { limit = 20 } }]
//! [[flows]]
//! tcp = "reno"
//! "#;
//! let result = tcplab_sim::run_toml(text, &[]).unwrap();
//! assert!(result.flows[0].goodput_bps > 1e6);
//! ```

pub mod engine;
pub mod error;
pub mod net;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod tcp;
pub mod time;
pub mod traffic;

pub use error::Error;
pub use scenario::Scenario;
pub use stats::RunResult;

/// Runs a scenario that `load` (or `load_value`) accepted.
pub fn run(scenario: &Scenario) -> RunResult {
    sim::Simulation::new(scenario).run()
}

/// Parses TOML, applies `--set` style overrides and validates: every field (the schema,
/// `scenario::parse`), then the placement of flows and traffic in the network (node names,
/// bottleneck indices, round trips), by building the topology.
pub fn load(text: &str, overrides: &[(String, String)]) -> Result<Scenario, Error> {
    let sc = scenario::parse(text, overrides)?;
    net::topology::Topology::build(&sc)?;
    Ok(sc)
}

/// `load` for a TOML value (what Python dicts become), overrides already applied.
pub fn load_value(doc: toml::Value) -> Result<Scenario, Error> {
    let sc = scenario::from_value(doc)?;
    net::topology::Topology::build(&sc)?;
    Ok(sc)
}

/// Parses TOML, applies `--set` style overrides, validates and runs.
pub fn run_toml(text: &str, overrides: &[(String, String)]) -> Result<RunResult, Error> {
    let sc = load(text, overrides)?;
    Ok(run(&sc))
}
