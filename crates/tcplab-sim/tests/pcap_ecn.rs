//! ECN on the wire: the analyzer's counts of a scripted connection whose frames the pcap writer
//! encodes (the handshake's negotiation, ECT(0) and CE data, ECE ACKs, CWR, rounds, the
//! marking rate), the same over IPv6, and a real Linux connection with classic ECN whose
//! marks the kernel counted itself (tests/data/linux-ecn.pcap).

use crate::common::direction0;
use tcplab_sim::net::packet::{Ecn, Packet, SegId};
use tcplab_sim::tcp::segment::{Segment, TcpFlags};
use tcplab_sim::time::SimTime;
use tcplab_sim::trace::pcap::frame::{self, FlowWire};
use tcplab_sim::trace::pcap::write::{file_header, LINKTYPE_ETHERNET};

const WIRE: FlowWire = FlowWire {
    timestamps: false,
    window: 65535,
    mss: 1460,
    accecn: false,
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
        crate::common::pcap_record(&mut self.0, at, f);
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

#[test]
fn a_scripted_classic_ecn_connection_gives_its_marks_echoes_and_rounds() {
    let d = direction0(&scripted(Some(0b011), Some(0b001)));
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
        let d = direction0(&scripted(syn, synack));
        assert_eq!(d.ecn_handshake, want, "SYN {syn:?} SYN-ACK {synack:?}");
        // The counts do not depend on the handshake, except under AccECN, where AE, CWR and
        // ECE are the ACE counter (tests/pcap_accecn.rs): this script's flags are no counter,
        // and no CWR flag is counted.
        if want == "accecn" {
            assert_eq!((d.ce_segments, d.cwr_segments), (2, 0));
        } else {
            assert_eq!((d.ce_segments, d.ece_acks, d.cwr_segments), (2, 2, 2));
        }
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
    let v4 = direction0(&b);
    let v6 = direction0(&out);
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
    let d = direction0(&r.traces.pcap[0].bytes);
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

/// The pcap writer's handshake (`handshake = true`): the SYN, SYN-ACK and ACK with their
/// flags and options, so that the analyzer reads the negotiation from tcplab's own capture as
/// from a kernel's (RFC 3168 Sec. 6.1.1; RFC 9768 Tables 1-3).
#[test]
fn a_simulated_handshake_capture_reports_what_was_negotiated() {
    let cases = [
        ("\"classic\"", "true", "classic", 0b011, 0b001),
        ("\"accecn\"", "true", "accecn", 0b111, 0b010),
        ("\"accecn\"", "\"classic\"", "classic", 0b111, 0b001),
        ("\"classic\"", "false", "refused", 0b011, 0b000),
        ("\"off\"", "true", "off", 0b000, 0b000),
    ];
    for timestamps in [false, true] {
        for (ecn, receiver, want, syn_bits, synack_bits) in cases {
            let text = format!(
                r#"
duration = "2s"
[trace]
pcap = {{ node = "n0", file = "unused.pcap" }}
[network.path]
hops = [{{ rate = "10Mbit/s", delay = "10ms", queue = {{ limit = 20 }} }}]
[[flows]]
tcp = "sack"
handshake = true
timestamps = {timestamps}
ecn = {ecn}
ecn_receiver = {receiver}
"#
            );
            let r = crate::common::run(&text);
            let bytes = &r.traces.pcap[0].bytes;
            let d = direction0(bytes);
            let case = format!("ecn {ecn}, receiver {receiver}, timestamps {timestamps}");
            assert!(d.handshake, "{case}");
            assert_eq!(d.ecn_handshake, want, "{case}");
            assert_eq!(d.mss_bytes, 1460, "{case}");
            // The first two frames: the SYN and the SYN-ACK, as a kernel writes them.
            let frames = frames(bytes);
            let (syn, synack) = (&frames[0], &frames[1]);
            // AE is bit 0 of byte 46; byte 47: CWR 0x80, ECE 0x40, ACK 0x10, SYN 0x02.
            let ecn_bits = |f: &[u8]| (f[46] & 1) << 2 | (f[47] & 0x80) >> 6 | (f[47] & 0x40) >> 6;
            assert_eq!(syn[47] & 0x12, 0x02, "{case}: SYN without ACK");
            assert_eq!(synack[47] & 0x12, 0x12, "{case}: SYN-ACK");
            assert_eq!(ecn_bits(syn), syn_bits, "{case}");
            assert_eq!(ecn_bits(synack), synack_bits, "{case}");
            let seq = |f: &[u8]| u32::from_be_bytes(f[38..42].try_into().unwrap());
            let ack = |f: &[u8]| u32::from_be_bytes(f[42..46].try_into().unwrap());
            assert_eq!(seq(syn), frame::sender_isn(0), "{case}");
            let want_synack = (frame::receiver_isn(0), frame::sender_isn(0).wrapping_add(1));
            assert_eq!((seq(synack), ack(synack)), want_synack, "{case}");
            // Options: 12 bytes, 20 with timestamps (a Linux SYN's 60 bytes); MSS first.
            let hlen = (syn[46] >> 4) as usize * 4;
            assert_eq!(hlen, if timestamps { 40 } else { 32 }, "{case}");
            assert_eq!(&syn[54..58], &[2, 4, 0x05, 0xB4], "{case}: MSS 1460");
        }
    }
}

/// tshark (where installed) reads the handshake of a tcplab capture as a normal one: SYN,
/// SYN-ACK and ACK with their flags, the AccECN bits, the SYN options, good checksums.
#[test]
fn tshark_reads_the_handshakes_flags_and_options() {
    let installed = std::process::Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        return;
    }
    let dir = std::env::temp_dir().join(format!("tcplab-pcap-ecn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (ecn, want) in [
        ("classic", ["1,0,0,1,1,,", "1,1,0,0,1,,", "0,1,0,0,0,,"]),
        // AccECN: SYN (1,1,1), SYN-ACK (0,1,0) for a Not-ECT SYN; once both are seen tshark
        // reads the three bits as the ACE counter: the ACK's 0b010 feeds back the Not-ECT
        // SYN-ACK (RFC 9768 Tables 1, 3 and 4).
        ("accecn", ["1,0,1,1,1,,", "1,1,0,1,0,,", "0,1,,,,2,"]),
    ] {
        let file = dir.join(format!("{ecn}.pcap"));
        let text = format!(
            r#"
duration = "1s"
[trace]
pcap = {{ node = "n0", file = "{}" }}
[network.path]
hops = [{{ rate = "10Mbit/s", delay = "10ms", queue = {{ limit = 20 }} }}]
[[flows]]
tcp = "sack"
handshake = true
timestamps = true
ecn = "{ecn}"
"#,
            file.display()
        );
        let r = crate::common::run(&text);
        tcplab_sim::write_captures(&r).unwrap();
        let out = std::process::Command::new("tshark")
            .args(["-n", "-r", file.to_str().unwrap(), "-c", "3"])
            .args(["-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE"])
            .args(["-T", "fields", "-E", "separator=,"])
            .args(["-e", "tcp.flags.syn", "-e", "tcp.flags.ack", "-e", "tcp.flags.ae"])
            .args([
                "-e",
                "tcp.flags.cwr",
                "-e",
                "tcp.flags.ece",
                "-e",
                "tcp.flags.ace",
            ])
            .args(["-e", "tcp.options.mss_val"])
            .args(["-e", "tcp.options.wscale.shift", "-e", "tcp.options.sack_perm"])
            .args(["-e", "tcp.checksum.status", "-e", "_ws.malformed"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        for (i, line) in lines.iter().enumerate() {
            assert!(line.starts_with(want[i]), "{ecn} frame {i}: {line}");
            assert!(
                line.ends_with(",1,"),
                "{ecn} frame {i}: checksum, malformed: {line}"
            );
        }
        // The SYN and SYN-ACK carry MSS 1460, window scale 0 and SACK-permitted.
        for line in &lines[..2] {
            assert!(line.contains(",1460,0,"), "{ecn}: {line}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The frames of a pcap file (classic format, as tcplab writes it).
fn frames(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 24;
    while at + 16 <= bytes.len() {
        let n = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        out.push(bytes[at + 16..at + 16 + n].to_vec());
        at += 16 + n;
    }
    out
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
    let d = direction0(&bytes);
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
