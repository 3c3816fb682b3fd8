//! The scenario file schema. Every table rejects unknown keys; every
//! quantity carries a unit. Defaults are listed in docs/scenario.md.

use crate::channel::{ApplyTo, ChannelSpec};
use crate::net::LinkLayerSpec;
use crate::pep::ProxyPolicy;
use crate::units::{Duration, Rate, Size};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

mod tcp;

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
    /// The nodes, by name.
    pub nodes: BTreeMap<String, NodeSection>,
    /// The links, by id.
    pub links: BTreeMap<String, LinkSection>,
    /// The flows, by id.
    pub flows: BTreeMap<String, FlowSection>,
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
    /// Split-proxy settings used when a flow names this node in `proxies`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<ProxySection>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProxySection {
    /// Cache size in packets (of the incoming leg's MSS). Default 200.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_packets: Option<u64>,
    /// Cache size in bytes (instead of packets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<Size>,
    /// Window policy: "half-free" (default), "third" or "buffers".
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

/// A flow's size: bytes, or unlimited (a bulk flow lasting run.duration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowSize {
    Bytes(u64),
    Unlimited,
}

impl Serialize for FlowSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            FlowSize::Bytes(b) => s.serialize_str(&Size(*b).to_string()),
            FlowSize::Unlimited => s.serialize_str("unlimited"),
        }
    }
}
impl<'de> Deserialize<'de> for FlowSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = FlowSize;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a size with a unit (e.g. \"5 MB\") or \"unlimited\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FlowSize, E> {
                if v.trim() == "unlimited" {
                    return Ok(FlowSize::Unlimited);
                }
                Size::parse(v)
                    .map(|s| FlowSize::Bytes(s.0))
                    .map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<FlowSize, E> {
                Err(E::custom(format!(
                    "size {v} has no unit: write it as a string, e.g. \"{v} B\" or \"{v} MB\""
                )))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<FlowSize, E> {
                self.visit_i64(v as i64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<FlowSize, E> {
                Err(E::custom(format!(
                    "size {v} has no unit: write it as a string, e.g. \"{v} MB\""
                )))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSection {
    /// Sending end node.
    pub from: String,
    /// Receiving end node.
    pub to: String,
    /// Node list from `from` to `to`; default: the shortest path (fewest hops).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    /// TCP variant of every leg (default "newreno").
    #[serde(default = "default_tcp")]
    pub tcp: String,
    /// Bytes to transfer, or "unlimited" / absent for a bulk flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<FlowSize>,
    /// When the flow starts. Default 0 s.
    #[serde(default)]
    pub start: Duration,
    /// Split proxies, node names in path order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proxies: Vec<String>,
    /// Per-leg TCP variants (one more than proxies); default: `tcp` on every leg.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legs: Option<Vec<String>>,
    /// TCP parameter overrides for this flow.
    #[serde(default)]
    pub options: TcpOptions,
    /// Application: absent for a file transfer (`size`) or bulk flow;
    /// "cbr" for a constant-rate datagram probe (`rate`, `packet`); "web"
    /// for web browsing sessions (`from` is the server, `to` the client;
    /// the `web` table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// web: the page model and HTTP version (defaults in docs/scenario.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web: Option<WebSection>,
    /// cbr: sending rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// cbr: datagram size on the wire (headers included). Default 1500 B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet: Option<Size>,
}

/// An HTTP version, written as a string ("1.0") or a number (1.0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum HttpVersion {
    Text(String),
    Number(f64),
}

impl HttpVersion {
    /// The version as text ("1.0", "1.1", or what was written).
    pub fn text(&self) -> String {
        match self {
            HttpVersion::Text(s) => s.clone(),
            HttpVersion::Number(x) if *x == 1.0 => "1.0".into(),
            HttpVersion::Number(x) if *x == 1.1 => "1.1".into(),
            HttpVersion::Number(x) => x.to_string(),
        }
    }
}

/// A web browsing session (`app = "web"`): pages of a main object and
/// inline objects, user think times between pages.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSection {
    /// "1.0" (a new connection per object, `parallel` at once) or "1.1"
    /// (one persistent connection, one request at a time). Default "1.1".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpVersion>,
    /// HTTP/1.0: connections at once for inline objects. Default 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<u32>,
    /// Pages per session; absent: until the run stops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<u64>,
    /// Single-object mode: every page is one object of this size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_size: Option<Size>,
    /// Every request this size (instead of the bimodal draw).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_size: Option<Size>,
    /// Bimodal request sizes: the large peak's centre. Default 250 B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_small: Option<Size>,
    /// The smaller peak's centre. Default 1 KB (1024 B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_large: Option<Size>,
    /// Share of requests in the peak near `request_large`. Default 0.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_p_large: Option<f64>,
    /// Standard deviation of each peak as a fraction of its centre. Default 0.1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_spread: Option<f64>,
    /// Pareto shape of reply (object) sizes. Default 1.1 (the studies: 1.04 to 1.14).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_alpha: Option<f64>,
    /// Pareto scale (minimum) of reply sizes. Default 1 KB (1024 B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_k: Option<Size>,
    /// Cap on a reply's size. Default none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_max: Option<Size>,
    /// Gamma mean of inline objects per page. Default 5.55.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_mean: Option<f64>,
    /// Gamma standard deviation of inline objects per page. Default 11.4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_sd: Option<f64>,
    /// Pareto shape of think times. Default 1.5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_alpha: Option<f64>,
    /// Pareto scale (minimum) of think times. Default 1 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_k: Option<Duration>,
    /// Open each new connection with a three-way handshake. Default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshake: Option<bool>,
}

fn default_tcp() -> String {
    "newreno".to_string()
}
