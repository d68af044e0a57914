//! The typed traces (docs/traces.md): every packet event and packet kind appears with its
//! fields, the counts agree with the links' own counters, ssthresh is None until a loss sets
//! it, and a bounded trace says it was truncated.

use tcplab_sim::net::packet::PacketKind;
use tcplab_sim::net::DropCause;
use tcplab_sim::trace::PacketEventKind as Ev;
use tcplab_sim::{run_toml, RunResult};

/// One hop with a 5-packet queue (slow start overflows it), the 40th arrival scripted lost,
/// and a CBR source beside the TCP flow: data, ACKs and UDP datagrams on traced links.
fn scripted(trace: &str) -> RunResult {
    let text = format!(
        r#"
duration = "3s"
trace = {trace}
[network.path]
hops = [{{ rate = "10Mbit/s", delay = "20ms", queue = {{ limit = 5 }}, loss = {{ model = "script", packets = [40] }} }}]
[[flows]]
tcp = "reno"
ack = "immediate"
mss = 1000
[[traffic]]
kind = "cbr"
rate = "500kbit/s"
"#
    );
    run_toml(&text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn link(r: &RunResult, name: &str) -> u32 {
    r.links.iter().position(|l| l.link == name).unwrap() as u32
}

#[test]
fn every_event_and_packet_kind_is_recorded_with_its_cause() {
    let r = scripted(r#"{ links = ["hop0.fwd", "hop0.rev"] }"#);
    let p = &r.traces.packets;
    // A drop-tail queue marks nothing: `mark` events are tests/marking.rs's.
    for ev in Ev::ALL.into_iter().filter(|&e| e != Ev::Mark) {
        assert!(p.iter().any(|e| e.event == ev), "no {ev:?} event");
    }
    assert!(!p.iter().any(|e| e.event == Ev::Mark));
    for kind in [PacketKind::Data, PacketKind::Ack, PacketKind::Udp] {
        assert!(p.iter().any(|e| e.kind == kind), "no {kind:?} packet");
    }
    for e in p {
        let want = match e.event {
            Ev::Drop => Some(DropCause::Overflow),
            Ev::Lost => Some(DropCause::Loss),
            _ => None,
        };
        assert_eq!(e.cause, want, "{e:?}");
        // TCP segments carry 40 header bytes; a UDP datagram's size is its length.
        let header = if e.kind == PacketKind::Udp { 0 } else { 40 };
        assert_eq!(e.size, e.len + header, "{e:?}");
    }
    assert!(r.traces.packets.windows(2).all(|w| w[0].time <= w[1].time));
    assert!(!r.traces.truncated);
    // The events agree with the links' own counters (whole run): every arrival is admitted,
    // dropped by the queue (drop-tail drops the arrival) or lost; every delivery is a receive.
    for t in &r.totals {
        let l = link(&r, &t.link);
        let n = |ev: Ev| p.iter().filter(|e| e.link == l && e.event == ev).count() as u64;
        assert_eq!(
            t.arrivals,
            n(Ev::Enqueue) + n(Ev::Drop) + n(Ev::Lost),
            "{}",
            t.link
        );
        assert_eq!(t.drops_queue, n(Ev::Drop), "{}", t.link);
        assert_eq!(t.drops_loss, n(Ev::Lost), "{}", t.link);
        assert_eq!(t.delivered, n(Ev::Receive), "{}", t.link);
    }
    // The scripted loss is the 40th arrival at the forward link.
    let fwd = link(&r, "hop0.fwd");
    let arrivals: Vec<_> = p
        .iter()
        .filter(|e| e.link == fwd && matches!(e.event, Ev::Enqueue | Ev::Drop | Ev::Lost))
        .collect();
    assert_eq!(arrivals[39].event, Ev::Lost);
    assert_eq!(p.iter().filter(|e| e.event == Ev::Lost).count(), 1);
}

#[test]
fn ssthresh_is_none_until_the_first_loss_sets_it() {
    let r = scripted("{ cwnd = true }");
    let c: Vec<_> = r.traces.cwnd.iter().filter(|c| c.flow == 0).collect();
    assert_eq!(c[0].ssthresh_bytes, None, "{:?}", c[0]);
    let first = c.iter().position(|c| c.ssthresh_bytes.is_some()).unwrap();
    assert!(first > 1, "slow start before the loss");
    assert!(c[..first].windows(2).all(|w| w[1].cwnd_bytes > w[0].cwnd_bytes));
    // Once set it stays set, and it is a window of a few segments, not a huge number.
    assert!(c[first..].iter().all(|c| c.ssthresh_bytes.is_some()));
    assert!(c[first].ssthresh_bytes.unwrap() < 100_000, "{:?}", c[first]);
}

#[test]
fn queue_records_count_packets_and_bytes() {
    let r = scripted("{ queue = true }");
    let q = &r.traces.queue;
    assert!(q.iter().any(|q| q.packets == 5), "the 5-packet queue fills");
    assert!(q.iter().all(|q| q.packets <= 5));
    // Data segments are 1040 bytes and CBR datagrams smaller: bytes track packets.
    assert!(q
        .iter()
        .all(|q| q.bytes <= q.packets * 1040 && (q.packets == 0) == (q.bytes == 0)));
}

#[test]
fn a_bounded_trace_stops_and_says_so() {
    let r = scripted(r#"{ links = ["hop0.fwd"], queue = true, max_points = 10 }"#);
    assert_eq!(r.traces.packets.len(), 10);
    assert_eq!(r.traces.queue.len(), 10);
    assert!(r.traces.truncated);
    let exact = scripted(r#"{ links = ["hop0.fwd"] }"#).traces.packets.len();
    let r = scripted(&format!(r#"{{ links = ["hop0.fwd"], max_points = {exact} }}"#));
    assert_eq!(r.traces.packets.len(), exact);
    assert!(!r.traces.truncated, "a trace that fits exactly is complete");
}

#[test]
fn codel_drops_at_dequeue_are_traced_with_their_cause() {
    // RED drops early at enqueue, CoDel by sojourn time at dequeue: the trace names each
    // cause, and every queue drop of the links table is one drop event.
    for (discipline, cause) in [("red", DropCause::Early), ("codel", DropCause::Sojourn)] {
        let text = format!(
            r#"
duration = "20s"
trace = {{ links = ["hop0.fwd"] }}
[network.path]
hops = [{{ rate = "10Mbit/s", delay = "20ms", queue = {{ discipline = "{discipline}", limit = 1000 }} }}]
[[flows]]
tcp = "sack"
[[flows]]
tcp = "sack"
"#
        );
        let r = run_toml(&text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let drops: Vec<_> = r.traces.packets.iter().filter(|e| e.event == Ev::Drop).collect();
        assert!(drops.iter().any(|e| e.cause == Some(cause)), "{discipline}");
        let t = &r.totals[0];
        assert_eq!(drops.len() as u64, t.drops_queue, "{discipline}");
    }
}
