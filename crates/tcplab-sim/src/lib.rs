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

#[cfg(feature = "arrow")]
pub mod arrow;
pub mod capture;
#[cfg(all(feature = "emulate", target_os = "linux"))]
pub mod emulate;
pub mod engine;
pub mod error;
pub mod net;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod tcp;
pub mod time;
pub mod trace;
pub mod traffic;

pub use error::Error;
pub use scenario::Scenario;
pub use stats::RunResult;

/// Runs a scenario that `load` (or `load_value`) accepted.
pub fn run(scenario: &Scenario) -> RunResult {
    sim::Simulation::new(scenario).run()
}

/// `run`, asking `interrupted` every 65,536 events whether to give up (Ctrl-C from Python, a
/// time limit): None if it did.
pub fn run_with(scenario: &Scenario, interrupted: impl FnMut() -> bool) -> Option<RunResult> {
    sim::Simulation::new(scenario).run_with(interrupted)
}

/// Parses TOML, applies `--set` style overrides and validates: every field (the schema,
/// `scenario::parse`), then the placement of flows and traffic in the network (node names,
/// bottleneck indices, round trips), by building the topology.
pub fn load(text: &str, overrides: &[(String, String)]) -> Result<Scenario, Error> {
    scenario::parse(text, overrides)
        .and_then(placed)
        .map_err(Error::suggested)
}

/// `load` for a TOML value (what Python dicts become), overrides already applied.
pub fn load_value(doc: toml::Value) -> Result<Scenario, Error> {
    scenario::from_value(doc)
        .and_then(placed)
        .map_err(Error::suggested)
}

/// Checks what refers to the network: the placement of flows and traffic (by building the
/// topology) and the link directions `trace.links` names.
fn placed(sc: Scenario) -> Result<Scenario, Error> {
    let topo = net::topology::Topology::build(&sc)?;
    for (i, name) in sc.trace.links.iter().enumerate() {
        if topo.link_names.position(name).is_none() {
            let names: Vec<&str> = topo.link_names.iter().collect();
            let shown = if names.len() > 8 {
                format!("{}, ... ({} in all)", names[..8].join(", "), names.len())
            } else {
                names.join(", ")
            };
            return Err(scenario::invalid(
                format!("trace.links[{i}]"),
                format!(
                    "{name:?} is not a link direction of this network (expected one of {shown}){}",
                    error::suggest(name, names.iter().copied())
                ),
            ));
        }
    }
    for (i, c) in sc.trace.pcap.iter().enumerate() {
        for (j, name) in c.link.iter().enumerate() {
            if topo.link_names.position(name).is_none() {
                let names: Vec<&str> = topo.link_names.iter().collect();
                return Err(scenario::invalid(
                    format!("trace.pcap[{i}].link[{j}]"),
                    format!(
                        "{name:?} is not a link direction of this network (expected one of {}){}",
                        shown(&names),
                        error::suggest(name, names.iter().copied())
                    ),
                ));
            }
        }
        if let Some(node) = &c.node {
            if !topo.node_names.iter().any(|n| n == node) {
                let names: Vec<&str> = topo.node_names.iter().map(String::as_str).collect();
                return Err(scenario::invalid(
                    format!("trace.pcap[{i}].node"),
                    format!(
                        "{node:?} is not a node of this network (expected one of {}){}",
                        shown(&names),
                        error::suggest(node, names.iter().copied())
                    ),
                ));
            }
        }
        let dir = std::path::Path::new(&c.file)
            .parent()
            .filter(|d| !d.as_os_str().is_empty());
        if let Some(dir) = dir {
            if !dir.is_dir() {
                return Err(scenario::invalid(
                    format!("trace.pcap[{i}].file"),
                    format!(
                        "{:?}: the directory {dir:?} does not exist (expected an existing directory)",
                        c.file
                    ),
                ));
            }
        }
    }
    Ok(sc)
}

/// A list of names, the first eight and a count.
fn shown(names: &[&str]) -> String {
    if names.len() > 8 {
        format!("{}, ... ({} in all)", names[..8].join(", "), names.len())
    } else {
        names.join(", ")
    }
}

/// Writes the run's `trace.pcap` captures to their files (each through a temporary file
/// renamed into place). Returns the files written.
pub fn write_captures(result: &RunResult) -> Result<Vec<String>, Error> {
    for (i, c) in result.traces.pcap.iter().enumerate() {
        c.write(&format!("trace.pcap[{i}].file"))?;
    }
    Ok(result.traces.pcap.iter().map(|c| c.file.clone()).collect())
}

/// Parses TOML, applies `--set` style overrides, validates and runs.
pub fn run_toml(text: &str, overrides: &[(String, String)]) -> Result<RunResult, Error> {
    let sc = load(text, overrides)?;
    Ok(run(&sc))
}
