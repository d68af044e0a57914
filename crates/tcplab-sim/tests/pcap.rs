//! pcap out of the simulator (`trace.pcap`): the file's bytes, its bounds and errors, and
//! what tcpdump / tshark make of it when they are installed.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tcplab-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The queueless path of Mathis Sec. 3.1 (1% Bernoulli loss), short, with timestamps and SACK,
/// captured at the sender's node.
fn lossy(file: &str, extra: &str) -> String {
    format!(
        r#"
duration = "5s"
seed = 3
[trace]
pcap = {{ node = "n0", file = "{file}"{extra} }}
[network.path]
hops = [{{ rate = "100Mbit/s", delay = "30ms", queue = {{ limit = 10000 }}, loss = {{ model = "bernoulli", p = "1%" }} }}]
[[flows]]
tcp = "sack"
ack = "delayed"
timestamps = true
mss = 1460
"#
    )
}

#[test]
fn a_simulated_capture_is_byte_identical_across_runs_and_written_whole() {
    let f = tmp("det.pcap");
    let text = lossy(f.to_str().unwrap(), "");
    let a = common::run(&text);
    let b = common::run(&text);
    assert_eq!(a.traces.pcap.len(), 1);
    assert!(a.traces.pcap[0].packets > 1000);
    assert_eq!(a.traces.pcap[0].bytes, b.traces.pcap[0].bytes);
    tcplab_sim::write_captures(&a).unwrap();
    assert_eq!(std::fs::read(&f).unwrap(), a.traces.pcap[0].bytes);
    assert!(!PathBuf::from(format!("{}.partial", f.display())).exists());
}

fn installed(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn tshark_and_tcpdump_read_it_as_a_normal_capture_with_correct_checksums() {
    let f = tmp("tools.pcap");
    let r = common::run(&lossy(f.to_str().unwrap(), ""));
    tcplab_sim::write_captures(&r).unwrap();
    let packets = r.traces.pcap[0].packets as usize;
    if installed("tshark") {
        let out = Command::new("tshark")
            .args([
                "-n",
                "-r",
                f.to_str().unwrap(),
                "-o",
                "tcp.check_checksum:TRUE",
                "-o",
                "ip.check_checksum:TRUE",
            ])
            .args([
                "-T",
                "fields",
                "-e",
                "ip.checksum.status",
                "-e",
                "tcp.checksum.status",
                "-e",
                "_ws.malformed",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), packets);
        // Wireshark's checksum status 1 is "good"; no malformed field.
        assert!(
            lines.iter().all(|l| *l == "1\t1\t"),
            "{:?}",
            lines.iter().find(|l| **l != "1\t1\t")
        );
        let sack = Command::new("tshark")
            .args([
                "-n",
                "-r",
                f.to_str().unwrap(),
                "-Y",
                "tcp.options.sack_le",
                "-T",
                "fields",
                "-e",
                "frame.number",
            ])
            .output()
            .unwrap();
        let sacks = String::from_utf8(sack.stdout).unwrap().lines().count();
        let sim_sacks = r.flows[0].acks_sent; // upper bound: ACKs with blocks are some of these
        assert!(
            sacks > 0 && (sacks as u64) < sim_sacks,
            "{sacks} ACKs with SACK blocks"
        );
    }
    if installed("tcpdump") {
        let out = Command::new("tcpdump")
            .args(["-n", "-r", f.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), packets);
    }
}

fn load_err(text: &str) -> String {
    tcplab_sim::load(text, &[]).unwrap_err().to_string()
}

#[test]
fn bad_captures_are_refused_before_the_run_naming_the_field() {
    let f = tmp("bad.pcap");
    let f = f.to_str().unwrap();
    let e = load_err(&lossy(f, ", max_packets = 2000000"));
    assert!(
        e.starts_with("trace.pcap[0].max_packets: 2000000 packets of up to 1554 bytes could make a 3140000024-byte file, over max_bytes = 1000000000"),
        "{e}"
    );
    // Cut to 96 bytes, the same count fits.
    assert!(tcplab_sim::load(&lossy(f, ", max_packets = 2000000, snaplen = 96"), &[]).is_ok());
    let e = load_err(&lossy(f, ", snaplen = 20"));
    assert_eq!(
        e,
        "trace.pcap[0].snaplen: 20 (expected 54 to 65535 bytes: Ethernet, IPv4 and TCP headers at least)"
    );
    let e = load_err(&lossy(f, ", link = \"hop0.fwd\""));
    assert_eq!(
        e,
        "trace.pcap[0].node: given with link (expected one of link or node)"
    );
    let e = load_err(&lossy(f, "").replace("node = \"n0\"", "link = [\"hop0.fwd\", \"hop9.fwd\"]"));
    assert_eq!(
        e,
        "trace.pcap[0].link[1]: \"hop9.fwd\" is not a link direction of this network (expected one of hop0.fwd, hop0.rev) (did you mean `hop0.fwd`?)"
    );
    let e = load_err(&lossy(f, "").replace("node = \"n0\"", "node = \"x\""));
    assert_eq!(
        e,
        "trace.pcap[0].node: \"x\" is not a node of this network (expected one of n0, n1)"
    );
    let e = load_err(&lossy("/nonexistent-dir/a.pcap", ""));
    assert_eq!(
        e,
        "trace.pcap[0].file: \"/nonexistent-dir/a.pcap\": the directory \"/nonexistent-dir\" does not exist (expected an existing directory)"
    );
    let e = load_err(&lossy(f, "").replace("node = \"n0\"", "node = \"n0\", bogus = 1"));
    assert!(
        e.starts_with("trace.pcap.bogus: unknown field `bogus`, expected one of `link`, `node`"),
        "{e}"
    );
    let ns2 = lossy(f, "").replace(
        "tcp = \"sack\"\nack = \"delayed\"\ntimestamps = true",
        "tcp = \"reno\"\nack = \"immediate\"\nprofile = \"ns2\"",
    );
    assert!(
        load_err(&ns2).starts_with("flows[0].profile: \"ns2\" numbers packets"),
        "{}",
        load_err(&ns2)
    );
}

#[test]
fn the_packet_limit_truncates_the_capture_and_marks_the_run() {
    let f = tmp("limit.pcap");
    let r = common::run(&lossy(f.to_str().unwrap(), ", max_packets = 10, snaplen = 60"));
    let c = &r.traces.pcap[0];
    assert_eq!(c.packets, 10);
    assert!(c.truncated && r.traces.truncated);
    // Header + 10 records of 16 + 60 bytes (every frame is longer than 60).
    assert_eq!(c.bytes.len(), 24 + 10 * (16 + 60));
    let orig = u32::from_le_bytes(c.bytes[24 + 12..24 + 16].try_into().unwrap());
    assert_eq!(orig, 14 + 1512, "the original length is the whole frame");
}

#[test]
fn a_link_capture_at_in_sees_the_loss_modules_drops_and_at_out_does_not() {
    let a = tmp("in.pcap");
    let b = tmp("out.pcap");
    let text = lossy(a.to_str().unwrap(), "").replace(
        &format!("pcap = {{ node = \"n0\", file = \"{}\" }}", a.display()),
        &format!(
            "pcap = [{{ link = \"hop0.fwd\", file = \"{}\" }}, {{ link = \"hop0.fwd\", at = \"out\", file = \"{}\" }}]",
            a.display(),
            b.display()
        ),
    );
    let r = common::run(&text);
    let t = &r.totals[0];
    assert_eq!(r.traces.pcap[0].packets, t.arrivals);
    assert_eq!(r.traces.pcap[1].packets, t.delivered);
    assert!(t.drops_loss > 0);
}
