//! The traces as record batches: the columns of docs/traces.md. Every trace starts with
//! `time_s` (f64 seconds, for plotting) and `time_ns` (the exact integer time); link indices
//! come with the link's name as a dictionary column that shares the index as its key.

use super::{batch, bools, dict, f64s, opt_u64s, u32s, u64s, Column};
use crate::tcp::ns2::agent::VAR_NAMES;
use crate::time::SimTime;
use crate::trace::{
    ecn_name, kind_name, CwndRecord, Ns2VarRecord, PacketEventKind, PacketRecord, QueueRecord, CAUSES,
    ECN_CODEPOINTS, PACKET_KINDS,
};
use arrow_array::RecordBatch;
use arrow_schema::ArrowError;

fn times(t: impl Iterator<Item = SimTime> + Clone) -> [Column; 2] {
    [
        f64s("time_s", t.clone().map(|t| t.secs_f64())),
        u64s("time_ns", t.map(|t| t.ns())),
    ]
}

/// Index of `x` in `all` (the dictionary order of the schema).
fn index<T: PartialEq>(all: &[T], x: &T) -> u32 {
    all.iter().position(|a| a == x).expect("every variant is listed") as u32
}

/// Packet events: time_s, time_ns, link, link_name, event, flow, kind, seq, ack, size, len,
/// retransmit, cause, ecn. `links` names the link directions by index.
pub fn packets(rows: &[PacketRecord], links: &[&str]) -> Result<RecordBatch, ArrowError> {
    let it = || rows.iter();
    let events: Vec<&str> = PacketEventKind::ALL.iter().map(|e| e.name()).collect();
    let kinds: Vec<&str> = PACKET_KINDS.iter().map(|k| kind_name(*k)).collect();
    let ecns: Vec<&str> = ECN_CODEPOINTS.iter().map(|e| ecn_name(*e)).collect();
    let mut cols = Vec::from(times(it().map(|e| e.time)));
    cols.extend([
        u32s("link", it().map(|e| e.link)),
        dict("link_name", it().map(|e| Some(e.link)), links, false)?,
        dict(
            "event",
            it().map(|e| Some(index(&PacketEventKind::ALL, &e.event))),
            &events,
            false,
        )?,
        u32s("flow", it().map(|e| e.flow)),
        dict(
            "kind",
            it().map(|e| Some(index(&PACKET_KINDS, &e.kind))),
            &kinds,
            false,
        )?,
        u64s("seq", it().map(|e| e.seq)),
        u64s("ack", it().map(|e| e.ack)),
        u32s("size", it().map(|e| e.size)),
        u32s("len", it().map(|e| e.len)),
        bools("retransmit", it().map(|e| e.retransmit)),
        dict(
            "cause",
            it().map(|e| e.cause_name().map(|c| index(&CAUSES, &c))),
            &CAUSES,
            true,
        )?,
        dict(
            "ecn",
            it().map(|e| Some(index(&ECN_CODEPOINTS, &e.ecn))),
            &ecns,
            false,
        )?,
    ]);
    batch(cols)
}

/// cwnd trace: time_s, time_ns, flow, cwnd_bytes, ssthresh_bytes (null before a loss set it).
pub fn cwnd(rows: &[CwndRecord]) -> Result<RecordBatch, ArrowError> {
    let it = || rows.iter();
    let mut cols = Vec::from(times(it().map(|c| c.time)));
    cols.extend([
        u32s("flow", it().map(|c| c.flow)),
        u64s("cwnd_bytes", it().map(|c| c.cwnd_bytes)),
        opt_u64s("ssthresh_bytes", it().map(|c| c.ssthresh_bytes)),
    ]);
    batch(cols)
}

/// Queue trace: time_s, time_ns, link, link_name, packets, bytes.
pub fn queue(rows: &[QueueRecord], links: &[&str]) -> Result<RecordBatch, ArrowError> {
    let it = || rows.iter();
    let mut cols = Vec::from(times(it().map(|q| q.time)));
    cols.extend([
        u32s("link", it().map(|q| q.link)),
        dict("link_name", it().map(|q| Some(q.link)), links, false)?,
        u64s("packets", it().map(|q| q.packets)),
        u64s("bytes", it().map(|q| q.bytes)),
    ]);
    batch(cols)
}

/// ns-2's sender variables: time_s, time_ns, flow, var, value.
pub fn ns2_vars(rows: &[Ns2VarRecord]) -> Result<RecordBatch, ArrowError> {
    let it = || rows.iter();
    let mut cols = Vec::from(times(it().map(|v| v.time)));
    cols.extend([
        u32s("flow", it().map(|v| v.flow)),
        dict(
            "var",
            it().map(|v| Some(index(&VAR_NAMES, &v.var))),
            &VAR_NAMES,
            false,
        )?,
        f64s("value", it().map(|v| v.value)),
    ]);
    batch(cols)
}
