//! A flow's `ecn`, `ecn_receiver` and `handshake` keys: Explicit Congestion Notification
//! (RFC 3168; AccECN, RFC 9768) as the endpoints use it (`tcp/ecn.rs`, `tcp/accecn.rs`), what
//! "negotiated" means, and the checks of where it cannot apply.
//!
//! Without `handshake` the outcome is decided by the configuration of both ends
//! ([`FlowSpec::ecn_mode`]); with it, by the SYN exchange (`tcp/handshake.rs`), which reaches
//! the same outcome unless the network interferes.

use super::super::invalid;
use super::{Estimator, FlowSpec, Profile};
use crate::error::Error;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Explicit Congestion Notification for a flow (`ecn`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum EcnSetting {
    /// No ECN: every packet Not-ECT, no ECE or CWR.
    Off,
    /// RFC 3168: new data ECT(0), the receiver echoes CE with ECE until CWR, the sender
    /// reduces once per window of data.
    Classic,
    /// Accurate ECN (RFC 9768): the receiver counts CE packets in the ACE field (AE, CWR,
    /// ECE) and the bytes of each codepoint in the AccECN option, so the sender knows how many
    /// packets and bytes were marked.
    Accecn,
}

impl EcnSetting {
    pub fn name(self) -> &'static str {
        match self {
            EcnSetting::Off => "off",
            EcnSetting::Classic => "classic",
            EcnSetting::Accecn => "accecn",
        }
    }
}

/// How an ECE response lowers cwnd to the new ssthresh (`cwr_reduction`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CwrReduction {
    /// cwnd = ssthresh at once (RFC 3168 Sec. 6.1.2: "the congestion window is halved").
    #[default]
    Immediate,
    /// Over the round trip by Proportional Rate Reduction, as Linux's CWR state does
    /// (`tcp_init_cwnd_reduction`, `tcp_cwnd_reduction`, RFC 6937; `tcp/cwr.rs`).
    Prr,
}

impl CwrReduction {
    pub fn name(self) -> &'static str {
        match self {
            CwrReduction::Immediate => "immediate",
            CwrReduction::Prr => "prr",
        }
    }
}

/// What the receiver accepts (`ecn_receiver`): true (whatever the sender asks), false (no
/// ECN), or the most it supports, "off", "classic" or "accecn".
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(untagged)]
pub enum EcnReceiver {
    Accepts(bool),
    Supports(EcnSetting),
}

impl EcnReceiver {
    /// The most this receiver negotiates.
    pub fn most(self) -> EcnSetting {
        match self {
            EcnReceiver::Accepts(true) => EcnSetting::Accecn,
            EcnReceiver::Accepts(false) => EcnSetting::Off,
            EcnReceiver::Supports(s) => s,
        }
    }
}

impl FlowSpec {
    /// What the sender asks for: `ecn`, or classic ECN for a controller that needs it when
    /// `ecn` is left out.
    pub fn ecn_asked(&self) -> EcnSetting {
        match self.ecn {
            Some(s) => s,
            None if self.algorithm().needs_ecn() => EcnSetting::Classic,
            None => EcnSetting::Off,
        }
    }

    /// Does the sender ask for ECN (`ecn`, or a controller that needs it)?
    pub fn ecn_requested(&self) -> bool {
        self.ecn_asked() != EcnSetting::Off
    }

    /// The most the receiver negotiates (`ecn_receiver`, default: whatever is asked).
    pub fn ecn_accepted(&self) -> EcnSetting {
        self.ecn_receiver.map_or(EcnSetting::Accecn, EcnReceiver::most)
    }

    /// The ECN feedback the two ends agree on: the lower of what the sender asks and what the
    /// receiver supports (RFC 3168 Sec. 6.1.1; RFC 9768 Sec. 3.1.1, Table 2: an AccECN SYN
    /// answered by an RFC 3168 server gives classic ECN, by a server without ECN none).
    pub fn ecn_mode(&self) -> EcnSetting {
        self.ecn_asked().min(self.ecn_accepted())
    }

    /// Is ECN in use (negotiated by the configuration of both ends)?
    pub fn ecn_in_use(&self) -> bool {
        self.ecn_mode() != EcnSetting::Off
    }

    /// ECN's checks: a profile and a controller that can do it; AccECN for a controller
    /// that needs it; the handshake's estimator.
    pub(super) fn validate_ecn(&self, at: &str) -> Result<(), Error> {
        let a = self.algorithm();
        match self.ecn {
            Some(EcnSetting::Accecn) if self.profile == Some(Profile::Ns2) => {
                return Err(invalid(
                    format!("{at}.ecn"),
                    "\"accecn\" is not modelled by the ns2 profile's agents (ns-2 has classic ECN only) (expected \"off\" or \"classic\")",
                ))
            }
            Some(EcnSetting::Classic)
                if self.profile == Some(Profile::Ns2) && !self.tcp.variant.ns2_agent().is_some_and(|a| a.has_ecn()) =>
            {
                return Err(invalid(
                    format!("{at}.ecn"),
                    format!(
                        "\"classic\" is modelled for the ns2 profile's tahoe, reno, newreno and sack agents, not tcp = \"{}\" (expected \"off\")",
                        self.tcp.variant.name()
                    ),
                ))
            }
            Some(s @ (EcnSetting::Classic | EcnSetting::Accecn)) if !a.ecn_capable() => {
                return Err(invalid(
                    format!("{at}.ecn"),
                    format!(
                        "\"{}\" needs a congestion window to reduce, and cc = \"{}\" has none (expected \"off\", or a cc with a window)",
                        s.name(),
                        a.name()
                    ),
                ))
            }
            Some(EcnSetting::Off) if a.needs_ecn() => {
                return Err(invalid(
                    format!("{at}.ecn"),
                    format!(
                        "\"off\", but cc = \"{}\" needs ECN (expected {}, or leave ecn out)",
                        a.name(),
                        if a.needs_accecn() { "\"accecn\"" } else { "\"classic\" or \"accecn\"" }
                    ),
                ))
            }
            s if a.needs_accecn() && s != Some(EcnSetting::Accecn) => {
                return Err(invalid(
                    format!("{at}.ecn"),
                    format!(
                        "{}, but cc = \"{}\" needs Accurate ECN feedback (expected \"accecn\")",
                        s.map_or("left out".to_string(), |s| format!("\"{}\"", s.name())),
                        a.name()
                    ),
                ))
            }
            _ => {}
        }
        if self.cwr_reduction == Some(CwrReduction::Prr) && self.profile == Some(Profile::Ns2) {
            return Err(invalid(
                format!("{at}.cwr_reduction"),
                "\"prr\" is not modelled by the ns2 profile's agents (expected \"immediate\")",
            ));
        }
        if self.ecn_receiver.is_some() && self.profile == Some(Profile::Ns2) {
            return Err(invalid(
                format!("{at}.ecn_receiver"),
                "not an option of the ns2 profile: its sinks always answer the SYN's ECE, as ns-2's TCPSink does (leave ecn_receiver out)",
            ));
        }
        if self.handshake {
            if self.profile == Some(Profile::Ns2) {
                return Err(invalid(
                    format!("{at}.handshake"),
                    "true is not modelled by the ns2 profile's agents (expected false)",
                ));
            }
            if self.estimator() != Estimator::Rfc6298 {
                return Err(invalid(
                    format!("{at}.handshake"),
                    "true needs rto_estimator = \"rfc6298\" (RFC 6298 Sec. 5.7's fallback) (expected false, or rto_estimator = \"rfc6298\")",
                ));
            }
        }
        Ok(())
    }
}
