//! Invariants over random scenarios: packet conservation on every link and end to end, the
//! cwnd floor, and determinism (same scenario and seed, identical results), with every queue
//! discipline.

use proptest::prelude::*;
use tcplab_sim::run_toml;
use tcplab_sim::time::SimTime;
use tcplab_sim::trace::PacketEventKind;

#[derive(Debug, Clone)]
struct Hop {
    rate_kbps: u32,
    delay_ms: u32,
    limit: u32,
    loss_pct: f64,
    /// The queue's discipline and its options, as TOML key-values after the limit.
    discipline: String,
}

/// Every discipline, CoDel's and FQ-CoDel's with random parameters (few flow queues, so flows
/// share them).
fn discipline() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(", discipline = \"red\"".to_string()),
        Just(", discipline = \"random_drop\"".to_string()),
        Just(", discipline = \"drop_front\"".to_string()),
        (1u32..20, 1u32..10).prop_map(|(t, k)| format!(
            ", discipline = \"codel\", codel = {{ target = \"{t}ms\", interval = \"{}ms\" }}",
            t * (k + 1)
        )),
        (1u32..9, 1500u32..4000, 1u32..20).prop_map(|(flows, quantum, t)| format!(
            ", discipline = \"fq_codel\", fq_codel = {{ flows = {flows}, quantum = {quantum}, target = \"{t}ms\" }}"
        )),
        (1u32..30, any::<bool>()).prop_map(|(t, ecn)| format!(
            ", discipline = \"pie\", pie = {{ target = \"{t}ms\", ecn = {ecn} }}"
        )),
        (1u32..30, 1u32..4).prop_map(|(t, k)| format!(
            ", discipline = \"dualpi2\", dualpi2 = {{ target = \"{t}ms\", coupling = {k} }}"
        )),
    ]
}

fn hop() -> impl Strategy<Value = Hop> {
    (
        200u32..20_000,
        1u32..60,
        2u32..60,
        prop_oneof![Just(0.0), 0.0f64..8.0],
        discipline(),
    )
        .prop_map(|(rate_kbps, delay_ms, limit, loss_pct, discipline)| Hop {
            rate_kbps,
            delay_ms,
            limit,
            loss_pct,
            discipline,
        })
}

fn flow() -> impl Strategy<Value = String> {
    (
        // BBR (paced, delivery-rate driven) beside the window-based senders.
        prop_oneof![Just(("reno", "aimd")), Just(("tahoe", "aimd")), Just(("sack", "bbr"))],
        prop_oneof![Just("immediate"), Just("delayed")],
        prop_oneof![Just(536u32), Just(1000), Just(1460)],
        1u32..4,
        prop_oneof![Just(None), (20_000u64..400_000).prop_map(Some)],
        0u32..500,
    )
        .prop_map(|((tcp, cc), ack, mss, iw, bytes, start_ms)| {
            let bytes = bytes.map_or(String::new(), |b| format!(", bytes = {b}"));
            format!(
                "[[flows]]\ntcp = \"{tcp}\"\ncc = \"{cc}\"\nack = \"{ack}\"\nmss = {mss}\ninitial_window = {iw}\nstart = \"{start_ms}ms\"\nmin_rto = \"200ms\"{bytes}\n"
            )
            .replace(", bytes", "\nbytes")
        })
}

fn scenario(hops: &[Hop], flows: &[String], seed: u64) -> String {
    let hops: Vec<String> = hops
        .iter()
        .map(|h| {
            let loss = if h.loss_pct > 0.0 {
                format!(", loss = {{ model = \"bernoulli\", p = \"{}%\" }}", h.loss_pct)
            } else {
                String::new()
            };
            format!(
                "{{ rate = \"{}kbit/s\", delay = \"{}ms\", queue = {{ limit = {}{} }}{loss} }}",
                h.rate_kbps, h.delay_ms, h.limit, h.discipline
            )
        })
        .collect();
    format!(
        "seed = {seed}\nduration = \"8s\"\ntrace = {{ cwnd = true }}\n[network.path]\nhops = [{}]\n{}",
        hops.join(", "),
        flows.join("\n")
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn packets_are_conserved_and_runs_are_deterministic(
        hops in prop::collection::vec(hop(), 1..4),
        flows in prop::collection::vec(flow(), 1..4),
        seed in 0u64..1000,
    ) {
        let text = scenario(&hops, &flows, seed);
        let r = run_toml(&text, &[]).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        // Per link: offered = dropped by the queue + lost + delivered + still inside.
        for t in &r.totals {
            prop_assert_eq!(t.arrivals, t.drops_queue + t.drops_loss + t.delivered + t.in_link, "link {}", &t.link);
        }
        // Every queue drop has one cause.
        for l in &r.links {
            prop_assert_eq!(l.drops_queue, l.drops_overflow + l.drops_early + l.drops_sojourn, "link {}", &l.link);
        }
        // Along the path: what one hop delivers is what the next one is offered.
        let n = hops.len();
        let tot = |name: String| r.totals.iter().find(|t| t.link == name).unwrap().clone();
        for i in 0..n - 1 {
            prop_assert_eq!(tot(format!("hop{i}.fwd")).delivered, tot(format!("hop{}.fwd", i + 1)).arrivals);
            prop_assert_eq!(tot(format!("hop{}.rev", i + 1)).delivered, tot(format!("hop{i}.rev")).arrivals);
        }
        // End to end: every segment sent enters the first hop; every ACK the last hop's reverse.
        let sent: u64 = r.flows.iter().map(|f| f.segments_sent).sum();
        let acks: u64 = r.flows.iter().map(|f| f.acks_sent).sum();
        prop_assert_eq!(sent, tot("hop0.fwd".into()).arrivals);
        prop_assert_eq!(acks, tot(format!("hop{}.rev", n - 1)).arrivals);
        // The receiver never delivers more than the sender sent, nor the sender see more acked.
        for f in &r.flows {
            prop_assert!(f.bytes_acked <= f.segments_sent * f.mss_bytes as u64);
            prop_assert!(f.mean_window_bytes <= f.mean_cwnd_bytes);
            prop_assert!(f.ca_events + f.non_ca_events <= f.loss_events);
        }
        // cwnd never falls below one segment.
        for c in &r.traces.cwnd {
            let mss: u64 = r.flows[c.flow as usize].mss_bytes as u64;
            prop_assert!(c.cwnd_bytes >= mss, "cwnd {} < mss {}", c.cwnd_bytes, mss);
        }
        // Determinism: the same scenario gives byte-identical results.
        let again = run_toml(&text, &[]).unwrap();
        prop_assert_eq!(serde_json::to_string(&r).unwrap(), serde_json::to_string(&again).unwrap());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// A transparent link with nothing waiting skips its end-of-serialization event (see
    /// `net::link`); a queue trace turns that shortcut off on every link. Both must give the
    /// same results, whatever the disciplines, losses, warm-up and finite transfers (the run
    /// then ends at the last acknowledgement, which exercises the counters at a stop key).
    #[test]
    fn the_idle_link_shortcut_changes_nothing_but_the_event_count(
        hops in prop::collection::vec(hop(), 1..4),
        flows in prop::collection::vec(flow(), 1..4),
        seed in 0u64..1000,
        warmup_ms in 0u32..4000,
    ) {
        let text = scenario(&hops, &flows, seed).replacen('\n', &format!("\nwarmup = \"{warmup_ms}ms\"\n"), 1);
        let fast = run_toml(&text, &[]).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let full = run_toml(&text.replace("trace = { cwnd = true }", "trace = { cwnd = true, queue = true }"), &[]).unwrap();
        let json = |v: &dyn erased::Ser| v.json();
        prop_assert_eq!(json(&fast.flows), json(&full.flows), "{}", text);
        prop_assert_eq!(json(&fast.links), json(&full.links), "{}", text);
        prop_assert_eq!(json(&fast.totals), json(&full.totals), "{}", text);
        prop_assert_eq!(json(&fast.traces.cwnd), json(&full.traces.cwnd), "{}", text);
        prop_assert!(fast.events <= full.events);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// A link counts a packet as sent when its serialization ends: the packets and bytes sent
    /// over [0, w] and over (w, end] add up to those over the whole run, for every link,
    /// whether the serialization's end is an event or only a reserved key.
    #[test]
    fn the_measurement_windows_add_up(
        hops in prop::collection::vec(hop(), 1..4),
        flows in prop::collection::vec(flow(), 1..4),
        seed in 0u64..1000,
        w_us in 100_000u64..7_900_000,
    ) {
        let text = scenario(&hops, &flows, seed);
        let w = format!("{w_us}us");
        let whole = run_toml(&text, &[]).unwrap();
        let head = run_toml(&text, &[("duration".into(), w.clone())]).unwrap();
        let tail = run_toml(&text, &[("warmup".into(), w)]).unwrap();
        for ((a, b), all) in head.links.iter().zip(&tail.links).zip(&whole.links) {
            prop_assert_eq!(a.packets_sent + b.packets_sent, all.packets_sent, "{}\n{}", &all.link, text);
            prop_assert_eq!(a.bytes_sent + b.bytes_sent, all.bytes_sent, "{}", &all.link);
            prop_assert_eq!(a.packets_in + b.packets_in, all.packets_in, "{}", &all.link);
        }
    }
}

mod erased {
    pub trait Ser {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Ser for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap()
        }
    }
}

#[test]
fn adding_a_flow_does_not_change_another_links_loss_pattern() {
    // Per-component streams: a second hop's Bernoulli draws are the same whatever else runs.
    let base = |flows: &str| {
        format!(
            "seed = 7\nduration = \"5s\"\ntrace = {{ links = [\"hop0.fwd\"] }}\n[network.path]\nhops = [{{ rate = \"10Mbit/s\", delay = \"5ms\", queue = {{ limit = 1000 }}, loss = {{ model = \"bernoulli\", p = \"5%\" }} }}]\n{flows}"
        )
    };
    let one = run_toml(&base("[[flows]]\nbytes = 200000\n"), &[]).unwrap();
    let two = run_toml(
        &base("[[flows]]\nbytes = 200000\n[[flows]]\nstart = \"2s\"\nbytes = 100000\n"),
        &[],
    )
    .unwrap();
    // The loss module sees packets in arrival order; until the second flow starts at 2 s the
    // two runs offer identical packets, so the first losses must coincide.
    let losses = |r: &tcplab_sim::RunResult| -> Vec<u64> {
        r.traces
            .packets
            .iter()
            .filter(|e| e.event == PacketEventKind::Lost && e.time < SimTime::from_secs(2))
            .map(|e| e.seq)
            .collect()
    };
    assert!(!losses(&one).is_empty());
    assert_eq!(losses(&one), losses(&two));
}
