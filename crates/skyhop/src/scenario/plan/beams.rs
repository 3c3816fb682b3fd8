//! Beams (`beams.<id>`): each resolved into a shared medium over its
//! member links (`net/beam/`), after the checks that concern the links:
//! the gateway exists, each member is a link of the scenario joining the
//! gateway to one terminal, no link and no terminal is in two beams, a
//! member is carried by the beam (no link layer of its own) between fixed
//! nodes. The beam's own values (MODCODs, superframe, capacity categories)
//! are checked by its spec against the members. The members' directions
//! take the beam's rates (`BeamParams::member_rates_bps`).

use super::links::Links;
use crate::error::ScenarioError;
use crate::net::beam::MemberShape;
use crate::net::{Dir, LinkLayerSpec, MediumSpec, PlanMedium};
use crate::scenario::schema::Scenario;
use std::collections::BTreeMap;

pub(super) fn resolve(
    scn: &Scenario,
    file: &str,
    nodes: &[String],
    index: &BTreeMap<&str, u32>,
    net: &mut Links,
) -> Result<Vec<PlanMedium>, ScenarioError> {
    let mut out = Vec::new();
    // Link and terminal → the beam (and link) that holds it.
    let mut link_in: BTreeMap<u32, &str> = BTreeMap::new();
    let mut terminal_in: BTreeMap<u32, (&str, &str)> = BTreeMap::new();
    for (id, b) in &scn.beams {
        let key = |f: &str| format!("beams.{id}.{f}");
        let err = |k: String, m: String| ScenarioError::new(file, k, m);
        let gw = *index.get(b.gateway.as_str()).ok_or_else(|| {
            err(
                key("gateway"),
                format!(
                    "node {:?} does not exist (nodes: {}){}",
                    b.gateway,
                    nodes.join(", "),
                    crate::suggest::hint(&b.gateway, nodes.iter().map(|x| &x[..]))
                ),
            )
        })?;
        if b.links.is_empty() {
            return Err(err(
                key("links"),
                "a beam needs at least one member link".into(),
            ));
        }
        let (mut links, mut from_hub, mut shapes) = (Vec::new(), Vec::new(), Vec::new());
        for (i, name) in b.links.iter().enumerate() {
            let lkey = key(&format!("links[{i}]"));
            let k = net
                .layers
                .iter()
                .position(|l| &l.name == name)
                .ok_or_else(|| {
                    let names: Vec<&str> = net.layers.iter().map(|l| l.name.as_str()).collect();
                    err(
                        lkey.clone(),
                        format!(
                            "link {name:?} does not exist (links: {}){}",
                            names.join(", "),
                            crate::suggest::hint(name, names.iter().copied())
                        ),
                    )
                })?;
            let f = &net.dirs[2 * k];
            let (dir, terminal) = if f.from == gw {
                (Dir::Forward, f.to)
            } else if f.to == gw {
                (Dir::Reverse, f.from)
            } else {
                return Err(err(
                    lkey,
                    format!(
                        "link {name:?} joins {} and {}, not the gateway {}",
                        nodes[f.from as usize], nodes[f.to as usize], b.gateway
                    ),
                ));
            };
            if let Some(other) = link_in.insert(k as u32, id) {
                let m = if other == id {
                    format!("link {name:?} is listed twice")
                } else {
                    format!("link {name:?} is already in beam {other:?}")
                };
                return Err(err(lkey, m));
            }
            if let Some((other, via)) = terminal_in.insert(terminal, (id, name)) {
                return Err(err(
                    lkey,
                    format!(
                        "terminal {} is already in beam {other:?} (by link {via:?}); a terminal belongs to one beam",
                        nodes[terminal as usize]
                    ),
                ));
            }
            if !matches!(net.layers[k].spec, LinkLayerSpec::Fifo(_)) {
                return Err(err(
                    format!("links.{name}.link_layer"),
                    format!("link {name:?} is carried by beam {id:?}; it takes no link layer of its own"),
                ));
            }
            if net.motions[k].is_some() {
                return Err(err(
                    lkey,
                    format!("link {name:?} joins moving nodes; a beam's links join fixed ones"),
                ));
            }
            let (fwd, rtn) = (
                &net.dirs[2 * k + dir.index()],
                &net.dirs[2 * k + dir.other().index()],
            );
            links.push(k as u32);
            from_hub.push(dir);
            shapes.push(MemberShape {
                name,
                fwd_delay: fwd.delay,
                rtn_delay: rtn.delay,
                has_esn0: fwd.channels.iter().any(|c| c.gives_esn0()),
            });
        }
        let mut spec = b.clone();
        spec.prepare(&shapes).map_err(|(k, m)| err(key(&k), m))?;
        // The members' directions carry at the beam's rates, not their own.
        if let Some(p) = &spec.resolved.0 {
            let (fwd, rtn) = p.member_rates_bps();
            for (&k, d) in links.iter().zip(&from_hub) {
                let k = k as usize;
                for (dir, rate) in [(*d, fwd), (d.other(), rtn)] {
                    if let Some(r) = rate {
                        net.dirs[2 * k + dir.index()].rate_bps = r.round() as u64;
                    }
                }
            }
        }
        out.push(PlanMedium {
            name: id.clone(),
            spec: MediumSpec::Beam(Box::new(spec)),
            links,
            from_hub,
        });
    }
    Ok(out)
}
