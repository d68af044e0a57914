//! libpcap files: writing a simulated link's packets as Ethernet/IPv4/TCP frames
//! (`write.rs`, `frame.rs`) and reading captures, pcap or pcapng, into TCP segments
//! (`read.rs`). docs/pcap.md describes the wire format of a simulated capture.

pub mod frame;
pub mod read;
pub mod write;

pub use read::{Capture, CaptureError, TcpPacket};
pub use write::{PcapCapture, PcapWriter};
