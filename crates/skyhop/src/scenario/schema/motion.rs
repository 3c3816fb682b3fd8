//! Positions, motion, constellations and routing of moving networks
//! (docs/leo.md): `nodes.<id>.altitude` and `nodes.<id>.route`,
//! `links.<id>.min_elevation`, `[constellation]` and `[routing]`.

use crate::units::{Duration, Length, Rate, Speed};
use serde::{Deserialize, Serialize};

/// A node's motion along waypoints (`nodes.<id>.route`).
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteSection {
    /// The waypoints, each `{ lat, lon, altitude, at }`; legs are great
    /// circles flown at constant ground speed.
    pub waypoints: Vec<WaypointSection>,
    /// Ground speed along the legs (instead of an `at` on every waypoint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    /// With `speed`: when the node leaves the first waypoint. Default 0 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Duration>,
    /// Start over after the last waypoint (which must be the first again).
    #[serde(default)]
    pub repeat: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaypointSection {
    pub lat: f64,
    pub lon: f64,
    /// Height above the sphere. Default 0 m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub altitude: Option<Length>,
    /// When the node is here (without `speed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Duration>,
}

/// A constellation shell by preset name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum ShellPreset {
    #[serde(rename = "starlink-550")]
    Starlink550,
    #[serde(rename = "kuiper-630")]
    Kuiper630,
    #[serde(rename = "telesat-1015")]
    Telesat1015,
}

impl ShellPreset {
    pub fn name(self) -> &'static str {
        match self {
            ShellPreset::Starlink550 => "starlink-550",
            ShellPreset::Kuiper630 => "kuiper-630",
            ShellPreset::Telesat1015 => "telesat-1015",
        }
    }
}

/// Walker-delta phasing F, or "half-offset".
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum PhasingSection {
    Walker(u32),
    Named(PhasingName),
}

/// Read by hand, so that a wrong value is named with what is accepted
/// (an untagged enum's error names neither).
impl<'de> Deserialize<'de> for PhasingSection {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        const ACCEPTED: &str =
            "expected a whole number F (Walker-delta phasing, 0 <= F < planes) or \"half-offset\"";
        impl serde::de::Visitor<'_> for V {
            type Value = PhasingSection;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(ACCEPTED)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                u32::try_from(v)
                    .map(PhasingSection::Walker)
                    .map_err(|_| E::custom(format!("{v} is out of range: {ACCEPTED}")))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(E::custom(format!("{v} is out of range: {ACCEPTED}"))),
                }
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Err(E::custom(format!("{v} is not a phasing: {ACCEPTED}")))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                match v {
                    "half-offset" => Ok(PhasingSection::Named(PhasingName::HalfOffset)),
                    _ => Err(E::custom(format!("{v:?} is not a phasing: {ACCEPTED}"))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PhasingName {
    HalfOffset,
}

/// Which satellites a ground node may link to.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum GroundRule {
    /// Those at or above `min_elevation` (default).
    #[default]
    Elevation,
    /// Those within altitude / sin(min_elevation) (Hypatia's rule).
    Range,
}

/// Rate and queue of a class of constellation links.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkClassSection {
    pub rate: Rate,
    /// Drop-tail queue limit in packets. Default 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<u32>,
    /// ISLs: the +Grid's slot shift between neighbouring planes. Default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shift: Option<i64>,
}

/// A LEO constellation (`[constellation]`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConstellationSection {
    /// A standard first shell: "starlink-550", "kuiper-630", "telesat-1015".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<ShellPreset>,
    /// Walker-delta shell (each overrides the preset's value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_plane: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub altitude: Option<Length>,
    /// Degrees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inclination: Option<f64>,
    /// Walker phasing F (an integer) or "half-offset" (the presets').
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phasing: Option<PhasingSection>,
    /// A TLE file instead of a shell (two- or three-line sets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tle: Option<String>,
    /// The UTC instant of t = 0, e.g. "2024-06-01T12:00:00Z". Default: the
    /// latest TLE epoch, or 2000-01-01T00:00:00Z for a shell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// A random start per run: each run's orbits begin an offset later,
    /// drawn from the run's seed, uniform in [0, start_spread] (at most
    /// 43200 min: 30 days), so that seeds sample different geometries.
    /// Default 0 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_spread: Option<Duration>,
    /// Minimum elevation of ground links, degrees. Default: the preset's
    /// (25° Starlink, 30° Kuiper, 10° Telesat), else 25°.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_elevation: Option<f64>,
    /// "elevation" (default) or "range" (Hypatia's rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground_rule: Option<GroundRule>,
    /// Nodes that link to the satellites. Default: every node with lat/lon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground: Option<Vec<String>>,
    /// Add the N most populous cities (1-100) as ground nodes, named as listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cities: Option<u32>,
    /// Inter-satellite links (+Grid); absent: none (bent pipe only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isl: Option<LinkClassSection>,
    /// Ground-to-satellite links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gsl: Option<LinkClassSection>,
}

/// How routes are recomputed.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingPolicyName {
    /// Every `update` (default).
    #[default]
    ShortestDelay,
    /// Fixed epochs (`epoch`, from `epoch_offset`).
    Epochs,
}

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum WhenDownName {
    #[default]
    Drop,
    Hold,
}

/// Routing of a moving network (`[routing]`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoutingSection {
    /// "shortest-delay" (default) or "epochs" (the only one with
    /// access = "starlink", which sets it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<RoutingPolicyName>,
    /// Interval of recomputation. Default 100 ms. Refused with access =
    /// "starlink" (routes change at its epochs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update: Option<Duration>,
    /// Epochs: their length. Default 15 s (also the starlink access's
    /// reconfiguration period).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epoch: Option<Duration>,
    /// Epochs: when the first starts. Default 0 s (12 s with access =
    /// "starlink").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epoch_offset: Option<Duration>,
    /// A packet sent while its link is down: "drop" (default) or "hold".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_down: Option<WhenDownName>,
    /// Lose the packets in flight on a link when it goes down. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lose_in_flight: Option<bool>,
}
