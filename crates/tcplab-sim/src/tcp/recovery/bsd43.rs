//! 4.3BSD TCP before Jacobson (his Figs 3, 5 and 8, the "before" of every comparison): no fast
//! retransmit — a loss is repaired only by the retransmit timer, after which the sender goes
//! back to the first unacknowledged byte (go-back-N, which the shared sender does for every
//! variant). Its missing congestion window is the congestion control's business: `tcp =
//! "bsd43"` runs with `cc = "none"` (the receiver's whole window at once) unless told
//! otherwise. Its timer is RFC 793's (rto.rs `Rfc793`), with or without backoff.

use super::{NoOptions, Recovery};

#[derive(Clone, Debug, Default)]
pub struct Bsd43;

/// Every hook keeps its default: no fast retransmit, no window of its own.
impl Recovery for Bsd43 {
    type Options = NoOptions;
    const FAST_RETRANSMIT: bool = false;
    const BEFORE_1988: bool = true;

    fn build(_: &NoOptions) -> Self {
        Bsd43
    }
}
