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
//! [`ChannelSpec`]. Registering a model means: its file, one variant in
//! [`ChannelSpec`] and one line in the [`channels!`] list below.
//!
//! A link direction evaluates its models in order and stops at the first
//! that claims the packet (so an exact drop list consumes no random draw).

mod ber;
mod drop_list;
pub mod gilbert_elliott;
pub mod lms_urban;
mod per;
pub mod table;
pub mod trace;

pub use ber::Ber;
pub use drop_list::DropList;
pub use gilbert_elliott::{GilbertElliott, GilbertElliottChannel};
pub use lms_urban::LmsUrban;
pub use per::Per;
pub use trace::Trace;

use crate::engine::rng::RngStream;
use crate::engine::time::Time;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

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

/// A model built by user code rather than from a scenario (tests, extensions).
#[derive(Clone)]
pub struct CustomChannel(pub MakeChannel);

/// Builds a channel model for one link direction.
pub type MakeChannel = Arc<dyn Fn(&ChannelCtx) -> Box<dyn ChannelModel> + Send + Sync>;

impl std::fmt::Debug for CustomChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CustomChannel")
    }
}
impl PartialEq for CustomChannel {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.0, &o.0)
    }
}

/// A channel model as a scenario describes it: `{ model = "...", ... }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum ChannelSpec {
    /// Uniform packet error rate.
    Per(per::PerSpec),
    /// Bit error rate.
    Ber(ber::BerSpec),
    /// Exact losses of named data segments (tests).
    DropList(drop_list::DropListSpec),
    /// Gilbert–Elliott GOOD/BAD chain with a loss probability per state.
    GilbertElliott(gilbert_elliott::GilbertElliottSpec),
    /// Land-mobile-satellite urban shadowing (street canyon).
    LmsUrban(Box<lms_urban::LmsUrbanSpec>),
    /// A fade trace replayed from a CSV file.
    Trace(trace::TraceSpec),
    /// Built by user code (not available in scenario files).
    #[serde(skip)]
    Custom(CustomChannel),
}

/// Generates the enum the engine holds (static dispatch) and its builder
/// from one list: `Variant(Type) <= ChannelSpec::Variant`.
macro_rules! channels {
    ($($v:ident($t:ty)),* $(,)?) => {
        /// A built channel model (static dispatch; `Custom` for models from user code).
        pub enum Channel {
            $($v($t),)*
            Custom(Box<dyn ChannelModel>),
        }

        impl Channel {
            #[inline]
            pub fn is_lost(&mut self, tx: &Tx) -> bool {
                match self {
                    $(Channel::$v(m) => m.is_lost(tx),)*
                    Channel::Custom(m) => m.is_lost(tx),
                }
            }
            pub fn state(&mut self, now: Time) -> Option<ChannelState> {
                match self {
                    $(Channel::$v(m) => m.state(now),)*
                    Channel::Custom(m) => m.state(now),
                }
            }
            /// Build the model a spec describes.
            pub fn build(spec: &ChannelSpec, ctx: &ChannelCtx) -> Channel {
                match spec {
                    $(ChannelSpec::$v(s) => Channel::$v(<$t>::build(s, ctx)),)*
                    ChannelSpec::Custom(f) => Channel::Custom((f.0)(ctx)),
                }
            }
        }
    };
}

channels! {
    Per(Per),
    Ber(Ber),
    DropList(DropList),
    GilbertElliott(GilbertElliottChannel),
    LmsUrban(LmsUrban),
    Trace(Trace),
}

impl ChannelSpec {
    /// Check the parameters; `Err(key, message)` with the key relative to the
    /// channel table.
    pub fn validate(&self) -> Result<(), (String, String)> {
        match self {
            ChannelSpec::Per(s) => s.validate(),
            ChannelSpec::Ber(s) => s.validate(),
            ChannelSpec::GilbertElliott(s) => s.validate(),
            ChannelSpec::LmsUrban(s) => s.validate(),
            ChannelSpec::Trace(s) => s.validate(),
            ChannelSpec::DropList(_) | ChannelSpec::Custom(_) => Ok(()),
        }
    }
}

impl ChannelSpec {
    /// Fill in `apply_to` from the link's `errors_apply_to` where the model
    /// does not set its own (default: both).
    pub fn default_apply_to(&mut self, link: Option<ApplyTo>) {
        let slot = match self {
            ChannelSpec::Per(s) => &mut s.apply_to,
            ChannelSpec::Ber(s) => &mut s.apply_to,
            ChannelSpec::GilbertElliott(s) => &mut s.apply_to,
            ChannelSpec::LmsUrban(s) => &mut s.apply_to,
            ChannelSpec::Trace(s) => &mut s.apply_to,
            ChannelSpec::DropList(_) | ChannelSpec::Custom(_) => return,
        };
        if slot.is_none() {
            *slot = Some(link.unwrap_or_default());
        }
    }
}

impl ChannelSpec {
    /// Make a model's file paths absolute, relative ones taken against `base`
    /// (the scenario file's directory), so a resolved scenario can be
    /// reloaded from anywhere.
    pub fn resolve_paths(&mut self, base: &std::path::Path) {
        match self {
            ChannelSpec::Trace(s) => s.file = table::resolve(base, &s.file),
            ChannelSpec::LmsUrban(s) => {
                if let Some(f) = s.masking_file.as_mut() {
                    *f = table::resolve(base, f);
                }
            }
            _ => {}
        }
    }

    /// Load what a model reads from files and check what it needs from the
    /// hop (at plan-build time); `Err(key, message)` as [`ChannelSpec::validate`].
    pub fn prepare(&mut self, geometry: Option<&HopGeometry>) -> Result<(), (String, String)> {
        match self {
            ChannelSpec::Trace(s) => s.load(),
            ChannelSpec::LmsUrban(s) => s.prepare(geometry.is_some()),
            _ => Ok(()),
        }
    }
}

pub fn per_spec(p: f64, apply_to: Option<ApplyTo>) -> per::PerSpec {
    per::PerSpec { p, apply_to }
}
pub fn ber_spec(ber: f64, apply_to: Option<ApplyTo>) -> ber::BerSpec {
    ber::BerSpec { ber, apply_to }
}
pub fn drop_list_spec(segments: Vec<u64>) -> drop_list::DropListSpec {
    drop_list::DropListSpec { segments }
}

/// Loss of one state: a packet error rate, or ln(1 − BER) for a bit error rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StateLoss {
    Per(f64),
    Ber { ln_1m_ber: f64 },
}

impl StateLoss {
    pub fn per(p: f64) -> StateLoss {
        StateLoss::Per(p)
    }
    pub fn ber(ber: f64) -> StateLoss {
        StateLoss::Ber {
            ln_1m_ber: (-ber).ln_1p(),
        }
    }
    /// A state's loss from its `per` or `ber` key (at most one given: see
    /// [`check_per_or_ber`]), else a packet error rate of `default`.
    pub fn from_pair(per: Option<f64>, ber: Option<f64>, default: f64) -> StateLoss {
        match (per, ber) {
            (Some(p), _) => StateLoss::per(p),
            (_, Some(b)) => StateLoss::ber(b),
            _ => StateLoss::per(default),
        }
    }
    /// Probability that a packet of `bytes` bytes is lost in this state.
    #[inline]
    pub fn probability(self, bytes: u32) -> f64 {
        match self {
            StateLoss::Per(p) => p,
            StateLoss::Ber { ln_1m_ber } => ber::packet_loss_probability(ln_1m_ber, bytes),
        }
    }
}

/// A state of a stateful model takes a packet error rate (`per_key`) or a
/// bit error rate (`ber_key`), not both, each a probability in [0, 1].
pub(crate) fn check_per_or_ber(
    per_key: &str,
    ber_key: &str,
    per: Option<f64>,
    ber: Option<f64>,
) -> Result<(), (String, String)> {
    if per.is_some() && ber.is_some() {
        return Err((
            ber_key.to_string(),
            format!("give {per_key} or {ber_key}, not both"),
        ));
    }
    if let Some(p) = per {
        check_probability(per_key, p, true)?;
    }
    if let Some(b) = ber {
        check_probability(ber_key, b, true)?;
    }
    Ok(())
}

/// A probability in [0, 1] (or [0, 1) when `one_ok` is false).
pub(crate) fn check_probability(key: &str, p: f64, one_ok: bool) -> Result<(), (String, String)> {
    let ok = p.is_finite() && p >= 0.0 && if one_ok { p <= 1.0 } else { p < 1.0 };
    if ok {
        Ok(())
    } else {
        let range = if one_ok { "[0, 1]" } else { "[0, 1)" };
        Err((
            key.to_string(),
            format!("{p} is not a probability in {range}"),
        ))
    }
}
