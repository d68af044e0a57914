//! The typed trace schema: packet events, cwnd/ssthresh, queue length and ns-2's sender
//! variables, as records with named fields. `docs/traces.md` documents every field and the
//! columns they become in Python (Arrow record batches, then polars frames); a pcap reader or
//! an emulated run is to produce the same records. The simulation writes them through the
//! bounded [`TraceRecorder`], and its captures through [`pcap`]'s writer. Reading and
//! analyzing captures is `crate::capture`'s.

pub mod capture;
pub mod pcap;
mod recorder;

pub use capture::Captures;
pub use recorder::TraceRecorder;

use crate::net::packet::{Ecn, PacketKind};
use crate::net::queue::MarkCause;
use crate::net::DropCause;
use crate::time::SimTime;
use serde::{Serialize, Serializer};
use std::fmt;

/// What happened to a packet on a link (ns-2's trace vocabulary, plus `Lost`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PacketEventKind {
    /// Arrived at the link and was admitted to its queue (or went straight to the idle
    /// transmitter). ns-2: `+`.
    Enqueue,
    /// Serialization onto the wire starts. ns-2: `-`.
    Dequeue,
    /// The queue discipline dropped it. ns-2: `d`.
    Drop,
    /// Its last bit reached the far end of the link. ns-2: `r`.
    Receive,
    /// The link's loss module dropped it on arrival (it never reached the queue). ns-2's
    /// `ErrorModel` drops appear as `d` after the `r` of the previous hop; tcplab marks
    /// them `l` so they are told apart from queue drops.
    Lost,
    /// The queue discipline marked it CE instead of dropping it (its `ecn` is then `ce`). ns-2
    /// has no such event (it shows the mark as a flag of the packet's later events); tcplab
    /// writes `m`.
    Mark,
}

impl PacketEventKind {
    /// Every event kind, in the order of the schema's dictionary (docs/traces.md).
    pub const ALL: [PacketEventKind; 6] = [
        PacketEventKind::Enqueue,
        PacketEventKind::Dequeue,
        PacketEventKind::Drop,
        PacketEventKind::Receive,
        PacketEventKind::Lost,
        PacketEventKind::Mark,
    ];

    /// The name used in tables: "enqueue", "dequeue", "drop", "receive", "lost", "mark".
    pub const fn name(self) -> &'static str {
        match self {
            PacketEventKind::Enqueue => "enqueue",
            PacketEventKind::Dequeue => "dequeue",
            PacketEventKind::Drop => "drop",
            PacketEventKind::Receive => "receive",
            PacketEventKind::Lost => "lost",
            PacketEventKind::Mark => "mark",
        }
    }

    /// ns-2's one-letter form: `+`, `-`, `d`, `r`, `l` (and tcplab's `m` for a mark).
    pub const fn ns2(self) -> char {
        match self {
            PacketEventKind::Enqueue => '+',
            PacketEventKind::Dequeue => '-',
            PacketEventKind::Drop => 'd',
            PacketEventKind::Receive => 'r',
            PacketEventKind::Lost => 'l',
            PacketEventKind::Mark => 'm',
        }
    }
}

/// Displays ns-2's letter, as in an ns-2 trace line.
impl fmt::Display for PacketEventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.ns2())
    }
}

/// Every packet kind, in the order of the schema's dictionary (docs/traces.md).
pub const PACKET_KINDS: [PacketKind; 3] = [PacketKind::Data, PacketKind::Ack, PacketKind::Udp];

/// The name of a packet kind in tables: "data", "ack", "udp".
pub const fn kind_name(kind: PacketKind) -> &'static str {
    match kind {
        PacketKind::Data => "data",
        PacketKind::Ack => "ack",
        PacketKind::Udp => "udp",
    }
}

/// Every ECN codepoint, in the order of the schema's dictionary (docs/traces.md).
pub const ECN_CODEPOINTS: [Ecn; 4] = [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce];

/// The name of an ECN codepoint in tables: "not_ect", "ect1", "ect0", "ce".
pub const fn ecn_name(ecn: Ecn) -> &'static str {
    match ecn {
        Ecn::NotEct => "not_ect",
        Ecn::Ect1 => "ect1",
        Ecn::Ect0 => "ect0",
        Ecn::Ce => "ce",
    }
}

/// The `cause` column's names, in the order of its dictionary: the drop causes
/// (`DropCause::ALL`), then the mark causes that are not drop causes too (`threshold`).
pub const CAUSES: [&str; 5] = ["overflow", "early", "sojourn", "loss", "threshold"];

fn ser_ecn<S: Serializer>(e: &Ecn, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(ecn_name(*e))
}

fn ser_ns<S: Serializer>(t: &SimTime, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(t.ns())
}

fn ser_kind<S: Serializer>(k: &PacketKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind_name(*k))
}

/// One packet event on a traced link (`trace.links`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PacketRecord {
    /// When it happened (integer ns since the start of the run).
    #[serde(rename = "time_ns", serialize_with = "ser_ns")]
    pub time: SimTime,
    /// Index of the link direction in the run's links table.
    pub link: u32,
    pub event: PacketEventKind,
    /// The flow (TCP, foreground then background connections) or the UDP source.
    pub flow: u32,
    #[serde(serialize_with = "ser_kind")]
    pub kind: PacketKind,
    /// First payload byte (data segments; 0 for ACKs). ns-2 profile: the packet number.
    pub seq: u64,
    /// Cumulative ACK: the next byte expected (ACKs; 0 for data). ns-2 profile: packets.
    pub ack: u64,
    /// Bytes on the wire (payload and headers).
    pub size: u32,
    /// Payload bytes.
    pub len: u32,
    /// A data segment that repeats bytes sent before.
    pub retransmit: bool,
    /// Why it was dropped (`Drop` and `Lost` events only).
    pub cause: Option<DropCause>,
    /// Why it was marked (`Mark` events only); the `cause` column of the packets table.
    pub mark: Option<MarkCause>,
    /// The IP ECN field as the packet is at this event (`ce` from its mark on).
    #[serde(serialize_with = "ser_ecn")]
    pub ecn: Ecn,
}

impl PacketRecord {
    /// The name of the `cause` column: the drop's or the mark's cause, if any.
    pub fn cause_name(&self) -> Option<&'static str> {
        match (self.cause, self.mark) {
            (Some(c), _) => Some(c.name()),
            (None, Some(m)) => Some(m.name()),
            (None, None) => None,
        }
    }
}

/// The sender's congestion window and slow-start threshold after a change.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CwndRecord {
    #[serde(rename = "time_ns", serialize_with = "ser_ns")]
    pub time: SimTime,
    pub flow: u32,
    pub cwnd_bytes: u64,
    /// None while ssthresh is still "infinite" (its initial value, before the first loss).
    pub ssthresh_bytes: Option<u64>,
}

/// A link direction's queue after a change: packets waiting (not counting the one being
/// serialized) and their bytes on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct QueueRecord {
    #[serde(rename = "time_ns", serialize_with = "ser_ns")]
    pub time: SimTime,
    pub link: u32,
    pub packets: u64,
    pub bytes: u64,
}

/// One of ns-2's traced sender variables after an event that changed it (profile = "ns2").
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Ns2VarRecord {
    #[serde(rename = "time_ns", serialize_with = "ser_ns")]
    pub time: SimTime,
    pub flow: u32,
    /// ns-2's name (`tcp::ns2::agent::VAR_NAMES`: "cwnd_", "ssthresh_", ...).
    pub var: &'static str,
    /// In ns-2's units: packets for windows and sequence numbers, seconds for the timers.
    pub value: f64,
}

/// Every trace a run recorded. All are opt-in (`[trace]`) and bounded (`trace.max_points`
/// per trace: per link-event log, per queue log, per flow for cwnd and ns-2 variables).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Traces {
    /// Packet events on the links named in `trace.links`, in time order.
    pub packets: Vec<PacketRecord>,
    /// `trace.cwnd`: every flow's cwnd and ssthresh at every change, flow by flow.
    pub cwnd: Vec<CwndRecord>,
    /// `trace.queue`: every link direction's queue at every change, in time order.
    pub queue: Vec<QueueRecord>,
    /// `trace.cwnd` with profile = "ns2": ns-2's sender variables, flow by flow.
    pub ns2_vars: Vec<Ns2VarRecord>,
    /// True if a trace reached its point limit and stopped recording.
    pub truncated: bool,
    /// `trace.pcap`: the capture files, in the order of the scenario's captures.
    #[serde(skip)]
    pub pcap: Vec<pcap::PcapCapture>,
}
