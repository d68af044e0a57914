//! Flows whose endpoints live outside the simulator. An emulation (`crate::emulate`) runs real
//! TCP connections through the simulated network in real time: their packets enter at a flow's
//! end (`inject`), cross the links, queues and loss modules as any packet does, and at the far
//! end are handed back out (`Arrival`) instead of to an endpoint. The emulator drives the clock:
//! it runs the events due by the wall clock (`run_until`) and sleeps until the next one
//! (`next_event`). Background traffic stays simulated and shares the links with them.
//!
//! ECN: a packet enters with the IP ECN field of the real packet, so the modeled queues mark
//! (or drop) it as they would a simulated one, and leaves with the codepoint it then has (CE
//! if a queue marked it): the emulator writes that back into the real header.

use super::Simulation;
use crate::engine::Side;
use crate::net::packet::{Ecn, Packet};
use crate::stats::RunResult;
use crate::tcp::segment::Segment;
use crate::time::SimTime;

/// What became of a packet of an external flow: it reached the end `to` at `at` (the receiver
/// for data, the sender for ACKs), or the network dropped it at `at` (`to` None). `token` is
/// what `inject` was given for it; `ecn` the packet's IP ECN field when it arrived or was
/// dropped (what it was injected with, or CE if a queue marked it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub at: SimTime,
    pub flow: u32,
    pub to: Option<Side>,
    pub token: u64,
    pub ecn: Ecn,
}

impl Simulation {
    /// Makes every foreground flow external: none of them starts a simulated sender; their
    /// packets come from `inject`. Background connections and sources stay simulated.
    pub fn externalize(&mut self) {
        for f in &mut self.flows[..self.n_foreground] {
            f.external = true;
        }
        self.all_finite = false;
        self.emulating = true;
    }

    /// The number of foreground flows (the external ones, after `externalize`).
    pub fn foreground_flows(&self) -> usize {
        self.n_foreground
    }

    /// When foreground flow `flow` starts (drawn from the scenario's `start`).
    pub fn flow_start(&self, flow: u32) -> SimTime {
        self.flows[flow as usize].start
    }

    /// The end of the run (the scenario's `duration`).
    pub fn end(&self) -> SimTime {
        self.end
    }

    /// The time of the next event due before the end, if any.
    pub fn next_event(&self) -> Option<SimTime> {
        self.q.peek_time().filter(|&t| t <= self.end)
    }

    /// Runs every event due at or before `t` (and never past the end).
    pub fn run_until(&mut self, t: SimTime) {
        let until = t.min(self.end);
        while let Some((now, ev)) = self.q.pop_until(until) {
            self.dispatch(now, ev);
        }
    }

    /// A packet of `size` bytes enters at the `from` end of external flow `flow` at `at` (the
    /// events due by then run first; a time before the last event counts as that event's).
    /// From the sender it travels as data, from the receiver as an ACK, with IP ECN field
    /// `ecn` (an ECN-capable packet may be marked CE on the way).
    pub fn inject(&mut self, at: SimTime, flow: u32, from: Side, size: u32, ecn: Ecn, token: u64) {
        debug_assert!(self.flows[flow as usize].external, "flow {flow} is simulated");
        self.run_until(at);
        self.q.advance_to(at);
        let now = self.q.now();
        let (node, peer) = self.flows[flow as usize].ends(from);
        let seg = match from {
            Side::Sender => Segment::data(token, size, size),
            Side::Receiver => Segment {
                seq: token,
                ..Segment::ack(0, size)
            },
        };
        let seg = Segment { ecn, ..seg };
        let pkt = self.segs.packet(flow, node, peer, seg);
        self.forward(now, node, &pkt);
    }

    /// Moves the packets that reached an external end or were dropped since the last call into
    /// `out`, in the order it happened.
    pub fn take_arrivals(&mut self, out: &mut Vec<Arrival>) {
        out.append(&mut self.arrivals);
    }

    /// A packet of an external flow reached the end `side`: it leaves the simulator.
    pub(super) fn arrived_outside(&mut self, now: SimTime, side: Side, pkt: Packet) {
        self.arrivals.push(Arrival {
            at: now,
            flow: pkt.flow,
            to: Some(side),
            token: self.segs.get(pkt.seg).seq,
            ecn: pkt.ecn,
        });
        self.segs.release(pkt.seg);
    }

    /// The network dropped `pkt` (a loss module, or the queue at its arrival): if it belongs
    /// to an external flow, the emulator hears of it.
    pub(super) fn dropped_outside(&mut self, pkt: &Packet) {
        if pkt.flow < self.n_foreground as u32
            && pkt.kind != crate::net::packet::PacketKind::Udp
            && self.flows[pkt.flow as usize].external
        {
            self.arrivals.push(Arrival {
                at: self.q.now(),
                flow: pkt.flow,
                to: None,
                token: self.segs.get(pkt.seg).seq,
                ecn: pkt.ecn,
            });
        }
    }

    /// The drops `link`'s discipline made at dequeue (CoDel, FQ-CoDel).
    pub(super) fn dropped_at_dequeue(&mut self, link: u32) {
        for i in 0..self.links[link as usize].dropped().len() {
            let p = self.links[link as usize].dropped()[i].0;
            self.dropped_outside(&p);
        }
    }

    /// Ends an emulated run at the scenario's end: the results over the measurement window.
    /// The external flows' own counters are zero (their TCP is outside); the links', the
    /// background's and the totals are the simulator's.
    pub fn finish(mut self) -> RunResult {
        let end = self.end;
        self.run_until(end);
        self.q.advance_to(end);
        self.results((end, u64::MAX))
    }
}
