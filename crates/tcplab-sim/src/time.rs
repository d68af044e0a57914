//! Simulated time, rates, sizes and probabilities, and the unit strings users write for them.
//!
//! Inside the simulator everything is an SI integer or float with the unit in the name:
//! time is `SimTime` (u64 nanoseconds; no float clocks), rates are bit/s, sizes bytes.
//! Unit strings are accepted only at the edges (scenario files, `--set`). The grammar is the
//! one documented in `tests/data/unit_vectors.json`, which the Python parser shares.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Simulated time in integer nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_ns(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn from_us(us: u64) -> Self {
        SimTime(us * 1_000)
    }
    pub const fn from_ms(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }
    pub fn from_secs_f64(s: f64) -> Self {
        SimTime((s * 1e9).round() as u64)
    }
    pub const fn ns(self) -> u64 {
        self.0
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    pub fn saturating_add(self, d: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
    pub fn saturating_sub(self, d: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(d.0))
    }
}

impl std::ops::Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 + rhs.0)
    }
}

impl std::ops::Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 - rhs.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Exact and compact: "10s", "0.025s", "1.000000001s".
        let (whole, frac) = (self.0 / 1_000_000_000, self.0 % 1_000_000_000);
        if frac == 0 {
            write!(f, "{whole}s")
        } else {
            let digits = format!("{frac:09}");
            write!(f, "{whole}.{}s", digits.trim_end_matches('0'))
        }
    }
}

/// Time to put `bytes` on a wire of `rate_bps`, rounded up to the next nanosecond.
/// Computed in 128-bit integers, so it is exact up to that final rounding.
pub fn serialization_time(bytes: u32, rate_bps: u64) -> SimTime {
    let bits = bytes as u128 * 8 * 1_000_000_000;
    let r = rate_bps as u128;
    SimTime(bits.div_ceil(r) as u64)
}

/// Why a unit string did not parse: shown to the user after the field's path.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitError(pub String);

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Splits a quantity into (mantissa, decimal exponent, unit) by the shared grammar
/// (`tests/data/unit_vectors.json`): `WS* DIGITS ("." DIGITS)? ([eE] [+-]? DIGITS)? WS* unit WS*`.
/// No sign, no bare fraction (".5", "1."), no inf/nan.
fn lex(text: &str) -> Option<(&str, i32, &str)> {
    let t = text.trim();
    let b = t.as_bytes();
    let digits = |mut i: usize| {
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i > s).then_some(i)
    };
    let mut i = digits(0)?;
    if i < b.len() && b[i] == b'.' {
        i = digits(i + 1)?;
    }
    let mantissa = &t[..i];
    let mut exponent = 0i32;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        let negative = j < b.len() && b[j] == b'-';
        if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
            j += 1;
        }
        let k = digits(j)?;
        let e: i32 = t[j..k].parse().ok()?;
        exponent = if negative { -e } else { e };
        i = k;
    }
    Some((mantissa, exponent, t[i..].trim()))
}

/// A unit: its name, a power of ten, and a binary multiplier (exact in floating point).
type Unit = (&'static str, i32, f64);

/// Parses `text` with one of `units`. Decimal scaling is folded into the exponent before the
/// (correctly rounded) float conversion, so "0.1KB" is exactly 100.
fn scaled(text: &str, what: &str, expected: &str, units: &[Unit]) -> Result<f64, UnitError> {
    let bad = || UnitError(format!("{text:?} is not a valid {what} (expected {expected})"));
    if text.trim_start().starts_with('-') {
        return Err(UnitError(format!(
            "{text:?} is negative (expected a {what} >= 0)"
        )));
    }
    let (mantissa, exponent, unit) = lex(text).ok_or_else(bad)?;
    let &(_, pow10, mult) = units.iter().find(|(u, _, _)| *u == unit).ok_or_else(bad)?;
    let v: f64 = format!("{mantissa}e{}", exponent + pow10)
        .parse()
        .map_err(|_| bad())?;
    let v = v * mult;
    if !v.is_finite() {
        return Err(bad());
    }
    Ok(v)
}

const DURATION_UNITS: &[Unit] = &[
    ("", 0, 1.0),
    ("s", 0, 1.0),
    ("ms", -3, 1.0),
    ("us", -6, 1.0),
    ("ns", -9, 1.0),
];
const RATE_UNITS: &[Unit] = &[
    ("", 0, 1.0),
    ("bit/s", 0, 1.0),
    ("bps", 0, 1.0),
    ("kbit/s", 3, 1.0),
    ("Kbit/s", 3, 1.0),
    ("kbps", 3, 1.0),
    ("Kbps", 3, 1.0),
    ("Mbit/s", 6, 1.0),
    ("Mbps", 6, 1.0),
    ("Gbit/s", 9, 1.0),
    ("Gbps", 9, 1.0),
];
const SIZE_UNITS: &[Unit] = &[
    ("", 0, 1.0),
    ("B", 0, 1.0),
    ("kB", 3, 1.0),
    ("KB", 3, 1.0),
    ("MB", 6, 1.0),
    ("GB", 9, 1.0),
    ("KiB", 0, 1024.0),
    ("MiB", 0, 1048576.0),
    ("GiB", 0, 1073741824.0),
];

/// Parses a duration ("50ms", "1.5 s", "200us", "10ns", or a bare number of seconds) to seconds.
pub fn parse_duration(text: &str) -> Result<f64, UnitError> {
    scaled(text, "duration", "a number with ns, us, ms or s", DURATION_UNITS)
}

/// Parses a rate ("10Mbit/s", "1.5Gbps", "64kbit/s", or a bare number of bit/s) to bit/s.
pub fn parse_rate(text: &str) -> Result<f64, UnitError> {
    scaled(
        text,
        "rate",
        "a number with bit/s, kbit/s, Mbit/s, Gbit/s (or bps, kbps, Mbps, Gbps)",
        RATE_UNITS,
    )
    .map_err(|e| {
        if text.contains('B') && !text.trim_start().starts_with('-') {
            UnitError(format!(
                "{text:?} is a byte rate, which is ambiguous (expected bit/s: write 8Mbit/s for 1 MB/s)"
            ))
        } else {
            e
        }
    })
}

/// Parses a size ("1500", "64KiB", "1.5MB", "100B") to a whole number of bytes.
pub fn parse_size(text: &str) -> Result<f64, UnitError> {
    let v = scaled(
        text,
        "size",
        "a number with B, kB, MB, GB, KiB, MiB or GiB",
        SIZE_UNITS,
    )?;
    if v.fract() != 0.0 {
        return Err(UnitError(format!(
            "{text:?} is not a whole number of bytes (expected e.g. 1460, 1.5KB or 64KiB)"
        )));
    }
    Ok(v)
}

/// Parses a probability ("1%", "0.01", "1e-3") to a number in [0, 1].
pub fn parse_probability(text: &str) -> Result<f64, UnitError> {
    let v = scaled(
        text,
        "probability",
        "a number in [0, 1] or a percentage such as 1%",
        &[("", 0, 1.0), ("%", -2, 1.0)],
    )?;
    if v > 1.0 {
        return Err(UnitError(format!(
            "{text:?} is above 1 (expected a probability in [0, 1])"
        )));
    }
    Ok(v)
}

/// A value given in a scenario either as a bare number or as a unit string.
#[derive(Deserialize)]
#[serde(untagged)]
enum NumOrText {
    Int(i64),
    Float(f64),
    Text(String),
}

/// The largest duration a scenario may give: the clock counts nanoseconds in 64 bits (584
/// years), and sums of durations (a run's end plus a backed-off timer) must stay inside it.
pub const MAX_DURATION_S: f64 = 1e9;
/// The fastest link: above it even a 1500-byte packet's transmission time (1.2 ns at 10
/// Tbit/s) approaches the 1 ns clock, and a 40-byte ACK's is below it.
pub const MAX_RATE_BPS: f64 = 1e13;
/// The largest size: 2^53 bytes, the largest whole number every table's f64 columns hold.
pub const MAX_SIZE_BYTES: f64 = 9_007_199_254_740_992.0;
/// Below this, a rate given as a bare number (no unit) is taken for a forgotten unit.
const MIN_BARE_RATE_BPS: f64 = 1000.0;

/// The value's kind: what it is checked against once parsed.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Duration,
    Rate,
    Size,
    Probability,
}

/// Checks a parsed value against what the simulator can represent, and a bare number (no
/// unit) against what is plausible for its kind.
fn in_range(kind: Kind, v: f64, written: &str, bare: bool) -> Result<f64, UnitError> {
    let (max, unit, what) = match kind {
        Kind::Duration => (
            MAX_DURATION_S,
            "s",
            "the simulator's clock (1 ns steps in 64 bits)",
        ),
        Kind::Rate => (MAX_RATE_BPS, "bit/s", "what a 1 ns clock resolves"),
        Kind::Size => (MAX_SIZE_BYTES, "bytes", "what the tables hold exactly"),
        Kind::Probability => return Ok(v),
    };
    if v > max {
        return Err(UnitError(format!(
            "{v:e} {unit} is beyond {what} (expected at most {max:e} {unit})"
        )));
    }
    if bare && kind == Kind::Rate && v > 0.0 && v < MIN_BARE_RATE_BPS {
        return Err(UnitError(format!(
            "{written} without a unit is {v} bit/s: write the unit (e.g. \"{written}Mbit/s\", or \"{written}bit/s\" if you mean it)"
        )));
    }
    Ok(v)
}

fn number_or_parse<'de, D: Deserializer<'de>>(
    d: D,
    parse: fn(&str) -> Result<f64, UnitError>,
    kind: Kind,
) -> Result<f64, D::Error> {
    let (text, bare) = match NumOrText::deserialize(d)? {
        NumOrText::Int(i) => (i.to_string(), true),
        NumOrText::Float(f) => (f.to_string(), true),
        NumOrText::Text(s) => {
            let bare = lex(&s).is_some_and(|(_, _, unit)| unit.is_empty());
            (s, bare)
        }
    };
    let v = parse(&text).map_err(serde::de::Error::custom)?;
    in_range(kind, v, &text, bare).map_err(serde::de::Error::custom)
}

/// A quantity serializes (the resolved scenario: `tcplab.resolve`, the sweep store's input
/// columns, run keys) as a number in SI base units under the scenario's own key: durations in
/// seconds (f64), rates in bit/s and sizes in bytes (integers), probabilities as f64. Read
/// back, a number means the same unit, so a resolved scenario is itself a valid scenario.
trait SiNumber {
    fn serialize_si<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error>;
}

impl SiNumber for SimTime {
    fn serialize_si<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Divided (not multiplied by 1e-9): "30ms" gives exactly the double nearest 0.03,
        // and from_secs_f64 rounds it back to the same nanosecond.
        s.serialize_f64(self.0 as f64 / 1e9)
    }
}

impl SiNumber for u64 {
    fn serialize_si<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(*self)
    }
}

impl SiNumber for f64 {
    fn serialize_si<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(*self)
    }
}

macro_rules! unit_type {
    ($name:ident, $inner:ty, $parse:ident, $kind:expr, $from:expr, $doc:literal, $example:literal) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = number_or_parse(d, $parse, $kind)?;
                #[allow(clippy::redundant_closure_call)]
                Ok($name(($from)(v)))
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.0.serialize_si(s)
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> String {
                stringify!($name).to_string()
            }
            fn json_schema(_: &mut schemars::r#gen::SchemaGenerator) -> schemars::schema::Schema {
                let mut s = schemars::schema::SchemaObject::default();
                s.subschemas().any_of = Some(vec![
                    schemars::schema::SchemaObject {
                        instance_type: Some(schemars::schema::InstanceType::Number.into()),
                        ..Default::default()
                    }
                    .into(),
                    schemars::schema::SchemaObject {
                        instance_type: Some(schemars::schema::InstanceType::String.into()),
                        ..Default::default()
                    }
                    .into(),
                ]);
                s.metadata().description = Some(format!("{} Example: {:?}.", $doc.trim(), $example));
                s.into()
            }
        }
    };
}

unit_type!(
    Duration,
    SimTime,
    parse_duration,
    Kind::Duration,
    |s: f64| SimTime::from_secs_f64(s),
    "A duration: a number of seconds or a string with ns, us, ms or s.",
    "50ms"
);
unit_type!(
    Rate,
    u64,
    parse_rate,
    Kind::Rate,
    |b: f64| b.round() as u64,
    "A rate in bit/s: a number or a string with bit/s, kbit/s, Mbit/s or Gbit/s.",
    "10Mbit/s"
);
unit_type!(
    Size,
    u64,
    parse_size,
    Kind::Size,
    |b: f64| b.round() as u64,
    "A size in bytes: a number or a string with B, kB, MB, KiB, MiB or GiB.",
    "64KiB"
);
unit_type!(
    Probability,
    f64,
    parse_probability,
    Kind::Probability,
    |p: f64| p,
    "A probability: a number in [0, 1] or a percentage string.",
    "1%"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_time_is_exact_ns() {
        // 1500 bytes at 10 Mbit/s = 1.2 ms exactly.
        assert_eq!(serialization_time(1500, 10_000_000), SimTime::from_us(1200));
        // 1 byte at 3 bit/s = 8/3 s, rounded up to the ns.
        assert_eq!(serialization_time(1, 3), SimTime(2_666_666_667));
    }

    #[test]
    fn quantities_serialize_as_si_numbers_that_read_back_exactly() {
        let d: Duration = serde_json::from_str("\"30ms\"").unwrap();
        assert_eq!(serde_json::to_string(&d).unwrap(), "0.03");
        let r: Rate = serde_json::from_str("\"10Mbit/s\"").unwrap();
        assert_eq!(serde_json::to_string(&r).unwrap(), "10000000");
        let b: Size = serde_json::from_str("\"64KiB\"").unwrap();
        assert_eq!(serde_json::to_string(&b).unwrap(), "65536");
        let p: Probability = serde_json::from_str("\"1%\"").unwrap();
        assert_eq!(serde_json::to_string(&p).unwrap(), "0.01");
        // Every nanosecond count up to a day survives seconds and back.
        for ns in [1, 999, 5_558_807, 1_000_000_001, 86_399_999_999_999u64] {
            let d = Duration(SimTime(ns));
            let back: Duration = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
            assert_eq!(back.0, SimTime(ns));
        }
    }

    #[test]
    fn parses_units() {
        assert_eq!(parse_duration("50ms").unwrap(), 0.05);
        assert_eq!(parse_rate("10Mbit/s").unwrap(), 1e7);
        assert_eq!(parse_size("64KiB").unwrap(), 65536.0);
        assert_eq!(parse_probability("1%").unwrap(), 0.01);
        assert!(parse_probability("150%").is_err());
        assert!(parse_duration("-1ms").is_err());
        assert!(parse_duration("5 fortnights").is_err());
    }
}
