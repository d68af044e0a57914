//! Links of a scenario's network: rates, delays, queues (drop-tail, RED, Random Drop,
//! Drop-from-Front, CoDel, FQ-CoDel; see net/queue/) and loss modules.

use super::invalid;
use crate::error::Error;
use crate::time::{Duration, Probability, Rate, SimTime, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A point-to-point link, both directions.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Transmission rate of each direction.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Rate of the reverse (ACK) direction, if it differs (an asymmetric link).
    #[serde(default)]
    pub reverse_rate: Option<Rate>,
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
    /// A device (driver) queue of this many packets under each direction's queue discipline,
    /// with flow control: the discipline is asked for its next packet as soon as the device
    /// queue has room, not when the transmitter is free (ns-3's point-to-point device under its
    /// traffic-control layer; a Linux NIC's ring without BQL). Default none (0): the
    /// transmitter takes packets straight from the discipline. docs/queues.md, "Device queue".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_queue: Option<u64>,
    /// Byte Queue Limits on the device queue (needs `device_queue`): the discipline is asked
    /// for a packet only while the bytes in the device queue are under a limit that adapts to
    /// what the transmitter takes (Linux's BQL, lib/dynamic_queue_limits.c, as ns-3's
    /// `DynamicQueueLimits` ports it). Default none. docs/queues.md, "Byte Queue Limits".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bql: Option<BqlSpec>,
}

/// A device queue's Byte Queue Limits (`bql = { hold_time = "1ms" }`; every field optional).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BqlSpec {
    /// How long the least slack is watched before the limit sheds it (Linux's and ns-3's
    /// default: 1 s; ns-3's `HoldTime`, Linux's `hold_time` in sysfs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_time: Option<Duration>,
    /// The smallest limit, in bytes (default 0; `limit_min`). The limit starts there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_limit: Option<Size>,
    /// The largest limit, in bytes (default and most: Linux's DQL_MAX_LIMIT, 1879048192;
    /// `limit_max`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_limit: Option<Size>,
}

impl BqlSpec {
    /// The default hold time: Linux's `HZ` jiffies (one second), ns-3's `HoldTime`.
    pub const DEFAULT_HOLD_TIME: SimTime = SimTime::from_secs(1);

    /// A fresh limit with these settings.
    pub fn dql(&self) -> crate::net::link::Dql {
        crate::net::link::Dql::new(
            self.hold_time.map_or(Self::DEFAULT_HOLD_TIME, |d| d.0),
            self.min_limit.map_or(0, |s| s.0 as u32),
            self.max_limit
                .map_or(crate::net::link::DQL_MAX_LIMIT, |s| s.0 as u32),
        )
    }

    /// Checks the settings (`at` is the link's field path; `device_queue` its ring).
    pub(crate) fn validate(&self, device_queue: Option<u64>, at: &str) -> Result<(), Error> {
        let max = crate::net::link::DQL_MAX_LIMIT as u64;
        if device_queue.unwrap_or(0) == 0 {
            return Err(invalid(
                format!("{at}.bql"),
                "limits a device queue, and the link has none (expected device_queue >= 1 with bql)",
            ));
        }
        if self.hold_time.is_some_and(|d| d.0 == SimTime::ZERO) {
            return Err(invalid(format!("{at}.bql.hold_time"), "0 (expected a time > 0)"));
        }
        if let Some(Size(b)) = self.max_limit {
            if b > max {
                return Err(invalid(
                    format!("{at}.bql.max_limit"),
                    format!("{b} bytes (expected 0 to {max} bytes)"),
                ));
            }
        }
        let top = self.max_limit.map_or(max, |s| s.0);
        if let Some(Size(b)) = self.min_limit {
            if b > top {
                return Err(invalid(
                    format!("{at}.bql.min_limit"),
                    format!("{b} bytes (expected 0 to max_limit, {top} bytes)"),
                ));
            }
        }
        Ok(())
    }
}

impl LinkSpec {
    /// A plain link: drop-tail queue of `limit` packets, no loss module.
    pub fn plain(rate: Rate, delay: Duration, queue: QueueSpec) -> Self {
        LinkSpec {
            rate,
            delay,
            reverse_rate: None,
            queue,
            reverse_queue: None,
            loss: None,
            reverse_loss: None,
            device_queue: None,
            bql: None,
        }
    }

    /// The device queue's capacity in packets (0: none).
    pub fn device_queue_packets(&self) -> u32 {
        self.device_queue.unwrap_or(0) as u32
    }
}

/// Checks a link's `device_queue` (`at` is the link's field path).
pub(crate) fn validate_device_queue(n: Option<u64>, at: &str) -> Result<(), Error> {
    match n {
        Some(n) if n > super::budget::MAX_DEVICE_QUEUE_PACKETS => Err(invalid(
            format!("{at}.device_queue"),
            format!(
                "{n} packets (expected 0, for none, to {})",
                super::budget::MAX_DEVICE_QUEUE_PACKETS
            ),
        )),
        _ => Ok(()),
    }
}

// The queue's table is generated from the list of disciplines in net/queue/mod.rs (one line
// per discipline, each with its options sub-table); the checks common to every queue are here.
pub use crate::net::queue::{DisciplineKind as Discipline, QueueSpec, RedSpec};

impl QueueSpec {
    pub fn packets(limit: u64) -> Self {
        QueueSpec {
            limit: Some(limit),
            ..Default::default()
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
    /// Loss events at rate `p` per packet, each dropping `m` back-to-back packets
    /// (Parvez et al. 2010 Sec. IV-B).
    Bursty,
    /// A loss event starts with probability `p`; the following packets of the same flow in the
    /// same window are lost with probability `q` (Parvez et al. 2010 Sec. II-B). The window is
    /// `span_packets` packets of the flow, or the time `span` after the event's first loss.
    TwoParameter,
    /// Two-state Markov chain (Gilbert 1960, Elliott 1963): Good -> Bad with `p_gb`, Bad ->
    /// Good with `p_bg`, loss probability `loss_good` (default 0) and `loss_bad` (default 1).
    GilbertElliott,
}

impl LossKind {
    fn name(self) -> &'static str {
        match self {
            LossKind::Bernoulli => "bernoulli",
            LossKind::Periodic => "periodic",
            LossKind::Script => "script",
            LossKind::Bursty => "bursty",
            LossKind::TwoParameter => "two_parameter",
            LossKind::GilbertElliott => "gilbert_elliott",
        }
    }
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
    /// For model "bursty": packets dropped per loss event.
    #[serde(default)]
    pub m: Option<u64>,
    /// For model "two_parameter": loss probability inside a loss event.
    #[serde(default)]
    pub q: Option<Probability>,
    /// For model "two_parameter": a loss event covers this many following packets of the flow.
    #[serde(default)]
    pub span_packets: Option<u64>,
    /// For model "two_parameter": a loss event covers the flow's packets within this time.
    /// For model "bursty": a burst ends this long after its first drop, even with fewer than
    /// m packets dropped (default: no limit).
    #[serde(default)]
    pub span: Option<Duration>,
    /// For model "gilbert_elliott": transition probabilities per packet.
    #[serde(default)]
    pub p_gb: Option<Probability>,
    #[serde(default)]
    pub p_bg: Option<Probability>,
    /// For model "gilbert_elliott": loss probability in each state (defaults 0 and 1).
    #[serde(default)]
    pub loss_good: Option<Probability>,
    #[serde(default)]
    pub loss_bad: Option<Probability>,
}

impl LinkSpec {
    pub(crate) fn validate(&self, at: &str) -> Result<(), Error> {
        if self.rate.0 == 0 {
            return Err(invalid(
                format!("{at}.rate"),
                "0 bit/s is not a valid rate (expected > 0)",
            ));
        }
        if self.reverse_rate.is_some_and(|r| r.0 == 0) {
            return Err(invalid(
                format!("{at}.reverse_rate"),
                "0 bit/s is not a valid rate (expected > 0)",
            ));
        }
        self.queue.validate(&format!("{at}.queue"))?;
        validate_device_queue(self.device_queue, at)?;
        if let Some(b) = &self.bql {
            b.validate(self.device_queue, at)?;
        }
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
    pub(crate) fn validate(&self, at: &str) -> Result<(), Error> {
        match (self.limit, self.limit_bytes) {
            (Some(_), Some(_)) => {
                return Err(invalid(
                    at,
                    "both limit and limit_bytes are set (expected one of them)",
                ))
            }
            (Some(n), _) if n == 0 || n > super::budget::MAX_QUEUE_PACKETS => {
                return Err(invalid(
                    format!("{at}.limit"),
                    format!("{n} packets (expected 1 to {})", super::budget::MAX_QUEUE_PACKETS),
                ))
            }
            (_, Some(Size(b))) if b > super::budget::MAX_QUEUE_BYTES => {
                return Err(invalid(
                    format!("{at}.limit_bytes"),
                    format!(
                        "{b} bytes (expected at most {} bytes)",
                        super::budget::MAX_QUEUE_BYTES
                    ),
                ))
            }
            (_, Some(Size(0))) => {
                return Err(invalid(
                    format!("{at}.limit_bytes"),
                    "0 bytes (expected at least one packet's size)",
                ))
            }
            _ => {}
        }
        self.validate_discipline(at)
    }

    /// The capacity: `limit_bytes`, `limit`, or the discipline's default.
    pub fn limit_or_default(&self) -> crate::net::queue::Limit {
        use crate::net::queue::Limit;
        match (self.limit, self.limit_bytes) {
            (_, Some(b)) => Limit::Bytes(b.0),
            (Some(n), None) => Limit::Packets(n),
            (None, None) => self.discipline.default_limit(),
        }
    }
}

impl LossSpec {
    pub(crate) fn validate(&self, at: &str) -> Result<(), Error> {
        let model = self.model.name();
        // Which fields each model reads; any other field set is a mistake worth naming.
        let allowed: &[&str] = match self.model {
            LossKind::Bernoulli => &["p"],
            LossKind::Periodic => &["p", "n"],
            LossKind::Script => &["packets"],
            LossKind::Bursty => &["p", "m", "span"],
            LossKind::TwoParameter => &["p", "q", "span_packets", "span"],
            LossKind::GilbertElliott => &["p_gb", "p_bg", "loss_good", "loss_bad"],
        };
        let set = [
            ("p", self.p.is_some()),
            ("n", self.n.is_some()),
            ("packets", self.packets.is_some()),
            ("m", self.m.is_some()),
            ("q", self.q.is_some()),
            ("span_packets", self.span_packets.is_some()),
            ("span", self.span.is_some()),
            ("p_gb", self.p_gb.is_some()),
            ("p_bg", self.p_bg.is_some()),
            ("loss_good", self.loss_good.is_some()),
            ("loss_bad", self.loss_bad.is_some()),
        ];
        if let Some((f, _)) = set.iter().find(|(f, s)| *s && !allowed.contains(f)) {
            return Err(invalid(
                format!("{at}.{f}"),
                format!(
                    "does not apply to model \"{model}\" (expected {})",
                    allowed.join(", ")
                ),
            ));
        }
        let need = |f: &str, v: bool, what: &str| -> Result<(), Error> {
            if v {
                Ok(())
            } else {
                Err(invalid(
                    format!("{at}.{f}"),
                    format!("missing (expected {what} for model \"{model}\")"),
                ))
            }
        };
        match self.model {
            LossKind::Script => {
                need(
                    "packets",
                    self.packets.is_some(),
                    "a list of 1-based packet positions",
                )?;
                if self.packets.as_ref().is_some_and(|v| v.contains(&0)) {
                    return Err(invalid(
                        format!("{at}.packets"),
                        "0 is not a position (expected positions >= 1)",
                    ));
                }
            }
            LossKind::Bernoulli => need("p", self.p.is_some(), "a probability in [0, 1]")?,
            LossKind::Periodic => match (self.p, self.n) {
                (Some(_), Some(_)) => {
                    return Err(invalid(
                        at,
                        "both p and n are set (expected one of them for model \"periodic\")",
                    ))
                }
                (None, None) => need("n", false, "n >= 1, or p,")?,
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
            LossKind::Bursty => {
                need("p", self.p.is_some(), "a loss-event probability in [0, 1]")?;
                match self.m {
                    None => need("m", false, "m >= 1 packets per loss event")?,
                    Some(0) => {
                        return Err(invalid(
                            format!("{at}.m"),
                            "0 (expected m >= 1 packets per loss event)",
                        ))
                    }
                    _ => {}
                }
                if self.span.is_some_and(|d| d.0 == SimTime::ZERO) {
                    return Err(invalid(format!("{at}.span"), "0 (expected a time > 0)"));
                }
            }
            LossKind::TwoParameter => {
                need("p", self.p.is_some(), "a loss-event probability in [0, 1]")?;
                need(
                    "q",
                    self.q.is_some(),
                    "a loss probability in [0, 1] inside an event",
                )?;
                match (self.span_packets, self.span) {
                    (Some(_), Some(_)) => {
                        return Err(invalid(
                            at,
                            "both span_packets and span are set (expected one of them)",
                        ))
                    }
                    (None, None) => need(
                        "span_packets",
                        false,
                        "span_packets (packets of the flow) or span (a time, about one RTT)",
                    )?,
                    (Some(0), _) => {
                        return Err(invalid(format!("{at}.span_packets"), "0 (expected >= 1 packets)"))
                    }
                    (_, Some(d)) if d.0 == SimTime::ZERO => {
                        return Err(invalid(format!("{at}.span"), "0 (expected a time > 0)"))
                    }
                    _ => {}
                }
            }
            LossKind::GilbertElliott => {
                need("p_gb", self.p_gb.is_some(), "a Good -> Bad probability in [0, 1]")?;
                need("p_bg", self.p_bg.is_some(), "a Bad -> Good probability in [0, 1]")?;
            }
        }
        Ok(())
    }

    /// The period of a periodic loss module.
    pub fn period(&self) -> u64 {
        self.n
            .unwrap_or_else(|| (1.0 / self.p.map_or(1.0, |p| p.0)).round().max(1.0) as u64)
    }
}
