//! What carries packets: links, queues and their disciplines, loss modules, topologies.

pub mod drop;
pub mod link;
pub mod loss;
pub mod packet;
pub mod queue;
pub mod topology;

pub use drop::DropCause;
