//! libpcap files: writing a simulated link's packets as Ethernet/IPv4/TCP frames
//! (`write.rs`, `frame.rs`). Reading captures is `crate::capture`'s. docs/pcap.md describes
//! the wire format of a simulated capture.

pub mod frame;
pub mod write;

pub use write::{PcapCapture, PcapWriter};
