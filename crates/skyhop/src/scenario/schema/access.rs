//! How user nodes reach a constellation (`access`, docs/leo.md): the
//! geometric model (the default: a ground node links to any satellite it
//! sees, routes are shortest-delay trees) or Starlink as deployed (the
//! `starlink` preset: terminals behind dishes on 15 s epochs, gateways with
//! fibre to points of presence).

use crate::net::access::AccessLinkSpec;
use crate::units::{Length, Rate};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `access = "geometric" | "starlink"`, or a table (`[access]`).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum AccessSetting {
    Model(AccessModel),
    Table(Box<AccessSection>),
}

/// A name or a table, each with its own errors (an untagged enum would
/// say only that nothing matched).
impl<'de> Deserialize<'de> for AccessSetting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = AccessSetting;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("\"geometric\", \"starlink\" or a table")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<AccessSetting, E> {
                AccessModel::deserialize(serde::de::value::StrDeserializer::new(v))
                    .map(AccessSetting::Model)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                m: A,
            ) -> Result<AccessSetting, A::Error> {
                AccessSection::deserialize(serde::de::value::MapAccessDeserializer::new(m))
                    .map(|t| AccessSetting::Table(Box::new(t)))
            }
        }
        d.deserialize_any(V)
    }
}

/// The access model.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum AccessModel {
    /// Ground nodes link to the satellites they see (default).
    #[default]
    Geometric,
    /// Starlink's access network (docs/leo.md, "Starlink as deployed").
    Starlink,
}

/// A gateway or PoP of the scenario's own (`access.sites.<name>`).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AccessSiteSection {
    /// "gateway" or "pop".
    pub kind: SiteKindName,
    pub lat: f64,
    pub lon: f64,
    /// Gateways: lowest elevation of their satellites, degrees (default 25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_elevation: Option<f64>,
    /// Gateways: satellites tracked at once (default 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub antennas: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SiteKindName {
    Gateway,
    Pop,
}

/// Rate and queue of the links the preset adds (`access.feeder`, `access.fibre`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AccessLinkClassSection {
    /// Bit rate of each direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Packets waiting per direction (default 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<u32>,
}

/// `[access]`: the `starlink` preset and what it may change.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AccessSection {
    /// "starlink" (default for a table) or "geometric".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<AccessModel>,
    /// User terminals (nodes with lat/lon). Default: the constellation's
    /// ground nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminals: Option<Vec<String>>,
    /// The terminals' PoP, by code ("FRA"). Default: each terminal's nearest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pop: Option<String>,
    /// Gateways by name (shipped or `sites`). Default: every gateway
    /// within `reach` of a terminal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateways: Option<Vec<String>>,
    /// Default 2000 km (a bent pipe at 25° spans at most about 1 900 km).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reach: Option<Length>,
    /// Use the shipped gateways and PoPs (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shipped: Option<bool>,
    /// Gateways and PoPs of the scenario's own, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sites: BTreeMap<String, AccessSiteSection>,
    /// ISL hops allowed when no gateway shares the serving satellite's
    /// view (default 8; 0: bent pipe only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isl_hops: Option<u32>,
    /// Terrestrial path length over great-circle distance (default 2.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route_factor: Option<f64>,
    /// Uplink capacity of a satellite's beam for the run's terminals,
    /// divided among those it serves (default 20 Mbps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink: Option<Rate>,
    /// Downlink capacity likewise (default 200 Mbps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downlink: Option<Rate>,
    /// Packets waiting at the dish (default 1500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dish_queue: Option<u32>,
    /// Packets waiting for the terminal's downlink (default 1500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway_queue: Option<u32>,
    /// Gateway–satellite links (default 10 Gbps, 1000 packets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feeder: Option<AccessLinkClassSection>,
    /// Gateway–PoP fibre (default 100 Gbps, 1000 packets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fibre: Option<AccessLinkClassSection>,
    /// The access link's frames, grant, pauses and queues
    /// (`{ frame_rate, grant, pause, pause_before, drop, flush }`); its
    /// epochs are `routing.epoch` and `routing.epoch_offset`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<AccessLinkSpec>,
}

impl AccessSetting {
    /// The model chosen (a table without `preset` is `starlink`).
    pub fn model(&self) -> AccessModel {
        match self {
            AccessSetting::Model(m) => *m,
            AccessSetting::Table(t) => t.preset.unwrap_or(AccessModel::Starlink),
        }
    }

    /// The table (defaults when only the model was named).
    pub fn section(&self) -> AccessSection {
        match self {
            AccessSetting::Model(m) => AccessSection {
                preset: Some(*m),
                ..Default::default()
            },
            AccessSetting::Table(t) => (**t).clone(),
        }
    }
}
