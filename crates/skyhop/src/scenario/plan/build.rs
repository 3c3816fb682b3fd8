//! [`Plan::build`]: validation, then resolution in order: nodes, links,
//! flows, the run's duration, and the warnings about the result.

use super::figures::Figures;
use super::{access, beams, flows, links, motion, tcp, warnings, Plan};
use crate::engine::time::Dur;
use crate::error::ScenarioError;
use crate::net::addr::MAX_NODES;
use crate::scenario::schema::Scenario;
use crate::scenario::validate;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// Plans built in this process (every call of [`Plan::build`]).
static BUILDS: AtomicU64 = AtomicU64::new(0);

/// How many times this process has built a plan: a scenario loaded once
/// and run many times builds one (tests count them).
pub fn plan_builds() -> u64 {
    BUILDS.load(Ordering::Relaxed)
}

impl Plan {
    /// Check every value of `scn` (`validate.rs`), then resolve it: node
    /// indices, link directions, routes, TCP legs, proxies and
    /// applications. Errors name `file` and the scenario key; a scenario
    /// that builds runs.
    pub fn build(scn: &Scenario, file: &str) -> Result<Plan, ScenarioError> {
        BUILDS.fetch_add(1, Ordering::Relaxed);
        validate::check(scn, file)?;
        // The starlink access preset's nodes and links (`access.rs`).
        let expanded = access::expand(scn, file)?;
        let (scn, access) = match &expanded {
            Some((s, x)) => (s, Some(x)),
            None => (scn, None),
        };
        let added = motion::added_cities(scn);
        if scn.nodes.is_empty() && added.is_empty() {
            return Err(ScenarioError::new(file, "nodes", "no nodes defined"));
        }
        if scn.links.is_empty() && scn.constellation.is_none() {
            return Err(ScenarioError::new(file, "links", "no links defined"));
        }
        // The scenario's nodes in name order, then the cities a
        // constellation adds.
        let mut nodes: Vec<String> = scn.nodes.keys().cloned().collect();
        nodes.extend(added.iter().map(|c| c.name.to_string()));
        if nodes.len() > MAX_NODES {
            return Err(too_many(file, "nodes", nodes.len(), 0));
        }
        let places = motion::places(scn, file, &added)?;
        let index: BTreeMap<&str, u32> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i as u32))
            .collect();
        let mut warnings = Vec::new();
        let mut net = links::resolve(scn, file, &nodes, &index, &places, &mut warnings)?;
        let duration_hint = scn.run.duration.map_or(Dur::from_secs(3600), |d| d.0);
        let motion = motion::motion_plan(
            scn,
            file,
            &places,
            &nodes,
            &index,
            net.motions.clone(),
            duration_hint,
        )?;
        if let Some(m) = motion
            .as_ref()
            .filter(|m| nodes.len() + m.extra_nodes.len() > MAX_NODES)
        {
            return Err(too_many(
                file,
                "constellation",
                nodes.len(),
                m.extra_nodes.len(),
            ));
        }
        if let Some(m) = &motion {
            for r in &m.gsls {
                net.grounds.extend(r.grounds.iter().copied());
            }
        }
        let media = beams::resolve(scn, file, &nodes, &index, &mut net)?;
        let figures = Figures::new(&net.dirs, motion.as_ref());
        let flows = flows::resolve(scn, file, &nodes, &index, &net, &figures, &mut warnings)?;
        drop(figures);
        links::tcp_rules(&net, &flows, tcp::default_rto_min(scn), &mut warnings);
        let duration = match scn.run.duration {
            Some(d) => d.0,
            None if flows.iter().any(|f| !f.app.finite()) => Dur::from_secs(230),
            None => Dur::from_secs(3600),
        };
        let mut plan = Plan {
            nodes,
            links: net.dirs,
            layers: net.layers,
            media,
            topology: net.topology,
            flows,
            duration,
            event_budget: scn.run.event_budget,
            warnings,
            motion,
        };
        if let Some(x) = access {
            access::attach(&mut plan, x);
        }
        let more = warnings::receive_windows(&plan);
        plan.warnings.extend(more);
        let more = warnings::capacity(&plan);
        plan.warnings.extend(more);
        let more = warnings::profiles(&plan);
        plan.warnings.extend(more);
        let more = warnings::quic_windows(&plan);
        plan.warnings.extend(more);
        Ok(plan)
    }
}

/// More nodes than have addresses (node addresses would repeat).
fn too_many(file: &str, key: &str, ground: usize, satellites: usize) -> ScenarioError {
    ScenarioError::new(
        file,
        key,
        format!(
            "{} nodes ({ground} on the ground, {satellites} satellites), more than the {MAX_NODES} skyhop can address (10.0.0.1 to 10.255.255.1)",
            ground + satellites
        ),
    )
}
