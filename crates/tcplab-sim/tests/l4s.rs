//! The SYN handshake (tcp/handshake.rs), Accurate ECN (tcp/accecn.rs) and TCP Prague
//! (tcp/cc/prague.rs) between the two endpoints, with scripted CE marks and losses: the
//! endpoints are driven on a lossless wire of fixed delay (as `ecn.rs` does), which sets CE on
//! chosen data segments and drops chosen SYNs, SYN-ACKs or ACKs. Known answers: when the
//! data start, the RTO and cwnd they start with, the outcome of ECN's negotiation for each
//! pair of settings, the ACE field of every ACK, the sender's counts, Prague's windows.

use super::common::{data_sent, one_hop, run};
use tcplab_sim::net::packet::Ecn;
use tcplab_sim::scenario;
use tcplab_sim::scenario::EcnSetting;
use tcplab_sim::tcp::accecn::ace;
use tcplab_sim::tcp::cc::{CongestionControl, Window};
use tcplab_sim::tcp::ecn::EcnFeedback;
use tcplab_sim::tcp::endpoint::{AnyReceiver, AnySender, Endpoint, TcpSender};
use tcplab_sim::tcp::segment::{Segment, SegmentKind, TcpFlags};
use tcplab_sim::time::SimTime;

const MSS: u64 = 1000;

/// What the wire carried: (time sent, segment) of each direction, and the sender's window
/// after each ACK it processed.
#[derive(Default)]
struct Log {
    data: Vec<(SimTime, Segment)>,
    acks: Vec<(SimTime, Segment)>,
    windows: Vec<(u64, Window)>,
}

/// What the wire does to the segments.
#[derive(Default)]
struct Script {
    /// Data segments (by sequence) that arrive CE.
    ce: Vec<u64>,
    /// SYNs and SYN-ACKs to drop: the first n of each.
    drop_syns: usize,
    drop_synacks: usize,
    /// Keep only every n-th ACK of data (ACK thinning), 0 or 1: all.
    thin_acks: usize,
}

/// Drives the flow's endpoints over a 10 ms one-way wire until `until`.
fn drive(flow: &str, script: &Script, until: SimTime) -> (Log, AnySender, AnyReceiver) {
    let text = format!(
        "duration = \"20s\"\n[network.path]\nhops = [{{ rate = \"1Gbit/s\", delay = \"10ms\" }}]\n[[flows]]\n{flow}\nmss = 1000\nrwnd = \"64KiB\"\n"
    );
    let sc = scenario::parse(&text, &[]).unwrap_or_else(|e| panic!("{e}"));
    let (mut s, mut r) = tcplab_sim::tcp::endpoints_for(&sc.flows[0], 0, 0, 1, None);
    let delay = SimTime::from_ms(10);
    let mut wire: Vec<(SimTime, Segment)> = Vec::new();
    let mut log = Log::default();
    let mut out = Vec::new();
    let (mut syns, mut synacks, mut acks) = (0, 0, 0);
    s.start(SimTime::ZERO, &mut out);
    let mut now = SimTime::ZERO;
    loop {
        for mut seg in out.drain(..) {
            let syn = seg.flags.has(TcpFlags::SYN);
            if seg.kind == SegmentKind::Data {
                log.data.push((now, seg));
                if syn {
                    syns += 1;
                    if syns <= script.drop_syns {
                        continue;
                    }
                }
                if seg.len > 0 && script.ce.contains(&seg.seq) && seg.ecn != Ecn::NotEct {
                    seg.ecn = Ecn::Ce;
                }
            } else {
                log.acks.push((now, seg));
                if syn {
                    synacks += 1;
                    if synacks <= script.drop_synacks {
                        continue;
                    }
                } else if script.thin_acks > 1 {
                    acks += 1;
                    if acks % script.thin_acks != 0 {
                        continue;
                    }
                }
            }
            wire.push((now + delay, seg));
        }
        let Some((next, arrival)) =
            super::common::next_instant(&mut wire, |w| w.0, [s.deadline(), r.deadline()])
        else {
            break;
        };
        now = next;
        if now > until {
            break;
        }
        if arrival {
            let (_, seg) = wire.remove(0);
            if seg.kind == SegmentKind::Data {
                r.on_segment(now, &seg, &mut out);
            } else {
                s.on_segment(now, &seg, &mut out);
                log.windows.push((seg.ack, native(&s).core.win));
            }
        } else if s.deadline() == Some(now) {
            s.on_timer(now, &mut out);
        } else {
            r.on_timer(now, &mut out);
        }
    }
    (log, s, r)
}

fn native(s: &AnySender) -> &tcplab_sim::tcp::sender::Sender {
    match s {
        AnySender::Native(n) => n,
        AnySender::Ns2(_) => panic!("not a native sender"),
    }
}

fn receiver(r: &AnyReceiver) -> &tcplab_sim::tcp::receiver::Receiver {
    match r {
        AnyReceiver::Native(n) => n,
        AnyReceiver::Ns2(_) => panic!("not a native receiver"),
    }
}

/// When the first data segment left, and the times of the SYNs.
fn first_data(log: &Log) -> SimTime {
    log.data.iter().find(|(_, d)| d.len > 0).expect("data sent").0
}

fn syn_times(log: &Log) -> Vec<SimTime> {
    log.data
        .iter()
        .filter(|(_, d)| d.flags.has(TcpFlags::SYN))
        .map(|(t, _)| *t)
        .collect()
}

const RENO: &str = "tcp = \"reno\"\nack = \"immediate\"\nhandshake = true";

#[test]
fn the_handshake_starts_the_data_one_round_trip_late_with_its_rtt_sample() {
    let (log, s, r) = drive(RENO, &Script::default(), SimTime::from_ms(100));
    assert_eq!(syn_times(&log), vec![SimTime::ZERO]);
    // SYN-ACK at 10 ms, at the sender at 20 ms: the ACK of the SYN-ACK and the first data
    // leave then.
    assert_eq!(log.acks[0].0, SimTime::from_ms(10));
    assert!(log.acks[0].1.flags.has(TcpFlags::SYN));
    assert_eq!(first_data(&log), SimTime::from_ms(20));
    let (t, ack) = log.data[1];
    assert_eq!(
        (t, ack.len, ack.flags.has(TcpFlags::SYN)),
        (SimTime::from_ms(20), 0, false)
    );
    // The first RTT sample is the handshake's (20 ms): RTO = max(20 + 4 x 10, min_rto 1 s).
    let n = native(&s);
    assert_eq!(n.core.rtt.srtt(), Some(SimTime::from_ms(20)));
    // No ECN asked: none used; the handshake ACK is not acknowledged, the data are.
    assert!(!n.core.ecn.on && receiver(&r).ecn.feedback == EcnFeedback::Off);
    assert!(log
        .data
        .iter()
        .filter(|(_, d)| d.len > 0)
        .all(|(_, d)| d.ecn == Ecn::NotEct));
    assert_eq!(log.acks[1].0, SimTime::from_ms(30));
    assert_eq!(log.acks[1].1.ack, MSS);
    // SYN: the 40-byte header + 12 bytes of options (no timestamps).
    assert_eq!(log.data[0].1.size, 52);
}

#[test]
fn a_lost_syn_is_sent_again_at_one_second_and_the_data_start_at_one_second_plus_the_rtt() {
    let script = Script {
        drop_syns: 1,
        ..Default::default()
    };
    let (log, s, _) = drive(RENO, &script, SimTime::from_secs(2));
    assert_eq!(syn_times(&log), vec![SimTime::ZERO, SimTime::from_secs(1)]);
    assert_eq!(first_data(&log), SimTime::from_ms(1020));
    // Without timestamps the SYN-ACK of a retransmitted SYN gives no sample (Karn): RFC 6298
    // Sec. 5.7's 3 s; cwnd stays the initial window after one retransmission (Linux).
    let n = native(&s);
    assert!(n.core.rtt.srtt().is_some(), "the data's own samples came later");
    let (log, s, _) = drive(RENO, &script, SimTime::from_ms(1020));
    let n = native(&s);
    assert_eq!(
        (n.core.rtt.srtt(), n.core.rtt.rto()),
        (None, SimTime::from_secs(3))
    );
    assert_eq!(n.core.win.cwnd, MSS, "initial_window = 1 segment (the default)");
    assert_eq!(first_data(&log), SimTime::from_ms(1020));
    // With timestamps the echo of the SYN that arrived gives 20 ms.
    let ts = format!("{RENO}\ntimestamps = true");
    let (log, s, _) = drive(&ts, &script, SimTime::from_ms(1020));
    assert_eq!(native(&s).core.rtt.srtt(), Some(SimTime::from_ms(20)));
    assert_eq!(
        log.data[0].1.size, 60,
        "52-byte header + 8 bytes: Linux's 60-byte SYN"
    );
}

#[test]
fn two_lost_syns_back_off_and_the_window_starts_at_one_segment() {
    let script = Script {
        drop_syns: 2,
        ..Default::default()
    };
    let flow = format!("{RENO}\ninitial_window = 10");
    let (log, s, _) = drive(&flow, &script, SimTime::from_ms(3020));
    // 0, 1 s, then 2 s later (RFC 6298 Sec. 5.5).
    assert_eq!(
        syn_times(&log),
        vec![SimTime::ZERO, SimTime::from_secs(1), SimTime::from_secs(3)]
    );
    assert_eq!(first_data(&log), SimTime::from_ms(3020));
    // More than one SYN retransmission: 1 segment (Linux's tcp_init_transfer).
    assert_eq!(native(&s).core.win.cwnd, MSS);
    assert_eq!(log.data.iter().filter(|(_, d)| d.len > 0).count(), 1);
    // One retransmission keeps IW = 10.
    let one = Script {
        drop_syns: 1,
        ..Default::default()
    };
    let (log, _, _) = drive(&flow, &one, SimTime::from_ms(1020));
    assert_eq!(log.data.iter().filter(|(_, d)| d.len > 0).count(), 10);
}

#[test]
fn a_lost_syn_ack_is_answered_again_when_the_syn_is_retransmitted() {
    let script = Script {
        drop_synacks: 1,
        ..Default::default()
    };
    let (log, _, _) = drive(RENO, &script, SimTime::from_secs(2));
    assert_eq!(syn_times(&log), vec![SimTime::ZERO, SimTime::from_secs(1)]);
    let synacks: Vec<SimTime> = log
        .acks
        .iter()
        .filter(|(_, a)| a.flags.has(TcpFlags::SYN))
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(synacks, vec![SimTime::from_ms(10), SimTime::from_ms(1010)]);
    assert_eq!(first_data(&log), SimTime::from_ms(1020));
}

#[test]
fn ecn_negotiation_on_the_handshake_for_each_pair_of_settings() {
    // (sender's ecn, receiver's ecn_receiver) -> the data's codepoint and the feedback.
    let senders = [
        ("off", EcnSetting::Off),
        ("classic", EcnSetting::Classic),
        ("accecn", EcnSetting::Accecn),
    ];
    let receivers = [
        ("false", EcnSetting::Off),
        ("\"off\"", EcnSetting::Off),
        ("\"classic\"", EcnSetting::Classic),
        ("\"accecn\"", EcnSetting::Accecn),
        ("true", EcnSetting::Accecn),
    ];
    for (sname, asked) in senders {
        for (rname, supports) in receivers {
            let flow = format!("{RENO}\necn = \"{sname}\"\necn_receiver = {rname}");
            let (log, s, r) = drive(&flow, &Script::default(), SimTime::from_ms(40));
            let agreed = asked.min(supports);
            let want_feedback = match agreed {
                EcnSetting::Off => EcnFeedback::Off,
                EcnSetting::Classic => EcnFeedback::Classic,
                EcnSetting::Accecn => EcnFeedback::AccEcn,
            };
            let case = format!("ecn = {sname}, ecn_receiver = {rname}");
            assert_eq!(receiver(&r).ecn.feedback, want_feedback, "{case}");
            let n = native(&s);
            assert_eq!(n.core.ecn.on, agreed != EcnSetting::Off, "{case}");
            assert_eq!(n.core.ecn.acc.is_some(), agreed == EcnSetting::Accecn, "{case}");
            let data = log.data.iter().find(|(_, d)| d.len > 0).unwrap().1;
            let want = if agreed == EcnSetting::Off {
                Ecn::NotEct
            } else {
                Ecn::Ect0
            };
            assert_eq!(data.ecn, want, "{case}");
            // The same outcome as the configuration alone gives without the handshake.
            let spec = scenario::parse(
                &format!("duration = \"1s\"\n[network.path]\nhops = [{{ rate = \"1Gbit/s\", delay = \"10ms\" }}]\n[[flows]]\n{flow}\n"),
                &[],
            )
            .unwrap();
            assert_eq!(spec.flows[0].ecn_mode(), agreed, "{case}");
        }
    }
}

#[test]
fn prague_negotiates_accecn_on_the_handshake_and_keeps_ect1_over_classic_feedback() {
    let prague = "tcp = \"reno\"\ncc = \"prague\"\necn = \"accecn\"\nack = \"immediate\"\nhandshake = true";
    for (rx, feedback) in [
        ("true", EcnFeedback::AccEcn),
        ("\"classic\"", EcnFeedback::Classic),
    ] {
        let flow = format!("{prague}\necn_receiver = {rx}");
        let (log, s, r) = drive(&flow, &Script::default(), SimTime::from_ms(40));
        assert_eq!(receiver(&r).ecn.feedback, feedback, "{rx}");
        assert!(native(&s).core.ecn.on);
        // The SYN asked for AccECN: (AE, CWR, ECE) = (1, 1, 1).
        assert_eq!(ace(log.data[0].1.flags), 0b111);
        assert!(log
            .data
            .iter()
            .filter(|(_, d)| d.len > 0)
            .all(|(_, d)| d.ecn == Ecn::Ect1));
    }
}

#[test]
fn accecn_acks_carry_the_ce_packet_count_mod_8_and_the_sender_counts_every_mark() {
    // 12 segments CE in a row (1..=12) with an ACK per segment: ACE = 5 + marks so far, mod 8;
    // it wraps twice.
    let flow = "tcp = \"reno\"\nack = \"immediate\"\necn = \"accecn\"\ninitial_window = 20";
    let ce: Vec<u64> = (1..=12).map(|k| k * MSS).collect();
    let script = Script {
        ce,
        ..Default::default()
    };
    let (log, s, r) = drive(flow, &script, SimTime::from_ms(30));
    let aces: Vec<u32> = log.acks.iter().map(|(_, a)| ace(a.flags)).collect();
    let want: Vec<u32> = (0..aces.len() as u32).map(|k| (5 + k.min(12)) % 8).collect();
    assert_eq!(aces, want);
    // One ACK per data segment: the 12 CE segments and the others, ECT(0).
    let rc = receiver(&r).ecn.acc.as_deref().unwrap();
    let others = aces.len() as u32 - 12;
    assert_eq!(
        (rc.cep, rc.ceb, rc.e0b, rc.e1b),
        (17, 12_000, 1 + others * 1000, 1)
    );
    let sc = native(&s).core.ecn.acc.as_deref().unwrap();
    assert_eq!((sc.cep, sc.ce_packets, sc.ce_bytes), (17, 12, 12_000));
    // Data ECT(0) (a classic controller), ACKs Not-ECT with the 11-byte option (12 on the wire).
    assert!(log.data.iter().all(|(_, d)| d.ecn == Ecn::Ect0));
    assert!(log
        .acks
        .iter()
        .all(|(_, a)| a.ecn == Ecn::NotEct && a.size == 40 + 12));
}

#[test]
fn accecn_thinned_acks_are_decoded_with_the_option_past_a_wrap() {
    // Every 10th ACK survives, so one ACK covers 10 packets, 9 of them CE: ACE moves by
    // 9 mod 8 = 1. The option's 9000 CE bytes (> 1 x SMSS) make the safe reading 9.
    let flow = "tcp = \"reno\"\nack = \"immediate\"\necn = \"accecn\"\ninitial_window = 10";
    let script = Script {
        ce: (0..9).map(|k| k * MSS).collect(),
        thin_acks: 10,
        ..Default::default()
    };
    let (log, s, _) = drive(flow, &script, SimTime::from_ms(21));
    assert_eq!(log.windows.len(), 1, "one ACK arrived");
    let sc = native(&s).core.ecn.acc.as_deref().unwrap();
    assert_eq!((sc.ce_packets, sc.ce_bytes, sc.cep), (9, 9_000, 14));
    // With delayed ACKs the receiver still ACKs on the first CE (change-triggered) and at
    // every second CE since the last ACK (RFC 9768 Sec. 3.2.2.5.1): no ACK covers 3 marks.
    let delayed = "tcp = \"reno\"\necn = \"accecn\"\ninitial_window = 10";
    let script = Script {
        ce: (2..8).map(|k| k * MSS).collect(),
        ..Default::default()
    };
    let (log, _, _) = drive(delayed, &script, SimTime::from_ms(21));
    let acked: Vec<(u64, u32)> = log.acks.iter().map(|(_, a)| (a.ack, ace(a.flags))).collect();
    // Segment 1: the second -> ACK; 2 (CE after non-CE) -> ACK; 4 and 6 (the second CE since
    // the last ACK) -> ACK; 8, the second segment since the last ACK -> ACK; 9 waits.
    assert_eq!(
        acked,
        vec![(2_000, 5), (3_000, 6), (5_000, 0), (7_000, 2), (9_000, 3)]
    );
}

#[test]
fn dctcp_over_accecn_counts_the_exact_ce_bytes() {
    // Segments 0, 3, 5 and 7 of the first 10 arrive CE, one ACK each. DCTCP's first window
    // ends with the first ACK (WindowEnd starts at 0): 1000 bytes, all CE (the AccECN option's
    // ECEB), alpha = 1. The next ends with the first ACK above 10000 (ACK 11000, at 40 ms):
    // 10 segments acknowledged, 3 of them CE: M = 3/10.
    let flow = "tcp = \"reno\"\ncc = \"dctcp\"\nack = \"immediate\"\necn = \"accecn\"\ninitial_window = 10";
    let script = Script {
        ce: vec![0, 3_000, 5_000, 7_000],
        ..Default::default()
    };
    let (_, s, _) = drive(flow, &script, SimTime::from_ms(40));
    let CongestionControl::Dctcp(d) = &native(&s).cc else {
        panic!("dctcp")
    };
    let g = 1.0 / 16.0;
    let a1 = (1.0 - g) * 1.0 + g * 1.0;
    let a2 = (1.0 - g) * a1 + g * (3.0 / 10.0);
    assert_eq!(d.alpha, a2);
}

#[test]
fn prague_sends_ect1_and_halves_on_the_first_mark_with_alpha_one() {
    let flow = "tcp = \"reno\"\ncc = \"prague\"\nack = \"immediate\"\necn = \"accecn\"\ninitial_window = 10";
    let script = Script {
        ce: vec![0],
        ..Default::default()
    };
    let (log, s, _) = drive(flow, &script, SimTime::from_ms(21));
    assert!(log.data.iter().all(|(_, d)| d.ecn == Ecn::Ect1));
    // The first ACK reports 1 CE packet: the reduction, 10 x 1/2 = 5 segments (alpha starts
    // at 1), goes into the carry, and cwnd follows it one segment per ACK (tcp_prague.c's
    // adjust step, ssthresh = cwnd at each step: slow start ends at once): 9 on this ACK,
    // then 8, 7, 6 while the unmarked packets' increase, (2^20 + cwnd / 2) / cwnd each, pays
    // the rest of the carry down to above -1 segment (-476437 after the fifth ACK).
    assert_eq!(
        log.windows[0],
        (
            MSS,
            Window {
                cwnd: 9 * MSS,
                ssthresh: 9 * MSS
            }
        )
    );
    let cwnds: Vec<u64> = log.windows[..5].iter().map(|(_, w)| w.cwnd / MSS).collect();
    assert_eq!(cwnds, [9, 8, 7, 6, 6]);
    let CongestionControl::Prague(p) = &native(&s).cc else {
        panic!("prague")
    };
    assert!(p.saw_ce);
    // alpha: the first ACK ends the first round (F = 1 of 1: alpha stays 1) and starts the
    // next at snd_nxt = 10 000; the tenth ACK, at 20 ms, reaches it (prague_e2e_rtt_elapsed,
    // snd_una >= next_seq) and ends that round with F = 0 of 9: alpha = 15/16.
    assert_eq!(p.alpha(), 15.0 / 16.0);
}

#[test]
fn l4s_errors_name_the_field() {
    let parse = |flow: &str| {
        scenario::parse(
            &format!("duration = \"1s\"\n[network.path]\nhops = [{{ rate = \"1Gbit/s\", delay = \"10ms\" }}]\n[[flows]]\n{flow}\n"),
            &[],
        )
        .map(|_| ())
        .unwrap_err()
        .to_string()
    };
    let e = parse("cc = \"prague\"\necn = \"classic\"");
    assert!(e.contains("flows[0].ecn") && e.contains("\"accecn\""), "{e}");
    let e = parse("cc = \"prague\"");
    assert!(e.contains("flows[0].ecn") && e.contains("left out"), "{e}");
    let e = parse("profile = \"ns2\"\ntcp = \"reno\"\nack = \"immediate\"\necn = \"accecn\"");
    assert!(e.contains("flows[0].ecn") && e.contains("ns2"), "{e}");
    let e = parse("handshake = true\nrto_estimator = \"jacobson88\"");
    assert!(e.contains("flows[0].handshake") && e.contains("rfc6298"), "{e}");
    let e = parse("ecn_receiver = \"sometimes\"");
    assert!(e.contains("ecn_receiver"), "{e}");
}

#[test]
fn a_handshake_against_a_lost_syn_in_a_full_run_starts_the_data_at_one_second() {
    // The first packet on the path (the SYN) is lost: the run's first data packet leaves at
    // 1 s + the 20 ms round trip (the trace's first data record with payload).
    let text = one_hop("tcp = \"reno\"\nhandshake = true\nbytes = 10000", &[1], "3s");
    let r = run(&text);
    let sent = data_sent(&r);
    // The SYN at 0 (lost) and at 1 s, then the handshake's ACK and the data at 1 s + the
    // 100 ms round trip + the serialization of the 52-byte SYN and SYN-ACK at 1 Gbit/s.
    let syn_and_ack: Vec<f64> = sent.iter().take(3).map(|s| s.t).collect();
    assert_eq!(&syn_and_ack[..2], &[0.0, 1.0]);
    let first_data = sent[2..].iter().map(|s| s.t).fold(f64::MAX, f64::min);
    assert_eq!(first_data, 1.0 + 0.1 + 2.0 * 52.0 * 8.0 / 1e9);
    assert!(sent[1].retransmit, "the second SYN is a retransmission");
}

#[test]
fn a_syn_into_a_full_queue_is_dropped_and_sent_again_at_one_second() {
    // Flow 0 sends 10 segments at 0 into a 2-packet queue of a 1 Mbit/s hop (8.3 ms each):
    // at 1 ms the queue is full, so flow 1's SYN is dropped; it goes again at 1.001 s.
    let text = r#"
duration = "3s"
trace = { links = ["hop0.fwd"] }
[network.path]
hops = [{ rate = "1Mbit/s", delay = "10ms", queue = { limit = 2 } }]
[[flows]]
tcp = "reno"
mss = 1000
initial_window = 10
bytes = 10000
[[flows]]
tcp = "reno"
mss = 1000
handshake = true
start = "1ms"
bytes = 5000
"#;
    let r = run(text);
    use tcplab_sim::trace::PacketEventKind as Ev;
    let syn_events: Vec<(u64, Ev)> = r
        .traces
        .packets
        .iter()
        .filter(|e| e.flow == 1 && e.kind == tcplab_sim::net::packet::PacketKind::Data && e.len == 0)
        .filter(|e| matches!(e.event, Ev::Enqueue | Ev::Drop))
        .map(|e| (e.time.ns(), e.event))
        .collect();
    // The SYN dropped at 1 ms, again at 1.001 s; the ACK of the SYN-ACK (and the data) at
    // 1.001 s + 20 ms + the SYN's and the SYN-ACK's 416 us of serialization (52 bytes at
    // 1 Mbit/s).
    assert_eq!(
        syn_events,
        vec![
            (1_000_000, Ev::Drop),
            (1_001_000_000, Ev::Enqueue),
            (1_021_832_000, Ev::Enqueue)
        ]
    );
    assert_eq!(r.flows[1].bytes_delivered, 5000);
}
