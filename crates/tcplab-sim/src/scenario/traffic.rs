//! Background traffic of a scenario (`[[traffic]]`): groups of identical sources whose results
//! are reported in aggregate, unlike the foreground `[[flows]]`, which are reported one by one.
//!
//! - `ftp`: long-lived TCP bulk transfers.
//! - `http`: sessions of Parvez et al. 2010 Sec. IV-A: the client sends a request, the server
//!   answers with a Pareto-sized response (mean 48 KB, shape 1.2), the client thinks for an
//!   exponential time (mean 500 ms), and again.
//! - `cbr`: constant-bit-rate UDP.
//! - `on_off`: UDP sending at `rate` during Pareto on periods, silent during Pareto off periods
//!   (ns-2's POO source; shape 1.2 in Parvez et al. Sec. IV-F).

use super::{invalid, FlowSpec};
use crate::error::Error;
use crate::time::{Duration, Rate, SimTime, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TrafficKind {
    Ftp,
    Http,
    Cbr,
    OnOff,
}

impl TrafficKind {
    pub fn name(self) -> &'static str {
        match self {
            TrafficKind::Ftp => "ftp",
            TrafficKind::Http => "http",
            TrafficKind::Cbr => "cbr",
            TrafficKind::OnOff => "on_off",
        }
    }
    pub fn is_tcp(self) -> bool {
        matches!(self, TrafficKind::Ftp | TrafficKind::Http)
    }
}

/// The ECN codepoint a UDP source's datagrams carry (`ecn` of a cbr or on_off group).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum UdpEcn {
    /// Not ECN-capable (the default).
    #[default]
    NotEct,
    /// ECT(0), classic ECN (RFC 3168).
    Ect0,
    /// ECT(1), the L4S identifier (RFC 9331).
    Ect1,
}

impl UdpEcn {
    pub fn codepoint(self) -> crate::net::packet::Ecn {
        use crate::net::packet::Ecn;
        match self {
            UdpEcn::NotEct => Ecn::NotEct,
            UdpEcn::Ect0 => Ecn::Ect0,
            UdpEcn::Ect1 => Ecn::Ect1,
        }
    }
}

/// A time, or a window [lo, hi] to draw it from uniformly (per source, from its own stream).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum Window {
    At(Duration),
    Uniform([Duration; 2]),
}

impl Window {
    pub fn bounds(self) -> (SimTime, SimTime) {
        match self {
            Window::At(d) => (d.0, d.0),
            Window::Uniform([a, b]) => (a.0, b.0),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrafficSpec {
    pub kind: TrafficKind,
    /// Group name (default "<kind><index>"): names its random streams and its results row.
    #[serde(default)]
    pub name: Option<String>,
    /// Number of sources in the group.
    #[serde(default = "one")]
    pub count: u32,
    /// Start time of each source, or a window to draw it from (default 0).
    #[serde(default)]
    pub start: Option<Window>,
    /// Node of the data sender (the HTTP server), by name; with `to`, places every source there.
    #[serde(default)]
    pub from: Option<String>,
    /// Node of the data receiver (the HTTP client).
    #[serde(default)]
    pub to: Option<String>,
    /// Dumbbell or parking lot: the one bottleneck (0-based) the sources cross (default: all).
    #[serde(default)]
    pub bottleneck: Option<u32>,
    /// Dumbbell or parking lot: round-trip propagation delay of each source, or a window to
    /// draw it from (default: the access delays).
    #[serde(default)]
    pub rtt: Option<Window>,
    /// Dumbbell or parking lot: data flows from the receivers' side back to the senders' side
    /// (loading the ACK direction of the foreground flows).
    #[serde(default)]
    pub reverse: bool,
    /// TCP settings of ftp and http sources (default: the [[flows]] defaults).
    #[serde(default)]
    pub tcp: Option<FlowSpec>,
    /// http: mean response size (default 48KB) and Pareto shape (default 1.2).
    #[serde(default)]
    pub response_mean: Option<Size>,
    #[serde(default)]
    pub response_shape: Option<f64>,
    /// http: responses are truncated to this size (default: not truncated, up to 1 TB).
    #[serde(default)]
    pub response_max: Option<Size>,
    /// http: mean of the exponential think time (default 500ms).
    #[serde(default)]
    pub think_mean: Option<Duration>,
    /// http: request size in payload bytes (default 200: one packet).
    #[serde(default)]
    pub request: Option<Size>,
    /// cbr, on_off: sending rate (during on periods).
    #[serde(default)]
    pub rate: Option<Rate>,
    /// cbr, on_off: datagram size on the wire (default 1000 bytes).
    #[serde(default)]
    pub packet: Option<Size>,
    /// on_off: means of the Pareto on and off periods.
    #[serde(default)]
    pub on_mean: Option<Duration>,
    #[serde(default)]
    pub off_mean: Option<Duration>,
    /// on_off: Pareto shape of both periods (default 1.2).
    #[serde(default)]
    pub shape: Option<f64>,
    /// cbr, on_off: the ECN codepoint of the datagrams, "not_ect" (default), "ect0" or
    /// "ect1": a marking queue marks them CE instead of dropping them (they do not react).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<UdpEcn>,
}

fn one() -> u32 {
    1
}

pub const DEFAULT_RESPONSE_MEAN: u64 = 48_000;
pub const DEFAULT_SHAPE: f64 = 1.2;
pub const DEFAULT_THINK_MS: u64 = 500;
pub const DEFAULT_REQUEST: u64 = 200;
pub const DEFAULT_PACKET: u64 = 1000;
/// Largest response drawn (a Pareto draw can be astronomically large).
pub const MAX_RESPONSE: u64 = 1 << 40;

impl TrafficSpec {
    pub fn name(&self, index: usize) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("{}{index}", self.kind.name()))
    }

    pub(crate) fn validate(&self, at: &str) -> Result<(), Error> {
        let kind = self.kind.name();
        let allowed: &[&str] = match self.kind {
            TrafficKind::Ftp => &["tcp"],
            TrafficKind::Http => &[
                "tcp",
                "response_mean",
                "response_shape",
                "response_max",
                "think_mean",
                "request",
            ],
            TrafficKind::Cbr => &["rate", "packet", "ecn"],
            TrafficKind::OnOff => &["rate", "packet", "on_mean", "off_mean", "shape", "ecn"],
        };
        let set = [
            ("tcp", self.tcp.is_some()),
            ("response_mean", self.response_mean.is_some()),
            ("response_shape", self.response_shape.is_some()),
            ("response_max", self.response_max.is_some()),
            ("think_mean", self.think_mean.is_some()),
            ("request", self.request.is_some()),
            ("rate", self.rate.is_some()),
            ("packet", self.packet.is_some()),
            ("on_mean", self.on_mean.is_some()),
            ("off_mean", self.off_mean.is_some()),
            ("shape", self.shape.is_some()),
            ("ecn", self.ecn.is_some()),
        ];
        if let Some((f, _)) = set.iter().find(|(f, s)| *s && !allowed.contains(f)) {
            return Err(invalid(
                format!("{at}.{f}"),
                format!(
                    "does not apply to kind \"{kind}\" (expected {})",
                    allowed.join(", ")
                ),
            ));
        }
        if self.count == 0 {
            return Err(invalid(format!("{at}.count"), "0 sources (expected at least 1)"));
        }
        if let Some(n) = &self.name {
            if n.is_empty() || n.contains(['.', ':']) {
                return Err(invalid(
                    format!("{at}.name"),
                    format!("{n:?} (expected a non-empty name without '.' or ':')"),
                ));
            }
        }
        for (f, w) in [("start", self.start), ("rtt", self.rtt)] {
            if let Some(w) = w {
                let (a, b) = w.bounds();
                if a > b {
                    return Err(invalid(
                        format!("{at}.{f}"),
                        format!("[{a}, {b}] is not a window (expected lo <= hi)"),
                    ));
                }
            }
        }
        if self.from.is_some() != self.to.is_some() {
            return Err(invalid(
                format!("{at}.{}", if self.from.is_some() { "to" } else { "from" }),
                "missing (expected both from and to, or neither)",
            ));
        }
        if let Some(t) = &self.tcp {
            t.validate(&format!("{at}.tcp"))?;
            if t.count != 1 {
                return Err(invalid(
                    format!("{at}.tcp.count"),
                    format!(
                        "{} (a group's size is its own count: expected {at}.count instead)",
                        t.count
                    ),
                ));
            }
            if t.profile == Some(super::flow::Profile::Ns2) && self.kind == TrafficKind::Http {
                return Err(invalid(
                    format!("{at}.tcp.profile"),
                    "the ns2 profile models ns-2's FTP agents, which cannot wait for an application's \
                     requests (expected it only with kind = \"ftp\")",
                ));
            }
            if t.bytes.is_some() {
                return Err(invalid(
                    format!("{at}.tcp.bytes"),
                    format!(
                        "does not apply to kind \"{kind}\" (ftp sends forever, http draws response sizes)"
                    ),
                ));
            }
        }
        let shape = |f: &str, v: Option<f64>| -> Result<(), Error> {
            match v {
                Some(s) if !(s > 1.0 && s.is_finite()) => Err(invalid(
                    format!("{at}.{f}"),
                    format!("{s} (expected a Pareto shape > 1, so that the mean exists)"),
                )),
                _ => Ok(()),
            }
        };
        match self.kind {
            TrafficKind::Ftp => {}
            TrafficKind::Http => {
                shape("response_shape", self.response_shape)?;
                if self.response_mean.is_some_and(|s| s.0 == 0) {
                    return Err(invalid(format!("{at}.response_mean"), "0 bytes (expected > 0)"));
                }
                if self.response_max.is_some_and(|s| s.0 == 0) {
                    return Err(invalid(format!("{at}.response_max"), "0 bytes (expected > 0)"));
                }
                if self.request.is_some_and(|s| s.0 == 0) {
                    return Err(invalid(format!("{at}.request"), "0 bytes (expected > 0)"));
                }
            }
            TrafficKind::Cbr | TrafficKind::OnOff => {
                match self.rate {
                    None => {
                        return Err(invalid(
                            format!("{at}.rate"),
                            format!("missing (expected a rate for kind \"{kind}\")"),
                        ))
                    }
                    Some(r) if r.0 == 0 => {
                        return Err(invalid(format!("{at}.rate"), "0 bit/s (expected > 0)"))
                    }
                    _ => {}
                }
                if let Some(p) = self.packet {
                    if !(1..=65535).contains(&p.0) {
                        return Err(invalid(
                            format!("{at}.packet"),
                            format!("{} bytes (expected 1..=65535)", p.0),
                        ));
                    }
                }
                if self.kind == TrafficKind::OnOff {
                    shape("shape", self.shape)?;
                    for (f, v) in [("on_mean", self.on_mean), ("off_mean", self.off_mean)] {
                        match v {
                            None => {
                                return Err(invalid(
                                    format!("{at}.{f}"),
                                    "missing (expected a mean period for kind \"on_off\")",
                                ))
                            }
                            Some(d) if d.0 == SimTime::ZERO => {
                                return Err(invalid(format!("{at}.{f}"), "0 (expected > 0)"))
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
