//! The `starlink` access preset as `skyhop describe` shows it: per
//! terminal, its path to its PoP at the start of the run with the delay of
//! each part, and its access link's parameters, with the idle round trip
//! they make (docs/leo.md, "Starlink as deployed").

use super::plan::Plan;
use crate::geo::delay_of;
use crate::net::access::AccessParams;
use crate::net::LinkLayerSpec;
use serde::Serialize;

/// One terminal's access.
#[derive(Clone, Debug, Serialize)]
pub struct AccessDesc {
    pub terminal: String,
    pub pop: String,
    /// Reconfiguration epochs: their length and first boundary.
    pub epoch_s: f64,
    pub epoch_offset_s: f64,
    /// The first epoch's path, dish to PoP (absent: no service then).
    pub path_at_start: Option<Vec<String>>,
    pub isl_hops: Option<u32>,
    /// One-way propagation of each part at t = 0: dish–satellite, over
    /// ISLs, satellite–gateway, gateway–PoP fibre; and their sum.
    pub up_s: Option<f64>,
    pub isl_s: Option<f64>,
    pub feeder_s: Option<f64>,
    pub fibre_s: Option<f64>,
    pub one_way_s: Option<f64>,
    pub frame_s: f64,
    pub grant_s: f64,
    pub pause_s: f64,
    pub pause_before_s: f64,
    pub uplink_bps: u64,
    pub downlink_bps: u64,
    pub dish_queue: u32,
    pub gateway_queue: u32,
    /// Terminals sharing the satellite's beam at the start.
    pub sharers: Option<u32>,
    /// Idle round trip to the PoP at the start: twice the propagation, the
    /// uplink's grant, and a frame and a half each way on average.
    pub idle_rtt_s: Option<f64>,
}

/// A node's name: the plan's, or a satellite's of the moving network.
fn name(plan: &Plan, n: u32) -> String {
    let k = n as usize;
    match plan.nodes.get(k) {
        Some(s) => s.clone(),
        None => plan
            .motion
            .as_ref()
            .map_or_else(String::new, |m| m.extra_nodes[k - plan.nodes.len()].clone()),
    }
}

/// Every terminal's access (`None` without the preset).
pub fn describe_access(plan: &Plan) -> Option<Vec<AccessDesc>> {
    let m = plan.motion.as_ref()?;
    let net = m.access.as_ref()?;
    let p0 = net.plan(0);
    let at = |n: u32| m.positions.position(n, 0.0);
    let hop = |a: u32, b: u32| delay_of(at(a).distance(at(b))).as_secs_f64();
    let mut out = Vec::new();
    for (k, t) in net.terminals.iter().enumerate() {
        let host = name(plan, t.host);
        let layer = plan
            .layers
            .iter()
            .position(|l| l.name == format!("access-{host}"))?;
        let LinkLayerSpec::StarlinkAccess(spec) = &plan.layers[layer].spec else {
            return None;
        };
        let p: AccessParams = spec.params().ok()?;
        let (up, down) = (&plan.links[2 * layer], &plan.links[2 * layer + 1]);
        let frame = 1.0 / p.frame_rate as f64;
        let a = p0.terminals[k].as_ref();
        let parts = a.map(|a| {
            let n = a.path.len();
            let isl = a.path[1..n - 2]
                .windows(2)
                .fold(0.0, |acc, w| acc + hop(w[0], w[1]));
            let fibre = net.gateways[a.gateway].fibre[t.pop].as_secs_f64();
            (
                hop(a.path[0], a.path[1]),
                isl,
                hop(a.path[n - 3], a.path[n - 2]),
                fibre,
            )
        });
        let one_way = parts.map(|(u, i, f, b)| u + i + f + b);
        out.push(AccessDesc {
            terminal: host,
            pop: name(plan, net.pops[t.pop]),
            epoch_s: p.clock.period.as_secs_f64(),
            epoch_offset_s: p.clock.offset.as_secs_f64(),
            path_at_start: a.map(|a| a.path.iter().map(|&n| name(plan, n)).collect()),
            isl_hops: a.map(|a| a.isl_hops),
            up_s: parts.map(|x| x.0),
            isl_s: parts.map(|x| x.1),
            feeder_s: parts.map(|x| x.2),
            fibre_s: parts.map(|x| x.3),
            one_way_s: one_way,
            frame_s: frame,
            grant_s: p.grant.as_secs_f64(),
            pause_s: p.pause.as_secs_f64(),
            pause_before_s: p.pause_before.as_secs_f64(),
            uplink_bps: up.rate_bps,
            downlink_bps: down.rate_bps,
            dish_queue: up.queue,
            gateway_queue: down.queue,
            sharers: a.map(|a| a.sharers),
            idle_rtt_s: one_way.map(|w| 2.0 * w + p.grant.as_secs_f64() + 3.0 * frame),
        });
    }
    Some(out)
}
