//! NewReno (RFC 6582): Reno's fast retransmit, but fast recovery lasts until the ACK covers
//! `recover` (the highest byte sent when it began). A partial ACK retransmits the next hole at
//! once (one hole per round trip) and deflates the window by the amount acknowledged, adding
//! back one SMSS (Sec. 3.2 step 4) — or, with full deflation (Parvez et al. footnote 1), sets
//! cwnd = ssthresh. Timer on partial ACKs (Sec. 4): Impatient restarts it only on the first
//! partial ACK (RFC 6582's recommendation), Slow-but-Steady on every one. The full ACK sets
//! cwnd = ssthresh (step 3, option 2). `recover` also guards against a second fast retransmit
//! for the same window (Sec. 3.2 step 1).
//!
//! A retransmit timeout inside the recovery (Impatient's single restart makes it likely when
//! several segments of a window are lost) takes ssthresh from the congestion control, RFC 5681
//! Sec. 3.1 Eq. (4): max(FlightSize / 2, 2 SMSS). During the recovery FlightSize holds the new
//! data the inflated window sent (step 3), so it can exceed what the network held when the
//! recovery began, and ssthresh would rise on the timeout: slow start then overshoots into the
//! next burst of losses. `rto_in_recovery` decides (RFC 6582 says nothing of a timeout inside the
//! recovery):
//! - `no_raise` (the default): the smaller of Eq. (4) and the recovery's ssthresh. RFC 5681 asks
//!   for "no more than" Eq. (4), so this is within it; it is Linux's rule whenever Eq. (4) would
//!   rise: `tcp_enter_loss` (tcp_input.c) sets ssthresh only `if (icsk->icsk_ca_state <=
//!   TCP_CA_Disorder || !after(tp->high_seq, tp->snd_una) || (icsk->icsk_ca_state == TCP_CA_Loss
//!   && !icsk->icsk_retransmits))`, so a timeout in Recovery keeps the recovery's ssthresh
//!   ("Reduce ssthresh if it has not yet been made inside this window"). (ns-2's NewReno agent,
//!   `profile = "ns2"`, halves its cwnd_, which window inflation leaves at the recovery's
//!   ssthresh: it lowers ssthresh again.)
//! - `flight_size`: Eq. (4) alone (tcplab before this option).

use super::{reduce, Ctx, Recovery};
use crate::tcp::ns2::Ns2Variant;
use crate::tcp::state::{AckResult, LossSignal};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// NewReno's options (`tcp = { variant = "newreno", partial_deflation = false }`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewRenoOptions {
    /// Partial window deflation (RFC 6582, default true) or full deflation (Parvez et al.
    /// footnote 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial_deflation: Option<bool>,
    /// The retransmit timer on partial ACKs (RFC 6582 Sec. 4); default impatient.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial_ack_timer: Option<PartialAckTimer>,
    /// ssthresh on a retransmit timeout inside the recovery; default no_raise (the module doc).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rto_in_recovery: Option<RtoInRecovery>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RtoInRecovery {
    /// At most the recovery's ssthresh: min(RFC 5681 Eq. (4), the recovery's ssthresh), as
    /// Linux's tcp_enter_loss keeps it.
    NoRaise,
    /// RFC 5681 Eq. (4) on this moment's FlightSize, which may be above the recovery's.
    FlightSize,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PartialAckTimer {
    /// Restart the retransmit timer only on the first partial ACK (RFC 6582 Sec. 4).
    Impatient,
    /// Restart it on every partial ACK.
    SlowButSteady,
}

#[derive(Clone, Debug)]
pub struct NewReno {
    pub in_recovery: bool,
    pub partial_deflation: bool,
    pub impatient: bool,
    /// `rto_in_recovery = "no_raise"`.
    pub no_raise: bool,
    partial_acks: u32,
    /// The ssthresh the recovery set when it began.
    recovery_ssthresh: u64,
}

impl NewReno {
    pub fn new(partial_deflation: bool, impatient: bool, no_raise: bool) -> Self {
        NewReno {
            in_recovery: false,
            partial_deflation,
            impatient,
            no_raise,
            partial_acks: 0,
            recovery_ssthresh: u64::MAX,
        }
    }
}

impl Recovery for NewReno {
    type Options = NewRenoOptions;
    const NS2_AGENT: Option<Ns2Variant> = Some(Ns2Variant::Newreno);

    fn build(o: &NewRenoOptions) -> Self {
        NewReno::new(
            o.partial_deflation.unwrap_or(true),
            o.partial_ack_timer.unwrap_or(PartialAckTimer::Impatient) == PartialAckTimer::Impatient,
            o.rto_in_recovery.unwrap_or(RtoInRecovery::NoRaise) == RtoInRecovery::NoRaise,
        )
    }

    fn on_dupack(&mut self, cx: &mut Ctx<'_>) {
        let (core, now) = (&mut *cx.core, cx.now);
        if self.in_recovery {
            core.win.cwnd += core.mss(); // Sec. 3.2 step 3: inflate
        } else if core.dupacks == core.cfg.dupthresh && core.fast_retransmit_allowed() {
            core.recover = core.snd_max; // step 2
            reduce(core, cx.cc, now);
            self.recovery_ssthresh = core.win.ssthresh;
            core.signal_loss(LossSignal::FastRetransmit);
            let una = core.snd_una;
            core.send_segment(now, una, cx.out);
            core.win.cwnd = core.win.ssthresh + core.cfg.dupthresh as u64 * core.mss();
            self.in_recovery = true;
            self.partial_acks = 0;
        }
    }

    fn on_new_ack(&mut self, cx: &mut Ctx<'_>, acked: u64) -> AckResult {
        if !self.in_recovery {
            return AckResult::GROW;
        }
        let core = &mut *cx.core;
        if core.snd_una >= core.recover {
            // Full acknowledgment: leave fast recovery.
            core.win.cwnd = core.win.ssthresh;
            self.in_recovery = false;
            return AckResult::SET;
        }
        // Partial acknowledgment: the next segment is lost too.
        let una = core.snd_una;
        core.send_segment(cx.now, una, cx.out);
        if self.partial_deflation {
            core.win.cwnd = core.win.cwnd.saturating_sub(acked);
            if acked >= core.mss() {
                core.win.cwnd += core.mss();
            }
            core.win.cwnd = core.win.cwnd.max(core.mss());
        } else {
            core.win.cwnd = core.win.ssthresh;
        }
        self.partial_acks += 1;
        AckResult {
            window_set: true,
            restart_timer: !self.impatient || self.partial_acks == 1,
            grow_by: None,
        }
    }

    fn on_timeout(&mut self, cx: &mut Ctx<'_>) {
        // The congestion control has set ssthresh (Eq. (4)); inside a recovery, no_raise keeps
        // it at most the recovery's (the module doc).
        if self.in_recovery && self.no_raise {
            let w = &mut cx.core.win;
            w.ssthresh = w.ssthresh.min(self.recovery_ssthresh);
        }
        self.in_recovery = false;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}
