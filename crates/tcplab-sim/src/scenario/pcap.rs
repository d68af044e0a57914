//! `trace.pcap`: packet captures written as libpcap files (docs/pcap.md). One capture is a
//! table, several an array of tables; each taps link directions (`link`, at their input or
//! output) or a node (`node`: every packet leaving it and every packet delivered to it, what
//! tcpdump on that host would see). The size bound is checked before the run.

use super::{invalid, FlowSpec, Profile};
use crate::error::Error;
use crate::time::Size;
use schemars::JsonSchema;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::marker::PhantomData;

/// Where on a link direction a capture sees packets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CapturePoint {
    /// Every packet offered to the link, before its loss module and queue (also those then
    /// dropped), at the time of the offer.
    #[default]
    In,
    /// Every packet the link delivers, when its last bit reaches the far end.
    Out,
}

/// One capture file.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// The link direction(s) tapped ("hop0.fwd" or ["hop0.fwd", "hop0.rev"]); or give `node`.
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(with = "OneOrMany<String>")]
    pub link: Vec<String>,
    /// A node tapped like a host's interface: packets leaving it (when offered to the link)
    /// and packets delivered to it.
    #[serde(default)]
    pub node: Option<String>,
    /// The file written (libpcap, nanosecond timestamps, Ethernet), relative to the working
    /// directory. Written when the run ends, through a temporary file: never half-written.
    pub file: String,
    /// With `link`: "in" (offered to the link, default) or "out" (delivered by it).
    #[serde(default)]
    pub at: CapturePoint,
    /// Packets kept; later ones are not written and the run's traces are marked truncated.
    #[serde(default = "default_max_packets")]
    pub max_packets: u64,
    /// Bytes of each frame kept (the rest is cut, as tcpdump -s does).
    #[serde(default = "default_snaplen")]
    pub snaplen: u32,
    /// Refuse a run whose file could exceed this size (max_packets frames of the largest
    /// packet the scenario can send, cut to snaplen).
    #[serde(default = "default_max_bytes")]
    pub max_bytes: Size,
}

fn default_max_packets() -> u64 {
    500_000
}
fn default_snaplen() -> u32 {
    65_535
}
fn default_max_bytes() -> Size {
    Size(1_000_000_000)
}

/// Bytes of a pcap file header and of each record header.
pub const PCAP_FILE_HEADER: u64 = 24;
pub const PCAP_RECORD_HEADER: u64 = 16;
/// Ethernet + IPv4 + the largest TCP header (with 40 bytes of options) around a payload.
pub const FRAME_OVERHEAD: u64 = 14 + 20 + 60;
/// Snap lengths accepted: the base headers (Ethernet, IPv4, TCP) to 64 KiB.
pub const SNAPLEN_RANGE: (u32, u32) = (54, 65_535);
/// Largest file a capture may be allowed to reach (it is held in memory until the run ends).
pub const MAX_FILE_BYTES: u64 = 4_000_000_000;

/// Schema-only: a value or a list of them.
#[derive(JsonSchema)]
#[allow(dead_code)]
#[serde(untagged)]
enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

/// Schema-only: one capture table or a list of them.
#[derive(JsonSchema)]
#[allow(dead_code)]
#[serde(untagged)]
pub(crate) enum Captures {
    One(PcapSpec),
    Many(Vec<PcapSpec>),
}

/// Deserializes a single value or a sequence of them into a Vec (errors keep their path).
pub(crate) fn one_or_many<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct V<T>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("one value or a list of them")
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Vec<T>, E> {
            T::deserialize(de::value::StrDeserializer::new(s)).map(|v| vec![v])
        }
        fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Vec<T>, A::Error> {
            T::deserialize(de::value::MapAccessDeserializer::new(m)).map(|v| vec![v])
        }
        fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<Vec<T>, A::Error> {
            Vec::<T>::deserialize(de::value::SeqAccessDeserializer::new(s))
        }
    }
    d.deserialize_any(V(PhantomData))
}

/// The largest IP packet a flow of these specs can put on a link, for the size bound.
fn largest_payload(flows: &[FlowSpec], traffic: &[super::TrafficSpec]) -> u64 {
    let tcp = flows
        .iter()
        .chain(traffic.iter().filter_map(|t| t.tcp.as_ref()))
        .map(|f| f.mss as u64)
        .max()
        .unwrap_or(0);
    let udp = traffic
        .iter()
        .filter_map(|t| t.packet.map(|s| s.0))
        .max()
        .unwrap_or(super::DEFAULT_PACKET);
    tcp.max(udp).max(super::default_mss() as u64)
}

impl PcapSpec {
    /// The file's worst-case size: a header and max_packets records of the largest frame.
    pub fn bound_bytes(&self, largest_payload: u64) -> u128 {
        let frame = (largest_payload + FRAME_OVERHEAD).min(self.snaplen as u64);
        PCAP_FILE_HEADER as u128 + self.max_packets as u128 * (PCAP_RECORD_HEADER + frame) as u128
    }

    fn validate(&self, at: &str, largest: u64) -> Result<(), Error> {
        match (self.link.is_empty(), &self.node) {
            (true, None) => {
                return Err(invalid(
                    format!("{at}.link"),
                    "missing (expected a link direction, a list of them, or node = \"name\")",
                ))
            }
            (false, Some(_)) => {
                return Err(invalid(
                    format!("{at}.node"),
                    "given with link (expected one of link or node)",
                ))
            }
            _ => {}
        }
        if self.node.is_some() && self.at != CapturePoint::In {
            return Err(invalid(
                format!("{at}.at"),
                "applies to link captures (a node capture sees packets leaving and arriving)",
            ));
        }
        if self.file.trim().is_empty() {
            return Err(invalid(format!("{at}.file"), "empty (expected a file name)"));
        }
        let (lo, hi) = SNAPLEN_RANGE;
        if !(lo..=hi).contains(&self.snaplen) {
            return Err(invalid(
                format!("{at}.snaplen"),
                format!(
                    "{} (expected {lo} to {hi} bytes: Ethernet, IPv4 and TCP headers at least)",
                    self.snaplen
                ),
            ));
        }
        if self.max_packets == 0 {
            return Err(invalid(
                format!("{at}.max_packets"),
                "0 (expected at least 1 packet)",
            ));
        }
        if self.max_bytes.0 == 0 || self.max_bytes.0 > MAX_FILE_BYTES {
            return Err(invalid(
                format!("{at}.max_bytes"),
                format!("{} (expected 1 to {MAX_FILE_BYTES} bytes)", self.max_bytes.0),
            ));
        }
        let bound = self.bound_bytes(largest);
        if bound > self.max_bytes.0 as u128 {
            return Err(invalid(
                format!("{at}.max_packets"),
                format!(
                    "{} packets of up to {} bytes could make a {bound}-byte file, over max_bytes = {} \
                     (expected max_packets x (16 + min(snaplen, largest frame)) + 24 <= max_bytes: \
                     lower max_packets or snaplen, or raise max_bytes)",
                    self.max_packets,
                    (largest + FRAME_OVERHEAD).min(self.snaplen as u64),
                    self.max_bytes.0
                ),
            ));
        }
        Ok(())
    }
}

/// Checks every capture of `trace.pcap` (the link and node names are checked against the
/// network in `crate::load`).
pub(crate) fn validate(
    captures: &[PcapSpec],
    flows: &[FlowSpec],
    traffic: &[super::TrafficSpec],
) -> Result<(), Error> {
    if captures.is_empty() {
        return Ok(());
    }
    if captures.len() > 32 {
        return Err(invalid(
            "trace.pcap",
            format!("{} captures (expected at most 32)", captures.len()),
        ));
    }
    if let Some(i) = flows.iter().position(|f| f.profile == Some(Profile::Ns2)) {
        return Err(invalid(
            format!("flows[{i}].profile"),
            "\"ns2\" numbers packets, not bytes, so it has no TCP header to write \
             (expected the native senders with trace.pcap)",
        ));
    }
    let largest = largest_payload(flows, traffic);
    for (i, c) in captures.iter().enumerate() {
        c.validate(&format!("trace.pcap[{i}]"), largest)?;
        if let Some(j) = captures[..i].iter().position(|o| o.file == c.file) {
            return Err(invalid(
                format!("trace.pcap[{i}].file"),
                format!(
                    "{:?} is also the file of trace.pcap[{j}] (expected one file per capture)",
                    c.file
                ),
            ));
        }
    }
    Ok(())
}
