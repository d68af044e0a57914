//! The `controllers!` macro: from one list of congestion controllers it generates everything
//! that names them all, so adding a controller is its own file plus one line in that list
//! (docs/architecture.md, "How to add a congestion control"):
//!
//! - the module declaration of each controller's file and the re-export of its type;
//! - [`CongestionControl`], the enum the sender holds (static dispatch), forwarding every
//!   [`Controller`] hook to the variant, and `CongestionControl::build`, which builds the
//!   variant from its options ([`FromOptions::build`]);
//! - [`Algorithm`], the scenario's names (`cc = "cubic"`, serde + schemars, with each entry's
//!   doc comment), with `options()`, the option names of each;
//! - [`CcOptions`], one variant per controller holding its [`FromOptions::Options`], which
//!   [`CcSpec`] reads a `cc` table into, serializes back and validates
//!   ([`FromOptions::validate`]);
//! - the JSON schema of `cc`: a name, or one table shape per controller (its `Options`
//!   schema plus `algorithm`, which only [`Algorithm::DEFAULT`]'s table may leave out).
//!
//! An entry reads `Variant(module::Type) = "name"`, then `boxed` for a controller whose state
//! is larger than a few words (every sender holds a `CongestionControl`, so one large variant
//! inline would make all of them as large), preceded by its doc comment and, for an entry
//! that only some builds have, `#[cfg(...)]`.
//!
//! The scenario's `cc` key (`CcSpec`, below) keeps what was written: the algorithm if it was
//! named, and the options, read as that algorithm's `Options` (a table without `algorithm` is
//! read as the default's; `scenario/flow/cc.rs` then checks every key against the algorithm in
//! force, which is the variant's default there). Its serialized form is the short form
//! (`"cubic"`) when no option is given, else the table with what was written, in the order the
//! `Options` type declares its fields.

use super::{Algorithm, CcOptions, Controller};
use crate::error::Error;
use schemars::JsonSchema;
use serde::de::{self, DeserializeOwned, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt::{self, Debug};

/// What a controller is built from besides its options: the flow's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setup {
    /// SMSS, bytes.
    pub mss: u64,
    /// IW, bytes.
    pub initial_window: u64,
    /// The initial ssthresh, bytes (u64::MAX / 4 when unlimited).
    pub initial_ssthresh: u64,
    /// The receiver's advertised window, bytes.
    pub rwnd: u64,
}

/// A controller the registry can name, read the options of and build.
pub trait FromOptions: Controller + Sized {
    /// The options table: serde + schemars, `#[serde(default, deny_unknown_fields)]`, every
    /// field an `Option` (None: the controller's default, which its doc comment gives) with
    /// `skip_serializing_if = "Option::is_none"`. The fields' order is the order in which
    /// errors list them and the resolved scenario writes them. [`NoOptions`] for none.
    type Options: Clone + Debug + Default + PartialEq + Serialize + DeserializeOwned + JsonSchema;

    /// Range checks of the options; `at` is the table's path ("flows[0].cc"), so an error
    /// names `{at}.{option}`.
    fn validate(_options: &Self::Options, _at: &str) -> Result<(), Error> {
        Ok(())
    }

    /// The controller, from validated options.
    fn build(options: &Self::Options, flow: &Setup) -> Self;

    /// It needs ECN, which its flows then use whatever `ecn` says (Linux's
    /// TCP_CONG_NEEDS_ECN: DCTCP).
    const NEEDS_ECN: bool = false;

    /// It has a window to reduce for ECE (`ecn = "classic"` is refused without one).
    const ECN_CAPABLE: bool = true;

    /// It needs Accurate ECN feedback (RFC 9768): its flows must say `ecn = "accecn"`
    /// (TCP Prague).
    const NEEDS_ACCECN: bool = false;

    /// Its data leave ECT(1), the L4S identifier (RFC 9331 Sec. 5.1), instead of ECT(0).
    const L4S: bool = false;
}

/// The options of a controller that has none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoOptions {}

/// A user error in a controller's options: the field's path and what is wrong with its value.
pub(crate) fn invalid(field: impl Into<String>, message: impl Into<String>) -> Error {
    Error::Invalid {
        field: field.into(),
        message: message.into(),
    }
}

/// The field names of an options type, in declaration order (serde's derive hands them to
/// `deserialize_struct`; this deserializer takes them and stops).
pub(crate) fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    #[derive(Debug)]
    struct Stop;
    impl fmt::Display for Stop {
        fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("field names taken")
        }
    }
    impl std::error::Error for Stop {}
    impl de::Error for Stop {
        fn custom<M: fmt::Display>(_: M) -> Self {
            Stop
        }
    }
    struct Names<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for Names<'_> {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            *self.0 = fields;
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(Names(&mut names));
    names
}

/// Reads an options type from the keys of a table that belong to it; an error is (the key,
/// the message), as the scenario's other fields report theirs.
pub(crate) fn read<T: DeserializeOwned>(table: toml::Table) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
        let key = e.path().to_string();
        let message = e.into_inner().to_string();
        (key, message.lines().next().unwrap_or_default().trim().to_string())
    })
}

/// A flow's `cc` as written (None in a table without `algorithm`: the variant's default).
#[derive(Clone, Debug, PartialEq)]
pub struct CcSpec {
    /// The algorithm, if the scenario named it.
    pub algorithm: Option<Algorithm>,
    /// The options given, read as `algorithm`'s (or [`Algorithm::DEFAULT`]'s).
    pub options: CcOptions,
    /// Every key of the table but `algorithm`, in [`ALL_OPTIONS`] order, then the others.
    given: Vec<String>,
    /// A value that did not read as its option's type: (key, message), for `validate`.
    unreadable: Option<(String, String)>,
}

impl CcSpec {
    /// `cc = "<algorithm>"`.
    pub fn new(algorithm: Algorithm) -> Self {
        CcSpec {
            algorithm: Some(algorithm),
            options: CcOptions::default_of(algorithm),
            given: Vec::new(),
            unreadable: None,
        }
    }

    /// A table: the algorithm if named, the other keys with their values.
    fn from_table(algorithm: Option<Algorithm>, table: toml::Table) -> Self {
        let a = algorithm.unwrap_or(Algorithm::DEFAULT);
        let own = a.options();
        let mut given: Vec<String> = table.keys().cloned().collect();
        let rank = |k: &String| ALL_OPTIONS.iter().position(|o| o == k).unwrap_or(usize::MAX);
        given.sort_by_key(rank);
        let mine: toml::Table = table
            .into_iter()
            .filter(|(k, _)| own.contains(&k.as_str()))
            .collect();
        let (options, unreadable) = match CcOptions::read(a, mine) {
            Ok(o) => (o, None),
            Err(e) => (CcOptions::default_of(a), Some(e)),
        };
        CcSpec {
            algorithm,
            options,
            given,
            unreadable,
        }
    }

    /// The keys given besides `algorithm` (options or not).
    pub fn given(&self) -> impl Iterator<Item = &str> {
        self.given.iter().map(String::as_str)
    }

    /// A value given that does not read as its option's type: (key, message).
    pub fn unreadable(&self) -> Option<(&str, &str)> {
        self.unreadable.as_ref().map(|(k, m)| (k.as_str(), m.as_str()))
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
                let mut algorithm = None;
                let mut table = toml::Table::new();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "algorithm" {
                        algorithm = Some(map.next_value()?);
                    } else {
                        // Kept as written until the algorithm is known.
                        table.insert(key, map.next_value::<toml::Value>()?);
                    }
                }
                Ok(CcSpec::from_table(algorithm, table))
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for CcSpec {
    /// The short form when only the algorithm is given.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let (Some(a), true) = (self.algorithm, self.given.is_empty()) {
            return a.serialize(s);
        }
        #[derive(Serialize)]
        struct Table<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            algorithm: Option<Algorithm>,
            #[serde(flatten)]
            options: &'a CcOptions,
        }
        Table {
            algorithm: self.algorithm,
            options: &self.options,
        }
        .serialize(s)
    }
}

/// Every option of every controller, in list order, each once (for the hint when one is given
/// to `tcp`, and the order in which unknown keys are reported).
pub static ALL_OPTIONS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    let mut all: Vec<&'static str> = Vec::new();
    for a in Algorithm::all() {
        for o in a.options() {
            if !all.contains(o) {
                all.push(o);
            }
        }
    }
    all
});

/// A table shape of the `cc` schema: the options' schema with `algorithm` added.
pub(crate) fn table_schema<O: JsonSchema>(
    g: &mut schemars::r#gen::SchemaGenerator,
    name: &str,
    description: &str,
    optional_name: bool,
) -> schemars::schema::Schema {
    use schemars::schema::{InstanceType, Metadata, Schema, SchemaObject};
    let mut table = O::json_schema(g).into_object();
    let tag = SchemaObject {
        instance_type: Some(InstanceType::String.into()),
        enum_values: Some(vec![name.into()]),
        ..Default::default()
    };
    let obj = table.object();
    obj.properties.insert("algorithm".into(), Schema::Object(tag));
    if !optional_name {
        obj.required.insert("algorithm".into());
    }
    table.metadata = Some(Box::new(Metadata {
        description: Some(description.trim().to_string()),
        ..Default::default()
    }));
    Schema::Object(table)
}

macro_rules! controllers {
    ($( $(#[cfg($cfg:meta)])? $(#[doc = $doc:literal])* $variant:ident($module:ident :: $ty:ident) = $name:literal $($boxed:ident)?, )*) => {
        $(
            $(#[cfg($cfg)])?
            pub mod $module;
            $(#[cfg($cfg)])?
            pub use $module::$ty;
        )*

        /// The congestion controllers, one file each.
        #[derive(Clone, Debug)]
        pub enum CongestionControl {
            $( $(#[cfg($cfg)])? $(#[doc = $doc])* $variant(slot!($($boxed)? $ty)), )*
        }

        impl CongestionControl {
            /// The controller `algorithm`, from the options of `spec` if they are its own
            /// (validated), else its defaults.
            pub fn build(algorithm: Algorithm, spec: Option<&CcSpec>, flow: &$crate::tcp::cc::Setup) -> Self {
                let options = spec.map(|s| &s.options);
                match algorithm {
                    $(
                        $(#[cfg($cfg)])?
                        Algorithm::$variant => {
                            let built = match options {
                                Some(CcOptions::$variant(o)) => <$ty as FromOptions>::build(o, flow),
                                _ => <$ty as FromOptions>::build(&Default::default(), flow),
                            };
                            CongestionControl::$variant(wrap!($($boxed)? built))
                        }
                    )*
                }
            }
        }

        impl Controller for CongestionControl {
            fn initial_window(&self) -> Window {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.initial_window(), )* }
            }
            #[inline]
            fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.on_ack(w, ack), )* }
            }
            fn ssthresh_after_loss(&mut self, loss: &Loss) -> u64 {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.ssthresh_after_loss(loss), )* }
            }
            fn reduce(&self, window: u64) -> u64 {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.reduce(window), )* }
            }
            fn on_timeout(&mut self, w: Window, loss: &Loss, repeated: bool) -> Window {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.on_timeout(w, loss, repeated), )* }
            }
            fn on_idle(&mut self, w: &mut Window) {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.on_idle(w), )* }
            }
            fn pacing_rate_bps(&self) -> Option<u64> {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.pacing_rate_bps(), )* }
            }
            fn wants_delivery_rate(&self) -> bool {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.wants_delivery_rate(), )* }
            }
            fn cong_control(&mut self, w: &mut Window, d: &Delivery) -> bool {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.cong_control(w, d), )* }
            }
            fn seed(&mut self, rng: Stream) {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.seed(rng), )* }
            }
            fn on_ecn_ack(&mut self, e: &$crate::tcp::cc::EcnAck) {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.on_ecn_ack(e), )* }
            }
            fn ecn_estimate(&self) -> Option<f64> {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.ecn_estimate(), )* }
            }
            fn on_ecn_echo(&mut self, w: &mut Window, loss: &Loss) -> bool {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.on_ecn_echo(w, loss), )* }
            }
            fn grows_in_cwr(&self) -> bool {
                match self { $( $(#[cfg($cfg)])? Self::$variant(c) => c.grows_in_cwr(), )* }
            }
        }

        /// A congestion control's name in a scenario (`cc = "..."`, `algorithm = "..."`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
        pub enum Algorithm {
            $( $(#[cfg($cfg)])? $(#[doc = $doc])* #[serde(rename = $name)] $variant, )*
        }

        impl Algorithm {
            /// The name a scenario uses.
            pub fn name(self) -> &'static str {
                match self { $( $(#[cfg($cfg)])? Algorithm::$variant => $name, )* }
            }

            /// The options of this algorithm, in the order its `Options` declares them.
            pub fn options(self) -> &'static [&'static str] {
                match self {
                    $( $(#[cfg($cfg)])? Algorithm::$variant => $crate::tcp::cc::registry::field_names::<<$ty as FromOptions>::Options>(), )*
                }
            }

            /// Does it need ECN (`FromOptions::NEEDS_ECN`)?
            pub fn needs_ecn(self) -> bool {
                match self { $( $(#[cfg($cfg)])? Algorithm::$variant => <$ty as FromOptions>::NEEDS_ECN, )* }
            }

            /// Does it need Accurate ECN (`FromOptions::NEEDS_ACCECN`)?
            pub fn needs_accecn(self) -> bool {
                match self { $( $(#[cfg($cfg)])? Algorithm::$variant => <$ty as FromOptions>::NEEDS_ACCECN, )* }
            }

            /// Does it send ECT(1) (`FromOptions::L4S`)?
            pub fn l4s(self) -> bool {
                match self { $( $(#[cfg($cfg)])? Algorithm::$variant => <$ty as FromOptions>::L4S, )* }
            }

            /// Can a flow with it use ECN (`FromOptions::ECN_CAPABLE`)?
            pub fn ecn_capable(self) -> bool {
                match self { $( $(#[cfg($cfg)])? Algorithm::$variant => <$ty as FromOptions>::ECN_CAPABLE, )* }
            }

            /// Every algorithm, in list order (pushed one by one: an entry may be cfg'd out).
            #[allow(clippy::vec_init_then_push)]
            pub fn all() -> Vec<Algorithm> {
                let mut all = Vec::new();
                $( $(#[cfg($cfg)])? all.push(Algorithm::$variant); )*
                all
            }
        }

        /// The options of each controller, as a scenario gives them.
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        #[serde(untagged)]
        pub enum CcOptions {
            $( $(#[cfg($cfg)])? $variant(<$ty as FromOptions>::Options), )*
        }

        impl CcOptions {
            /// Whose options these are.
            pub fn algorithm(&self) -> Algorithm {
                match self { $( $(#[cfg($cfg)])? CcOptions::$variant(_) => Algorithm::$variant, )* }
            }

            /// The options of `a` with nothing given.
            pub fn default_of(a: Algorithm) -> Self {
                match a { $( $(#[cfg($cfg)])? Algorithm::$variant => CcOptions::$variant(Default::default()), )* }
            }

            fn read(a: Algorithm, table: toml::Table) -> Result<Self, (String, String)> {
                Ok(match a {
                    $( $(#[cfg($cfg)])? Algorithm::$variant => CcOptions::$variant($crate::tcp::cc::registry::read(table)?), )*
                })
            }

            /// The controller's own checks of its options; `at` is the table's path.
            pub(crate) fn validate(&self, at: &str) -> Result<(), $crate::error::Error> {
                match self { $( $(#[cfg($cfg)])? CcOptions::$variant(o) => <$ty as FromOptions>::validate(o, at), )* }
            }
        }

        impl schemars::JsonSchema for CcSpec {
            fn schema_name() -> String {
                "CcSpec".into()
            }
            /// A congestion control by name, or a table with `algorithm` and exactly that
            /// algorithm's options.
            fn json_schema(g: &mut schemars::r#gen::SchemaGenerator) -> schemars::schema::Schema {
                use schemars::schema::{Metadata, Schema, SchemaObject, SubschemaValidation};
                let mut any_of = vec![g.subschema_for::<Algorithm>()];
                $(
                    $(#[cfg($cfg)])?
                    any_of.push($crate::tcp::cc::registry::table_schema::<<$ty as FromOptions>::Options>(
                        g,
                        $name,
                        concat!($($doc, "\n",)*),
                        Algorithm::$variant == Algorithm::DEFAULT,
                    ));
                )*
                Schema::Object(SchemaObject {
                    metadata: Some(Box::new(Metadata {
                        description: Some("A congestion control by name, or a table with `algorithm` and exactly that algorithm's options.".into()),
                        ..Default::default()
                    })),
                    subschemas: Some(Box::new(SubschemaValidation {
                        any_of: Some(any_of),
                        ..Default::default()
                    })),
                    ..Default::default()
                })
            }
        }
    };
}

/// The type a controller has in `CongestionControl`: boxed if its entry says `boxed`.
macro_rules! slot {
    (boxed $t:ident) => {
        Box<$t>
    };
    ($t:ident) => {
        $t
    };
}

/// A built controller as `slot!` holds it.
macro_rules! wrap {
    (boxed $e:expr) => {
        Box::new($e)
    };
    ($e:expr) => {
        $e
    };
}

#[cfg(test)]
mod tests {
    use super::super::{Algorithm, CcOptions, CcSpec};

    #[test]
    fn each_algorithms_option_names_are_its_schema_properties() {
        let v: serde_json::Value = serde_json::from_str(&crate::scenario::json_schema()).unwrap();
        let shapes = v["definitions"]["CcSpec"]["anyOf"].as_array().unwrap();
        assert_eq!(shapes.len(), 1 + Algorithm::all().len());
        for a in Algorithm::all() {
            let shape = shapes
                .iter()
                .find(|s| s["properties"]["algorithm"]["enum"][0] == a.name())
                .unwrap_or_else(|| panic!("no table for {}", a.name()));
            let mut props: Vec<&str> = shape["properties"]
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            props.retain(|p| *p != "algorithm");
            props.sort_unstable();
            let mut names = a.options().to_vec();
            names.sort_unstable();
            assert_eq!(props, names, "{}", a.name());
            // Only the default's table may leave `algorithm` out.
            let required = shape["required"]
                .as_array()
                .is_some_and(|r| r.iter().any(|x| x == "algorithm"));
            assert_eq!(required, a != Algorithm::DEFAULT, "{}", a.name());
        }
    }

    #[test]
    fn a_table_is_written_back_as_given() {
        // The resolved form: short when only the algorithm is named, else what was written,
        // in the options' order, floats as floats.
        let cases = [
            (r#""cubic""#, r#""cubic""#),
            (r#"{ algorithm = "cubic" }"#, r#""cubic""#),
            (r#"{ d = 0.7, u = 2 }"#, r#"{"d":0.7,"u":2.0}"#),
            (r#"{ u = 1, d = 0.5 }"#, r#"{"d":0.5,"u":1.0}"#),
            (
                r#"{ algorithm = "aimd", ssthresh_rule = "cwnd", d = 0.7 }"#,
                r#"{"algorithm":"aimd","d":0.7,"ssthresh_rule":"cwnd"}"#,
            ),
            (
                r#"{ algorithm = "cubic", hystart = "linux", style = "linux", growth = "abc", abc_limit = 65535 }"#,
                r#"{"algorithm":"cubic","growth":"abc","abc_limit":65535,"hystart":"linux","style":"linux"}"#,
            ),
            (r#"{}"#, r#"{}"#),
        ];
        for (toml_cc, json) in cases {
            let t: toml::Table = toml::from_str(&format!("cc = {toml_cc}")).unwrap();
            let spec: CcSpec = t["cc"].clone().try_into().unwrap();
            assert_eq!(serde_json::to_string(&spec).unwrap(), json, "{toml_cc}");
        }
        let spec: CcSpec = toml::Value::String("bbr".into()).try_into().unwrap();
        assert_eq!(spec.options, CcOptions::default_of(Algorithm::Bbr));
    }
}
