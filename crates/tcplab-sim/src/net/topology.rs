//! Building the network from a scenario: nodes, the links between them (each direction its own
//! `Link`), each flow's endpoints, and static shortest-path routes.

use super::link::Link;
use super::loss::LossModel;
use super::packet::NodeId;
use super::queue::{Discipline, DropTail, Queue};
use crate::rng::Stream;
use crate::scenario::{self, LinkSpec, LossKind, LossSpec, Network, QueueSpec, Scenario};
use crate::time::SimTime;
use std::collections::VecDeque;

/// No route to that destination.
pub const NO_ROUTE: u32 = u32::MAX;

pub struct Topology {
    pub node_names: Vec<String>,
    pub links: Vec<Link>,
    /// (sender node, receiver node) of each flow.
    pub endpoints: Vec<(NodeId, NodeId)>,
    /// routes[node][destination] = outgoing link index, or NO_ROUTE.
    pub routes: Vec<Vec<u32>>,
}

fn queue(spec: &QueueSpec) -> Queue {
    let discipline = match spec.discipline {
        scenario::Discipline::Droptail => Discipline::DropTail(DropTail),
    };
    Queue::new(spec.limit_or_default(), discipline)
}

fn loss(spec: &Option<LossSpec>, seed: u64, component: &str) -> Option<LossModel> {
    spec.as_ref().map(|l| match l.model {
        LossKind::Bernoulli => LossModel::Bernoulli {
            p: l.p.map_or(0.0, |p| p.0),
            rng: Stream::new(seed, component),
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
    })
}

struct Builder {
    seed: u64,
    node_names: Vec<String>,
    links: Vec<Link>,
}

impl Builder {
    fn node(&mut self, name: String) -> NodeId {
        self.node_names.push(name);
        (self.node_names.len() - 1) as NodeId
    }

    /// Adds both directions of a link: `name.fwd` from a to b and `name.rev` back.
    fn duplex(&mut self, name: &str, a: NodeId, b: NodeId, spec: &LinkSpec) {
        let rq = spec.reverse_queue.as_ref().unwrap_or(&spec.queue);
        let fwd = format!("{name}.fwd");
        let rev = format!("{name}.rev");
        let lf = loss(&spec.loss, self.seed, &format!("loss:{fwd}"));
        let lr = loss(&spec.reverse_loss, self.seed, &format!("loss:{rev}"));
        self.links.push(Link::new(
            fwd,
            a,
            b,
            spec.rate.0,
            spec.delay.0,
            queue(&spec.queue),
            lf,
        ));
        self.links
            .push(Link::new(rev, b, a, spec.rate.0, spec.delay.0, queue(rq), lr));
    }
}

impl Topology {
    pub fn build(sc: &Scenario) -> Topology {
        let mut b = Builder {
            seed: sc.seed,
            node_names: Vec::new(),
            links: Vec::new(),
        };
        let endpoints = match &sc.network {
            Network::Path(p) => {
                let mut prev = b.node("n0".into());
                let first = prev;
                for (i, hop) in p.hops.iter().enumerate() {
                    let next = b.node(format!("n{}", i + 1));
                    b.duplex(&format!("hop{i}"), prev, next, hop);
                    prev = next;
                }
                vec![(first, prev); sc.flows.len()]
            }
            Network::Dumbbell(d) => {
                let r1 = b.node("r1".into());
                let r2 = b.node("r2".into());
                b.duplex("bottleneck", r1, r2, &d.bottleneck);
                let mut eps = Vec::new();
                for i in 0..sc.flows.len() {
                    let s = b.node(format!("s{i}"));
                    let r = b.node(format!("d{i}"));
                    let delay = d.access_delays.as_ref().map_or(d.access_delay, |v| v[i]);
                    let access = |delay: SimTime| LinkSpec {
                        rate: d.access_rate,
                        delay: crate::time::Duration(delay),
                        queue: d.access_queue.clone(),
                        reverse_queue: None,
                        loss: None,
                        reverse_loss: None,
                    };
                    b.duplex(&format!("access{i}"), s, r1, &access(delay.0));
                    b.duplex(&format!("egress{i}"), r2, r, &access(d.access_delay.0));
                    eps.push((s, r));
                }
                eps
            }
        };
        let routes = shortest_path_routes(b.node_names.len(), &b.links);
        Topology {
            node_names: b.node_names,
            links: b.links,
            endpoints,
            routes,
        }
    }
}

/// Next-hop tables by breadth-first search from every destination over reversed links
/// (fewest hops; ties go to the link added first, so routes are deterministic).
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
