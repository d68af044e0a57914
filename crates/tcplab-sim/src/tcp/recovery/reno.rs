//! Reno fast retransmit and fast recovery (RFC 5681 Sec. 3.2): on the third duplicate ACK,
//! ssthresh = the congestion control's answer (max(FlightSize/2, 2 SMSS), Eq. 4, for AIMD's
//! defaults), retransmit, cwnd = ssthresh + 3 SMSS; each further
//! duplicate ACK inflates cwnd by one SMSS; the next new ACK deflates it to ssthresh and ends
//! recovery (even a partial ACK: that is what NewReno changes). With `guard` (ns-2's bugFix_),
//! no second fast retransmit until an ACK covers what was outstanding at the first.

use super::{reduce, Ctx, Recovery};
use crate::tcp::ns2::Ns2Variant;
use crate::tcp::state::{AckResult, LossSignal};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Reno's option (`tcp = { variant = "reno", guard = true }`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenoOptions {
    /// No second fast retransmit for one window (ns-2's bugFix_); default false (the other
    /// variants always guard).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guard: Option<bool>,
}

#[derive(Clone, Debug, Default)]
pub struct Reno {
    pub in_recovery: bool,
    pub guard: bool,
}

impl Recovery for Reno {
    type Options = RenoOptions;
    const NS2_AGENT: Option<Ns2Variant> = Some(Ns2Variant::Reno);

    fn build(o: &RenoOptions) -> Self {
        Reno {
            in_recovery: false,
            guard: o.guard.unwrap_or(false),
        }
    }

    fn on_dupack(&mut self, cx: &mut Ctx<'_>) {
        let (core, now) = (&mut *cx.core, cx.now);
        if self.in_recovery {
            core.win.cwnd += core.mss(); // RFC 5681 step 4: inflate for the segment that left
        } else if core.dupacks == core.cfg.dupthresh && core.fast_retransmit_allowed() {
            reduce(core, cx.cc, now); // step 2
            if self.guard {
                core.recover = core.snd_max;
            }
            core.signal_loss(LossSignal::FastRetransmit);
            let una = core.snd_una;
            core.send_segment(now, una, cx.out); // step 3: retransmit the lost segment
            core.win.cwnd = core.win.ssthresh + core.cfg.dupthresh as u64 * core.mss();
            self.in_recovery = true;
        }
    }

    fn on_new_ack(&mut self, cx: &mut Ctx<'_>, _: u64) -> AckResult {
        if self.in_recovery {
            cx.core.win.cwnd = cx.core.win.ssthresh; // step 6: deflate
            self.in_recovery = false;
            AckResult::SET
        } else {
            AckResult::GROW
        }
    }

    fn on_timeout(&mut self, _: &mut Ctx<'_>) {
        self.in_recovery = false;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}
