//! Dumbbells (one bottleneck, or several in series: Parvez et al. 2010 Sec. IV-E) and the
//! parking lot (Mathis et al. 1997 Sec. 6 after Floyd 1991). Every flow and every background
//! source gets its own access links, so each has its own round-trip time.

use super::{draw, named_placement, Builder};
use crate::error::Error;
use crate::net::packet::NodeId;
use crate::rng::Stream;
use crate::scenario::{invalid, DumbbellSpec, LinkSpec, ParkingLotSpec, QueueSpec, Scenario, TrafficSpec};
use crate::time::{Duration, Rate, SimTime};

type Placement = (Vec<(NodeId, NodeId)>, Vec<Vec<(NodeId, NodeId)>>);

struct Access<'a> {
    rate: Rate,
    queue: &'a QueueSpec,
}

impl Access<'_> {
    /// Sender `s` -name.access-> `from`; `to` -name.egress-> receiver `d`.
    fn attach(
        &self,
        b: &mut Builder,
        name: &str,
        from: NodeId,
        to: NodeId,
        delays: (SimTime, SimTime),
    ) -> (NodeId, NodeId) {
        let s = b.node(format!("{name}.src"));
        let d = b.node(format!("{name}.dst"));
        let link = |delay: SimTime| LinkSpec::plain(self.rate, Duration(delay), self.queue.clone());
        b.own_duplex(&format!("{name}.access"), s, from, &link(delays.0));
        b.own_duplex(&format!("{name}.egress"), to, d, &link(delays.1));
        (s, d)
    }
}

/// Where a background group's sources attach: router indices (a, b) from its `bottleneck`.
fn span(t: &TrafficSpec, g: usize, hops: usize) -> Result<(usize, usize), Error> {
    match t.bottleneck {
        None => Ok((0, hops)),
        Some(k) if (k as usize) < hops => Ok((k as usize, k as usize + 1)),
        Some(k) => Err(invalid(
            format!("traffic[{g}].bottleneck"),
            format!("{k} (expected 0..={}: there are {hops} bottlenecks)", hops - 1),
        )),
    }
}

/// Places each background group: at named nodes, or on its own access links across routers
/// a..b with the round trip its `rtt` asks for (`rtt_access` turns a round trip into the
/// sender-side access delay, or says why it cannot).
fn background(
    b: &mut Builder,
    sc: &Scenario,
    acc: &Access<'_>,
    hops: usize,
    routers: &dyn Fn(usize, usize) -> (NodeId, NodeId),
    rtt_access: &dyn Fn(SimTime, usize, usize) -> Result<SimTime, String>,
    default_delays: (SimTime, SimTime),
) -> Result<Vec<Vec<(NodeId, NodeId)>>, Error> {
    let mut traffic = Vec::new();
    for (g, t) in sc.traffic.iter().enumerate() {
        if let Some(p) = named_placement(b, t, g)? {
            traffic.push(p);
            continue;
        }
        let (ra, rb) = span(t, g, hops)?;
        let (from, to) = routers(ra, rb);
        let name = t.name(g);
        let mut group = Vec::new();
        for j in 0..t.count as usize {
            let delays = match t.rtt {
                None => default_delays,
                Some(w) => {
                    let mut rng = Stream::new(sc.seed, &format!("traffic:{name}:{j}:rtt"));
                    let rtt = draw(w, &mut rng);
                    let a = rtt_access(rtt, ra, rb).map_err(|m| invalid(format!("traffic[{g}].rtt"), m))?;
                    (a, default_delays.1)
                }
            };
            let (s, d) = acc.attach(b, &format!("{name}.{j}"), from, to, delays);
            group.push(if t.reverse { (d, s) } else { (s, d) });
        }
        traffic.push(group);
    }
    Ok(traffic)
}

/// Routers r1..r{h+1} joined by "bottleneck", "bottleneck2", ...; flow i from s{i} (link
/// access{i}) to d{i} (link egress{i}) across all of them.
pub(super) fn dumbbell(b: &mut Builder, d: &DumbbellSpec, sc: &Scenario) -> Result<Placement, Error> {
    let h = d.hops();
    let routers: Vec<NodeId> = (1..=h + 1).map(|i| b.node(format!("r{i}"))).collect();
    for (k, l) in std::iter::once(&d.bottleneck).chain(&d.series).enumerate() {
        let name = if k == 0 {
            "bottleneck".to_string()
        } else {
            format!("bottleneck{}", k + 1)
        };
        b.duplex(&name, routers[k], routers[k + 1], l);
    }
    let egress = d.egress();
    let mut endpoints = Vec::new();
    for i in 0..sc.flow_count() {
        let access = match (&d.rtts, &d.access_delays) {
            (Some(r), _) => d
                .access_for_rtt(r[i].0, 0, h)
                .map_err(|m| invalid(format!("network.dumbbell.rtts[{i}]"), m))?,
            (None, Some(a)) => a[i].0,
            (None, None) => d.access_delay.0,
        };
        let s = b.node(format!("s{i}"));
        let r = b.node(format!("d{i}"));
        let link = |delay: SimTime| LinkSpec::plain(d.access_rate, Duration(delay), d.access_queue.clone());
        b.own_duplex(&format!("access{i}"), s, routers[0], &link(access));
        b.own_duplex(&format!("egress{i}"), routers[h], r, &link(egress));
        endpoints.push((s, r));
    }
    let acc = Access {
        rate: d.access_rate,
        queue: &d.access_queue,
    };
    let traffic = background(
        b,
        sc,
        &acc,
        h,
        &|a, z| (routers[a], routers[z]),
        &|rtt, a, z| d.access_for_rtt(rtt, a, z),
        (d.access_delay.0, egress),
    )?;
    Ok((endpoints, traffic))
}

/// Gateways g{i}a, g{i}b (i = 0..n-1); "congested{i}" from g{i}a to g{i}b, "between{i}" from
/// g{i}b to g{i+1}a. Through flows enter at g0a and leave at g{n-1}b; cross flow k on
/// congested link i = (k - through) mod n enters at g{i}a and leaves at g{i}b.
pub(super) fn parking_lot(b: &mut Builder, p: &ParkingLotSpec, sc: &Scenario) -> Result<Placement, Error> {
    let n = p.n as usize;
    let between = p.between.clone().unwrap_or_else(|| {
        LinkSpec::plain(
            p.access_rate,
            Duration(SimTime::from_ms(1)),
            QueueSpec::packets(1000),
        )
    });
    let mut ga = Vec::new();
    let mut gb = Vec::new();
    for i in 0..n {
        ga.push(b.node(format!("g{i}a")));
        gb.push(b.node(format!("g{i}b")));
    }
    for i in 0..n {
        b.duplex(&format!("congested{i}"), ga[i], gb[i], &p.congested);
        if i + 1 < n {
            b.duplex(&format!("between{i}"), gb[i], ga[i + 1], &between);
        }
    }
    let acc = Access {
        rate: p.access_rate,
        queue: &p.access_queue,
    };
    let ad = p.access_delay.0;
    let mut endpoints = Vec::new();
    for k in 0..sc.flow_count() {
        let (from, to) = if k < p.through as usize {
            (ga[0], gb[n - 1])
        } else {
            let i = (k - p.through as usize) % n;
            (ga[i], gb[i])
        };
        let (s, d) = acc.attach(b, &format!("flow{k}"), from, to, (ad, ad));
        endpoints.push((s, d));
    }
    // Delay between gateway a of link `a` and gateway b of link `z - 1`.
    let path_delay = |a: usize, z: usize| -> u64 {
        let c = p.congested.delay.0.ns() * (z - a) as u64;
        c + between.delay.0.ns() * (z - a - 1) as u64
    };
    let rtt_access = |rtt: SimTime, a: usize, z: usize| -> Result<SimTime, String> {
        let fixed = path_delay(a, z) + ad.ns();
        let half = rtt.ns() / 2;
        if half < fixed {
            return Err(format!(
                "{rtt} is below the round trip of the rest of the path (expected >= {})",
                SimTime(2 * fixed)
            ));
        }
        Ok(SimTime(half - fixed))
    };
    let traffic = background(b, sc, &acc, n, &|a, z| (ga[a], gb[z - 1]), &rtt_access, (ad, ad))?;
    Ok((endpoints, traffic))
}
