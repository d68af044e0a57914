//! A flow's `tcp` key: the TCP variant — which names its loss recovery (`tcp/recovery/`) — and
//! that recovery's own options. `tcp = "newreno"`, or a table naming the variant and options:
//! `tcp = { variant = "newreno", partial_deflation = false }`. A table without `variant` is
//! Reno's (the default variant), so `--set flows.0.tcp.guard=true` works on its own.
//!
//! The variants and their options come from the list of recoveries (`tcp/recovery/mod.rs`):
//! this file holds only what every recovery shares (reading and writing the two forms, the
//! schema's shape, the check that each option given is the variant's).

use super::super::invalid;
use crate::error::Error;
pub use crate::tcp::recovery::newreno::PartialAckTimer;
pub use crate::tcp::recovery::Variant;
use crate::tcp::recovery::{RecoveryOptions, Registered, Validation};
use schemars::schema::{Schema, SchemaObject, SubschemaValidation};
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The variant and its recovery's options as written (an option left out is the recovery's
/// default).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpSpec {
    pub variant: Variant,
    /// The options of `variant`'s recovery (always that variant's).
    options: RecoveryOptions,
    /// Keys of the table that are not options of `variant` (reported by `validate`).
    unknown: Vec<String>,
}

impl Default for TcpSpec {
    fn default() -> Self {
        TcpSpec::new(Variant::default())
    }
}

impl TcpSpec {
    pub fn new(variant: Variant) -> Self {
        TcpSpec {
            variant,
            options: RecoveryOptions::none(variant),
            unknown: Vec::new(),
        }
    }

    /// The options of the recovery `R`, if the variant is `R`'s.
    pub fn options_of<R: Registered>(&self) -> Option<&R::Options> {
        if self.variant != R::VARIANT {
            return None;
        }
        self.options.as_any().downcast_ref::<R::Options>()
    }

    /// The recovery's options.
    pub fn options(&self) -> &RecoveryOptions {
        &self.options
    }

    /// The options given, in the recovery's order, then the keys that are not its options.
    pub(crate) fn options_given(&self) -> impl Iterator<Item = &str> {
        self.options
            .given()
            .into_iter()
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

    /// The recovery's own checks of its options' values (`Recovery::validate`); `sack` is the
    /// flow's `sack` key.
    pub(crate) fn validate_values(&self, at: &str, sack: Option<bool>) -> Result<(), Error> {
        let at = format!("{at}.tcp");
        self.options.validate(&Validation { at: &at, sack })
    }

    /// Options were given (the table form is needed to write it back).
    fn has_options(&self) -> bool {
        self.options_given().next().is_some()
    }
}

/// The table form as written back: `variant`, then the options given.
#[derive(Serialize)]
struct Table<'a> {
    variant: Variant,
    #[serde(flatten)]
    options: &'a RecoveryOptions,
}

impl Serialize for TcpSpec {
    /// The short form when no option is given, so `tcp` stays a plain column in result stores.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if !self.has_options() {
            return self.variant.serialize(s);
        }
        Table {
            variant: self.variant,
            options: &self.options,
        }
        .serialize(s)
    }
}

/// Reads the value of one option key, as `RecoveryOptions::check_option` says.
struct OptionValue<'k> {
    variant: Option<Variant>,
    key: &'k str,
}

impl<'de> DeserializeSeed<'de> for OptionValue<'_> {
    type Value = Option<toml::Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        RecoveryOptions::check_option(self.variant, self.key, d)
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
                // Each option's value is read as it comes (so that an error names its key),
                // with the type its variant gives it; `variant` may come after the options.
                let mut variant = None;
                let mut values = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "variant" {
                        variant = Some(map.next_value()?);
                        continue;
                    }
                    let value = map.next_value_seed(OptionValue { variant, key: &key })?;
                    values.push((key, value));
                }
                let variant: Variant = variant.unwrap_or_default();
                let allowed = variant.options();
                let (mine, unknown): (Vec<_>, Vec<_>) = values
                    .into_iter()
                    .partition(|(k, _)| allowed.contains(&k.as_str()));
                let table = mine.into_iter().filter_map(|(k, v)| Some((k, v?))).collect();
                let options = RecoveryOptions::from_table(variant, table).map_err(de::Error::custom)?;
                Ok(TcpSpec {
                    variant,
                    options,
                    unknown: unknown.into_iter().map(|(k, _)| k).collect(),
                })
            }
        }
        d.deserialize_any(V)
    }
}

impl schemars::JsonSchema for TcpSpec {
    fn schema_name() -> String {
        "TcpSpec".into()
    }

    /// A variant by name, or a table with `variant` and exactly that variant's recovery options
    /// (one table per recovery with options, one for those without).
    fn json_schema(g: &mut schemars::r#gen::SchemaGenerator) -> Schema {
        let mut name = SchemaObject {
            subschemas: Some(Box::new(SubschemaValidation {
                all_of: Some(vec![g.subschema_for::<Variant>()]),
                ..Default::default()
            })),
            ..Default::default()
        };
        name.metadata().description = Some("A variant with its recovery's default options.".into());
        let mut any_of = vec![Schema::Object(name)];
        any_of.extend(RecoveryOptions::schema_tables(g));
        let mut s = SchemaObject {
            subschemas: Some(Box::new(SubschemaValidation {
                any_of: Some(any_of),
                ..Default::default()
            })),
            ..Default::default()
        };
        s.metadata().description = Some(
            "A TCP variant by name, or a table with `variant` and exactly that variant's recovery options."
                .into(),
        );
        Schema::Object(s)
    }
}
