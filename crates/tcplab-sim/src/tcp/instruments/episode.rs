//! Mathis et al. 1997's loss episodes: the one set of rules that counts CA events, non-CA
//! events, other losses and loss events, fed by a simulated sender's instruments
//! ([`super::Instruments`]) and by the capture analyzer (`capture::analyze`) alike, so that a
//! simulated and a captured connection are counted by the same code.
//!
//! A loss episode (Mathis et al. 1997 Sec. 3.3 and footnote 10) runs from the first window
//! reduction until everything outstanding at that moment is acknowledged. It counts as one CA
//! event if it was a single fast retransmit that kept the self-clock, otherwise as one non-CA
//! event; every retransmission in it after the first is an "other loss". Each episode is one
//! loss event (Parvez et al. 2010 Sec. II-B: the losses of one window form one event).
//!
//! The rules take three facts, the ones that both a sender and a capture near it know. How
//! each side learns them:
//!
//! | input | a simulated sender | a capture |
//! |---|---|---|
//! | [`LossEpisodes::window_reduced`]: the window was cut, by a fast retransmit or a timeout, with `snd_max` one past the highest sequence sent | reported by the loss recovery or the retransmission timer, in the sender's own units (bytes; packets for an `ns2` agent) | inferred from a retransmission's timing and the ACKs before it (`capture::analyze::direction`'s causes `Fast` and `Timeout`); `snd_max` is the highest sequence seen on the wire, in bytes from the stream's first |
//! | [`LossEpisodes::retransmitted`]: a segment that repeats sequence sent before left | the sender's send loop | a data segment below the highest sequence seen |
//! | [`LossEpisodes::acked`]: the cumulative ACK advanced to `snd_una` | the sender's ACK processing | an ACK on the wire that advanced it |
//!
//! Sequences are only compared with each other, so any unit works as long as one episode's
//! facts share it. The counts are returned, not kept: the caller decides which ones count
//! (a capture counts only those inside its analysis window; a run subtracts its warm-up).

use std::ops::{AddAssign, Sub};

/// Why the window was cut: the start of (or a further reduction inside) a loss episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossSignal {
    FastRetransmit,
    Timeout,
}

/// How a loss episode ended, once everything outstanding at its start was acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EpisodeEnd {
    /// One fast retransmit and no further window reduction: a CA event (else a non-CA event).
    pub ca: bool,
    /// Retransmissions inside the episode after its first.
    pub other_losses: u64,
}

/// The counts of the loss-episode instrument.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EpisodeCounts {
    /// Loss events (Parvez et al. 2010 Sec. II-B): episodes opened.
    pub loss_events: u64,
    /// Loss episodes that ended as one successful, clock-preserving halving (Mathis Sec. 3.3).
    pub ca_events: u64,
    /// Loss episodes with a timeout or a further window reduction (Mathis footnote 10).
    pub non_ca_events: u64,
    /// Retransmissions inside a loss episode after its first (Mathis footnote 10).
    pub other_losses: u64,
}

impl EpisodeCounts {
    /// An episode opened ([`LossEpisodes::window_reduced`] returned true).
    #[inline]
    pub fn opened(&mut self) {
        self.loss_events += 1;
    }

    /// An episode ended ([`LossEpisodes::acked`] returned it).
    #[inline]
    pub fn ended(&mut self, end: EpisodeEnd) {
        if end.ca {
            self.ca_events += 1;
        } else {
            self.non_ca_events += 1;
        }
        self.other_losses += end.other_losses;
    }
}

/// Counts accumulated since an earlier snapshot (a run's measurement window).
impl Sub for EpisodeCounts {
    type Output = EpisodeCounts;
    fn sub(self, earlier: EpisodeCounts) -> EpisodeCounts {
        EpisodeCounts {
            loss_events: self.loss_events - earlier.loss_events,
            ca_events: self.ca_events - earlier.ca_events,
            non_ca_events: self.non_ca_events - earlier.non_ca_events,
            other_losses: self.other_losses - earlier.other_losses,
        }
    }
}

/// Sums over several flows.
impl AddAssign for EpisodeCounts {
    fn add_assign(&mut self, other: EpisodeCounts) {
        self.loss_events += other.loss_events;
        self.ca_events += other.ca_events;
        self.non_ca_events += other.non_ca_events;
        self.other_losses += other.other_losses;
    }
}

#[derive(Clone, Copy, Debug)]
struct Episode {
    /// One past the highest sequence sent when the episode began.
    recover: i64,
    clean: bool,
    retransmissions: u64,
}

/// The open loss episode of one data direction, if any.
#[derive(Clone, Copy, Debug, Default)]
pub struct LossEpisodes {
    open: Option<Episode>,
}

impl LossEpisodes {
    /// The window was reduced for `signal`; `snd_max` is one past the highest sequence sent so
    /// far. Opens an episode that lasts until `snd_max` is acknowledged, clean if the signal is
    /// a fast retransmit, and returns true (one loss event); inside an open episode, marks it
    /// as not clean and returns false.
    #[inline]
    pub fn window_reduced(&mut self, signal: LossSignal, snd_max: i64) -> bool {
        match &mut self.open {
            None => {
                self.open = Some(Episode {
                    recover: snd_max,
                    clean: signal == LossSignal::FastRetransmit,
                    retransmissions: 0,
                });
                true
            }
            Some(e) => {
                e.clean = false;
                false
            }
        }
    }

    /// A retransmission left (after the window reduction it answers, if any). Returns whether
    /// it is inside an episode (where every one after the first is an other loss).
    #[inline]
    pub fn retransmitted(&mut self) -> bool {
        match &mut self.open {
            Some(e) => {
                e.retransmissions += 1;
                true
            }
            None => false,
        }
    }

    /// The cumulative ACK advanced to `snd_una`. Closes the open episode once it covers
    /// everything outstanding when the episode began, and says how it ended.
    #[inline]
    pub fn acked(&mut self, snd_una: i64) -> Option<EpisodeEnd> {
        let e = self.open?;
        if snd_una < e.recover {
            return None;
        }
        self.open = None;
        Some(EpisodeEnd {
            ca: e.clean,
            other_losses: e.retransmissions.saturating_sub(1),
        })
    }

    /// Is an episode open?
    #[inline]
    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use LossSignal::{FastRetransmit as Fast, Timeout};

    /// One scripted fact.
    #[derive(Clone, Copy)]
    enum Fact {
        Reduced(LossSignal, i64),
        Rtx,
        Acked(i64),
    }
    use Fact::*;

    /// Feeds `facts` and counts everything; also checks that the episode is closed at the end
    /// as `open` says.
    fn count(facts: &[Fact], open: bool) -> EpisodeCounts {
        let mut e = LossEpisodes::default();
        let mut c = EpisodeCounts::default();
        for &f in facts {
            match f {
                Reduced(s, m) => {
                    if e.window_reduced(s, m) {
                        c.opened();
                    }
                }
                Rtx => {
                    e.retransmitted();
                }
                Acked(u) => {
                    if let Some(end) = e.acked(u) {
                        c.ended(end);
                    }
                }
            }
        }
        assert_eq!(e.is_open(), open);
        c
    }

    fn counts(loss_events: u64, ca_events: u64, non_ca_events: u64, other_losses: u64) -> EpisodeCounts {
        EpisodeCounts {
            loss_events,
            ca_events,
            non_ca_events,
            other_losses,
        }
    }

    #[test]
    fn one_fast_retransmit_repaired_is_one_ca_event() {
        let c = count(&[Reduced(Fast, 10), Rtx, Acked(10)], false);
        assert_eq!(c, counts(1, 1, 0, 0));
    }

    #[test]
    fn partial_acks_keep_the_episode_open_until_recover() {
        let c = count(&[Reduced(Fast, 10), Rtx, Acked(4), Rtx, Acked(9)], true);
        assert_eq!(c, counts(1, 0, 0, 0));
        // The second repair is an other loss, but the episode is still clean: one window
        // reduction, the self-clock kept.
        let c = count(
            &[Reduced(Fast, 10), Rtx, Acked(4), Rtx, Acked(9), Acked(12)],
            false,
        );
        assert_eq!(c, counts(1, 1, 0, 1));
    }

    #[test]
    fn a_timeout_opens_a_non_ca_episode_even_with_one_retransmission() {
        let c = count(&[Reduced(Timeout, 10), Rtx, Acked(10)], false);
        assert_eq!(c, counts(1, 0, 1, 0));
    }

    #[test]
    fn a_further_reduction_spoils_the_episode_and_is_no_new_loss_event() {
        let c = count(
            &[Reduced(Fast, 20), Rtx, Reduced(Timeout, 20), Rtx, Rtx, Acked(20)],
            false,
        );
        assert_eq!(c, counts(1, 0, 1, 2));
        // Two fast retransmits in one episode (Reno's second halving) are non-CA as well.
        let c = count(
            &[
                Reduced(Fast, 20),
                Rtx,
                Acked(5),
                Reduced(Fast, 30),
                Rtx,
                Acked(20),
            ],
            false,
        );
        assert_eq!(c, counts(1, 0, 1, 1));
    }

    #[test]
    fn recover_is_fixed_when_the_episode_opens() {
        // A later reduction with a higher snd_max does not extend the episode.
        let c = count(
            &[Reduced(Fast, 10), Rtx, Reduced(Timeout, 50), Rtx, Acked(10)],
            false,
        );
        assert_eq!(c, counts(1, 0, 1, 1));
    }

    #[test]
    fn retransmissions_outside_an_episode_are_not_other_losses() {
        let mut e = LossEpisodes::default();
        assert!(!e.retransmitted());
        assert_eq!(e.acked(100), None);
        let c = count(
            &[Rtx, Rtx, Reduced(Fast, 10), Rtx, Acked(10), Rtx, Acked(20)],
            false,
        );
        assert_eq!(c, counts(1, 1, 0, 0));
    }

    #[test]
    fn an_episode_without_retransmissions_ends_with_no_other_loss() {
        let c = count(&[Reduced(Fast, 10), Acked(10)], false);
        assert_eq!(c, counts(1, 1, 0, 0));
    }

    #[test]
    fn consecutive_episodes_are_counted_apart() {
        let c = count(
            &[
                Reduced(Fast, 10),
                Rtx,
                Acked(10),
                Reduced(Timeout, 30),
                Rtx,
                Rtx,
                Rtx,
                Acked(30),
                Reduced(Fast, 40),
                Rtx,
                Rtx,
                Acked(45),
                Reduced(Fast, 60),
                Rtx,
            ],
            true,
        );
        // Episodes [10], [30], [40] ended: CA, non-CA (2 other losses), CA (1 other loss); the
        // fourth is still open: a loss event, nothing else yet.
        assert_eq!(c, counts(4, 2, 1, 3));
    }

    #[test]
    fn sequences_may_be_negative_offsets() {
        // A capture that starts mid-stream sees sequences before its first one.
        let c = count(&[Reduced(Fast, -100), Rtx, Acked(-200), Acked(-100)], false);
        assert_eq!(c, counts(1, 1, 0, 0));
    }

    #[test]
    fn counts_subtract_and_add_field_by_field() {
        let mut a = counts(5, 3, 2, 7);
        assert_eq!(a - counts(1, 1, 0, 2), counts(4, 2, 2, 5));
        a += counts(1, 2, 3, 4);
        assert_eq!(a, counts(6, 5, 5, 11));
    }
}
