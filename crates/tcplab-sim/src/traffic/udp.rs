//! UDP sources: constant bit rate, and on-off with Pareto on and off periods (ns-2's
//! Application/Traffic/Pareto, used by Parvez et al. 2010 Sec. IV-F with shape 1.2). Datagrams
//! are not acknowledged; the receiver only counts them.
//!
//! Sending times are exact: the k-th datagram of a burst leaves at
//! `burst_start + floor(k * size * 8 s / rate)`, so the rate does not drift with rounding.

use super::dist;
use super::SourceCounters;
use crate::net::packet::{NodeId, Packet, Segments};
use crate::rng::Stream;
use crate::scenario::{self, TrafficKind, TrafficSpec};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UdpShape {
    Cbr,
    /// Means of the on and off periods (ns) and the Pareto shape.
    OnOff {
        on_ns: f64,
        off_ns: f64,
        shape: f64,
    },
}

#[derive(Clone, Debug)]
pub struct UdpSource {
    pub group: u32,
    /// The source's index; its datagrams carry it in `flow`.
    pub id: u32,
    pub src: NodeId,
    pub dst: NodeId,
    rate_bps: u64,
    size: u32,
    shape: UdpShape,
    rng: Stream,
    burst_start: SimTime,
    on_until: SimTime,
    k: u64,
    seq: u64,
    /// The codepoint of its datagrams (`ecn` in the scenario).
    ecn: crate::net::packet::Ecn,
    pub counters: SourceCounters,
    pub snapshot: SourceCounters,
}

impl UdpSource {
    pub fn new(
        t: &TrafficSpec,
        group: u32,
        id: u32,
        src: NodeId,
        dst: NodeId,
        start: SimTime,
        mut rng: Stream,
    ) -> Self {
        let shape = match t.kind {
            TrafficKind::OnOff => UdpShape::OnOff {
                on_ns: t.on_mean.map_or(0, |d| d.0.ns()) as f64,
                off_ns: t.off_mean.map_or(0, |d| d.0.ns()) as f64,
                shape: t.shape.unwrap_or(scenario::DEFAULT_SHAPE),
            },
            _ => UdpShape::Cbr,
        };
        let on_until = match shape {
            UdpShape::Cbr => SimTime::MAX,
            UdpShape::OnOff { on_ns, shape, .. } => {
                start.saturating_add(dist::ns(dist::pareto(&mut rng, on_ns, shape)))
            }
        };
        UdpSource {
            group,
            id,
            src,
            dst,
            rate_bps: t.rate.map_or(1, |r| r.0.max(1)),
            size: t.packet.map_or(scenario::DEFAULT_PACKET, |s| s.0) as u32,
            shape,
            rng,
            burst_start: start,
            on_until,
            k: 0,
            seq: 0,
            ecn: t.ecn.unwrap_or_default().codepoint(),
            counters: SourceCounters::default(),
            snapshot: SourceCounters::default(),
        }
    }

    fn offset(&self, k: u64) -> SimTime {
        let ns = k as u128 * self.size as u128 * 8 * 1_000_000_000 / self.rate_bps as u128;
        SimTime(ns.min(u64::MAX as u128) as u64)
    }

    /// The source's timer: the datagram to send now, and when the next one leaves.
    pub fn on_timer(&mut self, now: SimTime, segs: &mut Segments) -> (Packet, SimTime) {
        let pkt = Packet {
            ecn: self.ecn,
            ..segs.udp(self.id, self.src, self.dst, self.seq, self.size, now)
        };
        self.seq += 1;
        self.counters.packets_sent += 1;
        self.counters.bytes_sent += self.size as u64;
        self.k += 1;
        let mut next = self.burst_start.saturating_add(self.offset(self.k));
        if let UdpShape::OnOff { on_ns, off_ns, shape } = self.shape {
            if next >= self.on_until {
                let off = dist::ns(dist::pareto(&mut self.rng, off_ns, shape));
                self.burst_start = self.on_until.saturating_add(off);
                let on = dist::ns(dist::pareto(&mut self.rng, on_ns, shape));
                self.on_until = self.burst_start.saturating_add(on);
                self.k = 0;
                next = self.burst_start;
            }
        }
        (pkt, next.max(now))
    }

    /// One of this source's datagrams reached its receiver.
    pub fn on_delivered(&mut self, pkt: &Packet) {
        self.counters.packets_delivered += 1;
        self.counters.bytes_delivered += pkt.size as u64;
    }
}
