//! Helpers shared by the integration tests: a one-hop scripted path and trace readers.
#![allow(dead_code)]

use tcplab_sim::net::packet::PacketKind;
use tcplab_sim::stats::RunResult;
use tcplab_sim::trace::PacketEventKind as Ev;

/// One hop, 1 Gbit/s each way (serialization is negligible), 50 ms one-way delay, a queue that
/// never fills, MSS 1000 + 40 header bytes, and the given flow options and loss script.
pub fn one_hop(flow: &str, drops: &[u64], duration: &str) -> String {
    let loss = if drops.is_empty() {
        String::new()
    } else {
        format!(", loss = {{ model = \"script\", packets = {drops:?} }}")
    };
    format!(
        r#"
duration = "{duration}"
trace = {{ cwnd = true, links = ["hop0.fwd", "hop0.rev"] }}
[network.path]
hops = [{{ rate = "1Gbit/s", delay = "50ms", queue = {{ limit = 10000 }}{loss} }}]
[[flows]]
mss = 1000
{flow}
"#
    )
}

/// An ACK of `ack` (40 bytes) with one SACK block [lo, hi), for senders driven by hand.
pub fn sack(ack: u64, lo: u64, hi: u64) -> tcplab_sim::tcp::segment::Segment {
    let mut a = tcplab_sim::tcp::segment::Segment::ack(ack, 40);
    a.sack = tcplab_sim::tcp::segment::SackBlocks {
        n: 1,
        dsack: false,
        blocks: [((lo - ack) as u32, (hi - ack) as u32), (0, 0), (0, 0), (0, 0)],
    };
    a
}

/// A native sender driven by hand on `one_hop(flow, &[], duration)`, started at t = 0: the
/// sender and the segments it sent at the start.
pub fn started_sender(
    flow: &str,
    duration: &str,
) -> (
    tcplab_sim::tcp::sender::Sender,
    Vec<tcplab_sim::tcp::segment::Segment>,
) {
    let text = one_hop(flow, &[], duration);
    let sc = tcplab_sim::load(&text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut s = tcplab_sim::tcp::sender_for(&sc.flows[0], 0, 0, 1);
    let mut out = vec![];
    s.start(tcplab_sim::time::SimTime::ZERO, &mut out);
    (s, out)
}

pub fn run(text: &str) -> RunResult {
    tcplab_sim::run_toml(text, &[]).unwrap_or_else(|e| panic!("scenario failed: {e}\n{text}"))
}

/// A data segment as the sender put it on the forward link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sent {
    pub t: f64,
    pub seq: u64,
    pub retransmit: bool,
}

/// Data segments offered to the forward link (sent by the sender), lost ones included.
pub fn data_sent(r: &RunResult) -> Vec<Sent> {
    r.traces
        .packets
        .iter()
        .filter(|e| e.link == 0 && matches!(e.event, Ev::Enqueue | Ev::Lost))
        .filter(|e| e.kind == PacketKind::Data)
        .map(|e| Sent {
            t: e.time.secs_f64(),
            seq: e.seq,
            retransmit: e.retransmit,
        })
        .collect()
}

/// Retransmitted segments.
pub fn retransmissions(r: &RunResult) -> Vec<Sent> {
    data_sent(r).into_iter().filter(|s| s.retransmit).collect()
}

/// Flow 0's window after a change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub t: f64,
    pub cwnd: u64,
    /// None until the first loss sets it.
    pub ssthresh: Option<u64>,
}

/// Flow 0's cwnd and ssthresh at every change.
pub fn cwnd(r: &RunResult) -> Vec<Window> {
    r.traces
        .cwnd
        .iter()
        .filter(|c| c.flow == 0)
        .map(|c| Window {
            t: c.time.secs_f64(),
            cwnd: c.cwnd_bytes,
            ssthresh: c.ssthresh_bytes,
        })
        .collect()
}

/// Flow 0's smallest cwnd among its changes strictly between `from` and `to` seconds.
pub fn lowest_cwnd(r: &RunResult, from: f64, to: f64) -> u64 {
    cwnd(r)
        .iter()
        .filter(|x| x.t > from && x.t < to)
        .map(|x| x.cwnd)
        .min()
        .expect("a cwnd change in the interval")
}

/// Highest sequence (one past the end) sent before time t.
pub fn snd_max_before(r: &RunResult, t: f64, mss: u64) -> u64 {
    data_sent(r)
        .iter()
        .filter(|s| s.t < t)
        .map(|s| s.seq + mss)
        .max()
        .unwrap_or(0)
}

/// The next instant of a loop that drives two endpoints by hand over a scripted wire: sorts
/// `wire` by arrival time (`at`, stable) and returns the earliest of its first arrival and the
/// endpoints' `deadlines`, with whether that instant is the arrival (an arrival and a deadline
/// at the same instant: the arrival first). None when nothing is pending.
pub fn next_instant<W>(
    wire: &mut [W],
    at: impl Fn(&W) -> tcplab_sim::time::SimTime,
    deadlines: [Option<tcplab_sim::time::SimTime>; 2],
) -> Option<(tcplab_sim::time::SimTime, bool)> {
    wire.sort_by_key(&at);
    let next_timer = deadlines.into_iter().flatten().min();
    match (wire.first().map(at), next_timer) {
        (Some(a), Some(b)) => Some((a.min(b), a <= b)),
        (Some(a), None) => Some((a, true)),
        (None, Some(b)) => Some((b, false)),
        (None, None) => None,
    }
}

/// Appends one classic-pcap record holding `frame`, captured at `at`.
pub fn pcap_record(out: &mut Vec<u8>, at: tcplab_sim::time::SimTime, frame: &[u8]) {
    let ns = at.ns();
    for x in [(ns / 1_000_000_000) as u32, (ns % 1_000_000_000) as u32] {
        out.extend_from_slice(&x.to_le_bytes());
    }
    for _ in 0..2 {
        out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(frame);
}

/// Every link of `r` accounts for each packet that arrived: dropped by its queue or its loss
/// model, delivered, or still on the link.
pub fn conserved(r: &RunResult) {
    for t in &r.totals {
        assert_eq!(
            t.arrivals,
            t.drops_queue + t.drops_loss + t.delivered + t.in_link,
            "link {}",
            t.link
        );
    }
}

/// The links-table row of link `name` (e.g. "bottleneck.fwd").
pub fn link(r: &RunResult, name: &str) -> tcplab_sim::stats::LinkResult {
    r.links
        .iter()
        .find(|l| l.link == name)
        .unwrap_or_else(|| panic!("no link {name}"))
        .clone()
}

/// Direction 0 (the data's) of the analyzer's reading of a pcap.
pub fn direction0(bytes: &[u8]) -> tcplab_sim::capture::analyze::DirectionResult {
    use tcplab_sim::capture::analyze::{analyze, Options};
    let a = analyze(bytes, Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let d: Vec<_> = a.directions.iter().filter(|d| d.dir == 0).cloned().collect();
    assert_eq!(d.len(), 1, "{:?}", a.directions);
    d[0].clone()
}
