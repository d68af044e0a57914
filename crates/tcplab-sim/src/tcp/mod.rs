//! TCP endpoints: one shared sender (`sender.rs`), the variants' loss recovery (one file each),
//! the receiver and its ACK policy, and the retransmit-timer estimator.

pub mod receiver;
pub mod recovery;
pub mod reno;
pub mod rto;
pub mod sender;
pub mod tahoe;

use crate::net::packet::NodeId;
use crate::scenario::{AckKind, FlowSpec, Variant};
use receiver::{AckPolicy, Receiver};
use recovery::LossRecovery;
use sender::{Sender, SenderConfig};

/// The sender a flow's spec describes: the shared machinery configured, plus its variant.
pub fn sender_for(f: &FlowSpec, flow: u32, node: NodeId, peer: NodeId) -> Sender {
    let cfg = SenderConfig {
        mss: f.mss,
        header_bytes: f.header(),
        initial_window: f.initial_window,
        initial_ssthresh: f.initial_ssthresh.map_or(u64::MAX / 4, |s| s.0),
        rwnd: f.rwnd.0,
        total_bytes: f.bytes.map(|b| b.0),
        timestamps: f.timestamps,
        initial_rto: f.initial_rto.0,
        min_rto: f.min_rto.0,
        max_rto: f.max_rto.0,
        rto_granularity: f.rto_granularity.0,
    };
    let recovery = match f.tcp {
        Variant::Tahoe => LossRecovery::Tahoe(Default::default()),
        Variant::Reno => LossRecovery::Reno(Default::default()),
    };
    Sender::new(flow, node, peer, cfg, recovery)
}

/// The receiver a flow's spec describes.
pub fn receiver_for(f: &FlowSpec, flow: u32, node: NodeId, peer: NodeId) -> Receiver {
    let policy = match f.ack {
        AckKind::Immediate => AckPolicy::Immediate,
        AckKind::Delayed => AckPolicy::Delayed {
            timeout: f.delack_timeout.0,
        },
    };
    Receiver::new(flow, node, peer, f.header(), policy)
}
