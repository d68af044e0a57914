//! The SACK recovery's options (`tcp = { variant = "sack", ... }`), read by `sack.rs`.

use super::exit::RecoveryExitGrowth;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Whose arithmetic PRR follows (`prr_rules`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PrrRules {
    /// RFC 6937 Sec. 3: RecoverFS = snd.nxt - snd.una; DeliveredData = the change in snd.una
    /// plus the change in SACKed bytes; the slow-start reduction bound adds one SMSS.
    #[default]
    Rfc6937,
    /// ns-3 3.44's TcpPrrRecovery: RecoverFS = pipe at the start; one SMSS more DeliveredData
    /// on every duplicate ACK while prr_delivered < RecoverFS (RFC 6937's estimate for a
    /// sender without SACK, added to the SACKed bytes); the bound's SMSS only on an ACK that
    /// advances snd_una.
    Ns3,
}

/// When a new recovery may start after the last one or a timeout (`reentry`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reentry {
    /// RFC 6582 Sec. 3.2 step 1's rule for NewReno: only once the cumulative ACK covers more
    /// than `recover` (`SenderCore::fast_retransmit_allowed`).
    #[default]
    Rfc6582,
    /// RFC 6675 Sec. 5.1's: once HighACK >= RecoveryPoint, so also at `recover` exactly when
    /// SACKed data shows a loss (`SenderCore::sack_recovery_allowed`); ns-3 and Linux's SACK.
    Rfc6675,
}

/// The SACK recovery's options (`tcp = { variant = "sack", prr = true, rack = true }`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SackOptions {
    /// Proportional Rate Reduction (RFC 6937) sets the window during recovery instead of
    /// cutting it to ssthresh at once; default false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prr: Option<bool>,
    /// RACK-TLP loss detection (RFC 8985) instead of DupThresh and IsLost, with tail loss
    /// probes; default false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rack: Option<bool>,
    /// PRR's arithmetic (with `prr = true`): "rfc6937" (default) or "ns3", ns-3 3.44's
    /// TcpPrrRecovery, for side-by-side runs with ns-3.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prr_rules: Option<PrrRules>,
    /// The window's growth on the ACK that ends the recovery: "none" (default), "delivered"
    /// (Linux) or "ns3" (ns-3 3.44); `exit.rs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_exit_growth: Option<RecoveryExitGrowth>,
    /// When a new recovery may start after the last one or a timeout: "rfc6582" (default,
    /// the cumulative ACK must cover more than `recover`) or "rfc6675" (HighACK >=
    /// RecoveryPoint, as ns-3 and Linux's SACK do).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reentry: Option<Reentry>,
}
