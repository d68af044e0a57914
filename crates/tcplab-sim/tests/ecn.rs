//! ECN in the endpoints (tcp/ecn.rs), with scripted CE marks: the endpoints are driven on a
//! lossless wire of fixed delay (as `endpoints.rs` does), and the wire sets CE on chosen data
//! segments, as a marking queue would. Known answers: which segments are ECT and carry CWR,
//! which ACKs carry ECE, the window after each response, the counters, DCTCP's alpha.

use super::common::{one_hop, run, started_sender};
use tcplab_sim::net::packet::Ecn;
use tcplab_sim::scenario;
use tcplab_sim::tcp::cc::{CongestionControl, Window};
use tcplab_sim::tcp::ecn::EcnFeedback;
use tcplab_sim::tcp::endpoint::{AnySender, Endpoint, TcpReceiver, TcpSender};
use tcplab_sim::tcp::receiver::{AckPolicy, Receiver};
use tcplab_sim::tcp::segment::{Segment, SegmentKind, TcpFlags};
use tcplab_sim::time::SimTime;

const MSS: u64 = 1000;

/// What the wire saw: every segment as it was sent, and the sender's window right after each
/// ACK it processed (with that ACK's number, and the sender's snd_max before it).
#[derive(Default)]
struct Log {
    data: Vec<Segment>,
    acks: Vec<Segment>,
    windows: Vec<(u64, Window, u64)>,
}

/// Drives the flow's two endpoints over a 10 ms one-way wire until `until`: data segments
/// whose sequence is in `ce` arrive CE, those in `drop` (first transmission only) are lost.
fn drive(flow: &str, ce: &[u64], drop: &[u64], until: SimTime) -> (Log, AnySender, u64, (u64, u64)) {
    let text = format!(
        "duration = \"10s\"\n[network.path]\nhops = [{{ rate = \"1Gbit/s\", delay = \"10ms\" }}]\n[[flows]]\n{flow}\nmss = 1000\nrwnd = \"64KiB\"\n"
    );
    let sc = scenario::parse(&text, &[]).unwrap_or_else(|e| panic!("{e}"));
    let (mut s, mut r) = tcplab_sim::tcp::endpoints_for(&sc.flows[0], 0, 0, 1, None);
    let delay = SimTime::from_ms(10);
    let mut wire: Vec<(SimTime, Segment)> = Vec::new();
    let mut log = Log::default();
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    let mut now = SimTime::ZERO;
    loop {
        for mut seg in out.drain(..) {
            if seg.kind == SegmentKind::Data {
                if drop.contains(&seg.seq) && !seg.retransmit {
                    continue;
                }
                if ce.contains(&seg.seq) && seg.ecn != Ecn::NotEct {
                    log.data.push(seg); // as sent
                    seg.ecn = Ecn::Ce;
                } else {
                    log.data.push(seg);
                }
            } else {
                log.acks.push(seg);
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
                let snd_max = native(&s).core.snd_max;
                s.on_segment(now, &seg, &mut out);
                log.windows.push((seg.ack, native(&s).core.win, snd_max));
            }
        } else if s.deadline() == Some(now) {
            s.on_timer(now, &mut out);
        } else {
            r.on_timer(now, &mut out);
        }
    }
    let delivered = r.bytes_delivered();
    (log, s, delivered, r.ecn_counts())
}

fn native(s: &AnySender) -> &tcplab_sim::tcp::sender::Sender {
    match s {
        AnySender::Native(n) => n,
        AnySender::Ns2(_) => panic!("not a native sender"),
    }
}

fn ece_acks(log: &Log) -> Vec<u64> {
    log.acks
        .iter()
        .filter(|a| a.flags.has(TcpFlags::ECE))
        .map(|a| a.ack)
        .collect()
}

fn cwr_segments(log: &Log) -> Vec<u64> {
    log.data
        .iter()
        .filter(|d| d.flags.has(TcpFlags::CWR))
        .map(|d| d.seq)
        .collect()
}

fn window_after(log: &Log, ack: u64) -> Window {
    log.windows
        .iter()
        .find(|w| w.0 == ack)
        .map(|w| w.1)
        .expect("that ACK arrived")
}

const RENO: &str = "tcp = \"reno\"\necn = \"classic\"\nack = \"immediate\"";

#[test]
fn classic_reno_reduces_once_sets_cwr_and_the_receiver_echoes_until_it() {
    // IW = 1 segment, an ACK per segment, slow start on a lossless wire: after the ACK of
    // segment n (n+1 ACKs) cwnd = n+2 segments and n+1 + n+2 = 2n+3 segments are sent. Segment
    // 20 arrives CE; its ACK (21000) finds FlightSize = 41000 - 21000 and cwnd = 21 segments
    // (the ACK's growth comes after the response, as in Linux), so ssthresh = cwnd =
    // FlightSize / 2 = 10000 (RFC 5681 Eq. 4 via the controller; RFC 3168 Sec. 6.1.2).
    let (log, s, delivered, (segs, ce)) = drive(RENO, &[20 * MSS], &[], SimTime::from_ms(400));
    let s = native(&s);
    let c = &s.core.inst.counters;
    assert_eq!(
        window_after(&log, 21 * MSS),
        Window {
            cwnd: 10 * MSS,
            ssthresh: 10 * MSS
        }
    );
    // No growth while the reduction's window (up to 41000) is out: the ACK of 41000 leaves
    // cwnd at 10000; the next one grows it in congestion avoidance by SMSS^2 / cwnd = 100.
    assert_eq!(window_after(&log, 41 * MSS).cwnd, 10 * MSS);
    assert_eq!(window_after(&log, 42 * MSS).cwnd, 10 * MSS + 100);
    // The window allows new data again at ACK 32000: segment 41 is the first new data after
    // the reduction, and the only one with CWR (RFC 3168 Sec. 6.1.2).
    assert_eq!(cwr_segments(&log), vec![41 * MSS]);
    // The receiver sets ECE from the CE segment's ACK until the CWR segment arrives (Sec.
    // 6.1.3): the ACKs of segments 20..=40.
    let want: Vec<u64> = (21..=41).map(|k| k * MSS).collect();
    assert_eq!(ece_acks(&log), want);
    assert_eq!((c.ece_acks, c.ecn_reductions), (21, 1));
    // No retransmission, every data segment ECT(0), every ACK Not-ECT (Sec. 6.1.5).
    assert_eq!(c.segments_retransmitted, 0);
    assert!(log.data.iter().all(|d| d.ecn == Ecn::Ect0));
    assert!(log.acks.iter().all(|a| a.ecn == Ecn::NotEct));
    assert_eq!(ce, 1);
    assert_eq!(segs, delivered / MSS);
}

#[test]
fn ece_reduces_at_most_once_per_window_of_data() {
    // Segments 20 and 30 are marked in the same window: one reduction. Segment 60 is sent
    // well after the CWR segment (41): a second one, from FlightSize at its ACK.
    let (log, s, _, (_, ce)) = drive(RENO, &[20 * MSS, 30 * MSS, 60 * MSS], &[], SimTime::from_ms(600));
    let c = &native(&s).core.inst.counters;
    assert_eq!((ce, c.ecn_reductions), (3, 2));
    // The second response, at ACK 61000: ssthresh = FlightSize / 2, FlightSize being
    // snd_max (as the ACK found it) - 61000.
    let &(_, after, snd_max) = log.windows.iter().find(|w| w.0 == 61 * MSS).unwrap();
    let flight = snd_max - 61 * MSS;
    assert!(flight > 4 * MSS, "{flight}");
    assert_eq!(after.ssthresh, (flight / 2).max(2 * MSS));
    assert_eq!(after.cwnd, after.ssthresh);
    assert_eq!(cwr_segments(&log).len(), 2);
}

#[test]
fn ece_during_fast_recovery_does_not_reduce_again() {
    // Segment 20 is lost: Reno's fast retransmit reduces. Segment 25 (in the same window)
    // arrives CE: its duplicate ACKs carry ECE, but the loss's reduction covers that window.
    let (log, s, _, _) = drive(RENO, &[25 * MSS], &[20 * MSS], SimTime::from_ms(600));
    let c = &native(&s).core.inst.counters;
    assert_eq!(c.fast_retransmits, 1);
    assert!(c.ece_acks > 0);
    assert_eq!(c.ecn_reductions, 0);
    // CWR goes on the first new data after the fast retransmit's reduction (Sec. 6.1.2, "for
    // any reason"); the retransmission itself is Not-ECT and has no CWR (Sec. 6.1.5).
    let rtx: Vec<&Segment> = log.data.iter().filter(|d| d.retransmit).collect();
    assert_eq!(rtx.len(), 1);
    assert_eq!(
        (rtx[0].ecn, rtx[0].flags.has(TcpFlags::CWR)),
        (Ecn::NotEct, false)
    );
    assert_eq!(cwr_segments(&log).len(), 1);
    assert!(cwr_segments(&log)[0] > 40 * MSS);
}

#[test]
fn a_loss_in_an_ece_window_keeps_the_ece_ssthresh() {
    // Segment 20 is marked (ssthresh 10000 at ACK 21000, as in the first test); segment 30,
    // sent before that response, is lost: the fast retransmit in the same window keeps
    // ssthresh (Linux's tcp_enter_recovery inside tcp_in_cwnd_reduction), Reno's cwnd =
    // ssthresh + 3 SMSS.
    let (log, s, _, _) = drive(RENO, &[20 * MSS], &[30 * MSS], SimTime::from_ms(600));
    let c = &native(&s).core.inst.counters;
    assert_eq!((c.ecn_reductions, c.fast_retransmits), (1, 1));
    // The third duplicate ACK of 30000 is the fourth ACK of 30000.
    let third_dup = log.windows.iter().filter(|w| w.0 == 30 * MSS).nth(3).unwrap().1;
    assert_eq!(
        third_dup,
        Window {
            cwnd: 13 * MSS,
            ssthresh: 10 * MSS
        }
    );
}

#[test]
fn cubic_responds_with_beta_and_bbr_ignores_ece() {
    // CUBIC: ssthresh = beta x cwnd = 0.7 x 21 segments at ACK 21000 (RFC 9438 Sec. 4.6;
    // Linux's bictcp_recalc_ssthresh through tcp_enter_cwr).
    let flow = "tcp = \"reno\"\ncc = \"cubic\"\necn = \"classic\"\nack = \"immediate\"";
    let (log, s, _, _) = drive(flow, &[20 * MSS], &[], SimTime::from_ms(300));
    assert_eq!(window_after(&log, 21 * MSS).ssthresh, 14_700);
    assert_eq!(window_after(&log, 21 * MSS).cwnd, 14_700);
    assert_eq!(native(&s).core.inst.counters.ecn_reductions, 1);
    // BBR v1: the marks change nothing but the flags (Linux's bbr_ssthresh keeps ssthresh, and
    // BBR's cong_control sets cwnd with no PRR).
    let flow = "tcp = \"sack\"\ncc = \"bbr\"\necn = \"classic\"\nack = \"immediate\"";
    let marks: Vec<u64> = (10..200).map(|k| k * MSS).collect();
    let (marked, s, d1, _) = drive(flow, &marks, &[], SimTime::from_ms(500));
    let (plain, _, d0, _) = drive(flow, &[], &[], SimTime::from_ms(500));
    let c = &native(&s).core.inst.counters;
    assert!(c.ece_acks > 100);
    assert_eq!(c.ecn_reductions, 0);
    assert_eq!(d1, d0);
    let w = |l: &Log| l.windows.iter().map(|w| (w.0, w.1)).collect::<Vec<_>>();
    assert_eq!(w(&marked), w(&plain));
}

#[test]
fn dctcp_alpha_and_cwnd_from_scripted_ece() {
    // A DCTCP sender alone, fed ACKs by hand (IW = 10 segments, an ACK per segment).
    let (mut s, first) = started_sender("cc = \"dctcp\"\ninitial_window = 10\nack = \"immediate\"", "10s");
    assert!(first.iter().all(|d| d.ecn == Ecn::Ect0));
    assert_eq!(first.len(), 10);
    let alpha = |s: &tcplab_sim::tcp::sender::Sender| match &s.cc {
        CongestionControl::Dctcp(d) => d.alpha,
        _ => unreachable!(),
    };
    let mut out = Vec::new();
    let mut t = SimTime::from_ms(100);
    let mut ack = |s: &mut tcplab_sim::tcp::sender::Sender, n: u64, ece: bool, out: &mut Vec<Segment>| {
        let mut a = Segment::ack(n * MSS, 40);
        a.flags.set(TcpFlags::ECE, ece);
        t = t + SimTime::from_ms(1);
        s.on_ack(t, &a, out);
    };
    // The first window ends at once (DCTCP.WindowEnd starts at SND.NXT = 0, as Linux's
    // dctcp_reset at the start): M = 0, alpha = 1 x 15/16. The next ends when snd_una passes
    // 10000 (what was sent then).
    ack(&mut s, 1, false, &mut out);
    assert_eq!(alpha(&s), 15.0 / 16.0);
    for n in 2..=5 {
        ack(&mut s, n, false, &mut out); // slow start: cwnd 15 segments, 20000 sent
    }
    assert_eq!(s.core.win.cwnd, 15 * MSS);
    // ACK 6000 has ECE: cwnd = 15000 x (1 - (15/16) / 2) = 15000 x 17/32 = 7968.75 -> 7968.
    ack(&mut s, 6, true, &mut out);
    assert_eq!((s.core.win.cwnd, s.core.win.ssthresh), (7968, 7968));
    // ECE on 7000..10000 (the same window of data: no second response); 11000 ends the
    // observation window: 10 segments acknowledged (2000..=11000), 5 with ECE: M = 1/2,
    // alpha = 15/16 x 15/16 + 1/16 x 1/2 = 233/256.
    for n in 7..=10 {
        ack(&mut s, n, true, &mut out);
    }
    ack(&mut s, 11, false, &mut out);
    assert_eq!(alpha(&s), 233.0 / 256.0);
    assert_eq!((s.core.win.cwnd, s.core.inst.counters.ecn_reductions), (7968, 1));
    // Nothing new may leave until snd_una + cwnd covers a full segment past 20000: ACK 14000;
    // that segment carries CWR.
    let sent_before = out.len();
    for n in 12..=13 {
        ack(&mut s, n, false, &mut out);
    }
    assert_eq!(out.len(), sent_before);
    ack(&mut s, 14, false, &mut out);
    assert_eq!(out[sent_before].seq, 20 * MSS);
    assert!(out[sent_before].flags.has(TcpFlags::CWR));
    // Growth resumes once snd_una passes 20000 (ACK 21000: +SMSS^2/cwnd = 125 -> 8093), and
    // that ACK ends the next observation window with no mark: alpha = 233/256 x 15/16.
    for n in 15..=21 {
        ack(&mut s, n, false, &mut out);
    }
    assert_eq!(s.core.win.cwnd, 8093);
    assert_eq!(alpha(&s), 233.0 / 256.0 * 15.0 / 16.0);
    // ECE at 22000: the second response, cwnd x (1 - alpha/2) = 8093 x 4697/8192 = 4640.
    ack(&mut s, 22, true, &mut out);
    assert_eq!(s.core.win.cwnd, 8093 * 4697 / 8192);
    assert_eq!(s.core.win.cwnd, 4640);
    let c = &s.core.inst.counters;
    assert_eq!((c.ece_acks, c.ecn_reductions), (6, 2));
}

#[test]
fn dctcp_receiver_flushes_the_delayed_ack_when_the_ce_state_changes() {
    // RFC 8257 Sec. 3.2 with RFC 1122 delayed ACKs (every second segment): segments 0-1 ECT,
    // 2 ECT (its ACK delayed), 3 CE: the delayed ACK of 2 leaves at once with ECE = 0; 3 and 4
    // (CE) are acknowledged together with ECE = 1; 5 (ECT) changes the state back with no ACK
    // pending; 5 and 6 get one ACK, ECE = 0.
    let mut r = Receiver::new(
        40,
        AckPolicy::Delayed {
            timeout: SimTime::from_ms(200),
        },
    )
    .with_ecn(EcnFeedback::Dctcp);
    let mut out = Vec::new();
    for (k, ecn) in [
        Ecn::Ect0,
        Ecn::Ect0,
        Ecn::Ect0,
        Ecn::Ce,
        Ecn::Ce,
        Ecn::Ect0,
        Ecn::Ect0,
    ]
    .into_iter()
    .enumerate()
    {
        let mut d = Segment::data(k as u64 * MSS, MSS as u32, 1040);
        d.ecn = ecn;
        r.on_segment(SimTime::from_ms(k as u64), &d, &mut out);
    }
    let acks: Vec<(u64, bool, Ecn)> = out
        .iter()
        .map(|a| (a.ack / MSS, a.flags.has(TcpFlags::ECE), a.ecn))
        .collect();
    // A DCTCP receiver's ACKs are ECT(0), as Linux's tcp_ecn_send leaves them.
    assert_eq!(
        acks,
        vec![
            (2, false, Ecn::Ect0),
            (3, false, Ecn::Ect0),
            (5, true, Ecn::Ect0),
            (7, false, Ecn::Ect0)
        ]
    );
    assert_eq!(r.ecn_counts(), (7, 2));
}

#[test]
fn classic_ecn_without_marks_changes_nothing_but_the_bits() {
    // Two losses on the scripted one-hop path: with ecn = "classic" and no queue that marks,
    // every result and window is the same as without ECN.
    for tcp in ["reno", "newreno", "sack", "tahoe"] {
        let base = format!("tcp = \"{tcp}\"\ninitial_window = 4");
        let off = run(&one_hop(&base, &[30, 31], "4s"));
        let on = run(&one_hop(&format!("{base}\necn = \"classic\""), &[30, 31], "4s"));
        let (a, b) = (&off.flows[0], &on.flows[0]);
        assert_eq!(
            (a.bytes_delivered, a.segments_sent, a.fast_retransmits, a.timeouts),
            (b.bytes_delivered, b.segments_sent, b.fast_retransmits, b.timeouts),
            "{tcp}"
        );
        assert_eq!(off.traces.cwnd, on.traces.cwnd, "{tcp}");
        assert_eq!(
            (b.ce_received, b.ece_acks, b.ecn_reductions, b.marking_rate),
            (0, 0, 0, 0.0)
        );
    }
}

#[test]
fn a_receiver_without_ecn_means_no_ecn() {
    let flow = "tcp = \"reno\"\necn = \"classic\"\necn_receiver = false\nack = \"immediate\"";
    let (log, s, _, counts) = drive(flow, &[20 * MSS], &[], SimTime::from_ms(300));
    assert!(log.data.iter().all(|d| d.ecn == Ecn::NotEct));
    assert!(ece_acks(&log).is_empty());
    assert_eq!(native(&s).core.inst.counters.ecn_reductions, 0);
    assert_eq!(counts, (0, 0));
}

#[test]
fn ecn_errors_name_the_field_and_the_allowed_values() {
    let err = |flow: &str| {
        tcplab_sim::run_toml(&one_hop(flow, &[], "1s"), &[])
            .unwrap_err()
            .to_string()
    };
    let cases = [
        (
            "profile = \"ns2\"\ntcp = \"fack\"\nack = \"immediate\"\necn = \"classic\"",
            "flows[0].ecn: \"classic\" is modelled for the ns2 profile's tahoe, reno, newreno and sack agents, not tcp = \"fack\" (expected \"off\")",
        ),
        (
            "profile = \"ns2\"\ntcp = \"reno\"\nack = \"immediate\"\necn = \"accecn\"",
            "flows[0].ecn: \"accecn\" is not modelled by the ns2 profile's agents (ns-2 has classic ECN only) (expected \"off\" or \"classic\")",
        ),
        (
            "profile = \"ns2\"\ntcp = \"reno\"\nack = \"immediate\"\necn = \"classic\"\necn_receiver = false",
            "flows[0].ecn_receiver: not an option of the ns2 profile: its sinks always answer the SYN's ECE, as ns-2's TCPSink does (leave ecn_receiver out)",
        ),
        (
            "tcp = \"bsd43\"\necn = \"classic\"",
            "flows[0].ecn: \"classic\" needs a congestion window to reduce, and cc = \"none\" has none (expected \"off\", or a cc with a window)",
        ),
        (
            "cc = \"dctcp\"\necn = \"off\"",
            "flows[0].ecn: \"off\", but cc = \"dctcp\" needs ECN (expected \"classic\" or \"accecn\", or leave ecn out)",
        ),
        (
            "cc = { algorithm = \"dctcp\", g = 2 }",
            "flows[0].cc.g: 2 is not a valid EWMA weight (expected 0 < g <= 1)",
        ),
    ];
    for (flow, want) in cases {
        assert_eq!(err(flow), want, "{flow}");
    }
    let e = err("ecn = \"l4s\"");
    assert!(
        e.starts_with("flows[0].ecn")
            && e.contains("`off`")
            && e.contains("`classic`")
            && e.contains("`accecn`"),
        "{e}"
    );
}

#[test]
fn the_linux_profile_maps_tcp_ecn_2() {
    // net.ipv4.tcp_ecn = 2: the sender does not ask, the receiver accepts; DCTCP asks anyway
    // (TCP_CONG_NEEDS_ECN), with Linux's slow start by bytes.
    let load = |flow: &str| tcplab_sim::load(&one_hop(flow, &[], "1s"), &[]).unwrap();
    let sc = load("profile = \"linux\"");
    let f = &sc.flows[0];
    use tcplab_sim::scenario::{EcnReceiver, EcnSetting};
    assert_eq!(
        (f.ecn, f.ecn_receiver, f.ecn_in_use()),
        (Some(EcnSetting::Off), Some(EcnReceiver::Accepts(true)), false)
    );
    let sc = load("profile = \"linux\"\ncc = \"dctcp\"");
    let f = &sc.flows[0];
    assert_eq!((f.ecn, f.ecn_in_use()), (None, true));
    let cc = serde_json::to_string(&f.cc).unwrap();
    assert_eq!(cc, r#"{"algorithm":"dctcp","growth":"abc","abc_limit":65535}"#);
    let sc = load("profile = \"linux\"\necn = \"classic\"");
    assert!(sc.flows[0].ecn_in_use());
}
