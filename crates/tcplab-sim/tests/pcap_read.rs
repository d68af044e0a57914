//! The capture reader and analyzer on every format and on bad input: a simulated capture is
//! rewritten as pcapng, Linux cooked, raw IP, VLAN-tagged and IPv6 frames, and each must give
//! the same analysis; truncated files, files that are not captures, captures without TCP,
//! snap lengths that cut headers, mid-stream starts and wrapped sequence numbers get clear
//! errors or warnings, never a panic.

use crate::common;

use tcplab_sim::capture::analyze::{analyze, Analysis, DirectionResult, Options};

fn capture(extra: &str) -> Vec<u8> {
    let text = format!(
        r#"
duration = "20s"
seed = 5
[trace]
pcap = {{ node = "n0", file = "unused.pcap"{extra} }}
[network.path]
hops = [{{ rate = "50Mbit/s", delay = "20ms", queue = {{ limit = 10000 }}, loss = {{ model = "bernoulli", p = "1%" }} }}]
[[flows]]
tcp = "sack"
timestamps = true
mss = 1000
"#
    );
    let r = common::run(&text);
    r.traces.pcap[0].bytes.clone()
}

/// The records of one of our pcaps: (ts_sec, ts_nsec, caplen, origlen, frame).
fn records(b: &[u8]) -> Vec<(u32, u32, u32, Vec<u8>)> {
    let mut at = 24;
    let mut out = Vec::new();
    let u = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
    while at < b.len() {
        let (s, ns, cap, orig) = (u(at), u(at + 4), u(at + 8) as usize, u(at + 12));
        out.push((s, ns, orig, b[at + 16..at + 16 + cap].to_vec()));
        at += 16 + cap;
    }
    out
}

/// A pcap of `frames` with the given link type (nanosecond, little-endian).
fn pcap(linktype: u32, recs: &[(u32, u32, u32, Vec<u8>)], shrink: i64) -> Vec<u8> {
    let mut out = tcplab_sim::trace::pcap::write::file_header(65535, linktype).to_vec();
    for (s, ns, orig, f) in recs {
        out.extend_from_slice(&s.to_le_bytes());
        out.extend_from_slice(&ns.to_le_bytes());
        out.extend_from_slice(&(f.len() as u32).to_le_bytes());
        out.extend_from_slice(&((*orig as i64 + shrink) as u32).to_le_bytes());
        out.extend_from_slice(f);
    }
    out
}

/// The same records as pcapng: a section, one interface (nanosecond resolution), EPBs.
fn pcapng(linktype: u16, recs: &[(u32, u32, u32, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let block = |out: &mut Vec<u8>, kind: u32, body: &[u8]| {
        let len = 12 + body.len().div_ceil(4) * 4;
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&(len as u32).to_le_bytes());
        out.extend_from_slice(body);
        out.resize(out.len() + (len - 12 - body.len()), 0);
        out.extend_from_slice(&(len as u32).to_le_bytes());
    };
    let mut shb = 0x1A2B_3C4Du32.to_le_bytes().to_vec();
    shb.extend_from_slice(&[1, 0, 0, 0]);
    shb.extend_from_slice(&u64::MAX.to_le_bytes());
    block(&mut out, 0x0A0D_0D0A, &shb);
    let mut idb = linktype.to_le_bytes().to_vec();
    idb.extend_from_slice(&[0, 0]);
    idb.extend_from_slice(&65535u32.to_le_bytes());
    idb.extend_from_slice(&[9, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0]); // if_tsresol = 9, end
    block(&mut out, 1, &idb);
    for (s, ns, orig, f) in recs {
        let t = *s as u64 * 1_000_000_000 + *ns as u64;
        let mut epb = 0u32.to_le_bytes().to_vec();
        epb.extend_from_slice(&((t >> 32) as u32).to_le_bytes());
        epb.extend_from_slice(&(t as u32).to_le_bytes());
        epb.extend_from_slice(&(f.len() as u32).to_le_bytes());
        epb.extend_from_slice(&orig.to_le_bytes());
        epb.extend_from_slice(f);
        block(&mut out, 6, &epb);
    }
    out
}

fn run(bytes: &[u8]) -> Analysis {
    analyze(bytes, Options::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn data(a: &Analysis) -> DirectionResult {
    let d: Vec<_> = a.directions.iter().filter(|d| d.dir == 0).cloned().collect();
    assert_eq!(d.len(), 1, "{:?}", a.directions);
    d[0].clone()
}

/// The fields that do not depend on addresses.
fn key(d: &DirectionResult) -> Vec<u64> {
    vec![
        d.segments_sent,
        d.segments_retransmitted,
        d.fast_retransmits,
        d.timeouts,
        d.bytes_acked,
        d.ca_events,
        d.non_ca_events,
        d.other_losses,
        d.loss_events,
        d.rtt_samples,
        d.ts_rtt_samples,
        (d.ts_mean_rtt_s * 1e9).round() as u64,
    ]
}

#[test]
fn every_link_type_and_pcapng_give_the_same_analysis() {
    let b = capture("");
    let base = data(&run(&b));
    assert!(base.segments_retransmitted > 5 && base.ts_rtt_samples > 100);
    assert_eq!(
        (base.src.as_str(), base.dst.as_str()),
        ("10.0.0.1:10000", "10.128.0.1:5001")
    );
    let recs = records(&b);
    let want = key(&base);
    assert_eq!(key(&data(&run(&pcapng(1, &recs)))), want, "pcapng");
    // Linux cooked v1: 16-byte header, protocol at 14.
    let sll: Vec<_> = recs
        .iter()
        .map(|(s, n, o, f)| {
            let mut g = vec![0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 0, 0, 1, 0x08, 0x00];
            g.extend_from_slice(&f[14..]);
            (*s, *n, o + 2, g)
        })
        .collect();
    assert_eq!(key(&data(&run(&pcap(113, &sll, 0)))), want, "Linux cooked");
    let raw: Vec<_> = recs
        .iter()
        .map(|(s, n, o, f)| (*s, *n, o - 14, f[14..].to_vec()))
        .collect();
    assert_eq!(key(&data(&run(&pcap(101, &raw, 0)))), want, "raw IP");
    let vlan: Vec<_> = recs
        .iter()
        .map(|(s, n, o, f)| {
            let mut g = f[..12].to_vec();
            g.extend_from_slice(&[0x81, 0x00, 0x00, 0x2A]);
            g.extend_from_slice(&f[12..]);
            (*s, *n, o + 4, g)
        })
        .collect();
    assert_eq!(key(&data(&run(&pcap(1, &vlan, 0)))), want, "802.1Q");
    // IPv6: the IPv4 header replaced by a 40-byte one with the same addresses mapped.
    let v6: Vec<_> = recs
        .iter()
        .map(|(s, n, o, f)| {
            let ip = &f[14..34];
            let total = u16::from_be_bytes([ip[2], ip[3]]) - 20;
            let mut g = f[..12].to_vec();
            g.extend_from_slice(&[0x86, 0xDD, 0x60, 0, 0, 0]);
            g.extend_from_slice(&total.to_be_bytes());
            g.extend_from_slice(&[6, 64]);
            for a in [&ip[12..16], &ip[16..20]] {
                g.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0]);
                g.extend_from_slice(a);
            }
            g.extend_from_slice(&f[34..]);
            (*s, *n, o + 20, g)
        })
        .collect();
    let d6 = data(&run(&pcap(1, &v6, 0)));
    assert_eq!(key(&d6), want, "IPv6");
    assert_eq!(d6.src, "[2001:db8::a00:1]:10000");
}

#[test]
fn snap_lengths_cutting_options_or_headers_are_reported() {
    let full = run(&capture(""));
    // 14 + 20 + 32 (TCP with timestamps) = 66 keeps every header and timestamp; the SACK
    // blocks of the ACKs that carry them are cut: the counts stay, with a warning.
    let a = run(&capture(", snaplen = 66"));
    assert_eq!(key(&data(&a)), key(&data(&full)));
    assert_eq!(a.warnings.len(), 2, "{:?}", a.warnings);
    assert!(a.warnings[1].ends_with("TCP segments had their options cut by the snap length: timestamps or SACK blocks after the cut are missing from them"));
    // 54 keeps the base TCP header only: no timestamps, so no timestamp RTT samples.
    let b = data(&run(&capture(", snaplen = 54")));
    assert_eq!(
        (b.bytes_acked, b.segments_retransmitted),
        (data(&full).bytes_acked, data(&full).segments_retransmitted)
    );
    assert_eq!(b.ts_rtt_samples, 0);
    // Frames cut inside the TCP header are skipped; with nothing left, one error.
    let recs: Vec<_> = records(&capture(""))
        .into_iter()
        .map(|(s, n, o, f)| (s, n, o, f[..50].to_vec()))
        .collect();
    let e = analyze(&pcap(1, &recs, 0)[..], Options::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!("no TCP segments in the capture ({} records: 0 not IPv4/IPv6 TCP, 0 IP fragments, {} with headers cut by the snap length, 0 malformed, 0 without timestamps)", recs.len(), recs.len())
    );
}

#[test]
fn bad_files_get_one_clear_error() {
    let e = analyze(&b"hello, world\n"[..], Options::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "not a pcap or pcapng capture (first bytes 68 65 6c 6c; expected a libpcap magic a1b2c3d4 / a1b23c4d or a pcapng section header 0a0d0d0a)"
    );
    let e = analyze(&b""[..], Options::default()).unwrap_err().to_string();
    assert!(
        e.starts_with("not a pcap or pcapng capture (first bytes 00 00 00 00"),
        "{e}"
    );
    let e = analyze(&capture("")[..20], Options::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "malformed capture at byte 20: the file ends inside the 24-byte pcap header"
    );
    let mut bt = capture("");
    bt[20] = 147; // LINKTYPE_USER0
    let e = analyze(&bt[..], Options::default()).unwrap_err().to_string();
    assert!(e.starts_with("link type 147 is not supported"), "{e}");
    // A capture of ARP-like frames only: no TCP.
    let arp = vec![(0u32, 0u32, 60u32, {
        let mut f = vec![0u8; 60];
        f[12] = 0x08;
        f[13] = 0x06;
        f
    })];
    let e = analyze(&pcap(1, &arp, 0)[..], Options::default())
        .unwrap_err()
        .to_string();
    assert_eq!(e, "no TCP segments in the capture (1 records: 1 not IPv4/IPv6 TCP, 0 IP fragments, 0 with headers cut by the snap length, 0 malformed, 0 without timestamps)");
}

#[test]
fn a_truncated_file_is_analyzed_up_to_its_last_whole_record_and_says_so() {
    let b = capture("");
    let n = records(&b).len() as u64;
    let a = run(&b[..b.len() - 7]);
    assert!(a.truncated_file);
    assert_eq!(a.records, n - 1);
    assert_eq!(
        a.warnings[1..],
        vec![format!(
            "the file ends inside a record: only the {} complete records before it were analyzed",
            n - 1
        )]
    );
    assert!(!run(&b).truncated_file);
}

#[test]
fn a_capture_that_starts_mid_stream_is_analyzed_with_a_warning_and_sequence_wraps_are_unwrapped() {
    let b = capture("");
    let full = run(&b);
    let d = data(&full);
    // Flow 0's ISN is 2^32 - 65536: the stream crosses 2^32 once.
    assert_eq!(d.seq_wraps, 1);
    assert!(d.bytes_acked > 1 << 20);
    // A simulated capture has no handshake: bytes count from the first one seen.
    assert!(d.mid_stream && full.warnings.len() == 1);
    let recs = records(&b);
    let half = pcap(1, &recs[recs.len() / 2..], 0);
    let a = run(&half);
    let m = data(&a);
    assert!(m.mid_stream);
    assert_eq!(m.seq_wraps, 0);
    assert!(m.bytes_acked > 0 && m.bytes_acked < d.bytes_acked);
    assert_eq!(a.warnings.len(), 1);
    assert!(
        a.warnings[0].starts_with("connection 0 10.0.0.1:10000 -> 10.128.0.1:5001: no handshake"),
        "{:?}",
        a.warnings
    );
}

/// tests/data/linux-loss.pcap: a real Linux connection (two network namespaces, 2% random
/// loss of data segments by iptables, tcpdump at the sender, snap length 80), recorded by
/// tests/data/make_linux_capture.py with the kernel's own TCP_INFO in linux-loss.json.
#[test]
fn a_real_linux_capture_matches_what_the_kernel_reported() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    let bytes = std::fs::read(dir.join("linux-loss.pcap")).unwrap();
    let kernel: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("linux-loss.json")).unwrap()).unwrap();
    let a = run(&bytes);
    assert_eq!(a.connections, 1);
    let d = data(&a);
    println!("{d:#?}\n{:?}", a.warnings);
    assert!(d.handshake && !d.mid_stream);
    // Every byte the application sent was acknowledged, and the kernel's count of
    // retransmitted segments (tcpi_total_retrans) is the analyzer's.
    assert_eq!(d.bytes_acked, kernel["bytes"].as_u64().unwrap());
    assert_eq!(
        d.segments_retransmitted,
        kernel["tcp_info"]["total_retrans"].as_u64().unwrap()
    );
    assert_eq!(
        d.mss_bytes as u64,
        kernel["tcp_info"]["snd_mss"].as_u64().unwrap()
    );
    // The kernel's smoothed RTT (us) lies among the analyzer's samples.
    let srtt = kernel["tcp_info"]["rtt"].as_f64().unwrap() * 1e-6;
    assert!(
        d.min_rtt_s <= srtt && srtt <= d.max_rtt_s,
        "{srtt} outside [{}, {}]",
        d.min_rtt_s,
        d.max_rtt_s
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// Corrupted captures (bytes of the real fixture overwritten, the file cut anywhere) give
    /// an analysis or an error, never a panic.
    #[test]
    fn corrupted_captures_never_panic(
        edits in proptest::collection::vec((0usize..108_048, proptest::prelude::any::<u8>()), 1..40),
        cut in 0usize..108_048,
    ) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
        let mut bytes = std::fs::read(dir.join("linux-loss.pcap")).unwrap();
        for (at, b) in edits {
            let n = bytes.len();
            bytes[at % n] = b;
        }
        bytes.truncate(cut.max(1));
        let _ = analyze(&bytes[..], Options::default());
        let _ = analyze(&bytes[..], Options { from_ns: 5_000_000, to_ns: Some(1_000_000), record_conn: Some(0), max_points: 10 });
    }
}

/// tests/data/linux-loss-head.pcapng: the fixture's first 300 records as Wireshark's editcap
/// writes pcapng (`editcap -r -F pcapng linux-loss.pcap linux-loss-head.pcapng 1-300`): a
/// pcapng from another writer gives the analysis of the same records read as pcap.
#[test]
fn a_pcapng_written_by_editcap_reads_as_its_pcap() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    let ng = run(&std::fs::read(dir.join("linux-loss-head.pcapng")).unwrap());
    let pcap = std::fs::read(dir.join("linux-loss.pcap")).unwrap();
    // The pcap's first 300 records (microsecond timestamps, as tcpdump wrote them).
    let mut at = 24;
    for _ in 0..300 {
        at += 16 + u32::from_le_bytes(pcap[at + 8..at + 12].try_into().unwrap()) as usize;
    }
    let head = run(&pcap[..at]);
    assert_eq!(ng.records, 300);
    assert_eq!(ng.first_ns, head.first_ns);
    // Compared as printed: equal values print alike, and NaN (no timeout measured) as NaN.
    assert_eq!(format!("{:?}", ng.directions), format!("{:?}", head.directions));
    assert!(ng.directions[0].bytes_acked > 100_000 && ng.directions[0].segments_retransmitted > 0);
}
