//! The flows of a scenario: TCP variant (its loss recovery) and congestion control, each with
//! its own options (`flow/tcp.rs`, `flow/cc.rs`), ACK policy, segment size, windows and timers.

mod cc;
mod ecn;
mod tcp;

pub use cc::{Algorithm, CcOptions, CcSpec, CubicStyle, HyStart, SsthreshRule, WindowGrowth, MAX_U};
pub use ecn::{CwrReduction, EcnReceiver, EcnSetting};
pub use tcp::{PartialAckTimer, TcpSpec, Variant};

use super::{invalid, zero_duration, Window};
use crate::error::Error;
use crate::time::{Duration, SimTime, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

/// What an ACK that advances snd_una counts for the window's growth (`ack_counting`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AckCounting {
    /// The cumulative ACK's advance, SACKed bytes included (RFC 5681's "bytes acknowledged").
    #[default]
    Cumulative,
    /// The bytes newly delivered: the advance less what was already SACKed, plus what this
    /// ACK newly SACKs (Linux's `tcp_newly_delivered`, ns-3's `currentDelivered`).
    Delivered,
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
    /// Linux 6.x: quick ACKs at the start and after idle, every second full segment, a
    /// delayed-ACK timeout adapting between 40 and 200 ms (docs/tcp-family.md).
    Linux,
}

impl AckKind {
    pub fn name(self) -> &'static str {
        match self {
            AckKind::Immediate => "immediate",
            AckKind::Delayed => "delayed",
            AckKind::Bsd43 => "bsd43",
            AckKind::Every => "every",
            AckKind::Linux => "linux",
        }
    }
}

/// One TCP connection: a bulk sender and its receiver.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// How many flows this table stands for (default 1): copies with consecutive indices,
    /// each with its own random streams ("flow:<index>:start", ...) and, in a dumbbell or a
    /// parking lot, its own access links; on a graph they share the table's endpoints. 0
    /// leaves the table out (a sweep axis can switch a group of flows off).
    #[serde(default = "one_flow", skip_serializing_if = "is_one_flow")]
    pub count: u32,
    /// The TCP variant, which names its loss recovery: "reno", or a table with the recovery's
    /// options, { variant = "newreno", partial_deflation = false }.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// The congestion control: "aimd" (default; "none" for tcp = "bsd43"), or a table with
    /// its options, { algorithm = "aimd", d = 0.7, u = 1 }.
    #[serde(default)]
    pub cc: Option<CcSpec>,
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
    /// The receiver reports duplicate segments in D-SACK blocks (RFC 2883); needs a SACK
    /// receiver (default false).
    #[serde(default)]
    pub dsack: bool,
    /// With ack = "every": segments per ACK.
    #[serde(default)]
    pub ack_every: Option<u32>,
    /// RFC 3042 limited transmit.
    #[serde(default)]
    pub limited_transmit: bool,
    /// F-RTO (RFC 5682: Sec. 2.1, or Sec. 3 with `sack`): after a timeout, send new data on
    /// the first ACK that advances; if the next ACK acknowledges data never retransmitted the
    /// timeout was spurious and the window is restored (default false).
    #[serde(default)]
    pub frto: bool,
    /// Retransmitting the first unacknowledged segment restarts the retransmission timer with
    /// the full RTO, as Linux does (`tcp_xmit_retransmit_queue`); RFC 6298 restarts it only on
    /// an ACK of new data (Sec. 5.3), so a lost fast retransmission times out one RTO after the
    /// last new ACK rather than one RTO after it was sent (default false).
    #[serde(default)]
    pub rto_restart_on_retransmit: bool,
    /// What an ACK of new data counts for the congestion control's growth: `cumulative` (the
    /// default) or `delivered`, which leaves out bytes already SACKed, as Linux and ns-3 do
    /// (docs/tcp-family.md).
    #[serde(default)]
    pub ack_counting: AckCounting,
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
    /// Delayed-ACK timer (used with ack = "delayed" and "every").
    #[serde(default = "default_delack")]
    pub delack_timeout: Duration,
    /// "ns2": ns-2's one-way agents and sinks in packet units instead of the native senders
    /// (tcp = tahoe, reno, newreno, sack, fack or sackrh; window_ = rwnd / mss packets, windowInit_ =
    /// initial_window, tcpTick_ = clock_tick, boot_time_ = clock_phase, singledup_ =
    /// limited_transmit; one ACK per packet). See docs/ns2-profile.md.
    /// "linux": the native endpoints with every default of Linux 6.6 (each field given
    /// overrides its own; docs/tcp-family.md lists them).
    #[serde(default)]
    pub profile: Option<Profile>,
    /// ns-2 Sack1's partial_ack_ (profile = "ns2", tcp = "sack" only).
    #[serde(default)]
    pub partial_ack: Option<bool>,
    /// Explicit Congestion Notification: "off" (default), "classic" (RFC 3168) or "accecn"
    /// (Accurate ECN, RFC 9768); docs/tcp-family.md. cc = "dctcp" uses it whatever this says
    /// (Linux's TCP_CONG_NEEDS_ECN; classic if left out), cc = "prague" needs "accecn".
    /// Without `handshake` ECN is in use when the sender asks for it and the receiver
    /// accepts it (`ecn_receiver`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<EcnSetting>,
    /// What the receiver accepts: true (default: whatever the sender asks, as Linux's
    /// net.ipv4.tcp_ecn = 2 does for classic ECN), false (a receiver without ECN: the
    /// negotiation fails, RFC 3168 Sec. 6.1.1, and the flow's packets are Not-ECT), or the
    /// most it supports: "off", "classic" (an AccECN request gets classic ECN, RFC 9768
    /// Sec. 3.1.1) or "accecn".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_receiver: Option<EcnReceiver>,
    /// How the response to ECE lowers cwnd to the new ssthresh: "immediate" (default: at
    /// once) or "prr" (over the round trip by Proportional Rate Reduction, as Linux's CWR
    /// state; the linux profile's); no effect without ECN or with a controller that sets its
    /// own window (bbr, prague). docs/tcp-family.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwr_reduction: Option<CwrReduction>,
    /// The SYN / SYN-ACK / ACK exchange before the data, with its own retransmission timer and
    /// ECN's negotiation (`tcp/handshake.rs`); default false: the sender starts with data and
    /// the configuration of both ends decides ECN.
    #[serde(default, skip_serializing_if = "is_false")]
    pub handshake: bool,
}

/// The table key that names the algorithm of a flow key with a short form (`tcp = "reno"` is
/// `tcp = { variant = "reno" }`, `cc = "aimd"` is `cc = { algorithm = "aimd" }`).
pub(crate) fn short_form_tag(key: &str) -> Option<&'static str> {
    match key {
        "tcp" => Some("variant"),
        "cc" => Some("algorithm"),
        _ => None,
    }
}

/// Where a flow option of earlier releases went, for the error that names an unknown field
/// at `path` (a flow's, "flows[0].ssthresh_rule" or "traffic[1].tcp.abc_limit").
pub(crate) fn moved_option(path: &str) -> Option<String> {
    let (flow, key) = path.rsplit_once('.')?;
    let is_flow = (flow.starts_with("flows[") && flow.ends_with(']'))
        || (flow.starts_with("traffic[") && flow.ends_with("].tcp"));
    let now = match key {
        "window_growth" => "cc.growth",
        "abc_limit" => "cc.abc_limit",
        "ssthresh_rule" => "cc.ssthresh_rule",
        "partial_deflation" => "tcp.partial_deflation, with tcp.variant = \"newreno\"",
        "partial_ack_timer" => "tcp.partial_ack_timer, with tcp.variant = \"newreno\"",
        "recover_guard" => "tcp.guard, with tcp.variant = \"reno\"",
        _ => return None,
    };
    is_flow.then(|| format!("{flow}.{now}"))
}

/// An alternative implementation of the flow's endpoints.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// ns-2's one-way TCP agents (tcp/ns2).
    Ns2,
    /// The native endpoints with Linux 6.6's defaults, field by field (`linux_defaults`).
    Linux,
}

/// `profile = "linux"`: the defaults of Linux 6.6 (net.ipv4 sysctls at their defaults) for
/// every flow field the table leaves out. Applied to the document before it is read, so a
/// field given (in the file or by `--set`) overrides its own default and nothing else; a `tcp`
/// or `cc` table without some of its options gets the profile's for them when it names the
/// profile's variant (sack) or algorithm (cubic). Sources: docs/tcp-family.md.
pub(crate) fn linux_defaults(flow: &mut toml::Table) {
    use toml::Value;
    if flow.get("profile").and_then(Value::as_str) != Some("linux") {
        return;
    }
    let s = |x: &str| Value::String(x.into());
    let defaults: [(&str, Value); 16] = [
        ("mss", Value::Integer(1448)),
        ("timestamps", Value::Boolean(true)),
        ("initial_window", Value::Integer(10)),
        ("initial_rto", s("1s")),
        ("min_rto", s("200ms")),
        ("rto_granularity", s("200ms")),
        ("max_rto", s("120s")),
        ("ack", s("linux")),
        ("sack", Value::Boolean(true)),
        ("dsack", Value::Boolean(true)),
        ("limited_transmit", Value::Boolean(true)),
        ("idle_restart", Value::Boolean(true)),
        ("dupthresh", Value::Integer(3)),
        ("frto", Value::Boolean(true)),
        ("rto_restart_on_retransmit", Value::Boolean(true)),
        // tcp_ack hands tcp_newly_delivered's count (what the ACK newly acknowledged or
        // SACKed) to tcp_cong_control and so to the controller's cong_avoid.
        ("ack_counting", s("delivered")),
    ];
    for (k, v) in defaults {
        flow.entry(k).or_insert(v);
    }
    // Short forms become tables so that the options can be filled in.
    let table = |v: &mut Value, tag: &str| {
        if let Value::String(name) = v {
            *v = Value::Table(toml::Table::from_iter([(
                tag.to_string(),
                Value::String(name.clone()),
            )]));
        }
    };
    let tcp = flow
        .entry("tcp")
        .or_insert_with(|| Value::Table(toml::Table::new()));
    table(tcp, "variant");
    if let Value::Table(t) = tcp {
        t.entry("variant").or_insert(s("sack"));
        if t.get("variant").and_then(Value::as_str) == Some("sack") {
            t.entry("prr").or_insert(Value::Boolean(true));
            t.entry("rack").or_insert(Value::Boolean(true));
        }
    }
    let cc = flow
        .entry("cc")
        .or_insert_with(|| Value::Table(toml::Table::new()));
    table(cc, "algorithm");
    if let Value::Table(t) = cc {
        t.entry("algorithm").or_insert(s("cubic"));
        if matches!(
            t.get("algorithm").and_then(Value::as_str),
            Some("cubic" | "aimd" | "dctcp")
        ) {
            // tcp_slow_start: cwnd += every segment acknowledged, up to ssthresh; RFC 3465's
            // limit L was removed with net.ipv4.tcp_abc in Linux 3.9 (65535 stands for none).
            t.entry("growth").or_insert(s("abc"));
            if t.get("growth").and_then(Value::as_str) == Some("abc") {
                t.entry("abc_limit").or_insert(Value::Integer(65535));
            }
        }
        if t.get("algorithm").and_then(Value::as_str) == Some("cubic") {
            // tcp_cubic.c: module parameter hystart = 1 (hystart_detect = 3).
            t.entry("hystart").or_insert(s("linux"));
            // tcp_cubic.c's bictcp_update rather than RFC 9438's avoidance.
            t.entry("style").or_insert(s("linux"));
            if t.get("style").and_then(Value::as_str) == Some("linux") {
                // CONFIG_HZ = 250, Kconfig.hz's default: the jiffies of bictcp_update.
                t.entry("hz").or_insert(Value::Integer(250));
            }
        }
    }
    // net.ipv4.tcp_ecn = 2 (the default): ECN when the peer asks, never asked for, so the
    // sender does not use it and the receiver accepts it; a controller that needs ECN (DCTCP)
    // asks whatever the sysctl says.
    let needs_ecn = match flow.get("cc") {
        Some(Value::Table(t)) => matches!(
            t.get("algorithm").and_then(Value::as_str),
            Some("dctcp" | "prague")
        ),
        _ => false,
    };
    if !needs_ecn {
        flow.entry("ecn").or_insert(s("off"));
    }
    flow.entry("ecn_receiver").or_insert(Value::Boolean(true));
    // tcp_enter_cwr: ECE enters the CWR state, whose reduction is PRR (tcp_cwnd_reduction).
    flow.entry("cwr_reduction").or_insert(s("prr"));
}

fn start_at_zero() -> Window {
    Window::At(zero_duration())
}

fn yes() -> bool {
    true
}
// serde's `skip_serializing_if` passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_false(b: &bool) -> bool {
    !*b
}
fn default_dupthresh() -> u32 {
    3
}

fn default_ack() -> AckKind {
    AckKind::Delayed
}
pub(crate) fn default_mss() -> u32 {
    1460
}
fn default_iw() -> u32 {
    1
}
fn one_flow() -> u32 {
    1
}
// serde's `skip_serializing_if` passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_one_flow(n: &u32) -> bool {
    *n == 1
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
        if let Some(h) = self.header_bytes {
            let most = 65_535 - self.mss;
            if !(20..=most).contains(&h) {
                return Err(invalid(
                    format!("{at}.header_bytes"),
                    format!(
                        "{h} (expected 20 to {most} bytes: at least a TCP header, and a packet of mss {} + header_bytes at most 65,535 bytes)",
                        self.mss
                    ),
                ));
            }
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
        self.validate_timer(at)?;
        if self.ack == AckKind::Delayed && self.delack_timeout.0 == SimTime::ZERO {
            return Err(invalid(
                format!("{at}.delack_timeout"),
                "0 (expected > 0 for ack = \"delayed\")",
            ));
        }
        Ok(())
    }

    /// The retransmission timer's bounds. A timer that may be armed for less than
    /// `MIN_TIMEOUT` re-arms at (almost) the instant it fires: a run of 0-length timeouts never
    /// advances the clock, and one of 1 ns timeouts takes 1e9 events per simulated second.
    fn validate_timer(&self, at: &str) -> Result<(), Error> {
        let floor = super::budget::MIN_TIMEOUT;
        for (name, value) in [("initial_rto", self.initial_rto), ("max_rto", self.max_rto)] {
            if value.0 < floor {
                return Err(invalid(
                    format!("{at}.{name}"),
                    format!("{} (expected at least {floor}: the retransmission timer would fire over and over without the clock advancing)", value.0),
                ));
            }
        }
        // The smallest timeout the estimator can compute: its lower bound, or the clock's
        // resolution (RFC 6298's G, a coarse clock's tick: Jacobson88 counts whole ticks, and
        // ns-2's agent waits at least 2 ticks, `TcpAgent::rtt_timeout`).
        let (what, setting, resolution) = if self.profile == Some(Profile::Ns2) {
            let tick = self.clock_tick.map_or(SimTime::from_ms(10), |t| t.0);
            ("clock_tick", tick, SimTime(tick.ns().saturating_mul(2)))
        } else if self.estimator() == Estimator::Rfc6298 {
            let g = self.rto_granularity.0;
            ("rto_granularity", g, g)
        } else {
            // BSD's slow timer, the coarse estimators' default tick (`tcp::BSD_SLOW_TICK`).
            let tick = self.clock_tick.map_or(SimTime::from_ms(500), |t| t.0);
            ("clock_tick", tick, tick)
        };
        let shortest = self.min_rto.0.max(resolution);
        if shortest < floor {
            return Err(invalid(
                format!("{at}.min_rto"),
                format!(
                    "{} with {what} {setting} lets the retransmission timer fire every {shortest} (expected min_rto >= {floor}, or {what} >= {floor})",
                    self.min_rto.0
                ),
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
        let v = self.tcp.variant.name();
        if self.profile == Some(Profile::Ns2) {
            self.validate_ns2(at)?;
        } else {
            // The loss recovery's options, then the congestion control's.
            self.tcp.validate(at)?;
            if let Some(cc) = &self.cc {
                cc.validate(at, self.algorithm())?;
            }
        }
        self.validate_ecn(at)?;
        if self.partial_ack.is_some()
            && (self.profile != Some(Profile::Ns2) || self.tcp.variant != Variant::Sack)
        {
            return Err(invalid(
                format!("{at}.partial_ack"),
                "applies only with profile = \"ns2\" and tcp = \"sack\"",
            ));
        }
        if !self.tcp.variant.fast_retransmit() && self.limited_transmit {
            return Err(invalid(
                format!("{at}.limited_transmit"),
                format!("does not apply to tcp = \"{v}\" (allowed with a variant that has fast retransmit)"),
            ));
        }
        if self.dsack && !self.sack_receiver() {
            return Err(invalid(
                format!("{at}.dsack"),
                "true, but the receiver sends no SACK blocks (expected sack = true, or dsack = false)",
            ));
        }
        self.tcp.validate_values(at, self.sack)?;
        if self.tcp.variant.uses_sack() && self.sack == Some(false) {
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
        if self.dupthresh == 0 {
            return Err(invalid(
                format!("{at}.dupthresh"),
                "0 (expected at least 1 duplicate ACK)",
            ));
        }
        let est = self.estimator();
        if est == Estimator::Rfc6298 && self.clock_tick.is_some() && self.profile != Some(Profile::Ns2) {
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

    /// What the ns2 profile does not model: its agents have ns-2's own window and recovery
    /// rules, so neither a recovery option nor `cc` applies.
    fn validate_ns2(&self, at: &str) -> Result<(), Error> {
        let v = self.tcp.variant.name();
        if self.tcp.variant.ns2_agent().is_none() {
            let mut modelled: Vec<&str> = Variant::ALL
                .iter()
                .filter(|m| m.ns2_agent().is_some())
                .map(|m| m.name())
                .collect();
            let last = modelled.pop().unwrap_or_default();
            return Err(invalid(
                format!("{at}.tcp"),
                format!(
                    "\"{v}\" has no ns2 profile model (expected {} or {last})",
                    modelled.join(", ")
                ),
            ));
        }
        if let Some(k) = self.tcp.options_given().next() {
            return Err(invalid(
                format!("{at}.tcp.{k}"),
                "not an option of the ns2 profile's agents (they follow ns-2; partial_ack is theirs)",
            ));
        }
        if self.cc.is_some() {
            return Err(invalid(
                format!("{at}.cc"),
                "the ns2 profile's agents have ns-2's own window rules (leave cc out)",
            ));
        }
        if self.dsack {
            return Err(invalid(
                format!("{at}.dsack"),
                "the ns2 profile's sinks send no D-SACK blocks (leave dsack out)",
            ));
        }
        if self.frto {
            return Err(invalid(
                format!("{at}.frto"),
                "ns-2's default agents have no F-RTO (leave frto out)",
            ));
        }
        if self.ack_counting != AckCounting::Cumulative {
            return Err(invalid(
                format!("{at}.ack_counting"),
                "the ns2 profile's agents count ACKs in packets (leave ack_counting out)",
            ));
        }
        if self.rto_restart_on_retransmit {
            return Err(invalid(
                format!("{at}.rto_restart_on_retransmit"),
                "the ns2 profile's agents keep ns-2's own timer rules (leave rto_restart_on_retransmit out)",
            ));
        }
        if self.ack != AckKind::Immediate {
            return Err(invalid(
                format!("{at}.ack"),
                "the ns2 profile's sinks (TCPSink, TCPSink/Sack1) ACK every packet (expected \"immediate\")",
            ));
        }
        if self.timestamps {
            return Err(invalid(
                format!("{at}.timestamps"),
                "the ns2 profile models ns-2's default agents, without the timestamp option",
            ));
        }
        if self.bytes.is_some() {
            return Err(invalid(
                format!("{at}.bytes"),
                "the ns2 profile models ns-2's FTP source: unlimited data (leave bytes out)",
            ));
        }
        Ok(())
    }

    /// The congestion control in force: `cc`'s algorithm, or the variant's default (none for
    /// bsd43, which had no congestion window; aimd for the others).
    pub fn algorithm(&self) -> Algorithm {
        match self.cc.as_ref().and_then(|c| c.algorithm) {
            Some(a) => a,
            None if self.tcp.variant.before_1988() => Algorithm::None,
            None => Algorithm::DEFAULT,
        }
    }

    /// The estimator in force (explicit, or the variant's default).
    pub fn estimator(&self) -> Estimator {
        self.rto_estimator.unwrap_or(if self.tcp.variant.before_1988() {
            Estimator::Rfc793
        } else {
            Estimator::Rfc6298
        })
    }

    /// Does the receiver send SACK blocks?
    pub fn sack_receiver(&self) -> bool {
        self.sack.unwrap_or(self.tcp.variant.uses_sack())
    }
}
