//! Why a packet was dropped. The trace records it beside every drop event, so a packet trace
//! tells a queue's own decision from a loss module's draw.

use serde::Serialize;

/// The cause of a packet drop on a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropCause {
    /// The queue discipline dropped it (drop-tail overflow, RED's early drop, Random Drop's
    /// or Drop-from-Front's choice).
    Queue,
    /// The link's loss module dropped it before it reached the queue.
    Loss,
}

impl DropCause {
    /// Every cause, in the order of the trace schema's dictionary (docs/traces.md).
    pub const ALL: [DropCause; 2] = [DropCause::Queue, DropCause::Loss];

    /// The name used in traces and tables: "queue", "loss".
    pub const fn name(self) -> &'static str {
        match self {
            DropCause::Queue => "queue",
            DropCause::Loss => "loss",
        }
    }
}
