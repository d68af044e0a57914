//! ECN marking queues through whole scenarios (docs/queues.md, "ECN marking"): the step queue
//! marks exactly the ECN-capable arrivals that find at least K waiting (checked against the
//! queue each arrival finds in the packet trace), the marks are counted by cause and traced
//! with the codepoint, Not-ECT traffic through a marking queue is a drop-tail queue's, and
//! marking runs repeat exactly. The endpoints have no ECN yet: ECN-capable traffic here is UDP
//! (`ecn` of a cbr group), which does not react to marks.

use tcplab_sim::net::packet::{Ecn, PacketKind};
use tcplab_sim::net::queue::MarkCause;
use tcplab_sim::trace::PacketEventKind as Ev;
use tcplab_sim::{run_toml, RunResult};

/// A 10 Mbit/s bottleneck fed by one bulk TCP flow (Not-ECT) and a 4 Mbit/s CBR stream of
/// 1000-byte datagrams whose codepoint is `udp_ecn`.
fn scenario(queue: &str, udp_ecn: &str) -> String {
    format!(
        r#"
seed = 3
duration = "10s"
warmup = "2s"
[network.dumbbell]
bottleneck = {{ rate = "10Mbit/s", delay = "10ms", queue = {queue} }}
access_rate = "100Mbit/s"
access_delay = "1ms"
[[flows]]
tcp = "newreno"
[[traffic]]
kind = "cbr"
rate = "4Mbit/s"
packet = 1000
ecn = "{udp_ecn}"
[trace]
links = ["bottleneck.fwd"]
max_points = 3000000
"#
    )
}

fn run(queue: &str, udp_ecn: &str) -> RunResult {
    let r = run_toml(&scenario(queue, udp_ecn), &[]).unwrap_or_else(|e| panic!("{e}"));
    assert!(!r.traces.truncated);
    r
}

const STEP: &str = r#"{ discipline = "step", limit = 60, step = { threshold = 20 } }"#;

/// The step queue's rule, checked event by event: the packets waiting each arrival finds are
/// counted from the trace (an enqueue adds one, a dequeue takes one away), and an arrival is
/// marked (a `mark` event right after its `enqueue`, cause threshold) if and only if it is
/// ECN-capable and found at least K = 20 waiting.
#[test]
fn the_step_queue_marks_exactly_the_ect_arrivals_that_find_k_waiting() {
    let r = run(STEP, "ect0");
    let i = r.links.iter().position(|l| l.link == "bottleneck.fwd").unwrap() as u32;
    let ev: Vec<_> = r.traces.packets.iter().filter(|e| e.link == i).collect();
    let (mut waiting, mut marked, mut unmarked_above, mut max_found) = (0i64, 0u64, 0u64, 0);
    for (k, e) in ev.iter().enumerate() {
        match e.event {
            Ev::Enqueue => {
                let next = ev.get(k + 1).filter(|n| n.event == Ev::Mark);
                let capable = e.ecn != Ecn::NotEct;
                assert_eq!(capable, e.kind == PacketKind::Udp, "only the CBR stream is ECT");
                if let Some(m) = next {
                    assert!(capable && waiting >= 20, "a mark at {} finding {waiting}", e.time);
                    assert_eq!((m.flow, m.seq, m.time), (e.flow, e.seq, e.time));
                    assert_eq!(
                        (m.mark, m.ecn, m.cause),
                        (Some(MarkCause::Threshold), Ecn::Ce, None)
                    );
                    marked += 1;
                } else {
                    assert!(
                        !(capable && waiting >= 20),
                        "an ECT arrival finding {waiting} unmarked"
                    );
                    if waiting >= 20 {
                        unmarked_above += 1;
                    }
                }
                max_found = max_found.max(waiting);
                waiting += 1;
            }
            Ev::Dequeue => waiting -= 1,
            _ => {}
        }
        assert!((0..=60).contains(&waiting));
    }
    // Both kinds of arrivals met a queue above K, and the buffer filled at times.
    assert!(marked > 100 && unmarked_above > 100, "{marked} {unmarked_above}");
    assert!(max_found >= 59, "{max_found}");
    // The counters: every mark is the trace's (over the whole run: the trace covers it), all by
    // the threshold; drops are the buffer's only, marks are not drops.
    let t = &r.totals[i as usize];
    let marks = ev.iter().filter(|e| e.event == Ev::Mark).count() as u64;
    assert_eq!(marks, marked);
    let l = &r.links[i as usize];
    assert!(l.marks > 0 && l.marks <= marks);
    assert_eq!(
        (l.marks, l.marks_early, l.marks_sojourn),
        (l.marks_threshold, 0, 0)
    );
    assert_eq!(
        (l.drops_queue, l.drops_early, l.drops_sojourn),
        (l.drops_overflow, 0, 0)
    );
    assert_eq!(
        t.arrivals,
        ev.iter()
            .filter(|e| matches!(e.event, Ev::Enqueue | Ev::Drop | Ev::Lost))
            .count() as u64
    );
    // A marked datagram leaves and arrives CE: its dequeue and receive carry the mark.
    let ce_out = ev
        .iter()
        .filter(|e| e.event == Ev::Receive && e.ecn == Ecn::Ce)
        .count() as u64;
    let still_inside = t.arrivals - t.drops_queue - t.delivered;
    assert!(
        ce_out <= marks && ce_out + still_inside >= marks,
        "{ce_out} {marks}"
    );
}

/// Not-ECT traffic through the step queue meets a drop-tail queue of the same limit: the same
/// run, event for event.
#[test]
fn without_ect_traffic_the_step_queue_is_drop_tail() {
    let step = run(STEP, "not_ect");
    let droptail = run(r#"{ discipline = "droptail", limit = 60 }"#, "not_ect");
    assert!(step.links.iter().all(|l| l.marks == 0));
    assert_eq!(step.traces.packets, droptail.traces.packets);
    assert_eq!(step.events, droptail.events);
    let g = |r: &RunResult| r.flows.iter().map(|f| f.bytes_delivered).collect::<Vec<_>>();
    assert_eq!(g(&step), g(&droptail));
    // ECT traffic at a drop-tail queue is never marked.
    let dt = run(r#"{ discipline = "droptail", limit = 60 }"#, "ect0");
    assert!(dt.links.iter().all(|l| l.marks == 0));
    assert!(!dt
        .traces
        .packets
        .iter()
        .any(|e| e.event == Ev::Mark || e.ecn == Ecn::Ce));
}

#[test]
fn marking_runs_repeat_exactly() {
    let a = run(STEP, "ect1");
    let b = run(STEP, "ect1");
    assert_eq!(a.traces.packets, b.traces.packets);
    assert!(a.links.iter().any(|l| l.marks > 0));
}

#[test]
fn a_threshold_not_below_the_limit_is_one_error_naming_the_field() {
    let e = run_toml(
        &scenario(
            r#"{ discipline = "step", limit = 60, step = { threshold = 60 } }"#,
            "ect0",
        ),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("network.dumbbell.bottleneck.queue.step.threshold") && e.contains("threshold < limit"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    let e = run_toml(&scenario(r#"{ discipline = "step" }"#, "ect0"), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("queue.step.threshold") && e.contains("missing"), "{e}");
    let e = run_toml(&scenario(STEP, "ce"), &[]).unwrap_err().to_string();
    assert!(e.contains("ecn"), "{e}");
}

/// CoDel with `ecn` and `ce_threshold` at dequeue: every `mark` is immediately followed by the
/// same packet's `dequeue`, carrying CE; ECT datagrams are marked, never dropped by the control
/// law, while the Not-ECT TCP flow's packets are dropped (sojourn) and never marked.
#[test]
fn codel_marks_at_dequeue_before_the_packet_starts() {
    let q = r#"{ discipline = "codel", limit = 1000, codel = { ecn = true, ce_threshold = "2ms" } }"#;
    let r = run(q, "ect0");
    let i = r.links.iter().position(|l| l.link == "bottleneck.fwd").unwrap() as u32;
    let ev: Vec<_> = r.traces.packets.iter().filter(|e| e.link == i).collect();
    let mut by_cause = [0u64; 2];
    for (k, e) in ev.iter().enumerate().filter(|(_, e)| e.event == Ev::Mark) {
        let next = ev[k + 1];
        assert_eq!(
            (next.event, next.flow, next.seq, next.time, next.ecn),
            (Ev::Dequeue, e.flow, e.seq, e.time, Ecn::Ce)
        );
        assert_eq!(e.kind, PacketKind::Udp);
        match e.mark {
            Some(MarkCause::Sojourn) => by_cause[0] += 1,
            Some(MarkCause::Threshold) => by_cause[1] += 1,
            other => panic!("{other:?}"),
        }
    }
    let l = &r.links[i as usize];
    assert!(by_cause[0] > 0 && by_cause[1] > 0, "{by_cause:?}");
    assert!(l.marks_sojourn > 0 && l.marks_sojourn <= by_cause[0]);
    assert!(l.marks_threshold > 0 && l.marks_threshold <= by_cause[1]);
    assert_eq!(l.marks, l.marks_sojourn + l.marks_threshold);
    assert_eq!(l.marks_early, 0);
    assert!(l.drops_sojourn > 0);
    assert!(!ev.iter().any(|e| e.event == Ev::Drop
        && e.kind == PacketKind::Udp
        && e.cause.is_some_and(|c| c.name() == "sojourn")));
}
