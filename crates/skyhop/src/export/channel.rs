//! The channel of one direction of a loaded scenario's link, sampled over
//! time as the run with a given seed would see it (`skyhop channel`): its
//! last channel model, or a DVB-S link's fade process.

use crate::channel::sample::{sample_model, sample_with, ChannelSample};
use crate::channel::{ChannelCtx, ChannelSpec};
use crate::engine::time::Dur;
use crate::error::ScenarioError;
use crate::net::LinkLayerSpec;
use crate::scenario::{check_chains_over, Loaded};

/// Sample direction `direction` (`forward`, `reverse`) of link `link` of
/// `loaded` every `step_s` seconds over `duration_s` with `seed` (see
/// [`ChannelSample`]). A span over which a fade chain would switch more
/// often than a run's event budget allows is refused (`--duration`).
pub fn sample_channel(
    loaded: &Loaded,
    link: &str,
    direction: &str,
    seed: u64,
    duration_s: f64,
    step_s: f64,
    skyline_at_s: &[f64],
) -> Result<ChannelSample, ScenarioError> {
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
    let name = format!("{link}:{direction}");
    let bad = |m: String| ScenarioError::new("<resolved>", format!("links.{link}"), m);
    let Some(dir) = plan.links.iter().find(|d| d.name == name) else {
        let links: Vec<&str> = loaded.scenario.links.keys().map(|k| k.as_str()).collect();
        return Err(bad(format!("no such link (links: {})", links.join(", "))));
    };
    let mut models = dir.channels.iter().enumerate();
    let model = models.rfind(|(_, c)| !matches!(c, ChannelSpec::DropList(_)));
    let dvbs = plan.layers.iter().find_map(|l| match &l.spec {
        LinkLayerSpec::Dvbs(s) if l.name == link => s.params().ok(),
        _ => None,
    });
    let ctx = |index| ChannelCtx {
        seed,
        link: &dir.name,
        index,
        geometry: dir.geometry,
    };
    match (model, dvbs) {
        (Some((index, spec)), _) => Ok(sample_model(
            spec,
            &ctx(index),
            duration_s,
            step_s,
            skyline_at_s,
        )),
        (None, Some(_)) if direction != "forward" => Err(bad(
            "the reverse direction of a DVB-S link has no channel model (its fade process is on the forward direction)".into(),
        )),
        (None, Some(p)) => {
            // The DVB-S link's fade process, as its frames see it.
            let mut chain = p.fade_chain(seed, link);
            Ok(sample_with("dvbs", &ctx(0), duration_s, step_s, |t| {
                let b = chain.state_at(t);
                (Some(b as u32), Some(p.frame_loss(b)))
            }))
        }
        (None, None) => Err(bad(format!(
            "the {direction} direction has no channel model"
        ))),
    }
}
