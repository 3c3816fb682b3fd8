//! The one place a link layer is registered: one line in `link_layers!`
//! gives its scenario spec (a variant of [`LinkLayerSpec`], the tagged
//! table `links.<id>.link_layer = { model = ... }`), its built form (a
//! variant of [`AnyLinkLayer`], static dispatch on the per-packet path;
//! `Custom` for implementations from user code), and the dispatch of its
//! spec's hooks ([`LinkLayerSpecOps`]) to the plan, the event budget,
//! `describe` and `channel plot`.

use super::access::{AccessLink, AccessLinkSpec};
use super::dvbs::{DvbsLink, DvbsSpec};
use super::fifo::{FifoLink, FifoSpec};
pub use super::layer::{ChannelSampler, LinkLayerSpecOps};
use super::layer::{Dir, LinkBuild, LinkIo, LinkLayer, LinkPacket, LinkStats};
use super::link_dir::LinkDirSpec;
use crate::engine::time::{Dur, Time};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A link layer built by user code (tests, extensions).
#[derive(Clone)]
pub struct CustomLinkLayer(pub MakeLinkLayer);

/// Builds a link layer from both directions' parameters.
pub type MakeLinkLayer = Arc<dyn Fn(LinkBuild) -> Box<dyn LinkLayer> + Send + Sync>;

impl std::fmt::Debug for CustomLinkLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CustomLinkLayer")
    }
}
impl PartialEq for CustomLinkLayer {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.0, &o.0)
    }
}

macro_rules! link_layers {
    ($($(#[$doc:meta])* $v:ident($spec:ty => $t:ty) = $name:literal),* $(,)?) => {
        /// A link layer as a scenario describes it: `links.<id>.link_layer = { model = "..." }`.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[serde(tag = "model")]
        pub enum LinkLayerSpec {
            $($(#[$doc])* #[serde(rename = $name)] $v($spec),)*
            #[serde(skip)]
            Custom(CustomLinkLayer),
        }

        /// A built link layer (static dispatch; `Custom` for user code).
        /// Held once per link, so the size difference between variants costs nothing.
        #[allow(clippy::large_enum_variant)]
        pub enum AnyLinkLayer {
            $($v($t),)*
            Custom(Box<dyn LinkLayer>),
            /// A member link of a shared medium: the world hands its packets
            /// to the medium; this keeps its counters once the run ends.
            Member(MemberLink),
        }

        impl AnyLinkLayer {
            pub fn build(spec: &LinkLayerSpec, b: LinkBuild) -> AnyLinkLayer {
                match spec {
                    $(LinkLayerSpec::$v(s) => AnyLinkLayer::$v(<$spec as LinkLayerSpecOps>::build(s, b)),)*
                    LinkLayerSpec::Custom(f) => AnyLinkLayer::Custom((f.0)(b)),
                }
            }
            #[inline]
            pub fn send(&mut self, now: Time, dir: Dir, pkt: LinkPacket, io: &mut LinkIo) {
                match self {
                    $(AnyLinkLayer::$v(l) => l.send(now, dir, pkt, io),)*
                    AnyLinkLayer::Custom(l) => l.send(now, dir, pkt, io),
                    AnyLinkLayer::Member(_) => unreachable!("a member link's packets go to its medium"),
                }
            }
            #[inline]
            pub fn wake(&mut self, now: Time, token: u32, io: &mut LinkIo) {
                match self {
                    $(AnyLinkLayer::$v(l) => l.wake(now, token, io),)*
                    AnyLinkLayer::Custom(l) => l.wake(now, token, io),
                    AnyLinkLayer::Member(_) => unreachable!("a member link's wake-ups go to its medium"),
                }
            }
            pub fn stats(&self, dir: Dir) -> LinkStats {
                match self {
                    $(AnyLinkLayer::$v(l) => l.stats(dir),)*
                    AnyLinkLayer::Custom(l) => l.stats(dir),
                    AnyLinkLayer::Member(m) => m.stats[dir.index()].clone(),
                }
            }
            pub fn stats_at(&self, dir: Dir, stop: Time) -> LinkStats {
                match self {
                    $(AnyLinkLayer::$v(l) => l.stats_at(dir, stop),)*
                    AnyLinkLayer::Custom(l) => l.stats_at(dir, stop),
                    AnyLinkLayer::Member(m) => m.stats[dir.index()].clone(),
                }
            }
            pub fn trace_queues(&mut self) {
                match self {
                    $(AnyLinkLayer::$v(l) => l.trace_queues(),)*
                    AnyLinkLayer::Custom(l) => l.trace_queues(),
                    AnyLinkLayer::Member(_) => {}
                }
            }
            pub fn queue_trace(&mut self, dir: Dir, stop: Time) -> Option<Vec<(Time, u32)>> {
                match self {
                    $(AnyLinkLayer::$v(l) => l.queue_trace(dir, stop),)*
                    AnyLinkLayer::Custom(l) => l.queue_trace(dir, stop),
                    AnyLinkLayer::Member(_) => None,
                }
            }
            /// The link's ends move (see [`LinkLayer::set_motion`]).
            pub fn set_motion(&mut self, dir: Dir, motion: Box<super::moving::DirMotion>) {
                match self {
                    $(AnyLinkLayer::$v(l) => l.set_motion(dir, motion),)*
                    AnyLinkLayer::Custom(l) => l.set_motion(dir, motion),
                    AnyLinkLayer::Member(_) => {}
                }
            }
            /// The layer's own counters of one direction (see [`LinkLayer::counters`]).
            pub fn counters(&self, dir: Dir) -> Vec<(&'static str, u64)> {
                match self {
                    $(AnyLinkLayer::$v(l) => l.counters(dir),)*
                    AnyLinkLayer::Custom(l) => l.counters(dir),
                    AnyLinkLayer::Member(m) => m.counters[dir.index()].clone(),
                }
            }
        }

        impl LinkLayerSpec {
            /// The layer's name as scenarios write it.
            pub fn model_name(&self) -> &'static str {
                match self {
                    $(LinkLayerSpec::$v(_) => $name,)*
                    LinkLayerSpec::Custom(_) => "custom",
                }
            }
            /// Check the spec against its link when the plan is built (see
            /// [`LinkLayerSpecOps::resolve`]).
            pub fn resolve(
                &self,
                fwd: &mut LinkDirSpec,
                rev: &mut LinkDirSpec,
            ) -> Result<Vec<String>, (String, String)> {
                match self {
                    $(LinkLayerSpec::$v(s) => <$spec as LinkLayerSpecOps>::resolve(s, fwd, rev),)*
                    LinkLayerSpec::Custom(_) => Ok(Vec::new()),
                }
            }
            /// Its rules about the TCP connections crossing the link (see
            /// [`LinkLayerSpecOps::check_tcp`]).
            pub fn check_tcp(&self, fwd: &LinkDirSpec, rev: &LinkDirSpec, rto_min: Dur) -> Vec<String> {
                match self {
                    $(LinkLayerSpec::$v(s) => <$spec as LinkLayerSpecOps>::check_tcp(s, fwd, rev, rto_min),)*
                    LinkLayerSpec::Custom(_) => Vec::new(),
                }
            }
            /// It runs between moving nodes.
            pub fn supports_motion(&self) -> bool {
                match self {
                    $(LinkLayerSpec::$v(s) => <$spec as LinkLayerSpecOps>::supports_motion(s),)*
                    LinkLayerSpec::Custom(_) => false,
                }
            }
            /// State changes per simulated second it draws, and how to draw fewer.
            pub fn state_changes(&self) -> Option<(f64, &'static str)> {
                match self {
                    $(LinkLayerSpec::$v(s) => <$spec as LinkLayerSpecOps>::state_changes(s),)*
                    LinkLayerSpec::Custom(_) => None,
                }
            }
            /// `describe` shows it.
            pub fn shown(&self) -> bool {
                match self {
                    $(LinkLayerSpec::$v(s) => <$spec as LinkLayerSpecOps>::shown(s),)*
                    LinkLayerSpec::Custom(_) => true,
                }
            }
            /// The channel it draws itself, for `channel plot`.
            pub fn own_channel(&self, seed: u64, link: &str, dir: Dir) -> Result<Option<ChannelSampler>, String> {
                match self {
                    $(LinkLayerSpec::$v(s) => <$spec as LinkLayerSpecOps>::own_channel(s, seed, link, dir),)*
                    LinkLayerSpec::Custom(_) => Ok(None),
                }
            }
        }
    };
}

/// A member link of a shared medium, as the world holds it among the link
/// layers: its two directions' counters, taken from the medium when the
/// run ends (`stats_at` as of the end).
#[derive(Debug, Default)]
pub struct MemberLink {
    pub stats: [LinkStats; 2],
    /// The medium's own counters of each direction.
    pub counters: [Vec<(&'static str, u64)>; 2],
}

impl Default for LinkLayerSpec {
    fn default() -> Self {
        LinkLayerSpec::Fifo(FifoSpec::default())
    }
}

link_layers! {
    /// Store and forward at a constant rate with drop-tail queues (the default).
    Fifo(FifoSpec => FifoLink) = "fifo",
    /// DVB-S forward link with ACM and SR-ARQ, and its return path (`net/dvbs/`).
    Dvbs(Box<DvbsSpec> => DvbsLink) = "dvbs",
    /// A Starlink terminal's access link: frames, grants, beam shares,
    /// drop-front queues, reconfiguration pauses (`net/access/link.rs`).
    StarlinkAccess(Box<AccessLinkSpec> => AccessLink) = "starlink-access",
}
