//! `trace.pcap`: which link directions each capture taps, at their input or output, and the
//! frames written there. A link that no capture taps costs one load and a branch per packet.

use super::pcap::frame::FlowWire;
use super::pcap::{PcapCapture, PcapWriter};
use crate::net::link::Link;
use crate::net::packet::{Packet, PacketKind, Segments};
use crate::net::topology::LinkNames;
use crate::scenario::{CapturePoint, PcapSpec};
use crate::tcp::segment::Segment;
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct Captures {
    /// Per link direction, the captures (bit i: capture i) that see packets offered to it...
    tap_in: Vec<u32>,
    /// ...and those that see packets it delivers.
    tap_out: Vec<u32>,
    writers: Vec<PcapWriter>,
    /// Per TCP flow (foreground, then background connections), what its frames need.
    wires: Vec<FlowWire>,
}

impl Captures {
    /// The captures of `specs` over `links` (named `names`), whose nodes are named `nodes`.
    /// Names were checked when the scenario was loaded (`crate::load`).
    pub fn new(
        specs: &[PcapSpec],
        links: &[Link],
        names: &LinkNames,
        nodes: &[String],
        wires: Vec<FlowWire>,
    ) -> Self {
        let mut c = Captures {
            tap_in: vec![0; links.len()],
            tap_out: vec![0; links.len()],
            writers: specs.iter().map(PcapWriter::new).collect(),
            wires,
        };
        for (i, s) in specs.iter().enumerate() {
            let bit = 1u32 << i;
            for (l, link) in links.iter().enumerate() {
                if let Some(node) = &s.node {
                    if nodes[link.from as usize] == *node {
                        c.tap_in[l] |= bit;
                    }
                    if nodes[link.to as usize] == *node {
                        c.tap_out[l] |= bit;
                    }
                } else if s.link.iter().any(|n| n == names.get(l)) {
                    match s.at {
                        CapturePoint::In => c.tap_in[l] |= bit,
                        CapturePoint::Out => c.tap_out[l] |= bit,
                    }
                }
            }
        }
        c
    }

    /// A packet offered to `link` at `now`.
    #[inline]
    pub fn offered(&mut self, now: SimTime, link: u32, p: &Packet, segs: &Segments) {
        if let Some(&mask) = self.tap_in.get(link as usize) {
            if mask != 0 {
                self.write(mask, now, p, segs.get(p.seg));
            }
        }
    }

    /// A packet `link` delivered at `now`.
    #[inline]
    pub fn delivered(&mut self, now: SimTime, link: u32, p: &Packet, segs: &Segments) {
        if let Some(&mask) = self.tap_out.get(link as usize) {
            if mask != 0 {
                self.write(mask, now, p, segs.get(p.seg));
            }
        }
    }

    #[cold]
    fn write(&mut self, mut mask: u32, now: SimTime, p: &Packet, seg: &Segment) {
        let wire = match p.kind {
            PacketKind::Udp => FlowWire::default(),
            _ => self.wires.get(p.flow as usize).copied().unwrap_or_default(),
        };
        while mask != 0 {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            self.writers[i].packet(now, p, seg, wire);
        }
    }

    pub fn finish(self) -> Vec<PcapCapture> {
        self.writers.into_iter().map(PcapWriter::finish).collect()
    }
}
