//! AccECN on the wire (RFC 9768): the pcap writer's AccECN option, and the analyzer's reading
//! of the ACE counter and the option's ECEB as an AccECN sender reads them, on a scripted
//! connection (exact counts) and on simulated flows whose receivers counted the marks
//! themselves.

use crate::common::direction0;
use tcplab_sim::net::packet::{Ecn, Packet, SegId};
use tcplab_sim::tcp::accecn::{set_ace, AccEcnOption};
use tcplab_sim::tcp::segment::{Segment, TcpFlags};
use tcplab_sim::time::SimTime;
use tcplab_sim::trace::pcap::frame::{self, FlowWire};
use tcplab_sim::trace::pcap::write::{file_header, LINKTYPE_ETHERNET};

const WIRE: FlowWire = FlowWire {
    timestamps: false,
    window: 65535,
    mss: 1000,
    accecn: true,
};

fn ms(x: u64) -> SimTime {
    SimTime(x * 1_000_000)
}

/// A pcap of flow 0's segments as the simulator's writer encodes them.
struct Pcap(Vec<u8>, u16);

impl Pcap {
    fn new() -> Self {
        Pcap(file_header(65535, LINKTYPE_ETHERNET).to_vec(), 0)
    }

    /// The frame of `seg` (the writer numbers a SYN or SYN-ACK as a handshake's).
    fn put(&mut self, at: SimTime, seg: &Segment, ecn: Ecn) {
        let mut p = Packet::tcp(0, 0, 1, seg, SegId(0));
        p.ecn = ecn;
        let mut f = Vec::new();
        frame::encode(&p, seg, WIRE, at, self.1, 65535, &mut f);
        self.1 += 1;
        crate::common::pcap_record(&mut self.0, at, &f);
    }

    /// A data segment of 1000 bytes with the sender's own ACE (feedback of the reverse
    /// direction, here the initial 5, or the handshake's code on the first).
    fn data(&mut self, at: SimTime, seq: u64, ecn: Ecn, ace: u32) {
        let mut s = Segment::data(seq, 1000, 1040);
        set_ace(&mut s.flags, ace);
        self.put(at, &s, ecn);
    }

    /// An ACK with ACE `ace` and, if `eceb` is given, a two-field AccECN option (EE0B, ECEB).
    fn ack(&mut self, at: SimTime, ack: u64, ace: u32, ee0b: u32, eceb: Option<u32>) {
        let mut s = Segment::ack(ack, 40);
        set_ace(&mut s.flags, ace);
        let o = AccEcnOption {
            fields: if eceb.is_some() { 2 } else { 1 },
            order1: false,
            first: ee0b,
            ceb: eceb.unwrap_or(0),
        };
        s.ts_val = SimTime(o.encode());
        self.put(at, &s, Ecn::NotEct);
    }

    fn handshake(&mut self) {
        let mut syn = Segment::data(0, 0, 40);
        syn.flags.set(TcpFlags::SYN, true);
        set_ace(&mut syn.flags, 0b111);
        self.put(ms(0), &syn, Ecn::NotEct);
        // RFC 9768 Table 3: the SYN arrived Not-ECT, fed back as (AE, CWR, ECE) = (0, 1, 0).
        let mut synack = Segment::ack(0, 52);
        synack.flags.set(TcpFlags::SYN, true);
        set_ace(&mut synack.flags, 0b010);
        self.put(ms(1), &synack, Ecn::NotEct);
    }
}

/// 12 segments of 1000 bytes, three of them CE at the capture (downstream of the queue); the
/// receiver's ACE counts them from 5 and wraps past 7; the option's ECEB counts their bytes.
/// The initiator's segments carry its own ACE (the reverse direction's feedback: the
/// handshake's code 0b010 first, Table 4, then 0b110 with CWR set), which is not a CWR flag.
fn scripted(handshake: bool) -> Vec<u8> {
    let mut c = Pcap::new();
    if handshake {
        c.handshake();
    }
    let ece_of = |i: u64| if i == 0 && handshake { 0b010 } else { 0b110 };
    let marked = [2u64, 5, 6];
    for i in 0..4 {
        let ecn = if marked.contains(&i) { Ecn::Ce } else { Ecn::Ect0 };
        c.data(ms(10), 1000 * i, ecn, ece_of(i));
    }
    // One CE so far: ACE 5 -> 6 on the ACK that covers it; ECEB 1000.
    c.ack(ms(20), 2000, 5, 1 + 2000, Some(0));
    c.ack(ms(20), 4000, 6, 1 + 3000, Some(1000));
    for i in 4..8 {
        let ecn = if marked.contains(&i) { Ecn::Ce } else { Ecn::Ect0 };
        c.data(ms(30), 1000 * i, ecn, ece_of(i));
    }
    // Two more: ACE 6 -> 0 (mod 8); the first of these ACKs has no ECEB (one field).
    c.ack(ms(40), 6000, 7, 1 + 4000, None);
    c.ack(ms(40), 8000, 0, 1 + 5000, Some(3000));
    for i in 8..12 {
        c.data(ms(50), 1000 * i, Ecn::Ect0, ece_of(i));
    }
    c.ack(ms(60), 12_000, 0, 1 + 9000, Some(3000));
    c.0
}

#[test]
fn the_analyzer_reads_ace_and_eceb_as_the_sender_does() {
    let d = direction0(&scripted(true));
    assert_eq!(d.ecn_handshake, "accecn");
    assert_eq!((d.ect0_segments, d.ce_segments), (9, 3));
    // The receiver's own count, through ACE (5 -> 6 -> 7 -> 0) and ECEB (0 -> 3000).
    assert_eq!((d.accecn_ce_packets, d.accecn_ce_bytes), (3, 3000));
    // ACKs that fed back a mark; no CWR flag: under AccECN the bit is part of ACE.
    assert_eq!((d.ece_acks, d.cwr_segments, d.ecn_reductions), (3, 0, 0));
    assert_eq!(d.marking_rate, 3.0 / 12.0);
    assert_eq!(d.marks_per_rtt, 3.0 / d.rounds as f64);
}

#[test]
fn a_capture_without_the_handshake_counts_from_its_first_accecn_ack() {
    // The same connection captured from its first data segment: the AccECN option says the
    // mode; the first ACK's ACE (5) and ECEB (0) are the origin.
    let d = direction0(&scripted(false));
    assert_eq!(d.ecn_handshake, "unseen");
    assert_eq!((d.accecn_ce_packets, d.accecn_ce_bytes), (3, 3000));
    // The data segments before the first ACK carried CWR (their ACE) before the mode was known:
    // under AccECN no CWR is counted.
    assert_eq!((d.ece_acks, d.cwr_segments, d.ecn_reductions), (3, 0, 0));
}

#[test]
fn the_ace_wrap_is_resolved_by_the_safety_rule_and_eceb() {
    // One ACK covers 10 segments and moves ACE by 1 (5 -> 6): 1 or 9 marks (mod 8). ECEB
    // says 9000 bytes, more than 1 x SMSS: the safe 9 (RFC 9768 App. A.2.1; Linux's
    // __tcp_accecn_process). With 1000 bytes: 1.
    for (eceb, want) in [(9000, 9), (1000, 1)] {
        let mut c = Pcap::new();
        c.handshake();
        for i in 0..10 {
            c.data(ms(10), 1000 * i, Ecn::Ect0, 0b101);
        }
        c.ack(ms(20), 10_000, 6, 1, Some(eceb));
        let d = direction0(&c.0);
        assert_eq!(
            (d.accecn_ce_packets, d.accecn_ce_bytes),
            (want, eceb as u64),
            "ECEB {eceb}"
        );
    }
}

/// One AccECN flow of `cc` through a step-marking queue (10 packets, no loss) for `duration`,
/// captured at its sender into `file`.
fn marked(cc: &str, handshake: bool, duration: &str, file: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[trace]
pcap = {{ node = "n0", file = "{file}" }}
[network.path]
hops = [{{ rate = "20Mbit/s", delay = "10ms", queue = {{ discipline = "step", limit = 1000, step = {{ threshold = 10 }} }} }}]
[[flows]]
tcp = "sack"
cc = "{cc}"
ecn = "accecn"
timestamps = true
handshake = {handshake}
"#
    )
}

/// Simulated AccECN flows through a step-marking queue, captured at the sender (upstream of
/// the queue: no data segment is seen CE), with and without the handshake: the analyzer's
/// count from the ACKs equals what the receiver counted, and the ACKs' AccECN option is on
/// the wire as RFC 9768 Table 5 sizes it.
#[test]
fn a_simulated_accecn_capture_gives_the_receivers_own_count() {
    for (cc, handshake) in [("dctcp", true), ("dctcp", false), ("prague", true)] {
        let r = tcplab_sim::run_toml(&marked(cc, handshake, "3s", "unused.pcap"), &[]).unwrap();
        let f = &r.flows[0];
        let case = format!("{cc}, handshake {handshake}");
        assert!(f.ce_received > 50, "{case}: {}", f.ce_received);
        assert_eq!(f.timeouts + f.fast_retransmits, 0, "{case}: no loss");
        let d = direction0(&r.traces.pcap[0].bytes);
        assert_eq!(
            d.ecn_handshake,
            if handshake { "accecn" } else { "unseen" },
            "{case}"
        );
        assert_eq!(d.ce_segments, 0, "{case}: captured upstream of the queue");
        assert_eq!(d.accecn_ce_packets, f.ce_received, "{case}");
        // Every segment is full: 1460 bytes of payload (the flow's mss).
        assert_eq!(d.accecn_ce_bytes, f.ce_received * 1460, "{case}");
        assert_eq!(
            d.marking_rate,
            f.ce_received as f64 / d.segments_sent as f64,
            "{case}"
        );
        assert_eq!(d.cwr_segments, 0, "{case}");
    }
}

/// tshark (where installed) decodes the AccECN option of tcplab's ACKs (kind 172 for an
/// ECT(0) flow, 174 for Prague's ECT(1)) with good checksums, and the last captured ACK's
/// ECEB is the CE bytes the analyzer counted (ECEB starts at 0).
#[test]
fn tshark_reads_the_accecn_option() {
    let installed = std::process::Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        return;
    }
    let dir = std::env::temp_dir().join(format!("tcplab-pcap-accecn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (cc, kind) in [("dctcp", "172"), ("prague", "174")] {
        let file = dir.join(format!("{cc}.pcap"));
        let text = marked(cc, true, "2s", &file.display().to_string());
        let r = tcplab_sim::run_toml(&text, &[]).unwrap();
        tcplab_sim::write_captures(&r).unwrap();
        let out = std::process::Command::new("tshark")
            .args(["-n", "-r", file.to_str().unwrap()])
            .args(["-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE"])
            .args(["-Y", "tcp.srcport == 5001"])
            .args(["-T", "fields", "-E", "separator=,"])
            .args(["-e", "tcp.option_kind", "-e", "tcp.options.acc_ecn.eceb"])
            .args([
                "-e",
                "tcp.checksum.status",
                "-e",
                "_ws.malformed",
                "-e",
                "ip.len",
                "-e",
                "tcp.hdr_len",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() > 100, "{cc}: {}", lines.len());
        // The SYN-ACK: its options, and the AccECN option (order 0) with the counters' initial
        // values, EE0B 1, ECEB 0, EE1B 1: 60 + 12 bytes (the simulator's size, tcp/handshake.rs).
        assert!(lines[0].ends_with(",172,0,1,,72,52"), "{cc}: {}", lines[0]);
        for line in &lines[1..] {
            assert!(line.contains(kind), "{cc}: the option on every ACK here: {line}");
            assert!(!line.contains(",1,1,"), "{cc}: malformed: {line}");
        }
        let last: Vec<&str> = lines.last().unwrap().split(',').collect();
        // Fields: the option kinds (comma-joined), ECEB, checksum status, malformed, lengths.
        let n = last.len();
        let eceb: u64 = last[n - 5].parse().unwrap();
        let d = direction0(&r.traces.pcap[0].bytes);
        assert!(d.accecn_ce_bytes > 0, "{cc}");
        assert_eq!(eceb, d.accecn_ce_bytes, "{cc}: {last:?}");
        assert_eq!(last[n - 4], "1", "{cc}: checksum good");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
