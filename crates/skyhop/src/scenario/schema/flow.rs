//! `flows.<id>`: a flow's ends, path, TCP, size and application, with the
//! tables of the applications (`flows.<id>.<name>`, registered in
//! `app/registry.rs`).
//!
//! A flow's keys are its own plus one per registered application, so its
//! deserialisation is written out here (a derived one cannot take keys
//! from a list without reading the table twice, which would lose the path
//! of an error inside an application's table). Serialisation and the JSON
//! Schema are derived: the application tables appear as keys of the flow.

use super::{QuicOptions, TcpOptions, Transport, VariantName};
use crate::app::{AppName, AppTables};
use crate::units::{Duration, Size};
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::{Serialize, Serializer};
use std::fmt;
use std::sync::OnceLock;

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSection {
    /// Sending end node.
    pub from: String,
    /// Receiving end node.
    pub to: String,
    /// Node list from `from` to `to`; default: the shortest path (fewest hops).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    /// "tcp" (default) or "quic": a QUIC flow runs quinn end to end (its
    /// `quic` table; split proxies on its path pass it through).
    #[serde(default, skip_serializing_if = "Transport::is_tcp")]
    pub transport: Transport,
    /// QUIC parameter overrides for this flow (`transport = "quic"` only).
    #[serde(default, skip_serializing_if = "QuicOptions::is_empty")]
    pub quic: QuicOptions,
    /// TCP variant of every leg. Default: the profile's (CUBIC under
    /// "linux", NewReno under "studies"); a variant named here always runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<VariantName>,
    /// Bytes to transfer, or "unlimited" / absent for a bulk flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<FlowSize>,
    /// A file transfer's accounting. true (default): `size` is payload and
    /// each packet adds a header. false: `size` counts the packets on the
    /// wire, as ns-2's FTP did before `useHeaders_` (2001-11-28): cut into
    /// whole packets of the first leg's full segment (mss + header, 1500 B
    /// by default), the last rounded up, nothing added (5 MB: 3 334
    /// packets of 1500 B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<bool>,
    /// When the flow starts. Default 0 s.
    #[serde(default)]
    pub start: Duration,
    /// Split proxies, node names in path order (a QUIC flow's packets pass
    /// through them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proxies: Vec<String>,
    /// QUIC-terminating proxies, node names in path order (`transport =
    /// "quic"` only): each ends the flow's QUIC connection and opens the
    /// next, relaying the streams, sized by its node's `proxy` table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quic_proxies: Vec<String>,
    /// Per-leg TCP variants (one more than proxies); default: `tcp` on every leg.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legs: Option<Vec<VariantName>>,
    /// TCP parameter overrides for this flow.
    #[serde(default)]
    pub options: TcpOptions,
    /// Application: absent for a file transfer (`size`) or bulk flow;
    /// "cbr" for a constant-rate datagram probe (the `cbr` table); "web"
    /// for web browsing sessions (`from` is the server, `to` the client;
    /// the `web` table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<AppName>,
    /// The applications' tables (only the selected application's may be given).
    #[serde(flatten)]
    pub tables: AppTables,
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

/// A key of a flow table: its own, or an application's table.
#[derive(Clone, Copy)]
enum Key {
    From,
    To,
    Path,
    Transport,
    Quic,
    Tcp,
    Size,
    Headers,
    Start,
    Proxies,
    QuicProxies,
    Legs,
    Options,
    App,
    Table(AppName),
}

/// The flow's own keys.
const KEYS: &[(&str, Key)] = &[
    ("from", Key::From),
    ("to", Key::To),
    ("path", Key::Path),
    ("transport", Key::Transport),
    ("quic", Key::Quic),
    ("tcp", Key::Tcp),
    ("size", Key::Size),
    ("headers", Key::Headers),
    ("start", Key::Start),
    ("proxies", Key::Proxies),
    ("quic_proxies", Key::QuicProxies),
    ("legs", Key::Legs),
    ("options", Key::Options),
    ("app", Key::App),
];

/// Keys a flow had before they moved into an application's table.
const MOVED: &[(&str, &str, &str)] = &[
    ("rate", "cbr", "cbr = { rate = \"1 Mbps\" }"),
    (
        "packet",
        "cbr",
        "cbr = { rate = \"1 Mbps\", packet = \"1500 B\" }",
    ),
];

/// Every key a flow takes: its own, then the application tables.
fn known() -> &'static [&'static str] {
    static ALL: OnceLock<Vec<&'static str>> = OnceLock::new();
    ALL.get_or_init(|| {
        KEYS.iter()
            .map(|(k, _)| *k)
            .chain(AppName::NAMES.iter().copied())
            .collect()
    })
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a flow key")
            }
            fn visit_str<E: de::Error>(self, k: &str) -> Result<Key, E> {
                if let Some((_, key)) = KEYS.iter().find(|(x, _)| *x == k) {
                    return Ok(*key);
                }
                if let Some(a) = AppName::parse(k) {
                    return Ok(Key::Table(a));
                }
                if let Some((_, app, example)) = MOVED.iter().find(|(x, ..)| *x == k) {
                    return Err(E::custom(format!(
                        "moved into the {app} table: write {app}.{k} (e.g. {example})"
                    )));
                }
                Err(E::unknown_field(k, known()))
            }
        }
        d.deserialize_identifier(V)
    }
}

impl<'de> Deserialize<'de> for FlowSection {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FlowSection;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a flow table")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FlowSection, A::Error> {
                let (mut from, mut to) = (None, None);
                let mut f = FlowSection {
                    from: String::new(),
                    to: String::new(),
                    path: None,
                    transport: Transport::Tcp,
                    quic: QuicOptions::default(),
                    tcp: None,
                    size: None,
                    headers: None,
                    start: Duration::default(),
                    proxies: Vec::new(),
                    quic_proxies: Vec::new(),
                    legs: None,
                    options: TcpOptions::default(),
                    app: None,
                    tables: AppTables::default(),
                };
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::From => from = Some(map.next_value()?),
                        Key::To => to = Some(map.next_value()?),
                        Key::Path => f.path = Some(map.next_value()?),
                        Key::Transport => f.transport = map.next_value()?,
                        Key::Quic => f.quic = map.next_value()?,
                        Key::Tcp => f.tcp = Some(map.next_value()?),
                        Key::Size => f.size = Some(map.next_value()?),
                        Key::Headers => f.headers = Some(map.next_value()?),
                        Key::Start => f.start = map.next_value()?,
                        Key::Proxies => f.proxies = map.next_value()?,
                        Key::QuicProxies => f.quic_proxies = map.next_value()?,
                        Key::Legs => f.legs = Some(map.next_value()?),
                        Key::Options => f.options = map.next_value()?,
                        Key::App => f.app = Some(map.next_value()?),
                        Key::Table(name) => f.tables.read(name, &mut map)?,
                    }
                }
                f.from = from.ok_or_else(|| de::Error::missing_field("from"))?;
                f.to = to.ok_or_else(|| de::Error::missing_field("to"))?;
                Ok(f)
            }
        }
        d.deserialize_map(V)
    }
}
