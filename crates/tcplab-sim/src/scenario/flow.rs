//! The flows of a scenario: TCP variant, ACK policy, segment size, windows and timers.

use super::{invalid, zero_duration, Window};
use crate::error::Error;
use crate::time::{Duration, SimTime, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// 4.3BSD before Jacobson: no congestion window, go-back-N, RFC 793 timer.
    Bsd43,
    Tahoe,
    Reno,
    Newreno,
    /// SACK with RFC 6675 loss recovery.
    Sack,
    /// FACK with Rate-Halving (Mathis et al. 1997 App. A).
    Fack,
    /// SACK with rate halving (ns-2's SackRH).
    Sackrh,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Bsd43 => "bsd43",
            Variant::Tahoe => "tahoe",
            Variant::Reno => "reno",
            Variant::Newreno => "newreno",
            Variant::Sack => "sack",
            Variant::Fack => "fack",
            Variant::Sackrh => "sackrh",
        }
    }

    /// Does this variant use SACK information (and so need a SACK receiver)?
    pub fn uses_sack(self) -> bool {
        matches!(self, Variant::Sack | Variant::Fack | Variant::Sackrh)
    }
}

/// The retransmit-timer estimator.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Estimator {
    /// RFC 6298 on a fine clock (rto = srtt + max(G, 4 rttvar)).
    Rfc6298,
    /// Jacobson & Karels 1988 App. A: integer sa/sv on a coarse tick, rto = a + 4v.
    Jacobson88,
    /// The SIGCOMM '88 version (footnote 21): rto = a + 2v.
    Sigcomm88,
    /// RFC 793: srtt low-pass (alpha 0.9), rto = 2 srtt.
    Rfc793,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WindowGrowth {
    /// One increment per ACK (the papers' senders).
    PerAck,
    /// Appropriate Byte Counting, RFC 3465.
    Abc,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshRule {
    /// ssthresh = max(FlightSize / 2, 2 SMSS) (RFC 5681 Eq. 4).
    FlightSize,
    /// ssthresh = max(cwnd / 2, 2 SMSS).
    Cwnd,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PartialAckTimer {
    /// Restart the retransmit timer only on the first partial ACK (RFC 6582 Sec. 4).
    Impatient,
    /// Restart it on every partial ACK.
    SlowButSteady,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AckKind {
    /// An ACK for every segment.
    Immediate,
    /// RFC 1122 delayed ACKs: every second segment or after `delack_timeout`.
    Delayed,
    /// 4.3BSD: ACK when 35% of the receive window has arrived, or on the 200 ms fast timer.
    Bsd43,
    /// An ACK every `ack_every` segments (or on the delayed-ACK timer): the "buggy" receivers
    /// of Mathis et al.
    Every,
}

impl AckKind {
    pub fn name(self) -> &'static str {
        match self {
            AckKind::Immediate => "immediate",
            AckKind::Delayed => "delayed",
            AckKind::Bsd43 => "bsd43",
            AckKind::Every => "every",
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
    /// When the flow starts: a time, or a window [lo, hi] to draw it from uniformly (from the
    /// flow's own random stream, "flow:<index>:start").
    #[serde(default = "start_at_zero")]
    pub start: Window,
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
    /// The receiver sends SACK blocks (default: on for sack, fack and sackrh, off otherwise).
    #[serde(default)]
    pub sack: Option<bool>,
    /// With ack = "every": segments per ACK.
    #[serde(default)]
    pub ack_every: Option<u32>,
    /// RFC 3042 limited transmit.
    #[serde(default)]
    pub limited_transmit: bool,
    /// Window growth per ACK (the papers) or per acknowledged byte (RFC 3465).
    #[serde(default = "default_growth")]
    pub window_growth: WindowGrowth,
    /// RFC 3465's L, in segments (window_growth = "abc" only; default 2).
    #[serde(default)]
    pub abc_limit: Option<u32>,
    /// Restart from the initial window after an idle period longer than the RTO.
    #[serde(default = "yes")]
    pub idle_restart: bool,
    /// Duplicate ACKs that signal a loss.
    #[serde(default = "default_dupthresh")]
    pub dupthresh: u32,
    /// Retransmit-timer estimator (default rfc6298; rfc793 for bsd43).
    #[serde(default)]
    pub rto_estimator: Option<Estimator>,
    /// Tick of the coarse clock of jacobson88, sigcomm88 and rfc793 (default 500 ms, BSD's
    /// slow timer; 0 = fine clock for rfc793).
    #[serde(default)]
    pub clock_tick: Option<Duration>,
    /// Phase of that clock: its edges are at clock_phase + k * clock_tick.
    #[serde(default = "zero_duration")]
    pub clock_phase: Duration,
    /// Exponential backoff of the retransmit timer.
    #[serde(default = "yes")]
    pub backoff: bool,
    /// NewReno: partial window deflation (RFC 6582) or full deflation (Parvez footnote 1).
    #[serde(default)]
    pub partial_deflation: Option<bool>,
    /// NewReno: timer restart on partial ACKs.
    #[serde(default)]
    pub partial_ack_timer: Option<PartialAckTimer>,
    /// What a loss halves: RFC 5681's FlightSize (default) or cwnd (BSD, Linux, ns-2 and the
    /// papers' simulators); they differ after an inflated fast recovery.
    #[serde(default = "default_ssthresh_rule")]
    pub ssthresh_rule: SsthreshRule,
    /// Reno: refuse a second fast retransmit for the same window (ns-2's bugFix_).
    #[serde(default)]
    pub recover_guard: Option<bool>,
    /// Delayed-ACK timer (used with ack = "delayed" and "every").
    #[serde(default = "default_delack")]
    pub delack_timeout: Duration,
    /// "ns2": ns-2's one-way agents and sinks in packet units instead of the native senders
    /// (tcp = tahoe, reno, newreno, sack, fack or sackrh; window_ = rwnd / mss packets, windowInit_ =
    /// initial_window, tcpTick_ = clock_tick, boot_time_ = clock_phase, singledup_ =
    /// limited_transmit; one ACK per packet). See docs/validation/ns2-tcpVariants.md.
    #[serde(default)]
    pub profile: Option<Profile>,
    /// ns-2 Sack1's partial_ack_ (profile = "ns2", tcp = "sack" only).
    #[serde(default)]
    pub partial_ack: Option<bool>,
}

/// An alternative implementation of the flow's endpoints.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// ns-2's one-way TCP agents (tcp/ns2).
    Ns2,
}

fn default_ssthresh_rule() -> SsthreshRule {
    SsthreshRule::FlightSize
}

fn start_at_zero() -> Window {
    Window::At(zero_duration())
}

fn yes() -> bool {
    true
}
fn default_growth() -> WindowGrowth {
    WindowGrowth::PerAck
}
fn default_dupthresh() -> u32 {
    3
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
        self.validate_options(at)?;
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

    /// Options that apply only to some variants or policies.
    fn validate_options(&self, at: &str) -> Result<(), Error> {
        let (lo, hi) = self.start.bounds();
        if lo > hi {
            return Err(invalid(
                format!("{at}.start"),
                format!("[{lo}, {hi}] is not a window (expected lo <= hi)"),
            ));
        }
        let v = self.tcp.name();
        if self.profile == Some(Profile::Ns2) && self.tcp == Variant::Bsd43 {
            return Err(invalid(
                format!("{at}.tcp"),
                format!(
                    "\"{v}\" has no ns2 profile model (expected tahoe, reno, newreno, sack, fack or sackrh)"
                ),
            ));
        }
        if self.profile == Some(Profile::Ns2) && self.ack != AckKind::Immediate {
            return Err(invalid(
                format!("{at}.ack"),
                "the ns2 profile's sinks (TCPSink, TCPSink/Sack1) ACK every packet (expected \"immediate\")",
            ));
        }
        if self.profile == Some(Profile::Ns2) && self.timestamps {
            return Err(invalid(
                format!("{at}.timestamps"),
                "the ns2 profile models ns-2's default agents, without the timestamp option",
            ));
        }
        if self.profile == Some(Profile::Ns2) && self.bytes.is_some() {
            return Err(invalid(
                format!("{at}.bytes"),
                "the ns2 profile models ns-2's FTP source: unlimited data (leave bytes out)",
            ));
        }
        if self.partial_ack.is_some() && (self.profile != Some(Profile::Ns2) || self.tcp != Variant::Sack) {
            return Err(invalid(
                format!("{at}.partial_ack"),
                "applies only with profile = \"ns2\" and tcp = \"sack\"",
            ));
        }
        let only = |field: &str, allowed: &str| {
            invalid(
                format!("{at}.{field}"),
                format!("does not apply to tcp = \"{v}\" (allowed with {allowed})"),
            )
        };
        if self.tcp != Variant::Newreno {
            if self.partial_deflation.is_some() {
                return Err(only("partial_deflation", "tcp = \"newreno\""));
            }
            if self.partial_ack_timer.is_some() {
                return Err(only("partial_ack_timer", "tcp = \"newreno\""));
            }
        }
        if self.tcp != Variant::Reno && self.recover_guard.is_some() {
            return Err(only("recover_guard", "tcp = \"reno\" (the others always guard)"));
        }
        if self.tcp == Variant::Bsd43 && self.limited_transmit {
            return Err(only("limited_transmit", "a variant that has fast retransmit"));
        }
        if self.tcp.uses_sack() && self.sack == Some(false) {
            return Err(invalid(
                format!("{at}.sack"),
                format!("false, but tcp = \"{v}\" needs a SACK receiver (expected true)"),
            ));
        }
        match (self.ack, self.ack_every) {
            (AckKind::Every, None) => {
                return Err(invalid(
                    format!("{at}.ack_every"),
                    "missing (expected a number of segments >= 1 with ack = \"every\")",
                ))
            }
            (AckKind::Every, Some(0)) => {
                return Err(invalid(
                    format!("{at}.ack_every"),
                    "0 (expected a number of segments >= 1)",
                ))
            }
            (AckKind::Every, _) => {}
            (_, Some(_)) => {
                return Err(invalid(
                    format!("{at}.ack_every"),
                    format!(
                        "does not apply to ack = \"{}\" (allowed with ack = \"every\")",
                        self.ack.name()
                    ),
                ))
            }
            _ => {}
        }
        if self.window_growth != WindowGrowth::Abc && self.abc_limit.is_some() {
            return Err(invalid(
                format!("{at}.abc_limit"),
                "applies only to window_growth = \"abc\"",
            ));
        }
        if self.abc_limit == Some(0) {
            return Err(invalid(
                format!("{at}.abc_limit"),
                "0 (expected at least 1 segment)",
            ));
        }
        if self.dupthresh == 0 {
            return Err(invalid(
                format!("{at}.dupthresh"),
                "0 (expected at least 1 duplicate ACK)",
            ));
        }
        let est = self.estimator();
        if est == Estimator::Rfc6298 && self.clock_tick.is_some() && self.profile.is_none() {
            return Err(invalid(format!("{at}.clock_tick"), "applies to the coarse-clock estimators (rto_estimator = jacobson88, sigcomm88 or rfc793); rfc6298 uses rto_granularity"));
        }
        if matches!(est, Estimator::Jacobson88 | Estimator::Sigcomm88)
            && self.clock_tick.is_some_and(|t| t.0 == SimTime::ZERO)
        {
            return Err(invalid(
                format!("{at}.clock_tick"),
                "0 (expected a tick > 0 for a coarse-clock estimator)",
            ));
        }
        Ok(())
    }

    /// The estimator in force (explicit, or the variant's default).
    pub fn estimator(&self) -> Estimator {
        self.rto_estimator.unwrap_or(if self.tcp == Variant::Bsd43 {
            Estimator::Rfc793
        } else {
            Estimator::Rfc6298
        })
    }

    /// Does the receiver send SACK blocks?
    pub fn sack_receiver(&self) -> bool {
        self.sack.unwrap_or(self.tcp.uses_sack())
    }
}
