//! Building the network from a scenario: nodes, the links between them (each direction its own
//! `Link`), where each flow and each background source sits, and static shortest-path routes.
//! The shapes are in their own files: `shapes.rs` (path, chain, graph) and `dumbbell.rs`
//! (dumbbell, dumbbells in series, parking lot).

mod dumbbell;
mod routes;
mod shapes;

pub use routes::Routes;

use super::link::Link;
use super::loss::{LossModel, Span};
use super::packet::NodeId;
use super::queue::{Discipline, LinkContext, Queue};
use crate::error::Error;
use crate::rng::Stream;
use crate::scenario::{
    self, invalid as invalid_at, LinkSpec, LossKind, LossSpec, Network, QueueSpec, Scenario, Window,
};
use crate::time::SimTime;
use std::collections::{HashMap, VecDeque};

/// No route to that destination.
pub const NO_ROUTE: u32 = u32::MAX;

/// The names of a network's link directions ("bottleneck.fwd"), in link order, in one buffer.
/// Read only at set-up and in the results, so they are not in the `Link` the packet path
/// reads. One buffer instead of a `String` per link: the `Link` is 16 bytes smaller (368, its
/// alignment taking the rest of the 24) and the name has no allocation of its own (32 bytes
/// with the allocator's header), four link directions per flow in a dumbbell.
#[derive(Clone, Debug, Default)]
pub struct LinkNames {
    text: String,
    /// Where each name ends in `text`.
    ends: Vec<u32>,
}

impl LinkNames {
    pub fn push(&mut self, name: &str) {
        self.text.push_str(name);
        let end = u32::try_from(self.text.len()).expect("link names under 4 GiB in all");
        self.ends.push(end);
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Link `i`'s name.
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The index of the link named `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.iter().position(|n| n == name)
    }

    fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

pub struct Topology {
    pub node_names: Vec<String>,
    pub links: Vec<Link>,
    /// The links' names, in the same order.
    pub link_names: LinkNames,
    /// (sender node, receiver node) of each flow.
    pub endpoints: Vec<(NodeId, NodeId)>,
    /// Per traffic group, per source: (data sender node, data receiver node). For HTTP the
    /// data sender is the server.
    pub traffic: Vec<Vec<(NodeId, NodeId)>>,
    /// `routes.next(node, destination)` = outgoing link index, or NO_ROUTE.
    pub routes: Routes,
}

fn queue(spec: &QueueSpec, rate_bps: u64, seed: u64, link: &str) -> Queue {
    let ctx = LinkContext {
        name: link,
        rate_bps,
        seed,
    };
    Queue::new(Discipline::build(spec, &ctx))
}

fn prob(p: Option<crate::time::Probability>, default: f64) -> f64 {
    p.map_or(default, |p| p.0)
}

fn loss(spec: &Option<LossSpec>, seed: u64, component: &str) -> Option<LossModel> {
    let rng = || Stream::new(seed, component);
    spec.as_ref().map(|l| match l.model {
        LossKind::Bernoulli => LossModel::Bernoulli {
            p: prob(l.p, 0.0),
            rng: rng(),
        },
        LossKind::Periodic => LossModel::EveryNth {
            n: l.period(),
            count: 0,
        },
        LossKind::Script => {
            let mut drop = l.packets.clone().unwrap_or_default();
            drop.sort_unstable();
            drop.dedup();
            LossModel::Script {
                drop,
                count: 0,
                next: 0,
            }
        }
        LossKind::Bursty => LossModel::Bursty {
            p: prob(l.p, 0.0),
            m: l.m.unwrap_or(1).max(1),
            left: 0,
            span: l.span.map(|d| d.0),
            until: SimTime::ZERO,
            rng: rng(),
        },
        LossKind::TwoParameter => LossModel::TwoParameter {
            p: prob(l.p, 0.0),
            q: prob(l.q, 0.0),
            span: match (l.span_packets, l.span) {
                (Some(n), _) => Span::Packets(n),
                (None, Some(d)) => Span::Time(d.0),
                (None, None) => Span::Packets(1),
            },
            tcp: Vec::new(),
            other: Vec::new(),
            rng: rng(),
        },
        LossKind::GilbertElliott => LossModel::GilbertElliott {
            p_gb: prob(l.p_gb, 0.0),
            p_bg: prob(l.p_bg, 1.0),
            loss_good: prob(l.loss_good, 0.0),
            loss_bad: prob(l.loss_bad, 1.0),
            bad: false,
            rng: rng(),
        },
    })
}

pub(crate) struct Builder {
    seed: u64,
    node_names: Vec<String>,
    index: HashMap<String, NodeId>,
    links: Vec<Link>,
    link_names: LinkNames,
}

impl Builder {
    fn new(seed: u64) -> Self {
        Builder {
            seed,
            node_names: Vec::new(),
            index: HashMap::new(),
            links: Vec::new(),
            link_names: LinkNames::default(),
        }
    }

    pub(crate) fn node(&mut self, name: String) -> NodeId {
        let id = self.node_names.len() as NodeId;
        self.index.insert(name.clone(), id);
        self.node_names.push(name);
        id
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<NodeId> {
        self.index.get(name).copied()
    }

    /// "`name` is not a node (expected one of ...)", the first few names listed and the nearest
    /// of all the network's names suggested (`error::suggest`), so a misspelt name is found
    /// among every node, not only those the message shows.
    pub(crate) fn not_a_node(&self, name: &str) -> String {
        format!(
            "{name:?} is not a node (expected one of {}){}",
            scenario::quoted(&self.node_names),
            crate::error::suggest(name, self.node_names.iter().map(String::as_str))
        )
    }

    /// Adds both directions of a connection's own link (its access or egress link): as
    /// `duplex`, marked as not shared.
    pub(crate) fn own_duplex(&mut self, name: &str, a: NodeId, b: NodeId, spec: &LinkSpec) {
        self.duplex(name, a, b, spec);
        let n = self.links.len();
        for l in &mut self.links[n - 2..] {
            l.shared = false;
        }
    }

    /// Adds both directions of a link: `name.fwd` from a to b and `name.rev` back.
    pub(crate) fn duplex(&mut self, name: &str, a: NodeId, b: NodeId, spec: &LinkSpec) {
        let rq = spec.reverse_queue.as_ref().unwrap_or(&spec.queue);
        let rrate = spec.reverse_rate.unwrap_or(spec.rate).0;
        let fwd = format!("{name}.fwd");
        let rev = format!("{name}.rev");
        let lf = loss(&spec.loss, self.seed, &format!("loss:{fwd}"));
        let lr = loss(&spec.reverse_loss, self.seed, &format!("loss:{rev}"));
        let qf = queue(&spec.queue, spec.rate.0, self.seed, &fwd);
        let qr = queue(rq, rrate, self.seed, &rev);
        let dq = spec.device_queue_packets();
        let mut fwd_link = Link::new(a, b, spec.rate.0, spec.delay.0, qf, lf).with_device_queue(dq);
        let mut rev_link = Link::new(b, a, rrate, spec.delay.0, qr, lr).with_device_queue(dq);
        if let Some(bql) = &spec.bql {
            fwd_link = fwd_link.with_bql(bql.dql());
            rev_link = rev_link.with_bql(bql.dql());
        }
        self.links.push(fwd_link);
        self.links.push(rev_link);
        self.link_names.push(&fwd);
        self.link_names.push(&rev);
    }
}

/// A draw from a window, uniform over whole nanoseconds, from `rng`.
pub fn draw(w: Window, rng: &mut Stream) -> SimTime {
    let (a, b) = w.bounds();
    if a == b {
        return a;
    }
    let span = (b.ns() - a.ns()) as f64;
    SimTime(a.ns() + ((rng.uniform() * span) as u64).min(b.ns() - a.ns()))
}

impl Topology {
    pub fn build(sc: &Scenario) -> Result<Topology, Error> {
        let mut b = Builder::new(sc.seed);
        let nflows = sc.flow_count();
        let (endpoints, traffic) = match &sc.network {
            Network::Path(p) => shapes::path(&mut b, p, sc)?,
            Network::Chain(c) => shapes::chain(&mut b, c, sc)?,
            Network::Graph(g) => shapes::graph(&mut b, g, sc)?,
            Network::Dumbbell(d) => dumbbell::dumbbell(&mut b, d, sc)?,
            Network::ParkingLot(p) => dumbbell::parking_lot(&mut b, p, sc)?,
        };
        debug_assert_eq!(endpoints.len(), nflows);
        let routes = Routes::new(b.node_names.len(), &b.links);
        let check = |field: String, (s, d): (NodeId, NodeId)| -> Result<(), Error> {
            if routes.next(s, d) == NO_ROUTE || routes.next(d, s) == NO_ROUTE {
                return Err(invalid_at(
                    field,
                    format!(
                        "no route between {:?} and {:?} (expected connected nodes)",
                        b.node_names[s as usize], b.node_names[d as usize]
                    ),
                ));
            }
            Ok(())
        };
        for (i, &e) in endpoints.iter().enumerate() {
            check(format!("flows[{i}]"), e)?;
        }
        for (g, srcs) in traffic.iter().enumerate() {
            for &e in srcs {
                check(format!("traffic[{g}]"), e)?;
            }
        }
        // The vector grew by doubling: give back the unused part (up to half of 40,000 links).
        b.links.shrink_to_fit();
        b.link_names.shrink_to_fit();
        Ok(Topology {
            node_names: b.node_names,
            links: b.links,
            link_names: b.link_names,
            endpoints,
            traffic,
            routes,
        })
    }
}

/// Places a traffic group at its `from`/`to` nodes, if it names them.
pub(crate) fn named_placement(
    b: &Builder,
    t: &scenario::TrafficSpec,
    g: usize,
) -> Result<Option<Vec<(NodeId, NodeId)>>, Error> {
    let (Some(from), Some(to)) = (&t.from, &t.to) else {
        return Ok(None);
    };
    let find = |f: &str, v: &str| {
        b.lookup(v)
            .ok_or_else(|| invalid_at(format!("traffic[{g}].{f}"), b.not_a_node(v)))
    };
    let (s, d) = (find("from", from)?, find("to", to)?);
    if s == d {
        return Err(invalid_at(
            format!("traffic[{g}].to"),
            format!("{to:?} is also the sender's node (expected two different nodes)"),
        ));
    }
    if t.bottleneck.is_some() || t.rtt.is_some() || t.reverse {
        return Err(invalid_at(
            format!("traffic[{g}].from"),
            "set together with bottleneck, rtt or reverse (expected either named nodes or a placement)",
        ));
    }
    Ok(Some(vec![(s, d); t.count as usize]))
}

/// Next-hop tables by breadth-first search from every destination over reversed links
/// (fewest hops; ties go to the link added first, so routes are deterministic). Nodes x nodes:
/// the reference that `Routes` answers from in linear memory (its tests compare the two).
pub fn shortest_path_routes(n: usize, links: &[Link]) -> Vec<Vec<u32>> {
    let mut into: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, l) in links.iter().enumerate() {
        into[l.to as usize].push(i as u32);
    }
    let mut routes = vec![vec![NO_ROUTE; n]; n];
    for dst in 0..n {
        let mut seen = vec![false; n];
        seen[dst] = true;
        let mut frontier = VecDeque::from([dst]);
        while let Some(v) = frontier.pop_front() {
            for &li in &into[v] {
                let u = links[li as usize].from as usize;
                if !seen[u] {
                    seen[u] = true;
                    routes[u][dst] = li;
                    frontier.push_back(u);
                }
            }
        }
    }
    routes
}
