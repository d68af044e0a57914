//! The network part of a scenario: topology shorthands, links, queues and loss modules.

use super::invalid;
use crate::error::Error;
use crate::time::{Duration, Probability, Rate, SimTime, Size};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

impl Network {
    pub(crate) fn validate(&self, flows: usize) -> Result<(), Error> {
        match self {
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
                    if ds.len() != flows {
                        return Err(invalid(
                            "network.dumbbell.access_delays",
                            format!("{} delays for {} flows (expected one per flow)", ds.len(), flows),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

impl LinkSpec {
    pub(crate) fn validate(&self, at: &str) -> Result<(), Error> {
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
    pub(crate) fn validate(&self, at: &str) -> Result<(), Error> {
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
    pub(crate) fn validate(&self, at: &str) -> Result<(), Error> {
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
