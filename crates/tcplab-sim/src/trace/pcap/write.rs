//! The pcap writer: frames appended to an in-memory libpcap file (nanosecond timestamps,
//! LINKTYPE_ETHERNET), bounded by the capture's packet limit; written to disk when the run
//! ends, through a temporary file renamed into place.

use super::frame::{self, FlowWire};
use crate::error::Error;
use crate::net::packet::Packet;
use crate::scenario::PcapSpec;
use crate::tcp::segment::Segment;
use crate::time::SimTime;

/// The nanosecond-resolution pcap magic number.
pub const MAGIC_NS: u32 = 0xA1B2_3C4D;
pub const LINKTYPE_ETHERNET: u32 = 1;

/// A capture's file, built in memory.
#[derive(Clone, Debug)]
pub struct PcapWriter {
    file: String,
    snaplen: u32,
    max_packets: u64,
    packets: u64,
    truncated: bool,
    bytes: Vec<u8>,
    scratch: Vec<u8>,
}

/// A finished capture: its file name and contents.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PcapCapture {
    pub file: String,
    pub bytes: Vec<u8>,
    /// Packets written.
    pub packets: u64,
    /// The packet limit was reached and later packets were left out.
    pub truncated: bool,
}

/// The 24-byte pcap file header.
pub fn file_header(snaplen: u32, linktype: u32) -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    h[16..20].copy_from_slice(&snaplen.to_le_bytes());
    h[20..24].copy_from_slice(&linktype.to_le_bytes());
    h
}

impl PcapWriter {
    pub fn new(spec: &PcapSpec) -> Self {
        PcapWriter {
            file: spec.file.clone(),
            snaplen: spec.snaplen,
            max_packets: spec.max_packets,
            packets: 0,
            truncated: false,
            bytes: file_header(spec.snaplen, LINKTYPE_ETHERNET).to_vec(),
            scratch: Vec::with_capacity(128),
        }
    }

    /// Appends `p` as seen at `now` (or marks the capture truncated when it is full).
    pub fn packet(&mut self, now: SimTime, p: &Packet, seg: &Segment, wire: FlowWire) {
        if self.packets >= self.max_packets {
            self.truncated = true;
            return;
        }
        let id = self.packets as u16;
        let len = frame::encode(p, seg, wire, now, id, self.snaplen as usize, &mut self.scratch);
        let ns = now.ns();
        let b = &mut self.bytes;
        b.extend_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        b.extend_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        b.extend_from_slice(&(self.scratch.len() as u32).to_le_bytes());
        b.extend_from_slice(&(len as u32).to_le_bytes());
        b.extend_from_slice(&self.scratch);
        self.packets += 1;
    }

    pub fn finish(self) -> PcapCapture {
        PcapCapture {
            file: self.file,
            bytes: self.bytes,
            packets: self.packets,
            truncated: self.truncated,
        }
    }
}

impl PcapCapture {
    /// Writes the file: to `<file>.partial` first, then renamed, so a failure leaves no
    /// half-written capture under the file's name. `field` names the capture in errors.
    pub fn write(&self, field: &str) -> Result<(), Error> {
        let tmp = format!("{}.partial", self.file);
        let fail = |what: &str, e: std::io::Error| Error::Invalid {
            field: field.to_string(),
            message: format!("cannot {what} {:?}: {e}", self.file),
        };
        if let Err(e) = std::fs::write(&tmp, &self.bytes) {
            let _ = std::fs::remove_file(&tmp);
            return Err(fail("write", e));
        }
        std::fs::rename(&tmp, &self.file).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            fail("rename onto", e)
        })
    }
}
