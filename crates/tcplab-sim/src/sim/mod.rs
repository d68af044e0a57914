//! A simulation: the network and its flows, driven by the event queue. One concern per file:
//! `build.rs` makes the world from a scenario, `dispatch.rs` turns events into calls on links
//! and endpoints (and endpoints' output and deadlines back into events), `tracing.rs` hands
//! link events to the trace recorder, `results.rs` derives the reported results from the instruments, and
//! `traffic.rs` drives background sources. Every TCP connection, foreground or background,
//! native or `ns2`, is driven through the one endpoint interface (`tcp::endpoint`).

mod build;
mod dispatch;
mod external;
mod results;
mod tracing;
mod traffic;

use crate::engine::EventQueue;
use crate::net::link::Link;
use crate::net::packet::NodeId;
use crate::scenario::{AckKind, Variant};
use crate::stats::{FlowCounters, LinkCounters, RunResult};
use crate::tcp::endpoint::{AnyReceiver, AnySender, TcpReceiver, TcpSender};
use crate::tcp::segment::Segment;
use crate::time::SimTime;
use crate::trace::TraceRecorder;
use crate::traffic::{Background, Role};

/// One TCP connection: its two endpoints, where they sit, and the world's bookkeeping of them.
struct Flow {
    variant: Variant,
    ack: AckKind,
    mss: u32,
    start: SimTime,
    src: NodeId,
    dst: NodeId,
    sender: AnySender,
    receiver: AnyReceiver,
    /// Earliest timer event known to be pending, per side (lazy cancellation).
    sender_armed: Option<SimTime>,
    receiver_armed: Option<SimTime>,
    /// A foreground transfer of a given size (the run may end when all are done).
    finite: bool,
    completed: Option<SimTime>,
    role: Role,
    /// Its endpoints are outside the simulator (an emulated flow: real TCP): its packets are
    /// handed out at its ends instead of to endpoints, and it never starts by itself.
    external: bool,
}

impl Flow {
    /// The flow's counters: the sender's instruments and the receiver's deliveries.
    fn counters(&self) -> FlowCounters {
        let (segments_received, ce_received) = self.receiver.ecn_counts();
        FlowCounters {
            bytes_delivered: self.receiver.bytes_delivered(),
            acks_sent: self.receiver.acks_sent(),
            segments_received,
            ce_received,
            ..self.sender.instruments().counters
        }
    }
}

pub use external::Arrival;

pub struct Simulation {
    q: EventQueue,
    links: Vec<Link>,
    link_names: crate::net::topology::LinkNames,
    /// The packets propagating on the links (`net::link::InFlight`).
    flight: crate::net::link::InFlight,
    /// The segments of the packets alive (`net::packet::Segments`).
    segs: crate::net::packet::Segments,
    routes: crate::net::topology::Routes,
    flows: Vec<Flow>,
    /// The flows' counters when the measurement window opened (empty until then: with no
    /// warm-up it opens at 0 and nothing is subtracted; kept beside the flows rather than in
    /// them, so a run without warm-up does not hold 144 bytes of zeros per flow).
    flow_snapshots: Vec<FlowCounters>,
    /// The links' counters when the measurement window opened (empty until then).
    link_snapshots: Vec<LinkCounters>,
    /// Scratch buffer for the segments an endpoint emits (no allocation per event).
    out: Vec<Segment>,
    end: SimTime,
    warmup: SimTime,
    seed: u64,
    /// The opt-in traces of the links (the senders keep their own window traces).
    trace: TraceRecorder,
    finite_flows_left: usize,
    all_finite: bool,
    /// Background traffic; its TCP connections are `flows[n_foreground..]`.
    bg: Background,
    n_foreground: usize,
    /// Packets of external flows that reached their far end, for the emulator to hand out.
    arrivals: Vec<external::Arrival>,
    /// Some flows are external: packets they lose in the network are reported too.
    emulating: bool,
}

impl Simulation {
    pub fn now(&self) -> SimTime {
        self.q.now()
    }

    /// Flow `flow`'s native sender (None for an `ns2` agent or no such flow): for tests and
    /// tools that look at a sender's state between `run_until` calls.
    pub fn sender(&self, flow: usize) -> Option<&crate::tcp::sender::Sender> {
        match &self.flows.get(flow)?.sender {
            AnySender::Native(s) => Some(s),
            _ => None,
        }
    }

    /// Runs to the scenario's end (or until every finite transfer has completed).
    pub fn run(self) -> RunResult {
        self.run_with(|| false).expect("never interrupted")
    }

    /// `run`, asking `interrupted` every 2^16 events whether to stop (a user's Ctrl-C, a
    /// deadline): None if it said yes.
    pub fn run_with(mut self, mut interrupted: impl FnMut() -> bool) -> Option<RunResult> {
        const CHECK_EVERY: u32 = 1 << 16;
        let end = self.end;
        let mut until_check = CHECK_EVERY;
        while let Some((now, ev)) = self.q.pop_until(end) {
            self.dispatch(now, ev);
            if self.all_finite && self.finite_flows_left == 0 {
                break;
            }
            until_check -= 1;
            if until_check == 0 {
                if interrupted() {
                    return None;
                }
                until_check = CHECK_EVERY;
            }
        }
        // The last event that ran: the counters of links stand as after it.
        let (stop, last) = if self.all_finite && self.finite_flows_left == 0 {
            self.q.key()
        } else {
            (end, u64::MAX)
        };
        self.q.advance_to(stop);
        Some(self.results((stop, last)))
    }
}
