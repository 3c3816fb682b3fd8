//! Channel models: the seam through which a link direction asks whether a
//! packet (or, later, a frame) transmitted over an interval is lost.
//!
//! A model sees the transmission interval, the size and the kind of what is
//! sent ([`Tx`]); it may carry state over time (a Gilbert–Elliott chain, a
//! terminal moving along a street) and owns its random stream, derived from
//! the run seed and a stable name, so adding a model on one link never
//! changes another's draws. It can be observed as a time series of
//! (state, loss probability) through [`ChannelModel::state`].
//!
//! One file per model; the scenario names a model by a tagged table
//! (`links.<id>.channel = { model = "per", p = 0.01 }`), deserialised into
//! [`ChannelSpec`]. Registering a model means: its file, holding its spec
//! (implementing [`ChannelSpecOps`]: what the plan, the memory estimate,
//! the event budget, live runs and plots ask of it, each with a default)
//! and the model, and one line in the `channels!` list (`registry.rs`).
//!
//! A link direction evaluates its models in order and stops at the first
//! that claims the packet (so an exact drop list consumes no random draw).

mod ber;
mod drop_list;
pub mod gilbert_elliott;
pub mod link_budget;
pub mod lms_urban;
pub mod loss;
mod per;
pub mod rain;
pub mod rain_fade;
pub mod registry;
pub mod table;
pub mod trace;

pub use ber::Ber;
pub use drop_list::DropList;
pub use gilbert_elliott::{GilbertElliott, GilbertElliottChannel};
pub use lms_urban::LmsUrban;
pub use loss::{packet_loss_probability, StateLoss};
pub use per::Per;
pub use rain_fade::RainFade;
pub use registry::{
    ber_spec, drop_list_spec, per_spec, Channel, ChannelSpec, CustomChannel, MakeChannel,
};
pub use trace::Trace;

use crate::engine::rng::RngStream;
use crate::engine::time::Time;
use serde::{Deserialize, Serialize};

/// What crosses a link: a data segment, a pure ACK, or a SYN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    Data,
    Ack,
    Syn,
}

impl PacketKind {
    #[inline]
    pub fn is_ack(self) -> bool {
        self == PacketKind::Ack
    }
}

/// One transmission a channel model judges.
#[derive(Clone, Copy, Debug)]
pub struct Tx {
    /// When the first bit leaves the transmitter.
    pub start: Time,
    /// When the last bit leaves it.
    pub end: Time,
    /// Bytes on the wire.
    pub bytes: u32,
    pub kind: PacketKind,
    /// First byte of a data segment (0 otherwise).
    pub seq: u64,
    /// The data segment is a retransmission.
    pub retx: bool,
}

/// The state of a channel at an instant, for traces and plots.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChannelState {
    /// A model-defined state index (e.g. 0 = GOOD, 1 = BAD; 0 for stateless models).
    pub state: u32,
    /// Probability that a full-size data packet sent now is lost.
    pub loss_probability: f64,
}

/// A channel model (one per entry in a link direction's stack).
pub trait ChannelModel: Send {
    /// Is this transmission lost? Called once per packet in transmission order.
    fn is_lost(&mut self, tx: &Tx) -> bool;
    /// The model's state at `now`, if it has one worth tracing.
    fn state(&mut self, _now: Time) -> Option<ChannelState> {
        None
    }
    /// The symbol energy to noise density Es/N₀ (dB) a receiver sees at
    /// `now` on a carrier of `symbol_rate` symbols/s, for a model that
    /// knows it (a link budget with a fade); `None` otherwise.
    fn esn0_db(&mut self, _now: Time, _symbol_rate: f64) -> Option<f64> {
        None
    }
    /// Named values at `now` for `channel plot`, beside the state and the
    /// loss probability (e.g. the masking angle, the attenuation in dB).
    fn observe(&mut self, _now: Time, _out: &mut Vec<(&'static str, f64)>) {}
    /// The link's ends move: the model may follow the satellite's look
    /// angles from the ground terminal over time (by default it ignores them).
    fn follow(&mut self, _look: LookFn) {}
}

/// What the engine asks of a channel model's scenario spec, each with a
/// default: a model overrides what concerns it, and the plan, the memory
/// estimate, the event budget, live runs and `channel plot` never name a
/// model (the registry dispatches to these).
pub trait ChannelSpecOps {
    /// The built model.
    type Model: ChannelModel;
    /// The model of one link direction.
    fn build(&self, ctx: &ChannelCtx) -> Self::Model;
    /// Range checks; `Err((key within the channel table, message))`.
    fn validate(&self) -> Result<(), (String, String)> {
        Ok(())
    }
    /// Its `apply_to`, for the plan to fill from the link's
    /// `errors_apply_to` (None: the model has no such setting).
    fn apply_to_mut(&mut self) -> Option<&mut Option<ApplyTo>> {
        None
    }
    /// Make its file paths absolute against the scenario's directory.
    fn resolve_paths(&mut self, _base: &std::path::Path) {}
    /// At plan build: read its files, take what it needs from the hop's
    /// geometry; `Err` as [`ChannelSpecOps::validate`].
    fn prepare(&mut self, _geometry: Option<&HopGeometry>) -> Result<(), (String, String)> {
        Ok(())
    }
    /// Bytes the model holds over a run beyond its fixed size, and what to
    /// change to hold fewer (for the memory estimate).
    fn memory(&self) -> Option<(u64, &'static str)> {
        None
    }
    /// State changes it draws per second of simulated time on average, and
    /// what to change to draw fewer (runs whose chains would switch more
    /// often than the event budget allows are refused up front).
    fn state_changes(&self) -> Option<(f64, &'static str)> {
        None
    }
    /// It names segments of simulated connections (an exact drop list): it
    /// cannot judge real packets in a live run, and `channel plot` has
    /// nothing of it to draw.
    fn names_segments(&self) -> bool {
        false
    }
    /// Its model gives the Es/N0 a receiver sees ([`ChannelModel::esn0_db`]).
    fn gives_esn0(&self) -> bool {
        false
    }
}

/// A boxed spec (a large one, kept small in the enum) answers as its content.
impl<T: ChannelSpecOps> ChannelSpecOps for Box<T> {
    type Model = T::Model;
    fn build(&self, ctx: &ChannelCtx) -> T::Model {
        (**self).build(ctx)
    }
    fn validate(&self) -> Result<(), (String, String)> {
        (**self).validate()
    }
    fn apply_to_mut(&mut self) -> Option<&mut Option<ApplyTo>> {
        (**self).apply_to_mut()
    }
    fn resolve_paths(&mut self, base: &std::path::Path) {
        (**self).resolve_paths(base)
    }
    fn prepare(&mut self, geometry: Option<&HopGeometry>) -> Result<(), (String, String)> {
        (**self).prepare(geometry)
    }
    fn memory(&self) -> Option<(u64, &'static str)> {
        (**self).memory()
    }
    fn state_changes(&self) -> Option<(f64, &'static str)> {
        (**self).state_changes()
    }
    fn names_segments(&self) -> bool {
        (**self).names_segments()
    }
    fn gives_esn0(&self) -> bool {
        (**self).gives_esn0()
    }
}

/// Which packets a model applies to.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ApplyTo {
    Data,
    Acks,
    #[default]
    Both,
}

impl ApplyTo {
    pub fn parse(s: &str) -> Option<ApplyTo> {
        match s {
            "data" => Some(ApplyTo::Data),
            "acks" => Some(ApplyTo::Acks),
            "both" => Some(ApplyTo::Both),
            _ => None,
        }
    }
    #[inline]
    pub fn covers(self, kind: PacketKind) -> bool {
        match self {
            ApplyTo::Both => true,
            ApplyTo::Data => !kind.is_ack(),
            ApplyTo::Acks => kind.is_ack(),
        }
    }
}

/// What a model is built from besides its own parameters.
pub struct ChannelCtx<'a> {
    /// The run seed.
    pub seed: u64,
    /// The link direction, e.g. `"ts:forward"`.
    pub link: &'a str,
    /// Position of the model in the direction's stack.
    pub index: usize,
    /// Geometry of the hop when derived from positions (ground station to GEO).
    pub geometry: Option<HopGeometry>,
}

impl ChannelCtx<'_> {
    /// The link direction's loss stream (`link:<name>`), used by the memoryless
    /// PER and BER models.
    pub fn link_rng(&self) -> RngStream {
        RngStream::derive(self.seed, &format!("link:{}", self.link))
    }
    /// A stream of the model's own (`channel:<link>:<index>:<model>`), for stateful models.
    pub fn own_rng(&self, model: &str) -> RngStream {
        RngStream::derive(
            self.seed,
            &format!("channel:{}:{}:{model}", self.link, self.index),
        )
    }
}

/// The ground terminal's view of the satellite over time on a hop between
/// moving nodes: (elevation, azimuth) in degrees at an instant.
pub type LookFn = std::sync::Arc<dyn Fn(Time) -> (f64, f64) + Send + Sync>;

/// The ground terminal's view of the satellite on a hop whose delay comes
/// from positions (kept for models that need it, e.g. urban shadowing).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HopGeometry {
    /// Index of the ground node of the hop.
    pub ground_node: u32,
    pub lat_deg: f64,
    pub lon_deg: f64,
    pub sat_lon_deg: f64,
    pub elevation_deg: f64,
    pub azimuth_deg: f64,
    pub slant_range_m: f64,
}
