//! TCP endpoints: one shared sender (`sender.rs`), the variants' loss recovery (one file each),
//! the receiver and its ACK policy, and the retransmit-timer estimator.

pub mod receiver;
pub mod recovery;
pub mod reno;
pub mod rto;
pub mod sender;
pub mod tahoe;
