//! Network elements: packets, link directions with drop-tail queues, routes.
pub mod link;
pub mod packet;

pub use link::{Enqueue, LinkDir};
pub use packet::{Packet, Payload};

/// Index of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);
/// Index of a link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkDirId(pub u32);
