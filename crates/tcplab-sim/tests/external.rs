//! Flows with external endpoints (the emulator's seam, `sim::external`): injected packets
//! cross the modeled links with exactly their serialization and propagation times, queue and
//! are dropped like simulated ones, and come out at the far end or as a drop.

use tcplab_sim::engine::Side;
use tcplab_sim::net::packet::Ecn;
use tcplab_sim::sim::{Arrival, Simulation};
use tcplab_sim::time::SimTime;

fn sim(hops: &str) -> Simulation {
    let text = format!("duration = \"10s\"\n[network.path]\nhops = [{hops}]\n[[flows]]\ntcp = \"reno\"\n");
    let sc = tcplab_sim::load(&text, &[]).expect("valid scenario");
    let mut s = Simulation::new(&sc);
    s.externalize();
    s
}

fn ms(x: f64) -> SimTime {
    SimTime::from_secs_f64(x * 1e-3)
}

#[test]
fn a_packet_crosses_with_serialization_and_delay() {
    // 8 Mbit/s: 1000 bytes take 1 ms to serialize; 10 ms propagation.
    let mut s = sim(r#"{ rate = "8Mbit/s", delay = "10ms", queue = { limit = 10 } }"#);
    s.inject(ms(5.0), 0, Side::Sender, 1000, Ecn::Ect0, 42);
    s.run_until(ms(15.999));
    let mut out = Vec::new();
    s.take_arrivals(&mut out);
    assert!(out.is_empty(), "nothing arrives before 16 ms: {out:?}");
    assert_eq!(s.next_event(), Some(ms(16.0)));
    s.run_until(ms(16.0));
    s.take_arrivals(&mut out);
    assert_eq!(
        out,
        vec![Arrival {
            at: ms(16.0),
            flow: 0,
            to: Some(Side::Receiver),
            token: 42,
            ecn: Ecn::Ect0,
        }]
    );
    // The reverse direction: an ACK from the receiver reaches the sender.
    s.inject(ms(20.0), 0, Side::Receiver, 40, Ecn::NotEct, 7);
    s.run_until(ms(40.0));
    out.clear();
    s.take_arrivals(&mut out);
    let at = ms(20.0) + tcplab_sim::time::serialization_time(40, 8_000_000) + ms(10.0);
    assert_eq!(
        out,
        vec![Arrival {
            at,
            flow: 0,
            to: Some(Side::Sender),
            token: 7,
            ecn: Ecn::NotEct,
        }]
    );
}

#[test]
fn packets_queue_behind_each_other_and_overflow_is_reported() {
    // Queue limit 2: of five packets offered at once, one is on the wire, two wait, two are
    // dropped; the survivors leave 1 ms apart.
    let mut s = sim(r#"{ rate = "8Mbit/s", delay = "10ms", queue = { limit = 2 } }"#);
    for token in 0..5 {
        s.inject(ms(1.0), 0, Side::Sender, 1000, Ecn::NotEct, token);
    }
    s.run_until(ms(100.0));
    let mut out = Vec::new();
    s.take_arrivals(&mut out);
    let dropped: Vec<u64> = out.iter().filter(|a| a.to.is_none()).map(|a| a.token).collect();
    let delivered: Vec<(SimTime, u64)> = out
        .iter()
        .filter(|a| a.to.is_some())
        .map(|a| (a.at, a.token))
        .collect();
    assert_eq!(dropped, vec![3, 4]);
    assert_eq!(delivered, vec![(ms(12.0), 0), (ms(13.0), 1), (ms(14.0), 2)]);
    let r = s.finish();
    assert_eq!(r.links[0].drops_queue, 2);
    assert_eq!(r.links[0].packets_sent, 3);
    // External flows have no simulated endpoints: their own counters stay zero.
    assert_eq!(r.flows[0].segments_sent, 0);
}

#[test]
fn a_loss_module_drop_is_reported_with_its_time() {
    let mut s = sim(
        r#"{ rate = "8Mbit/s", delay = "10ms", queue = { limit = 10 }, loss = { model = "bernoulli", p = 1.0 } }"#,
    );
    s.inject(ms(3.0), 0, Side::Sender, 1000, Ecn::Ect0, 9);
    let mut out = Vec::new();
    s.take_arrivals(&mut out);
    assert_eq!(
        out,
        vec![Arrival {
            at: ms(3.0),
            flow: 0,
            to: None,
            token: 9,
            ecn: Ecn::Ect0,
        }]
    );
    assert_eq!(s.finish().links[0].drops_loss, 1);
}

#[test]
fn the_ecn_codepoint_rides_through_a_queue_that_does_not_mark() {
    // Drop-tail does not mark: every codepoint leaves as it entered, and a packet the queue
    // drops is reported with its own.
    let mut s = sim(r#"{ rate = "8Mbit/s", delay = "10ms", queue = { limit = 2 } }"#);
    let sent = [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce, Ecn::Ect0];
    for (token, &ecn) in sent.iter().enumerate() {
        s.inject(ms(1.0), 0, Side::Sender, 1000, ecn, token as u64);
    }
    s.run_until(ms(100.0));
    let mut out = Vec::new();
    s.take_arrivals(&mut out);
    let got: Vec<(u64, Option<Side>, Ecn)> = out.iter().map(|a| (a.token, a.to, a.ecn)).collect();
    let rx = Some(Side::Receiver);
    assert_eq!(
        got,
        vec![
            (3, None, Ecn::Ce),
            (4, None, Ecn::Ect0),
            (0, rx, Ecn::NotEct),
            (1, rx, Ecn::Ect1),
            (2, rx, Ecn::Ect0),
        ]
    );
}
