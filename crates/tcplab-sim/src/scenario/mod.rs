//! The scenario schema: the single source of truth for a run's inputs. TOML in, unknown keys
//! rejected, unit strings accepted for every quantity, `--set dotted.path=value` overrides, and
//! validation that names the field, the value and what was expected.

mod flow;
mod link;
mod network;
mod pcap;
mod traffic;

pub use flow::*;
pub use link::*;
pub use network::*;
pub use pcap::{CapturePoint, PcapSpec};
pub use traffic::*;

use crate::error::Error;
use crate::time::{Duration, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A label for the run.
    #[serde(default)]
    pub name: Option<String>,
    /// Seed of every random stream in the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time to run.
    pub duration: Duration,
    /// Instruments report from this time on (the measurement window is [warmup, duration]).
    #[serde(default = "zero_duration")]
    pub warmup: Duration,
    pub network: Network,
    pub flows: Vec<FlowSpec>,
    /// Background traffic, reported in aggregate per group.
    #[serde(default)]
    pub traffic: Vec<TrafficSpec>,
    #[serde(default)]
    pub trace: TraceSpec,
}

impl Scenario {
    /// The flows one by one: each [[flows]] table `count` times, in order (flow `i` of the
    /// run is the `i`-th item).
    pub fn flow_specs(&self) -> impl Iterator<Item = &FlowSpec> + Clone {
        self.flows
            .iter()
            .flat_map(|f| std::iter::repeat_n(f, f.count as usize))
    }

    /// How many flows the run has (the tables' counts summed).
    pub fn flow_count(&self) -> usize {
        self.flows.iter().map(|f| f.count as usize).sum()
    }
}

fn default_seed() -> u64 {
    1
}
pub(crate) fn zero_duration() -> Duration {
    Duration(SimTime::ZERO)
}
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Record (time, cwnd, ssthresh) of every flow at every change.
    #[serde(default)]
    pub cwnd: bool,
    /// Record the queue length of every link direction at every change.
    #[serde(default)]
    pub queue: bool,
    /// Link directions (by name, e.g. "hop0.fwd") whose packet events are recorded: enqueue
    /// "+", dequeue "-", drop "d", receive at the far end "r" (ns-2's trace vocabulary).
    #[serde(default)]
    pub links: Vec<String>,
    /// Points kept per trace before it stops recording (marked truncated).
    #[serde(default = "default_trace_points")]
    pub max_points: u64,
    /// Packet captures written as libpcap files: one table or a list of them (docs/pcap.md).
    /// (Left out of the resolved scenario when empty, so run keys of scenarios without
    /// captures are what they were before captures existed.)
    #[serde(
        default,
        deserialize_with = "pcap::one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[schemars(with = "pcap::Captures")]
    pub pcap: Vec<PcapSpec>,
}

fn default_trace_points() -> u64 {
    1_000_000
}

impl Default for TraceSpec {
    fn default() -> Self {
        TraceSpec {
            cwnd: false,
            queue: false,
            links: Vec::new(),
            max_points: default_trace_points(),
            pcap: Vec::new(),
        }
    }
}

/// The JSON Schema of scenario files.
pub fn json_schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(Scenario)).expect("schema serializes")
}

/// Parses TOML text, applies `key=value` overrides, deserializes and validates every field.
/// Placement in the network is checked when the topology is built: `crate::load` does both.
pub fn parse(text: &str, overrides: &[(String, String)]) -> Result<Scenario, Error> {
    let mut doc: toml::Value = toml::from_str(text).map_err(|e| toml_error(text, &e))?;
    for (path, value) in overrides {
        set_path(&mut doc, path, value)?;
    }
    from_value(doc)
}

/// "line L, column C: message" for a TOML syntax error.
fn toml_error(text: &str, e: &toml::de::Error) -> Error {
    let msg = e.message().trim().replace('\n', "; ");
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            Error::Toml(format!("line {line}, column {col}: {msg}"))
        }
        None => Error::Toml(msg),
    }
}

/// Deserializes a TOML value (also what Python dicts become), then validates every field (see
/// `parse`; `crate::load_value` also checks placement).
pub fn from_value(mut doc: toml::Value) -> Result<Scenario, Error> {
    apply_profiles(&mut doc);
    let network_keys: Vec<String> = doc
        .get("network")
        .and_then(toml::Value::as_table)
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default();
    let scenario: Scenario = serde_path_to_error::deserialize(doc).map_err(|e| {
        let path = e.path().to_string();
        // toml appends its own, less precise key path on a second line: keep the first.
        let message = e.into_inner().to_string();
        let message = message.lines().next().unwrap_or_default().trim();
        let message = match flow::moved_option(&path) {
            Some(now) if message.starts_with("unknown field") => {
                format!("no longer a flow option: it is written {now} (docs/tcp-family.md)")
            }
            _ if path == "network" && message.starts_with("wanted exactly 1 element") => {
                network_tables(&network_keys)
            }
            _ => crate::error::with_suggestion(message) + &cc_hint(&path, message),
        };
        Error::Invalid {
            field: if path == "." { "scenario".into() } else { path },
            message,
        }
    })?;
    scenario.validate()?;
    Ok(scenario)
}

/// The topologies a `[network]` table may hold, exactly one of them.
const TOPOLOGIES: [&str; 5] = ["path", "chain", "dumbbell", "parking_lot", "graph"];

/// The error for a `[network]` with other keys than one topology table (`--set
/// network.hops.0.rate=...` adds a `hops` table beside `path`): what is there, what was
/// expected, and where the stray key belongs.
fn network_tables(keys: &[String]) -> String {
    let topologies: Vec<&String> = keys.iter().filter(|k| TOPOLOGIES.contains(&k.as_str())).collect();
    let strays: Vec<&String> = keys
        .iter()
        .filter(|k| !TOPOLOGIES.contains(&k.as_str()))
        .collect();
    let mut m = format!(
        "has {} (expected exactly one topology table: {})",
        keys.iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", "),
        TOPOLOGIES.join(", ")
    );
    if let (Some(topology), Some(stray)) = (topologies.first(), strays.first()) {
        m += &format!("; `{stray}` belongs inside the topology: network.{topology}.{stray}");
    }
    m
}

/// A hint when a flow's loss recovery (`tcp`) names a congestion control: `tcp = "cubic"` is
/// `cc = "cubic"` (with the recovery, `tcp`, left as it was or set apart).
fn cc_hint(path: &str, message: &str) -> String {
    let given = message
        .strip_prefix("unknown variant `")
        .and_then(|m| m.split('`').next());
    let at_tcp = path.ends_with(".tcp") || path.ends_with(".tcp.variant");
    match given {
        Some(name) if at_tcp && crate::tcp::cc::Algorithm::all().iter().any(|a| a.name() == name) => {
            let flow = path.trim_end_matches(".variant").trim_end_matches(".tcp");
            format!(
                "; {name} is a congestion control, not a loss recovery: write {flow}.cc = \"{name}\" \
                 (and tcp = \"sack\", say, for its recovery; docs/tcp-family.md)"
            )
        }
        _ => String::new(),
    }
}

/// Fills in the defaults of `profile = "linux"` in every flow table that names it (flows and
/// background TCP groups), before the document is read (`flow::linux_defaults`).
fn apply_profiles(doc: &mut toml::Value) {
    let Some(top) = doc.as_table_mut() else { return };
    if let Some(toml::Value::Array(flows)) = top.get_mut("flows") {
        for f in flows.iter_mut().filter_map(toml::Value::as_table_mut) {
            flow::linux_defaults(f);
        }
    }
    if let Some(toml::Value::Array(groups)) = top.get_mut("traffic") {
        for g in groups.iter_mut().filter_map(toml::Value::as_table_mut) {
            if let Some(t) = g.get_mut("tcp").and_then(toml::Value::as_table_mut) {
                flow::linux_defaults(t);
            }
        }
    }
}

/// `--set a.b.0.c=value`: the value is read as a TOML literal (number, bool, string, array,
/// inline table), falling back to a plain string ("10Mbit/s" needs no quotes). A path into the
/// short form of a flow's `tcp` or `cc` ("newreno") first turns it into its table form
/// ({ variant = "newreno" }), so `--set flows.0.tcp.partial_deflation=false` works on either.
pub fn set_path(doc: &mut toml::Value, path: &str, raw: &str) -> Result<(), Error> {
    let bad = |m: String| Error::Override {
        path: path.to_string(),
        message: m,
    };
    let value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(bad("empty path segment".into()));
    }
    let mut cur = doc;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let here = parts[..i].join(".");
        cur = match cur {
            toml::Value::Table(t) => {
                if last {
                    t.insert(part.to_string(), value);
                    return Ok(());
                }
                let entry = t
                    .entry(part.to_string())
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()));
                if let (toml::Value::String(name), Some(tag)) = (&*entry, flow::short_form_tag(part)) {
                    let table = toml::Table::from_iter([(tag.to_string(), name.clone().into())]);
                    *entry = toml::Value::Table(table);
                }
                entry
            }
            toml::Value::Array(a) => {
                let idx: usize = part
                    .parse()
                    .map_err(|_| bad(format!("{here} is a list; expected an index, got {part:?}")))?;
                let n = a.len();
                let slot = a
                    .get_mut(idx)
                    .ok_or_else(|| bad(format!("{here} has {n} entries; index {idx} is out of range")))?;
                if last {
                    *slot = value;
                    return Ok(());
                }
                slot
            }
            _ => return Err(bad(format!("{here} is a value, not a table or list"))),
        };
    }
    unreachable!("the loop returns at the last segment")
}

pub(crate) fn invalid(field: impl Into<String>, message: impl Into<String>) -> Error {
    Error::Invalid {
        field: field.into(),
        message: message.into(),
    }
}

/// Budgets that keep a run inside a workstation's memory: checked before anything is allocated,
/// so a mistyped count is one error line, not an aborted process (docs/limits.md).
pub mod budget {
    /// Connections in one run: foreground flows plus background sources.
    pub const MAX_CONNECTIONS: u64 = 1_000_000;
    /// Records kept per trace (`trace.max_points`): a packet record is 48 bytes.
    pub const MAX_TRACE_POINTS: u64 = 50_000_000;
    /// Packets one queue may hold (`limit`), about 1.1 GB of packets when full.
    pub const MAX_QUEUE_PACKETS: u64 = 10_000_000;
    /// Bytes one queue may hold (`limit_bytes`).
    pub const MAX_QUEUE_BYTES: u64 = 1_000_000_000;
    /// Packets a link's device queue may hold (`device_queue`): a NIC's transmit ring has at
    /// most a few thousand descriptors.
    pub const MAX_DEVICE_QUEUE_PACKETS: u64 = 65_536;
    /// Nodes in one network: a dumbbell or a parking lot gives every connection two (its
    /// sender and its receiver), so 1,000,000 connections need 2,000,000 of them.
    pub const MAX_NODES: u64 = 2_100_000;
    /// Duplex links in one network (each two link directions with their queues): every
    /// connection's two access links on a dumbbell, plus 100,000 others.
    pub const MAX_LINKS: u64 = 2_100_000;
    /// The shortest timeout a timer may be armed for (`initial_rto`, `max_rto`, and the
    /// smallest RTO an estimator can compute): 1 microsecond.
    pub const MIN_TIMEOUT: crate::time::SimTime = crate::time::SimTime(1_000);
}

impl Scenario {
    pub fn validate(&self) -> Result<(), Error> {
        if self.duration.0 == SimTime::ZERO {
            return Err(invalid("duration", "0 is not a valid run length (expected > 0)"));
        }
        if self.warmup.0 >= self.duration.0 {
            return Err(invalid(
                "warmup",
                format!(
                    "{} is not before duration {} (expected warmup < duration)",
                    self.warmup.0, self.duration.0
                ),
            ));
        }
        if self.flows.is_empty() {
            return Err(invalid(
                "flows",
                "no flows (expected at least one [[flows]] table)",
            ));
        }
        // u32 counts summed in a usize (64 bits here) cannot overflow; the budget bounds it.
        let flows = self.flow_count() as u64;
        if flows == 0 {
            return Err(invalid(
                "flows",
                "every [[flows]] table has count = 0 (expected at least one flow)",
            ));
        }
        let connections = flows + self.traffic.iter().map(|t| t.count as u64).sum::<u64>();
        if connections > budget::MAX_CONNECTIONS {
            return Err(invalid(
                if self.traffic.is_empty() { "flows" } else { "traffic" },
                format!(
                    "{connections} connections (flows plus background sources) in one run (expected at most {})",
                    budget::MAX_CONNECTIONS
                ),
            ));
        }
        let (nodes, links, field) = self.network.size(connections);
        if nodes > budget::MAX_NODES || links > budget::MAX_LINKS {
            return Err(invalid(
                field,
                format!(
                    "a network of up to {nodes} nodes and {links} links with its {connections} connections (expected at most {} nodes and {} links)",
                    budget::MAX_NODES,
                    budget::MAX_LINKS
                ),
            ));
        }
        self.network.validate(self.flows.len(), flows as usize)?;
        for (i, f) in self.flows.iter().enumerate() {
            f.validate(&format!("flows[{i}]"))?;
        }
        if self.trace.max_points == 0 || self.trace.max_points > budget::MAX_TRACE_POINTS {
            return Err(invalid(
                "trace.max_points",
                format!(
                    "{} (expected 1 to {} records per trace)",
                    self.trace.max_points,
                    budget::MAX_TRACE_POINTS
                ),
            ));
        }
        pcap::validate(&self.trace.pcap, &self.flows, &self.traffic)?;
        let mut names = std::collections::HashMap::new();
        for (i, t) in self.traffic.iter().enumerate() {
            t.validate(&format!("traffic[{i}]"))?;
            if let Some(j) = names.insert(t.name(i), i) {
                return Err(invalid(
                    format!("traffic[{i}].name"),
                    format!(
                        "{:?} is also the name of traffic[{j}] (expected unique names)",
                        t.name(i)
                    ),
                ));
            }
        }
        // Placement (node names, bottleneck indices, round trips) is checked by building the
        // topology from this schema (`crate::load`); the schema does not depend on it.
        Ok(())
    }
}
