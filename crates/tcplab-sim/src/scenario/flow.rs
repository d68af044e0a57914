//! The flows of a scenario: TCP variant, ACK policy, segment size, windows and timers.

use super::{invalid, zero_duration};
use crate::error::Error;
use crate::time::{Duration, SimTime, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    Tahoe,
    Reno,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Tahoe => "tahoe",
            Variant::Reno => "reno",
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AckKind {
    /// An ACK for every segment.
    Immediate,
    /// RFC 1122 delayed ACKs: every second segment or after `delack_timeout`.
    Delayed,
}

impl AckKind {
    pub fn name(self) -> &'static str {
        match self {
            AckKind::Immediate => "immediate",
            AckKind::Delayed => "delayed",
        }
    }
}

/// One TCP connection: a bulk sender and its receiver.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// The sender variant.
    #[serde(default = "default_variant")]
    pub tcp: Variant,
    /// The receiver's ACK policy.
    #[serde(default = "default_ack")]
    pub ack: AckKind,
    /// Maximum segment size (payload bytes).
    #[serde(default = "default_mss")]
    pub mss: u32,
    /// Header bytes on the wire per packet (default 40, or 52 with timestamps).
    #[serde(default)]
    pub header_bytes: Option<u32>,
    /// RFC 7323 timestamps: RTT measured on every ACK.
    #[serde(default)]
    pub timestamps: bool,
    /// Initial congestion window, segments.
    #[serde(default = "default_iw")]
    pub initial_window: u32,
    /// Initial slow-start threshold (default: unlimited).
    #[serde(default)]
    pub initial_ssthresh: Option<Size>,
    /// Receiver's advertised window.
    #[serde(default = "default_rwnd")]
    pub rwnd: Size,
    /// Bytes to transfer (default: unlimited bulk transfer).
    #[serde(default)]
    pub bytes: Option<Size>,
    /// When the flow starts.
    #[serde(default = "zero_duration")]
    pub start: Duration,
    #[serde(default = "default_initial_rto")]
    pub initial_rto: Duration,
    /// RFC 6298 (2.4) lower bound of the RTO.
    #[serde(default = "default_min_rto")]
    pub min_rto: Duration,
    #[serde(default = "default_max_rto")]
    pub max_rto: Duration,
    /// Clock granularity G of RFC 6298.
    #[serde(default = "zero_duration")]
    pub rto_granularity: Duration,
    /// Delayed-ACK timer (used with ack = "delayed").
    #[serde(default = "default_delack")]
    pub delack_timeout: Duration,
}

fn default_variant() -> Variant {
    Variant::Reno
}
fn default_ack() -> AckKind {
    AckKind::Delayed
}
fn default_mss() -> u32 {
    1460
}
fn default_iw() -> u32 {
    1
}
fn default_rwnd() -> Size {
    Size(64 << 20)
}
fn default_initial_rto() -> Duration {
    Duration(SimTime::from_secs(1))
}
fn default_min_rto() -> Duration {
    Duration(SimTime::from_secs(1))
}
fn default_max_rto() -> Duration {
    Duration(SimTime::from_secs(60))
}
fn default_delack() -> Duration {
    Duration(SimTime::from_ms(200))
}

impl FlowSpec {
    pub(crate) fn validate(&self, at: &str) -> Result<(), Error> {
        if !(1..=65495).contains(&self.mss) {
            return Err(invalid(
                format!("{at}.mss"),
                format!(
                    "{} is not a valid segment size (expected 1..=65495 bytes)",
                    self.mss
                ),
            ));
        }
        if self.initial_window == 0 {
            return Err(invalid(
                format!("{at}.initial_window"),
                "0 segments (expected at least 1)",
            ));
        }
        if self.rwnd.0 < self.mss as u64 {
            return Err(invalid(
                format!("{at}.rwnd"),
                format!(
                    "{} bytes is less than one segment (expected >= mss = {})",
                    self.rwnd.0, self.mss
                ),
            ));
        }
        if let Some(Size(0)) = self.bytes {
            return Err(invalid(
                format!("{at}.bytes"),
                "0 bytes (expected > 0, or leave it out for an unlimited transfer)",
            ));
        }
        if self.min_rto.0 > self.max_rto.0 {
            return Err(invalid(
                format!("{at}.min_rto"),
                format!(
                    "{} is above max_rto {} (expected min_rto <= max_rto)",
                    self.min_rto.0, self.max_rto.0
                ),
            ));
        }
        if self.min_rto.0 == SimTime::ZERO && self.rto_granularity.0 == SimTime::ZERO {
            return Err(invalid(
                format!("{at}.min_rto"),
                "0 with rto_granularity 0 (expected min_rto > 0, or rto_granularity > 0)",
            ));
        }
        if self.ack == AckKind::Delayed && self.delack_timeout.0 == SimTime::ZERO {
            return Err(invalid(
                format!("{at}.delack_timeout"),
                "0 (expected > 0 for ack = \"delayed\")",
            ));
        }
        Ok(())
    }

    pub fn header(&self) -> u32 {
        self.header_bytes.unwrap_or(if self.timestamps { 52 } else { 40 })
    }
}
