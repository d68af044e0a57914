//! Loss modules: drop packets on a link independently of congestion ("damage" loss), before
//! they enter the link's queue.

use crate::net::packet::Packet;
use crate::rng::Stream;

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
}

impl LossModel {
    /// Decides whether `pkt` is lost. Data and ACKs alike are subject to it; a loss module on
    /// the data direction of a path therefore only ever sees data.
    #[inline]
    pub fn drops(&mut self, _pkt: &Packet) -> bool {
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{PacketKind, SackBlocks};
    use crate::time::SimTime;

    fn pkt() -> Packet {
        Packet {
            flow: 0,
            kind: PacketKind::Data,
            src: 0,
            dst: 1,
            seq: 0,
            len: 1000,
            size: 1040,
            ack: 0,
            ts_val: SimTime::ZERO,
            ts_ecr: SimTime::ZERO,
            retransmit: false,
            sack: SackBlocks::default(),
        }
    }

    #[test]
    fn every_nth_drops_exactly_every_nth() {
        let mut m = LossModel::EveryNth { n: 4, count: 0 };
        let drops: Vec<bool> = (0..12).map(|_| m.drops(&pkt())).collect();
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
        let idx: Vec<usize> = (1..=8).filter(|_| m.drops(&pkt())).collect();
        assert_eq!(idx, vec![2, 5, 6]);
    }

    #[test]
    fn bernoulli_rate_is_p() {
        let mut m = LossModel::Bernoulli {
            p: 0.1,
            rng: Stream::new(7, "test"),
        };
        let n = 200_000;
        let lost = (0..n).filter(|_| m.drops(&pkt())).count() as f64;
        // Binomial sd = sqrt(n p (1-p)) ~ 134; allow 5 sd.
        assert!((lost - 20_000.0).abs() < 5.0 * 134.2, "lost {lost}");
    }
}
