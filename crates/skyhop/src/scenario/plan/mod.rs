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
//! bandwidth-delay product), `motion.rs` (places, motion, constellations,
//! routing of moving networks).

mod build;
mod flows;
mod links;
mod motion;
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
    pub flows: Vec<PlanFlow>,
    pub duration: Dur,
    pub event_budget: u64,
    pub warnings: Vec<String>,
    /// The moving network (positions, motion, constellation, routing) of
    /// a scenario that moves; `None`: static routes.
    pub motion: Option<crate::net::mobile::MotionPlan>,
    /// The moving network at the start of the run, built on first use (for
    /// the capacity figures of legs that cross it).
    pub(crate) moving_start: std::sync::OnceLock<MovingStart>,
}

/// A moving network's graph at time 0 and the candidate links' classes.
pub(crate) struct MovingStart {
    net: crate::net::mobile::MovingNet,
    graph: crate::net::routing::Graph,
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
    /// The leg crosses a moving network: the figures are those of its
    /// route at the start of the run, these nodes (empty: no route then).
    pub moving: Option<Vec<u32>>,
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

    /// The capacity figures of leg `l` of flow `f`.
    pub fn leg_numbers(&self, f: usize, l: usize) -> LegNumbers {
        let leg = &self.flows[f].legs[l];
        let packet = (leg.cfg.mss + leg.cfg.header_bytes) as u64;
        let ack = leg.cfg.header_bytes as u64;
        // Hops (rate, one-way delay) of the data path; the ACKs return over
        // the same links.
        let (hops, moving) = match self.moving_hops(leg) {
            Some((path, h)) => (h, Some(path)),
            None => {
                let fwd = leg.fwd.iter().map(|&d| &self.links[d as usize]);
                let rev = leg.rev.iter().map(|&d| &self.links[d as usize]);
                let mut rtt = Dur::ZERO;
                for ld in fwd.clone() {
                    rtt = rtt + ld.delay + Dur::transmission(packet, ld.rate_bps);
                }
                for ld in rev {
                    rtt = rtt + ld.delay + Dur::transmission(ack, ld.rate_bps);
                }
                let bottleneck = fwd.map(|ld| ld.rate_bps).min().unwrap_or(1);
                return LegNumbers {
                    bottleneck,
                    rtt,
                    bdp: (bottleneck as f64 / 8.0 * rtt.as_secs_f64()).round() as u64,
                    packet,
                    moving: None,
                };
            }
        };
        let mut rtt = Dur::ZERO;
        for &(rate, delay) in &hops {
            rtt = rtt
                + delay
                + Dur::transmission(packet, rate)
                + delay
                + Dur::transmission(ack, rate);
        }
        let bottleneck = hops.iter().map(|h| h.0).min().unwrap_or(1);
        LegNumbers {
            bottleneck,
            rtt,
            bdp: (bottleneck as f64 / 8.0 * rtt.as_secs_f64()).round() as u64,
            packet,
            moving,
        }
    }

    /// For a leg that crosses the moving network (its plan links do not
    /// join its ends): the hops of its shortest-delay route at time 0, as
    /// (rate, one-way delay), and its nodes; empty when the ends are not
    /// joined then. `None` for a leg over plan links only.
    #[allow(clippy::type_complexity)]
    fn moving_hops(&self, leg: &PlanLeg) -> Option<(Vec<u32>, Vec<(u64, Dur)>)> {
        let motion = self.motion.as_ref()?;
        if leg.fwd.len() + 1 == leg.path.len() {
            return None;
        }
        let start = self.moving_start.get_or_init(|| {
            let mut net = crate::net::mobile::MovingNet::new(motion.clone(), &self.link_ends());
            let graph = net.snapshot(0.0, None);
            MovingStart { net, graph }
        });
        let (src, dst) = (*leg.path.first()?, *leg.path.last()?);
        let (mut dist, mut next) = (Vec::new(), Vec::new());
        start.graph.tree_to(dst, &mut dist, &mut next);
        let path = crate::net::routing::path_from(&next, src, dst, start.graph.nodes());
        let hops = path
            .windows(2)
            .map(|w| {
                let delay = Dur(start.graph.weight(w[0], w[1]).unwrap_or(0));
                let rate = match self.links.iter().find(|d| (d.from, d.to) == (w[0], w[1])) {
                    Some(d) => d.rate_bps,
                    None => start
                        .net
                        .link_kind(w[0], w[1])
                        .map_or(1, |(c, _)| motion.classes[c].rate_bps),
                };
                (rate, delay)
            })
            .collect();
        Some((path, hops))
    }
}
