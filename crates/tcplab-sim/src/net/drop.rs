//! Why a link dropped a packet, as the packet trace records it beside every drop event: the
//! queue discipline's cause (`net::queue::DropCause`: overflow, early, sojourn) or the link's
//! loss module. The queue's own enum stays the discipline's vocabulary; this one adds the loss
//! module, which is not the queue's business.

use super::queue::DropCause as QueueCause;
use serde::Serialize;

/// The cause of a packet drop on a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropCause {
    /// The queue's buffer was full (`QueueCause::Overflow`).
    Overflow,
    /// An active queue chose it at enqueue (`QueueCause::Early`: RED).
    Early,
    /// An active queue chose it at dequeue by sojourn time (`QueueCause::Sojourn`: CoDel).
    Sojourn,
    /// The link's loss module dropped it before it reached the queue.
    Loss,
}

impl DropCause {
    /// Every cause, in the order of the trace schema's dictionary (docs/traces.md).
    pub const ALL: [DropCause; 4] = [
        DropCause::Overflow,
        DropCause::Early,
        DropCause::Sojourn,
        DropCause::Loss,
    ];

    /// The name used in traces and tables: "overflow", "early", "sojourn", "loss".
    pub const fn name(self) -> &'static str {
        match self {
            DropCause::Overflow => "overflow",
            DropCause::Early => "early",
            DropCause::Sojourn => "sojourn",
            DropCause::Loss => "loss",
        }
    }
}

impl From<QueueCause> for DropCause {
    fn from(c: QueueCause) -> Self {
        match c {
            QueueCause::Overflow => DropCause::Overflow,
            QueueCause::Early => DropCause::Early,
            QueueCause::Sojourn => DropCause::Sojourn,
        }
    }
}
