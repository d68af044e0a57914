//! What generates work besides the foreground flows: background traffic groups (`[[traffic]]`)
//! of FTP bulk transfers, HTTP sessions, CBR and on-off UDP. Sources are sans-IO like the TCP
//! endpoints: they take `(now, what happened)` and say what to send or write and when to wake
//! up; `sim/traffic.rs` connects them to the event queue.
//!
//! Every random draw of source j of group `name` comes from its own stream,
//! `Stream::new(seed, "traffic:<name>:<j>")`: first its start time, then its own draws
//! (response sizes and think times, on and off periods). Its round trip, when drawn, comes from
//! `"traffic:<name>:<j>:rtt"` (the topology draws it).

pub mod dist;
mod http;
mod udp;

pub use http::HttpSession;
pub use udp::{UdpShape, UdpSource};

use crate::net::packet::NodeId;
use crate::rng::Stream;
use crate::scenario::{FlowSpec, Scenario, TrafficKind, Window};
use crate::stats::{FlowCounters, TrafficResult};
use crate::time::{Duration, SimTime};

/// What a TCP connection of the simulation is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A [[flows]] entry, reported one by one.
    Foreground,
    /// A background FTP transfer of group `group`.
    Ftp { group: u32 },
    /// The client-to-server connection that carries source `source`'s requests.
    HttpRequest { source: u32 },
    /// The server-to-client connection that carries source `source`'s responses.
    HttpResponse { source: u32 },
}

/// A TCP connection the simulation creates for background traffic.
pub struct TcpConn {
    pub spec: FlowSpec,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: SimTime,
    pub role: Role,
    /// Its sender waits for application writes (total_bytes = Some(0)).
    pub waits_for_writes: bool,
}

/// Counters of one source, cumulative since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SourceCounters {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    pub responses: u64,
    pub response_bytes: u64,
    pub response_time_ns: u128,
}

impl SourceCounters {
    fn since(&self, e: &SourceCounters) -> SourceCounters {
        SourceCounters {
            packets_sent: self.packets_sent - e.packets_sent,
            bytes_sent: self.bytes_sent - e.bytes_sent,
            packets_delivered: self.packets_delivered - e.packets_delivered,
            bytes_delivered: self.bytes_delivered - e.bytes_delivered,
            responses: self.responses - e.responses,
            response_bytes: self.response_bytes - e.response_bytes,
            response_time_ns: self.response_time_ns - e.response_time_ns,
        }
    }
}

/// A source that wakes up on `Event::Traffic { source }`.
#[derive(Clone, Debug)]
pub enum Source {
    Http(HttpSession),
    Udp(UdpSource),
}

impl Source {
    fn counters(&self) -> (&SourceCounters, &SourceCounters) {
        match self {
            Source::Http(h) => (&h.counters, &h.snapshot),
            Source::Udp(u) => (&u.counters, &u.snapshot),
        }
    }
}

/// One [[traffic]] group.
#[derive(Clone, Debug)]
pub struct Group {
    pub name: String,
    pub kind: TrafficKind,
    pub count: u32,
    /// TCP connections whose delivered data counts for the group (FTP; HTTP responses).
    pub flows: Vec<u32>,
    /// Indices in `Background::sources` (HTTP sessions, UDP sources).
    pub sources: Vec<u32>,
}

#[derive(Clone, Debug, Default)]
pub struct Background {
    pub groups: Vec<Group>,
    pub sources: Vec<Source>,
}

/// What the simulation must set up for the background traffic.
pub struct Setup {
    pub background: Background,
    pub connections: Vec<TcpConn>,
    /// (time, source): first wake-up of each source.
    pub timers: Vec<(SimTime, u32)>,
}

impl Background {
    /// Builds every group's sources at the nodes the topology placed them; TCP connections get
    /// flow ids from `first_flow` on.
    pub fn setup(sc: &Scenario, placement: &[Vec<(NodeId, NodeId)>], first_flow: u32) -> Setup {
        let mut bg = Background::default();
        let mut conns = Vec::new();
        let mut timers = Vec::new();
        for (g, (t, nodes)) in sc.traffic.iter().zip(placement).enumerate() {
            let name = t.name(g);
            let mut group = Group {
                name: name.clone(),
                kind: t.kind,
                count: t.count,
                flows: Vec::new(),
                sources: Vec::new(),
            };
            let start_window = t.start.unwrap_or(Window::At(Duration(SimTime::ZERO)));
            for (j, &(src, dst)) in nodes.iter().enumerate() {
                let mut rng = Stream::new(sc.seed, &format!("traffic:{name}:{j}"));
                let start = crate::net::topology::draw(start_window, &mut rng);
                let spec = t.tcp.clone().unwrap_or_else(default_flow);
                let next_flow = first_flow + conns.len() as u32;
                let source = bg.sources.len() as u32;
                match t.kind {
                    TrafficKind::Ftp => {
                        group.flows.push(next_flow);
                        conns.push(TcpConn {
                            spec,
                            src,
                            dst,
                            start,
                            role: Role::Ftp { group: g as u32 },
                            waits_for_writes: false,
                        });
                    }
                    TrafficKind::Http => {
                        // Response: server (src) -> client (dst); request: client -> server.
                        let (resp, req) = (next_flow, next_flow + 1);
                        group.flows.push(resp);
                        conns.push(TcpConn {
                            spec: spec.clone(),
                            src,
                            dst,
                            start,
                            role: Role::HttpResponse { source },
                            waits_for_writes: true,
                        });
                        conns.push(TcpConn {
                            spec,
                            src: dst,
                            dst: src,
                            start,
                            role: Role::HttpRequest { source },
                            waits_for_writes: true,
                        });
                        bg.sources
                            .push(Source::Http(HttpSession::new(t, g as u32, req, resp, rng)));
                        group.sources.push(source);
                        timers.push((start, source));
                    }
                    TrafficKind::Cbr | TrafficKind::OnOff => {
                        bg.sources.push(Source::Udp(UdpSource::new(
                            t, g as u32, source, src, dst, start, rng,
                        )));
                        group.sources.push(source);
                        timers.push((start, source));
                    }
                }
            }
            bg.groups.push(group);
        }
        Setup {
            background: bg,
            connections: conns,
            timers,
        }
    }

    /// Warm-up: the measurement window starts now.
    pub fn snapshot(&mut self) {
        for s in &mut self.sources {
            match s {
                Source::Http(h) => h.snapshot = h.counters,
                Source::Udp(u) => u.snapshot = u.counters,
            }
        }
    }

    /// Aggregate results per group over the window; `flow` gives a TCP connection's counters
    /// over the window.
    pub fn results(&self, flow: impl Fn(u32) -> FlowCounters, window_ns: u64) -> Vec<TrafficResult> {
        // An empty window (the run ended before warm-up) has no rate: NaN, not a division by 0.
        let secs = window_ns as f64 * 1e-9;
        self.groups
            .iter()
            .map(|g| {
                let mut tcp = FlowCounters::default();
                for &f in &g.flows {
                    tcp.add(&flow(f));
                }
                let mut s = SourceCounters::default();
                for &i in &g.sources {
                    let (now, snap) = self.sources[i as usize].counters();
                    let c = now.since(snap);
                    s.packets_sent += c.packets_sent;
                    s.bytes_sent += c.bytes_sent;
                    s.packets_delivered += c.packets_delivered;
                    s.bytes_delivered += c.bytes_delivered;
                    s.responses += c.responses;
                    s.response_bytes += c.response_bytes;
                    s.response_time_ns += c.response_time_ns;
                }
                let udp = !g.kind.is_tcp();
                let bytes = if udp {
                    s.bytes_delivered
                } else {
                    tcp.bytes_delivered
                };
                TrafficResult {
                    name: g.name.clone(),
                    kind: g.kind.name().into(),
                    sources: g.count,
                    bytes_delivered: bytes,
                    goodput_bps: if window_ns > 0 {
                        bytes as f64 * 8.0 / secs
                    } else {
                        f64::NAN
                    },
                    segments_sent: tcp.segments_sent,
                    segments_retransmitted: tcp.segments_retransmitted,
                    timeouts: tcp.timeouts,
                    loss_events: tcp.episodes.loss_events,
                    loss_event_rate: if tcp.segments_sent > 0 {
                        tcp.episodes.loss_events as f64 / tcp.segments_sent as f64
                    } else {
                        0.0
                    },
                    mean_rtt_s: if tcp.rtt_samples > 0 {
                        tcp.rtt_sum_ns as f64 / tcp.rtt_samples as f64 * 1e-9
                    } else {
                        f64::NAN
                    },
                    packets_sent: s.packets_sent,
                    packets_delivered: s.packets_delivered,
                    responses: s.responses,
                    mean_response_bytes: if s.responses > 0 {
                        s.response_bytes as f64 / s.responses as f64
                    } else {
                        f64::NAN
                    },
                    mean_response_time_s: if s.responses > 0 {
                        s.response_time_ns as f64 / s.responses as f64 * 1e-9
                    } else {
                        f64::NAN
                    },
                }
            })
            .collect()
    }
}

/// The TCP settings of background sources without a `tcp` table: the [[flows]] defaults.
fn default_flow() -> FlowSpec {
    // Every FlowSpec field has a default, so an empty table is a complete spec.
    serde_json::from_str("{}").unwrap_or_else(|_| unreachable!("FlowSpec fields all have defaults"))
}
