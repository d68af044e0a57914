//! ECN on the wire: the analyzer's counts of a scripted connection whose frames the pcap writer
//! encodes (the handshake's negotiation, ECT(0) and CE data, ECE ACKs, CWR, rounds, the
//! marking rate), the same over IPv6, and a real Linux connection with classic ECN whose
//! marks the kernel counted itself (tests/data/linux-ecn.pcap).

use tcplab_sim::capture::analyze::{analyze, DirectionResult, Options};
use tcplab_sim::net::packet::{Ecn, Packet, SegId};
use tcplab_sim::tcp::segment::{Segment, TcpFlags};
use tcplab_sim::time::SimTime;
use tcplab_sim::trace::pcap::frame::{self, FlowWire};
use tcplab_sim::trace::pcap::write::{file_header, LINKTYPE_ETHERNET};

const WIRE: FlowWire = FlowWire {
    timestamps: false,
    window: 65535,
};

fn ms(x: u64) -> SimTime {
    SimTime(x * 1_000_000)
}

/// A pcap of frames built one by one.
struct Pcap(Vec<u8>, u16);

impl Pcap {
    fn new() -> Self {
        Pcap(file_header(65535, LINKTYPE_ETHERNET).to_vec(), 0)
    }

    fn frame(&mut self, at: SimTime, f: &[u8]) {
        let ns = at.ns();
        self.0
            .extend_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        self.0
            .extend_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        self.0.extend_from_slice(&(f.len() as u32).to_le_bytes());
        self.0.extend_from_slice(&(f.len() as u32).to_le_bytes());
        self.0.extend_from_slice(f);
    }

    /// A segment of flow 0 as the simulator's pcap writer encodes it.
    fn seg(&mut self, at: SimTime, seg: Segment, ecn: Ecn) -> Vec<u8> {
        let to = u32::from(seg.len == 0);
        let mut p = Packet::tcp(0, 1 - to, to, &seg, SegId(0));
        p.ecn = ecn;
        let mut out = Vec::new();
        frame::encode(&p, &seg, WIRE, at, self.1, 65535, &mut out);
        self.1 += 1;
        out
    }

    fn data(&mut self, at: SimTime, seq: u64, ecn: Ecn, cwr: bool) {
        let mut s = Segment::data(seq, 1000, 1040);
        s.flags.set(TcpFlags::CWR, cwr);
        let f = self.seg(at, s, ecn);
        self.frame(at, &f);
    }

    fn ack(&mut self, at: SimTime, ack: u64, ece: bool) {
        let mut s = Segment::ack(ack, 40);
        s.flags.set(TcpFlags::ECE, ece);
        let f = self.seg(at, s, Ecn::NotEct);
        self.frame(at, &f);
    }

    /// A SYN (from the sender) or SYN-ACK with the ECN bits (AE, CWR, ECE) = `bits`: the
    /// writer's frame with its flags and sequence numbers set as a handshake's.
    fn syn(&mut self, at: SimTime, synack: bool, bits: u8) {
        let s = if synack {
            Segment::ack(0, 40)
        } else {
            Segment::data(0, 0, 40)
        };
        let mut f = self.seg(at, s, Ecn::NotEct);
        let (isn, ack) = if synack {
            (frame::receiver_isn(0), frame::sender_isn(0).wrapping_add(1))
        } else {
            (frame::sender_isn(0), 0)
        };
        f[38..42].copy_from_slice(&isn.to_be_bytes());
        f[42..46].copy_from_slice(&ack.to_be_bytes());
        f[46] = (f[46] & 0xF0) | (bits >> 2);
        f[47] = 0x02 | if synack { 0x10 } else { 0 } | (bits & 2) << 6 | (bits & 1) << 6;
        self.frame(at, &f);
    }
}

/// A connection with classic ECN: 10 data segments in three rounds, two marked CE, the
/// receiver's ECE until the sender's CWR (RFC 3168 Sec. 6.1.2-6.1.3), all of it captured
/// downstream of the marking queue.
fn scripted(syn: Option<u8>, synack: Option<u8>) -> Vec<u8> {
    let mut c = Pcap::new();
    if let Some(b) = syn {
        c.syn(ms(0), false, b);
    }
    if let Some(b) = synack {
        c.syn(ms(1), true, b);
    }
    // Round 1: the third segment is marked; the ACK that covers it echoes ECE.
    c.data(ms(10), 0, Ecn::Ect0, false);
    c.data(ms(10), 1000, Ecn::Ect0, false);
    c.data(ms(10), 2000, Ecn::Ce, false);
    c.data(ms(10), 3000, Ecn::Ect0, false);
    c.ack(ms(20), 2000, false);
    c.ack(ms(20), 4000, true);
    // Round 2: the sender reduced and says so (CWR); the receiver stops echoing, until the
    // next mark.
    c.data(ms(30), 4000, Ecn::Ect0, true);
    c.data(ms(30), 5000, Ecn::Ect0, false);
    c.data(ms(30), 6000, Ecn::Ce, false);
    c.data(ms(30), 7000, Ecn::Ect0, false);
    c.ack(ms(40), 6000, false);
    c.ack(ms(40), 8000, true);
    // Round 3.
    c.data(ms(50), 8000, Ecn::Ect0, true);
    c.data(ms(50), 9000, Ecn::Ect0, false);
    c.ack(ms(60), 10_000, false);
    c.0
}

fn data(bytes: &[u8]) -> DirectionResult {
    let a = analyze(bytes, Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let d: Vec<_> = a.directions.iter().filter(|d| d.dir == 0).cloned().collect();
    assert_eq!(d.len(), 1, "{:?}", a.directions);
    d[0].clone()
}

#[test]
fn a_scripted_classic_ecn_connection_gives_its_marks_echoes_and_rounds() {
    let d = data(&scripted(Some(0b011), Some(0b001)));
    assert!(d.handshake);
    assert_eq!(d.ecn_handshake, "classic");
    assert_eq!(d.segments_sent, 10);
    assert_eq!((d.ect0_segments, d.ect1_segments, d.ce_segments), (8, 0, 2));
    assert_eq!((d.ece_acks, d.cwr_segments, d.ecn_reductions), (2, 2, 2));
    // Rounds end at the ACKs of 2000 (covers the first segment), 6000 and 10000 (each covers
    // bytes sent after the round before ended).
    assert_eq!(d.rounds, 3);
    assert_eq!(d.marks_per_rtt, 2.0 / 3.0);
    assert_eq!(d.marking_rate, 0.2);
    // Marks are not losses.
    assert_eq!((d.segments_retransmitted, d.loss_events), (0, 0));
    assert_eq!(d.p, 0.0);
}

#[test]
fn the_handshake_says_what_was_negotiated() {
    for (syn, synack, want) in [
        (None, None, "unseen"),
        (Some(0b000), Some(0b000), "off"),
        (Some(0b011), Some(0b000), "refused"),
        (Some(0b011), None, "requested"),
        (Some(0b111), Some(0b010), "accecn"),
        (Some(0b111), Some(0b001), "classic"),
        (Some(0b011), Some(0b011), "invalid"),
    ] {
        let d = data(&scripted(syn, synack));
        assert_eq!(d.ecn_handshake, want, "SYN {syn:?} SYN-ACK {synack:?}");
        // The counts do not depend on the handshake.
        assert_eq!((d.ce_segments, d.ece_acks, d.cwr_segments), (2, 2, 2));
    }
}

#[test]
fn ipv6_traffic_class_carries_the_same_bits() {
    // The scripted capture with each IPv4 header replaced by an IPv6 one whose traffic class
    // is the IPv4 TOS (its ECN bits straddle bytes 0 and 1 of the header).
    let b = scripted(Some(0b011), Some(0b001));
    let mut out = file_header(65535, LINKTYPE_ETHERNET).to_vec();
    let mut at = 24;
    while at < b.len() {
        let cap = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
        let f = &b[at + 16..at + 16 + cap];
        let ip = &f[14..34];
        let tos = ip[1];
        let plen = u16::from_be_bytes([ip[2], ip[3]]) - 20;
        let mut g = f[..12].to_vec();
        g.extend_from_slice(&[0x86, 0xDD, 0x60 | tos >> 4, (tos & 0x0F) << 4, 0, 0]);
        g.extend_from_slice(&plen.to_be_bytes());
        g.extend_from_slice(&[6, 64]);
        for a in [&ip[12..16], &ip[16..20]] {
            g.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0]);
            g.extend_from_slice(a);
        }
        g.extend_from_slice(&f[34..]);
        out.extend_from_slice(&b[at..at + 8]);
        out.extend_from_slice(&(g.len() as u32).to_le_bytes());
        out.extend_from_slice(&(g.len() as u32).to_le_bytes());
        out.extend_from_slice(&g);
        at += 16 + cap;
    }
    let v4 = data(&b);
    let v6 = data(&out);
    assert_eq!(v6.src, "[2001:db8::a00:1]:10000");
    assert_eq!(
        (
            v6.ect0_segments,
            v6.ce_segments,
            v6.ece_acks,
            v6.cwr_segments,
            v6.rounds
        ),
        (
            v4.ect0_segments,
            v4.ce_segments,
            v4.ece_acks,
            v4.cwr_segments,
            v4.rounds
        )
    );
    assert_eq!(v6.ecn_handshake, "classic");
}

#[test]
fn a_simulated_capture_without_ecn_reports_no_ecn() {
    let text = r#"
duration = "5s"
[trace]
pcap = { node = "n0", file = "unused.pcap" }
[network.path]
hops = [{ rate = "10Mbit/s", delay = "10ms", queue = { limit = 20 } }]
[[flows]]
tcp = "sack"
"#;
    let r = crate::common::run(text);
    let d = data(&r.traces.pcap[0].bytes);
    assert_eq!(d.ecn_handshake, "unseen");
    assert_eq!(
        (
            d.ect0_segments,
            d.ect1_segments,
            d.ce_segments,
            d.ece_acks,
            d.cwr_segments
        ),
        (0, 0, 0, 0, 0)
    );
    assert!(d.rounds > 10, "{}", d.rounds);
    assert!(d.marking_rate.is_nan(), "no segment was ECN-capable: no rate");
}

/// tests/data/linux-ecn.pcap: a real Linux connection (cubic, net.ipv4.tcp_ecn = 1) through a
/// router namespace that marks 2% of the ECT(0) data segments CE (iptables), captured at the
/// receiver's interface, snap length 80; recorded by tests/data/make_linux_ecn_capture.py with
/// the kernel's own counts in linux-ecn.json.
#[test]
fn a_real_linux_ecn_capture_matches_what_the_kernel_counted() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    let bytes = std::fs::read(dir.join("linux-ecn.pcap")).unwrap();
    let k: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("linux-ecn.json")).unwrap()).unwrap();
    let d = data(&bytes);
    println!("{d:#?}");
    let rx = &k["receiver_ip_ext"];
    let n = |v: &serde_json::Value| v.as_u64().unwrap();
    // The handshake negotiated classic ECN, as the sender's TCP_INFO says (TCPI_OPT_ECN).
    assert!(k["tcp_info"]["ecn_negotiated"].as_bool().unwrap());
    assert_eq!(d.ecn_handshake, "classic");
    // Every CE segment the receiver's IP layer counted (IpExt InCEPkts) is one the router's
    // rule marked and one the analyzer found; so for ECT(0) (InECT0Pkts: the data segments;
    // Linux sends its pure ACKs and SYNs Not-ECT).
    assert!(n(&rx["InCEPkts"]) > 5, "too few marks to test: {rx}");
    assert_eq!(d.ce_segments, n(&rx["InCEPkts"]));
    assert_eq!(d.ce_segments, n(&k["marked_by_rule"]));
    assert_eq!(d.ect0_segments, n(&rx["InECT0Pkts"]));
    assert_eq!(d.ect1_segments, n(&rx["InECT1Pkts"]));
    assert_eq!(d.segments_sent, n(&k["tcp_info"]["data_segs_out"]));
    // The kernel answered the marks: ECE ACKs from the receiver, CWR from the sender (at most
    // one reduction per mark here, and at least one).
    assert!(d.ece_acks >= d.ce_segments, "{} ECE ACKs", d.ece_acks);
    // No loss here: every CWR answered an ECE.
    assert_eq!(d.segments_retransmitted, 0);
    assert!(
        d.cwr_segments >= 1 && d.cwr_segments <= d.ce_segments,
        "{} CWR",
        d.cwr_segments
    );
    assert_eq!(d.ecn_reductions, d.cwr_segments);
    assert_eq!(d.bytes_acked, n(&k["bytes"]));
    let rate = d.ce_segments as f64 / d.segments_sent as f64;
    assert_eq!(d.marking_rate, rate);
}
