//! The result tables: one row per run, flow, background group, link direction. Column names
//! are the Rust fields' names (`crate::stats`), so the tables read like the structs.

use super::{batch, bools, f64s, opt_f64s, strs, u32s, u64s};
use crate::stats::{FlowResult, LinkResult, LinkTotals, RunResult, TrafficResult};
use arrow_array::RecordBatch;
use arrow_schema::ArrowError;
use std::iter::once as one;

/// One row: seed, duration_s (the run's end: the scenario's duration or the time the last
/// finite transfer completed), warmup_s, events processed, and whether a trace was cut.
pub fn run(r: &RunResult) -> Result<RecordBatch, ArrowError> {
    batch(vec![
        u64s("seed", one(r.seed)),
        f64s("duration_s", one(r.duration_s)),
        f64s("warmup_s", one(r.warmup_s)),
        f64s("window_s", one(r.window_s)),
        u64s("events", one(r.events)),
        bools("traces_truncated", one(r.traces.truncated)),
    ])
}

/// One row per foreground flow, over the measurement window (`FlowResult`).
pub fn flows(rows: &[FlowResult]) -> Result<RecordBatch, ArrowError> {
    let it = || rows.iter();
    batch(vec![
        u32s("flow", it().map(|f| f.flow)),
        strs("tcp", it().map(|f| f.tcp.as_str())),
        strs("ack", it().map(|f| f.ack.as_str())),
        u32s("mss_bytes", it().map(|f| f.mss_bytes)),
        u64s("bytes_delivered", it().map(|f| f.bytes_delivered)),
        f64s("goodput_bps", it().map(|f| f.goodput_bps)),
        f64s("active_s", it().map(|f| f.active_s)),
        f64s("active_goodput_bps", it().map(|f| f.active_goodput_bps)),
        f64s("mean_rtt_s", it().map(|f| f.mean_rtt_s)),
        f64s("mean_cwnd_bytes", it().map(|f| f.mean_cwnd_bytes)),
        f64s("mean_window_bytes", it().map(|f| f.mean_window_bytes)),
        u64s("segments_sent", it().map(|f| f.segments_sent)),
        u64s("segments_retransmitted", it().map(|f| f.segments_retransmitted)),
        u64s("bytes_acked", it().map(|f| f.bytes_acked)),
        u64s("acks_sent", it().map(|f| f.acks_sent)),
        u64s("ca_events", it().map(|f| f.ca_events)),
        u64s("non_ca_events", it().map(|f| f.non_ca_events)),
        u64s("timeouts", it().map(|f| f.timeouts)),
        u64s("fast_retransmits", it().map(|f| f.fast_retransmits)),
        u64s("other_losses", it().map(|f| f.other_losses)),
        u64s("loss_events", it().map(|f| f.loss_events)),
        f64s("p", it().map(|f| f.p)),
        f64s("loss_event_rate", it().map(|f| f.loss_event_rate)),
        opt_f64s("completion_time_s", it().map(|f| f.completion_time_s)),
        // ECN (tcp/ecn.rs).
        u64s("ce_received", it().map(|f| f.ce_received)),
        u64s("ece_acks", it().map(|f| f.ece_acks)),
        u64s("ecn_reductions", it().map(|f| f.ecn_reductions)),
        f64s("marking_rate", it().map(|f| f.marking_rate)),
        opt_f64s("ecn_alpha_mean", it().map(|f| f.ecn_alpha_mean)),
    ])
}

/// One row per `[[traffic]]` group (`TrafficResult`).
pub fn traffic(rows: &[TrafficResult]) -> Result<RecordBatch, ArrowError> {
    let it = || rows.iter();
    batch(vec![
        strs("name", it().map(|g| g.name.as_str())),
        strs("kind", it().map(|g| g.kind.as_str())),
        u32s("sources", it().map(|g| g.sources)),
        u64s("bytes_delivered", it().map(|g| g.bytes_delivered)),
        f64s("goodput_bps", it().map(|g| g.goodput_bps)),
        u64s("segments_sent", it().map(|g| g.segments_sent)),
        u64s("segments_retransmitted", it().map(|g| g.segments_retransmitted)),
        u64s("timeouts", it().map(|g| g.timeouts)),
        u64s("loss_events", it().map(|g| g.loss_events)),
        f64s("loss_event_rate", it().map(|g| g.loss_event_rate)),
        f64s("mean_rtt_s", it().map(|g| g.mean_rtt_s)),
        u64s("packets_sent", it().map(|g| g.packets_sent)),
        u64s("packets_delivered", it().map(|g| g.packets_delivered)),
        u64s("responses", it().map(|g| g.responses)),
        f64s("mean_response_bytes", it().map(|g| g.mean_response_bytes)),
        f64s("mean_response_time_s", it().map(|g| g.mean_response_time_s)),
    ])
}

/// One row per link direction, over the measurement window (`LinkResult`); row i is link
/// index i of the traces.
pub fn links(rows: &[LinkResult]) -> Result<RecordBatch, ArrowError> {
    let it = || rows.iter();
    batch(vec![
        strs("link", it().map(|l| l.link.as_str())),
        bools("shared", it().map(|l| l.shared)),
        u64s("rate_bps", it().map(|l| l.rate_bps)),
        f64s("delay_s", it().map(|l| l.delay_s)),
        u64s("packets_in", it().map(|l| l.packets_in)),
        u64s("packets_sent", it().map(|l| l.packets_sent)),
        u64s("bytes_sent", it().map(|l| l.bytes_sent)),
        u64s("drops_queue", it().map(|l| l.drops_queue)),
        u64s("drops_loss", it().map(|l| l.drops_loss)),
        u64s("drops_overflow", it().map(|l| l.drops_overflow)),
        u64s("drops_early", it().map(|l| l.drops_early)),
        u64s("drops_sojourn", it().map(|l| l.drops_sojourn)),
        // ECN marks (issue #32)
        u64s("marks", it().map(|l| l.marks)),
        u64s("marks_early", it().map(|l| l.marks_early)),
        u64s("marks_sojourn", it().map(|l| l.marks_sojourn)),
        u64s("marks_threshold", it().map(|l| l.marks_threshold)),
        f64s("drop_rate", it().map(|l| l.drop_rate)),
        f64s("mean_queue_packets", it().map(|l| l.mean_queue_packets)),
        f64s("mean_queue_bytes", it().map(|l| l.mean_queue_bytes)),
        f64s("mean_queue_delay_s", it().map(|l| l.mean_queue_delay_s)),
        f64s("utilization", it().map(|l| l.utilization)),
        opt_f64s("mean_red_avg", it().map(|l| l.mean_red_avg)),
        // DualPI2's L and C queues (issue #32)
        u64s("l_packets", it().map(|l| l.l_packets)),
        u64s("l_drops", it().map(|l| l.l_drops)),
        u64s("l_marks", it().map(|l| l.l_marks)),
        f64s("l_sojourn_mean_s", it().map(|l| l.l_sojourn_mean_s)),
        f64s("l_sojourn_p99_s", it().map(|l| l.l_sojourn_p99_s)),
        u64s("c_packets", it().map(|l| l.c_packets)),
        u64s("c_drops", it().map(|l| l.c_drops)),
        u64s("c_marks", it().map(|l| l.c_marks)),
        f64s("c_sojourn_mean_s", it().map(|l| l.c_sojourn_mean_s)),
        f64s("c_sojourn_p99_s", it().map(|l| l.c_sojourn_p99_s)),
    ])
}

/// One row per link direction: conservation totals over the whole run (`LinkTotals`).
pub fn totals(rows: &[LinkTotals]) -> Result<RecordBatch, ArrowError> {
    let it = || rows.iter();
    batch(vec![
        strs("link", it().map(|l| l.link.as_str())),
        u64s("arrivals", it().map(|l| l.arrivals)),
        u64s("drops_queue", it().map(|l| l.drops_queue)),
        u64s("drops_loss", it().map(|l| l.drops_loss)),
        u64s("delivered", it().map(|l| l.delivered)),
        u64s("in_link", it().map(|l| l.in_link)),
    ])
}
