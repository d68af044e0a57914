//! Loss recovery: how a loss is detected from duplicate ACKs (and SACK blocks), how it is
//! repaired, and what the send loop may send meanwhile. The seam between the shared sender and
//! each variant: a trait ([`Recovery`]) whose hooks default to doing nothing, one file per
//! recovery, and one list (`recoveries!` below) that generates the scenario's names and options,
//! their schema and checks, and the enum the sender holds (static dispatch).
//!
//! A recovery sets cwnd while it repairs (Reno's inflation and deflation, Tahoe's one segment,
//! rate halving, FACK's Eq. 15), but it never computes an ssthresh: when it declares a loss it
//! asks the congestion control ([`Controller::ssthresh_after_loss`], through [`reduce`]), which
//! is what lets `d` (or CUBIC's beta) change every variant's reduction without touching it.

#[macro_use]
pub(crate) mod registry;
pub mod exit;
pub mod rack;
pub mod sack_options;

use super::cc::{CongestionControl, Controller};
use super::segment::Segment;
use super::state::{AckResult, SenderCore};
use crate::error::Error;
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;

// The registry: one line per recovery, `Variant: module::Type = "name", "description";`
// (registry.rs says what it generates). The order is the schema's and the error messages'.
recoveries! {
    default Reno;
    Bsd43: bsd43::Bsd43 = "bsd43", "4.3BSD before Jacobson: no fast retransmit, go-back-N, RFC 793 timer; no congestion window unless `cc` says otherwise.";
    Tahoe: tahoe::Tahoe = "tahoe", "Tahoe: fast retransmit, then slow start from one segment.";
    Reno: reno::Reno = "reno", "Reno fast retransmit and fast recovery (RFC 5681).";
    Newreno: newreno::NewReno = "newreno", "NewReno (RFC 6582): fast recovery until the ACK covers what was sent.";
    Sack: sack::SackRecovery = "sack", "SACK with RFC 6675 loss recovery.";
    Fack: fack::Fack = "fack", "FACK with Rate-Halving (Mathis et al. 1997 App. A).";
    Sackrh: sackrh::SackRh = "sackrh", "SACK with rate halving (ns-2's SackRH).";
    #[cfg(test)]
    Probe: probe::Probe = "probe", "A throwaway recovery that proves the registry (tests only).";
}

/// What every hook is given: the shared sender state, the congestion control (to ask for an
/// ssthresh), the time, and where the segments it sends go.
pub struct Ctx<'a> {
    pub core: &'a mut SenderCore,
    pub cc: &'a mut CongestionControl,
    pub now: SimTime,
    pub out: &'a mut Vec<Segment>,
}

/// What the sender tells the recovery about every ACK (RACK-TLP's per-ACK steps).
#[derive(Clone, Copy, Debug)]
pub struct AckEvent<'a> {
    pub ack: &'a Segment,
    /// The retransmit timer's RTT sample from this ACK, if any.
    pub rtt: Option<SimTime>,
    /// Bytes the cumulative ACK advanced by (0 for a duplicate).
    pub acked: u64,
}

/// What a recovery's `validate` may read beside its options.
pub struct Validation<'a> {
    /// The path of the flow's `tcp` table ("flows[0].tcp"): an option's error names
    /// `{at}.{option}`.
    pub at: &'a str,
    /// The flow's `sack` key as written (None: the variant's default).
    pub sack: Option<bool>,
}

/// The options of a recovery that has none (`tcp = { variant = "tahoe" }` and nothing else).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoOptions {}

/// A loss recovery. Every hook has a default that does nothing (the send loop's default sends
/// what cwnd allows); a recovery overrides what it changes.
pub trait Recovery: Clone + Debug + Sized {
    /// The options of its `tcp` table: a struct (serde + schemars, `deny_unknown_fields`) whose
    /// fields are all `Option`s, None meaning the default (`skip_serializing_if =
    /// "Option::is_none"`: a scenario is written back with what was given). Doc comments are the
    /// schema's descriptions. `NoOptions` for none.
    type Options: Clone + Debug + Default + PartialEq + Serialize + DeserializeOwned + JsonSchema + 'static;
    /// It reads SACK blocks: the sender keeps a scoreboard, the receiver sends them by default.
    const USES_SACK: bool = false;
    /// It retransmits on duplicate ACKs (limited transmit applies).
    const FAST_RETRANSMIT: bool = true;
    /// A TCP from before Jacobson 1988: its flows default to `cc = "none"` and RFC 793's timer.
    const BEFORE_1988: bool = false;
    /// The ns-2 agent that models it with `profile = "ns2"` (None: no model).
    const NS2_AGENT: Option<super::ns2::Ns2Variant> = None;

    /// The recovery its options describe.
    fn build(options: &Self::Options) -> Self;

    /// Checks the options' values (their types and names are checked already); an error names
    /// `{v.at}.{option}`, the value and what is expected.
    fn validate(_options: &Self::Options, _v: &Validation<'_>) -> Result<(), Error> {
        Ok(())
    }

    /// A duplicate ACK arrived (`core.dupacks` already counts it).
    fn on_dupack(&mut self, _cx: &mut Ctx<'_>) {}

    /// A new ACK arrived: snd_una advanced by `acked` bytes, the scoreboard is updated. The
    /// congestion control sees the ACK next, and grows the window unless the result says the
    /// recovery set it.
    fn on_new_ack(&mut self, _cx: &mut Ctx<'_>, _acked: u64) -> AckResult {
        AckResult::GROW
    }

    /// The retransmit timer fired: the congestion control has set the window, snd_nxt is back
    /// at snd_una, the timer is backed off and restarted; the send loop runs next.
    fn on_timeout(&mut self, _cx: &mut Ctx<'_>) {}

    /// Sends what the window allows (the default: new data and go-back-N while the data in
    /// flight is below cwnd).
    fn send(&mut self, cx: &mut Ctx<'_>) {
        let w = cx.core.win.cwnd;
        cx.core.send_allowed(cx.now, w, cx.out)
    }

    /// A fast recovery is under way.
    fn in_recovery(&self) -> bool {
        false
    }

    /// Every ACK, after the duplicate-ACK or new-ACK hook and the congestion control.
    fn on_any_ack(&mut self, _cx: &mut Ctx<'_>, _ev: AckEvent<'_>) {}

    /// The recovery's own timers (which the sender's deadline includes), if any.
    fn deadline(&self) -> Option<SimTime> {
        None
    }

    /// The recovery's own timers may have expired (before the retransmit timer is looked at).
    fn on_timer(&mut self, _cx: &mut Ctx<'_>) {}

    /// After a timeout it retransmits only what it marked lost instead of going back to
    /// snd_una (F-RTO's fallback then leaves snd_nxt alone).
    fn marks_after_timeout(&self) -> bool {
        false
    }

    /// F-RTO found the last timeout spurious: undo what `on_timeout` marked.
    fn undo_timeout(&mut self, _core: &mut SenderCore) {}

    /// It reads the segments each ACK delivers (`Scoreboard::delivered`).
    fn reads_delivered(&self) -> bool {
        false
    }
}

/// What the list adds to each recovery it names: its variant.
pub trait Registered: Recovery {
    const VARIANT: Variant;
}

/// A loss is declared now: ssthresh becomes what the congestion control answers (RFC 5681
/// Eq. 4 for AIMD with d = 1/2), from the window in use and the FlightSize of this moment.
///
/// A loss inside the window of an ECE response keeps the ssthresh that response set: Linux's
/// `tcp_enter_recovery` starts no second reduction while `tcp_in_cwnd_reduction` (RFC 3168
/// Sec. 6.1.2: ssthresh is not decreased twice in a round trip).
pub(crate) fn reduce(core: &mut SenderCore, cc: &mut CongestionControl, now: SimTime) {
    if core.ecn.on && core.ecn.in_ece_round(core.snd_una) {
        return;
    }
    let loss = core.loss(now);
    core.win.ssthresh = cc.ssthresh_after_loss(&loss);
}
