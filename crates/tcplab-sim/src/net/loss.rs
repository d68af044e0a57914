//! Loss modules: drop packets on a link independently of congestion ("damage" loss), before
//! they enter the link's queue. Each random module draws from its own stream.

use crate::net::packet::{Packet, PacketKind};
use crate::rng::Stream;
use crate::time::SimTime;

/// How far a loss event of the two-parameter model reaches (Parvez et al. 2010 Sec. II-B: "all
/// losses within the next W' segments (starting from the first loss) are considered part of
/// the same LE", i.e. one window). A link cannot see the sender's window, so the window is
/// delimited here either by a count of packets of the same flow or by a time span (about one
/// RTT) after the event's first loss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Span {
    /// The next `n` packets of the same flow after the first loss.
    Packets(u64),
    /// The packets of the same flow that arrive within this time after the first loss.
    Time(SimTime),
}

/// Per-flow state of a two-parameter loss event in progress.
#[derive(Clone, Copy, Debug, Default)]
pub struct LossEvent {
    pub active: bool,
    pub started: SimTime,
    pub left: u64,
}

/// A loss module attached to one direction of a link.
#[derive(Clone, Debug)]
pub enum LossModel {
    /// Each packet is lost independently with probability p (Mathis et al. 1997 Sec. 3.1,
    /// the queueless random-loss environment).
    Bernoulli { p: f64, rng: Stream },
    /// Exactly every n-th packet is lost: the periodic loss of Mathis et al. 1997 Sec. 2
    /// (the derivation of Eq. 3), with p = 1/n. `count` counts packets seen so far.
    EveryNth { n: u64, count: u64 },
    /// The packets at these 1-based arrival positions on the link are lost (sorted): scripted
    /// losses for known-answer tests, as ns-2's validation suite drops chosen packets.
    Script { drop: Vec<u64>, count: u64, next: usize },
    /// Bursty loss (Parvez et al. 2010 Sec. IV-B): loss events occur as Bernoulli trials with
    /// probability p per packet; each event drops m back-to-back packets (the packet that
    /// starts it and the next m - 1 arrivals, whatever their flow). A new event can start only
    /// once the burst is over. With `span`, a burst also ends at `span` after its first drop
    /// (`until`), so that it stays within about one RTT as the paper's loss event does (Sec.
    /// II-B: an LE "spans at most one RTT"); the arrivals after it draw afresh.
    Bursty {
        p: f64,
        m: u64,
        left: u64,
        span: Option<SimTime>,
        until: SimTime,
        rng: Stream,
    },
    /// The two-parameter model (Parvez et al. 2010 Sec. II-B, Fig. 1): outside a loss event, a
    /// packet starts one (and is lost) with probability p; the following packets of the same
    /// flow within the event's span are each lost with probability q. State is per flow (ACKs
    /// and UDP datagrams have their own), so flows sharing the link have independent events.
    TwoParameter {
        p: f64,
        q: f64,
        span: Span,
        tcp: Vec<LossEvent>,
        other: Vec<LossEvent>,
        rng: Stream,
    },
    /// Gilbert-Elliott (Gilbert 1960; Elliott 1963): a two-state Markov chain, Good and Bad,
    /// stepped once per packet. A packet is lost with probability `loss_good` or `loss_bad`
    /// according to the state it finds; then the chain moves Good -> Bad with probability
    /// `p_gb` and Bad -> Good with `p_bg`. It starts in Good. With loss_good = 0 and
    /// loss_bad = 1 (Gilbert's model) the mean loss burst is 1/p_bg packets and the loss rate
    /// p_gb / (p_gb + p_bg).
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
        bad: bool,
        rng: Stream,
    },
}

impl LossModel {
    /// Decides whether `pkt`, arriving at `now`, is lost. Data and ACKs alike are subject to
    /// it; a loss module on the data direction of a path therefore only ever sees data.
    #[inline]
    pub fn drops(&mut self, now: SimTime, pkt: &Packet) -> bool {
        match self {
            LossModel::Bernoulli { p, rng } => rng.bernoulli(*p),
            LossModel::EveryNth { n, count } => {
                *count += 1;
                *count % *n == 0
            }
            LossModel::Script { drop, count, next } => {
                *count += 1;
                if drop.get(*next) == Some(count) {
                    *next += 1;
                    true
                } else {
                    false
                }
            }
            LossModel::Bursty {
                p,
                m,
                left,
                span,
                until,
                rng,
            } => {
                if *left > 0 && span.is_some() && now >= *until {
                    *left = 0; // the burst outlived its span: over
                }
                if *left > 0 {
                    *left -= 1;
                    true
                } else if rng.bernoulli(*p) {
                    *left = *m - 1;
                    if let Some(d) = span {
                        *until = now.saturating_add(*d);
                    }
                    true
                } else {
                    false
                }
            }
            LossModel::TwoParameter {
                p,
                q,
                span,
                tcp,
                other,
                rng,
            } => {
                let table = if pkt.kind == PacketKind::Udp { other } else { tcp };
                let i = pkt.flow as usize;
                if table.len() <= i {
                    table.resize(i + 1, LossEvent::default());
                }
                let e = &mut table[i];
                if e.active {
                    let inside = match *span {
                        Span::Packets(_) => e.left > 0,
                        Span::Time(d) => now.ns() < e.started.ns().saturating_add(d.ns()),
                    };
                    if inside {
                        e.left = e.left.saturating_sub(1);
                        return rng.bernoulli(*q);
                    }
                    e.active = false;
                }
                if rng.bernoulli(*p) {
                    *e = LossEvent {
                        active: true,
                        started: now,
                        left: match *span {
                            Span::Packets(n) => n,
                            Span::Time(_) => 0,
                        },
                    };
                    true
                } else {
                    false
                }
            }
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                bad,
                rng,
            } => {
                let lost = rng.bernoulli(if *bad { *loss_bad } else { *loss_good });
                *bad = if *bad {
                    !rng.bernoulli(*p_bg)
                } else {
                    rng.bernoulli(*p_gb)
                };
                lost
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt() -> Packet {
        let seg = crate::tcp::segment::Segment::data(0, 1000, 1040);
        Packet::tcp(0, 0, 1, &seg, crate::net::packet::SegId(0))
    }

    #[test]
    fn every_nth_drops_exactly_every_nth() {
        let mut m = LossModel::EveryNth { n: 4, count: 0 };
        let drops: Vec<bool> = (0..12).map(|_| m.drops(SimTime::ZERO, &pkt())).collect();
        let idx: Vec<usize> = drops
            .iter()
            .enumerate()
            .filter(|(_, d)| **d)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(idx, vec![3, 7, 11]);
    }

    #[test]
    fn script_drops_the_listed_arrivals() {
        let mut m = LossModel::Script {
            drop: vec![2, 5, 6],
            count: 0,
            next: 0,
        };
        let idx: Vec<usize> = (1..=8).filter(|_| m.drops(SimTime::ZERO, &pkt())).collect();
        assert_eq!(idx, vec![2, 5, 6]);
    }

    #[test]
    fn bernoulli_rate_is_p() {
        let mut m = LossModel::Bernoulli {
            p: 0.1,
            rng: Stream::new(7, "test"),
        };
        let n = 200_000;
        let lost = (0..n).filter(|_| m.drops(SimTime::ZERO, &pkt())).count() as f64;
        // Binomial sd = sqrt(n p (1-p)) ~ 134; allow 5 sd.
        assert!((lost - 20_000.0).abs() < 5.0 * 134.2, "lost {lost}");
    }

    fn flow_pkt(flow: u32) -> Packet {
        Packet { flow, ..pkt() }
    }

    fn lost_positions(m: &mut LossModel, n: usize) -> Vec<usize> {
        (0..n).filter(|_| m.drops(SimTime::ZERO, &pkt())).collect()
    }

    #[test]
    fn bursty_span_ends_a_burst_that_outlives_it() {
        // A sender after a timeout offers one packet per RTO: a burst counted in arrivals
        // alone would reach across several RTOs. With a span it ends at the span.
        // A burst in progress (3 left, p = 0: no new one) that began at 0 ms, arrivals at 10,
        // 74, 75, 76 and 200 ms. With a 75 ms span the arrival at 75 ms is past it and survives;
        // without one the burst takes its 3 arrivals whatever their spacing.
        let in_burst = |span: Option<SimTime>| LossModel::Bursty {
            p: 0.0,
            m: 4,
            left: 3,
            span,
            until: SimTime::from_ms(75),
            rng: Stream::new(1, "loss:s"),
        };
        for (span, expected) in [
            (Some(SimTime::from_ms(75)), [true, true, false, false, false]),
            (None, [true, true, true, false, false]),
        ] {
            let mut m = in_burst(span);
            let got: Vec<bool> = [10, 74, 75, 76, 200]
                .iter()
                .map(|&t| m.drops(SimTime::from_ms(t), &pkt()))
                .collect();
            assert_eq!(got, expected, "span {span:?}");
        }
        // A burst that starts (p = 1) at 100 ms ends at 175 ms with m - 1 = 3 arrivals to go.
        let mut m = in_burst(Some(SimTime::from_ms(75)));
        if let LossModel::Bursty { p, left, .. } = &mut m {
            (*p, *left) = (1.0, 0);
        }
        assert!(m.drops(SimTime::from_ms(100), &pkt()));
        match m {
            LossModel::Bursty { left, until, .. } => {
                assert_eq!((left, until), (3, SimTime::from_ms(175)))
            }
            _ => unreachable!(),
        }
    }

    #[test]
    fn bursty_drops_m_back_to_back_packets_per_event() {
        let mut m = LossModel::Bursty {
            p: 0.01,
            m: 4,
            left: 0,
            span: None,
            until: SimTime::ZERO,
            rng: Stream::new(3, "loss:b"),
        };
        let lost: Vec<bool> = (0..400_000).map(|_| m.drops(SimTime::ZERO, &pkt())).collect();
        // The same stream by hand: one draw per packet outside a burst, none inside.
        let mut u = Stream::new(3, "loss:b");
        let mut left = 0;
        let expected: Vec<bool> = (0..400_000)
            .map(|_| {
                if left > 0 {
                    left -= 1;
                    true
                } else if u.bernoulli(0.01) {
                    left = 3;
                    true
                } else {
                    false
                }
            })
            .collect();
        assert_eq!(lost, expected);
        // Every run of losses is a whole number of bursts.
        let mut runs = vec![];
        let mut r = 0;
        for &l in &lost {
            if l {
                r += 1;
            } else if r > 0 {
                runs.push(r);
                r = 0;
            }
        }
        assert!(runs.iter().all(|r| r % 4 == 0));
        // Events per packet drawn: p. Draws happen on packets outside bursts.
        let events = lost.iter().filter(|&&l| l).count() / 4;
        let draws = 400_000 - 3 * events;
        let rate = events as f64 / draws as f64;
        assert!((rate - 0.01).abs() < 0.001, "event rate {rate}");
    }

    #[test]
    fn two_parameter_packet_span_with_q_zero_loses_only_each_events_first_packet() {
        // p = 1, q = 0, span 3 packets: an event every 4th packet of each flow.
        let mut m = LossModel::TwoParameter {
            p: 1.0,
            q: 0.0,
            span: Span::Packets(3),
            tcp: vec![],
            other: vec![],
            rng: Stream::new(1, "loss:t"),
        };
        assert_eq!(lost_positions(&mut m, 12), vec![0, 4, 8]);
        // Two interleaved flows, span 2: each loses its own 1st, 4th, 7th packet.
        let mut m = LossModel::TwoParameter {
            p: 1.0,
            q: 0.0,
            span: Span::Packets(2),
            tcp: vec![],
            other: vec![],
            rng: Stream::new(1, "loss:t"),
        };
        let lost: Vec<usize> = (0..12)
            .filter(|i| m.drops(SimTime::ZERO, &flow_pkt((i % 2) as u32)))
            .collect();
        assert_eq!(lost, vec![0, 1, 6, 7]);
    }

    #[test]
    fn two_parameter_time_span_and_q_one_lose_the_rest_of_the_window() {
        // Packets every 4 ms, span 10 ms, p = 1, q = 0: events at 0, 12, 24 ms.
        let mut m = LossModel::TwoParameter {
            p: 1.0,
            q: 0.0,
            span: Span::Time(SimTime::from_ms(10)),
            tcp: vec![],
            other: vec![],
            rng: Stream::new(1, "loss:t"),
        };
        let lost: Vec<u64> = (0..8u64)
            .filter(|k| m.drops(SimTime::from_ms(4 * k), &pkt()))
            .map(|k| 4 * k)
            .collect();
        assert_eq!(lost, vec![0, 12, 24]);
        // q = 1 with a tiny p: once an event starts, the next 5 packets of the flow go too.
        let mut m = LossModel::TwoParameter {
            p: 0.001,
            q: 1.0,
            span: Span::Packets(5),
            tcp: vec![],
            other: vec![],
            rng: Stream::new(2, "loss:t"),
        };
        let lost = lost_positions(&mut m, 200_000);
        let first = lost[0];
        assert_eq!(&lost[..6], &(first..first + 6).collect::<Vec<_>>()[..]);
        assert!(!lost.contains(&(first + 6)));
    }

    #[test]
    fn gilbert_elliott_loss_rate_and_burst_length() {
        let mut m = LossModel::GilbertElliott {
            p_gb: 0.01,
            p_bg: 0.25,
            loss_good: 0.0,
            loss_bad: 1.0,
            bad: false,
            rng: Stream::new(4, "loss:ge"),
        };
        let n = 1_000_000;
        let lost: Vec<bool> = (0..n).map(|_| m.drops(SimTime::ZERO, &pkt())).collect();
        let rate = lost.iter().filter(|&&l| l).count() as f64 / n as f64;
        // Stationary Bad probability 0.01 / 0.26 = 0.03846; mean burst 1 / 0.25 = 4.
        assert!((rate - 0.03846).abs() < 0.002, "loss rate {rate}");
        let bursts = lost.windows(2).filter(|w| !w[0] && w[1]).count() as f64;
        let mean_burst = lost.iter().filter(|&&l| l).count() as f64 / bursts;
        assert!((mean_burst - 4.0).abs() < 0.15, "mean burst {mean_burst}");
        // It starts in Good: with loss_good = 0 the first packet is never lost.
        let mut m = LossModel::GilbertElliott {
            p_gb: 1.0,
            p_bg: 1.0,
            loss_good: 0.0,
            loss_bad: 1.0,
            bad: false,
            rng: Stream::new(4, "loss:ge"),
        };
        // p_gb = p_bg = 1: the chain alternates Good, Bad, Good...: every other packet lost.
        assert_eq!(lost_positions(&mut m, 8), vec![1, 3, 5, 7]);
    }
}
