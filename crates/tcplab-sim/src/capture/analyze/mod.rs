//! `tcplab trace analyze`: the papers' instruments measured on a capture. Each TCP connection
//! (a 4-tuple; a SYN after a FIN or RST starts a new one) is followed in both directions
//! ([`direction::Direction`]); every direction that carried data gets a [`DirectionResult`]:
//! goodput, RTT samples (Karn's rule and timestamp echoes), retransmissions by cause, Mathis'
//! loss episodes (CA / non-CA events, other losses, p), Parvez's loss events, the flight
//! size, and ECN ([`ecn`]: the codepoints, ECE, CWR, marks per round trip, the marking rate,
//! the handshake's negotiation). Memory grows with connections and their windows, not with packets (docs/pcap.md).

pub mod direction;
pub mod ecn;

use super::read::{Capture, CaptureError, Skipped, TcpPacket};
use direction::Direction;
use ecn::EcnCounters;
use serde::Serialize;
use std::collections::HashMap;
use std::io::Read;

/// What to analyze: a window of capture time (ns after the first packet of the file; events
/// before `from` or at and after `to` are not counted) and the connection whose packets and
/// RTT samples are kept as records (for plots), at most `max_points` of each.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub from_ns: u64,
    pub to_ns: Option<u64>,
    pub record_conn: Option<u32>,
    pub max_points: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            from_ns: 0,
            to_ns: None,
            record_conn: None,
            max_points: 1_000_000,
        }
    }
}

/// One data direction of a connection, over the window.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DirectionResult {
    pub conn: u32,
    /// 0: from the connection's initiator (the SYN's sender, or the first packet's), 1: back.
    pub dir: u32,
    pub src: String,
    pub dst: String,
    pub handshake: bool,
    pub mid_stream: bool,
    pub first_s: f64,
    pub last_s: f64,
    pub window_s: f64,
    pub mss_bytes: u32,
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub segments_retransmitted: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub recovery_retransmits: u64,
    pub dsacks: u64,
    pub spurious_retransmits: u64,
    pub dupacks: u64,
    pub acks: u64,
    pub bytes_acked: u64,
    pub goodput_bps: f64,
    pub ca_events: u64,
    pub non_ca_events: u64,
    pub other_losses: u64,
    pub loss_events: u64,
    pub p: f64,
    pub loss_event_rate: f64,
    pub packet_loss_rate: f64,
    pub rtt_samples: u64,
    pub mean_rtt_s: f64,
    pub min_rtt_s: f64,
    pub max_rtt_s: f64,
    pub ts_rtt_samples: u64,
    pub ts_mean_rtt_s: f64,
    pub rto_s: f64,
    pub rto_estimate_s: f64,
    pub mean_flight_bytes: f64,
    pub max_flight_bytes: u64,
    pub seq_wraps: u32,
    /// The capture ended inside a loss episode (its events are not counted).
    pub open_episode: bool,
    /// ECN (`ecn.rs`): the handshake's negotiation (`ecn::handshake`), data segments by IP
    /// ECN field, ECE ACKs, CWR segments and those that answered an ECE, the CE packets and
    /// bytes an AccECN receiver fed back, round trips, CE per round trip, CE per data segment.
    pub ecn_handshake: &'static str,
    pub ect0_segments: u64,
    pub ect1_segments: u64,
    pub ce_segments: u64,
    pub ece_acks: u64,
    pub cwr_segments: u64,
    pub ecn_reductions: u64,
    pub accecn_ce_packets: u64,
    pub accecn_ce_bytes: u64,
    pub rounds: u64,
    pub marks_per_rtt: f64,
    pub marking_rate: f64,
}

/// One segment of the recorded connection (a time-sequence graph's point).
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct SegmentRecord {
    /// ns after the capture's first packet.
    pub time_ns: u64,
    /// The data direction it belongs to: a data segment of `dir`, or an ACK of `dir`'s data.
    pub dir: u32,
    /// "data" or "ack".
    pub kind: &'static str,
    /// Data: first byte; ACK: the cumulative ACK (bytes from the direction's offset 0).
    pub seq: i64,
    pub len: u32,
    /// ACK: the receive window's right edge (ack + window), bytes.
    pub window_edge: i64,
    pub retransmit: bool,
    /// ACK: the first SACK block (relative), 0..0 without one.
    pub sack_start: i64,
    pub sack_end: i64,
    /// Bytes in flight (snd_max - snd_una of `dir`) after the segment.
    pub flight: u64,
}

/// One RTT sample of the recorded connection.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct RttRecord {
    pub time_ns: u64,
    pub dir: u32,
    pub rtt_ns: u64,
    /// "karn" (data/ACK matching) or "timestamp" (TSecr echo).
    pub source: &'static str,
}

/// Everything an analysis found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Analysis {
    pub directions: Vec<DirectionResult>,
    pub records: u64,
    pub tcp_packets: u64,
    pub connections: u32,
    pub first_ns: u64,
    pub last_ns: u64,
    /// The file ended inside a record: the analysis covers the records before it.
    pub truncated_file: bool,
    pub skipped_not_tcp: u64,
    pub skipped_fragments: u64,
    pub skipped_cut_headers: u64,
    pub skipped_malformed: u64,
    pub skipped_untimed: u64,
    pub warnings: Vec<String>,
    pub segments: Vec<SegmentRecord>,
    pub rtts: Vec<RttRecord>,
    pub records_truncated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct End {
    addr: [u8; 16],
    v6: bool,
    port: u16,
}

struct Conn {
    id: u32,
    /// Endpoint of direction 0's sender.
    a: End,
    b: End,
    dirs: [Direction; 2],
    closed: bool,
    window: [u16; 2],
    data_seen: bool,
    ecn: [EcnCounters; 2],
    /// The ECN bits (`ecn::syn_bits`) of the last SYN and SYN-ACK.
    syn_ecn: Option<u8>,
    synack_ecn: Option<u8>,
    accecn: ecn::AccEcnMode,
}

fn show(e: &End) -> String {
    if e.v6 {
        let ip = std::net::Ipv6Addr::from(e.addr);
        format!("[{ip}]:{}", e.port)
    } else {
        let ip = std::net::Ipv4Addr::new(e.addr[0], e.addr[1], e.addr[2], e.addr[3]);
        format!("{ip}:{}", e.port)
    }
}

/// Reads a capture and analyzes every TCP connection in it.
pub fn analyze<R: Read>(reader: R, opt: Options) -> Result<Analysis, CaptureError> {
    let mut cap = Capture::new(reader)?;
    let mut conns: Vec<Conn> = Vec::new();
    let mut index: HashMap<(End, End), usize> = HashMap::new();
    let mut out = Analysis::default();
    let mut first: Option<u64> = None;
    let mut last_key: Option<((End, End), usize)> = None;
    let mut window = (0u64, u64::MAX);
    let mut last_ns = 0u64;
    while let Some(p) = cap.next_tcp()? {
        let t0 = *first.get_or_insert_with(|| {
            window = (
                p.time_ns.saturating_add(opt.from_ns),
                opt.to_ns.map_or(u64::MAX, |t| p.time_ns.saturating_add(t)),
            );
            p.time_ns
        });
        if p.time_ns < last_ns {
            out.warnings.push(format!(
                "packet {} is {} ns earlier than the one before it (the capture is not in time order; \
                 RTTs around it are unreliable)",
                cap.records,
                last_ns - p.time_ns
            ));
        }
        let now = p.time_ns.max(last_ns);
        last_ns = now;
        out.tcp_packets += 1;
        let s = End {
            addr: p.src,
            v6: p.v6,
            port: p.sport,
        };
        let d = End {
            addr: p.dst,
            v6: p.v6,
            port: p.dport,
        };
        let key = if (s.addr, s.port) <= (d.addr, d.port) {
            (s, d)
        } else {
            (d, s)
        };
        let mut at = match last_key {
            Some((k, i)) if k == key => Some(i),
            _ => index.get(&key).copied(),
        };
        let fresh_syn = p.syn() && !p.has_ack();
        if let Some(i) = at {
            if fresh_syn && conns[i].closed && conns[i].data_seen {
                at = None; // the 4-tuple is reused by a new connection
            }
        }
        let i = match at {
            Some(i) => i,
            None => {
                // Direction 0 is the initiator: a SYN's sender, a SYN-ACK's receiver, else
                // the first packet's sender.
                let (a, b) = if p.syn() && p.has_ack() { (d, s) } else { (s, d) };
                conns.push(Conn {
                    id: conns.len() as u32,
                    a,
                    b,
                    dirs: [Direction::default(), Direction::default()],
                    closed: false,
                    window: [0, 0],
                    data_seen: false,
                    ecn: [EcnCounters::default(); 2],
                    syn_ecn: None,
                    synack_ecn: None,
                    accecn: ecn::AccEcnMode::default(),
                });
                index.insert(key, conns.len() - 1);
                conns.len() - 1
            }
        };
        last_key = Some((key, i));
        let c = &mut conns[i];
        let from = if s == c.a { 0 } else { 1 };
        let record = opt.record_conn == Some(c.id);
        step(c, from, &p, now, window, t0, record, opt.max_points, &mut out);
    }
    out.records = cap.records;
    out.truncated_file = cap.truncated;
    let Skipped {
        not_tcp,
        fragments,
        cut_headers,
        malformed,
        untimed,
        ..
    } = cap.skipped;
    out.skipped_not_tcp = not_tcp;
    out.skipped_fragments = fragments;
    out.skipped_cut_headers = cut_headers;
    out.skipped_malformed = malformed;
    out.skipped_untimed = untimed;
    let Some(t0) = first else {
        return Err(CaptureError::NoTcp {
            records: cap.records,
            skipped: cap.skipped,
        });
    };
    out.first_ns = t0;
    out.last_ns = last_ns;
    out.connections = conns.len() as u32;
    let end = last_ns.saturating_add(1).min(window.1);
    let start = window.0.min(end);
    let window_s = if opt.to_ns.is_some() {
        window.1.saturating_sub(window.0) as f64 * 1e-9
    } else {
        (end - start) as f64 * 1e-9
    };
    for c in &mut conns {
        for dir in 0..2 {
            let d = &mut c.dirs[dir];
            if d.total_segments == 0 || d.mss == 0 {
                continue;
            }
            d.finish(end, window);
            let mut r = result(
                c.id,
                dir as u32,
                &c.a,
                &c.b,
                d,
                t0,
                window_s,
                end.saturating_sub(start),
            );
            c.ecn[dir].fill(&mut r, ecn::handshake(c.syn_ecn, c.synack_ecn));
            if r.mid_stream {
                out.warnings.push(format!(
                    "connection {} {} -> {}: no handshake in the capture (it starts mid-stream, or the capture \
                     is a simulation's); bytes count from the first one seen",
                    r.conn, r.src, r.dst
                ));
            }
            out.directions.push(r);
        }
    }
    let s = &cap.skipped;
    if cap.truncated {
        out.warnings.push(format!(
            "the file ends inside a record: only the {} complete records before it were analyzed",
            cap.records
        ));
    }
    for (n, what) in [
        (s.cut_headers, "had their IP or TCP header cut by the snap length"),
        (s.fragments, "were IP fragments"),
        (s.malformed, "had impossible header lengths"),
        (s.untimed, "were pcapng simple packet blocks (no timestamp)"),
    ] {
        if n > 0 {
            out.warnings.push(format!("skipped {n} records that {what}"));
        }
    }
    if s.options_cut > 0 {
        out.warnings.push(format!(
            "{} TCP segments had their options cut by the snap length: timestamps or SACK blocks after the cut \
             are missing from them",
            s.options_cut
        ));
    }
    Ok(out)
}

/// One packet of connection `c` from side `from`.
#[allow(clippy::too_many_arguments)]
fn step(
    c: &mut Conn,
    from: usize,
    p: &TcpPacket,
    now: u64,
    window: (u64, u64),
    t0: u64,
    record: bool,
    max_points: usize,
    out: &mut Analysis,
) {
    let to = 1 - from;
    if p.rst() || p.fin() {
        c.closed = true;
    }
    let inside = now >= window.0 && now <= window.1;
    if p.syn() {
        c.dirs[from].syn(p.seq, p.mss, p.wscale);
        let bits = Some(ecn::syn_bits(p.ae, p.cwr(), p.ece()));
        if p.has_ack() {
            c.synack_ecn = bits;
            c.accecn.synack(ecn::handshake(c.syn_ecn, bits), &mut c.ecn);
        } else {
            c.syn_ecn = bits;
        }
    } else {
        c.accecn.segment(p, c.syn_ecn.is_some());
        if p.cwr() && !c.accecn.on {
            c.ecn[from].cwr(inside);
        }
    }
    c.window[from] = p.window;
    let rel_t = now - t0;
    let push_seg = |out: &mut Analysis, r: SegmentRecord| {
        if out.segments.len() < max_points {
            out.segments.push(r);
        } else {
            out.records_truncated = true;
        }
    };
    if p.payload > 0 {
        c.data_seen = true;
        let seen = c.dirs[from].data(now, p.seq, p.payload, p.ts.map(|t| t.0), window);
        c.ecn[from].data(p.ecn, seen.seq, inside);
        if record {
            let d = &c.dirs[from];
            push_seg(
                out,
                SegmentRecord {
                    time_ns: rel_t,
                    dir: from as u32,
                    kind: "data",
                    seq: seen.seq,
                    len: p.payload,
                    window_edge: 0,
                    retransmit: seen.retransmit,
                    sack_start: 0,
                    sack_end: 0,
                    flight: (d.snd_max - d.snd_una).max(0) as u64,
                },
            );
        }
    }
    if p.fin() {
        c.dirs[from].fin(p.seq.wrapping_add(p.payload));
    }
    if p.has_ack() {
        let sack = &p.sack[..p.sack_n as usize];
        let pure = p.payload == 0 && !p.syn() && !p.fin();
        let una_before = c.dirs[to].snd_una;
        let seen = c.dirs[to].ack(now, p.ack, p.ts.map(|t| t.1), sack, pure, window);
        let d = &c.dirs[to];
        let acked = (d.snd_una - una_before).max(0) as u64;
        let echo = c.accecn.echo(&mut c.ecn[to], p, from == 0, acked, d.mss, inside);
        c.ecn[to].ack(echo, d.snd_una, d.snd_max, inside);
        if record {
            // The window of the ACK's sender, scaled if both SYNs negotiated it (RFC 7323).
            // A SYN's own window is never scaled (RFC 7323 Sec. 2.2).
            let scale = match (c.dirs[from].wscale, c.dirs[to].wscale) {
                (Some(s), Some(_)) if !p.syn() => s as u32,
                _ => 0,
            };
            let d = &c.dirs[to];
            let (sack_start, sack_end) = match sack.first() {
                Some(&(l, r)) => {
                    let base = d.base.unwrap_or(0);
                    let off = |x: u32| {
                        seen.seq + (x.wrapping_sub(base).wrapping_sub(seen.seq as u32) as i32) as i64
                    };
                    (off(l), off(r))
                }
                None => (0, 0),
            };
            push_seg(
                out,
                SegmentRecord {
                    time_ns: rel_t,
                    dir: to as u32,
                    kind: "ack",
                    seq: seen.seq,
                    len: 0,
                    window_edge: seen.seq + ((p.window as i64) << scale),
                    retransmit: false,
                    sack_start,
                    sack_end,
                    flight: (d.snd_max - d.snd_una).max(0) as u64,
                },
            );
            for (rtt, source) in [(seen.rtt_karn, "karn"), (seen.rtt_ts, "timestamp")] {
                if let Some(r) = rtt {
                    if out.rtts.len() < max_points {
                        out.rtts.push(RttRecord {
                            time_ns: rel_t,
                            dir: to as u32,
                            rtt_ns: r,
                            source,
                        });
                    } else {
                        out.records_truncated = true;
                    }
                }
            }
        }
    }
}

fn mean(sum: u128, n: u64) -> f64 {
    if n == 0 {
        f64::NAN
    } else {
        sum as f64 / n as f64 * 1e-9
    }
}

#[allow(clippy::too_many_arguments)]
fn result(
    conn: u32,
    dir: u32,
    a: &End,
    b: &End,
    d: &Direction,
    t0: u64,
    window_s: f64,
    span_ns: u64,
) -> DirectionResult {
    let c = &d.c;
    let (src, dst) = if dir == 0 { (a, b) } else { (b, a) };
    // The largest payload seen (the SYN's MSS option is only its upper bound: options such
    // as timestamps take from it).
    let mss = if d.mss > 0 {
        d.mss
    } else {
        d.syn_mss.map_or(0, |m| m as u32)
    };
    let ratio = |a: u64, b: u64| if b == 0 { f64::NAN } else { a as f64 / b as f64 };
    let (first_ns, last_ns) = d.send_span().unwrap_or((t0, t0));
    DirectionResult {
        conn,
        dir,
        src: show(src),
        dst: show(dst),
        handshake: d.handshake,
        mid_stream: d.mid_stream,
        first_s: (first_ns - t0) as f64 * 1e-9,
        last_s: (last_ns - t0) as f64 * 1e-9,
        window_s,
        mss_bytes: mss,
        segments_sent: c.segments_sent,
        bytes_sent: c.bytes_sent,
        segments_retransmitted: c.segments_retransmitted,
        fast_retransmits: c.fast_retransmits,
        timeouts: c.timeouts,
        recovery_retransmits: c.recovery_retransmits,
        dsacks: c.dsacks,
        spurious_retransmits: c.spurious_retransmits,
        dupacks: c.dupacks,
        acks: c.acks,
        bytes_acked: c.bytes_acked,
        goodput_bps: if window_s > 0.0 {
            c.bytes_acked as f64 * 8.0 / window_s
        } else {
            f64::NAN
        },
        ca_events: c.episodes.ca_events,
        non_ca_events: c.episodes.non_ca_events,
        other_losses: c.episodes.other_losses,
        loss_events: c.episodes.loss_events,
        p: if c.bytes_acked == 0 {
            f64::NAN
        } else {
            c.episodes.ca_events as f64 * mss as f64 / c.bytes_acked as f64
        },
        loss_event_rate: ratio(c.episodes.loss_events, c.segments_sent),
        packet_loss_rate: ratio(c.segments_retransmitted, c.segments_sent),
        rtt_samples: c.rtt_samples,
        mean_rtt_s: mean(c.rtt_sum_ns, c.rtt_samples),
        min_rtt_s: if c.rtt_samples == 0 {
            f64::NAN
        } else {
            c.rtt_min_ns as f64 * 1e-9
        },
        max_rtt_s: if c.rtt_samples == 0 {
            f64::NAN
        } else {
            c.rtt_max_ns as f64 * 1e-9
        },
        ts_rtt_samples: c.ts_rtt_samples,
        ts_mean_rtt_s: mean(c.ts_rtt_sum_ns, c.ts_rtt_samples),
        rto_s: mean(c.rto_sum_ns, c.rto_samples),
        rto_estimate_s: d.rto_estimate_ns().map_or(f64::NAN, |r| r * 1e-9),
        mean_flight_bytes: if span_ns == 0 {
            f64::NAN
        } else {
            c.flight_area as f64 / span_ns as f64
        },
        max_flight_bytes: c.flight_max,
        seq_wraps: d.wraps(),
        open_episode: d.episode_open(),
        ecn_handshake: "unseen",
        ect0_segments: 0,
        ect1_segments: 0,
        ce_segments: 0,
        ece_acks: 0,
        cwr_segments: 0,
        ecn_reductions: 0,
        accecn_ce_packets: 0,
        accecn_ce_bytes: 0,
        rounds: 0,
        marks_per_rtt: f64::NAN,
        marking_rate: f64::NAN,
    }
}
