//! The resolved parameters of one direction of a link, as a link layer is
//! built from them: ends, rate, propagation delay, queue limit and channel
//! stack. The scenario's plan produces them; link layers (and their `resolve`
//! step, which may adjust a direction they define) consume them.

use crate::channel::{ChannelSpec, HopGeometry};
use crate::engine::time::Dur;

/// One direction of a link (link `k` has directions `2k`, forward, and `2k + 1`, reverse).
pub struct LinkDirSpec {
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay: Dur,
    pub queue: u32,
    /// Channel models, evaluated in order (an exact drop list first).
    pub channels: Vec<ChannelSpec>,
    /// Ground-to-GEO geometry when the delay comes from positions.
    pub geometry: Option<HopGeometry>,
}
