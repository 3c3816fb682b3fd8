//! Links: the two directions of each link with their rate, delay (given, or
//! from the nodes' positions), queue and channel stack, and the link layer
//! that carries both. Values are in range (`validate.rs`); this resolves
//! the link's ends, fills each direction from the link's settings and its
//! own, reads channel files once, and lets the link layer check itself
//! against its directions.

use super::motion::Places;
use super::{PlanFlow, PlanLayer};
use crate::channel::{ChannelSpec, HopGeometry};
use crate::engine::time::Dur;
use crate::error::ScenarioError;
use crate::net::topology::Topology;
use crate::net::LinkDirSpec;
use crate::scenario::schema::{NodeSection, Scenario};
use std::collections::BTreeMap;

const DEFAULT_QUEUE: u32 = 50;

/// The resolved links: directions (`dirs[2k]` forward, `dirs[2k+1]`
/// reverse), one layer per link, and which direction joins two nodes.
pub(super) struct Links {
    pub dirs: Vec<LinkDirSpec>,
    pub layers: Vec<PlanLayer>,
    /// The nodes and link directions as a graph: the fewest-hop routes
    /// and the direction joining two nodes (`net::topology`).
    pub topology: Topology,
    /// Per link: its motion when its ends move (or its visibility matters).
    pub motions: Vec<Option<crate::net::mobile::LinkMotion>>,
    /// Nodes linked to a constellation: a flow between two of them needs
    /// no path over the links.
    pub grounds: std::collections::BTreeSet<u32>,
    /// Per link: how many warnings there were once it was resolved (where
    /// its rules about TCP go, `tcp_rules`).
    pub warned: Vec<usize>,
}

pub(super) fn resolve(
    scn: &Scenario,
    file: &str,
    nodes: &[String],
    index: &BTreeMap<&str, u32>,
    places: &Places,
    warnings: &mut Vec<String>,
) -> Result<Links, ScenarioError> {
    let err = |k: String, m: String| ScenarioError::new(file, k, m);
    let mut out = Links {
        dirs: Vec::new(),
        layers: Vec::new(),
        topology: Topology::default(),
        motions: Vec::new(),
        grounds: Default::default(),
        warned: Vec::new(),
    };
    // (from, to) of every direction so far: one link per pair of nodes.
    let mut joined = std::collections::BTreeSet::new();
    for (name, l) in &scn.links {
        let key = |f: &str| format!("links.{name}.{f}");
        if l.between.len() != 2 {
            return Err(err(key("between"), "must name exactly two nodes".into()));
        }
        let mut ends = [0u32; 2];
        for (i, n) in l.between.iter().enumerate() {
            ends[i] = *index.get(n.as_str()).ok_or_else(|| {
                err(
                    key("between"),
                    format!(
                        "node {n:?} does not exist (nodes: {}){}",
                        nodes.join(", "),
                        crate::suggest::hint(n, nodes.iter().map(|x| &x[..]))
                    ),
                )
            })?;
        }
        if ends[0] == ends[1] {
            return Err(err(
                key("between"),
                "a link needs two different nodes".into(),
            ));
        }
        if !joined.insert((ends[0], ends[1])) || !joined.insert((ends[1], ends[0])) {
            return Err(err(
                key("between"),
                "another link already joins these nodes".into(),
            ));
        }
        let names = (l.between[0].as_str(), l.between[1].as_str());
        let (geometric, geometry, mut motion) =
            match places.link((ends[0], ends[1]), names, l.min_elevation) {
                Some(r) => r,
                None => geometric_delay(scn, index, names.0, names.1).map(|(d, g)| (d, g, None)),
            }
            .map_err(|(k, m)| err(k.unwrap_or_else(|| key("delay")), m))?;
        let explicit = l.delay.is_some()
            || [&l.forward, &l.reverse]
                .iter()
                .any(|d| d.as_ref().is_some_and(|d| d.delay.is_some()));
        if let Some(m) = motion.as_mut() {
            // An explicit delay wins over the positions.
            m.moving_delay &= !explicit;
            if let Some(ll) = l.link_layer.as_ref().filter(|ll| !ll.supports_motion()) {
                return Err(err(
                    key("link_layer"),
                    format!(
                        "the {} link layer does not run between moving nodes",
                        ll.model_name()
                    ),
                ));
            }
        }
        out.motions.push(motion);
        for (dir_name, dir, from, to) in [
            ("forward", &l.forward, ends[0], ends[1]),
            ("reverse", &l.reverse, ends[1], ends[0]),
        ] {
            let d = dir.clone().unwrap_or_default();
            let dkey = |f: &str| format!("links.{name}.{dir_name}.{f}");
            let rate = d.rate.or(l.rate).ok_or_else(|| {
                err(
                    key("rate"),
                    "missing: every link needs a rate, e.g. rate = \"1 Mbps\"".into(),
                )
            })?;
            let delay = match d.delay.or(l.delay) {
                Some(x) => x.0,
                None => geometric.ok_or_else(|| {
                    err(key("delay"), "missing: give delay = \"125 ms\", or positions (lat/lon, geo_longitude) on both nodes".into())
                })?,
            };
            let queue = d.queue.or(l.queue).unwrap_or(DEFAULT_QUEUE);
            let apply_to = d.errors_apply_to.or(l.errors_apply_to);
            // The direction's stack: the exact drop list first (it draws
            // nothing), then the loss model (`link_loss.rs`): the
            // direction's own, else the link's.
            let mut channels = Vec::new();
            if !d.drop_segments.is_empty() {
                channels.push(ChannelSpec::DropList(crate::channel::drop_list_spec(
                    d.drop_segments.clone(),
                )));
            }
            let own = d.loss().map_err(|(k, m)| err(dkey(&k), m))?;
            let model = match own {
                Some(m) => Some((m.spec(), dkey(m.key()))),
                None => {
                    (l.loss().map_err(|(k, m)| err(key(&k), m))?).map(|m| (m.spec(), key(m.key())))
                }
            };
            if let Some((mut m, src)) = model {
                m.default_apply_to(apply_to);
                // Files are read here, once per plan (errors name file and line).
                m.prepare(geometry.as_ref())
                    .map_err(|(k, msg)| err(format!("{src}.{k}"), msg))?;
                channels.push(m);
            }
            out.dirs.push(LinkDirSpec {
                name: format!("{name}:{dir_name}"),
                from,
                to,
                rate_bps: rate.0,
                delay,
                queue,
                channels,
                geometry,
            });
        }
        let spec = l.link_layer.clone().unwrap_or_default();
        {
            // The link layer checks itself against its link (and may fix
            // the directions it defines, e.g. a return path).
            let n = out.dirs.len();
            let (f, r) = out.dirs.split_at_mut(n - 1);
            let w = spec
                .resolve(&mut f[n - 2], &mut r[0])
                .map_err(|(k, m)| err(key(&format!("link_layer.{k}")), m))?;
            warnings.extend(
                w.into_iter()
                    .map(|m| format!("links.{name}.link_layer: {m}")),
            );
        }
        out.warned.push(warnings.len());
        out.layers.push(PlanLayer {
            name: name.clone(),
            spec,
        });
    }
    out.topology = Topology::new(nodes.len(), out.dirs.iter().map(|d| (d.from, d.to)));
    Ok(out)
}

/// Each link layer's rules about the TCP connections that cross it (a
/// DVB-S link's RTO − RTT > ARTO), with the smallest minimum RTO among the
/// legs whose data or ACKs cross it, as each leg resolved it (its flow's
/// options, `[tcp]`, its profile); a link no leg crosses is held to what a
/// flow without options would run with (`default_rto_min`). Each warning
/// follows the link's own.
pub(super) fn tcp_rules(
    net: &Links,
    flows: &[PlanFlow],
    default_rto_min: Dur,
    warnings: &mut Vec<String>,
) {
    for (k, layer) in net.layers.iter().enumerate().rev() {
        let dirs = [2 * k as u32, 2 * k as u32 + 1];
        let crossing = flows
            .iter()
            .flat_map(|f| &f.legs)
            .filter(|l| l.fwd.iter().chain(&l.rev).any(|d| dirs.contains(d)))
            .map(|l| l.cfg.rto_min);
        let rto_min = crossing.min().unwrap_or(default_rto_min);
        let w = layer
            .spec
            .check_tcp(&net.dirs[2 * k], &net.dirs[2 * k + 1], rto_min);
        let at = net.warned[k];
        warnings.splice(
            at..at,
            w.into_iter()
                .map(|m| format!("links.{}.link_layer: {m}", layer.name)),
        );
    }
}

use super::motion::KeyedError;

/// Delay from positions: ground-GEO slant range (with the station's view of
/// the satellite) or GEO-GEO inter-satellite link.
fn geometric_delay(
    scn: &Scenario,
    index: &BTreeMap<&str, u32>,
    a: &str,
    b: &str,
) -> Result<(Option<Dur>, Option<HopGeometry>), KeyedError> {
    let (Some(na), Some(nb)) = (scn.nodes.get(a), scn.nodes.get(b)) else {
        return Ok((None, None));
    };
    let ground = |n: &NodeSection| n.lat.zip(n.lon);
    let station = match (ground(na), na.geo_longitude, ground(nb), nb.geo_longitude) {
        (Some((lat, lon)), _, _, Some(sat)) => Some((a, lat, lon, sat)),
        (_, Some(sat), Some((lat, lon)), _) => Some((b, lat, lon, sat)),
        _ => None,
    };
    if let Some((node, lat, lon, sat)) = station {
        // Named at the ground node's key: its position is what puts the
        // satellite below its horizon.
        let g = crate::geo::geo_link(lat, lon, sat)
            .map_err(|e| (Some(format!("nodes.{node}")), e.to_string()))?;
        let geometry = HopGeometry {
            ground_node: index[node],
            lat_deg: lat,
            lon_deg: lon,
            sat_lon_deg: sat,
            elevation_deg: g.elevation_deg,
            azimuth_deg: g.azimuth_deg,
            slant_range_m: g.slant_range_m,
        };
        return Ok((Some(g.delay), Some(geometry)));
    }
    match (na.geo_longitude, nb.geo_longitude) {
        (Some(s1), Some(s2)) => crate::geo::geo_isl(s1, s2)
            .map(|(_, d)| (Some(d), None))
            .map_err(|e| (None, e.to_string())),
        _ => Ok((None, None)),
    }
}
