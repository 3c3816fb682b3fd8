//! What `channel plot` samples of one link direction of a plan, as the run
//! with a seed would see it, through the seams' hooks only (no model is
//! named here): the direction's channel model (its state, the loss
//! probability of a full-size packet and its named observables,
//! `ChannelModel::observe`), or the channel its link layer draws itself
//! (`LinkLayerSpecOps::own_channel`), and, for a member link of a shared
//! medium, what the medium draws of it (`MediumSpecOps::plot_member`: a
//! beam's Es/N0 and the MODCOD its ACM picks).

use super::plan::Plan;
use crate::channel::{Channel, ChannelCtx};
use crate::engine::time::Time;
use crate::net::Dir;
use serde_json::{json, Value};

/// A direction's samples. `Err`: a message about `links.<link>`.
pub fn sample_channel(
    plan: &Plan,
    link: &str,
    direction: &str,
    seed: u64,
    duration_s: f64,
    step_s: f64,
) -> Result<(Value, Option<Channel>), String> {
    let name = format!("{link}:{direction}");
    let di = plan
        .links
        .iter()
        .position(|d| d.name == name)
        .ok_or_else(|| {
            let links: Vec<&str> = plan.layers.iter().map(|l| l.name.as_str()).collect();
            format!("no such link (links: {})", links.join(", "))
        })?;
    let dir_spec = &plan.links[di];
    let (k, dir) = (di / 2, Dir::from_index(di % 2));
    let layer = &plan.layers[k];
    let n = (duration_s / step_s).floor().max(0.0) as u64 + 1;
    let times: Vec<Time> = (0..n)
        .map(|i| Time::from_secs_f64(i as f64 * step_s))
        .collect();
    let t_s: Vec<f64> = (0..n).map(|i| i as f64 * step_s).collect();
    // The medium the link is a member of, and its index there.
    let member = plan.media.iter().find_map(|m| {
        let j = m.links.iter().position(|&l| l as usize == k)?;
        Some((m, j, m.from_hub[j] == dir))
    });
    let model_at = dir_spec
        .channels
        .iter()
        .enumerate()
        .rfind(|(_, c)| !c.names_segments());
    let ctx = |index| ChannelCtx {
        seed,
        link: &dir_spec.name,
        index,
        geometry: dir_spec.geometry,
    };
    let mut out = json!({ "link": name, "seed": seed, "t_s": t_s });
    let mut kept = None;
    if let Some((index, spec)) = model_at {
        let mut ch = Channel::build(spec, &ctx(index));
        let (mut state, mut loss) = (vec![], vec![]);
        let mut named: Vec<(&'static str, Vec<f64>)> = Vec::new();
        let mut obs = Vec::new();
        for &t in &times {
            let st = ch.state(t);
            state.push(st.map(|s| s.state));
            loss.push(st.map(|s| s.loss_probability));
            obs.clear();
            ch.observe(t, &mut obs);
            for (i, &(key, v)) in obs.iter().enumerate() {
                match named.get_mut(i) {
                    Some((_, vs)) => vs.push(v),
                    None => named.push((key, vec![v])),
                }
            }
        }
        out["model"] = json!(spec.model_name());
        out["state"] = json!(state);
        out["loss_probability"] = json!(loss);
        for (key, vs) in named {
            out[key] = json!(vs);
        }
        kept = Some(ch);
    } else if let Some(mut s) = layer.spec.own_channel(seed, link, dir)? {
        let (mut state, mut loss) = (vec![], vec![]);
        for &t in &times {
            let (st, p) = s(t);
            state.push(Some(st as f64));
            loss.push(Some(p));
        }
        out["model"] = json!(layer.spec.model_name());
        out["state"] = json!(state);
        out["loss_probability"] = json!(loss);
    } else if member.is_none() {
        return Err(format!("the {direction} direction has no channel model"));
    } else {
        out["model"] = Value::Null;
        out["state"] = json!(vec![Value::Null; t_s.len()]);
        out["loss_probability"] = json!(vec![Value::Null; t_s.len()]);
    }
    if let Some((m, j, out_of_hub)) = member {
        // The Es/N0 the direction's models give, as in a run.
        let mut chans: Vec<Channel> = dir_spec
            .channels
            .iter()
            .enumerate()
            .map(|(i, c)| Channel::build(c, &ctx(i)))
            .collect();
        let mut esn0 = |t: Time, rs: f64| chans.iter_mut().find_map(|c| c.esn0_db(t, rs));
        let p = m.spec.plot_member(j, out_of_hub, &mut esn0, &times);
        if !p.series.is_empty() || !p.labels.is_empty() {
            out["medium"] = json!(m.name);
        }
        for (key, vs) in p.series {
            out[key] = json!(vs);
        }
        for (key, vs) in p.labels {
            out[key] = json!(vs);
        }
    }
    Ok((out, kept))
}
