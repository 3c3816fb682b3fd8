//! The channel of one direction of a loaded scenario's link, sampled over
//! time as the run with a given seed would see it (`skyhop channel`):
//! what the seams' hooks draw of it (`scenario::sample`), with the span
//! checked against the event budget and, for urban shadowing, the
//! street's skyline at the asked times.

use crate::channel::Channel;
use crate::engine::time::{Dur, Time};
use crate::error::ScenarioError;
use crate::scenario::{check_chains_over, sample, Loaded};
use serde_json::json;

/// Sample direction `direction` (`forward`, `reverse`) of link `link` of
/// `loaded` every `step_s` seconds over `duration_s` with `seed`: JSON
/// `{link, seed, t_s, model, state, loss_probability}`, the model's named
/// observables and, for a beam's terminal, the beam's (Es/N0, MODCOD);
/// for `lms-urban`, `elevation_deg`, `azimuth_deg` and `skylines` (the
/// full skyline, one masking angle per degree of azimuth, at each of
/// `skyline_at_s`). A span over which a chain would change state more
/// often than a run's event budget allows is refused (`--duration`).
pub fn sample_channel(
    loaded: &Loaded,
    link: &str,
    direction: &str,
    seed: u64,
    duration_s: f64,
    step_s: f64,
    skyline_at_s: &[f64],
) -> Result<serde_json::Value, ScenarioError> {
    let plan = &loaded.plan;
    let span = Dur((duration_s.max(0.0) * 1e9).min(u64::MAX as f64) as u64);
    check_chains_over(
        plan,
        "<options>",
        span,
        plan.event_budget,
        "plot a shorter span",
    )
    .map_err(|e| {
        let message = format!("{}: {}", e.key, e.message);
        ScenarioError::new("<options>", "--duration", message)
    })?;
    let bad = |m: String| ScenarioError::new("<resolved>", format!("links.{link}"), m);
    let (mut out, ch) =
        sample::sample_channel(plan, link, direction, seed, duration_s, step_s).map_err(bad)?;
    if let Some(Channel::LmsUrban(m)) = &ch {
        out["elevation_deg"] = json!(m.elevation_deg);
        out["azimuth_deg"] = json!(m.azimuth_deg);
        let skylines: Vec<_> = (skyline_at_s.iter())
            .map(|&t| json!({"t_s": t, "masking_deg": m.skyline_at(Time::from_secs_f64(t))}))
            .collect();
        out["skylines"] = json!(skylines);
    }
    Ok(out)
}
