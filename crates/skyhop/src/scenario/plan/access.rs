//! The `starlink` access preset (docs/leo.md, "Starlink as deployed"),
//! resolved in two steps around the rest of the plan:
//! 1. [`expand`]: the scenario as the preset makes it — each terminal gets
//!    a dish (`<terminal>-dish`, at its place, the constellation's ground
//!    node instead of it) and an access link to it (`access-<terminal>`,
//!    link layer `starlink-access`); the gateways (`gw-<name>`) join the
//!    ground nodes, each with a fibre link to each PoP in use
//!    (`fibre-<gateway>-<pop>`, delay from the great-circle distance and
//!    the route factor); the PoPs (`pop-<code>`) are nodes a scenario
//!    links its servers to; routes default to Starlink's epochs.
//! 2. [`attach`]: on the built plan, the gateways' own minimum elevations
//!    and feeder links (ground rules of their own), and the access network
//!    (`net::access::AccessNet`) given to the moving network and to each
//!    access link.

use super::Plan;
use crate::engine::time::Dur;
use crate::error::ScenarioError;
use crate::mobility::ground::{self, great_circle_m, SiteKind};
use crate::net::access::{
    AccessNet, BeamShare, EpochClock, GatewaySpec, SchedulerParams, TerminalSpec,
};
use crate::net::mobile::{GslRule, LinkClass};
use crate::net::LinkLayerSpec;
use crate::scenario::schema::{
    AccessModel, AccessSection, DirSection, LinkSection, NodeSection, RoutingPolicyName,
    RoutingSection, Scenario, SiteKindName,
};
use crate::units::{Duration, Rate};
use std::sync::Arc;

/// Defaults of the preset (docs/leo.md gives their sources).
pub(super) const UPLINK_BPS: u64 = 20_000_000;
pub(super) const DOWNLINK_BPS: u64 = 200_000_000;
pub(super) const QUEUE: u32 = 1500;
pub(super) const REACH_M: f64 = 2_000e3;
pub(super) const ISL_HOPS: u32 = 8;
pub(super) const FEEDER_BPS: u64 = 10_000_000_000;
pub(super) const FIBRE_BPS: u64 = 100_000_000_000;
pub(super) const GATEWAY_MIN_ELEVATION: f64 = 25.0;
pub(super) const ANTENNAS: u32 = 8;

/// A site the preset places.
#[derive(Clone, Debug)]
struct Site {
    name: String,
    lat: f64,
    lon: f64,
    min_elevation: f64,
    antennas: u32,
}

/// What [`attach`] needs of the expansion.
#[derive(Clone, Debug)]
pub(super) struct Expansion {
    /// (host, dish, PoP index) by node name.
    terminals: Vec<(String, String, usize)>,
    /// Gateway node names, minimum elevations, antennas, fibre per PoP.
    gateways: Vec<(String, f64, u32, Vec<Dur>)>,
    pops: Vec<String>,
    clock: EpochClock,
    isl_hops: u32,
    feeder: LinkClass,
}

fn err(file: &str, key: impl Into<String>, m: impl Into<String>) -> ScenarioError {
    ScenarioError::new(file, key, m)
}

/// The scenario with the preset's nodes and links, or `None` without the preset.
pub(super) fn expand(
    scn: &Scenario,
    file: &str,
) -> Result<Option<(Scenario, Expansion)>, ScenarioError> {
    let Some(setting) = &scn.access else {
        return Ok(None);
    };
    if setting.model() == AccessModel::Geometric {
        return Ok(None);
    }
    let a: AccessSection = setting.section();
    let Some(c) = &scn.constellation else {
        return Err(err(
            file,
            "access",
            "the starlink access needs a [constellation] (e.g. preset = \"starlink-550\")",
        ));
    };
    let mut out = scn.clone();
    // Terminals.
    let names: Vec<String> = match (&a.terminals, &c.ground) {
        (Some(t), _) => t.clone(),
        (None, Some(g)) => g.clone(),
        (None, None) => scn
            .nodes
            .iter()
            .filter(|(_, n)| n.lat.is_some() && n.altitude.is_none() && n.route.is_none())
            .map(|(k, _)| k.clone())
            .collect(),
    };
    if names.is_empty() {
        return Err(err(
            file,
            "access.terminals",
            "no terminal: name the nodes that are",
        ));
    }
    let mut places = Vec::new();
    for (i, t) in names.iter().enumerate() {
        let key = format!("access.terminals[{i}]");
        let n = scn
            .nodes
            .get(t)
            .ok_or_else(|| err(file, &key, format!("node {t:?} does not exist")))?;
        match (n.lat.zip(n.lon), &n.route, n.altitude) {
            (Some(p), None, None) => places.push(p),
            _ => {
                return Err(err(
                    file,
                    &key,
                    format!("node {t:?} must stand on the ground: give it lat and lon (no route, no altitude)"),
                ))
            }
        }
    }
    // Sites: the shipped ones, then the scenario's own.
    let mut gws: Vec<Site> = Vec::new();
    let mut pops: Vec<Site> = Vec::new();
    if a.shipped.unwrap_or(true) {
        for s in ground::sites() {
            let site = Site {
                name: s.name.to_string(),
                lat: s.lat_deg,
                lon: s.lon_deg,
                min_elevation: s.min_elevation_deg.unwrap_or(GATEWAY_MIN_ELEVATION),
                antennas: s.antennas.unwrap_or(ANTENNAS),
            };
            match s.kind {
                SiteKind::Gateway => gws.push(site),
                SiteKind::Pop => pops.push(site),
            }
        }
    }
    for (name, s) in &a.sites {
        let key = format!("access.sites.{name}");
        if !(-90.0..=90.0).contains(&s.lat) || !(-180.0..=180.0).contains(&s.lon) {
            return Err(err(
                file,
                format!("{key}.lat"),
                "lat must be within ±90°, lon within ±180°",
            ));
        }
        let min_elevation = s.min_elevation.unwrap_or(GATEWAY_MIN_ELEVATION);
        if !(0.0..90.0).contains(&min_elevation) {
            return Err(err(
                file,
                format!("{key}.min_elevation"),
                format!("{min_elevation}° is outside 0-90°"),
            ));
        }
        if s.antennas == Some(0) {
            return Err(err(
                file,
                format!("{key}.antennas"),
                "a gateway needs at least one antenna",
            ));
        }
        let site = Site {
            name: name.clone(),
            lat: s.lat,
            lon: s.lon,
            min_elevation,
            antennas: s.antennas.unwrap_or(ANTENNAS),
        };
        let list = match s.kind {
            SiteKindName::Gateway => &mut gws,
            SiteKindName::Pop => &mut pops,
        };
        list.retain(|x| x.name != site.name);
        list.push(site);
    }
    // The terminals' PoPs.
    let pop_of: Vec<usize> = match &a.pop {
        Some(code) => {
            let k = pops.iter().position(|p| &p.name == code).ok_or_else(|| {
                err(
                    file,
                    "access.pop",
                    format!(
                        "no PoP {code:?} (shipped: {})",
                        ground::sites()
                            .iter()
                            .filter(|s| s.kind == SiteKind::Pop)
                            .map(|s| s.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })?;
            vec![k; names.len()]
        }
        None => places
            .iter()
            .map(|&t| nearest(&pops, t))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                err(
                    file,
                    "access.pop",
                    "no PoP to choose from: give access.sites",
                )
            })?,
    };
    let mut used: Vec<usize> = pop_of.clone();
    used.sort_unstable();
    used.dedup();
    // The gateways.
    let reach = a.reach.map_or(REACH_M, |r| r.0);
    let chosen: Vec<Site> = match &a.gateways {
        Some(list) => list
            .iter()
            .enumerate()
            .map(|(i, g)| {
                gws.iter().find(|s| &s.name == g).cloned().ok_or_else(|| {
                    err(
                        file,
                        format!("access.gateways[{i}]"),
                        format!("no gateway {g:?}"),
                    )
                })
            })
            .collect::<Result<_, _>>()?,
        None => gws
            .iter()
            .filter(|g| {
                places
                    .iter()
                    .any(|&t| great_circle_m(t, (g.lat, g.lon)) <= reach)
            })
            .cloned()
            .collect(),
    };
    if chosen.is_empty() {
        return Err(err(
            file,
            "access.gateways",
            format!(
                "no gateway within {} km of a terminal: give access.gateways or access.reach",
                reach / 1e3
            ),
        ));
    }
    let route_factor = a.route_factor.unwrap_or(ground::ROUTE_FACTOR);
    if !(route_factor.is_finite() && route_factor >= 1.0) {
        return Err(err(
            file,
            "access.route_factor",
            format!("{route_factor} must be at least 1"),
        ));
    }
    let taken = |name: &String| scn.nodes.contains_key(name) || scn.links.contains_key(name);
    let add_node = |out: &mut Scenario, name: String, lat: f64, lon: f64| {
        if taken(&name) {
            return Err(err(
                file,
                format!("nodes.{name}"),
                "the starlink access adds a node of this name: rename yours",
            ));
        }
        out.nodes.insert(
            name,
            NodeSection {
                lat: Some(lat),
                lon: Some(lon),
                ..Default::default()
            },
        );
        Ok(())
    };
    // Routing: the scheduler's epochs. The paths it installs at each
    // boundary are held for the epoch, so routes recomputed on another
    // schedule would change nothing on them, or move their change off the
    // boundary: an interval policy and its update interval are refused.
    let mut r = scn.routing.clone().unwrap_or_default();
    if let Some(u) = r.update {
        return Err(err(
            file,
            "routing.update",
            format!(
                "\"{u}\" has no effect with access = \"starlink\": the scheduler recomputes the routes at its epochs (routing.epoch, routing.epoch_offset); remove it"
            ),
        ));
    }
    if r.policy == Some(RoutingPolicyName::ShortestDelay) {
        return Err(err(
            file,
            "routing.policy",
            "\"shortest-delay\" cannot be used with access = \"starlink\": the scheduler holds each terminal's path for its epoch (routing.epoch, routing.epoch_offset); leave routing.policy out or set \"epochs\"",
        ));
    }
    r.policy = Some(RoutingPolicyName::Epochs);
    let clock = EpochClock {
        period: r.epoch.map_or(EpochClock::STARLINK.period, |d| d.0),
        offset: r.epoch_offset.map_or(EpochClock::STARLINK.offset, |d| d.0),
    };
    r.epoch = Some(Duration(clock.period));
    r.epoch_offset = Some(Duration(clock.offset));
    out.routing = Some(RoutingSection { ..r });
    // Dishes and access links.
    let mut link_spec = a.link.clone().unwrap_or_default();
    for (given, k) in [
        (link_spec.epoch.is_some(), "epoch"),
        (link_spec.epoch_offset.is_some(), "epoch_offset"),
    ] {
        if given {
            return Err(err(
                file,
                format!("access.link.{k}"),
                "the epochs are routing.epoch and routing.epoch_offset",
            ));
        }
    }
    // A packet waits for its frame, so a queue of 0 would drop them all.
    for (q, k) in [
        (a.dish_queue, "dish_queue"),
        (a.gateway_queue, "gateway_queue"),
    ] {
        if q == Some(0) {
            return Err(err(
                file,
                format!("access.{k}"),
                "must be at least 1 packet: every packet waits for a frame",
            ));
        }
    }
    link_spec.epoch = Some(crate::net::dvbs::spec::Checked::Ok(Duration(clock.period)));
    link_spec.epoch_offset = Some(crate::net::dvbs::spec::Checked::Ok(Duration(clock.offset)));
    if let Err((k, m)) = link_spec.params() {
        let key = if k == "epoch" || k == "epoch_offset" {
            format!("routing.{k}")
        } else {
            format!("access.link.{k}")
        };
        return Err(err(file, key, m));
    }
    let mut terminals = Vec::new();
    let mut ground_nodes: Vec<String> = c.ground.clone().unwrap_or_default();
    ground_nodes.retain(|g| !names.contains(g));
    for (k, t) in names.iter().enumerate() {
        let dish = format!("{t}-dish");
        add_node(&mut out, dish.clone(), places[k].0, places[k].1)?;
        ground_nodes.push(dish.clone());
        let link = format!("access-{t}");
        if taken(&link) {
            return Err(err(
                file,
                format!("links.{link}"),
                "the starlink access adds a link of this name: rename yours",
            ));
        }
        out.links.insert(
            link,
            LinkSection {
                between: vec![t.clone(), dish.clone()],
                rate: Some(Rate(a.downlink.map_or(DOWNLINK_BPS, |r| r.0))),
                delay: Some(Duration(Dur::ZERO)),
                queue: Some(a.gateway_queue.unwrap_or(QUEUE)),
                forward: Some(DirSection {
                    rate: Some(Rate(a.uplink.map_or(UPLINK_BPS, |r| r.0))),
                    queue: Some(a.dish_queue.unwrap_or(QUEUE)),
                    ..Default::default()
                }),
                link_layer: Some(LinkLayerSpec::StarlinkAccess(Box::new(link_spec.clone()))),
                ..blank_link()
            },
        );
        terminals.push((
            t.clone(),
            dish,
            used.iter().position(|&u| u == pop_of[k]).unwrap(),
        ));
    }
    // PoPs, gateways and fibre.
    let pop_names: Vec<String> = used
        .iter()
        .map(|&p| format!("pop-{}", pops[p].name))
        .collect();
    for (&p, n) in used.iter().zip(&pop_names) {
        add_node(&mut out, n.clone(), pops[p].lat, pops[p].lon)?;
    }
    let fibre = a.fibre.as_ref();
    let mut gateways = Vec::new();
    for g in &chosen {
        let node = format!("gw-{}", g.name);
        add_node(&mut out, node.clone(), g.lat, g.lon)?;
        ground_nodes.push(node.clone());
        let mut delays = Vec::new();
        for (&p, pn) in used.iter().zip(&pop_names) {
            let d =
                ground::terrestrial_delay((g.lat, g.lon), (pops[p].lat, pops[p].lon), route_factor);
            delays.push(d);
            out.links.insert(
                format!("fibre-{}-{}", g.name, pops[p].name),
                LinkSection {
                    between: vec![node.clone(), pn.clone()],
                    rate: Some(Rate(fibre.and_then(|f| f.rate).map_or(FIBRE_BPS, |r| r.0))),
                    delay: Some(Duration(d)),
                    queue: Some(fibre.and_then(|f| f.queue).unwrap_or(1000)),
                    ..blank_link()
                },
            );
        }
        gateways.push((node, g.min_elevation, g.antennas, delays));
    }
    let mut cst = c.clone();
    cst.ground = Some(ground_nodes);
    out.constellation = Some(cst);
    out.access = None;
    let feeder = LinkClass {
        name: "feeder".into(),
        rate_bps: a
            .feeder
            .as_ref()
            .and_then(|f| f.rate)
            .map_or(FEEDER_BPS, |r| r.0),
        queue: a.feeder.as_ref().and_then(|f| f.queue).unwrap_or(1000),
    };
    Ok(Some((
        out,
        Expansion {
            terminals,
            gateways,
            pops: pop_names,
            clock,
            isl_hops: a.isl_hops.unwrap_or(ISL_HOPS),
            feeder,
        },
    )))
}

fn blank_link() -> LinkSection {
    LinkSection {
        between: Vec::new(),
        rate: None,
        delay: None,
        queue: None,
        per: None,
        ber: None,
        errors_apply_to: None,
        channel: None,
        min_elevation: None,
        link_layer: None,
        forward: None,
        reverse: None,
    }
}

/// The PoP nearest a place.
fn nearest(pops: &[Site], at: (f64, f64)) -> Option<usize> {
    (0..pops.len()).min_by(|&i, &j| {
        great_circle_m(at, (pops[i].lat, pops[i].lon))
            .total_cmp(&great_circle_m(at, (pops[j].lat, pops[j].lon)))
    })
}

/// Give the built plan its gateways' ground rules and the access network.
pub(super) fn attach(plan: &mut Plan, x: &Expansion) {
    let idx = |n: &str| {
        plan.nodes
            .iter()
            .position(|x| x == n)
            .expect("an added node") as u32
    };
    let terminals: Vec<TerminalSpec> = x
        .terminals
        .iter()
        .map(|(h, d, p)| TerminalSpec {
            host: idx(h),
            dish: idx(d),
            pop: *p,
        })
        .collect();
    let gateways: Vec<GatewaySpec> = x
        .gateways
        .iter()
        .map(|(n, e, a, f)| GatewaySpec {
            node: idx(n),
            min_elevation_deg: *e,
            antennas: *a,
            fibre: f.clone(),
        })
        .collect();
    let pops: Vec<u32> = x.pops.iter().map(|p| idx(p)).collect();
    let m = plan.motion.as_mut().expect("a constellation moves");
    // The gateways leave the constellation's rule for rules of their own
    // (their minimum elevation, the feeder links).
    let gw_nodes: Vec<u32> = gateways.iter().map(|g| g.node).collect();
    let sats = m.gsls[0].sats.clone();
    let min_elevation = m.gsls[0].min_elevation_deg;
    m.gsls[0].grounds.retain(|g| !gw_nodes.contains(g));
    let class = m.classes.len();
    m.classes.push(x.feeder.clone());
    let mut levels: Vec<f64> = gateways.iter().map(|g| g.min_elevation_deg).collect();
    levels.sort_by(f64::total_cmp);
    levels.dedup();
    for e in levels {
        m.gsls.push(GslRule {
            grounds: gateways
                .iter()
                .filter(|g| g.min_elevation_deg == e)
                .map(|g| g.node)
                .collect(),
            sats: sats.clone(),
            min_elevation_deg: e,
            max_range_m: None,
            class,
        });
    }
    let net = Arc::new(AccessNet::new(
        m.positions.clone(),
        sats,
        &m.isls,
        pops,
        gateways,
        terminals,
        SchedulerParams {
            clock: x.clock,
            min_elevation_deg: min_elevation,
            isl_hops: x.isl_hops,
        },
    ));
    m.access = Some(net.clone());
    refigure_legs(plan);
    for (k, (h, _, _)) in x.terminals.iter().enumerate() {
        let name = format!("access-{h}");
        let li = plan
            .layers
            .iter()
            .position(|l| l.name == name)
            .expect("an access link");
        if let LinkLayerSpec::StarlinkAccess(s) = &mut plan.layers[li].spec {
            s.beam = Some(BeamShare {
                net: net.clone(),
                terminal: k,
            });
            let idle = access_idle_delay(s);
            add_to_legs(plan, li as u32, idle);
        }
    }
}

/// The figures of every leg across the moving network again, now that
/// the access network is attached: their route at the start is the
/// scheduler's first epoch (dish, serving satellite, gateway, PoP), the
/// path the run's packets take, not the geometric shortest path.
fn refigure_legs(plan: &mut Plan) {
    let fresh: Vec<Vec<Option<super::LegFigures>>> = {
        let f = super::figures::Figures::new(&plan.links, plan.motion.as_ref());
        plan.flows
            .iter()
            .map(|fl| {
                fl.legs
                    .iter()
                    .map(|l| {
                        l.figures
                            .route_at_start
                            .is_some()
                            .then(|| f.leg(&l.path, &l.fwd, &l.rev, l.cfg.mss, l.cfg.header_bytes))
                    })
                    .collect()
            })
            .collect()
    };
    for (fl, new) in plan.flows.iter_mut().zip(fresh) {
        for (l, n) in fl.legs.iter_mut().zip(new) {
            if let Some(n) = n {
                l.figures = n;
            }
        }
    }
}

/// What the access link adds to an idle round trip beyond propagation
/// and transmission: the uplink's grant and, each way, half a frame's
/// wait for the next frame plus the frame that carries the packet (the
/// idle round trip `describe` shows, `describe_access.rs`).
fn access_idle_delay(s: &crate::net::access::AccessLinkSpec) -> Dur {
    let p = s
        .params()
        .expect("the plan checked the access link's parameters");
    let three_frames = Dur(3_000_000_000 / p.frame_rate as u64);
    p.grant + three_frames
}

/// Add `idle` to the round trip (and the bandwidth-delay product) of
/// every leg whose route (at the start, across the constellation; else its
/// path) crosses link `link`: the figures `describe`, the warnings and the
/// memory estimate read (`figures.rs`) then include the access link's
/// scheduling.
fn add_to_legs(plan: &mut Plan, link: u32, idle: Dur) {
    let d = &plan.links[2 * link as usize];
    let ends = [(d.from, d.to), (d.to, d.from)];
    for f in plan.flows.iter_mut() {
        for leg in f.legs.iter_mut() {
            let route = leg.figures.route_at_start.as_ref().unwrap_or(&leg.path);
            if route.windows(2).any(|w| ends.contains(&(w[0], w[1]))) {
                let fig = &mut leg.figures;
                fig.rtt = fig.rtt + idle;
                fig.bdp = super::bytes_in(fig.bottleneck, fig.rtt);
            }
        }
    }
}
