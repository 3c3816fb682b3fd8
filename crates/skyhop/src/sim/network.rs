//! The state of a moving world's network (the world's use of it is in
//! `mobile.rs`): its routes as (source, destination) pairs, the routing
//! state, the links built so far, and the route changes and handovers
//! recorded at each recomputation.
//!
//! A static world never comes here: its packets follow the routes computed
//! when the plan was built (`Packet::route` an index into the world's
//! routes). In a moving world a packet's `route` is [`DYN_ROUTE`] | the
//! index of a (source, destination) pair; at each node the packet takes the
//! next hop of the destination's current shortest-path tree, so a packet
//! crossing a routing update continues from where it is on the new routes
//! (packets already on a link keep it; a shorter new path overtakes them:
//! the receiver sees reordering). A node with no route drops the packet.

use crate::engine::time::Dur;
use crate::engine::Time;
use crate::net::mobile::{MotionPlan, MovingNet, RoutingState};
use crate::result::{NetworkEvent, NetworkStats, Series};

/// Marks a packet route as a (source, destination) pair of a moving world.
pub(super) const DYN_ROUTE: u32 = 1 << 31;

/// An entry of `Mobile::next_ld` not yet looked up.
pub(super) const NO_LD: u32 = u32::MAX;

/// Hops after which a packet is dropped (transient loops across updates).
pub(super) const MAX_HOPS: u16 = 255;

/// A moving world's network state.
pub(super) struct Mobile {
    pub net: MovingNet,
    pub routing: RoutingState,
    /// Routes as (source, destination slot).
    pub routes: Vec<(u32, u32)>,
    /// Current node path of each route.
    pub paths: Vec<Vec<u32>>,
    /// Every link direction's (from, to), the plan's then those built.
    pub dir_ends: Vec<(u32, u32)>,
    /// Per node: (neighbour, link direction) of every link built.
    pub out: Vec<Vec<(u32, u32)>>,
    /// The link direction a packet for destination slot `s` takes at node
    /// `n`, at `s * nodes + n` ([`NO_LD`]: not looked up since the last
    /// recomputation): the next hop and the link towards it, found once
    /// per update instead of at every hop.
    pub next_ld: Vec<u32>,
    /// Node names: the plan's, then the extra ones.
    pub names: Vec<String>,
    /// Ground nodes of ground-to-satellite rules (handovers are theirs).
    pub ground: Vec<bool>,
    /// Links built during the run: (name, rate).
    pub built: Vec<(String, u64)>,
    pub events: Vec<NetworkEvent>,
    /// Propagation delay of every route at every update, when traced.
    pub delay_traces: Option<Vec<Series>>,
    pub unroutable: u64,
}

impl Mobile {
    pub(super) fn new(plan: &crate::scenario::Plan, motion: &MotionPlan, trace: bool) -> Mobile {
        let net = MovingNet::new(motion.clone(), &plan.link_ends());
        let nodes = net.nodes;
        let mut out = vec![Vec::new(); nodes];
        let mut dir_ends = Vec::with_capacity(plan.links.len());
        for (i, d) in plan.links.iter().enumerate() {
            out[d.from as usize].push((d.to, i as u32));
            dir_ends.push((d.from, d.to));
        }
        let mut ground = vec![false; nodes];
        for r in &motion.gsls {
            for &g in &r.grounds {
                ground[g as usize] = true;
            }
        }
        // A random start (`constellation.start_spread`): the run's offset.
        let events = (motion.start_offset > Dur::ZERO)
            .then(|| NetworkEvent {
                t_s: 0.0,
                kind: "start_offset".into(),
                node: String::new(),
                route: String::new(),
                old: String::new(),
                new: String::new(),
                delay_s: Some(motion.start_offset.as_secs_f64()),
            })
            .into_iter()
            .collect();
        Mobile {
            routing: RoutingState::new(nodes),
            net,
            routes: Vec::new(),
            paths: Vec::new(),
            dir_ends,
            out,
            next_ld: Vec::new(),
            names: plan
                .nodes
                .iter()
                .chain(motion.extra_nodes.iter())
                .cloned()
                .collect(),
            ground,
            built: Vec::new(),
            events,
            delay_traces: trace.then(Vec::new),
            unroutable: 0,
        }
    }

    /// The route from `src` to `dst` (registered on first use).
    pub(super) fn route(&mut self, src: u32, dst: u32) -> u32 {
        let slot = self.routing.slot(dst);
        let nodes = self.out.len();
        if self.next_ld.len() < (slot as usize + 1) * nodes {
            self.next_ld.resize((slot as usize + 1) * nodes, NO_LD);
        }
        let i = match self.routes.iter().position(|&r| r == (src, slot)) {
            Some(i) => i,
            None => {
                self.routes.push((src, slot));
                self.paths.push(Vec::new());
                if let Some(tr) = self.delay_traces.as_mut() {
                    tr.push(Series::default());
                }
                self.routes.len() - 1
            }
        };
        DYN_ROUTE | i as u32
    }

    fn path_text(&self, p: &[u32]) -> String {
        p.iter()
            .map(|&n| self.names[n as usize].as_str())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Recompute the routes at `t` and record what changed.
    pub(super) fn update(&mut self, t: Time) {
        self.routing.recompute(&mut self.net, Dur(t.0));
        self.next_ld.fill(NO_LD);
        let t_s = t.as_secs_f64();
        let mut handovers: Vec<(u32, u32, u32)> = Vec::new();
        for i in 0..self.routes.len() {
            let (src, slot) = self.routes[i];
            let new = self.routing.path(slot, src);
            let dist = self.routing.dist[slot as usize][src as usize];
            if let Some(tr) = self.delay_traces.as_mut() {
                tr[i].t_s.push(t_s);
                tr[i].value.push(if dist == u64::MAX {
                    f64::NAN
                } else {
                    dist as f64 * 1e-9
                });
            }
            if new == self.paths[i] {
                continue;
            }
            let old = std::mem::replace(&mut self.paths[i], new);
            let new = &self.paths[i];
            // A ground end's first satellite changed: a handover.
            for (o, n, node) in [
                (old.get(1), new.get(1), src),
                (
                    old.len().checked_sub(2).and_then(|k| old.get(k)),
                    new.len().checked_sub(2).and_then(|k| new.get(k)),
                    self.routing.dests[slot as usize],
                ),
            ] {
                if let (Some(&o), Some(&n)) = (o, n) {
                    if o != n && self.ground[node as usize] && !handovers.contains(&(node, o, n)) {
                        handovers.push((node, o, n));
                    }
                }
            }
            let dst = self.routing.dests[slot as usize];
            self.events.push(NetworkEvent {
                t_s,
                kind: "route".into(),
                node: self.names[src as usize].clone(),
                route: format!("{}>{}", self.names[src as usize], self.names[dst as usize]),
                old: self.path_text(&old),
                new: self.path_text(new),
                delay_s: (dist != u64::MAX).then_some(dist as f64 * 1e-9),
            });
        }
        if let Some(a) = self.net.plan.access.clone() {
            self.access_events(&a, Dur(t.0));
        }
        for (node, o, n) in handovers {
            self.events.push(NetworkEvent {
                t_s,
                kind: "handover".into(),
                node: self.names[node as usize].clone(),
                route: String::new(),
                old: self.names[o as usize].clone(),
                new: self.names[n as usize].clone(),
                delay_s: None,
            });
        }
    }

    /// An access network's new epoch: one `epoch` event per terminal (its
    /// host; the paths dish → PoP before and after, and the new one's
    /// propagation delay).
    fn access_events(&mut self, a: &crate::net::access::AccessNet, t: Dur) {
        for e in a.events_at(t) {
            let text =
                |p: &Option<Vec<u32>>| p.as_deref().map_or(String::new(), |p| self.path_text(p));
            self.events.push(NetworkEvent {
                t_s: t.as_secs_f64(),
                kind: "epoch".into(),
                node: self.names[a.terminals[e.terminal].host as usize].clone(),
                route: String::new(),
                old: text(&e.old),
                new: text(&e.new),
                delay_s: e.delay.map(|d| d.as_secs_f64()),
            });
        }
    }

    pub(super) fn stats(&self) -> NetworkStats {
        NetworkStats {
            route_updates: self.routing.updates,
            links_built: self.built.len() as u64,
            unroutable: self.unroutable,
        }
    }
}
