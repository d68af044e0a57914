//! The window on the ACK that ends a SACK recovery (`recovery_exit_growth`). RFC 6675 Sec. 5
//! and RFC 6937 end the recovery with cwnd = ssthresh and say nothing of growth on that ACK;
//! tcplab's default (`none`) grows nothing on it. Two stacks do grow it:
//!
//! * **Linux** (`delivered`, net/ipv4/tcp_input.c): `tcp_ack` calls `tcp_fastretrans_alert`,
//!   which, once snd_una reaches high_seq in CA_Recovery, calls `tcp_try_undo_recovery` (with
//!   SACK, no undo: `tcp_set_ca_state(sk, TCP_CA_Open)`) and then `tcp_end_cwnd_reduction`
//!   (cwnd = ssthresh); back in `tcp_ack`, `tcp_cong_control(sk, ack, delivered, ...)` finds
//!   the state Open, so not `tcp_in_cwnd_reduction`, and with FLAG_DATA_ACKED
//!   (`tcp_may_raise_cwnd`) runs `tcp_cong_avoid` with `delivered = tcp_newly_delivered`: the
//!   segments the ACK newly acknowledged or SACKed, not those SACKed before it.
//! * **ns-3 3.44** (`ns3`, tcp-socket-base.cc, `ProcessAck`): on the ACK that ends CA_RECOVERY
//!   segsAcked = (ackNumber - oldHeadSequence) / segmentSize (lines 2207-2208: the cumulative
//!   advance in whole segments, SACKed ones included), then cwnd = ssthresh (line 2247) and,
//!   the state being CA_OPEN, `IncreaseWindow(m_tcb, segsAcked)` (line 2254).
//!
//! The count handed to the congestion control replaces the flow's `ack_counting` on that ACK
//! only; what the controller does with it (slow start below ssthresh, else its congestion
//! avoidance) is its own.

use crate::tcp::state::{AckResult, SenderCore};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the ACK that ends a recovery grows the window by (`recovery_exit_growth`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryExitGrowth {
    /// cwnd = ssthresh and no growth on that ACK (RFC 6675 and RFC 6937 as written).
    #[default]
    None,
    /// cwnd = ssthresh, then the congestion control's growth by the bytes the ACK newly
    /// delivered (Linux: `tcp_end_cwnd_reduction`, then `tcp_cong_control` in CA_Open with
    /// `tcp_newly_delivered`'s count).
    Delivered,
    /// cwnd = ssthresh, then growth by the cumulative advance in whole segments, those SACKed
    /// earlier included (ns-3 3.44, tcp-socket-base.cc lines 2207-2208, 2247, 2254).
    Ns3,
}

/// The exit rule and, for `delivered`, the SACKed bytes after the previous ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExitGrowth {
    rule: RecoveryExitGrowth,
    sacked: u64,
}

impl ExitGrowth {
    pub fn new(rule: RecoveryExitGrowth) -> Self {
        ExitGrowth { rule, sacked: 0 }
    }

    /// After every ACK: the SACKed bytes, for the next ACK's newly delivered count (only with
    /// `delivered`: it is a walk of the scoreboard).
    #[inline]
    pub fn note(&mut self, core: &SenderCore) {
        if self.rule == RecoveryExitGrowth::Delivered {
            self.note_sacked(core);
        }
    }

    #[cold]
    #[inline(never)]
    fn note_sacked(&mut self, core: &SenderCore) {
        self.sacked = core.sb.as_ref().map_or(0, |sb| sb.sacked_bytes());
    }

    /// The ACK that ends the recovery (cwnd = ssthresh is set), snd_una advanced by
    /// `newly_acked`: what the recovery answers the sender.
    pub fn on_exit(&self, core: &SenderCore, newly_acked: u64) -> AckResult {
        let grow_by = match self.rule {
            RecoveryExitGrowth::None => return AckResult::SET,
            RecoveryExitGrowth::Delivered => {
                let sacked = core.sb.as_ref().map_or(0, |sb| sb.sacked_bytes());
                (newly_acked + sacked).saturating_sub(self.sacked)
            }
            RecoveryExitGrowth::Ns3 => newly_acked / core.mss() * core.mss(),
        };
        AckResult {
            window_set: false,
            restart_timer: true,
            grow_by: Some(grow_by),
        }
    }
}
