//! A flow's `tcp` key: the TCP variant — which names its loss recovery (`tcp/recovery/`) — and
//! that recovery's own options. `tcp = "newreno"`, or a table naming the variant and options:
//! `tcp = { variant = "newreno", partial_deflation = false }`. A table without `variant` is
//! Reno's (the default variant), so `--set flows.0.tcp.guard=true` works on its own.

use super::super::invalid;
use crate::error::Error;
use schemars::JsonSchema;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// 4.3BSD before Jacobson: no fast retransmit, go-back-N, RFC 793 timer; no congestion
    /// window unless `cc` says otherwise.
    Bsd43,
    Tahoe,
    #[default]
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

    /// The options of this variant's loss recovery.
    pub fn options(self) -> &'static [&'static str] {
        match self {
            Variant::Reno => &["guard"],
            Variant::Newreno => &["partial_deflation", "partial_ack_timer"],
            Variant::Sack => &["prr", "rack"],
            _ => &[],
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PartialAckTimer {
    /// Restart the retransmit timer only on the first partial ACK (RFC 6582 Sec. 4).
    Impatient,
    /// Restart it on every partial ACK.
    SlowButSteady,
}

/// The variant and its recovery's options as written (None: the recovery's default). Which
/// option belongs to which variant is `Variant::options`; validation rejects the others.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpSpec {
    pub variant: Variant,
    /// reno: no second fast retransmit for one window (ns-2's bugFix_; default false; the
    /// other variants always guard).
    pub guard: Option<bool>,
    /// newreno: partial window deflation (RFC 6582; default true) or full deflation (Parvez
    /// et al. footnote 1).
    pub partial_deflation: Option<bool>,
    /// newreno: the retransmit timer on partial ACKs (RFC 6582 Sec. 4; default impatient).
    pub partial_ack_timer: Option<PartialAckTimer>,
    /// sack: Proportional Rate Reduction (RFC 6937) sets the window during recovery instead of
    /// cutting it to ssthresh at once (default false).
    pub prr: Option<bool>,
    /// sack: RACK-TLP loss detection (RFC 8985) instead of DupThresh and IsLost, with tail
    /// loss probes (default false).
    pub rack: Option<bool>,
    /// Keys of the table that no recovery has (reported by `validate`, which knows the variant).
    unknown: Vec<String>,
}

impl TcpSpec {
    pub fn new(variant: Variant) -> Self {
        TcpSpec {
            variant,
            ..Default::default()
        }
    }

    /// (name, given) of every option a recovery may have, then the unknown keys.
    pub(crate) fn options_given(&self) -> impl Iterator<Item = &str> {
        [
            ("guard", self.guard.is_some()),
            ("partial_deflation", self.partial_deflation.is_some()),
            ("partial_ack_timer", self.partial_ack_timer.is_some()),
            ("prr", self.prr.is_some()),
            ("rack", self.rack.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, given)| given.then_some(k))
        .chain(self.unknown.iter().map(String::as_str))
    }

    /// Every option given belongs to the variant's recovery.
    pub(crate) fn validate(&self, at: &str) -> Result<(), Error> {
        let v = self.variant.name();
        let allowed = self.variant.options();
        match self.options_given().find(|k| !allowed.contains(k)) {
            None => Ok(()),
            Some(k) => {
                let which = if allowed.is_empty() {
                    format!("{v} has no options")
                } else {
                    format!("options of {v}: {}", allowed.join(", "))
                };
                let hint = if super::cc::ALL_OPTIONS.contains(&k) {
                    format!("; {k} belongs to the congestion control: {at}.cc.{k}")
                } else {
                    String::new()
                };
                Err(invalid(
                    format!("{at}.tcp.{k}"),
                    format!("not an option of {v} ({which}{hint})"),
                ))
            }
        }
    }

    /// Options were given (the table form is needed to write it back).
    fn has_options(&self) -> bool {
        self.options_given().next().is_some()
    }
}

impl Serialize for TcpSpec {
    /// The short form when no option is given, so `tcp` stays a plain column in result stores.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if !self.has_options() {
            return self.variant.serialize(s);
        }
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("variant", &self.variant)?;
        if let Some(g) = self.guard {
            m.serialize_entry("guard", &g)?;
        }
        if let Some(p) = self.partial_deflation {
            m.serialize_entry("partial_deflation", &p)?;
        }
        if let Some(t) = self.partial_ack_timer {
            m.serialize_entry("partial_ack_timer", &t)?;
        }
        if let Some(p) = self.prr {
            m.serialize_entry("prr", &p)?;
        }
        if let Some(r) = self.rack {
            m.serialize_entry("rack", &r)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for TcpSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TcpSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a TCP variant (\"reno\") or a table { variant = \"reno\", <its options> }")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<TcpSpec, E> {
                let variant = Variant::deserialize(de::value::StrDeserializer::<E>::new(s))?;
                Ok(TcpSpec::new(variant))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TcpSpec, A::Error> {
                let mut t = TcpSpec::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "variant" => t.variant = map.next_value()?,
                        "guard" => t.guard = Some(map.next_value()?),
                        "partial_deflation" => t.partial_deflation = Some(map.next_value()?),
                        "partial_ack_timer" => t.partial_ack_timer = Some(map.next_value()?),
                        "prr" => t.prr = Some(map.next_value()?),
                        "rack" => t.rack = Some(map.next_value()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            t.unknown.push(key);
                        }
                    }
                }
                Ok(t)
            }
        }
        d.deserialize_any(V)
    }
}

/// A TCP variant by name, or a table with `variant` and exactly that variant's recovery options.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum TcpSchema {
    /// A variant with its recovery's default options.
    Name(Variant),
    Reno(RenoTable),
    Newreno(NewRenoTable),
    Sack(SackTable),
    /// A variant whose recovery has no options.
    Plain(PlainTable),
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum RenoName {
    Reno,
}

/// Reno (the default when `variant` is left out) and its option.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct RenoTable {
    variant: Option<RenoName>,
    /// No second fast retransmit for one window (ns-2's bugFix_); default false.
    guard: Option<bool>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum NewRenoName {
    Newreno,
}

/// NewReno (RFC 6582) and its options.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct NewRenoTable {
    variant: NewRenoName,
    /// Partial window deflation (RFC 6582, default true) or full deflation (Parvez et al.
    /// footnote 1).
    partial_deflation: Option<bool>,
    /// The retransmit timer on partial ACKs (RFC 6582 Sec. 4); default impatient.
    partial_ack_timer: Option<PartialAckTimer>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum SackName {
    Sack,
}

/// RFC 6675 SACK recovery and its options.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct SackTable {
    variant: SackName,
    /// Proportional Rate Reduction (RFC 6937) during recovery; default false.
    prr: Option<bool>,
    /// RACK-TLP loss detection (RFC 8985) with tail loss probes; default false.
    rack: Option<bool>,
}

#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum PlainName {
    Bsd43,
    Tahoe,
    Fack,
    Sackrh,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct PlainTable {
    variant: PlainName,
}

impl JsonSchema for TcpSpec {
    fn schema_name() -> String {
        "TcpSpec".into()
    }
    fn json_schema(g: &mut schemars::r#gen::SchemaGenerator) -> schemars::schema::Schema {
        TcpSchema::json_schema(g)
    }
}
