//! The scenario file schema. Every table rejects unknown keys; every
//! quantity carries a unit. Defaults are listed in docs/scenario.md.

use crate::channel::{ApplyTo, ChannelSpec};
use crate::net::LinkLayerSpec;
use crate::pep::ProxyPolicy;
use crate::units::{Duration, Rate, Size};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod access;
mod flow;
mod motion;
mod tcp;

pub use crate::quic::params::{QuicControllerName, QuicOptions, Transport};
pub use access::*;
pub use flow::{FlowSection, FlowSize};
pub use motion::*;
pub use tcp::*;

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A short name of the scenario (shown in reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Free text describing the scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Stop time, seeds and runs.
    #[serde(default)]
    pub run: RunSection,
    /// TCP defaults for every flow (each flow may override in `options`).
    #[serde(default)]
    pub tcp: TcpOptions,
    /// QUIC defaults for every flow with `transport = "quic"` (each flow
    /// may override in its `quic` table).
    #[serde(default, skip_serializing_if = "QuicOptions::is_empty")]
    pub quic: QuicOptions,
    /// The nodes, by name.
    pub nodes: BTreeMap<String, NodeSection>,
    /// The links, by id (may be empty when a constellation joins the nodes).
    #[serde(default)]
    pub links: BTreeMap<String, LinkSection>,
    /// The flows, by id (none only when a node is marked `live = true`).
    #[serde(default)]
    pub flows: BTreeMap<String, FlowSection>,
    /// A LEO constellation (docs/leo.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constellation: Option<ConstellationSection>,
    /// Routing of a moving network (docs/leo.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routing: Option<RoutingSection>,
    /// How ground nodes reach the constellation: "geometric" (default),
    /// "starlink", or an `[access]` table (docs/leo.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<AccessSetting>,
    /// GEO broadband beams, by id: links joining one gateway to its
    /// terminals, sharing a DVB-S2 forward carrier and a DVB-RCS2 return
    /// link (docs/scenario.md).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub beams: BTreeMap<String, crate::net::beam::BeamSpec>,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// Stop time; bulk flows send until then. Default: 230 s if any flow is
    /// bulk, else 3600 s as an upper bound for file transfers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
    /// Base seed; run i of N uses seed + i.
    #[serde(default = "one")]
    pub seed: u64,
    /// Independent runs by default (the command line's --runs overrides).
    #[serde(default = "one_u32")]
    pub runs: u32,
    /// Maximum events one run may process before it stops with an error.
    #[serde(default = "default_budget")]
    pub event_budget: u64,
}

fn one() -> u64 {
    1
}
fn one_u32() -> u32 {
    1
}
fn default_budget() -> u64 {
    2_000_000_000
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            duration: None,
            seed: 1,
            runs: 1,
            event_budget: default_budget(),
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeSection {
    /// Ground position (degrees): links to a GEO node get their delay from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat: Option<f64>,
    /// Ground longitude (degrees east; west negative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lon: Option<f64>,
    /// A GEO satellite at this longitude (degrees east; west negative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geo_longitude: Option<f64>,
    /// Height above the ground at (lat, lon), e.g. "1 km" (a UAV), "20 km"
    /// (a HAPS), "10 km" (an aircraft). Default 0 m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub altitude: Option<crate::units::Length>,
    /// Motion along waypoints (instead of lat/lon).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<RouteSection>,
    /// Split-proxy settings used when a flow names this node in `proxies`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<ProxySection>,
    /// A real host in `skyhop live` (its own network namespace and TUN
    /// device carrying the node's address), also without a command of its
    /// own; a simulation ignores it. A scenario whose nodes include a live
    /// one needs no flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live: Option<bool>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProxySection {
    /// Cache size in packets (of the incoming leg's MSS). Default 200 (with
    /// profile "studies", or when a policy is named).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_packets: Option<u64>,
    /// Cache size in bytes (instead of packets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<Size>,
    /// Window policy: "half-free", "third" or "buffers". Default: with no
    /// policy and no size given, "buffers" with the flow's receive and send
    /// buffers (a relay process on a Linux host); "half-free" with profile
    /// "studies".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<ProxyPolicyName>,
    /// `buffers` policy: receive buffer of the incoming leg, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recv_buffer: Option<Size>,
    /// `buffers` policy: send buffer of the outgoing leg, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_buffer: Option<Size>,
    /// On-board integrity rule: acknowledge an incoming segment only once it
    /// has been transmitted on the outgoing leg.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_after_forward: Option<bool>,
}

/// A proxy's window policy by name (`nodes.<id>.proxy.policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ProxyPolicyName {
    HalfFree,
    Third,
    Buffers,
}

impl ProxyPolicyName {
    pub fn policy(self) -> ProxyPolicy {
        match self {
            ProxyPolicyName::HalfFree => ProxyPolicy::HalfFree,
            ProxyPolicyName::Third => ProxyPolicy::Third,
            ProxyPolicyName::Buffers => ProxyPolicy::Buffers,
        }
    }
}

/// Per-direction settings; anything unset falls back to the link's own.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirSection {
    /// Bit rate of this direction (default: the link's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// One-way propagation delay of this direction (default: the link's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
    /// Drop-tail queue limit in packets waiting (default: the link's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<u32>,
    /// Uniform packet error rate of this direction (default: the link's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<f64>,
    /// Bit error rate of this direction (default: the link's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ber: Option<f64>,
    /// "data", "acks" or "both".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors_apply_to: Option<ApplyTo>,
    /// Channel model of this direction as a tagged table
    /// (`{ model = "per", p = 0.01 }`); `per`/`ber` are shorthands for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<ChannelSpec>,
    /// Exact losses for tests: first bytes of data segments dropped on their
    /// first transmission in this direction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drop_segments: Vec<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSection {
    /// The two nodes; "forward" is from the first to the second.
    pub between: Vec<String>,
    /// Bit rate of each direction. Required unless both directions give one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// One-way propagation delay; default: from the nodes' positions (GEO slant range), else required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
    /// Drop-tail queue limit in packets (waiting, not in service). Default 50.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<u32>,
    /// Uniform packet error rate, both directions unless overridden.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<f64>,
    /// Bit error rate, both directions unless overridden.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ber: Option<f64>,
    /// Which packets `per`/`ber` hit: "data", "acks" or "both" (default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors_apply_to: Option<ApplyTo>,
    /// Channel model of both directions unless overridden (a tagged table,
    /// e.g. `{ model = "ber", ber = 1e-6 }`); `per`/`ber` are shorthands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<ChannelSpec>,
    /// Degrees: the link is up while its lower end sees the other at least
    /// this high (nodes with places).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_elevation: Option<f64>,
    /// Link layer of the link (both directions): default `{ model = "fifo" }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_layer: Option<LinkLayerSpec>,
    /// Overrides for the forward direction (first node to second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward: Option<DirSection>,
    /// Overrides for the reverse direction (second node to first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<DirSection>,
}
