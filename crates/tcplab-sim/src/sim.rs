//! A simulation: the network and its flows, driven by the event queue. Endpoints are sans-IO;
//! this is where their outputs are put on links and their deadlines become timer events.

use crate::engine::{Event, EventQueue, Side};
use crate::net::link::{Link, Offer};
use crate::net::packet::{NodeId, Packet, PacketKind};
use crate::net::topology::Topology;
use crate::scenario::{AckKind, Scenario, Variant};
use crate::stats::{
    FlowCounters, FlowResult, LinkCounters, LinkResult, LinkTotals, PacketEvent, RunResult, Traces,
};
use crate::tcp::{self, receiver::Receiver, sender::Sender};
use crate::time::SimTime;
use crate::traffic::{Background, Role};

#[path = "traffic/drive.rs"]
mod drive;

struct Flow {
    variant: Variant,
    ack: AckKind,
    mss: u32,
    start: SimTime,
    src: NodeId,
    dst: NodeId,
    sender: Sender,
    receiver: Receiver,
    /// Earliest timer event known to be pending, per side (lazy cancellation).
    sender_armed: Option<SimTime>,
    receiver_armed: Option<SimTime>,
    snapshot: FlowCounters,
    completed: Option<SimTime>,
    role: Role,
    /// profile = "ns2": ns-2's agent and sink replace `sender` and `receiver`.
    ns2: Option<Box<(tcp::ns2::Ns2Sender, tcp::ns2::Ns2Sink)>>,
}

impl Flow {
    fn counters(&self) -> FlowCounters {
        if let Some(n) = &self.ns2 {
            return FlowCounters {
                segments_sent: n.0.segments_sent,
                segments_retransmitted: n.0.retransmits,
                timeouts: n.0.timeouts,
                bytes_delivered: n.1.packets_delivered() * self.mss as u64,
                acks_sent: n.1.acks_sent,
                ..Default::default()
            };
        }
        FlowCounters {
            bytes_delivered: self.receiver.bytes_delivered,
            acks_sent: self.receiver.acks_sent,
            ..self.sender.core.counters
        }
    }
}

pub struct Simulation {
    q: EventQueue,
    links: Vec<Link>,
    routes: Vec<Vec<u32>>,
    flows: Vec<Flow>,
    link_snapshots: Vec<LinkCounters>,
    out: Vec<Packet>,
    end: SimTime,
    warmup: SimTime,
    seed: u64,
    queue_trace: Option<Vec<(f64, u32, u64)>>,
    /// Per link: is its packet trace on?
    packet_traced: Vec<bool>,
    packet_trace: Vec<PacketEvent>,
    trace_limit: usize,
    finite_flows_left: usize,
    all_finite: bool,
    /// Background traffic; its TCP connections are `flows[n_foreground..]`.
    bg: Background,
    n_foreground: usize,
}

impl Simulation {
    pub fn new(sc: &Scenario) -> Self {
        let topo = Topology::build(sc).unwrap_or_else(|e| panic!("scenario not validated: {e}"));
        let trace_limit = sc.trace.max_points as usize;
        let mut flows: Vec<Flow> = sc
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let (src, dst) = topo.endpoints[i];
                let mut sender = tcp::sender_for(f, i as u32, src, dst);
                if sc.trace.cwnd {
                    sender.enable_trace(trace_limit);
                }
                let mut ns2 = tcp::ns2_endpoints_for(f, i as u32, src, dst).map(Box::new);
                if let (Some(n), true) = (&mut ns2, sc.trace.cwnd) {
                    n.0.trace = Some(Vec::new());
                    n.0.vars = Some(Vec::new());
                    n.0.trace_limit = trace_limit;
                }
                Flow {
                    variant: f.tcp,
                    ack: f.ack,
                    mss: f.mss,
                    start: crate::net::topology::draw(
                        f.start,
                        &mut crate::rng::Stream::new(sc.seed, &format!("flow:{i}:start")),
                    ),
                    src,
                    dst,
                    sender,
                    receiver: tcp::receiver_for(f, i as u32, dst, src),
                    sender_armed: None,
                    receiver_armed: None,
                    snapshot: FlowCounters::default(),
                    completed: None,
                    role: Role::Foreground,
                    ns2,
                }
            })
            .collect();
        let n_foreground = flows.len();
        let setup = Background::setup(sc, &topo.traffic, n_foreground as u32);
        for c in setup.connections {
            let id = flows.len() as u32;
            let mut sender = tcp::sender_for(&c.spec, id, c.src, c.dst);
            if c.waits_for_writes {
                sender.core.cfg.total_bytes = Some(0);
            }
            flows.push(Flow {
                variant: c.spec.tcp,
                ack: c.spec.ack,
                mss: c.spec.mss,
                start: c.start,
                src: c.src,
                dst: c.dst,
                sender,
                receiver: tcp::receiver_for(&c.spec, id, c.dst, c.src),
                sender_armed: None,
                receiver_armed: None,
                snapshot: FlowCounters::default(),
                completed: None,
                role: c.role,
                ns2: None,
            });
        }
        let n_links = topo.links.len();
        let packet_traced = topo
            .links
            .iter()
            .map(|l| sc.trace.links.contains(&l.name))
            .collect();
        let all_finite = sc.flows.iter().all(|f| f.bytes.is_some());
        let finite_flows_left = sc.flows.iter().filter(|f| f.bytes.is_some()).count();
        let mut sim = Simulation {
            q: EventQueue::new(),
            links: topo.links,
            routes: topo.routes,
            flows,
            link_snapshots: vec![LinkCounters::default(); n_links],
            out: Vec::with_capacity(64),
            end: sc.duration.0,
            warmup: sc.warmup.0,
            seed: sc.seed,
            queue_trace: sc.trace.queue.then(Vec::new),
            packet_traced,
            packet_trace: Vec::new(),
            trace_limit,
            finite_flows_left,
            all_finite,
            bg: setup.background,
            n_foreground,
        };
        for (i, f) in sim.flows.iter().enumerate() {
            sim.q.schedule(f.start, Event::FlowStart { flow: i as u32 });
        }
        for &(at, source) in &setup.timers {
            sim.q.schedule(at, Event::Traffic { source });
        }
        if sim.warmup > SimTime::ZERO {
            sim.q.schedule(sim.warmup, Event::Warmup);
        }
        sim
    }

    pub fn now(&self) -> SimTime {
        self.q.now()
    }

    /// Runs to the scenario's end (or until every finite transfer has completed).
    pub fn run(mut self) -> RunResult {
        let end = self.end;
        while let Some((now, ev)) = self.q.pop_until(end) {
            self.dispatch(now, ev);
            if self.all_finite && self.finite_flows_left == 0 {
                break;
            }
        }
        let stop = if self.all_finite && self.finite_flows_left == 0 {
            self.q.now()
        } else {
            end
        };
        self.q.advance_to(stop);
        self.results(stop)
    }

    fn dispatch(&mut self, now: SimTime, ev: Event) {
        match ev {
            Event::TxDone { link } => {
                let (arrive, next) = self.links[link as usize].tx_done(now);
                self.q.schedule(arrive, Event::Deliver { link });
                if self.packet_traced[link as usize] {
                    // Packets the queue dropped at dequeue (CoDel) before the next one started.
                    for i in 0..self.links[link as usize].dropped().len() {
                        let (p, _) = self.links[link as usize].dropped()[i];
                        self.trace_packet(now, link, "d", &p);
                    }
                }
                if let Some(t) = next {
                    self.q.schedule(now + t, Event::TxDone { link });
                    if self.packet_traced[link as usize] {
                        let p = *self.links[link as usize].on_wire().expect("just started");
                        self.trace_packet(now, link, "-", &p);
                    }
                }
                self.trace_queue(now, link);
            }
            Event::Deliver { link } => {
                let l = &mut self.links[link as usize];
                let node = l.to;
                let pkt = l.deliver();
                if self.packet_traced[link as usize] {
                    self.trace_packet(now, link, "r", &pkt);
                }
                if pkt.dst == node {
                    self.to_endpoint(now, pkt);
                } else {
                    self.forward(now, node, pkt);
                }
            }
            Event::Timer { flow, side } => {
                let f = &mut self.flows[flow as usize];
                let mut out = std::mem::take(&mut self.out);
                let node = match side {
                    Side::Sender => {
                        if f.sender_armed == Some(now) {
                            f.sender_armed = None;
                        }
                        match &mut f.ns2 {
                            Some(n) => n.0.on_timer(now, &mut out),
                            None => f.sender.on_timer(now, &mut out),
                        }
                        f.src
                    }
                    Side::Receiver => {
                        if f.receiver_armed == Some(now) {
                            f.receiver_armed = None;
                        }
                        if f.ns2.is_none() {
                            f.receiver.on_timer(now, &mut out);
                        }
                        f.dst
                    }
                };
                self.emit(now, node, &mut out);
                self.out = out;
                self.arm(flow, side);
            }
            Event::FlowStart { flow } => {
                let mut out = std::mem::take(&mut self.out);
                let f = &mut self.flows[flow as usize];
                match &mut f.ns2 {
                    Some(n) => n.0.start(now, &mut out),
                    None => f.sender.start(now, &mut out),
                }
                let node = f.src;
                self.emit(now, node, &mut out);
                self.out = out;
                self.arm(flow, Side::Sender);
            }
            Event::Warmup => self.snapshot(now),
            Event::Traffic { source } => self.traffic_timer(now, source),
        }
    }

    fn to_endpoint(&mut self, now: SimTime, pkt: Packet) {
        let flow = pkt.flow;
        let f = &mut self.flows[flow as usize];
        let mut out = std::mem::take(&mut self.out);
        match pkt.kind {
            PacketKind::Data => {
                match &mut f.ns2 {
                    Some(n) => n.1.on_segment(now, &pkt, &mut out),
                    None => f.receiver.on_segment(now, &pkt, &mut out),
                }
                let node = f.dst;
                self.emit(now, node, &mut out);
                self.out = out;
                self.arm(flow, Side::Receiver);
                self.traffic_after_data(now, flow);
            }
            PacketKind::Ack if f.ns2.is_some() => {
                if let Some(n) = &mut f.ns2 {
                    n.0.on_ack(now, &pkt, &mut out);
                }
                let node = f.src;
                self.emit(now, node, &mut out);
                self.out = out;
                self.arm(flow, Side::Sender);
            }
            PacketKind::Ack => {
                f.sender.on_ack(now, &pkt, &mut out);
                if f.completed.is_none()
                    && f.role == Role::Foreground
                    && f.sender.core.cfg.total_bytes.is_some()
                    && f.sender.core.finished()
                {
                    f.completed = Some(now);
                    self.finite_flows_left -= 1;
                }
                let node = f.src;
                self.emit(now, node, &mut out);
                self.out = out;
                self.arm(flow, Side::Sender);
                self.traffic_after_ack(now, flow);
            }
            PacketKind::Udp => {
                self.out = out;
                self.udp_delivered(&pkt);
            }
        }
    }

    /// Puts an endpoint's packets on the first link toward their destinations.
    fn emit(&mut self, now: SimTime, node: NodeId, out: &mut Vec<Packet>) {
        for pkt in out.drain(..) {
            self.forward(now, node, pkt);
        }
    }

    fn forward(&mut self, now: SimTime, node: NodeId, pkt: Packet) {
        let link = self.routes[node as usize][pkt.dst as usize];
        debug_assert!(
            link != crate::net::topology::NO_ROUTE,
            "no route from {node} to {}",
            pkt.dst
        );
        let offer = self.links[link as usize].offer(now, pkt);
        match offer {
            Offer::Transmit(t) => self.q.schedule(now + t, Event::TxDone { link }),
            Offer::Queued | Offer::Dropped(_) => self.trace_queue(now, link),
            Offer::Lost => {}
        }
        if self.packet_traced[link as usize] {
            match offer {
                Offer::Lost => self.trace_packet(now, link, "l", &pkt),
                Offer::Queued => self.trace_packet(now, link, "+", &pkt),
                Offer::Transmit(_) => {
                    self.trace_packet(now, link, "+", &pkt);
                    self.trace_packet(now, link, "-", &pkt);
                }
                Offer::Dropped(d) => {
                    if d != pkt {
                        self.trace_packet(now, link, "+", &pkt);
                    }
                    self.trace_packet(now, link, "d", &d);
                }
            }
        }
    }

    /// Schedules a timer event if the endpoint's deadline is earlier than any pending one.
    fn arm(&mut self, flow: u32, side: Side) {
        let f = &mut self.flows[flow as usize];
        let (deadline, armed) = match side {
            Side::Sender => (
                match &f.ns2 {
                    Some(n) => n.0.deadline(),
                    None => f.sender.deadline(),
                },
                &mut f.sender_armed,
            ),
            Side::Receiver if f.ns2.is_some() => (None, &mut f.receiver_armed),
            Side::Receiver => (f.receiver.deadline(), &mut f.receiver_armed),
        };
        if let Some(d) = deadline {
            if armed.is_none_or(|a| d < a) {
                *armed = Some(d);
                self.q.schedule(d, Event::Timer { flow, side });
            }
        }
    }

    fn trace_queue(&mut self, now: SimTime, link: u32) {
        if let Some(t) = &mut self.queue_trace {
            if t.len() < self.trace_limit {
                t.push((now.secs_f64(), link, self.links[link as usize].queue.len() as u64));
            }
        }
    }

    fn trace_packet(&mut self, now: SimTime, link: u32, ev: &'static str, p: &Packet) {
        if self.packet_trace.len() < self.trace_limit {
            let kind = match p.kind {
                PacketKind::Data => "data",
                PacketKind::Ack => "ack",
                PacketKind::Udp => "udp",
            };
            self.packet_trace.push(PacketEvent(
                now.secs_f64(),
                link,
                ev,
                p.flow,
                kind,
                p.seq,
                p.ack,
                p.size,
                p.retransmit,
            ));
        }
    }

    fn integrate_all(&mut self, now: SimTime) {
        for f in &mut self.flows {
            if f.sender.core.started {
                f.sender.integrate(now);
            }
        }
        for l in &mut self.links {
            l.integrate(now);
        }
    }

    fn snapshot(&mut self, now: SimTime) {
        self.integrate_all(now);
        for f in &mut self.flows {
            f.snapshot = f.counters();
        }
        for (s, l) in self.link_snapshots.iter_mut().zip(&self.links) {
            *s = l.counters;
        }
        self.bg.snapshot();
    }

    fn results(mut self, stop: SimTime) -> RunResult {
        self.integrate_all(stop);
        let window_ns = stop.ns().saturating_sub(self.warmup.ns()).max(1);
        let mut traces = Traces::default();
        let flows = self.flows[..self.n_foreground]
            .iter_mut()
            .map(|f| {
                let c = f.counters().since(&f.snapshot);
                let from = f.start.max(self.warmup);
                let active_ns = stop.ns().saturating_sub(from.ns()).max(1);
                let segments_acked = c.bytes_acked as f64 / f.mss as f64;
                if let Some(n) = &mut f.ns2 {
                    let id = f.sender.core.flow;
                    let mss = f.mss as f64;
                    if let Some(t) = n.0.trace.take() {
                        traces.truncated |= t.len() >= n.0.trace_limit;
                        traces.cwnd.extend(t.into_iter().map(|(at, c, s)| {
                            (
                                at.secs_f64(),
                                id,
                                (c * mss).round() as u64,
                                s.max(0) as u64 * mss as u64,
                            )
                        }));
                    }
                    if let Some(v) = n.0.vars.take() {
                        traces.truncated |= v.len() >= n.0.trace_limit;
                        let names = tcp::ns2::agent::VAR_NAMES;
                        let mut last = [f64::NAN; 10];
                        for (at, vals) in v {
                            for (k, x) in vals.iter().enumerate() {
                                if last[k].to_bits() != x.to_bits() {
                                    traces.ns2_vars.push((at.secs_f64(), id, names[k], *x));
                                }
                            }
                            last = vals;
                        }
                    }
                }
                if let Some(t) = f.sender.core.trace.take() {
                    traces.truncated |= t.len() >= f.sender.core.trace_limit;
                    let id = f.sender.core.flow;
                    traces
                        .cwnd
                        .extend(t.into_iter().map(|(at, c, s)| (at.secs_f64(), id, c, s)));
                }
                FlowResult {
                    flow: f.sender.core.flow,
                    tcp: f.variant.name().into(),
                    ack: f.ack.name().into(),
                    mss_bytes: f.mss,
                    bytes_delivered: c.bytes_delivered,
                    goodput_bps: c.bytes_delivered as f64 * 8.0 / (active_ns as f64 * 1e-9),
                    mean_rtt_s: if c.rtt_samples > 0 {
                        c.rtt_sum_ns as f64 / c.rtt_samples as f64 * 1e-9
                    } else {
                        f64::NAN
                    },
                    mean_cwnd_bytes: c.cwnd_area as f64 / active_ns as f64,
                    segments_sent: c.segments_sent,
                    segments_retransmitted: c.segments_retransmitted,
                    segments_acked,
                    acks_sent: c.acks_sent,
                    ca_events: c.ca_events,
                    non_ca_events: c.non_ca_events,
                    timeouts: c.timeouts,
                    fast_retransmits: c.fast_retransmits,
                    other_losses: c.other_losses,
                    loss_events: c.loss_events,
                    p: if segments_acked > 0.0 {
                        c.ca_events as f64 / segments_acked
                    } else {
                        0.0
                    },
                    loss_event_rate: if c.segments_sent > 0 {
                        c.loss_events as f64 / c.segments_sent as f64
                    } else {
                        0.0
                    },
                    completion_time_s: f.completed.map(|t| t.secs_f64()),
                }
            })
            .collect();
        let links = self
            .links
            .iter()
            .zip(&self.link_snapshots)
            .map(|(l, s)| {
                let c = l.counters.since(s);
                let drops = c.drops_queue + c.drops_loss;
                LinkResult {
                    link: l.name.clone(),
                    rate_bps: l.rate_bps,
                    delay_s: l.delay.secs_f64(),
                    packets_in: c.arrivals,
                    packets_sent: c.packets_sent,
                    bytes_sent: c.bytes_sent,
                    drops_queue: c.drops_queue,
                    drops_loss: c.drops_loss,
                    drops_overflow: c.drops_overflow,
                    drops_early: c.drops_early,
                    drops_sojourn: c.drops_sojourn,
                    drop_rate: if c.arrivals > 0 {
                        drops as f64 / c.arrivals as f64
                    } else {
                        0.0
                    },
                    mean_queue_packets: c.queue_area as f64 / window_ns as f64,
                    mean_queue_bytes: c.queue_bytes_area as f64 / window_ns as f64,
                    mean_queue_delay_s: if c.packets_sent > 0 {
                        c.queue_area as f64 / c.packets_sent as f64 * 1e-9
                    } else {
                        0.0
                    },
                    utilization: c.busy_ns as f64 / window_ns as f64,
                }
            })
            .collect();
        let totals = self
            .links
            .iter()
            .map(|l| LinkTotals {
                link: l.name.clone(),
                arrivals: l.counters.arrivals,
                drops_queue: l.counters.drops_queue,
                drops_loss: l.counters.drops_loss,
                delivered: l.counters.delivered,
                in_link: l.in_link(),
            })
            .collect();
        let traffic = self.bg.results(
            |i| {
                self.flows[i as usize]
                    .counters()
                    .since(&self.flows[i as usize].snapshot)
            },
            window_ns,
        );
        traces.truncated |= self.packet_trace.len() >= self.trace_limit;
        traces.packets = std::mem::take(&mut self.packet_trace);
        if let Some(q) = self.queue_trace.take() {
            traces.truncated |= q.len() >= self.trace_limit;
            traces.queue = q;
        }
        RunResult {
            seed: self.seed,
            duration_s: stop.secs_f64(),
            warmup_s: self.warmup.secs_f64(),
            events: self.q.processed(),
            flows,
            traffic,
            links,
            totals,
            traces,
        }
    }
}
