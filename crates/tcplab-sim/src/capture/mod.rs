//! Captures from elsewhere: reading pcap and pcapng files ([`read`], frames decoded by
//! `decode.rs`) and analyzing the TCP connections in them ([`analyze`], `tcplab trace
//! analyze`): the papers' instruments measured on the wire. A real kernel's capture and a
//! simulated one (`trace.pcap`) are read the same way. The loss episodes are counted by the
//! rules the simulated senders use (`tcp::instruments::episode`). What the simulator itself
//! records (trace records, the recorder, pcap writing) is `trace`'s. docs/pcap.md describes
//! both sides.

pub mod analyze;
mod decode;
pub mod read;

pub use read::{Capture, CaptureError, Skipped, TcpPacket};
