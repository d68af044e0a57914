//! A flow's `ecn` and `ecn_receiver` keys: Explicit Congestion Notification (RFC 3168) as the
//! endpoints use it (`tcp/ecn.rs`), what "negotiated" means without a handshake, and the checks
//! of where it cannot apply.

use super::super::invalid;
use super::{FlowSpec, Profile};
use crate::error::Error;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Explicit Congestion Notification for a flow (`ecn`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EcnSetting {
    /// No ECN: every packet Not-ECT, no ECE or CWR.
    Off,
    /// RFC 3168: new data ECT(0), the receiver echoes CE with ECE until CWR, the sender
    /// reduces once per window of data.
    Classic,
}

impl EcnSetting {
    pub fn name(self) -> &'static str {
        match self {
            EcnSetting::Off => "off",
            EcnSetting::Classic => "classic",
        }
    }
}

impl FlowSpec {
    /// Does the sender ask for ECN (`ecn = "classic"`, or a controller that needs it)?
    pub fn ecn_requested(&self) -> bool {
        self.ecn == Some(EcnSetting::Classic) || self.algorithm().needs_ecn()
    }

    /// Is ECN in use: asked for by the sender and accepted by the receiver (RFC 3168
    /// Sec. 6.1.1's negotiation, by the configuration of both ends)?
    pub fn ecn_in_use(&self) -> bool {
        self.ecn_requested() && self.ecn_receiver.unwrap_or(true)
    }

    /// ECN's checks: a profile and a controller that can do it.
    pub(super) fn validate_ecn(&self, at: &str) -> Result<(), Error> {
        let a = self.algorithm();
        match self.ecn {
            Some(EcnSetting::Classic) if self.profile == Some(Profile::Ns2) => Err(invalid(
                format!("{at}.ecn"),
                "\"classic\" is not modelled by the ns2 profile's agents (expected \"off\")",
            )),
            Some(EcnSetting::Classic) if !a.ecn_capable() => Err(invalid(
                format!("{at}.ecn"),
                format!(
                    "\"classic\" needs a congestion window to reduce, and cc = \"{}\" has none (expected \"off\", or a cc with a window)",
                    a.name()
                ),
            )),
            Some(EcnSetting::Off) if a.needs_ecn() => Err(invalid(
                format!("{at}.ecn"),
                format!(
                    "\"off\", but cc = \"{}\" needs ECN (expected \"classic\", or leave ecn out)",
                    a.name()
                ),
            )),
            _ => Ok(()),
        }
    }
}
