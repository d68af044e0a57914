//! The network part of a scenario: the topology shorthands (path, chain, dumbbell, parking lot)
//! and the general graph. Links, queues and loss modules are in `link.rs`.
//!
//! Where flows run: on a path or chain every flow runs end to end; on a dumbbell flow i gets
//! its own access links; on a parking lot the first `through` flows cross every gateway and the
//! others are the one-hop cross flows; on a graph, `network.graph.flows[i]` names the nodes of
//! `[[flows]][i]`. Endpoints live here, in the network section, not in the flows: a flow's
//! TCP settings do not change with the topology, and a topology can check its own names.

use super::{invalid, LinkSpec, QueueSpec};
use crate::error::Error;
use crate::time::{Duration, Rate, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};

/// The network: one of the topology shorthands, or a graph. One per scenario, read once: the
/// size of its largest variant costs nothing, and boxing it would only add indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Network {
    /// A chain of hops from the sender to the receiver; ACKs return over the reverse
    /// direction of the same links. Every flow runs end to end.
    Path(PathSpec),
    /// Barakat & Altman 1999 Fig. 1: a source access link, then n hops each with its own
    /// rate, delay, buffer and discipline (the last is usually the bottleneck). Every flow runs
    /// end to end.
    Chain(ChainSpec),
    /// N senders and N receivers (one pair per flow) joined by access links to two routers
    /// and one shared bottleneck between them (or several bottlenecks in series).
    Dumbbell(DumbbellSpec),
    /// Mathis et al. 1997 Sec. 6 after Floyd 1991: 2n gateways g{i}a, g{i}b; the link from
    /// g{i}a to g{i}b is congested by its own one-hop cross flows; uncongested links join g{i}b
    /// to g{i+1}a; the through flows cross all n congested links.
    ParkingLot(ParkingLotSpec),
    /// Named nodes and duplex links; each flow between two named nodes over the static route
    /// of fewest hops.
    Graph(GraphSpec),
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathSpec {
    pub hops: Vec<LinkSpec>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChainSpec {
    /// Rate of the source's access link ("mu_A"); without it the source feeds hop 0 directly.
    #[serde(default)]
    pub access_rate: Option<Rate>,
    #[serde(default = "super::zero_duration")]
    pub access_delay: Duration,
    /// The source's interface queue.
    #[serde(default = "default_access_queue")]
    pub access_queue: QueueSpec,
    /// The hops after the access link, in order (node i's output link is hop i).
    pub hops: Vec<LinkSpec>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    pub bottleneck: LinkSpec,
    /// Further bottlenecks in series after the first (two dumbbells in series: Parvez et al.
    /// 2010 Sec. IV-E). Flows cross them all; background traffic may cross one.
    #[serde(default)]
    pub series: Vec<LinkSpec>,
    /// Rate of every access link.
    #[serde(default = "default_access_rate")]
    pub access_rate: Rate,
    /// One-way delay of each access link (sender side and receiver side).
    #[serde(default = "default_access_delay")]
    pub access_delay: Duration,
    /// One-way delay of the receiver-side access links (default: access_delay).
    #[serde(default)]
    pub egress_delay: Option<Duration>,
    /// Per-flow delay of the sender-side access link (one per flow), overriding access_delay.
    #[serde(default)]
    pub access_delays: Option<Vec<Duration>>,
    /// Per-flow round-trip propagation delay (one per flow): the sender-side access delay is
    /// set to rtt/2 - bottleneck delays - egress delay.
    #[serde(default)]
    pub rtts: Option<Vec<Duration>>,
    /// Queue of each access link.
    #[serde(default = "default_access_queue")]
    pub access_queue: QueueSpec,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParkingLotSpec {
    /// Number of congested gateways (2n gateways in all).
    pub n: u32,
    /// Each congested link g{i}a -> g{i}b.
    pub congested: LinkSpec,
    /// Each uncongested link g{i}b -> g{i+1}a (default: access_rate, 1 ms, 1000 packets).
    #[serde(default)]
    pub between: Option<LinkSpec>,
    /// How many of the first flows cross every congested gateway; flow k >= through is a cross
    /// flow on congested link (k - through) mod n.
    #[serde(default = "one")]
    pub through: u32,
    #[serde(default = "default_access_rate")]
    pub access_rate: Rate,
    #[serde(default = "default_access_delay")]
    pub access_delay: Duration,
    #[serde(default = "default_access_queue")]
    pub access_queue: QueueSpec,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    /// Duplex links between named nodes (nodes are the names the links use).
    pub links: Vec<GraphLink>,
    /// One entry per [[flows]] table: where the sender and the receiver sit (every flow of a
    /// table with a `count` sits there).
    pub flows: Vec<Endpoints>,
}

/// A duplex link of a graph: `name.fwd` from `from` to `to`, `name.rev` back.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphLink {
    pub from: String,
    pub to: String,
    /// Link name (default "from-to").
    #[serde(default)]
    pub name: Option<String>,
    pub rate: Rate,
    pub delay: Duration,
    #[serde(default)]
    pub reverse_rate: Option<Rate>,
    #[serde(default)]
    pub queue: QueueSpec,
    #[serde(default)]
    pub reverse_queue: Option<QueueSpec>,
    #[serde(default)]
    pub loss: Option<super::LossSpec>,
    #[serde(default)]
    pub reverse_loss: Option<super::LossSpec>,
    /// A device queue of this many packets under each direction's discipline (`LinkSpec`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_queue: Option<u64>,
    /// Byte Queue Limits on that device queue (`LinkSpec`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bql: Option<super::link::BqlSpec>,
}

impl GraphLink {
    pub fn name(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("{}-{}", self.from, self.to))
    }
    pub fn spec(&self) -> LinkSpec {
        LinkSpec {
            rate: self.rate,
            delay: self.delay,
            reverse_rate: self.reverse_rate,
            queue: self.queue.clone(),
            reverse_queue: self.reverse_queue.clone(),
            loss: self.loss.clone(),
            reverse_loss: self.reverse_loss.clone(),
            device_queue: self.device_queue,
            bql: self.bql.clone(),
        }
    }
}

/// Where a flow's sender (`from`) and receiver (`to`) sit.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Endpoints {
    pub from: String,
    pub to: String,
}

fn one() -> u32 {
    1
}
fn default_access_rate() -> Rate {
    Rate(1_000_000_000)
}
fn default_access_delay() -> Duration {
    Duration(SimTime::from_ms(1))
}
pub(crate) fn default_access_queue() -> QueueSpec {
    QueueSpec::packets(1000)
}

fn positive_rate(at: &str, r: Rate) -> Result<(), Error> {
    if r.0 == 0 {
        return Err(invalid(at, "0 bit/s is not a valid rate (expected > 0)"));
    }
    Ok(())
}

impl DumbbellSpec {
    /// One-way propagation delay of the bottlenecks a flow from router `a` to router `b` crosses.
    pub fn bottleneck_delay(&self, a: usize, b: usize) -> SimTime {
        let all: Vec<&LinkSpec> = std::iter::once(&self.bottleneck).chain(&self.series).collect();
        SimTime(all[a..b].iter().map(|l| l.delay.0.ns()).sum())
    }

    pub fn egress(&self) -> SimTime {
        self.egress_delay.unwrap_or(self.access_delay).0
    }

    /// Number of bottleneck links (routers - 1).
    pub fn hops(&self) -> usize {
        1 + self.series.len()
    }

    /// Sender-side access delay giving a round trip of `rtt` across routers a..b, or an error
    /// message if the rest of the path is already longer.
    pub fn access_for_rtt(&self, rtt: SimTime, a: usize, b: usize) -> Result<SimTime, String> {
        let fixed = self.bottleneck_delay(a, b).ns() + self.egress().ns();
        let half = rtt.ns() / 2;
        if half < fixed {
            return Err(format!(
                "{rtt} is below the round trip of the rest of the path, 2 x {} (expected >= {})",
                SimTime(fixed),
                SimTime(2 * fixed)
            ));
        }
        Ok(SimTime(half - fixed))
    }
}

impl Network {
    /// At most how many nodes and duplex links this network has with `connections` flows and
    /// background sources (each may get its own sender, receiver and two access links), and
    /// the field that sets its size: counted from the numbers, before anything is built.
    pub(crate) fn size(&self, connections: u64) -> (u64, u64, &'static str) {
        let hosts = 2 * connections;
        match self {
            Network::Path(p) => (p.hops.len() as u64 + 1, p.hops.len() as u64, "network.path.hops"),
            Network::Chain(c) => (
                c.hops.len() as u64 + 2,
                c.hops.len() as u64 + 1,
                "network.chain.hops",
            ),
            Network::Dumbbell(d) => {
                let h = d.hops() as u64;
                (h + 1 + hosts, h + hosts, "network.dumbbell.series")
            }
            Network::ParkingLot(p) => {
                let n = u64::from(p.n);
                (2 * n + hosts, 2 * n + hosts, "network.parking_lot.n")
            }
            Network::Graph(g) => {
                let l = g.links.len() as u64;
                (2 * l, l, "network.graph.links")
            }
        }
    }

    /// `tables`: the [[flows]] tables (a graph names endpoints per table); `flows`: the flows
    /// they stand for (a dumbbell's per-flow delays).
    pub(crate) fn validate(&self, tables: usize, flows: usize) -> Result<(), Error> {
        match self {
            Network::Path(p) => {
                if p.hops.is_empty() {
                    return Err(invalid(
                        "network.path.hops",
                        "no hops (expected at least one link)",
                    ));
                }
                for (i, h) in p.hops.iter().enumerate() {
                    h.validate(&format!("network.path.hops[{i}]"))?;
                }
            }
            Network::Chain(c) => {
                if c.hops.is_empty() {
                    return Err(invalid(
                        "network.chain.hops",
                        "no hops (expected at least one link)",
                    ));
                }
                if let Some(r) = c.access_rate {
                    positive_rate("network.chain.access_rate", r)?;
                }
                c.access_queue.validate("network.chain.access_queue")?;
                for (i, h) in c.hops.iter().enumerate() {
                    h.validate(&format!("network.chain.hops[{i}]"))?;
                }
            }
            Network::Dumbbell(d) => {
                d.bottleneck.validate("network.dumbbell.bottleneck")?;
                for (i, h) in d.series.iter().enumerate() {
                    h.validate(&format!("network.dumbbell.series[{i}]"))?;
                }
                positive_rate("network.dumbbell.access_rate", d.access_rate)?;
                d.access_queue.validate("network.dumbbell.access_queue")?;
                if let Some(ds) = &d.access_delays {
                    if ds.len() != flows {
                        return Err(invalid(
                            "network.dumbbell.access_delays",
                            format!("{} delays for {} flows (expected one per flow)", ds.len(), flows),
                        ));
                    }
                }
                if let Some(rs) = &d.rtts {
                    if d.access_delays.is_some() {
                        return Err(invalid(
                            "network.dumbbell.rtts",
                            "set together with access_delays (expected one of them)",
                        ));
                    }
                    if rs.len() != flows {
                        return Err(invalid(
                            "network.dumbbell.rtts",
                            format!(
                                "{} round trips for {} flows (expected one per flow)",
                                rs.len(),
                                flows
                            ),
                        ));
                    }
                    for (i, r) in rs.iter().enumerate() {
                        d.access_for_rtt(r.0, 0, d.hops())
                            .map_err(|m| invalid(format!("network.dumbbell.rtts[{i}]"), m))?;
                    }
                }
            }
            Network::ParkingLot(p) => {
                if p.n == 0 {
                    return Err(invalid(
                        "network.parking_lot.n",
                        "0 (expected at least one congested gateway)",
                    ));
                }
                p.congested.validate("network.parking_lot.congested")?;
                if let Some(b) = &p.between {
                    b.validate("network.parking_lot.between")?;
                }
                positive_rate("network.parking_lot.access_rate", p.access_rate)?;
                p.access_queue.validate("network.parking_lot.access_queue")?;
                if p.through as usize > flows {
                    return Err(invalid(
                        "network.parking_lot.through",
                        format!(
                            "{} through flows but only {} flows (expected <= {})",
                            p.through, flows, flows
                        ),
                    ));
                }
            }
            Network::Graph(g) => g.validate(tables)?,
        }
        Ok(())
    }
}

impl GraphSpec {
    /// Node names in order of first appearance in the links.
    pub fn nodes(&self) -> Vec<String> {
        let mut seen = HashMap::new();
        let mut out = Vec::new();
        for l in &self.links {
            for n in [&l.from, &l.to] {
                if !seen.contains_key(n) {
                    seen.insert(n.clone(), out.len());
                    out.push(n.clone());
                }
            }
        }
        out
    }

    fn validate(&self, tables: usize) -> Result<(), Error> {
        if self.links.is_empty() {
            return Err(invalid("network.graph.links", "no links (expected at least one)"));
        }
        let mut names = HashMap::new();
        for (i, l) in self.links.iter().enumerate() {
            let at = format!("network.graph.links[{i}]");
            for (f, v) in [("from", &l.from), ("to", &l.to)] {
                if v.is_empty() {
                    return Err(invalid(format!("{at}.{f}"), "empty node name"));
                }
            }
            if l.from == l.to {
                return Err(invalid(
                    format!("{at}.to"),
                    format!(
                        "{:?} is the link's own from node (expected two different nodes)",
                        l.to
                    ),
                ));
            }
            if let Some(j) = names.insert(l.name(), i) {
                return Err(invalid(
                    format!("{at}.name"),
                    format!(
                        "{:?} is also the name of links[{j}] (expected unique link names)",
                        l.name()
                    ),
                ));
            }
            l.spec().validate(&at)?;
        }
        if self.flows.len() != tables {
            return Err(invalid(
                "network.graph.flows",
                format!(
                    "{} endpoints for {} [[flows]] tables (expected one {{ from, to }} per table)",
                    self.flows.len(),
                    tables
                ),
            ));
        }
        let nodes = self.nodes();
        let index: HashMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
        // Connected: every node reachable from the first over the (duplex) links.
        let mut adj = vec![Vec::new(); nodes.len()];
        for l in &self.links {
            let (a, b) = (index[l.from.as_str()], index[l.to.as_str()]);
            adj[a].push(b);
            adj[b].push(a);
        }
        let mut seen = vec![false; nodes.len()];
        seen[0] = true;
        let mut q = VecDeque::from([0]);
        while let Some(v) = q.pop_front() {
            for &u in &adj[v] {
                if !seen[u] {
                    seen[u] = true;
                    q.push_back(u);
                }
            }
        }
        if let Some(first) = seen.iter().position(|s| !s) {
            // A misspelt node name in a link makes a node of its own, cut off from the rest:
            // name the cut-off node that is nearest to a connected one (fewest edits for its
            // length), with that suggestion, or else the first cut-off node.
            let connected: Vec<&str> = nodes
                .iter()
                .zip(&seen)
                .filter(|(_, s)| **s)
                .map(|(n, _)| n.as_str())
                .collect();
            let slip = (0..nodes.len())
                .filter(|&i| !seen[i])
                .filter_map(|i| {
                    let near = crate::error::nearest(&nodes[i], connected.iter().copied())?;
                    let edits = crate::error::edit_distance(&nodes[i].to_lowercase(), &near.to_lowercase());
                    Some((edits as f64 / nodes[i].chars().count() as f64, i))
                })
                .min_by(|a, b| a.0.total_cmp(&b.0));
            let i = slip.map_or(first, |(_, i)| i);
            return Err(invalid(
                "network.graph.links",
                format!(
                    "node {:?} is not connected to {:?} (expected a connected graph){}",
                    nodes[i],
                    nodes[0],
                    crate::error::suggest(&nodes[i], connected.iter().copied())
                ),
            ));
        }
        for (i, e) in self.flows.iter().enumerate() {
            for (f, v) in [("from", &e.from), ("to", &e.to)] {
                if !index.contains_key(v.as_str()) {
                    return Err(invalid(
                        format!("network.graph.flows[{i}].{f}"),
                        format!(
                            "{v:?} is not a node (expected one of {}){}",
                            quoted(&nodes),
                            crate::error::suggest(v, nodes.iter().map(String::as_str))
                        ),
                    ));
                }
            }
            if e.from == e.to {
                return Err(invalid(
                    format!("network.graph.flows[{i}].to"),
                    format!(
                        "{:?} is also the sender's node (expected two different nodes)",
                        e.to
                    ),
                ));
            }
        }
        Ok(())
    }
}

pub(crate) fn quoted(names: &[String]) -> String {
    let shown: Vec<String> = names.iter().take(12).map(|n| format!("{n:?}")).collect();
    let more = if names.len() > 12 { ", ..." } else { "" };
    format!("{}{more}", shown.join(", "))
}
