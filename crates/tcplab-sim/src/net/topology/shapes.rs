//! Path, chain (Barakat & Altman 1999 Fig. 1) and general graph topologies.

use super::{named_placement, Builder};
use crate::error::Error;
use crate::net::packet::NodeId;
use crate::scenario::{invalid, ChainSpec, GraphSpec, LinkSpec, PathSpec, Scenario};

type Placement = (Vec<(NodeId, NodeId)>, Vec<Vec<(NodeId, NodeId)>>);

/// Every flow end to end; traffic at its named nodes, or end to end too.
fn end_to_end(
    b: &Builder,
    sc: &Scenario,
    first: NodeId,
    last: NodeId,
    shape: &str,
) -> Result<Placement, Error> {
    let mut traffic = Vec::new();
    for (g, t) in sc.traffic.iter().enumerate() {
        if let Some(p) = named_placement(b, t, g)? {
            traffic.push(p);
            continue;
        }
        if t.bottleneck.is_some() || t.rtt.is_some() {
            let f = if t.bottleneck.is_some() {
                "bottleneck"
            } else {
                "rtt"
            };
            return Err(invalid(
                format!("traffic[{g}].{f}"),
                format!("does not apply to a {shape} (expected from and to node names)"),
            ));
        }
        let e = if t.reverse { (last, first) } else { (first, last) };
        traffic.push(vec![e; t.count as usize]);
    }
    Ok((vec![(first, last); sc.flow_count()], traffic))
}

/// Nodes n0..nk joined by hop0..hop{k-1}.
pub(super) fn path(b: &mut Builder, p: &PathSpec, sc: &Scenario) -> Result<Placement, Error> {
    let mut prev = b.node("n0".into());
    let first = prev;
    for (i, hop) in p.hops.iter().enumerate() {
        let next = b.node(format!("n{}", i + 1));
        b.duplex(&format!("hop{i}"), prev, next, hop);
        prev = next;
    }
    end_to_end(b, sc, first, prev, "path")
}

/// "src" -access-> "r1" -hop0-> "r2" ... -hop{k-1}-> "dst": node r{i+1} feeds hop i (its buffer
/// is hop i's queue). Without an access rate the source sits at r1 itself ("src" = "r1").
pub(super) fn chain(b: &mut Builder, c: &ChainSpec, sc: &Scenario) -> Result<Placement, Error> {
    let src = b.node("src".into());
    let mut prev = src;
    if let Some(rate) = c.access_rate {
        let r1 = b.node("r1".into());
        let access = LinkSpec::plain(rate, c.access_delay, c.access_queue.clone());
        b.duplex("access", src, r1, &access);
        prev = r1;
    }
    let k = c.hops.len();
    for (i, hop) in c.hops.iter().enumerate() {
        let name = if i + 1 == k {
            "dst".to_string()
        } else {
            format!("r{}", i + 2)
        };
        let next = b.node(name);
        b.duplex(&format!("hop{i}"), prev, next, hop);
        prev = next;
    }
    end_to_end(b, sc, src, prev, "chain")
}

pub(super) fn graph(b: &mut Builder, g: &GraphSpec, sc: &Scenario) -> Result<Placement, Error> {
    for n in g.nodes() {
        b.node(n);
    }
    for l in &g.links {
        // Every node was added from the links just above.
        let (from, to) = (b.lookup(&l.from).unwrap_or(0), b.lookup(&l.to).unwrap_or(0));
        b.duplex(&l.name(), from, to, &l.spec());
    }
    let mut endpoints = Vec::new();
    for (i, e) in g.flows.iter().enumerate() {
        let find = |f: &str, v: &str| {
            b.lookup(v)
                .ok_or_else(|| invalid(format!("network.graph.flows[{i}].{f}"), b.not_a_node(v)))
        };
        let ends = (find("from", &e.from)?, find("to", &e.to)?);
        let copies = sc.flows.get(i).map_or(0, |f| f.count as usize);
        endpoints.extend(std::iter::repeat_n(ends, copies));
    }
    let mut traffic = Vec::new();
    for (t_i, t) in sc.traffic.iter().enumerate() {
        match named_placement(b, t, t_i)? {
            Some(p) => traffic.push(p),
            None => {
                return Err(invalid(
                    format!("traffic[{t_i}].from"),
                    "missing (expected from and to node names on a graph)",
                ))
            }
        }
    }
    Ok((endpoints, traffic))
}
