//! The one place a channel model is registered: one line in `channels!`
//! below gives its scenario spec (a variant of [`ChannelSpec`], the tagged
//! table `{ model = "..." }`), its built form (a variant of [`Channel`],
//! static dispatch; `Custom` for models from user code), and the dispatch
//! of its spec's hooks ([`ChannelSpecOps`]) to the plan, the memory
//! estimate, the event budget, live runs and plots.

use super::{
    ber, drop_list, gilbert_elliott, lms_urban, per, rain_fade, trace, ApplyTo, Ber, ChannelCtx,
    ChannelModel, ChannelSpecOps, ChannelState, DropList, GilbertElliottChannel, HopGeometry,
    LmsUrban, LookFn, Per, RainFade, Trace, Tx,
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

/// Generates, from one list of `Variant(Spec => Model)`, the scenario's
/// [`ChannelSpec`], the engine's [`Channel`] and the dispatch of both.
macro_rules! channels {
    ($($(#[$doc:meta])* $v:ident($spec:ty => $model:ty) = $name:literal),* $(,)?) => {
        /// A channel model as a scenario describes it: `{ model = "...", ... }`.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[serde(tag = "model")]
        pub enum ChannelSpec {
            $($(#[$doc])* #[serde(rename = $name)] $v($spec),)*
            /// Built by user code (not available in scenario files).
            #[serde(skip)]
            Custom(CustomChannel),
        }

        /// A built channel model (static dispatch; `Custom` for models from user code).
        pub enum Channel {
            $($v($model),)*
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
            /// Es/N₀ (dB) at `now` on a carrier of `symbol_rate`, if the model knows it.
            pub fn esn0_db(&mut self, now: Time, symbol_rate: f64) -> Option<f64> {
                match self {
                    $(Channel::$v(m) => m.esn0_db(now, symbol_rate),)*
                    Channel::Custom(m) => m.esn0_db(now, symbol_rate),
                }
            }
            /// The model's named values at `now`, for `channel plot`.
            pub fn observe(&mut self, now: Time, out: &mut Vec<(&'static str, f64)>) {
                match self {
                    $(Channel::$v(m) => m.observe(now, out),)*
                    Channel::Custom(m) => m.observe(now, out),
                }
            }
            /// Follow the link's moving ends: a model that uses the
            /// satellite's look angles (urban shadowing) takes them from
            /// `look` at each transmission, unless its own parameters fix them.
            pub fn follow(&mut self, look: LookFn) {
                match self {
                    $(Channel::$v(m) => m.follow(look),)*
                    Channel::Custom(m) => m.follow(look),
                }
            }
            /// Build the model a spec describes.
            pub fn build(spec: &ChannelSpec, ctx: &ChannelCtx) -> Channel {
                match spec {
                    $(ChannelSpec::$v(s) => Channel::$v(<$spec as ChannelSpecOps>::build(s, ctx)),)*
                    ChannelSpec::Custom(f) => Channel::Custom((f.0)(ctx)),
                }
            }
        }

        impl ChannelSpec {
            /// The model's name as scenarios write it (`model = "..."`).
            pub fn model_name(&self) -> &'static str {
                match self {
                    $(ChannelSpec::$v(_) => $name,)*
                    ChannelSpec::Custom(_) => "custom",
                }
            }
            /// Check the parameters; `Err(key, message)` with the key relative to the
            /// channel table.
            pub fn validate(&self) -> Result<(), (String, String)> {
                match self {
                    $(ChannelSpec::$v(s) => <$spec as ChannelSpecOps>::validate(s),)*
                    ChannelSpec::Custom(_) => Ok(()),
                }
            }
            /// Fill in `apply_to` from the link's `errors_apply_to` where the model
            /// does not set its own (default: both).
            pub fn default_apply_to(&mut self, link: Option<ApplyTo>) {
                let slot = match self {
                    $(ChannelSpec::$v(s) => <$spec as ChannelSpecOps>::apply_to_mut(s),)*
                    ChannelSpec::Custom(_) => None,
                };
                if let Some(slot) = slot {
                    if slot.is_none() {
                        *slot = Some(link.unwrap_or_default());
                    }
                }
            }
            /// Make a model's file paths absolute, relative ones taken against `base`
            /// (the scenario file's directory), so a resolved scenario can be
            /// reloaded from anywhere.
            pub fn resolve_paths(&mut self, base: &std::path::Path) {
                match self {
                    $(ChannelSpec::$v(s) => <$spec as ChannelSpecOps>::resolve_paths(s, base),)*
                    ChannelSpec::Custom(_) => {}
                }
            }
            /// Load what a model reads from files and check what it needs from the
            /// hop (at plan-build time); `Err(key, message)` as [`ChannelSpec::validate`].
            pub fn prepare(&mut self, geometry: Option<&HopGeometry>) -> Result<(), (String, String)> {
                match self {
                    $(ChannelSpec::$v(s) => <$spec as ChannelSpecOps>::prepare(s, geometry),)*
                    ChannelSpec::Custom(_) => Ok(()),
                }
            }
            /// Bytes the model holds over a run, and how to hold fewer.
            pub fn memory(&self) -> Option<(u64, &'static str)> {
                match self {
                    $(ChannelSpec::$v(s) => <$spec as ChannelSpecOps>::memory(s),)*
                    ChannelSpec::Custom(_) => None,
                }
            }
            /// State changes per simulated second it draws, and how to draw fewer.
            pub fn state_changes(&self) -> Option<(f64, &'static str)> {
                match self {
                    $(ChannelSpec::$v(s) => <$spec as ChannelSpecOps>::state_changes(s),)*
                    ChannelSpec::Custom(_) => None,
                }
            }
            /// Its model gives the Es/N0 a receiver sees.
            pub fn gives_esn0(&self) -> bool {
                match self {
                    $(ChannelSpec::$v(s) => <$spec as ChannelSpecOps>::gives_esn0(s),)*
                    ChannelSpec::Custom(_) => false,
                }
            }
            /// It names simulated segments (cannot judge real packets, nothing to plot).
            pub fn names_segments(&self) -> bool {
                match self {
                    $(ChannelSpec::$v(s) => <$spec as ChannelSpecOps>::names_segments(s),)*
                    ChannelSpec::Custom(_) => false,
                }
            }
        }
    };
}

channels! {
    /// Uniform packet error rate.
    Per(per::PerSpec => Per) = "per",
    /// Bit error rate.
    Ber(ber::BerSpec => Ber) = "ber",
    /// Exact losses of named data segments (tests).
    DropList(drop_list::DropListSpec => DropList) = "drop-list",
    /// Gilbert–Elliott GOOD/BAD chain with a loss probability per state.
    GilbertElliott(gilbert_elliott::GilbertElliottSpec => GilbertElliottChannel) = "gilbert-elliott",
    /// Land-mobile-satellite urban shadowing (street canyon).
    LmsUrban(Box<lms_urban::LmsUrbanSpec> => LmsUrban) = "lms-urban",
    /// A fade trace replayed from a CSV file.
    Trace(trace::TraceSpec => Trace) = "trace",
    /// Es/N0 from a link budget with rain (ITU-R P.618 + P.1853, or a recorded attenuation trace).
    RainFade(Box<rain_fade::RainFadeSpec> => RainFade) = "rain-fade",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_reads_by_its_name() {
        for text in [
            r#"{"model":"per","p":0.1}"#,
            r#"{"model":"ber","ber":1e-6}"#,
            r#"{"model":"drop-list","segments":[1]}"#,
            r#"{"model":"gilbert-elliott","t_good":"6 s","t_bad":"2 s"}"#,
            r#"{"model":"lms-urban","speed_mps":2.8}"#,
            r#"{"model":"trace","file":"x.csv"}"#,
            r#"{"model":"rain-fade","frequency_ghz":20.0,"clear_sky_cn0_dbhz":80.0,"file":"x.csv"}"#,
        ] {
            let spec: ChannelSpec =
                serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let tag: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(spec.model_name(), tag["model"].as_str().unwrap());
        }
    }
}
