//! Flows: the path from `from` to `to` (given, or the fewest-hop route of
//! `net::Topology`), its legs
//! between split proxies with each leg's TCP variant, configuration and link
//! directions, the proxies themselves, and the application driving the flow.

use super::figures::Figures;
use super::links::Links;
use super::tcp::{aero_allocation, aero_section, tcp_config};
use super::{proxies, PlanFlow, PlanLeg};
use crate::app::{AppSpec, FileSpec, FlowShape};
use crate::error::ScenarioError;
use crate::scenario::schema::{FlowSection, FlowSize, Scenario, VariantName};
use std::collections::BTreeMap;

/// What every flow is resolved against.
struct Ctx<'a> {
    scn: &'a Scenario,
    file: &'a str,
    nodes: &'a [String],
    index: &'a BTreeMap<&'a str, u32>,
    net: &'a Links,
    figures: &'a Figures<'a>,
}

impl Ctx<'_> {
    fn err(&self, key: String, message: String) -> ScenarioError {
        ScenarioError::new(self.file, key, message)
    }

    /// The index of node `n`, named at `key`.
    fn node(&self, key: String, n: &str) -> Result<u32, ScenarioError> {
        self.index.get(n).copied().ok_or_else(|| {
            self.err(
                key,
                format!(
                    "node {n:?} does not exist (nodes: {}){}",
                    self.nodes.join(", "),
                    crate::suggest::hint(n, self.nodes.iter().map(String::as_str))
                ),
            )
        })
    }
}

pub(super) fn resolve(
    scn: &Scenario,
    file: &str,
    nodes: &[String],
    index: &BTreeMap<&str, u32>,
    net: &Links,
    figures: &Figures,
    warnings: &mut Vec<String>,
) -> Result<Vec<PlanFlow>, ScenarioError> {
    if scn.flows.is_empty() && !scn.nodes.values().any(|n| n.live == Some(true)) {
        return Err(ScenarioError::new(
            file,
            "flows",
            "no flows defined (a scenario for skyhop live may have none if a node is marked live = true)",
        ));
    }
    let cx = Ctx {
        scn,
        file,
        nodes,
        index,
        net,
        figures,
    };
    scn.flows
        .iter()
        .map(|(name, f)| flow(&cx, name, f, warnings))
        .collect()
}

fn flow(
    cx: &Ctx,
    name: &str,
    f: &FlowSection,
    warnings: &mut Vec<String>,
) -> Result<PlanFlow, ScenarioError> {
    let key = |k: &str| format!("flows.{name}.{k}");
    let path = path(cx, name, f)?;
    let cut = cuts(cx, name, f, &path)?;
    let legs = legs(cx, name, f, &path, &cut.at)?;
    let quic = (!f.transport.is_tcp()).then(|| crate::quic::params::resolve(&cx.scn.quic, &f.quic));
    let mut proxies = Vec::new();
    for (i, &(_, p, terminates)) in cut.stops.iter().enumerate() {
        let sec = cx.scn.nodes[p].proxy.clone().unwrap_or_default();
        let id = cx.index[p];
        if terminates {
            // A QUIC-terminating proxy opens the next connection with the
            // flow's own settings.
            let q = quic
                .as_ref()
                .expect("checked: quic_proxies on a QUIC flow only");
            proxies.push(proxies::resolve_quic(cx.file, p, id, &sec, q)?);
            continue;
        }
        let mss = legs[i].cfg.mss as u64;
        // Under the linux profile a proxy given no policy or size is a relay
        // process on a Linux host: the incoming leg's receive buffer and the
        // outgoing leg's send buffer.
        let relay = legs[i]
            .profile
            .relay_proxies()
            .then(|| (legs[i].cfg.rcv_buffer, legs[i + 1].cfg.send_buffer));
        proxies.push(proxies::resolve(cx.file, p, id, &sec, mss, relay)?);
    }
    let size = f.size.unwrap_or(FlowSize::Unlimited);
    let bytes = match size {
        FlowSize::Bytes(b) => Some(b),
        FlowSize::Unlimited => None,
    };
    let app = match f.app {
        // ns-2's accounting (validate.rs: a file transfer's key): the size
        // counts packets of the first leg's full segment on the wire.
        None if f.headers == Some(false) => match bytes {
            Some(b) => AppSpec::File(FileSpec::on_wire(
                b,
                legs[0].cfg.mss,
                legs[0].cfg.header_bytes,
            )),
            None => AppSpec::without_app(bytes),
        },
        None => AppSpec::without_app(bytes),
        Some(app) => {
            let shape = FlowShape {
                size: bytes,
                proxies: f.proxies.len(),
                idle_restart: legs.iter().all(|l| l.cfg.idle_restart),
            };
            let (spec, warns) = f
                .tables
                .resolve(app, &shape)
                .map_err(|(k, m)| cx.err(key(&k), m))?;
            let table = key(app.name());
            warnings.extend(warns.into_iter().map(|w| format!("{table}: {w}")));
            spec
        }
    };
    Ok(PlanFlow {
        name: name.to_string(),
        start: f.start.0,
        size,
        app,
        path,
        legs,
        proxies,
        quic,
    })
}

/// The node path from `from` to `to`: the given one, checked, or the shortest.
fn path(cx: &Ctx, name: &str, f: &FlowSection) -> Result<Vec<u32>, ScenarioError> {
    let key = |k: &str| format!("flows.{name}.{k}");
    let src = cx.node(key("from"), &f.from)?;
    let dst = cx.node(key("to"), &f.to)?;
    if src == dst {
        return Err(cx.err(key("to"), "a flow needs two different end nodes".into()));
    }
    let Some(p) = &f.path else {
        let topology = &cx.net.topology;
        if let Some(p) = topology.path(src, dst) {
            return Ok(p);
        }
        // Both ends reach the ground under a constellation (or are there):
        // the moving network routes between them.
        let reaches_ground = |from: u32| {
            (0..cx.nodes.len() as u32)
                .any(|g| cx.net.grounds.contains(&g) && topology.path(from, g).is_some())
        };
        if !cx.net.grounds.is_empty() && reaches_ground(src) && reaches_ground(dst) {
            return Ok(vec![src, dst]);
        }
        return Err(cx.err(
            key("to"),
            format!("no path from {} to {} over the links", f.from, f.to),
        ));
    };
    let ids = p
        .iter()
        .map(|n| cx.node(key("path"), n))
        .collect::<Result<Vec<_>, _>>()?;
    if ids.first() != Some(&src) || ids.last() != Some(&dst) {
        return Err(cx.err(key("path"), "must start at `from` and end at `to`".into()));
    }
    for w in ids.windows(2) {
        if cx.net.topology.dir_between(w[0], w[1]).is_none() {
            return Err(cx.err(
                key("path"),
                format!(
                    "no link between {} and {}",
                    cx.nodes[w[0] as usize], cx.nodes[w[1] as usize]
                ),
            ));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    if !ids.iter().all(|i| seen.insert(*i)) {
        return Err(cx.err(key("path"), "visits a node twice".into()));
    }
    Ok(ids)
}

/// Where the proxies cut the path into legs.
struct Cuts<'a> {
    /// Positions along the path, from the source (0) to the destination (last).
    at: Vec<usize>,
    /// The proxies in path order: position, node, and whether it terminates
    /// the flow's QUIC (`quic_proxies`) or is a split-TCP proxy (`proxies`).
    stops: Vec<(usize, &'a str, bool)>,
}

/// The cuts of both proxy lists: each in path order, no node in both.
fn cuts<'a>(
    cx: &Ctx,
    name: &str,
    f: &'a FlowSection,
    path: &[u32],
) -> Result<Cuts<'a>, ScenarioError> {
    let mut stops = Vec::new();
    for (list, terminates) in [("proxies", false), ("quic_proxies", true)] {
        let names = if terminates {
            &f.quic_proxies
        } else {
            &f.proxies
        };
        let mut last = 0;
        for (i, p) in names.iter().enumerate() {
            let pk = format!("flows.{name}.{list}[{i}]");
            let pos = stop(cx, &pk, p, path)?;
            if pos <= last {
                return Err(cx.err(
                    pk,
                    "proxies must be distinct and listed in path order".into(),
                ));
            }
            if terminates && f.proxies.contains(p) {
                return Err(cx.err(
                    pk,
                    format!("node {p:?} is also in flows.{name}.proxies: a proxy either terminates the flow's QUIC (quic_proxies) or passes it through (proxies), not both"),
                ));
            }
            last = pos;
            stops.push((pos, p.as_str(), terminates));
        }
    }
    stops.sort_by_key(|s| s.0);
    let mut at = vec![0usize];
    at.extend(stops.iter().map(|s| s.0));
    at.push(path.len() - 1);
    Ok(Cuts { at, stops })
}

/// The position along the path of proxy `p`, named at `pk`.
fn stop(cx: &Ctx, pk: &str, p: &str, path: &[u32]) -> Result<usize, ScenarioError> {
    let id = *cx.index.get(p).ok_or_else(|| {
        cx.err(
            pk.into(),
            format!(
                "node {p:?} does not exist (nodes: {}){}",
                cx.nodes.join(", "),
                crate::suggest::hint(p, cx.nodes.iter().map(String::as_str))
            ),
        )
    })?;
    let routed = path.len() == 2 && cx.net.topology.path(path[0], path[1]).is_none();
    if routed && !path.contains(&id) {
        // The path crosses a moving network: routed during the run.
        return Err(cx.err(
            pk.into(),
            format!(
                "the flow crosses the moving network from {:?} to {:?}, routed hop by hop during the run; a proxy on that route (at {p:?}) is not modelled: proxies sit on static links (give the flow a path of static links through {p:?}, or no proxy)",
                cx.nodes[path[0] as usize], cx.nodes[path[1] as usize]
            ),
        ));
    }
    let pos = path.iter().position(|&n| n == id).ok_or_else(|| {
        cx.err(
            pk.into(),
            format!(
                "node {p:?} is not on the flow's path ({})",
                path.iter()
                    .map(|&n| cx.nodes[n as usize].as_str())
                    .collect::<Vec<_>>()
                    .join("-")
            ),
        )
    })?;
    if pos == 0 || pos == path.len() - 1 {
        return Err(cx.err(
            pk.into(),
            format!("node {p:?} is an end of the flow; a proxy sits between them"),
        ));
    }
    Ok(pos)
}

/// The legs between the cuts: each with its variant, link directions and
/// resolved TCP configuration (an `aerotcp` leg's allocation included).
fn legs(
    cx: &Ctx,
    name: &str,
    f: &FlowSection,
    path: &[u32],
    cut: &[usize],
) -> Result<Vec<PlanLeg>, ScenarioError> {
    let nlegs = cut.len() - 1;
    let profile = f.options.profile_under(&cx.scn.tcp);
    let variants: Vec<VariantName> = match &f.legs {
        Some(l) if l.len() != nlegs => {
            return Err(cx.err(
                format!("flows.{name}.legs"),
                format!(
                    "lists {} variant{} but the flow has {} leg{} ({} prox{} + 1)",
                    l.len(),
                    if l.len() == 1 { "" } else { "s" },
                    nlegs,
                    if nlegs == 1 { "" } else { "s" },
                    f.proxies.len(),
                    if f.proxies.len() == 1 { "y" } else { "ies" }
                ),
            ))
        }
        Some(l) => l.clone(),
        // The variant the flow names always runs; without one, the
        // profile's default (CUBIC on a Linux host).
        None => vec![f.tcp.unwrap_or(VariantName(profile.default_variant())); nlegs],
    };
    let mut legs = Vec::new();
    for (i, &variant) in variants.iter().enumerate() {
        let lp: Vec<u32> = path[cut[i]..=cut[i + 1]].to_vec();
        let topology = &cx.net.topology;
        // (Empty for two ground nodes joined by a constellation only.)
        let fwd = lp
            .windows(2)
            .filter_map(|w| topology.dir_between(w[0], w[1]))
            .collect::<Vec<_>>();
        let rev = lp
            .windows(2)
            .rev()
            .filter_map(|w| topology.dir_between(w[1], w[0]))
            .collect::<Vec<_>>();
        let mut cfg = tcp_config(cx.scn, &f.options, variant);
        let figures = cx.figures.leg(&lp, &fwd, &rev, cfg.mss, cfg.header_bytes);
        if cfg.variant.cc.traits().allocation {
            let (sec, akey) = aero_section(cx.scn, name, &f.options);
            // SatBW and SatRTT default to the leg's bottleneck and
            // propagation round trip.
            cfg.aero = aero_allocation(&sec, figures.bottleneck, figures.propagation, &cfg)
                .map_err(|(k, m)| cx.err(format!("{akey}.{k}"), m))?;
            // No slow start: the first window is the allocation.
            cfg.initial_window = cfg.aero.cwnd_segments;
        }
        legs.push(PlanLeg {
            path: lp,
            make_sender: None,
            profile,
            variant_name: variant.name().to_string(),
            cfg,
            fwd,
            rev,
            figures,
        });
    }
    Ok(legs)
}
