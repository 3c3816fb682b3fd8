//! Flows: the path from `from` to `to` (given, or the shortest), its legs
//! between split proxies with each leg's TCP variant, configuration and link
//! directions, the proxies themselves, and the application driving the flow.

use super::links::Links;
use super::tcp::{aero_allocation, aero_section, tcp_config};
use super::{proxies, PlanFlow, PlanLeg};
use crate::app::{AppSpec, FlowShape};
use crate::engine::time::Dur;
use crate::error::ScenarioError;
use crate::scenario::schema::{FlowSection, FlowSize, Scenario, VariantName};
use std::collections::{BTreeMap, VecDeque};

/// What every flow is resolved against.
struct Ctx<'a> {
    scn: &'a Scenario,
    file: &'a str,
    nodes: &'a [String],
    index: &'a BTreeMap<&'a str, u32>,
    net: &'a Links,
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
    let legs = legs(cx, name, f, &path, &cut)?;
    let mut proxies = Vec::new();
    for (i, p) in f.proxies.iter().enumerate() {
        let sec = cx.scn.nodes[p].proxy.clone().unwrap_or_default();
        let mss = legs[i].cfg.mss as u64;
        // Under the linux profile a proxy given no policy or size is a relay
        // process on a Linux host: the incoming leg's receive buffer and the
        // outgoing leg's send buffer.
        let relay = legs[i]
            .profile
            .relay_proxies()
            .then(|| (legs[i].cfg.rcv_buffer, legs[i + 1].cfg.send_buffer));
        proxies.push(proxies::resolve(
            cx.file,
            p,
            cx.index[p.as_str()],
            &sec,
            mss,
            relay,
        )?);
    }
    let size = f.size.unwrap_or(FlowSize::Unlimited);
    let bytes = match size {
        FlowSize::Bytes(b) => Some(b),
        FlowSize::Unlimited => None,
    };
    let app = match f.app {
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
        quic: None,
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
        if let Some(p) = shortest_path(&cx.net.adjacency, cx.nodes.len(), src, dst) {
            return Ok(p);
        }
        // Both ends reach the ground under a constellation (or are there):
        // the moving network routes between them.
        let reaches_ground = |from: u32| {
            (0..cx.nodes.len() as u32).any(|g| {
                cx.net.grounds.contains(&g)
                    && (g == from
                        || shortest_path(&cx.net.adjacency, cx.nodes.len(), from, g).is_some())
            })
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
        if !cx.net.adjacency.contains_key(&(w[0], w[1])) {
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

/// Where the proxies cut the path into legs: positions along it, from the
/// source (0) to the destination (last).
fn cuts(cx: &Ctx, name: &str, f: &FlowSection, path: &[u32]) -> Result<Vec<usize>, ScenarioError> {
    let mut cut = vec![0usize];
    for (i, p) in f.proxies.iter().enumerate() {
        let pk = format!("flows.{name}.proxies[{i}]");
        let id = *cx.index.get(p.as_str()).ok_or_else(|| {
            cx.err(
                pk.clone(),
                format!(
                    "node {p:?} does not exist (nodes: {}){}",
                    cx.nodes.join(", "),
                    crate::suggest::hint(p, cx.nodes.iter().map(String::as_str))
                ),
            )
        })?;
        let pos = path.iter().position(|&n| n == id).ok_or_else(|| {
            cx.err(
                pk.clone(),
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
                pk,
                format!("node {p:?} is an end of the flow; a proxy sits between them"),
            ));
        }
        if pos <= *cut.last().unwrap() {
            return Err(cx.err(
                pk,
                "proxies must be distinct and listed in path order".into(),
            ));
        }
        cut.push(pos);
    }
    cut.push(path.len() - 1);
    Ok(cut)
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
        let adjacency = &cx.net.adjacency;
        // (Empty for two ground nodes joined by a constellation only.)
        let fwd = lp
            .windows(2)
            .filter_map(|w| adjacency.get(&(w[0], w[1])).copied())
            .collect::<Vec<_>>();
        let rev = lp
            .windows(2)
            .rev()
            .filter_map(|w| adjacency.get(&(w[1], w[0])).copied())
            .collect::<Vec<_>>();
        let mut cfg = tcp_config(cx.scn, &f.options, variant);
        if cfg.variant.cc.traits().allocation {
            let (sec, akey) = aero_section(cx.scn, name, &f.options);
            let dirs = &cx.net.dirs;
            let bottleneck = fwd
                .iter()
                .map(|&l| dirs[l as usize].rate_bps)
                .min()
                .unwrap_or(0);
            let rtt = fwd
                .iter()
                .chain(rev.iter())
                .map(|&l| dirs[l as usize].delay)
                .fold(Dur::ZERO, |a, b| a + b);
            cfg.aero = aero_allocation(&sec, bottleneck, rtt, &cfg)
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
        });
    }
    Ok(legs)
}

/// Fewest hops; ties broken by the lowest node index, so the choice is deterministic.
fn shortest_path(
    adj: &BTreeMap<(u32, u32), u32>,
    n: usize,
    src: u32,
    dst: u32,
) -> Option<Vec<u32>> {
    let mut prev = vec![u32::MAX; n];
    let mut seen = vec![false; n];
    let mut q = VecDeque::new();
    seen[src as usize] = true;
    q.push_back(src);
    while let Some(u) = q.pop_front() {
        if u == dst {
            let mut p = vec![dst];
            let mut c = dst;
            while c != src {
                c = prev[c as usize];
                p.push(c);
            }
            p.reverse();
            return Some(p);
        }
        for (&(a, b), _) in adj.range((u, 0)..=(u, u32::MAX)) {
            debug_assert_eq!(a, u);
            if !seen[b as usize] {
                seen[b as usize] = true;
                prev[b as usize] = u;
                q.push_back(b);
            }
        }
    }
    None
}
