//! The one place a channel model is registered: its scenario spec (a variant
//! of [`ChannelSpec`], the tagged table `{ model = "..." }`) and its built
//! form (a variant of [`Channel`], static dispatch; `Custom` for models from
//! user code).

use super::{
    ber, drop_list, gilbert_elliott, lms_urban, per, table, trace, ApplyTo, Ber, ChannelCtx,
    ChannelModel, ChannelState, DropList, GilbertElliottChannel, HopGeometry, LmsUrban, Per, Trace,
    Tx,
};
use crate::engine::time::Time;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

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

impl Channel {
    /// Follow the link's moving ends: a model that uses the satellite's
    /// elevation and azimuth (urban shadowing) takes them from `look` at
    /// each transmission, unless its own parameters fix them.
    pub fn follow(&mut self, look: super::LookFn) {
        if let Channel::LmsUrban(m) = self {
            m.follow(look);
        }
    }
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
