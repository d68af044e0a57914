//! The instruments: per-flow counters (Mathis et al. 1997's MIB-like TCP instruments) and
//! per-link counters, kept as plain sums so that a measurement window is `end - warmup
//! snapshot`, and the results reported for a run.

use crate::tcp::instruments::EpisodeCounts;
use crate::time::SimTime;
use crate::trace::Traces;
use serde::Serialize;

/// Cumulative per-flow counters. All are totals since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlowCounters {
    pub segments_sent: u64,
    pub segments_retransmitted: u64,
    pub bytes_acked: u64,
    pub bytes_delivered: u64,
    pub acks_sent: u64,
    /// Mathis' loss episodes: CA and non-CA events, other losses, loss events
    /// (`tcp::instruments::episode`, the rules a capture's analysis follows too).
    pub episodes: EpisodeCounts,
    /// Retransmit-timer expirations.
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub rtt_samples: u64,
    pub rtt_sum_ns: u128,
    /// Integral of cwnd (bytes) over time (ns), for the time-average.
    pub cwnd_area: u128,
    /// Integral of the usable window, min(cwnd, receive window), over time.
    pub window_area: u128,
    // ECN (tcp/ecn.rs): ACKs with ECE the sender received, its window reductions for them;
    // data segments the receiver got, and those marked CE (counted only with ECN in use).
    pub ece_acks: u64,
    pub ecn_reductions: u64,
    pub segments_received: u64,
    pub ce_received: u64,
    // -- ECN congestion estimate (docs/validation/ecn.md) --
    /// Integral of the controller's congestion estimate (DCTCP's alpha) over time (x ns), and
    /// the time it was known (ns): 0 for controllers without one.
    pub estimate_area: f64,
    pub estimate_ns: u64,
    // -- end ECN congestion estimate --
}

impl FlowCounters {
    pub fn add_rtt(&mut self, r: SimTime) {
        self.rtt_samples += 1;
        self.rtt_sum_ns += r.ns() as u128;
    }
}

/// Cumulative counters of one link direction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkCounters {
    /// Packets offered to the link (before the loss module and the queue).
    pub arrivals: u64,
    pub bytes_in: u64,
    /// Packets (bytes) fully serialized onto the wire.
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Packets the queue dropped, all causes: drops_overflow + drops_early + drops_sojourn.
    pub drops_queue: u64,
    pub drops_loss: u64,
    /// Queue drops by cause (net::queue::DropCause): the buffer was full; an active queue's
    /// choice at enqueue (RED); an active queue's choice at dequeue by sojourn time (CoDel).
    pub drops_overflow: u64,
    pub drops_early: u64,
    pub drops_sojourn: u64,
    // -- ECN marks (issue #32) --
    /// Packets the queue marked CE instead of dropping them, all causes, and by cause
    /// (net::queue::MarkCause): an active queue's choice at enqueue (RED, PIE); CoDel's control
    /// law at dequeue; a step threshold (the step queue, CoDel's ce_threshold).
    pub marks: u64,
    pub marks_early: u64,
    pub marks_sojourn: u64,
    pub marks_threshold: u64,
    // -- end ECN marks --
    /// Packets that reached the far end.
    pub delivered: u64,
    /// Integral of the number of waiting packets (excluding the one on the wire) over time.
    pub queue_area: u128,
    pub queue_bytes_area: u128,
    /// Time the transmitter was busy, ns.
    pub busy_ns: u64,
    /// Integral of RED's average queue over time (average x seconds; 0 for other queues).
    pub red_avg_area: f64,
}

/// `since` (counters accumulated after an earlier snapshot: the measurement window) and `add`
/// (sums over several flows or links), from one list of the fields.
macro_rules! counter_arithmetic {
    ($t:ident { $($f:ident),* $(,)? }) => {
        impl $t {
            /// Counters accumulated since `earlier` was taken.
            pub fn since(&self, earlier: &$t) -> $t {
                $t { $($f: self.$f - earlier.$f),* }
            }

            /// Adds `other`'s counts to these.
            pub fn add(&mut self, other: &$t) {
                $(self.$f += other.$f;)*
            }
        }
    };
}

counter_arithmetic!(FlowCounters {
    segments_sent,
    segments_retransmitted,
    bytes_acked,
    bytes_delivered,
    acks_sent,
    episodes,
    timeouts,
    fast_retransmits,
    rtt_samples,
    rtt_sum_ns,
    cwnd_area,
    window_area,
    ece_acks,
    ecn_reductions,
    segments_received,
    ce_received,
    estimate_area,
    estimate_ns
});
counter_arithmetic!(LinkCounters {
    arrivals,
    bytes_in,
    packets_sent,
    bytes_sent,
    drops_queue,
    drops_loss,
    drops_overflow,
    drops_early,
    drops_sojourn,
    marks,
    marks_early,
    marks_sojourn,
    marks_threshold,
    delivered,
    queue_area,
    queue_bytes_area,
    busy_ns,
    red_avg_area
});

/// One flow's results over the measurement window (after warm-up).
#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    pub flow: u32,
    pub tcp: String,
    pub ack: String,
    pub mss_bytes: u32,
    /// Bytes delivered in order to the application over the window.
    pub bytes_delivered: u64,
    /// bytes_delivered over the flow's part of the window: from its start (or warm-up) to the
    /// end of the run. NaN if that is empty.
    pub goodput_bps: f64,
    /// Seconds of the window in which the flow was active: from its start (or warm-up) to its
    /// completion (or the end of the run).
    pub active_s: f64,
    /// bytes_delivered over active_s: a finite transfer's own rate. NaN if active_s is 0.
    pub active_goodput_bps: f64,
    /// Mean of the sender's RTT samples over the window (s), NaN if none.
    pub mean_rtt_s: f64,
    /// Time-average congestion window over the flow's part of the window (as goodput_bps),
    /// bytes; NaN if that is empty.
    pub mean_cwnd_bytes: f64,
    /// Time-average usable window, min(cwnd, receive window), over the same time, bytes.
    pub mean_window_bytes: f64,
    pub segments_sent: u64,
    pub segments_retransmitted: u64,
    /// Bytes the cumulative ACK advanced over the window.
    pub bytes_acked: u64,
    /// ACKs the receiver sent.
    pub acks_sent: u64,
    pub ca_events: u64,
    pub non_ca_events: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub other_losses: u64,
    pub loss_events: u64,
    /// Mathis p: CA events per acknowledged segment.
    pub p: f64,
    /// Loss events per segment sent (Parvez's p).
    pub loss_event_rate: f64,
    /// Time the flow's data was all acknowledged (s), for finite transfers.
    pub completion_time_s: Option<f64>,
    // ECN (0 for a flow without it).
    /// Data segments that reached the receiver marked CE.
    pub ce_received: u64,
    /// ACKs with ECE the sender received.
    pub ece_acks: u64,
    /// Window reductions in response to ECE (at most one per window of data).
    pub ecn_reductions: u64,
    /// ce_received per data segment received (0 without segments).
    pub marking_rate: f64,
    /// Time-average of the controller's congestion estimate over the window (DCTCP's alpha);
    /// None for controllers without one.
    pub ecn_alpha_mean: Option<f64>,
}

/// One background traffic group's aggregate results over the measurement window.
#[derive(Clone, Debug, Serialize)]
pub struct TrafficResult {
    pub name: String,
    /// "ftp", "http", "cbr" or "on_off".
    pub kind: String,
    pub sources: u32,
    /// Bytes delivered to the receivers (TCP: in order; HTTP: responses; UDP: datagrams).
    pub bytes_delivered: u64,
    pub goodput_bps: f64,
    /// TCP groups: sums over the group's data connections (HTTP: the responses').
    pub segments_sent: u64,
    pub segments_retransmitted: u64,
    pub timeouts: u64,
    pub loss_events: u64,
    pub loss_event_rate: f64,
    pub mean_rtt_s: f64,
    /// UDP groups: datagrams sent and delivered.
    pub packets_sent: u64,
    pub packets_delivered: u64,
    /// HTTP groups: responses completed, their mean size and mean time from request to the
    /// last byte acknowledged.
    pub responses: u64,
    pub mean_response_bytes: f64,
    pub mean_response_time_s: f64,
}

/// One link direction's results over the measurement window.
#[derive(Clone, Debug, Serialize)]
pub struct LinkResult {
    pub link: String,
    /// False for a link direction of one connection's own: a flow's or a background
    /// source's access or egress link in a dumbbell or a parking lot. A results store keeps
    /// the shared ones as columns (their number does not grow with the flows).
    pub shared: bool,
    pub rate_bps: u64,
    pub delay_s: f64,
    pub packets_in: u64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Queue drops, all causes (the sum of the three below).
    pub drops_queue: u64,
    pub drops_loss: u64,
    /// Queue drops because the buffer was full (drop-tail, Random Drop and Drop-from-Front
    /// victims, RED's forced drops, FQ-CoDel's drops from the fattest flow).
    pub drops_overflow: u64,
    /// Queue drops an active queue chose at enqueue (RED's early drops).
    pub drops_early: u64,
    /// Queue drops an active queue chose at dequeue by sojourn time (CoDel's control law).
    pub drops_sojourn: u64,
    // -- ECN marks (issue #32) --
    /// Packets the queue marked CE instead of dropping them, all causes (the sum of the three
    /// below).
    pub marks: u64,
    /// Marks an active queue chose at enqueue (RED's early decision on an ECT packet).
    pub marks_early: u64,
    /// Marks by CoDel's control law at dequeue (CoDel, FQ-CoDel with ecn).
    pub marks_sojourn: u64,
    /// Marks by a step threshold: the step queue's, CoDel's and FQ-CoDel's ce_threshold.
    pub marks_threshold: u64,
    // -- end ECN marks --
    /// Drops (queue + loss module) per packet offered.
    pub drop_rate: f64,
    /// Time-average number of packets waiting (not counting the one being sent).
    pub mean_queue_packets: f64,
    pub mean_queue_bytes: f64,
    /// Mean time a packet waits in the queue (Little's law over the window), s.
    pub mean_queue_delay_s: f64,
    pub utilization: f64,
    /// Time-average of RED's average queue (in its limit's unit); None for other queues.
    pub mean_red_avg: Option<f64>,
    // -- DualPI2's L and C queues (issue #32; 0 for the other disciplines) --
    /// Packets sent from the L queue, dropped (arriving to a full buffer, or by the AQM) and
    /// marked; the mean and 99th percentile (to 1.6%) of the sent packets' sojourn times, s.
    pub l_packets: u64,
    pub l_drops: u64,
    pub l_marks: u64,
    pub l_sojourn_mean_s: f64,
    pub l_sojourn_p99_s: f64,
    /// The same for the C queue.
    pub c_packets: u64,
    pub c_drops: u64,
    pub c_marks: u64,
    pub c_sojourn_mean_s: f64,
    pub c_sojourn_p99_s: f64,
    // -- end DualPI2 --
}

/// Conservation totals over the whole run (not windowed), for checking.
#[derive(Clone, Debug, Serialize)]
pub struct LinkTotals {
    pub link: String,
    pub arrivals: u64,
    pub drops_queue: u64,
    pub drops_loss: u64,
    pub delivered: u64,
    /// Packets still inside the link at the end: queued, on the wire, or propagating.
    pub in_link: u64,
}

/// Everything a run reports.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    /// The measurement window's length, max(0, duration_s - warmup_s): 0 when the run ended
    /// before warm-up (then every rate and time-average is NaN).
    pub window_s: f64,
    pub events: u64,
    pub flows: Vec<FlowResult>,
    /// Background traffic, one row per [[traffic]] group.
    pub traffic: Vec<TrafficResult>,
    pub links: Vec<LinkResult>,
    pub totals: Vec<LinkTotals>,
    /// The opt-in traces (`[trace]`): typed records, docs/traces.md.
    pub traces: Traces,
}
