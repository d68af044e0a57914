//! Slow start's early exits, for any controller with a slow start (AIMD, CUBIC): the option
//! `hystart`, "off" (slow start runs until ssthresh or a loss), "linux" (HyStart, tcp_cubic.c)
//! or "rfc9406" (HyStart++). A controller keeps a [`SlowStart`] and, on an ACK while cwnd <
//! ssthresh, asks it first ([`SlowStart::on_ack`]: the exit may set ssthresh = cwnd, and
//! HyStart++ decides how this ACK grows the window), then grows the window itself and lets it
//! keep a quarter in Conservative Slow Start ([`SlowStart::conserve`]); a loss and a timeout
//! are told ([`SlowStart::on_loss`], [`SlowStart::on_timeout`]).

use super::aimd::Growth;
use super::{Ack, Window};
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How slow start ends before a loss does.
///
/// * `Linux`: HyStart as in Linux's tcp_cubic.c (`hystart_detect` = 3), while cwnd >=
///   `hystart_low_window` (16 segments). A round starts with the first ACK beyond the data
///   outstanding when the last round started (`bictcp_hystart_reset`). The ACK train: while
///   ACKs arrive within 2 ms (`hystart_ack_delta_us`) of each other since the round start,
///   once the train is longer than (delay_min + 1 ms) / 2 (Linux 6.x adds
///   `hystart_ack_delay`, min(1 ms, 4 GSO sizes at the pacing rate), here 1 ms, and halves
///   the threshold without fq pacing), slow start ends. The delay: after the first 8 RTT
///   samples of a round (`HYSTART_MIN_SAMPLES`), their minimum above delay_min + clamp(delay_min
///   / 8, 4 ms, 16 ms) ends slow start. On either, ssthresh = cwnd. delay_min is the smallest
///   RTT seen (with CUBIC, not updated within 1 s of an avoidance epoch's start); a timeout
///   resets it and re-arms HyStart (`bictcp_reset` in `bictcp_state`).
/// * `Rfc9406`: HyStart++ (RFC 9406 Sec. 4.2): after N_RTT_SAMPLE (8) samples in a round, a
///   round minimum RTT >= the last round's + clamp(last / 8, 4 ms, 16 ms) enters Conservative
///   Slow Start, which grows by a quarter of slow start's increase (CSS_GROWTH_DIVISOR 4);
///   a round minimum (after 8 samples) below the one that entered CSS returns to slow start;
///   after CSS_ROUNDS (5) rounds in CSS, ssthresh = cwnd. Slow start counts bytes with L = 8
///   segments per ACK (Sec. 4.3: a sender that does not pace), in CSS a quarter of that. Only
///   in the initial slow start, while ssthresh has its initial value (Sec. 4.3's SHOULD): a
///   loss in slow start or CSS sets ssthresh and ends it, and the slow start after a timeout
///   is standard (up to the ssthresh the timeout set). A round ends with the first ACK beyond
///   the data outstanding when it began (windowEnd).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HyStart {
    /// Slow start runs until ssthresh or a loss.
    #[default]
    Off,
    /// HyStart as in Linux's tcp_cubic.c (ACK train and delay increase; ssthresh = cwnd).
    Linux,
    /// HyStart++ (RFC 9406): Conservative Slow Start after an RTT increase.
    Rfc9406,
}

const HYSTART_LOW_WINDOW: u64 = 16;
const HYSTART_ACK_DELTA: SimTime = SimTime::from_ms(2);
const HYSTART_ACK_DELAY: SimTime = SimTime::from_ms(1);
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: u64 = 4;
const CSS_ROUNDS: u32 = 5;
/// RFC 9406 Sec. 4.3: L, the most slow start may grow per ACK, in segments, for a sender that
/// does not pace (infinity for one that does).
const HYSTART_PP_L: u32 = 8;

/// clamp(rtt / 8, 4 ms, 16 ms): the RTT increase that counts (Linux's
/// `HYSTART_DELAY_THRESH`, RFC 9406's RttThresh).
fn delay_thresh(rtt: SimTime) -> SimTime {
    SimTime::from_ns((rtt.ns() / 8).clamp(4_000_000, 16_000_000))
}

/// The slow-start exit's state (both kinds).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Exit {
    /// Bytes acknowledged so far, and the count at which the current round ends (the data
    /// outstanding when it began: Linux's `end_seq` = snd_nxt, RFC 9406's windowEnd).
    acked_total: u64,
    round_end: u64,
    round_start: SimTime,
    last_ack: SimTime,
    /// The smallest RTT of this round so far, and how many samples it has seen.
    round_min: Option<SimTime>,
    samples: u32,
    /// Linux: the smallest RTT seen; found: slow start was ended.
    delay_min: Option<SimTime>,
    found: bool,
    /// RFC 9406: lastRoundMinRTT, cssBaselineMinRtt (Some while in CSS), rounds in CSS.
    last_round_min: Option<SimTime>,
    css_baseline: Option<SimTime>,
    css_rounds: u32,
    /// Bytes of CSS growth not yet a whole byte x CSS_GROWTH_DIVISOR.
    css_carry: u64,
}

/// A controller's slow-start exit: its kind and its state.
#[derive(Clone, Debug, PartialEq)]
pub struct SlowStart {
    kind: HyStart,
    x: Exit,
}

/// How one ACK's slow start grows the window ([`SlowStart::on_ack`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The controller's growth, or HyStart++'s byte counting with L = 8.
    pub growth: Growth,
    /// In Conservative Slow Start when the ACK arrived: keep a quarter of the growth.
    pub css: bool,
}

impl SlowStart {
    pub fn new(kind: HyStart) -> Self {
        SlowStart {
            kind,
            x: Exit::default(),
        }
    }

    pub fn kind(&self) -> HyStart {
        self.kind
    }

    /// An ACK while cwnd < ssthresh, before slow start grows the window: the exit sees it and
    /// may end slow start (ssthresh = cwnd). `growth` is the controller's own; `epoch_start`
    /// when its current avoidance stage began, if it has stages (CUBIC: Linux's HyStart then
    /// keeps delay_min within 1 s of it).
    pub fn on_ack(
        &mut self,
        w: &mut Window,
        ack: &Ack,
        mss: u64,
        growth: Growth,
        initial_ssthresh: u64,
        epoch_start: Option<SimTime>,
    ) -> Step {
        // RFC 9406 Sec. 4.3: HyStart++ only in the initial slow start, while ssthresh is at
        // its initial value (not after a loss or a timeout; after an idle restart, which Sec.
        // 4.3 allows, yes).
        let hystart_pp = self.kind == HyStart::Rfc9406 && w.ssthresh == initial_ssthresh;
        // RFC 9406: an ACK grows the window by the rule in force when it arrived.
        let css = hystart_pp && self.x.css_baseline.is_some();
        let exit_on = match self.kind {
            HyStart::Off => false,
            HyStart::Linux => true,
            HyStart::Rfc9406 => hystart_pp,
        };
        if exit_on {
            self.exit(w, ack, mss, epoch_start);
        }
        // HyStart++ counts bytes with L = 8 (RFC 9406 Sec. 4.3, a sender that does not pace).
        let growth = if hystart_pp {
            Growth::Abc { limit: HYSTART_PP_L }
        } else {
            growth
        };
        Step { growth, css }
    }

    /// RFC 9406's Conservative Slow Start: of what slow start grew the window from `before`,
    /// keep a quarter (while cwnd is below ssthresh).
    pub fn conserve(&mut self, w: &mut Window, before: u64) {
        if w.cwnd < w.ssthresh {
            let x = &mut self.x;
            let grown = w.cwnd - before + x.css_carry;
            x.css_carry = grown % CSS_GROWTH_DIVISOR;
            w.cwnd = before + grown / CSS_GROWTH_DIVISOR;
        }
    }

    /// A loss ends Conservative Slow Start.
    pub fn on_loss(&mut self) {
        self.x.css_baseline = None;
    }

    /// A timeout (`bictcp_state(TCP_CA_Loss)`: bictcp_reset and bictcp_hystart_reset): the
    /// state is forgotten and a new round begins with the next ACK.
    pub fn on_timeout(&mut self) {
        self.x = Exit {
            acked_total: self.x.acked_total,
            round_end: self.x.acked_total,
            ..Exit::default()
        };
    }

    /// The exit sees an ACK; it may set ssthresh = cwnd.
    fn exit(&mut self, w: &mut Window, ack: &Ack, mss: u64, epoch_start: Option<SimTime>) {
        let x = &mut self.x;
        x.acked_total += ack.acked;
        let new_round = x.acked_total > x.round_end;
        match self.kind {
            HyStart::Off => {}
            HyStart::Linux => {
                // bictcp_acked, then bictcp_cong_avoid's round reset.
                if let Some(rtt) = ack.rtt {
                    let rtt = rtt.max(SimTime::from_us(1));
                    let fresh_epoch = epoch_start
                        .is_some_and(|start| ack.now.saturating_sub(start) < SimTime::from_secs(1));
                    if !fresh_epoch {
                        x.delay_min = Some(x.delay_min.map_or(rtt, |d| d.min(rtt)));
                    }
                    if let (false, Some(delay_min)) = (x.found, x.delay_min) {
                        if w.cwnd >= HYSTART_LOW_WINDOW * mss {
                            hystart_update(x, w, ack.now, rtt, delay_min);
                        }
                    }
                }
                if new_round {
                    x.round_start = ack.now;
                    x.last_ack = ack.now;
                    x.round_end = x.acked_total + ack.flight;
                    x.round_min = None;
                    x.samples = 0;
                }
            }
            HyStart::Rfc9406 => {
                if new_round {
                    x.round_end = x.acked_total + ack.flight;
                    x.last_round_min = x.round_min;
                    x.round_min = None;
                    x.samples = 0;
                    if x.css_baseline.is_some() {
                        x.css_rounds += 1;
                        if x.css_rounds >= CSS_ROUNDS {
                            w.ssthresh = w.cwnd;
                            return;
                        }
                    }
                }
                if let Some(rtt) = ack.rtt {
                    x.round_min = Some(x.round_min.map_or(rtt, |m| m.min(rtt)));
                    x.samples += 1;
                }
                if x.samples < N_RTT_SAMPLE {
                    return;
                }
                let Some(cur) = x.round_min else { return };
                match (x.css_baseline, x.last_round_min) {
                    // Sec. 4.2: in CSS, only the round's minimum against the baseline counts
                    // (lastRoundMinRTT need not be valid).
                    (Some(base), _) if cur < base => x.css_baseline = None,
                    (None, Some(last)) if cur >= last.saturating_add(delay_thresh(last)) => {
                        x.css_baseline = Some(cur);
                        x.css_rounds = 0;
                    }
                    _ => {}
                }
            }
        }
    }
}

/// Linux's `hystart_update`: the ACK train and the delay increase.
fn hystart_update(x: &mut Exit, w: &mut Window, now: SimTime, rtt: SimTime, delay_min: SimTime) {
    if now.saturating_sub(x.last_ack) <= HYSTART_ACK_DELTA {
        x.last_ack = now;
        let threshold = SimTime::from_ns(delay_min.saturating_add(HYSTART_ACK_DELAY).ns() / 2);
        if now.saturating_sub(x.round_start) > threshold {
            x.found = true;
            w.ssthresh = w.cwnd;
        }
    }
    x.round_min = Some(x.round_min.map_or(rtt, |m| m.min(rtt)));
    if x.samples < N_RTT_SAMPLE {
        x.samples += 1;
    } else if x.round_min > Some(delay_min.saturating_add(delay_thresh(delay_min))) {
        x.found = true;
        w.ssthresh = w.cwnd;
    }
}

#[cfg(test)]
mod tests {
    //! The exits as AIMD uses them (CUBIC's own tests are in `cubic/tests.rs`): the same
    //! known answers, since slow start is the same code.

    use super::*;
    use crate::tcp::cc::aimd::{Aimd, AimdOptions};
    use crate::tcp::cc::{Controller, FromOptions, Setup};

    const MSS: u64 = 1000;

    fn aimd(hystart: HyStart) -> Aimd {
        let options = AimdOptions {
            hystart: Some(hystart),
            ..Default::default()
        };
        let setup = Setup {
            mss: MSS,
            initial_window: 10 * MSS,
            initial_ssthresh: u64::MAX / 4,
            rwnd: u64::MAX / 4,
        };
        Aimd::build(&options, &setup)
    }

    /// Rounds 1 s apart of a window-limited slow start from 10 segments, ACKs of one segment
    /// `spacing_us` apart, each with the RTT sample `rtt_us(round)`; the sender sends what cwnd
    /// allows after each ACK. Stops when slow start ends; the window after each round.
    fn slow_start(
        c: &mut impl Controller,
        rounds: u64,
        spacing_us: u64,
        rtt_us: impl Fn(u64) -> u64,
    ) -> (Window, Vec<u64>) {
        let mut w = c.initial_window();
        let (mut n, mut after) = (10, Vec::new());
        for r in 0..rounds {
            let mut sent = 0;
            for i in 0..n {
                let rest = n - i - 1;
                let a = Ack {
                    now: SimTime::from_us(r * 1_000_000 + i * spacing_us),
                    acked: MSS,
                    rtt: Some(SimTime::from_us(rtt_us(r))),
                    flight: (rest + sent) * MSS,
                    recovering: false,
                };
                c.on_ack(&mut w, &a);
                sent = sent.max((w.cwnd / MSS).saturating_sub(rest));
            }
            n = sent;
            after.push(w.cwnd);
            if w.cwnd >= w.ssthresh {
                break;
            }
        }
        (w, after)
    }

    #[test]
    fn aimd_without_an_exit_doubles_the_window_every_round() {
        let (w, after) = slow_start(&mut aimd(HyStart::Off), 4, 3_000, |r| {
            if r >= 3 {
                120_000
            } else {
                100_000
            }
        });
        assert_eq!(after, [20_000, 40_000, 80_000, 160_000]);
        assert_eq!(w.ssthresh, u64::MAX / 4);
    }

    #[test]
    fn hystart_plus_plus_exits_aimds_slow_start_as_rfc_9406_says() {
        // RFC 9406 Sec. 4.2 with 100 ms rounds, then 120 ms from round 3 (>= 100 + RttThresh
        // = clamp(100 / 8, 4, 16) = 12.5 ms). Round 3 (80 segments): its 8th sample (ACK 7)
        // enters CSS after slow start added a full segment per ACK (cwnd 88); the other 72
        // ACKs add CSS_GROWTH_DIVISOR = 4 times less, a quarter segment each (106). Rounds 4-7
        // (CSS) grow by a quarter per ACK: 106 -> 132.5 -> 165.5 -> 206.75 -> 258.25 segments.
        // The first ACK of round 8 completes CSS_ROUNDS = 5 rounds: ssthresh = cwnd.
        let (w, after) = slow_start(&mut aimd(HyStart::Rfc9406), 12, 3_000, |r| {
            if r >= 3 {
                120_000
            } else {
                100_000
            }
        });
        assert_eq!(
            after[..8],
            [20_000, 40_000, 80_000, 106_000, 132_500, 165_500, 206_750, 258_250]
        );
        assert_eq!((after.len(), w.ssthresh), (9, 258_250));
        // A rise below RttThresh (12 ms) never enters CSS.
        let (w, _) = slow_start(&mut aimd(HyStart::Rfc9406), 5, 3_000, |r| {
            if r >= 3 {
                112_000
            } else {
                100_000
            }
        });
        assert_eq!(w.ssthresh, u64::MAX / 4);
    }

    #[test]
    fn hystart_plus_plus_is_not_used_in_aimds_slow_start_after_a_loss() {
        // Sec. 4.3: only while ssthresh has its initial value. After a loss at 100 segments
        // (ssthresh 50 by d = 1/2) slow start from 10 segments doubles, whatever the RTT.
        let mut c = aimd(HyStart::Rfc9406);
        let loss = crate::tcp::cc::Loss {
            now: SimTime::ZERO,
            window: 100 * MSS,
            flight_size: 100 * MSS,
        };
        let mut w = Window {
            cwnd: 10 * MSS,
            ssthresh: c.ssthresh_after_loss(&loss),
        };
        for i in 0..10 {
            let a = Ack {
                now: SimTime::from_ms(i),
                acked: MSS,
                rtt: Some(SimTime::from_ms(200 + 10 * i)),
                flight: 0,
                recovering: false,
            };
            c.on_ack(&mut w, &a);
        }
        assert_eq!((w.cwnd, w.ssthresh), (20 * MSS, 50 * MSS));
    }

    #[test]
    fn linux_hystart_ends_aimds_slow_start_on_a_delay_increase() {
        // As CUBIC's test: the 9th ACK of round 3 (RTT 120 ms > 100 + 12.5 ms after 8
        // samples) ends slow start with cwnd = 80 + 9 segments.
        let (w, after) = slow_start(&mut aimd(HyStart::Linux), 6, 3_000, |r| {
            if r >= 3 {
                120_000
            } else {
                100_000
            }
        });
        assert_eq!(w.ssthresh, 89_000);
        assert_eq!(&after[..3], [20_000, 40_000, 80_000]);
    }
}
