//! The scenario schema: the single source of truth for a run's inputs. TOML in, unknown keys
//! rejected, unit strings accepted for every quantity, `--set dotted.path=value` overrides, and
//! validation that names the field, the value and what was expected.

use crate::error::Error;
use crate::time::{Duration, Probability, Rate, SimTime, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A label for the run.
    #[serde(default)]
    pub name: Option<String>,
    /// Seed of every random stream in the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time to run.
    pub duration: Duration,
    /// Instruments report from this time on (the measurement window is [warmup, duration]).
    #[serde(default = "zero_duration")]
    pub warmup: Duration,
    pub network: Network,
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub trace: TraceSpec,
}

fn default_seed() -> u64 {
    1
}
fn zero_duration() -> Duration {
    Duration(SimTime::ZERO)
}

/// The network: one of the topology shorthands.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Network {
    /// A chain of hops from the sender to the receiver; ACKs return over the reverse
    /// direction of the same links. Every flow runs end to end.
    Path(PathSpec),
    /// N senders and N receivers (one pair per flow) joined by access links to two routers
    /// and one shared bottleneck between them.
    Dumbbell(DumbbellSpec),
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathSpec {
    pub hops: Vec<LinkSpec>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    pub bottleneck: LinkSpec,
    /// Rate of every access link.
    #[serde(default = "default_access_rate")]
    pub access_rate: Rate,
    /// One-way delay of each access link (sender side and receiver side).
    #[serde(default = "default_access_delay")]
    pub access_delay: Duration,
    /// Per-flow delay of the sender-side access link (one per flow), overriding access_delay.
    #[serde(default)]
    pub access_delays: Option<Vec<Duration>>,
    /// Queue of each access link.
    #[serde(default = "default_access_queue")]
    pub access_queue: QueueSpec,
}

fn default_access_rate() -> Rate {
    Rate(1_000_000_000)
}
fn default_access_delay() -> Duration {
    Duration(SimTime::from_ms(1))
}
fn default_access_queue() -> QueueSpec {
    QueueSpec {
        discipline: Discipline::Droptail,
        limit: Some(1000),
        limit_bytes: None,
    }
}

/// A point-to-point link, both directions.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Transmission rate of each direction.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Queue in the forward (data) direction.
    #[serde(default)]
    pub queue: QueueSpec,
    /// Queue in the reverse (ACK) direction; defaults to the forward queue's settings.
    #[serde(default)]
    pub reverse_queue: Option<QueueSpec>,
    /// Loss module in the forward (data) direction.
    #[serde(default)]
    pub loss: Option<LossSpec>,
    /// Loss module in the reverse (ACK) direction.
    #[serde(default)]
    pub reverse_loss: Option<LossSpec>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Discipline {
    Droptail,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    #[serde(default = "default_discipline")]
    pub discipline: Discipline,
    /// Capacity in packets (default 100 if neither limit is given).
    #[serde(default)]
    pub limit: Option<u64>,
    /// Capacity in bytes (instead of packets).
    #[serde(default)]
    pub limit_bytes: Option<Size>,
}

fn default_discipline() -> Discipline {
    Discipline::Droptail
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            discipline: Discipline::Droptail,
            limit: None,
            limit_bytes: None,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum LossKind {
    /// Each packet lost independently with probability `p`.
    Bernoulli,
    /// Exactly every `n`-th packet lost (or every round(1/p)-th if `p` is given).
    Periodic,
    /// The packets at the 1-based arrival positions listed in `packets` are lost.
    Script,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LossSpec {
    pub model: LossKind,
    #[serde(default)]
    pub p: Option<Probability>,
    #[serde(default)]
    pub n: Option<u64>,
    /// For model "script": 1-based positions of the arrivals to drop.
    #[serde(default)]
    pub packets: Option<Vec<u64>>,
}

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

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Record (time, cwnd, ssthresh) of every flow at every change.
    #[serde(default)]
    pub cwnd: bool,
    /// Record the queue length of every link direction at every change.
    #[serde(default)]
    pub queue: bool,
    /// Link directions (by name, e.g. "hop0.fwd") whose packet events are recorded: enqueue
    /// "+", dequeue "-", drop "d", receive at the far end "r" (ns-2's trace vocabulary).
    #[serde(default)]
    pub links: Vec<String>,
    /// Points kept per trace before it stops recording (marked truncated).
    #[serde(default = "default_trace_points")]
    pub max_points: u64,
}

fn default_trace_points() -> u64 {
    1_000_000
}

impl Default for TraceSpec {
    fn default() -> Self {
        TraceSpec {
            cwnd: false,
            queue: false,
            links: Vec::new(),
            max_points: default_trace_points(),
        }
    }
}

/// The JSON Schema of scenario files.
pub fn json_schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(Scenario)).expect("schema serializes")
}

/// Parses TOML text, applies `key=value` overrides, deserializes and validates.
pub fn parse(text: &str, overrides: &[(String, String)]) -> Result<Scenario, Error> {
    let mut doc: toml::Value = toml::from_str(text).map_err(|e| toml_error(text, &e))?;
    for (path, value) in overrides {
        set_path(&mut doc, path, value)?;
    }
    from_value(doc)
}

/// "line L, column C: message" for a TOML syntax error.
fn toml_error(text: &str, e: &toml::de::Error) -> Error {
    let msg = e.message().trim().replace('\n', "; ");
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            Error::Toml(format!("line {line}, column {col}: {msg}"))
        }
        None => Error::Toml(msg),
    }
}

/// Deserializes a TOML value (also what Python dicts become), then validates.
pub fn from_value(doc: toml::Value) -> Result<Scenario, Error> {
    let scenario: Scenario = serde_path_to_error::deserialize(doc).map_err(|e| {
        let path = e.path().to_string();
        Error::Invalid {
            field: if path == "." { "scenario".into() } else { path },
            // toml appends its own, less precise key path on a second line: keep the first.
            message: e
                .into_inner()
                .to_string()
                .lines()
                .next()
                .unwrap_or_default()
                .trim()
                .to_string(),
        }
    })?;
    scenario.validate()?;
    Ok(scenario)
}

/// `--set a.b.0.c=value`: the value is read as a TOML literal (number, bool, string, array,
/// inline table), falling back to a plain string ("10Mbit/s" needs no quotes).
pub fn set_path(doc: &mut toml::Value, path: &str, raw: &str) -> Result<(), Error> {
    let bad = |m: String| Error::Override {
        path: path.to_string(),
        message: m,
    };
    let value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(bad("empty path segment".into()));
    }
    let mut cur = doc;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let here = parts[..i].join(".");
        cur = match cur {
            toml::Value::Table(t) => {
                if last {
                    t.insert(part.to_string(), value);
                    return Ok(());
                }
                t.entry(part.to_string())
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            }
            toml::Value::Array(a) => {
                let idx: usize = part
                    .parse()
                    .map_err(|_| bad(format!("{here} is a list; expected an index, got {part:?}")))?;
                let n = a.len();
                let slot = a
                    .get_mut(idx)
                    .ok_or_else(|| bad(format!("{here} has {n} entries; index {idx} is out of range")))?;
                if last {
                    *slot = value;
                    return Ok(());
                }
                slot
            }
            _ => return Err(bad(format!("{here} is a value, not a table or list"))),
        };
    }
    unreachable!("the loop returns at the last segment")
}

fn invalid(field: impl Into<String>, message: impl Into<String>) -> Error {
    Error::Invalid {
        field: field.into(),
        message: message.into(),
    }
}

impl Scenario {
    pub fn validate(&self) -> Result<(), Error> {
        if self.duration.0 == SimTime::ZERO {
            return Err(invalid("duration", "0 is not a valid run length (expected > 0)"));
        }
        if self.warmup.0 >= self.duration.0 {
            return Err(invalid(
                "warmup",
                format!(
                    "{} is not before duration {} (expected warmup < duration)",
                    self.warmup.0, self.duration.0
                ),
            ));
        }
        if self.flows.is_empty() {
            return Err(invalid(
                "flows",
                "no flows (expected at least one [[flows]] table)",
            ));
        }
        match &self.network {
            Network::Path(p) => {
                if p.hops.is_empty() {
                    return Err(invalid(
                        "network.path.hops",
                        "no hops (expected at least one link)",
                    ));
                }
                for (i, h) in p.hops.iter().enumerate() {
                    h.validate(&format!("network.path.hops[{i}]"))?;
                }
            }
            Network::Dumbbell(d) => {
                d.bottleneck.validate("network.dumbbell.bottleneck")?;
                if d.access_rate.0 == 0 {
                    return Err(invalid(
                        "network.dumbbell.access_rate",
                        "0 bit/s is not a valid rate (expected > 0)",
                    ));
                }
                d.access_queue.validate("network.dumbbell.access_queue")?;
                if let Some(ds) = &d.access_delays {
                    if ds.len() != self.flows.len() {
                        return Err(invalid(
                            "network.dumbbell.access_delays",
                            format!(
                                "{} delays for {} flows (expected one per flow)",
                                ds.len(),
                                self.flows.len()
                            ),
                        ));
                    }
                }
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            f.validate(&format!("flows[{i}]"))?;
        }
        if self.trace.max_points == 0 {
            return Err(invalid("trace.max_points", "0 (expected at least 1)"));
        }
        Ok(())
    }
}

impl LinkSpec {
    fn validate(&self, at: &str) -> Result<(), Error> {
        if self.rate.0 == 0 {
            return Err(invalid(
                format!("{at}.rate"),
                "0 bit/s is not a valid rate (expected > 0)",
            ));
        }
        self.queue.validate(&format!("{at}.queue"))?;
        if let Some(q) = &self.reverse_queue {
            q.validate(&format!("{at}.reverse_queue"))?;
        }
        if let Some(l) = &self.loss {
            l.validate(&format!("{at}.loss"))?;
        }
        if let Some(l) = &self.reverse_loss {
            l.validate(&format!("{at}.reverse_loss"))?;
        }
        Ok(())
    }
}

impl QueueSpec {
    fn validate(&self, at: &str) -> Result<(), Error> {
        match (self.limit, self.limit_bytes) {
            (Some(_), Some(_)) => Err(invalid(
                at,
                "both limit and limit_bytes are set (expected one of them)",
            )),
            (Some(0), _) => Err(invalid(format!("{at}.limit"), "0 packets (expected at least 1)")),
            (_, Some(Size(0))) => Err(invalid(
                format!("{at}.limit_bytes"),
                "0 bytes (expected at least one packet's size)",
            )),
            _ => Ok(()),
        }
    }

    pub fn limit_or_default(&self) -> crate::net::queue::Limit {
        use crate::net::queue::Limit;
        match (self.limit, self.limit_bytes) {
            (_, Some(b)) => Limit::Bytes(b.0),
            (Some(n), None) => Limit::Packets(n),
            (None, None) => Limit::Packets(100),
        }
    }
}

impl LossSpec {
    fn validate(&self, at: &str) -> Result<(), Error> {
        if self.model != LossKind::Script && self.packets.is_some() {
            return Err(invalid(
                format!("{at}.packets"),
                "applies only to model \"script\"",
            ));
        }
        match self.model {
            LossKind::Script => {
                if self.p.is_some() || self.n.is_some() {
                    return Err(invalid(
                        at,
                        "p and n do not apply to model \"script\" (expected packets = [...])",
                    ));
                }
                match &self.packets {
                    None => {
                        return Err(invalid(
                            format!("{at}.packets"),
                            "missing (expected a list of 1-based packet positions)",
                        ))
                    }
                    Some(v) if v.contains(&0) => {
                        return Err(invalid(
                            format!("{at}.packets"),
                            "0 is not a position (expected positions >= 1)",
                        ))
                    }
                    _ => {}
                }
            }
            LossKind::Bernoulli => {
                if self.n.is_some() {
                    return Err(invalid(
                        format!("{at}.n"),
                        "does not apply to model \"bernoulli\" (expected p)",
                    ));
                }
                if self.p.is_none() {
                    return Err(invalid(
                        format!("{at}.p"),
                        "missing (expected a probability in [0, 1] for model \"bernoulli\")",
                    ));
                }
            }
            LossKind::Periodic => match (self.p, self.n) {
                (Some(_), Some(_)) => {
                    return Err(invalid(
                        at,
                        "both p and n are set (expected one of them for model \"periodic\")",
                    ))
                }
                (None, None) => {
                    return Err(invalid(
                        format!("{at}.n"),
                        "missing (expected n >= 1, or p, for model \"periodic\")",
                    ))
                }
                (_, Some(0)) => {
                    return Err(invalid(
                        format!("{at}.n"),
                        "0 (expected n >= 1: every n-th packet is lost)",
                    ))
                }
                (Some(p), None) if p.0 <= 0.0 => {
                    return Err(invalid(
                        format!("{at}.p"),
                        "0 (expected p in (0, 1] for model \"periodic\")",
                    ))
                }
                _ => {}
            },
        }
        Ok(())
    }

    /// The period of a periodic loss module.
    pub fn period(&self) -> u64 {
        self.n
            .unwrap_or_else(|| (1.0 / self.p.map_or(1.0, |p| p.0)).round().max(1.0) as u64)
    }
}

impl FlowSpec {
    fn validate(&self, at: &str) -> Result<(), Error> {
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
