//! F-RTO (RFC 5682): after a retransmit timeout, decide from the next two ACKs whether the
//! timeout was spurious (the ACKs were late, not lost) and, if so, undo it. The basic algorithm
//! (Sec. 2.1), or the SACK-enhanced one (Sec. 3) when the sender keeps a SACK scoreboard. The
//! sender starts it at a timeout (`start`, step 1), hands it every ACK (`Observed`, then
//! `step`) and acts on the verdict: send as usual, send new data instead of going back
//! (`send_new_data`), or hold.

use super::cc::Window;
use super::recovery::LossRecovery;
use super::sack::Scoreboard;
use super::segment::Segment;
use super::state::SenderCore;
use crate::time::SimTime;

/// F-RTO between a timeout and its verdict.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frto {
    /// Step 2 (waiting for the first ACK after the retransmission that advances) or step 3
    /// (the next one).
    step: u8,
    /// The window before the timeout, restored if it was spurious.
    prior: Window,
    /// Sec. 3: the SACK-enhanced algorithm.
    sack: bool,
    /// Sec. 3's RecoveryPoint, one past the highest byte sent when the first ACK that
    /// advanced arrived (step 2; snd_max at the timeout until then).
    recovery_point: u64,
}

/// What an ACK tells F-RTO (the SACK-enhanced algorithm reads all of it, Sec. 3).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Observed {
    /// The cumulative ACK advanced.
    advanced: bool,
    /// A duplicate ACK (no advance, data outstanding).
    duplicate: bool,
    /// It acknowledged (cumulatively or by SACK) data below RecoveryPoint that was never
    /// retransmitted (step 3b; Linux's FLAG_ORIG_SACK_ACKED).
    original: bool,
    /// Its cumulative ACK or a SACK block covers more than RecoveryPoint (step 3a).
    above: bool,
}

impl Observed {
    /// The ACK `ack` before the sender acts on it.
    #[inline]
    pub(crate) fn new(core: &SenderCore, ack: &Segment) -> Self {
        Observed {
            advanced: ack.ack > core.snd_una,
            duplicate: ack.ack == core.snd_una && core.snd_max > core.snd_una,
            ..Default::default()
        }
    }

    /// With the SACK-enhanced algorithm under way: what the ACK delivered (`sb` has taken it).
    #[inline]
    pub(crate) fn read_scoreboard(&mut self, frto: Option<Frto>, sb: &Scoreboard, ack: &Segment) {
        if let Some(f) = frto.filter(|f| f.sack) {
            let rp = f.recovery_point;
            self.original = sb.delivered.iter().any(|s| !s.retransmitted && s.end <= rp);
            self.above = ack.ack > rp || ack.sack.iter(ack.ack).any(|(_, e)| e > rp);
        }
    }
}

/// What F-RTO makes of an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Not in F-RTO, or it ended in conventional recovery: send as usual.
    Usual,
    /// Step 2b: two new segments instead of go-back-N (`send_new_data`).
    NewData,
    /// Step 3b: the timeout was spurious.
    Spurious,
    /// Sec. 3 step 3: an ACK that decides nothing ("ignored without any action").
    Hold,
}

/// Step 1, at a timeout: F-RTO starts (or, None, does not). The basic algorithm (Sec. 2.1) on
/// a first timeout outside a loss recovery (a timeout during F-RTO ends it); the
/// SACK-enhanced one (Sec. 3) unless a recovery is under way, fast or after a timeout
/// ("RecoveryPoint" >= SND.UNA: a repeated timeout, or one before the last one's data is all
/// acknowledged). `core` is as the timer found it, before the window is cut.
pub(crate) fn start(current: Option<Frto>, core: &SenderCore, recovery: &LossRecovery) -> Option<Frto> {
    let sack = core.sb.is_some();
    let allowed = if sack {
        !recovery.in_recovery() && core.recover <= core.snd_una
    } else {
        core.rtt.backoff() == 0 && !recovery.in_recovery() && current.is_none()
    };
    (core.cfg.frto && allowed).then_some(Frto {
        step: 2,
        prior: core.win,
        sack,
        recovery_point: core.snd_max,
    })
}

/// F-RTO on an ACK after a timeout: the basic algorithm (Sec. 2.1) or, with a SACK scoreboard,
/// the SACK-enhanced one (Sec. 3). `spurious` counts the timeouts found spurious.
#[inline]
pub(crate) fn step(
    slot: &mut Option<Frto>,
    a: Observed,
    core: &mut SenderCore,
    recovery: &mut LossRecovery,
    spurious: &mut u64,
) -> Verdict {
    match *slot {
        None => Verdict::Usual,
        Some(f) if f.sack => sack_step(slot, f, a, core, recovery, spurious),
        Some(f) => basic_step(slot, f, a.advanced, core, recovery, spurious),
    }
}

/// Sec. 2.1, `advanced`: the ACK acknowledged new data. Step 2: a duplicate ACK, or one that
/// covers `recover`, means conventional recovery; one that advances sends new data instead.
/// Step 3: a duplicate ACK means conventional recovery with cwnd at most 3 SMSS; one that
/// advances (acknowledging data never retransmitted) shows the timeout was spurious.
fn basic_step(
    slot: &mut Option<Frto>,
    f: Frto,
    advanced: bool,
    c: &mut SenderCore,
    recovery: &mut LossRecovery,
    spurious: &mut u64,
) -> Verdict {
    let duplicate = !advanced;
    match f.step {
        2 if duplicate || c.snd_una >= c.recover => {
            *slot = None;
            Verdict::Usual
        }
        2 if !can_send_new(c) => {
            // No new data to probe with, or no window for it: conventional recovery
            // (Sec. 2.1 step 2b).
            *slot = None;
            Verdict::Usual
        }
        2 => {
            *slot = Some(Frto { step: 3, ..f });
            Verdict::NewData
        }
        _ if duplicate => {
            *slot = None;
            c.win.cwnd = c.win.cwnd.min(3 * c.mss());
            c.snd_nxt = c.snd_una;
            Verdict::Usual
        }
        _ => undo(slot, f, c, recovery, spurious),
    }
}

/// Sec. 3, the SACK-enhanced algorithm. Step 2: duplicate ACKs only update the scoreboard;
/// the first ACK that advances sets RecoveryPoint to snd_max and, if it covers it (2a), ends
/// F-RTO with cwnd at most 2 SMSS; else two new segments go out (2b), or, if none can,
/// conventional recovery. Step 3: an ACK whose cumulative ACK or SACK blocks go beyond
/// RecoveryPoint, or a duplicate ACK that acknowledges no never-retransmitted data below it,
/// means conventional recovery with cwnd at most 3 SMSS (3a); an ACK that acknowledges such
/// data shows the timeout was spurious (3b); any other ACK is ignored.
fn sack_step(
    slot: &mut Option<Frto>,
    f: Frto,
    a: Observed,
    c: &mut SenderCore,
    recovery: &mut LossRecovery,
    spurious: &mut u64,
) -> Verdict {
    match f.step {
        2 if !a.advanced => Verdict::Usual,
        2 if c.snd_una >= c.snd_max => {
            // 2a: RecoveryPoint (snd_max) is covered.
            *slot = None;
            c.win.cwnd = c.win.cwnd.min(2 * c.mss());
            Verdict::Usual
        }
        2 if !can_send_new(c) => {
            *slot = None;
            Verdict::Usual
        }
        2 => {
            *slot = Some(Frto {
                step: 3,
                recovery_point: c.snd_max,
                ..f
            });
            Verdict::NewData
        }
        _ if a.above || (a.duplicate && !a.original) => {
            // 3a: conventional RTO recovery (go-back-N, or RACK's marks).
            *slot = None;
            c.win.cwnd = c.win.cwnd.min(3 * c.mss());
            if !recovery.marks_after_timeout() {
                c.snd_nxt = c.snd_una;
            }
            Verdict::Usual
        }
        _ if a.original => undo(slot, f, c, recovery, spurious),
        _ => Verdict::Hold,
    }
}

/// Step 2b's condition: new data to send and the receiver's window for a segment of it.
fn can_send_new(c: &SenderCore) -> bool {
    c.app_limit() > c.snd_max && c.snd_max + c.mss() <= c.snd_una + c.cfg.rwnd
}

/// Step 3b: the timeout was spurious. The response (which RFC 5682 leaves open) is Linux's
/// (`tcp_try_undo_loss` -> `tcp_undo_cwnd_reduction` with `unmark_loss`): cwnd back to at
/// least its value before the timeout, ssthresh to at least Linux's `prior_ssthresh`
/// (`tcp_current_ssthresh` at the timeout: the larger of ssthresh and 3/4 of cwnd, in whole
/// segments), the loss marks cleared, and no go-back-N. The timeout stays counted in the
/// instruments.
fn undo(
    slot: &mut Option<Frto>,
    f: Frto,
    c: &mut SenderCore,
    recovery: &mut LossRecovery,
    spurious: &mut u64,
) -> Verdict {
    *slot = None;
    *spurious += 1;
    let mss = c.mss();
    let segs = f.prior.cwnd / mss;
    let prior_ssthresh = f.prior.ssthresh.max(((segs >> 1) + (segs >> 2)) * mss);
    c.win.cwnd = c.win.cwnd.max(f.prior.cwnd);
    c.win.ssthresh = c.win.ssthresh.max(prior_ssthresh);
    c.recover = c.snd_una;
    recovery.undo_timeout(c);
    Verdict::Spurious
}

/// Step 2b: "transmit up to two new (previously unsent) segments": the window slow start just
/// opened, spent on new data instead of go-back-N.
pub(crate) fn send_new_data(c: &mut SenderCore, now: SimTime, out: &mut Vec<Segment>) {
    c.snd_nxt = c.snd_max;
    for _ in 0..2 {
        c.send_new_segment(now, u64::MAX, out);
    }
}
