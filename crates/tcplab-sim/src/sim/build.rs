//! Building the world from a validated scenario: links and routes from the topology, the
//! endpoints of every foreground flow and background connection, the first events.

use super::{Flow, Simulation};
use crate::engine::{Event, EventQueue};
use crate::net::topology::{self, Topology};
use crate::rng::Stream;
use crate::scenario::FlowSpec;
use crate::scenario::Scenario;
use crate::tcp::{self, endpoint::AnySender};
use crate::time::SimTime;
use crate::trace::pcap::frame::FlowWire;
use crate::trace::{Captures, TraceRecorder};
use crate::traffic::{Background, Role};

impl Simulation {
    pub fn new(sc: &Scenario) -> Self {
        let topo = Topology::build(sc).unwrap_or_else(|e| panic!("scenario not validated: {e}"));
        let trace_limit = sc.trace.max_points as usize;
        let cwnd_trace = sc.trace.cwnd.then_some(trace_limit);
        let mut flows: Vec<Flow> = sc
            .flow_specs()
            .enumerate()
            .map(|(i, f)| {
                let (src, dst) = topo.endpoints[i];
                let (mut sender, receiver) = tcp::endpoints_for(f, i as u32, src, dst, cwnd_trace);
                if let AnySender::Native(s) = &mut sender {
                    // The congestion control's own stream (BBR's ProbeBW phase; no draws otherwise).
                    s.seed_cc(Stream::new(sc.seed, &format!("flow:{i}:cc")));
                }
                let start = topology::draw(f.start, &mut Stream::new(sc.seed, &format!("flow:{i}:start")));
                Flow {
                    variant: f.tcp.variant,
                    ack: f.ack,
                    mss: f.mss,
                    start,
                    src,
                    dst,
                    sender,
                    receiver,
                    sender_armed: None,
                    receiver_armed: None,
                    finite: f.bytes.is_some(),
                    completed: None,
                    role: Role::Foreground,
                    external: false,
                }
            })
            .collect();
        let n_foreground = flows.len();
        let setup = Background::setup(sc, &topo.traffic, n_foreground as u32);
        // The captures' per-flow wire settings, made only when something is captured (one per
        // flow: 100,000 of them otherwise made and dropped at set-up).
        let capturing = !sc.trace.pcap.is_empty();
        let mut wires: Vec<FlowWire> = if capturing {
            sc.flow_specs().map(flow_wire).collect()
        } else {
            Vec::new()
        };
        for c in setup.connections {
            if capturing {
                wires.push(flow_wire(&c.spec));
            }
            let id = flows.len() as u32;
            let (mut sender, receiver) = tcp::endpoints_for(&c.spec, id, c.src, c.dst, None);
            if let AnySender::Native(s) = &mut sender {
                s.seed_cc(Stream::new(sc.seed, &format!("flow:{id}:cc")));
            }
            if let (AnySender::Native(s), true) = (&mut sender, c.waits_for_writes) {
                s.core.cfg.total_bytes = Some(0);
            }
            flows.push(Flow {
                variant: c.spec.tcp.variant,
                ack: c.spec.ack,
                mss: c.spec.mss,
                start: c.start,
                src: c.src,
                dst: c.dst,
                sender,
                receiver,
                sender_armed: None,
                receiver_armed: None,
                finite: false,
                completed: None,
                role: c.role,
                external: false,
            });
        }
        let mut trace = TraceRecorder::new(&sc.trace, topo.link_names.iter());
        if capturing {
            trace.captures = Captures::new(
                &sc.trace.pcap,
                &topo.links,
                &topo.link_names,
                &topo.node_names,
                wires,
            );
        }
        let mut topo = topo;
        for (i, l) in topo.links.iter_mut().enumerate() {
            // A traced link records its queue at every TxDone: keep them all as events.
            l.shortcut &= !trace.traces_link(i as u32);
        }
        let all_finite = sc.flow_specs().all(|f| f.bytes.is_some());
        let finite_flows_left = sc.flow_specs().filter(|f| f.bytes.is_some()).count();
        let mut sim = Simulation {
            q: EventQueue::new(),
            links: topo.links,
            link_names: topo.link_names,
            flight: crate::net::link::InFlight::new(),
            segs: crate::net::packet::Segments::new(),
            routes: topo.routes,
            flows,
            flow_snapshots: Vec::new(),
            link_snapshots: Vec::new(),
            out: Vec::with_capacity(64),
            end: sc.duration.0,
            warmup: sc.warmup.0,
            seed: sc.seed,
            trace,
            finite_flows_left,
            all_finite,
            bg: setup.background,
            n_foreground,
            arrivals: Vec::new(),
            emulating: false,
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
}

/// What a flow's frames in a pcap need: the timestamps option, the window field.
fn flow_wire(f: &FlowSpec) -> FlowWire {
    FlowWire {
        timestamps: f.timestamps,
        window: f.rwnd.0.min(u16::MAX as u64) as u16,
        mss: f.mss.min(u16::MAX as u32) as u16,
        accecn: f.ecn_mode() == crate::scenario::EcnSetting::Accecn,
    }
}
