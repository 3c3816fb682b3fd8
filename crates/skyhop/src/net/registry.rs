//! The one place a link layer is registered: its scenario spec (a variant of
//! [`LinkLayerSpec`], the tagged table `links.<id>.link_layer = { model = ... }`)
//! and its built form (a variant of [`AnyLinkLayer`], static dispatch on the
//! per-packet path; `Custom` for implementations from user code).

use super::dvbs::{DvbsLink, DvbsSpec};
use super::fifo::{FifoLink, FifoSpec};
use super::layer::{Dir, LinkBuild, LinkIo, LinkLayer, LinkPacket, LinkStats};
use super::link_dir::LinkDirSpec;
use crate::engine::time::Time;
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

/// A link layer as a scenario describes it: `links.<id>.link_layer = { model = "..." }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum LinkLayerSpec {
    /// Store and forward at a constant rate with drop-tail queues (the default).
    Fifo(FifoSpec),
    /// DVB-S forward link with ACM and SR-ARQ, and its return path (`net/dvbs/`).
    Dvbs(Box<DvbsSpec>),
    #[serde(skip)]
    Custom(CustomLinkLayer),
}

impl Default for LinkLayerSpec {
    fn default() -> Self {
        LinkLayerSpec::Fifo(FifoSpec::default())
    }
}

macro_rules! link_layers {
    ($($v:ident($t:ty)),* $(,)?) => {
        /// A built link layer (static dispatch; `Custom` for user code).
        /// Held once per link, so the size difference between variants costs nothing.
        #[allow(clippy::large_enum_variant)]
        pub enum AnyLinkLayer {
            $($v($t),)*
            Custom(Box<dyn LinkLayer>),
        }

        impl AnyLinkLayer {
            pub fn build(spec: &LinkLayerSpec, b: LinkBuild) -> AnyLinkLayer {
                match spec {
                    $(LinkLayerSpec::$v(s) => AnyLinkLayer::$v(<$t>::build(s, b)),)*
                    LinkLayerSpec::Custom(f) => AnyLinkLayer::Custom((f.0)(b)),
                }
            }
            #[inline]
            pub fn send(&mut self, now: Time, dir: Dir, pkt: LinkPacket, io: &mut LinkIo) {
                match self {
                    $(AnyLinkLayer::$v(l) => l.send(now, dir, pkt, io),)*
                    AnyLinkLayer::Custom(l) => l.send(now, dir, pkt, io),
                }
            }
            #[inline]
            pub fn wake(&mut self, now: Time, token: u32, io: &mut LinkIo) {
                match self {
                    $(AnyLinkLayer::$v(l) => l.wake(now, token, io),)*
                    AnyLinkLayer::Custom(l) => l.wake(now, token, io),
                }
            }
            pub fn stats(&self, dir: Dir) -> LinkStats {
                match self {
                    $(AnyLinkLayer::$v(l) => l.stats(dir),)*
                    AnyLinkLayer::Custom(l) => l.stats(dir),
                }
            }
            pub fn stats_at(&self, dir: Dir, stop: Time) -> LinkStats {
                match self {
                    $(AnyLinkLayer::$v(l) => l.stats_at(dir, stop),)*
                    AnyLinkLayer::Custom(l) => l.stats_at(dir, stop),
                }
            }
            pub fn trace_queues(&mut self) {
                match self {
                    $(AnyLinkLayer::$v(l) => l.trace_queues(),)*
                    AnyLinkLayer::Custom(l) => l.trace_queues(),
                }
            }
            pub fn queue_trace(&mut self, dir: Dir, stop: Time) -> Option<Vec<(Time, u32)>> {
                match self {
                    $(AnyLinkLayer::$v(l) => l.queue_trace(dir, stop),)*
                    AnyLinkLayer::Custom(l) => l.queue_trace(dir, stop),
                }
            }
            pub fn counters(&self, dir: Dir) -> Vec<(&'static str, u64)> {
                match self {
                    $(AnyLinkLayer::$v(l) => l.counters(dir),)*
                    AnyLinkLayer::Custom(l) => l.counters(dir),
                }
            }
        }
    };
}

link_layers! {
    Fifo(FifoLink),
    Dvbs(DvbsLink),
}

impl LinkLayerSpec {
    /// Check the spec against its link when the plan is built, adjusting the
    /// link's directions if the layer defines them; returns warnings, or
    /// (key under `link_layer`, message).
    pub fn resolve(
        &self,
        fwd: &mut LinkDirSpec,
        rev: &mut LinkDirSpec,
    ) -> Result<Vec<String>, (String, String)> {
        match self {
            LinkLayerSpec::Dvbs(s) => s.resolve(fwd, rev),
            _ => Ok(Vec::new()),
        }
    }

    /// Warnings about the TCP connections that cross the (resolved) link,
    /// the smallest minimum RTO among them `rto_min` (a layer with timers
    /// of its own has rules against the TCP timeout).
    pub fn check_tcp(
        &self,
        fwd: &LinkDirSpec,
        rev: &LinkDirSpec,
        rto_min: crate::engine::time::Dur,
    ) -> Vec<String> {
        match self {
            LinkLayerSpec::Dvbs(s) => s.check_tcp(fwd, rev, rto_min),
            _ => Vec::new(),
        }
    }
}
