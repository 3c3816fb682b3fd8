//! Network elements: packets, link layers (both directions of a link in one
//! sans-IO object), routes.
//!
//! - `layer.rs`: the [`LinkLayer`] seam and the I/O record the engine reads.
//! - `link_dir.rs`: the resolved parameters of one link direction.
//! - `registry.rs`: the one place link layers are registered.
//! - `topology.rs`: nodes and link directions as a graph; static routes.
//! - `routing.rs`: shortest-delay trees over a snapshot of a changing graph.
//! - `mobile.rs`: a moving network: its candidate links, snapshots, routing policy.
//! - `datagram.rs`: the connectionless transport of probe flows.
//! - `addr.rs`: node addresses.
//! - `fifo.rs`: the store-and-forward link with drop-tail queues (one event per hop).
//! - `moving.rs`: delay and visibility of a direction between moving nodes.
//! - `dvbs/`: the DVB-S forward link with ACM and SR-ARQ, and its return path.
//! - `medium.rs`: the shared-medium seam (one object for several links: a beam);
//!   `media.rs`: the one place media are registered; `beam/`: the GEO broadband beam.
//! - `dvbs2/`: the DVB-S2/S2X forward carrier a beam's terminals share.
//! - `access/`: LEO access as Starlink deploys it (the 15 s scheduler, gateways
//!   and PoPs, the terminal's access link).
pub mod access;
pub mod addr;
pub mod beam;
pub mod datagram;
pub mod dvbs;
pub mod dvbs2;
pub mod fifo;
pub mod layer;
pub mod link_dir;
pub mod media;
pub mod medium;
pub mod mobile;
pub mod moving;
pub mod packet;
pub mod rcs2;
pub mod registry;
pub mod routing;
pub mod topology;

pub use fifo::{FifoDir, FifoLink};
pub use layer::{Dir, LinkBuild, LinkIo, LinkLayer, LinkPacket, LinkStats, LossReason, Wake};
pub use link_dir::LinkDirSpec;
pub use media::{AnyMedium, CustomMedium, MediumSpec, PlanMedium};
pub use medium::{Medium, MediumBuild, MediumIo, MediumReport, MediumTable, MemberBuild};
pub use packet::{Packet, PacketStore, Payload, Slot, SlotView};
pub use registry::{AnyLinkLayer, CustomLinkLayer, LinkLayerSpec, MakeLinkLayer, MemberLink};

/// Index of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);
/// Index of a link direction: link `k` has directions `2k` (forward) and `2k + 1` (reverse).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkDirId(pub u32);
