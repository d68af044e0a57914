//! The measurement window and the results: the warm-up snapshot of every counter, and at the
//! end the per-flow, per-link and per-group results derived from the instruments (the same
//! derivation for every endpoint implementation).

use super::{Flow, Simulation};
use crate::engine::Key;
use crate::stats::{FlowCounters, FlowResult, LinkCounters, LinkResult, LinkTotals, RunResult};
use crate::tcp::endpoint::{AnySender, TcpSender};
use crate::tcp::ns2::agent::VAR_NAMES;
use crate::time::SimTime;

impl Simulation {
    fn integrate_all(&mut self, now: SimTime) {
        for f in &mut self.flows {
            f.sender.instruments_mut().integrate(now);
            f.sender.instruments_mut().integrate_estimate(now);
        }
        for l in &mut self.links {
            l.integrate(now);
            l.integrate_red_avg(now);
        }
    }

    /// The measurement window opens: every counter's value now is subtracted at the end.
    pub(super) fn snapshot(&mut self, now: SimTime) {
        self.integrate_all(now);
        self.flow_snapshots = self.flows.iter().map(Flow::counters).collect();
        let key = self.q.key();
        self.link_snapshots = self.links.iter().map(|l| l.counters_at(key)).collect();
        // DualPI2's per-queue counters (issue #32) are the queue's own: they restart here.
        for l in &mut self.links {
            l.queue.reset_lane_stats();
        }
        self.bg.snapshot();
    }

    /// The windows the senders traced (and ns-2's traced variables), to the recorder.
    fn collect_sender_traces(&mut self) {
        for (id, f) in self.flows[..self.n_foreground].iter_mut().enumerate() {
            let id = id as u32;
            if let Some((t, full)) = f.sender.instruments_mut().take_trace() {
                self.trace.cwnd(id, t, full);
            }
            if let AnySender::Ns2(n) = &mut f.sender {
                if let Some(v) = n.vars.take() {
                    self.trace.ns2_vars(id, &VAR_NAMES, v, n.trace_limit);
                }
            }
        }
    }

    pub(super) fn results(mut self, stop_key: Key) -> RunResult {
        let stop = stop_key.0;
        if stop < self.warmup {
            // The run ended before warm-up (every finite transfer done): the window is empty,
            // so every counter over it is zero, and every rate and mean over it NaN.
            self.snapshot(stop);
        }
        self.integrate_all(stop);
        let window_ns = stop.ns().saturating_sub(self.warmup.ns());
        // A time-average over `ns` nanoseconds, NaN over none.
        let per_ns = |area: f64, ns: u64| if ns > 0 { area / ns as f64 } else { f64::NAN };
        // A count per second over `ns` nanoseconds (bits: bit/s; RED's average integrated in
        // seconds: its time-average), NaN over none.
        let per_second = |x: f64, ns: u64| {
            if ns > 0 {
                x / (ns as f64 * 1e-9)
            } else {
                f64::NAN
            }
        };
        // Every packet alive is inside a link (queued, on the wire, propagating) and owns one
        // segment: more segments kept than that is a drop path that forgot to release one,
        // fewer a segment released twice (shared by two packets). Checked in every run.
        let inside: u64 = self.links.iter().map(|l| l.in_link()).sum();
        assert_eq!(
            self.segs.live() as u64,
            inside,
            "segments kept for the packets alive, against the packets inside the links"
        );
        // What is not read below is freed before the rows are built, so the results do not add
        // to the peak memory of a run of many flows: the pending events, the packets still
        // propagating and their segments (the links keep only their counts).
        let events = self.q.processed();
        self.q = crate::engine::EventQueue::new();
        self.flight = crate::net::link::InFlight::new();
        self.segs = crate::net::packet::Segments::new();
        self.collect_sender_traces();
        let zero_flow = FlowCounters::default();
        let flow_snapshots = &self.flow_snapshots;
        let since = |i: usize, f: &Flow| f.counters().since(flow_snapshots.get(i).unwrap_or(&zero_flow));
        let flows = self.flows[..self.n_foreground]
            .iter()
            .enumerate()
            .map(|(id, f)| {
                let c = since(id, f);
                let from = f.start.max(self.warmup);
                let to_end_ns = stop.ns().saturating_sub(from.ns());
                let until = f.completed.map_or(stop, |t| t.min(stop));
                let active_ns = until.ns().saturating_sub(from.ns());
                let segments_acked = c.bytes_acked as f64 / f.mss as f64;
                let bits = c.bytes_delivered as f64 * 8.0;
                FlowResult {
                    flow: id as u32,
                    tcp: f.variant.name().into(),
                    ack: f.ack.name().into(),
                    mss_bytes: f.mss,
                    bytes_delivered: c.bytes_delivered,
                    goodput_bps: per_second(bits, to_end_ns),
                    active_s: active_ns as f64 * 1e-9,
                    active_goodput_bps: per_second(bits, active_ns),
                    mean_rtt_s: if c.rtt_samples > 0 {
                        c.rtt_sum_ns as f64 / c.rtt_samples as f64 * 1e-9
                    } else {
                        f64::NAN
                    },
                    mean_cwnd_bytes: per_ns(c.cwnd_area as f64, to_end_ns),
                    mean_window_bytes: per_ns(c.window_area as f64, to_end_ns),
                    segments_sent: c.segments_sent,
                    segments_retransmitted: c.segments_retransmitted,
                    bytes_acked: c.bytes_acked,
                    acks_sent: c.acks_sent,
                    ca_events: c.episodes.ca_events,
                    non_ca_events: c.episodes.non_ca_events,
                    timeouts: c.timeouts,
                    fast_retransmits: c.fast_retransmits,
                    other_losses: c.episodes.other_losses,
                    loss_events: c.episodes.loss_events,
                    p: if segments_acked > 0.0 {
                        c.episodes.ca_events as f64 / segments_acked
                    } else {
                        0.0
                    },
                    loss_event_rate: if c.segments_sent > 0 {
                        c.episodes.loss_events as f64 / c.segments_sent as f64
                    } else {
                        0.0
                    },
                    completion_time_s: f.completed.map(|t| t.secs_f64()),
                    // ECN (tcp/ecn.rs).
                    ce_received: c.ce_received,
                    ece_acks: c.ece_acks,
                    ecn_reductions: c.ecn_reductions,
                    marking_rate: if c.segments_received > 0 {
                        c.ce_received as f64 / c.segments_received as f64
                    } else {
                        0.0
                    },
                    ecn_alpha_mean: (c.estimate_ns > 0).then(|| c.estimate_area / c.estimate_ns as f64),
                }
            })
            .collect();
        let flows_ref = &self.flows;
        let traffic = self
            .bg
            .results(|i| since(i as usize, &flows_ref[i as usize]), window_ns);
        // The endpoints are freed before the links' rows are built.
        self.flows = Vec::new();
        let zero = LinkCounters::default();
        let links = self
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| (i, l, self.link_snapshots.get(i).unwrap_or(&zero)))
            .map(|(i, l, s)| {
                let c = l.counters_at(stop_key).since(s);
                let drops = c.drops_queue + c.drops_loss;
                let zero_lanes = Default::default();
                let [lq, cq] = l.queue.lane_stats().unwrap_or(&zero_lanes);
                LinkResult {
                    link: self.link_names.get(i).to_string(),
                    shared: l.shared,
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
                    // ECN marks (issue #32)
                    marks: c.marks,
                    marks_early: c.marks_early,
                    marks_sojourn: c.marks_sojourn,
                    marks_threshold: c.marks_threshold,
                    drop_rate: if c.arrivals > 0 {
                        drops as f64 / c.arrivals as f64
                    } else {
                        0.0
                    },
                    mean_queue_packets: per_ns(c.queue_area as f64, window_ns),
                    mean_queue_bytes: per_ns(c.queue_bytes_area as f64, window_ns),
                    mean_queue_delay_s: if c.packets_sent > 0 {
                        c.queue_area as f64 / c.packets_sent as f64 * 1e-9
                    } else {
                        0.0
                    },
                    utilization: per_ns(c.busy_ns as f64, window_ns),
                    mean_red_avg: l.red_avg().map(|_| per_second(c.red_avg_area, window_ns)),
                    // DualPI2's L and C queues (issue #32)
                    l_packets: lq.packets,
                    l_drops: lq.drops,
                    l_marks: lq.marks,
                    l_sojourn_mean_s: lq.mean_sojourn_s(),
                    l_sojourn_p99_s: lq.p99_sojourn_s(),
                    c_packets: cq.packets,
                    c_drops: cq.drops,
                    c_marks: cq.marks,
                    c_sojourn_mean_s: cq.mean_sojourn_s(),
                    c_sojourn_p99_s: cq.p99_sojourn_s(),
                }
            })
            .collect();
        let totals = self
            .links
            .iter()
            .zip(self.link_names.iter())
            .map(|(l, name)| LinkTotals {
                link: name.to_string(),
                arrivals: l.counters.arrivals,
                drops_queue: l.counters.drops_queue,
                drops_loss: l.counters.drops_loss,
                delivered: l.counters.delivered,
                in_link: l.in_link(),
            })
            .collect();
        RunResult {
            seed: self.seed,
            duration_s: stop.secs_f64(),
            warmup_s: self.warmup.secs_f64(),
            window_s: window_ns as f64 * 1e-9,
            events,
            flows,
            traffic,
            links,
            totals,
            traces: self.trace.finish(),
        }
    }
}
