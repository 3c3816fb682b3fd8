//! A channel's state sampled over time, as a run with a given seed would
//! see it (for plots: `skyhop channel`). A model is sampled by
//! [`sample_model`]; any other state process (a link layer's fade chain)
//! by [`sample_with`].

use serde::Serialize;

use super::{Channel, ChannelCtx, ChannelSpec};
use crate::engine::time::Time;

/// A channel sampled every `step` seconds from 0 to its span.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ChannelSample {
    /// The model (`gilbert-elliott`, `lms-urban`, `dvbs`, ...).
    pub model: String,
    /// The link direction (`name:forward`).
    pub link: String,
    pub seed: u64,
    pub t_s: Vec<f64>,
    /// The model's state index at each time (absent for a model without one).
    pub state: Vec<Option<u32>>,
    /// The loss probability of a full-size packet at each time.
    pub loss_probability: Vec<Option<f64>>,
    /// `lms-urban`: the masking angle towards the satellite at each time (degrees).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub masking_deg: Option<Vec<f64>>,
    /// `lms-urban`: the satellite's elevation and azimuth (degrees).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elevation_deg: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub azimuth_deg: Option<f64>,
    /// `lms-urban`: the full skyline (one masking angle per degree of
    /// azimuth) at each asked time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skylines: Option<Vec<Skyline>>,
}

/// An `lms-urban` skyline at one time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Skyline {
    pub t_s: f64,
    pub masking_deg: Vec<f64>,
}

/// The sample times: 0, `step_s`, ... up to `duration_s`.
pub fn sample_times(duration_s: f64, step_s: f64) -> impl Iterator<Item = f64> {
    let n = (duration_s / step_s).floor().max(0.0) as u64 + 1;
    (0..n).map(move |k| k as f64 * step_s)
}

/// Sample a state process: `at(t)` gives the state index and loss
/// probability at `t`.
pub fn sample_with(
    model: &str,
    ctx: &ChannelCtx,
    duration_s: f64,
    step_s: f64,
    mut at: impl FnMut(Time) -> (Option<u32>, Option<f64>),
) -> ChannelSample {
    let mut out = ChannelSample {
        model: model.to_string(),
        link: ctx.link.to_string(),
        seed: ctx.seed,
        ..ChannelSample::default()
    };
    for t in sample_times(duration_s, step_s) {
        let (state, loss) = at(Time::from_secs_f64(t));
        out.t_s.push(t);
        out.state.push(state);
        out.loss_probability.push(loss);
    }
    out
}

/// Sample the model `spec` built as a run builds it (`ctx`), with, for
/// `lms-urban`, its masking and the skylines at `skyline_at_s`.
pub fn sample_model(
    spec: &ChannelSpec,
    ctx: &ChannelCtx,
    duration_s: f64,
    step_s: f64,
    skyline_at_s: &[f64],
) -> ChannelSample {
    let model = serde_json::to_value(spec)
        .ok()
        .and_then(|v| v.get("model")?.as_str().map(str::to_string))
        .unwrap_or_default();
    let mut ch = Channel::build(spec, ctx);
    let mut masking = Vec::new();
    let mut out = sample_with(&model, ctx, duration_s, step_s, |now| {
        let st = ch.state(now);
        if let Channel::LmsUrban(m) = &ch {
            masking.push(m.masking_at(now));
        }
        (st.map(|s| s.state), st.map(|s| s.loss_probability))
    });
    if let Channel::LmsUrban(m) = &ch {
        out.masking_deg = Some(masking);
        out.elevation_deg = Some(m.elevation_deg);
        out.azimuth_deg = Some(m.azimuth_deg);
        let sky = skyline_at_s.iter().map(|&t| Skyline {
            t_s: t,
            masking_deg: m.skyline_at(Time::from_secs_f64(t)),
        });
        out.skylines = Some(sky.collect());
    }
    out
}
