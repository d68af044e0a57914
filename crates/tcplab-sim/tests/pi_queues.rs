//! PIE (RFC 8033) and DualPI2 (RFC 9332) through whole runs (docs/queues.md): what is marked
//! and what is dropped, by cause and by class, event by event in the packet trace; the PI
//! controllers holding the queueing delay far below a full drop-tail buffer's; determinism; and
//! the options' errors named with their whole path. The rules themselves have their known
//! answers in `net/queue/pie/tests.rs` and `net/queue/dualpi2/tests.rs`.

use tcplab_sim::net::packet::{Ecn, PacketKind};
use tcplab_sim::net::queue::MarkCause;
use tcplab_sim::trace::PacketEventKind as Ev;
use tcplab_sim::{run_toml, RunResult};

/// A 10 Mbit/s bottleneck fed by one bulk TCP flow (Not-ECT) and a 4 Mbit/s CBR stream of
/// 1000-byte datagrams sent `udp_ecn`.
fn scenario(queue: &str, udp_ecn: &str) -> String {
    format!(
        r#"
seed = 5
duration = "20s"
warmup = "5s"
[network.dumbbell]
bottleneck = {{ rate = "10Mbit/s", delay = "20ms", queue = {queue} }}
access_rate = "100Mbit/s"
access_delay = "1ms"
[[flows]]
tcp = "sack"
[[flows]]
tcp = "sack"
[[traffic]]
kind = "cbr"
rate = "4Mbit/s"
packet = 1000
ecn = "{udp_ecn}"
[trace]
links = ["bottleneck.fwd"]
max_points = 5000000
"#
    )
}

fn run(queue: &str, udp_ecn: &str) -> RunResult {
    let r = run_toml(&scenario(queue, udp_ecn), &[]).unwrap_or_else(|e| panic!("{e}"));
    assert!(!r.traces.truncated);
    r
}

fn bottleneck(r: &RunResult) -> usize {
    r.links.iter().position(|l| l.link == "bottleneck.fwd").unwrap()
}

/// Marks by (kind, codepoint at enqueue, cause) and drops by (kind, cause) on the bottleneck.
struct Tally {
    marks: Vec<(PacketKind, Ecn, MarkCause)>,
    drops: Vec<(PacketKind, &'static str)>,
}

fn tally(r: &RunResult) -> Tally {
    let i = bottleneck(r) as u32;
    let ev: Vec<_> = r.traces.packets.iter().filter(|e| e.link == i).collect();
    // The codepoint each packet had when it arrived (a mark makes it CE).
    let mut arrived = std::collections::HashMap::new();
    let (mut marks, mut drops) = (Vec::new(), Vec::new());
    for e in &ev {
        match e.event {
            Ev::Enqueue => {
                arrived.insert((e.kind as u8, e.flow, e.seq), e.ecn);
            }
            Ev::Mark => {
                assert_eq!(e.ecn, Ecn::Ce);
                let was = arrived.get(&(e.kind as u8, e.flow, e.seq)).copied().unwrap();
                marks.push((e.kind, was, e.mark.unwrap()));
            }
            Ev::Drop => drops.push((e.kind, e.cause.unwrap().name())),
            _ => {}
        }
    }
    Tally { marks, drops }
}

const PIE_ECN: &str = r#"{ discipline = "pie", limit = 1000, pie = { ecn = true } }"#;

#[test]
fn pie_marks_ect_datagrams_and_drops_the_not_ect_flows_early() {
    let r = run(PIE_ECN, "ect0");
    let t = tally(&r);
    // The probability stays near 1% here (two SACK flows at 10 Mbit/s): tens of the 10000
    // datagrams are marked.
    assert!(t.marks.len() >= 10, "{}", t.marks.len());
    assert!(t
        .marks
        .iter()
        .all(|m| *m == (PacketKind::Udp, Ecn::Ect0, MarkCause::Early)));
    let early_tcp = t
        .drops
        .iter()
        .filter(|d| **d == (PacketKind::Data, "early"))
        .count();
    assert!(early_tcp > 20, "{early_tcp}");
    let l = &r.links[bottleneck(&r)];
    assert_eq!(l.marks, l.marks_early);
    assert_eq!(l.drops_queue, l.drops_early + l.drops_overflow);
    assert_eq!(l.drops_sojourn, 0);
    // Without ECN the same queue marks nothing.
    let plain = run(r#"{ discipline = "pie", limit = 1000 }"#, "ect0");
    assert!(tally(&plain).marks.is_empty());
    assert!(plain.links[bottleneck(&plain)].drops_early > 0);
}

#[test]
fn pie_holds_the_delay_near_its_target_where_drop_tail_fills_the_buffer() {
    let pie = run(r#"{ discipline = "pie", limit = 1000 }"#, "not_ect");
    let dt = run(r#"{ discipline = "droptail", limit = 1000 }"#, "not_ect");
    let (p, d) = (&pie.links[bottleneck(&pie)], &dt.links[bottleneck(&dt)]);
    println!(
        "pie: delay {:.4} s, util {:.3}; droptail: delay {:.4} s, util {:.3}",
        p.mean_queue_delay_s, p.utilization, d.mean_queue_delay_s, d.utilization
    );
    assert!(
        p.mean_queue_delay_s > 0.005 && p.mean_queue_delay_s < 0.04,
        "{}",
        p.mean_queue_delay_s
    );
    assert!(d.mean_queue_delay_s > 0.2, "{}", d.mean_queue_delay_s);
    assert!(p.utilization > 0.9, "{}", p.utilization);
}

const DUALPI2: &str = r#"{ discipline = "dualpi2", limit = 1000 }"#;

#[test]
fn dualpi2_marks_the_l_queue_at_its_step_and_drops_the_classic_not_ect_flows() {
    let r = run(DUALPI2, "ect1");
    let t = tally(&r);
    let step = t.marks.iter().filter(|m| m.2 == MarkCause::Threshold).count();
    let coupled = t.marks.iter().filter(|m| m.2 == MarkCause::Sojourn).count();
    assert!(step > 20 && coupled > 20, "step {step}, coupled {coupled}");
    // Only the ECT(1) datagrams (the L queue) are marked; the TCP flows (Not-ECT, C queue) are
    // dropped by p_C at dequeue (sojourn), never marked.
    assert!(t.marks.iter().all(|m| m.0 == PacketKind::Udp && m.1 == Ecn::Ect1));
    let pi2_tcp = t
        .drops
        .iter()
        .filter(|d| **d == (PacketKind::Data, "sojourn"))
        .count();
    assert!(pi2_tcp > 10, "{pi2_tcp}");
    let l = &r.links[bottleneck(&r)];
    assert!(l.marks_sojourn > 0 && l.marks_threshold > 0);
    assert_eq!(l.marks, l.marks_sojourn + l.marks_threshold);
    assert!(l.marks_sojourn <= coupled as u64 && l.marks_threshold <= step as u64);
    assert_eq!(
        (l.drops_early, l.drops_queue),
        (0, l.drops_sojourn + l.drops_overflow)
    );
    // Sent ECT(0), the datagrams join the C queue: no step marks, only p_C's.
    let c = run(DUALPI2, "ect0");
    let t = tally(&c);
    assert!(!t.marks.is_empty());
    assert!(t
        .marks
        .iter()
        .all(|m| *m == (PacketKind::Udp, Ecn::Ect0, MarkCause::Sojourn)));
    // The L queue's delay stays near its step: datagrams in it wait far less than in C.
    let wait = |r: &RunResult, kind: PacketKind| mean_wait(r, kind);
    let (l_wait, c_wait) = (wait(&r, PacketKind::Udp), wait(&c, PacketKind::Udp));
    println!("ECT(1) datagrams wait {l_wait:.5} s in L, ECT(0) ones {c_wait:.5} s in C");
    assert!(l_wait < 0.003 && c_wait > 3.0 * l_wait, "{l_wait} {c_wait}");
}

/// The mean time packets of `kind` waited in the bottleneck's queue (enqueue to dequeue).
fn mean_wait(r: &RunResult, kind: PacketKind) -> f64 {
    let i = bottleneck(r) as u32;
    let mut since = std::collections::HashMap::new();
    let (mut sum, mut n) = (0.0, 0u64);
    for e in r.traces.packets.iter().filter(|e| e.link == i && e.kind == kind) {
        match e.event {
            Ev::Enqueue => {
                since.insert((e.flow, e.seq), e.time);
            }
            Ev::Dequeue => {
                if let Some(t0) = since.remove(&(e.flow, e.seq)) {
                    sum += e.time.saturating_sub(t0).secs_f64();
                    n += 1;
                }
            }
            _ => {}
        }
    }
    sum / n as f64
}

#[test]
fn both_disciplines_repeat_exactly_and_conserve_packets() {
    for (q, ecn) in [(PIE_ECN, "ect1"), (DUALPI2, "ect1")] {
        let (a, b) = (run(q, ecn), run(q, ecn));
        assert_eq!(a.traces.packets, b.traces.packets);
        assert_eq!(a.events, b.events);
        for t in &a.totals {
            assert!(t.arrivals >= t.delivered + t.drops_queue);
        }
    }
}

#[test]
fn options_out_of_range_are_one_error_naming_the_field() {
    let at = "network.dumbbell.bottleneck.queue";
    for (queue, field, range) in [
        (
            r#"{ discipline = "pie", pie = { alpha = 0 } }"#,
            "pie.alpha",
            "0 < alpha <= 32",
        ),
        (
            r#"{ discipline = "pie", pie = { target = "0ms" } }"#,
            "pie.target",
            "target > 0",
        ),
        (
            r#"{ discipline = "pie", pie = { mark_ecnth = 0.2 } }"#,
            "pie.mark_ecnth",
            "ecn = true",
        ),
        (
            r#"{ discipline = "dualpi2", dualpi2 = { coupling = 0 } }"#,
            "dualpi2.coupling",
            "1 <= coupling <= 255",
        ),
        (
            r#"{ discipline = "dualpi2", dualpi2 = { classic_protection = 150 } }"#,
            "dualpi2.classic_protection",
            "<= 100",
        ),
        (
            r#"{ discipline = "codel", pie = { ecn = true } }"#,
            "pie",
            "discipline = \"pie\"",
        ),
    ] {
        let e = run_toml(&scenario(queue, "ect1"), &[]).unwrap_err().to_string();
        assert!(e.contains(&format!("{at}.{field}")) && e.contains(range), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    let e = run_toml(
        &scenario(r#"{ discipline = "pie", pie = { gain = 1 } }"#, "ect1"),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("gain"), "{e}");
}

#[test]
fn not_ect_traffic_through_dualpi2_sees_only_the_classic_queue() {
    let r = run(DUALPI2, "not_ect");
    let t = tally(&r);
    assert!(t.marks.is_empty());
    assert!(t.drops.iter().any(|d| d.1 == "sojourn"));
    assert!(t.drops.iter().all(|d| d.1 == "sojourn" || d.1 == "overflow"));
}
