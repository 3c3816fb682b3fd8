//! The resolved network a run is built from: node indices, link directions
//! with their parameters and channel stacks, link layers, and per flow its
//! path, TCP legs with resolved [`TcpConfig`]s, split proxies and application.
//!
//! [`Plan::build`] (`build.rs`) validates a [`Scenario`](super::Scenario)
//! (every range, `validate.rs`) and resolves it, one concern per file:
//! `links.rs` (directions, channel stacks, link layers), `flows.rs` (paths,
//! legs, applications), `figures.rs` (each leg's bottleneck, round trips
//! and bandwidth-delay products, computed once), `proxies.rs`, `tcp.rs` (a leg's `TcpConfig` from the
//! flow's options, `[tcp]` and the profile; AeroTCP's allocation) and
//! `warnings.rs` (receive windows, proxy caches and queues below the
//! bandwidth-delay product), `motion.rs` (places, motion, constellations,
//! routing of moving networks).

mod access;
mod beams;
mod build;
mod figures;
mod flows;
mod links;
mod motion;
mod proxies;
mod tcp;
mod warnings;

pub use build::plan_builds;
pub use figures::{bytes_in, LegFigures};
pub(crate) use proxies::policy_word;
pub use proxies::{quic_stretches, QuicStretch};

use super::schema::{FlowSize, Profile};
use crate::app::AppSpec;
use crate::engine::time::Dur;
use crate::net::topology::Topology;
use crate::net::{LinkDirSpec, LinkLayerSpec};
use crate::pep::ProxyPolicy;
use crate::tcp::TcpConfig;

/// One link: its two directions are `links[2k]` (forward) and `links[2k+1]`.
pub struct PlanLayer {
    pub name: String,
    pub spec: LinkLayerSpec,
}

/// A sender built by user code for a leg (tests of the controller and
/// recovery seams, extensions).
#[derive(Clone)]
pub struct SenderFactory(
    pub std::sync::Arc<dyn Fn(TcpConfig) -> crate::tcp::TcpSender + Send + Sync>,
);

pub struct PlanLeg {
    /// Node indices of the leg's path.
    pub path: Vec<u32>,
    /// Build the leg's sender with this instead of the variant's registry entry.
    pub make_sender: Option<SenderFactory>,
    /// The profile whose defaults the leg runs with.
    pub profile: Profile,
    pub variant_name: String,
    pub cfg: TcpConfig,
    /// Link directions from the leg's sender to its receiver, and back.
    pub fwd: Vec<u32>,
    pub rev: Vec<u32>,
    /// Its bottleneck, round trips and bandwidth-delay products, computed
    /// once (`figures.rs`).
    pub figures: LegFigures,
}

#[derive(Clone)]
pub struct PlanProxy {
    pub node: u32,
    pub policy: ProxyPolicy,
    /// Cache (half-free, third) or receive buffer (buffers), bytes.
    pub cache_bytes: u64,
    /// `buffers` policy: send buffer of the outgoing leg.
    pub send_buffer: u64,
    pub ack_after_forward: bool,
    /// A QUIC flow's connection ends here and a new one, with these
    /// settings, runs onward: a QUIC-terminating proxy relaying the
    /// streams under the same policy and cache (`pep::QuicRelay`).
    /// `None`: a split-TCP proxy, which a QUIC flow's packets pass through.
    pub quic: Option<crate::quic::QuicConfig>,
}

pub struct PlanFlow {
    pub name: String,
    pub start: Dur,
    pub size: FlowSize,
    /// The application driving the flow.
    pub app: AppSpec,
    pub path: Vec<u32>,
    pub legs: Vec<PlanLeg>,
    pub proxies: Vec<PlanProxy>,
    /// The flow runs over QUIC with these settings, end to end (its legs
    /// only give its path; split proxies on it pass its packets through);
    /// `None`: TCP.
    pub quic: Option<crate::quic::QuicConfig>,
}

pub struct Plan {
    pub nodes: Vec<String>,
    /// Link directions; link `k` is `links[2k]` (forward) and `links[2k+1]` (reverse).
    pub links: Vec<LinkDirSpec>,
    /// Link layers, one per link (both directions).
    pub layers: Vec<PlanLayer>,
    /// Shared media (beams), each over some of the links.
    pub media: Vec<crate::net::PlanMedium>,
    /// The nodes and link directions as a graph: the flows' fewest-hop
    /// paths came from it, and so do the routes of packets from outside.
    pub topology: Topology,
    pub flows: Vec<PlanFlow>,
    pub duration: Dur,
    pub event_budget: u64,
    pub warnings: Vec<String>,
    /// The moving network (positions, motion, constellation, routing) of
    /// a scenario that moves; `None`: static routes.
    pub motion: Option<crate::net::mobile::MotionPlan>,
}

impl Plan {
    /// Each link's (from, to, delay) of its forward direction: the plan's
    /// links as a moving network takes them.
    pub fn link_ends(&self) -> Vec<(u32, u32, Dur)> {
        (0..self.layers.len())
            .map(|k| {
                let d = &self.links[2 * k];
                (d.from, d.to, d.delay)
            })
            .collect()
    }
}
