//! Network elements: packets, link layers (both directions of a link in one
//! sans-IO object), routes.
//!
//! - `layer.rs`: the [`LinkLayer`] seam and the I/O record the engine reads.
//! - `fifo.rs`: the store-and-forward link with drop-tail queues (one event per hop).
//! - `dvbs/`: the DVB-S forward link with ACM and SR-ARQ, and its return path.
pub mod dvbs;
pub mod fifo;
pub mod layer;
pub mod packet;

pub use fifo::{FifoDir, FifoLink};
pub use layer::{
    AnyLinkLayer, CustomLinkLayer, Dir, LinkBuild, LinkIo, LinkLayer, LinkLayerSpec, LinkPacket,
    LinkStats, LossReason, Wake,
};
pub use packet::{Packet, Payload};

/// Index of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);
/// Index of a link direction: link `k` has directions `2k` (forward) and `2k + 1` (reverse).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkDirId(pub u32);
