//! A capture analysis (`capture::analyze`) as Arrow record batches: `connections` (one row per
//! data direction), `segments` and `rtt` (the recorded connection's packets and RTT samples).
//! Columns: docs/pcap.md.

use super::{batch, bools, dict, f64s, strs, u32s, u64s, Column};
use crate::capture::analyze::{Analysis, DirectionResult, RttRecord, SegmentRecord};
use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field};
use std::sync::Arc;

fn i64s(name: &str, v: impl Iterator<Item = i64>) -> Column {
    (
        Field::new(name, DataType::Int64, false),
        Arc::new(Int64Array::from_iter_values(v)),
    )
}

/// Every table of an analysis, by name.
pub fn tables(a: &Analysis) -> Result<Vec<(&'static str, RecordBatch)>, ArrowError> {
    Ok(vec![
        ("connections", connections(&a.directions)?),
        ("segments", segments(&a.segments)?),
        ("rtt", rtts(&a.rtts)?),
    ])
}

pub fn connections(d: &[DirectionResult]) -> Result<RecordBatch, ArrowError> {
    macro_rules! col {
        (u64 $f:ident) => {
            u64s(stringify!($f), d.iter().map(|r| r.$f))
        };
        (u32 $f:ident) => {
            u32s(stringify!($f), d.iter().map(|r| r.$f))
        };
        (f64 $f:ident) => {
            f64s(stringify!($f), d.iter().map(|r| r.$f))
        };
        (bool $f:ident) => {
            bools(stringify!($f), d.iter().map(|r| r.$f))
        };
    }
    batch(vec![
        col!(u32 conn),
        col!(u32 dir),
        strs("src", d.iter().map(|r| r.src.as_str())),
        strs("dst", d.iter().map(|r| r.dst.as_str())),
        col!(bool handshake),
        col!(bool mid_stream),
        col!(f64 first_s),
        col!(f64 last_s),
        col!(f64 window_s),
        col!(u32 mss_bytes),
        col!(u64 segments_sent),
        col!(u64 bytes_sent),
        col!(u64 segments_retransmitted),
        col!(u64 fast_retransmits),
        col!(u64 timeouts),
        col!(u64 recovery_retransmits),
        col!(u64 dsacks),
        col!(u64 spurious_retransmits),
        col!(u64 dupacks),
        col!(u64 acks),
        col!(u64 bytes_acked),
        col!(f64 goodput_bps),
        col!(u64 ca_events),
        col!(u64 non_ca_events),
        col!(u64 other_losses),
        col!(u64 loss_events),
        col!(f64 p),
        col!(f64 loss_event_rate),
        col!(f64 packet_loss_rate),
        col!(u64 rtt_samples),
        col!(f64 mean_rtt_s),
        col!(f64 min_rtt_s),
        col!(f64 max_rtt_s),
        col!(u64 ts_rtt_samples),
        col!(f64 ts_mean_rtt_s),
        col!(f64 rto_s),
        col!(f64 rto_estimate_s),
        col!(f64 mean_flight_bytes),
        col!(u64 max_flight_bytes),
        col!(u32 seq_wraps),
        col!(bool open_episode),
        strs("ecn_handshake", d.iter().map(|r| r.ecn_handshake)),
        col!(u64 ect0_segments),
        col!(u64 ect1_segments),
        col!(u64 ce_segments),
        col!(u64 ece_acks),
        col!(u64 cwr_segments),
        col!(u64 ecn_reductions),
        col!(u64 accecn_ce_packets),
        col!(u64 accecn_ce_bytes),
        col!(u64 rounds),
        col!(f64 marks_per_rtt),
        col!(f64 marking_rate),
    ])
}

pub fn segments(s: &[SegmentRecord]) -> Result<RecordBatch, ArrowError> {
    const KINDS: [&str; 2] = ["data", "ack"];
    batch(vec![
        f64s("time_s", s.iter().map(|r| r.time_ns as f64 * 1e-9)),
        u64s("time_ns", s.iter().map(|r| r.time_ns)),
        u32s("dir", s.iter().map(|r| r.dir)),
        dict(
            "kind",
            s.iter().map(|r| Some((r.kind == "ack") as u32)),
            &KINDS,
            false,
        )?,
        i64s("seq", s.iter().map(|r| r.seq)),
        u32s("len", s.iter().map(|r| r.len)),
        i64s("window_edge", s.iter().map(|r| r.window_edge)),
        bools("retransmit", s.iter().map(|r| r.retransmit)),
        i64s("sack_start", s.iter().map(|r| r.sack_start)),
        i64s("sack_end", s.iter().map(|r| r.sack_end)),
        u64s("flight_bytes", s.iter().map(|r| r.flight)),
    ])
}

pub fn rtts(s: &[RttRecord]) -> Result<RecordBatch, ArrowError> {
    const SOURCES: [&str; 2] = ["karn", "timestamp"];
    batch(vec![
        f64s("time_s", s.iter().map(|r| r.time_ns as f64 * 1e-9)),
        u64s("time_ns", s.iter().map(|r| r.time_ns)),
        u32s("dir", s.iter().map(|r| r.dir)),
        f64s("rtt_s", s.iter().map(|r| r.rtt_ns as f64 * 1e-9)),
        dict(
            "source",
            s.iter().map(|r| Some((r.source == "timestamp") as u32)),
            &SOURCES,
            false,
        )?,
    ])
}
