//! Static routes in memory linear in the network's size.
//!
//! The routes are those of `shortest_path_routes` (breadth-first search from every destination
//! over reversed links: fewest hops, ties to the link added first), without its nodes x nodes
//! table. Most of a simulated network hangs off a small core in trees: every host of a dumbbell
//! is a leaf on its router, and the routers of a dumbbell or parking lot form a path. Such trees
//! are peeled off first, leaf by leaf; breadth-first search then runs only on the core left, and
//! only toward the core nodes that packets are sent to, when first asked.
//!
//! Why peeling keeps the routes. Let leaf `d` have a single neighbor `p` (every link at `d`
//! joins it to `p`, at least one each way). In the search from any other destination, `d` can
//! only be discovered through `p` and discovers nothing itself, so the routes between the other
//! nodes are the same with or without `d`; from `d` to anywhere the route is `d`'s first link to
//! `p` (the first such link in `p`'s list of incoming links, which is ordered by link index); to
//! `d`, the search from `d` reaches `p` first by `p`'s first link to `d`, then goes on exactly as
//! the search from `p` does (which would find `d` itself, to no effect), so from any node other
//! than `p` the route to `d` is its route to `p`. By induction over the peeling order: from a
//! node to one of its descendants, the route is the downward link of the child on the way; to
//! any other node, the upward link (if the node was peeled) or the core route to the
//! destination's core ancestor (if it is in the core).

use super::NO_ROUTE;
use crate::net::link::Link;
use crate::net::packet::NodeId;
use std::cell::OnceCell;
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

/// Up to this many nodes (a 1 MiB table) routes are also kept as a nodes x nodes table.
const DENSE_NODES: usize = 512;

/// Where a node sits in the forest hanging off the core.
#[derive(Clone, Copy, Debug)]
struct Place {
    /// The neighbor it was peeled onto (NONE for a core node).
    parent: NodeId,
    /// The first link from the node to its parent, and from the parent to it.
    up: u32,
    down: u32,
    /// Hops to its core ancestor, and that ancestor (itself for a core node).
    depth: u32,
    anchor: NodeId,
}

pub struct Routes {
    /// Small networks also keep the nodes x nodes table (`dense[node * n + dst]`), filled from
    /// the forest: one load per hop instead of the walk in `next`.
    dense: Option<(usize, Box<[u32]>)>,
    place: Vec<Place>,
    /// Index of each core node among the core nodes (NONE for peeled nodes).
    core_index: Vec<u32>,
    core: Core,
}

/// The core's links and its next-hop tables, one per destination asked about.
struct Core {
    nodes: Vec<NodeId>,
    /// For each core node (by core index), its incoming core links in link-index order, as
    /// (link, core index of the link's source).
    into: Vec<Vec<(u32, u32)>>,
    /// next[c][v]: the link from core node v toward core node c (both core indices).
    next: Vec<OnceCell<Box<[u32]>>>,
}

impl Core {
    fn table(&self, c: u32) -> &[u32] {
        self.next[c as usize].get_or_init(|| {
            let n = self.nodes.len();
            let mut next = vec![NO_ROUTE; n].into_boxed_slice();
            let mut seen = vec![false; n];
            seen[c as usize] = true;
            let mut frontier = VecDeque::from([c]);
            while let Some(v) = frontier.pop_front() {
                for &(li, u) in &self.into[v as usize] {
                    if !seen[u as usize] {
                        seen[u as usize] = true;
                        next[u as usize] = li;
                        frontier.push_back(u);
                    }
                }
            }
            next
        })
    }
}

impl Routes {
    pub fn new(n: usize, links: &[Link]) -> Routes {
        // Distinct neighbors of every node, and whether a node has a self-loop.
        let mut nbrs: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        let mut looped = vec![false; n];
        for l in links {
            let (a, b) = (l.from as usize, l.to as usize);
            if a == b {
                looped[a] = true;
            } else {
                nbrs[a].push(b as NodeId);
                nbrs[b].push(a as NodeId);
            }
        }
        for v in &mut nbrs {
            v.sort_unstable();
            v.dedup();
            v.shrink_to_fit();
        }
        // The first link each way between a node and its neighbor, found when it is peeled (in
        // its own lists of links: a router's list may be as long as the network).
        let mut out_links: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut in_links: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, l) in links.iter().enumerate() {
            if l.from != l.to {
                out_links[l.from as usize].push(i as u32);
                in_links[l.to as usize].push(i as u32);
            }
        }
        let first = |list: &[u32], end: fn(&Link) -> NodeId, p: NodeId| -> u32 {
            list.iter()
                .copied()
                .find(|&li| end(&links[li as usize]) == p)
                .unwrap_or(NONE)
        };
        let mut left: Vec<u32> = nbrs.iter().map(|v| v.len() as u32).collect();
        let mut place = vec![
            Place {
                parent: NONE,
                up: NONE,
                down: NONE,
                depth: 0,
                anchor: NONE,
            };
            n
        ];
        let mut peeled = vec![false; n];
        let mut order: Vec<NodeId> = Vec::new();
        let mut stack: Vec<NodeId> = (0..n as NodeId).filter(|&v| left[v as usize] == 1).collect();
        stack.reverse();
        while let Some(u) = stack.pop() {
            let ui = u as usize;
            if peeled[ui] || left[ui] != 1 || looped[ui] {
                continue;
            }
            let p = *nbrs[ui]
                .iter()
                .find(|&&w| !peeled[w as usize])
                .expect("one neighbor left");
            let up = first(&out_links[ui], |l| l.to, p);
            let down = first(&in_links[ui], |l| l.from, p);
            if up == NONE || down == NONE {
                continue; // one-way only: leave it in the core
            }
            peeled[ui] = true;
            place[ui].parent = p;
            place[ui].up = up;
            place[ui].down = down;
            order.push(u);
            left[p as usize] -= 1;
            if left[p as usize] == 1 {
                stack.push(p);
            }
        }
        drop((out_links, in_links));
        drop(nbrs);
        // Core nodes anchor themselves; peeled nodes, parents before children (reverse order).
        let mut core_index = vec![NONE; n];
        let mut nodes = Vec::new();
        for v in 0..n {
            if !peeled[v] {
                core_index[v] = nodes.len() as u32;
                nodes.push(v as NodeId);
                place[v].anchor = v as NodeId;
            }
        }
        for &u in order.iter().rev() {
            let p = place[u as usize].parent as usize;
            place[u as usize].depth = place[p].depth + 1;
            place[u as usize].anchor = place[p].anchor;
        }
        let mut into: Vec<Vec<(u32, u32)>> = vec![Vec::new(); nodes.len()];
        for (i, l) in links.iter().enumerate() {
            let (a, b) = (core_index[l.from as usize], core_index[l.to as usize]);
            if a != NONE && b != NONE {
                into[b as usize].push((i as u32, a));
            }
        }
        let next = (0..nodes.len()).map(|_| OnceCell::new()).collect();
        let mut routes = Routes {
            dense: None,
            place,
            core_index,
            core: Core { nodes, into, next },
        };
        if n <= DENSE_NODES {
            let table = (0..n * n)
                .map(|i| routes.walk((i / n) as NodeId, (i % n) as NodeId))
                .collect();
            routes.dense = Some((n, table));
        }
        routes
    }

    /// The link from `node` toward `dst`, or NO_ROUTE (`node == dst`, or `dst` unreachable):
    /// `shortest_path_routes(..)[node][dst]`.
    #[inline]
    pub fn next(&self, node: NodeId, dst: NodeId) -> u32 {
        match &self.dense {
            Some((n, table)) => table[node as usize * n + dst as usize],
            None => self.walk(node, dst),
        }
    }

    /// `next` from the forest and the core's tables.
    #[inline]
    fn walk(&self, node: NodeId, dst: NodeId) -> u32 {
        if node == dst {
            return NO_ROUTE;
        }
        let pu = self.place[node as usize];
        let pd = &self.place[dst as usize];
        if pu.anchor == pd.anchor {
            // In the same tree: down if dst is below node, else up.
            if pd.depth > pu.depth {
                let mut pv = *pd;
                while pv.depth > pu.depth + 1 {
                    pv = self.place[pv.parent as usize];
                }
                if pv.parent == node {
                    return pv.down;
                }
            }
            return pu.up;
        }
        let to = self.core.table(self.core_index[pd.anchor as usize]);
        let from = self.core_index[pu.anchor as usize] as usize;
        if pu.parent == NONE {
            to[from]
        } else if to[from] == NO_ROUTE {
            NO_ROUTE
        } else {
            pu.up
        }
    }

    /// Nodes in the core left after peeling the trees off.
    pub fn core_len(&self) -> usize {
        self.core.nodes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::super::shortest_path_routes;
    use super::*;
    use crate::net::queue::{Discipline, Queue};
    use crate::scenario::QueueSpec;
    use proptest::prelude::*;

    fn link(from: NodeId, to: NodeId) -> Link {
        let q = Queue::new(Discipline::build(
            &QueueSpec::packets(10),
            &crate::net::queue::LinkContext {
                name: "l",
                rate_bps: 1_000_000,
                seed: 1,
            },
        ));
        Link::new(from, to, 1_000_000, crate::time::SimTime::ZERO, q, None)
    }

    fn same_as_table(n: usize, pairs: &[(NodeId, NodeId)]) {
        let links: Vec<Link> = pairs.iter().map(|&(a, b)| link(a, b)).collect();
        let table = shortest_path_routes(n, &links);
        let routes = Routes::new(n, &links);
        for (u, row) in table.iter().enumerate() {
            for (d, &hop) in row.iter().enumerate() {
                assert_eq!(
                    routes.walk(u as NodeId, d as NodeId),
                    hop,
                    "from {u} to {d} in {pairs:?}"
                );
                assert_eq!(routes.next(u as NodeId, d as NodeId), hop);
            }
        }
    }

    /// Duplex links as the builder adds them: a -> b, then b -> a.
    fn duplex(edges: &[(NodeId, NodeId)]) -> Vec<(NodeId, NodeId)> {
        edges.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect()
    }

    #[test]
    fn dumbbell_tree_and_cycles() {
        // r1 = 0, r2 = 1, hosts 2.. on either side.
        let mut e = vec![(0, 1)];
        for i in 0..4 {
            e.push((2 + 2 * i, 0));
            e.push((1, 3 + 2 * i));
        }
        same_as_table(10, &duplex(&e));
        // A cycle with tails, parallel links, a self-loop and an isolated node.
        let e = [
            (0, 1),
            (1, 2),
            (2, 3),
            (3, 0),
            (3, 4),
            (4, 5),
            (0, 1),
            (5, 5),
            (6, 4),
        ];
        same_as_table(8, &duplex(&e));
        // One-way links only.
        same_as_table(4, &[(0, 1), (1, 2), (2, 0), (3, 0)]);
    }

    proptest! {
        #[test]
        fn random_graphs_route_as_the_table(
            n in 1usize..14,
            edges in proptest::collection::vec((0u32..14, 0u32..14, any::<bool>()), 0..24),
        ) {
            let mut pairs = Vec::new();
            for (a, b, both) in edges {
                let (a, b) = (a % n as u32, b % n as u32);
                pairs.push((a, b));
                if both {
                    pairs.push((b, a));
                }
            }
            same_as_table(n, &pairs);
        }

        #[test]
        fn random_forests_on_a_small_core_route_as_the_table(
            parents in proptest::collection::vec(0usize..1000, 1..40),
            extra in proptest::collection::vec((0usize..1000, 0usize..1000), 0..4),
        ) {
            // Node i+1 hangs on an earlier node; a few extra duplex links make cycles.
            let n = parents.len() + 1;
            let mut e: Vec<(NodeId, NodeId)> = Vec::new();
            for (i, &p) in parents.iter().enumerate() {
                let (c, p) = ((i + 1) as NodeId, (p % (i + 1)) as NodeId);
                e.push(if i % 2 == 0 { (c, p) } else { (p, c) });
            }
            for (a, b) in extra {
                e.push(((a % n) as NodeId, (b % n) as NodeId));
            }
            same_as_table(n, &duplex(&e));
        }
    }
}
