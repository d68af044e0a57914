//! Queue disciplines through whole scenarios: FQ-CoDel's flow isolation, CoDel's control of
//! the standing queue, drops at dequeue traced and counted by cause, conservation and
//! determinism with every discipline, and bad queue options named.

use crate::common::conserved;
use std::collections::HashMap;
use tcplab_sim::net::packet::PacketKind;
use tcplab_sim::net::DropCause;
use tcplab_sim::trace::{kind_name, PacketEventKind as Ev};
use tcplab_sim::{run_toml, RunResult};

fn scenario(name: &str) -> String {
    let path = format!("{}/../../scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn sets(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

const TRACE_BOTTLENECK: [(&str, &str); 2] = [
    ("trace.links", "[\"bottleneck.fwd\"]"),
    ("trace.max_points", "3000000"),
];

fn run(name: &str, discipline: &str, extra: &[(&str, &str)]) -> RunResult {
    let mut o = vec![("network.dumbbell.bottleneck.queue.discipline", discipline)];
    o.extend_from_slice(extra);
    let r = run_toml(&scenario(name), &sets(&o)).unwrap_or_else(|e| panic!("{e}"));
    assert!(!r.traces.truncated);
    r
}

fn link<'a>(r: &'a RunResult, name: &str) -> (u32, &'a tcplab_sim::stats::LinkResult) {
    let i = r.links.iter().position(|l| l.link == name).unwrap();
    (i as u32, &r.links[i])
}

/// Queueing delays (s) at a traced link of the packets of one kind: the time of the dequeue
/// (transmission starts) minus that of the last enqueue of the packet.
fn waits(r: &RunResult, link: u32, kind: PacketKind) -> Vec<f64> {
    let mut enq = HashMap::new();
    let mut w = Vec::new();
    for e in r
        .traces
        .packets
        .iter()
        .filter(|e| e.link == link && e.kind == kind)
    {
        match e.event {
            Ev::Enqueue => {
                enq.insert((e.flow, e.seq), e.time);
            }
            Ev::Dequeue => w.push((e.time - enq[&(e.flow, e.seq)]).secs_f64()),
            _ => {}
        }
    }
    w
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn max(v: &[f64]) -> f64 {
    v.iter().cloned().fold(0.0, f64::max)
}

/// scenarios/fq-codel.toml: four bulk SACK flows and a 1 Mbit/s CBR stream (1000-byte
/// datagrams, one per 8 ms) through a 10 Mbit/s bottleneck with a 1000-packet buffer.
#[test]
fn fq_codel_isolates_a_cbr_stream_from_bulk_tcp() {
    let fq = run("fq-codel", "fq_codel", &TRACE_BOTTLENECK);
    let (i, b) = link(&fq, "bottleneck.fwd");
    let voice = waits(&fq, i, PacketKind::Udp);
    // The stream's queue empties between datagrams: each one finds it inactive, joins the new
    // list and leaves after at most the packet being sent and a few new-list turns of 1.2 ms.
    assert!(voice.len() > 7000);
    assert!(
        mean(&voice) < 0.002 && max(&voice) < 0.010,
        "{} {}",
        mean(&voice),
        max(&voice)
    );
    // None of its datagrams is dropped: every drop hits the bulk flows' queues.
    assert!(!fq
        .traces
        .packets
        .iter()
        .any(|e| e.link == i && e.event == Ev::Drop && e.kind == PacketKind::Udp));
    let v = fq.traffic.iter().find(|t| t.name == "voice").unwrap();
    assert!((v.goodput_bps - 1e6).abs() < 0.01e6, "{}", v.goodput_bps);
    // CoDel keeps each bulk queue near its 5 ms target, dropping at dequeue; the buffer never
    // fills; the link stays busy and the four flows share it evenly.
    assert!(mean(&waits(&fq, i, PacketKind::Data)) < 0.02);
    assert!(b.drops_sojourn > 50 && b.drops_overflow == 0 && b.drops_early == 0);
    assert!(b.utilization > 0.95);
    let g: Vec<f64> = fq.flows.iter().map(|f| f.goodput_bps).collect();
    assert!(g.iter().all(|&x| (x - 2.16e6).abs() < 0.2e6), "{g:?}");

    // The same buffer as one drop-tail FIFO: the stream waits behind the bulk flows' standing
    // queue of about 800 packets, close to a second.
    let dt = run("fq-codel", "droptail", &TRACE_BOTTLENECK);
    let (i, _) = link(&dt, "bottleneck.fwd");
    let voice = waits(&dt, i, PacketKind::Udp);
    assert!(mean(&voice) > 0.5, "{}", mean(&voice));
}

#[test]
fn fq_codel_keeps_a_cbr_streams_rate_beside_an_unresponsive_flood() {
    // A 12 Mbit/s UDP flood joins: more than the link. In one FIFO every packet meets the same
    // full buffer, so the stream loses about as large a share as the flood (17% here); under
    // FQ-CoDel the flood fills only its own queue, which is the fattest and loses the packets.
    let flood = "[[traffic]]\nname = \"flood\"\nkind = \"cbr\"\nrate = \"12Mbit/s\"\npacket = 1000\n";
    let text = format!("{}\n{flood}", scenario("fq-codel"));
    let voice = |discipline: &str| {
        let o = sets(&[("network.dumbbell.bottleneck.queue.discipline", discipline)]);
        let r = run_toml(&text, &o).unwrap();
        let v = r.traffic.iter().find(|t| t.name == "voice").unwrap().clone();
        let b = crate::common::link(&r, "bottleneck.fwd");
        (v, b)
    };
    let (v, b) = voice("fq_codel");
    assert!(
        v.packets_delivered + 5 >= v.packets_sent,
        "{} of {}",
        v.packets_delivered,
        v.packets_sent
    );
    assert!(
        b.drops_overflow > 1000,
        "the flood overflows its own queue: {}",
        b.drops_overflow
    );
    let (v, _) = voice("droptail");
    let lost = 1.0 - v.packets_delivered as f64 / v.packets_sent as f64;
    assert!(lost > 0.1, "{lost}");
}

/// scenarios/codel.toml: two bulk SACK flows, 20 Mbit/s, a 1000-packet (600 ms) buffer.
#[test]
fn codel_keeps_the_standing_queue_near_target() {
    let c = run("codel", "codel", &[]);
    let (_, b) = link(&c, "bottleneck.fwd");
    assert!(b.mean_queue_delay_s < 0.01, "{}", b.mean_queue_delay_s);
    assert!(b.utilization > 0.85, "{}", b.utilization);
    assert!(b.drops_sojourn > 0 && b.drops_queue == b.drops_sojourn);
    let d = run("codel", "droptail", &[]);
    let (_, b) = link(&d, "bottleneck.fwd");
    assert!(b.mean_queue_delay_s > 0.3, "{}", b.mean_queue_delay_s);
}

#[test]
fn drops_at_dequeue_are_traced_counted_by_cause_and_only_above_target() {
    for discipline in ["codel", "fq_codel"] {
        let r = run("codel", discipline, &TRACE_BOTTLENECK);
        let (i, b) = link(&r, "bottleneck.fwd");
        let total = r.totals.iter().find(|t| t.link == "bottleneck.fwd").unwrap();
        let mut enq = HashMap::new();
        let mut drops = 0;
        for e in r.traces.packets.iter().filter(|e| e.link == i) {
            match e.event {
                Ev::Enqueue => {
                    enq.insert((e.flow, kind_name(e.kind), e.seq), e.time);
                }
                Ev::Drop => {
                    drops += 1;
                    assert_eq!(e.cause, Some(DropCause::Sojourn), "{discipline}");
                    // CoDel drops a packet only once it has waited at least the target.
                    let waited = (e.time - enq[&(e.flow, kind_name(e.kind), e.seq)]).secs_f64();
                    assert!(waited >= 0.005 - 1e-9, "{discipline}: dropped after {waited} s");
                }
                _ => {}
            }
        }
        assert!(drops > 0);
        assert_eq!(drops, total.drops_queue, "{discipline}: every drop traced once");
        assert_eq!(b.drops_queue, b.drops_overflow + b.drops_early + b.drops_sojourn);
        assert_eq!(b.drops_queue, b.drops_sojourn, "{discipline}");
    }
}

/// Every discipline on some link, data and ACK directions, TCP and UDP, packet and byte limits.
const EVERY_DISCIPLINE: &str = r#"
seed = 11
duration = "20s"
[network.graph]
links = [
  { from = "a", to = "b", rate = "10Mbit/s", delay = "5ms", queue = { discipline = "codel", limit = 30, codel = { target = "2ms", interval = "20ms" } }, reverse_queue = { discipline = "fq_codel", limit = 8, fq_codel = { flows = 2, quantum = 1500 } } },
  { from = "b", to = "c", rate = "3Mbit/s", delay = "10ms", queue = { discipline = "red", limit = 25, red = { min_th = 3, max_th = 10 } }, reverse_queue = { discipline = "codel", limit_bytes = "6kB" } },
  { from = "c", to = "d", rate = "2Mbit/s", delay = "5ms", queue = { discipline = "fq_codel", limit = 20, fq_codel = { flows = 4, target = "1ms", interval = "10ms" } }, loss = { model = "bernoulli", p = "0.5%" } },
  { from = "a", to = "x", rate = "2Mbit/s", delay = "20ms", queue = { discipline = "random_drop", limit = 12 }, reverse_queue = { discipline = "drop_front", limit = 6 } },
  { from = "x", to = "d", rate = "1Mbit/s", delay = "20ms", queue = { discipline = "codel", limit_bytes = "20kB" } },
]
flows = [{ from = "a", to = "c" }, { from = "c", to = "a" }, { from = "a", to = "d" }, { from = "b", to = "d" }]
[[flows]]
[[flows]]
tcp = "sack"
[[flows]]
tcp = "newreno"
[[flows]]
start = "2s"
bytes = 300000
[[traffic]]
kind = "cbr"
rate = "800kbit/s"
from = "a"
to = "c"
[[traffic]]
kind = "on_off"
rate = "3Mbit/s"
on_mean = "200ms"
off_mean = "300ms"
from = "c"
to = "b"
count = 2
"#;

#[test]
fn every_discipline_conserves_packets_and_repeats_exactly() {
    let a = run_toml(EVERY_DISCIPLINE, &[]).unwrap_or_else(|e| panic!("{e}"));
    let b = run_toml(EVERY_DISCIPLINE, &[]).unwrap();
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    conserved(&a);
    for l in &a.links {
        assert_eq!(
            l.drops_queue,
            l.drops_overflow + l.drops_early + l.drops_sojourn,
            "{}",
            l.link
        );
    }
    let sum = |f: fn(&tcplab_sim::stats::LinkResult) -> u64| a.links.iter().map(f).sum::<u64>();
    assert!(sum(|l| l.drops_sojourn) > 0 && sum(|l| l.drops_overflow) > 0 && sum(|l| l.drops_early) > 0);
    assert!(a.flows.iter().all(|f| f.bytes_delivered > 0));
    // Another seed changes RED's, Random Drop's and FQ-CoDel's draws, not conservation.
    let c = run_toml(EVERY_DISCIPLINE, &sets(&[("seed", "12")])).unwrap();
    conserved(&c);
}

#[test]
fn bad_queue_options_are_named() {
    let err = |queue: &str| {
        let text = format!(
            "duration = \"1s\"\n[network.path]\nhops = [{{ rate = \"1Mbit/s\", delay = \"1ms\", queue = {queue} }}]\n[[flows]]\n"
        );
        run_toml(&text, &[]).expect_err("rejected").to_string()
    };
    let at = "network.path.hops[0].queue";
    for (queue, expected) in [
        (
            "{ discipline = \"codel\", codel = { target = 0 } }",
            format!("{at}.codel.target: 0s is not a valid target (expected 0 < target < interval 0.1s)"),
        ),
        (
            "{ discipline = \"codel\", codel = { target = \"100ms\" } }",
            format!("{at}.codel.target: 0.1s is not below interval 0.1s (expected 0 < target < interval)"),
        ),
        (
            "{ discipline = \"codel\", codel = { interval = \"2ms\" } }",
            format!("{at}.codel.interval: 0.002s is not above target 0.005s (expected interval > target)"),
        ),
        (
            "{ discipline = \"codel\", codel = { interval = 0 } }",
            format!("{at}.codel.interval: 0s is not a valid interval (expected > 0, and above target)"),
        ),
        (
            "{ discipline = \"fq_codel\", fq_codel = { target = \"1s\", interval = \"1s\" } }",
            format!("{at}.fq_codel.target: 1s is not below interval 1s (expected 0 < target < interval)"),
        ),
        (
            "{ discipline = \"fq_codel\", fq_codel = { quantum = 1000 } }",
            format!("{at}.fq_codel.quantum: 1000 bytes is not a valid quantum (expected 1500..=4294967295 bytes: at least one MTU)"),
        ),
        (
            "{ discipline = \"fq_codel\", fq_codel = { flows = 0 } }",
            format!("{at}.fq_codel.flows: 0 is not a valid number of flow queues (expected 1..=65536)"),
        ),
        (
            "{ discipline = \"fq_codel\", fq_codel = { flows = 100000 } }",
            format!("{at}.fq_codel.flows: 100000 is not a valid number of flow queues (expected 1..=65536)"),
        ),
        (
            "{ discipline = \"fq_codel\", limit_bytes = \"64KiB\" }",
            format!("{at}.limit_bytes: does not apply to discipline \"fq_codel\" (expected limit, in packets across all flow queues)"),
        ),
        (
            "{ limit = 10, codel = { target = \"5ms\" } }",
            format!("{at}.codel: does not apply to discipline \"droptail\" (expected discipline = \"codel\")"),
        ),
        (
            "{ discipline = \"fq_codel\", codel = { target = \"5ms\" } }",
            format!("{at}.codel: does not apply to discipline \"fq_codel\" (expected discipline = \"codel\")"),
        ),
        (
            "{ discipline = \"red\", red = { min_th = 15, max_th = 15 } }",
            format!("{at}.red.max_th: 15 is not above min_th 15 (expected min_th < max_th)"),
        ),
        (
            "{ discipline = \"red\", red = { max_p = 0 } }",
            format!("{at}.red.max_p: 0 is outside (0, 1] (expected 0 < max_p <= 1)"),
        ),
        (
            "{ discipline = \"red\", red = { w_q = 1.5 } }",
            format!("{at}.red.w_q: 1.5 is outside (0, 1] (expected 0 < w_q <= 1)"),
        ),
        (
            "{ discipline = \"red\", red = { w_q = 0 } }",
            format!("{at}.red.w_q: 0 is outside (0, 1] (expected 0 < w_q <= 1)"),
        ),
        (
            "{ discipline = \"red\", limit = 10, red = { min_th = 5, max_th = 15 } }",
            format!("{at}.limit: 10 is below red.max_th 15 (expected limit >= max_th)"),
        ),
        (
            "{ discipline = \"red\", red = { mean_packet = 0 } }",
            format!("{at}.red.mean_packet: 0 bytes is not a packet size (expected mean_packet > 0)"),
        ),
        (
            "{ discipline = \"red\", red = { min_th = -1 } }",
            format!("{at}.red.min_th: -1 is not a threshold (expected min_th >= 0)"),
        ),
        (
            "{ discipline = \"red\", fq_codel = { flows = 8 } }",
            format!("{at}.fq_codel: does not apply to discipline \"red\" (expected discipline = \"fq_codel\")"),
        ),
    ] {
        assert_eq!(err(queue), expected);
    }
    // Unknown options and disciplines are named by the parser, with what it expected.
    assert_eq!(
        err("{ discipline = \"codel\", codel = { tagret = \"5ms\" } }"),
        format!(
            "{at}.codel.tagret: unknown field `tagret`, expected one of `target`, `interval`, `maxpacket`, `ecn`, `ce_threshold`, `control_law` (did you mean `target`?)"
        )
    );
    let e = err("{ discipline = \"codel\", codel = { control_law = \"fast\" } }");
    assert!(
        e.starts_with(&format!(
            "{at}.codel.control_law: unknown variant `fast`, expected `exact` or `newton`"
        )),
        "{e}"
    );
    assert!(err("{ discipline = \"cake\" }").starts_with(&format!(
        "{at}.discipline: unknown variant `cake`, expected one of `droptail`, `red`, `random_drop`, `drop_front`, `codel`, `fq_codel`"
    )));
}

/// docs/architecture.md, "How to add a queue discipline", shows CoDel's registry line and the
/// trait's methods: they must be the code's.
#[test]
fn the_architecture_page_shows_the_code_as_it_is() {
    let read = |p: &str| {
        let path = format!("{}/{p}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let doc = read("../../docs/architecture.md");
    let section = doc
        .split("## How to add a queue discipline")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the section");
    let code = read("src/net/queue/mod.rs");
    let line = section
        .lines()
        .find(|l| l.starts_with("+    codel::Codel"))
        .expect("the diff");
    assert!(code.lines().any(|l| l == &line[1..]), "{line}");
    let signatures: Vec<&str> = section
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("fn ") && l.ends_with(';'))
        .collect();
    assert!(signatures.len() >= 4);
    for s in signatures {
        assert!(code.contains(s), "{s}");
    }
    // `enqueue`'s signature spans lines (as rustfmt writes it): compared word for word.
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let start = section.find("fn enqueue(").expect("enqueue in the section");
    let len = section[start..].find(';').expect("its end") + 1;
    let enqueue = flat(&section[start..start + len]);
    assert!(enqueue.contains("marks: &mut Marks"), "{enqueue}");
    assert!(flat(&code).contains(&enqueue), "{enqueue}");
}
