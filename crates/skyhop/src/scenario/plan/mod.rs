//! The resolved network a run is built from: node indices, link directions
//! with their parameters and channel stacks, link layers, and per flow its
//! path, TCP legs with resolved [`TcpConfig`]s, split proxies and application.
//!
//! [`Plan::build`] (`build.rs`) validates a [`Scenario`](super::Scenario)
//! (every range, `validate.rs`) and resolves it, one concern per file:
//! `links.rs` (directions, channel stacks, link layers), `flows.rs` (paths,
//! legs, applications), `proxies.rs`, `tcp.rs` (a leg's `TcpConfig` from the
//! flow's options, `[tcp]` and the profile; AeroTCP's allocation) and
//! `warnings.rs` (receive windows, proxy caches and queues below the
//! bandwidth-delay product).

mod build;
mod flows;
mod links;
mod proxies;
mod tcp;
mod warnings;

use super::schema::{FlowSize, Profile};
use crate::app::AppSpec;
use crate::engine::time::Dur;
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
}

pub struct Plan {
    pub nodes: Vec<String>,
    /// Link directions; link `k` is `links[2k]` (forward) and `links[2k+1]` (reverse).
    pub links: Vec<LinkDirSpec>,
    /// Link layers, one per link (both directions).
    pub layers: Vec<PlanLayer>,
    pub flows: Vec<PlanFlow>,
    pub duration: Dur,
    pub event_budget: u64,
    pub warnings: Vec<String>,
}

/// A leg's capacity figures: the slowest direction of its data path, its
/// round trip (propagation there and back plus the transmission of one full
/// segment and of its ACK on every hop), bandwidth-delay product, and the
/// bytes of a full segment on the wire.
pub struct LegNumbers {
    pub bottleneck: u64,
    pub rtt: Dur,
    pub bdp: u64,
    pub packet: u64,
}

impl Plan {
    /// The capacity figures of leg `l` of flow `f`.
    pub fn leg_numbers(&self, f: usize, l: usize) -> LegNumbers {
        let leg = &self.flows[f].legs[l];
        let packet = (leg.cfg.mss + leg.cfg.header_bytes) as u64;
        let ack = leg.cfg.header_bytes as u64;
        let mut rtt = Dur::ZERO;
        for &d in &leg.fwd {
            let ld = &self.links[d as usize];
            rtt = rtt + ld.delay + Dur::transmission(packet, ld.rate_bps);
        }
        for &d in &leg.rev {
            let ld = &self.links[d as usize];
            rtt = rtt + ld.delay + Dur::transmission(ack, ld.rate_bps);
        }
        let bottleneck = leg
            .fwd
            .iter()
            .map(|&d| self.links[d as usize].rate_bps)
            .min()
            .unwrap_or(1);
        LegNumbers {
            bottleneck,
            rtt,
            bdp: (bottleneck as f64 / 8.0 * rtt.as_secs_f64()).round() as u64,
            packet,
        }
    }
}
