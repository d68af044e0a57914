//! The emulator's capture: raw IP packets (LINKTYPE_RAW) as the real senders saw them, stamped
//! with simulated time, in a libpcap file built in memory and written whole at the end.

use crate::error::Error;
use crate::time::SimTime;
use crate::trace::pcap::write::{file_header, PcapCapture};

/// LINKTYPE_RAW: each record is an IPv4 or IPv6 packet.
pub const LINKTYPE_RAW: u32 = 101;

/// The file is kept in chunks of `CHUNK` bytes: appending never copies what came before (a
/// growing vector's reallocation would stall the real-time loop for milliseconds).
pub struct RawCapture {
    file: String,
    snaplen: u32,
    max_packets: u64,
    packets: u64,
    truncated: bool,
    chunks: Vec<Vec<u8>>,
}

const CHUNK: usize = 1 << 20;

impl RawCapture {
    pub fn new(file: String, snaplen: u32, max_packets: u64) -> RawCapture {
        RawCapture {
            file,
            snaplen,
            max_packets,
            packets: 0,
            truncated: false,
            chunks: vec![file_header(snaplen, LINKTYPE_RAW).to_vec()],
        }
    }

    /// Appends a packet seen at `at`, cut to the snap length.
    pub fn packet(&mut self, at: SimTime, ip: &[u8]) {
        if self.packets >= self.max_packets {
            self.truncated = true;
            return;
        }
        let kept = ip.len().min(self.snaplen as usize);
        let ns = at.ns();
        let last = self.chunks.last().expect("the header's chunk");
        if last.len() + 16 + kept > last.capacity() {
            self.chunks.push(Vec::with_capacity(CHUNK.max(16 + kept)));
        }
        let b = self.chunks.last_mut().expect("a chunk");
        b.extend_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        b.extend_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        b.extend_from_slice(&(kept as u32).to_le_bytes());
        b.extend_from_slice(&(ip.len() as u32).to_le_bytes());
        b.extend_from_slice(&ip[..kept]);
        self.packets += 1;
    }

    pub fn packets(&self) -> u64 {
        self.packets
    }

    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Writes the file whole (through `<file>.partial`, renamed).
    pub fn write(self) -> Result<(), Error> {
        PcapCapture {
            file: self.file,
            bytes: self.chunks.concat(),
            packets: self.packets,
            truncated: self.truncated,
        }
        .write("emulate.capture")
    }
}
