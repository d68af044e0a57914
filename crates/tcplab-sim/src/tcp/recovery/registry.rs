//! The `recoveries!` macro: from one list of loss recoveries it generates everything that names
//! them all, so adding a recovery is its own file plus one line in that list (see
//! docs/architecture.md, "How to add a loss recovery"):
//!
//! - the module declaration of each recovery's file;
//! - `Variant`, the scenario's `tcp = "..."` names (serde + schemars, the line's description in
//!   the schema), with what the scenario asks of each (`options`, `uses_sack`,
//!   `fast_retransmit`, `before_1988`, `ns2_agent`), all read from the recovery's [`Recovery`]
//!   implementation;
//! - `RecoveryOptions`, one variant per recovery holding its `Recovery::Options`, which the
//!   scenario's `TcpSpec` (scenario/flow/tcp.rs) keeps, reads one key at a time (`check_option`,
//!   so that a type error names its key), builds (`from_table`), writes back, describes in the
//!   JSON schema (`schema_tables`) and validates;
//! - `LossRecovery`, the enum the sender holds (static dispatch), with `build` and one method
//!   per hook of [`Recovery`] forwarding to the variant.
//!
//! An entry reads `Variant: module::Type = "name", "description";`: the file `module.rs` holds
//! `Type`, which implements `Recovery`; `Variant` names it in `Variant` and `LossRecovery`;
//! `name` is what a scenario writes. The list opens with `default Variant;`, the recovery of a
//! `tcp` table that names none. Attributes before an entry (`#[cfg(test)]`) apply to all it
//! generates.

use schemars::schema::{InstanceType, Schema, SchemaObject, SingleOrVec};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde::{forward_to_deserialize_any, Deserializer, Serialize};

macro_rules! recoveries {
    (
        default $default:ident;
        $( $(#[$meta:meta])* $v:ident : $module:ident :: $ty:ident = $name:literal, $doc:literal; )*
    ) => {
        $( $(#[$meta])* pub mod $module; $(#[$meta])* pub use $module::$ty; )*

        /// The TCP variant of a flow (`tcp = "..."`), which names its loss recovery.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
        pub enum Variant {
            $( $(#[$meta])* #[doc = $doc] #[serde(rename = $name)] $v, )*
        }

        impl Default for Variant {
            fn default() -> Self {
                Variant::$default
            }
        }

        impl Variant {
            /// Every variant, in the registry's order.
            pub const ALL: &'static [Variant] = &[ $( $(#[$meta])* Variant::$v, )* ];

            /// The name a scenario uses.
            pub fn name(self) -> &'static str {
                match self { $( $(#[$meta])* Variant::$v => $name, )* }
            }

            /// The options of this variant's loss recovery (`Recovery::Options`' fields).
            pub fn options(self) -> &'static [&'static str] {
                match self {
                    $( $(#[$meta])* Variant::$v => $crate::tcp::recovery::registry::option_names::<<$ty as Recovery>::Options>(), )*
                }
            }

            /// Does this variant use SACK information (and so need a SACK receiver)?
            pub fn uses_sack(self) -> bool {
                match self { $( $(#[$meta])* Variant::$v => <$ty as Recovery>::USES_SACK, )* }
            }

            /// Does it retransmit on duplicate ACKs (so that limited transmit applies)?
            pub fn fast_retransmit(self) -> bool {
                match self { $( $(#[$meta])* Variant::$v => <$ty as Recovery>::FAST_RETRANSMIT, )* }
            }

            /// A TCP from before Jacobson 1988, whose flows default to no congestion window
            /// (`cc = "none"`) and RFC 793's timer.
            pub fn before_1988(self) -> bool {
                match self { $( $(#[$meta])* Variant::$v => <$ty as Recovery>::BEFORE_1988, )* }
            }

            /// The ns-2 agent that models it with `profile = "ns2"`, if any.
            pub fn ns2_agent(self) -> Option<$crate::tcp::ns2::Ns2Variant> {
                match self { $( $(#[$meta])* Variant::$v => <$ty as Recovery>::NS2_AGENT, )* }
            }
        }

        /// A recovery's options as a scenario gives them (`Recovery::Options`).
        #[derive(Clone, Debug, PartialEq)]
        pub enum RecoveryOptions {
            $( $(#[$meta])* $v(<$ty as Recovery>::Options), )*
        }

        impl RecoveryOptions {
            /// The variant whose options these are.
            pub fn variant(&self) -> Variant {
                match self { $( $(#[$meta])* RecoveryOptions::$v(_) => Variant::$v, )* }
            }

            /// A variant's options, none given.
            pub fn none(variant: Variant) -> Self {
                match variant { $( $(#[$meta])* Variant::$v => RecoveryOptions::$v(Default::default()), )* }
            }

            /// The options, to be downcast to the variant's `Recovery::Options`.
            pub fn as_any(&self) -> &dyn std::any::Any {
                match self { $( $(#[$meta])* RecoveryOptions::$v(o) => o, )* }
            }

            /// The options given, in their declaration order.
            pub fn given(&self) -> Vec<&'static str> {
                match self { $( $(#[$meta])* RecoveryOptions::$v(o) => $crate::tcp::recovery::registry::given(o), )* }
            }

            /// The options of `variant` from a table of option values (each one already read by
            /// `check_option`); the error is the deserializer's message.
            pub fn from_table(variant: Variant, table: toml::Table) -> Result<Self, String> {
                match variant {
                    $( $(#[$meta])* Variant::$v => <<$ty as Recovery>::Options as serde::Deserialize>::deserialize(toml::Value::Table(table))
                        .map(RecoveryOptions::$v)
                        .map_err(|e| e.to_string()), )*
                }
            }

            /// Reads the value of option `key` with the type that `variant` gives it (or, if the
            /// variant is not known yet or has no such option, the first recovery that has it),
            /// inside the deserializer of the value, so that an error names the key. None: no
            /// recovery has this option (the value is skipped; validation reports the key).
            pub fn check_option<'de, D: serde::Deserializer<'de>>(
                variant: Option<Variant>,
                key: &str,
                value: D,
            ) -> Result<Option<toml::Value>, D::Error> {
                let has = |v: &Variant| v.options().contains(&key);
                let Some(owner) = variant.filter(has).or_else(|| Variant::ALL.iter().copied().find(has)) else {
                    <serde::de::IgnoredAny as serde::Deserialize>::deserialize(value)?;
                    return Ok(None);
                };
                match owner {
                    $( $(#[$meta])* Variant::$v => $crate::tcp::recovery::registry::read_one::<<$ty as Recovery>::Options, D>(key, value), )*
                }
            }

            /// Checks the values of the options (`Recovery::validate`).
            pub fn validate(&self, v: &Validation<'_>) -> Result<(), $crate::error::Error> {
                match self { $( $(#[$meta])* RecoveryOptions::$v(o) => <$ty as Recovery>::validate(o, v), )* }
            }

            /// The schema of the table form of each variant with options (`variant` and its
            /// options), then one for the variants without options.
            pub fn schema_tables(g: &mut schemars::r#gen::SchemaGenerator) -> Vec<schemars::schema::Schema> {
                let mut tables = Vec::new();
                let mut plain = Vec::new();
                $(
                    $(#[$meta])*
                    let _: () = {
                        let v = Variant::$v;
                        if v.options().is_empty() {
                            plain.push(v.name());
                        } else {
                            let o = <<$ty as Recovery>::Options as schemars::JsonSchema>::json_schema(g);
                            tables.push($crate::tcp::recovery::registry::table_schema(o, &[v.name()], v == Variant::default()));
                        }
                    };
                )*
                let mut p = $crate::tcp::recovery::registry::table_schema(
                    schemars::schema::Schema::Object(Default::default()), &plain, false);
                if let schemars::schema::Schema::Object(o) = &mut p {
                    o.metadata().description = Some("A variant whose recovery has no options.".into());
                }
                tables.push(p);
                tables
            }
        }

        $( $(#[$meta])* impl Registered for $ty {
            const VARIANT: Variant = Variant::$v;
        } )*

        impl serde::Serialize for RecoveryOptions {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self { $( $(#[$meta])* RecoveryOptions::$v(o) => o.serialize(s), )* }
            }
        }

        /// A flow's loss recovery: one variant per recovery of the list, so every call is a
        /// static dispatch.
        #[derive(Clone, Debug)]
        pub enum LossRecovery {
            $( $(#[$meta])* #[doc = $doc] $v($ty), )*
        }

        impl LossRecovery {
            /// The recovery a scenario's options describe.
            pub fn build(options: &RecoveryOptions) -> Self {
                match options { $( $(#[$meta])* RecoveryOptions::$v(o) => LossRecovery::$v(<$ty as Recovery>::build(o)), )* }
            }

            /// A duplicate ACK arrived (`core.dupacks` already counts it).
            pub fn on_dupack(&mut self, cx: &mut Ctx<'_>) {
                match self { $( $(#[$meta])* LossRecovery::$v(r) => r.on_dupack(cx), )* }
            }

            /// A new ACK arrived (snd_una already advanced by `acked` bytes, the scoreboard
            /// updated). The congestion control sees it next, and grows the window unless the
            /// result says it was set.
            pub fn on_new_ack(&mut self, cx: &mut Ctx<'_>, acked: u64) -> AckResult {
                match self { $( $(#[$meta])* LossRecovery::$v(r) => r.on_new_ack(cx, acked), )* }
            }

            /// The retransmit timer fired; the congestion control has already set the window and
            /// snd_nxt is back at snd_una.
            pub fn on_timeout(&mut self, cx: &mut Ctx<'_>) {
                match self { $( $(#[$meta])* LossRecovery::$v(r) => r.on_timeout(cx), )* }
            }

            /// Sends what the variant's window allows.
            pub fn send(&mut self, cx: &mut Ctx<'_>) {
                match self { $( $(#[$meta])* LossRecovery::$v(r) => r.send(cx), )* }
            }

            pub fn in_recovery(&self) -> bool {
                match self { $( $(#[$meta])* LossRecovery::$v(r) => r.in_recovery(), )* }
            }

            /// Every ACK, after the duplicate-ACK or new-ACK hook and the congestion control.
            pub fn on_any_ack(&mut self, cx: &mut Ctx<'_>, ev: AckEvent<'_>) {
                match self { $( $(#[$meta])* LossRecovery::$v(r) => r.on_any_ack(cx, ev), )* }
            }

            /// The recovery's own timers, if any.
            pub fn deadline(&self) -> Option<SimTime> {
                match self { $( $(#[$meta])* LossRecovery::$v(r) => r.deadline(), )* }
            }

            /// The recovery's own timers may have expired (before the retransmit timer is
            /// looked at).
            pub fn on_timer(&mut self, cx: &mut Ctx<'_>) {
                match self { $( $(#[$meta])* LossRecovery::$v(r) => r.on_timer(cx), )* }
            }

            /// Does the RTO recovery retransmit only what is marked lost rather than go back to
            /// snd_una?
            pub fn marks_after_timeout(&self) -> bool {
                match self { $( $(#[$meta])* LossRecovery::$v(r) => r.marks_after_timeout(), )* }
            }

            /// A timeout found spurious (F-RTO) is undone.
            pub fn undo_timeout(&mut self, core: &mut SenderCore) {
                match self { $( $(#[$meta])* LossRecovery::$v(r) => r.undo_timeout(core), )* }
            }

            /// Does it read the segments each ACK delivers (`Scoreboard::log_delivered`)?
            pub fn reads_delivered(&self) -> bool {
                match self { $( $(#[$meta])* LossRecovery::$v(r) => r.reads_delivered(), )* }
            }
        }
    };
}

/// The fields of an options struct, from its derived `Deserialize` (which hands them to
/// `deserialize_struct`): the option names a recovery has, with no list to keep beside it.
pub fn option_names<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(FieldNames(&mut names));
    names
}

/// A deserializer that only records the field names of the struct asked of it.
struct FieldNames<'a>(&'a mut &'static [&'static str]);

impl<'de> Deserializer<'de> for FieldNames<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("recovery options are a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(de::Error::custom("field names recorded"))
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// The options given (`Some`), in declaration order.
pub fn given<T: Serialize + DeserializeOwned>(o: &T) -> Vec<&'static str> {
    let Ok(toml::Value::Table(t)) = toml::Value::try_from(o) else {
        return Vec::new();
    };
    option_names::<T>()
        .iter()
        .copied()
        .filter(|k| t.contains_key(*k))
        .collect()
}

/// Reads one option of `T` from the value deserializer `value` (as `T` from the one-entry map
/// `{ key = value }`), and gives its value back as written by `T`.
pub fn read_one<'de, T, D>(key: &str, value: D) -> Result<Option<toml::Value>, D::Error>
where
    T: Serialize + DeserializeOwned,
    D: Deserializer<'de>,
{
    let one: T = T::deserialize(OneEntry { key, value })?;
    let written = toml::Value::try_from(&one).map_err(de::Error::custom)?;
    Ok(written.get(key).cloned())
}

/// A map of one entry whose value is still a deserializer.
struct OneEntry<'k, D> {
    key: &'k str,
    value: D,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for OneEntry<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        v.visit_map(OneEntryAccess {
            key: Some(self.key),
            value: Some(self.value),
        })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

struct OneEntryAccess<'k, D> {
    key: Option<&'k str>,
    value: Option<D>,
}

impl<'de, D: Deserializer<'de>> MapAccess<'de> for OneEntryAccess<'_, D> {
    type Error = D::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, D::Error> {
        match self.key.take() {
            Some(k) => seed.deserialize(k.into_deserializer()).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, D::Error> {
        match self.value.take() {
            Some(d) => seed.deserialize(d),
            None => Err(de::Error::custom("one value per key")),
        }
    }
}

/// The schema of a table form: `variant` (one of `names`; optional for the default variant)
/// beside the options of `options` (an object schema), and nothing else.
pub fn table_schema(options: Schema, names: &[&str], variant_optional: bool) -> Schema {
    let mut o = match options {
        Schema::Object(o) => o,
        Schema::Bool(_) => SchemaObject::default(),
    };
    o.instance_type = Some(SingleOrVec::Single(Box::new(InstanceType::Object)));
    let names: Vec<serde_json::Value> = names.iter().map(|n| (*n).into()).collect();
    let variant = SchemaObject {
        instance_type: Some(SingleOrVec::Single(Box::new(InstanceType::String))),
        enum_values: Some(names),
        ..Default::default()
    };
    let obj = o.object();
    obj.properties.insert("variant".into(), Schema::Object(variant));
    if !variant_optional {
        obj.required.insert("variant".into());
    }
    obj.additional_properties = Some(Box::new(Schema::Bool(false)));
    Schema::Object(o)
}

#[cfg(test)]
mod tests {
    use crate::tcp::recovery::{RecoveryOptions, Variant};

    /// What `Recovery::Options` promises: a recovery's options left out are written as
    /// nothing (every option is an `Option`), so `tcp = "reno"` comes back as it was given.
    #[test]
    fn options_left_out_are_written_as_nothing() {
        for &v in Variant::ALL {
            let none = serde_json::to_value(RecoveryOptions::none(v)).unwrap();
            assert_eq!(none, serde_json::json!({}), "{}", v.name());
            assert!(RecoveryOptions::none(v).given().is_empty());
        }
    }

    /// An option is read before its variant may be known (a table's keys come in any order),
    /// with the type of the first recovery that has it: two recoveries may share an option
    /// name only if it has one schema (one type and meaning).
    #[test]
    fn an_option_name_shared_by_two_recoveries_has_one_schema() {
        let schema: serde_json::Value = serde_json::from_str(&crate::scenario::json_schema()).unwrap();
        let tables = schema["definitions"]["TcpSpec"]["anyOf"].as_array().unwrap();
        let mut seen = std::collections::HashMap::new();
        for t in tables.iter().filter_map(|t| t["properties"].as_object()) {
            for (k, s) in t.iter().filter(|(k, _)| *k != "variant") {
                if let Some(before) = seen.insert(k.clone(), s.clone()) {
                    assert_eq!(&before, s, "option {k}");
                }
            }
        }
        // Every option of every variant is in its table, and nothing else.
        let n: usize = Variant::ALL.iter().map(|v| v.options().len()).sum();
        let listed: usize = tables
            .iter()
            .filter_map(|t| t["properties"].as_object())
            .map(|p| p.len() - 1)
            .sum();
        assert_eq!(n, listed);
    }

    #[test]
    fn option_names_come_from_the_options_structs() {
        assert_eq!(Variant::Reno.options(), ["guard"]);
        assert_eq!(
            Variant::Newreno.options(),
            ["partial_deflation", "partial_ack_timer", "rto_in_recovery"]
        );
        assert_eq!(
            Variant::Sack.options(),
            ["prr", "rack", "prr_rules", "recovery_exit_growth", "reentry"]
        );
        assert!(Variant::Tahoe.options().is_empty() && Variant::Sackrh.options().is_empty());
    }
}
