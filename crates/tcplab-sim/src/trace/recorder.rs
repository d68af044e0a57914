//! The bounded recorder the simulation writes its traces to. Each trace keeps at most
//! `trace.max_points` records and then stops recording, marking the run `truncated`; a trace
//! that is off costs one branch per event.

use super::{CwndRecord, Ns2VarRecord, PacketEventKind, PacketRecord, QueueRecord, Traces};
use crate::net::packet::{Packet, Segments};
use crate::net::queue::MarkCause;
use crate::net::DropCause;
use crate::scenario::TraceSpec;
use crate::tcp::instruments::CwndPoint;
use crate::time::SimTime;

/// Records the traces a scenario asked for.
#[derive(Clone, Debug)]
pub struct TraceRecorder {
    limit: usize,
    /// Per link direction: are its packet events recorded?
    packet_links: Vec<bool>,
    queue_on: bool,
    traces: Traces,
    /// `trace.pcap`'s taps and files.
    pub captures: super::Captures,
}

impl TraceRecorder {
    /// A recorder for `spec` over the link directions named `links` (in index order).
    pub fn new<'a>(spec: &TraceSpec, links: impl IntoIterator<Item = &'a str>) -> Self {
        TraceRecorder {
            limit: spec.max_points as usize,
            packet_links: links
                .into_iter()
                .map(|name| spec.links.iter().any(|l| l == name))
                .collect(),
            queue_on: spec.queue,
            traces: Traces::default(),
            captures: super::Captures::default(),
        }
    }

    /// Points kept per trace.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Are `link`'s packet events recorded?
    #[inline]
    pub fn traces_packets(&self, link: u32) -> bool {
        self.packet_links[link as usize]
    }

    /// Does anything record `link`'s events (its packets, or every queue)?
    #[inline]
    pub fn traces_link(&self, link: u32) -> bool {
        self.queue_on || self.packet_links[link as usize]
    }

    /// A packet event on `link` (ignored unless the link is traced). `cause` is the reason of
    /// a `Drop` or `Lost` event, None for the others.
    #[inline]
    pub fn packet(
        &mut self,
        now: SimTime,
        link: u32,
        event: PacketEventKind,
        p: &Packet,
        segs: &Segments,
        cause: Option<DropCause>,
    ) {
        if self.packet_links[link as usize] {
            self.record(now, link, event, p, segs, cause, None);
        }
    }

    /// A queue's CE mark of `p` (as marked) on `link` (ignored unless the link is traced).
    #[inline]
    pub fn mark(&mut self, now: SimTime, link: u32, p: &Packet, segs: &Segments, cause: MarkCause) {
        if self.packet_links[link as usize] {
            self.record(now, link, PacketEventKind::Mark, p, segs, None, Some(cause));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        now: SimTime,
        link: u32,
        event: PacketEventKind,
        p: &Packet,
        segs: &Segments,
        cause: Option<DropCause>,
        mark: Option<MarkCause>,
    ) {
        let s = segs.get(p.seg);
        let limit = self.limit;
        push(
            &mut self.traces.packets,
            &mut self.traces.truncated,
            limit,
            PacketRecord {
                time: now,
                link,
                event,
                flow: p.flow,
                kind: p.kind,
                seq: s.seq,
                ack: s.ack,
                size: p.size,
                len: s.len,
                retransmit: s.retransmit,
                cause,
                mark,
                ecn: p.ecn,
            },
        );
    }

    /// `link`'s queue now holds `packets` packets of `bytes` bytes (ignored unless
    /// `trace.queue` is on).
    #[inline]
    pub fn queue(&mut self, now: SimTime, link: u32, packets: u64, bytes: u64) {
        if !self.queue_on {
            return;
        }
        let limit = self.limit;
        push(
            &mut self.traces.queue,
            &mut self.traces.truncated,
            limit,
            QueueRecord {
                time: now,
                link,
                packets,
                bytes,
            },
        );
    }

    /// A flow's window trace as its sender's instruments kept it (`full`: it reached its own
    /// limit of points and stopped).
    pub fn cwnd(&mut self, flow: u32, points: Vec<CwndPoint>, full: bool) {
        self.traces.truncated |= full;
        self.traces.cwnd.extend(points.into_iter().map(|p| CwndRecord {
            time: p.time,
            flow,
            cwnd_bytes: p.cwnd_bytes,
            ssthresh_bytes: p.ssthresh_bytes,
        }));
    }

    /// An ns-2 agent's traced variables, one snapshot of all of them (in `names` order) per
    /// event that changed one: recorded as one record per variable that changed.
    pub fn ns2_vars<const N: usize>(
        &mut self,
        flow: u32,
        names: &[&'static str; N],
        snapshots: Vec<(SimTime, [f64; N])>,
        limit: usize,
    ) {
        self.traces.truncated |= snapshots.len() >= limit;
        let mut last = [f64::NAN; N];
        for (time, values) in snapshots {
            for (k, &value) in values.iter().enumerate() {
                if last[k].to_bits() != value.to_bits() {
                    self.traces.ns2_vars.push(Ns2VarRecord {
                        time,
                        flow,
                        var: names[k],
                        value,
                    });
                }
            }
            last = values;
        }
    }

    /// The traces recorded.
    pub fn finish(self) -> Traces {
        let mut t = self.traces;
        t.pcap = self.captures.finish();
        t.truncated |= t.pcap.iter().any(|c| c.truncated);
        t
    }
}

/// Appends `r` if the trace has room; otherwise marks the run truncated.
#[inline]
fn push<T>(trace: &mut Vec<T>, truncated: &mut bool, limit: usize, r: T) {
    if trace.len() < limit {
        trace.push(r);
    } else {
        *truncated = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(links: &[&str], queue: bool, max_points: u64) -> TraceSpec {
        TraceSpec {
            cwnd: false,
            queue,
            links: links.iter().map(|s| s.to_string()).collect(),
            max_points,
            pcap: Vec::new(),
        }
    }

    #[test]
    fn only_the_named_links_are_recorded_and_the_limit_marks_truncation() {
        let mut r = TraceRecorder::new(&spec(&["b"], false, 2), ["a", "b"]);
        let seg = crate::tcp::segment::Segment::data(1000, 1000, 1040);
        let mut segs = Segments::new();
        let p = segs.packet(3, 0, 1, seg);
        r.packet(SimTime(1), 0, PacketEventKind::Enqueue, &p, &segs, None);
        r.packet(SimTime(2), 1, PacketEventKind::Enqueue, &p, &segs, None);
        r.packet(
            SimTime(3),
            1,
            PacketEventKind::Drop,
            &p,
            &segs,
            Some(DropCause::Overflow),
        );
        assert!(!r.traces.truncated, "two records fit a limit of two");
        r.packet(SimTime(4), 1, PacketEventKind::Dequeue, &p, &segs, None);
        r.queue(SimTime(4), 1, 1, 1040); // queue trace off
        let t = r.finish();
        assert!(t.truncated);
        assert!(t.queue.is_empty());
        let got: Vec<_> = t.packets.iter().map(|e| (e.time.ns(), e.link, e.event)).collect();
        assert_eq!(
            got,
            vec![(2, 1, PacketEventKind::Enqueue), (3, 1, PacketEventKind::Drop)]
        );
        assert_eq!(t.packets[1].cause, Some(DropCause::Overflow));
        assert_eq!(
            (t.packets[0].flow, t.packets[0].seq, t.packets[0].size),
            (3, 1000, 1040)
        );
    }

    #[test]
    fn a_flows_window_trace_keeps_its_points_and_says_if_it_was_full() {
        let mut r = TraceRecorder::new(&spec(&[], false, 10), ["a"]);
        let p = |t, c, s| CwndPoint {
            time: SimTime(t),
            cwnd_bytes: c,
            ssthresh_bytes: s,
        };
        r.cwnd(3, vec![p(0, 1460, None), p(5, 2920, Some(1460))], false);
        assert!(!r.traces.truncated);
        r.cwnd(4, vec![p(1, 1000, None)], true);
        let t = r.finish();
        assert!(t.truncated);
        let got: Vec<_> = t
            .cwnd
            .iter()
            .map(|c| (c.flow, c.time.ns(), c.ssthresh_bytes))
            .collect();
        assert_eq!(got, vec![(3, 0, None), (3, 5, Some(1460)), (4, 1, None)]);
    }

    #[test]
    fn ns2_variables_are_recorded_when_they_change() {
        let mut r = TraceRecorder::new(&spec(&[], false, 10), ["a"]);
        let names = ["x_", "y_"];
        r.ns2_vars(
            1,
            &names,
            vec![(SimTime(1), [1.0, 2.0]), (SimTime(2), [1.0, 3.0])],
            10,
        );
        let got: Vec<_> = r
            .finish()
            .ns2_vars
            .iter()
            .map(|v| (v.time.ns(), v.var, v.value))
            .collect();
        assert_eq!(got, vec![(1, "x_", 1.0), (1, "y_", 2.0), (2, "y_", 3.0)]);
    }
}
