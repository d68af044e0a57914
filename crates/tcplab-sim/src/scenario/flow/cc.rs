//! A flow's `cc` key: the congestion control (`tcp/cc/`) and its own options. `cc = "aimd"`,
//! or a table: `cc = { algorithm = "aimd", d = 0.7, u = 1, growth = "abc", abc_limit = 2,
//! ssthresh_rule = "cwnd" }`. Left out, or a table without `algorithm`, it is the variant's
//! default: `aimd`, or `none` for tcp = "bsd43". So `--set flows.0.cc.d=0.7` works on its own.

use super::super::invalid;
use crate::error::Error;
use schemars::JsonSchema;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// Additive increase, multiplicative decrease (Jacobson & Karels 1988), with their d and u.
    Aimd,
    /// CUBIC (RFC 9438): W_cubic(t) = C (t - K)^3 + W_max, beta 0.7, the Reno-friendly region.
    Cubic,
    /// BBR v1 as Linux ships it (tcp_bbr.c): a model of bottleneck bandwidth and round-trip
    /// propagation time from delivery-rate samples, paced sending; no options.
    Bbr,
    /// No congestion control: the window is the receiver's (4.3BSD before Jacobson).
    None,
}

impl Algorithm {
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Aimd => "aimd",
            Algorithm::Cubic => "cubic",
            Algorithm::Bbr => "bbr",
            Algorithm::None => "none",
        }
    }

    /// The options of this algorithm.
    pub fn options(self) -> &'static [&'static str] {
        match self {
            Algorithm::Aimd => &["d", "u", "growth", "abc_limit", "ssthresh_rule"],
            Algorithm::Cubic => &[
                "beta",
                "c",
                "fast_convergence",
                "growth",
                "abc_limit",
                "hystart",
                "style",
            ],
            Algorithm::Bbr | Algorithm::None => &[],
        }
    }
}

/// Every congestion-control option, of any algorithm (for the hint when one is given to `tcp`).
pub(crate) const ALL_OPTIONS: &[&str] = &[
    "d",
    "u",
    "growth",
    "abc_limit",
    "ssthresh_rule",
    "beta",
    "c",
    "fast_convergence",
    "hystart",
    "style",
];

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WindowGrowth {
    /// One increment per ACK (the papers' senders; Jacobson & Karels App. B).
    PerAck,
    /// Appropriate Byte Counting, RFC 3465.
    Abc,
}

/// CUBIC's slow-start exit.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HyStartKind {
    /// Slow start runs until ssthresh or a loss.
    Off,
    /// HyStart as in Linux's tcp_cubic.c (ACK train and delay increase; ssthresh = cwnd).
    Linux,
    /// HyStart++ (RFC 9406): Conservative Slow Start after an RTT increase.
    Rfc9406,
}

/// Whose congestion avoidance CUBIC follows where RFC 9438 and Linux differ.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CubicStyle {
    /// RFC 9438: W_est grows by alpha_cubic until it reaches cwnd_prior, then by 1.
    Rfc9438,
    /// Linux's tcp_cubic.c (bictcp_update): the Reno-friendly estimate grows by 8/15 segment
    /// per window for ever, the cubic target at t + min RTT, whole segments.
    Linux,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshRule {
    /// ssthresh = max(d x FlightSize, 2 SMSS) (RFC 5681 Eq. 4 with d = 1/2).
    FlightSize,
    /// ssthresh = max(d x cwnd, 2 SMSS) (BSD, Linux, ns-2 and the papers' simulators).
    Cwnd,
}

/// The largest increase accepted, segments per round trip.
pub const MAX_U: f64 = 1000.0;

/// The congestion control and its options as written (None: the default).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CcSpec {
    /// None in a table without `algorithm`: the variant's default.
    pub algorithm: Option<Algorithm>,
    /// aimd: the window is multiplied by d on congestion (Jacobson & Karels 1988 Sec. 3 and
    /// App. D; default 1/2), 0 < d < 1.
    pub d: Option<f64>,
    /// aimd: the window grows by u segments per round trip in congestion avoidance (default
    /// 1), 0 < u <= 1000.
    pub u: Option<f64>,
    /// aimd: growth per ACK (default) or by bytes acknowledged (RFC 3465).
    pub growth: Option<WindowGrowth>,
    /// aimd: RFC 3465's L in segments, with growth = "abc" only (default 2).
    pub abc_limit: Option<u32>,
    /// aimd: what d multiplies on a loss: RFC 5681's FlightSize (default) or cwnd.
    pub ssthresh_rule: Option<SsthreshRule>,
    /// cubic: beta_cubic, the window after a loss is beta x cwnd (RFC 9438 Sec. 4.6; default
    /// 0.7), 0 < beta < 1.
    pub beta: Option<f64>,
    /// cubic: C in W_cubic(t) = C (t - K)^3 + W_max, segments/s^3 (default 0.4), 0 < C <= 100.
    pub c: Option<f64>,
    /// cubic: fast convergence (RFC 9438 Sec. 4.7; default true).
    pub fast_convergence: Option<bool>,
    /// cubic: the slow-start exit, "off" (default), "linux" (HyStart) or "rfc9406" (HyStart++).
    pub hystart: Option<HyStartKind>,
    /// cubic: whose congestion avoidance, "rfc9438" (default) or "linux" (tcp_cubic.c).
    pub style: Option<CubicStyle>,
    /// Keys of the table that no algorithm has (reported by `validate`).
    unknown: Vec<String>,
}

impl CcSpec {
    pub fn new(algorithm: Algorithm) -> Self {
        CcSpec {
            algorithm: Some(algorithm),
            ..Default::default()
        }
    }

    fn given(&self) -> impl Iterator<Item = &str> {
        [
            ("d", self.d.is_some()),
            ("u", self.u.is_some()),
            ("growth", self.growth.is_some()),
            ("abc_limit", self.abc_limit.is_some()),
            ("ssthresh_rule", self.ssthresh_rule.is_some()),
            ("beta", self.beta.is_some()),
            ("c", self.c.is_some()),
            ("fast_convergence", self.fast_convergence.is_some()),
            ("hystart", self.hystart.is_some()),
            ("style", self.style.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, given)| given.then_some(k))
        .chain(self.unknown.iter().map(String::as_str))
    }

    /// Every option given belongs to `algorithm` (the one in force) and has a valid value.
    pub(crate) fn validate(&self, at: &str, algorithm: Algorithm) -> Result<(), Error> {
        let a = algorithm.name();
        let allowed = algorithm.options();
        if let Some(k) = self.given().find(|k| !allowed.contains(k)) {
            let which = if allowed.is_empty() {
                format!("{a} has no options")
            } else {
                format!("options of {a}: {}", allowed.join(", "))
            };
            let hint = if super::tcp::Variant::Newreno.options().contains(&k)
                || super::tcp::Variant::Reno.options().contains(&k)
            {
                format!("; {k} belongs to the loss recovery: {at}.tcp.{k}")
            } else {
                String::new()
            };
            return Err(invalid(
                format!("{at}.cc.{k}"),
                format!("not an option of {a} ({which}{hint})"),
            ));
        }
        // The simulator works in millionths (tcp::cc::Millionths): the value must stay inside
        // its range once rounded to 6 decimal places.
        let micro = |x: f64| (x * 1e6).round();
        if let Some(d) = self.d {
            if !(d > 0.0 && d < 1.0 && micro(d) > 0.0 && micro(d) < 1e6) {
                return Err(invalid(
                    format!("{at}.cc.d"),
                    format!("{d} is not a valid decrease factor (expected 0 < d < 1, to 6 decimal places)"),
                ));
            }
        }
        if let Some(b) = self.beta {
            if !(b > 0.0 && b < 1.0 && micro(b) > 0.0 && micro(b) < 1e6) {
                return Err(invalid(
                    format!("{at}.cc.beta"),
                    format!(
                        "{b} is not a valid decrease factor (expected 0 < beta < 1, to 6 decimal places)"
                    ),
                ));
            }
        }
        if let Some(c) = self.c {
            if !(c > 0.0 && c <= 100.0) {
                return Err(invalid(
                    format!("{at}.cc.c"),
                    format!("{c} is not a valid C (expected 0 < C <= 100 segments per second cubed)"),
                ));
            }
        }
        if let Some(u) = self.u {
            if !(u > 0.0 && u <= MAX_U && micro(u) > 0.0) {
                return Err(invalid(
                    format!("{at}.cc.u"),
                    format!("{u} is not a valid increase (expected 0 < u <= {MAX_U} segments per round trip, to 6 decimal places)"),
                ));
            }
        }
        match (self.abc_limit, self.growth) {
            (Some(0), _) => Err(invalid(
                format!("{at}.cc.abc_limit"),
                "0 (expected at least 1 segment)",
            )),
            (Some(_), g) if g != Some(WindowGrowth::Abc) => Err(invalid(
                format!("{at}.cc.abc_limit"),
                format!("applies only with growth = \"abc\" (set {at}.cc.growth)"),
            )),
            _ => Ok(()),
        }
    }
}

impl Serialize for CcSpec {
    /// The short form when only the algorithm is given.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let (Some(a), None) = (self.algorithm, self.given().next()) {
            return a.serialize(s);
        }
        let mut m = s.serialize_map(None)?;
        if let Some(a) = self.algorithm {
            m.serialize_entry("algorithm", &a)?;
        }
        if let Some(d) = self.d {
            m.serialize_entry("d", &d)?;
        }
        if let Some(u) = self.u {
            m.serialize_entry("u", &u)?;
        }
        if let Some(g) = self.growth {
            m.serialize_entry("growth", &g)?;
        }
        if let Some(l) = self.abc_limit {
            m.serialize_entry("abc_limit", &l)?;
        }
        if let Some(r) = self.ssthresh_rule {
            m.serialize_entry("ssthresh_rule", &r)?;
        }
        if let Some(b) = self.beta {
            m.serialize_entry("beta", &b)?;
        }
        if let Some(c) = self.c {
            m.serialize_entry("c", &c)?;
        }
        if let Some(f) = self.fast_convergence {
            m.serialize_entry("fast_convergence", &f)?;
        }
        if let Some(h) = self.hystart {
            m.serialize_entry("hystart", &h)?;
        }
        if let Some(st) = self.style {
            m.serialize_entry("style", &st)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for CcSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CcSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a congestion control (\"aimd\") or a table { algorithm = \"aimd\", <its options> }",
                )
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<CcSpec, E> {
                let a = Algorithm::deserialize(de::value::StrDeserializer::<E>::new(s))?;
                Ok(CcSpec::new(a))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CcSpec, A::Error> {
                let mut c = CcSpec::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "algorithm" => c.algorithm = Some(map.next_value()?),
                        "d" => c.d = Some(map.next_value()?),
                        "u" => c.u = Some(map.next_value()?),
                        "growth" => c.growth = Some(map.next_value()?),
                        "abc_limit" => c.abc_limit = Some(map.next_value()?),
                        "ssthresh_rule" => c.ssthresh_rule = Some(map.next_value()?),
                        "beta" => c.beta = Some(map.next_value()?),
                        "c" => c.c = Some(map.next_value()?),
                        "fast_convergence" => c.fast_convergence = Some(map.next_value()?),
                        "hystart" => c.hystart = Some(map.next_value()?),
                        "style" => c.style = Some(map.next_value()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            c.unknown.push(key);
                        }
                    }
                }
                Ok(c)
            }
        }
        d.deserialize_any(V)
    }
}

/// A congestion control by name, or a table with `algorithm` and exactly that algorithm's options.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum CcSchema {
    /// An algorithm with its default options.
    Name(Algorithm),
    Aimd(AimdTable),
    Cubic(CubicTable),
    Bbr(BbrTable),
    None(NoneTable),
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum AimdName {
    Aimd,
}

/// AIMD (the default, but for tcp = "bsd43", when `algorithm` is left out) and its options.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct AimdTable {
    algorithm: Option<AimdName>,
    /// The window is multiplied by d on congestion, 0 < d < 1 (Jacobson & Karels 1988
    /// App. D; default 0.5).
    d: Option<f64>,
    /// Congestion avoidance adds u segments per round trip, 0 < u <= 1000 (default 1).
    u: Option<f64>,
    /// Growth per ACK (default) or by bytes acknowledged (RFC 3465).
    growth: Option<WindowGrowth>,
    /// RFC 3465's L in segments, with growth = "abc" only (default 2).
    #[schemars(range(min = 1))]
    abc_limit: Option<u32>,
    /// What d multiplies on a loss: RFC 5681's FlightSize (default) or cwnd.
    ssthresh_rule: Option<SsthreshRule>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum CubicName {
    Cubic,
}

/// CUBIC (RFC 9438) and its options.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct CubicTable {
    algorithm: CubicName,
    /// beta_cubic: after a loss the window is beta x cwnd, 0 < beta < 1 (default 0.7).
    beta: Option<f64>,
    /// C of W_cubic(t) = C (t - K)^3 + W_max, segments/s^3, 0 < C <= 100 (default 0.4).
    c: Option<f64>,
    /// Fast convergence, RFC 9438 Sec. 4.7 (default true).
    fast_convergence: Option<bool>,
    /// The slow-start exit: "off" (default), "linux" (HyStart, tcp_cubic.c) or "rfc9406"
    /// (HyStart++).
    hystart: Option<HyStartKind>,
    /// Whose congestion avoidance: "rfc9438" (default) or "linux" (tcp_cubic.c's
    /// bictcp_update, docs/tcp-family.md).
    style: Option<CubicStyle>,
    /// Slow start per ACK (default) or by bytes acknowledged (RFC 3465).
    growth: Option<WindowGrowth>,
    /// RFC 3465's L in segments, with growth = "abc" only (default 2).
    #[schemars(range(min = 1))]
    abc_limit: Option<u32>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum BbrName {
    Bbr,
}

/// BBR v1 (Linux's tcp_bbr.c), paced; no options.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct BbrTable {
    algorithm: BbrName,
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum NoneName {
    None,
}

/// No congestion control; no options.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct NoneTable {
    algorithm: NoneName,
}

impl JsonSchema for CcSpec {
    fn schema_name() -> String {
        "CcSpec".into()
    }
    fn json_schema(g: &mut schemars::r#gen::SchemaGenerator) -> schemars::schema::Schema {
        CcSchema::json_schema(g)
    }
}
