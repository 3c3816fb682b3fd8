//! The world of a moving network: packets forwarded hop by hop towards
//! their destination from the current routing state, links between moving
//! nodes built the first time traffic crosses them, and the routing state
//! recomputed on the policy's schedule, each route change and handover
//! recorded.
//!
//! A static world never comes here: its packets follow the routes computed
//! when the plan was built (`Packet::route` an index into the world's
//! routes). In a moving world a packet's `route` is [`DYN_ROUTE`] | the
//! index of a (source, destination) pair; at each node the packet takes the
//! next hop of the destination's current shortest-path tree, so a packet
//! crossing a routing update continues from where it is on the new routes
//! (packets already on a link keep it; a shorter new path overtakes them:
//! the receiver sees reordering). A node with no route drops the packet.

use super::world::{Ev, World};
use crate::engine::Time;

use crate::mobility::Positions;
use crate::net::mobile::{MotionPlan, MovingNet, RoutingState};
use crate::net::moving::{DirMotion, Visibility};
use crate::net::routing::NO_HOP;
use crate::net::{AnyLinkLayer, FifoDir, FifoLink};
use crate::observe::PacketEventKind;
use crate::result::{NetworkEvent, NetworkStats, Series};
use crate::engine::time::Dur;
use std::sync::Arc;

/// Marks a packet route as a (source, destination) pair of a moving world.
pub(super) const DYN_ROUTE: u32 = 1 << 31;

/// Hops after which a packet is dropped (transient loops across updates).
const MAX_HOPS: u16 = 255;

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
    pub fn new(
        plan: &crate::scenario::Plan,
        motion: &MotionPlan,
        trace: bool,
    ) -> Mobile {
        let plan_links: Vec<(u32, u32, Dur)> = (0..plan.layers.len())
            .map(|k| {
                let d = &plan.links[2 * k];
                (d.from, d.to, d.delay)
            })
            .collect();
        let net = MovingNet::new(motion.clone(), &plan_links);
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
        Mobile {
            routing: RoutingState::new(nodes),
            net,
            routes: Vec::new(),
            paths: Vec::new(),
            dir_ends,
            out,
            names: plan
                .nodes
                .iter()
                .chain(motion.extra_nodes.iter())
                .cloned()
                .collect(),
            ground,
            built: Vec::new(),
            events: Vec::new(),
            delay_traces: trace.then(Vec::new),
            unroutable: 0,
        }
    }

    /// The route from `src` to `dst` (registered on first use).
    pub fn route(&mut self, src: u32, dst: u32) -> u32 {
        let slot = self.routing.slot(dst);
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
    pub fn update(&mut self, t: Time) {
        self.routing.recompute(&mut self.net, Dur(t.0));
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
                delay_s: (dist != u64::MAX).then(|| dist as f64 * 1e-9),
            });
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

    pub fn stats(&self) -> NetworkStats {
        NetworkStats {
            route_updates: self.routing.updates,
            links_built: self.built.len() as u64,
            unroutable: self.unroutable,
        }
    }
}

/// The moving parts of a plan link's two directions.
pub(super) fn attach_motion(
    layer: &mut AnyLinkLayer,
    positions: &Arc<Positions>,
    ends: (u32, u32),
    visibility: Visibility,
    motion: &MotionPlan,
) {
    if let AnyLinkLayer::Fifo(l) = layer {
        for (dir, (from, to)) in [(0, ends), (1, (ends.1, ends.0))] {
            let vis = match visibility {
                Visibility::MinElevation {
                    observer_is_from,
                    min_deg,
                } => Visibility::MinElevation {
                    observer_is_from: observer_is_from == (dir == 0),
                    min_deg,
                },
                v => v,
            };
            l.dirs[dir].motion = Some(Box::new(DirMotion::new(
                positions.clone(),
                from,
                to,
                vis,
                motion.when_down,
                motion.lose_in_flight,
            )));
        }
    }
}

/// Look angles from the end nearer the Earth's centre to the other, over
/// time (for channel models that follow the satellite).
pub(super) fn look_fn(positions: &Arc<Positions>, a: u32, b: u32) -> crate::channel::LookFn {
    let p = positions.clone();
    let lower = |n: u32| p.position(n, 0.0).norm();
    let (obs, target) = if lower(a) <= lower(b) { (a, b) } else { (b, a) };
    let p = positions.clone();
    Arc::new(move |t: Time| {
        let l = p.look(obs, target, t.as_secs_f64());
        (l.elevation_deg, l.azimuth_deg)
    })
}

impl World {
    #[inline(never)]
    fn mobile(&mut self) -> &mut Mobile {
        self.mobile.as_deref_mut().expect("a moving world")
    }

    /// A packet of a moving world leaves its source.
    #[inline(never)]
    pub(super) fn dyn_send(&mut self, now: Time, slot: u32) {
        let r = self.packets[slot as usize].route & !DYN_ROUTE;
        let (src, dslot) = self.mobile().routes[r as usize];
        self.dyn_forward(now, slot, src, dslot);
    }

    /// A packet of a moving world crossed link direction `ld`.
    #[inline(never)]
    pub(super) fn dyn_arrive(&mut self, now: Time, slot: u32, ld: usize) {
        let r = self.packets[slot as usize].route & !DYN_ROUTE;
        let m = self.mobile();
        let (_, dslot) = m.routes[r as usize];
        let node = m.dir_ends[ld].1;
        if node == m.routing.dests[dslot as usize] {
            self.deliver(now, slot);
            return;
        }
        let p = &mut self.packets[slot as usize];
        p.hop = p.hop.saturating_add(1);
        if p.hop >= MAX_HOPS {
            self.mobile().unroutable += 1;
            self.drop_packet(now, ld as u32, slot);
            return;
        }
        self.dyn_forward(now, slot, node, dslot);
    }

    fn dyn_forward(&mut self, now: Time, slot: u32, node: u32, dslot: u32) {
        let m = self.mobile();
        let next = m.routing.next_hop(dslot, node);
        if next == NO_HOP {
            m.unroutable += 1;
            self.free_lost(slot);
            return;
        }
        let ld = self.link_dir(node, next);
        self.transmit_on(now, slot, ld as usize);
    }

    /// The link direction from `a` to its neighbour `b`, built on first use.
    fn link_dir(&mut self, a: u32, b: u32) -> u32 {
        let m = self.mobile.as_deref_mut().unwrap();
        if let Some(&(_, ld)) = m.out[a as usize].iter().find(|&&(n, _)| n == b) {
            return ld;
        }
        let (class, vis) = m
            .net
            .link_kind(a, b)
            .expect("a next hop is a candidate link");
        let c = &m.net.plan.classes[class];
        let positions = &m.net.plan.positions;
        let mk = |from: u32, to: u32, vis: Visibility| {
            let mut d = FifoDir::new(c.rate_bps, Dur::ZERO, c.queue, Vec::new());
            d.motion = Some(Box::new(DirMotion::new(
                positions.clone(),
                from,
                to,
                vis,
                m.net.plan.when_down,
                m.net.plan.lose_in_flight,
            )));
            d
        };
        let flip = |v: Visibility| match v {
            Visibility::MinElevation {
                observer_is_from,
                min_deg,
            } => Visibility::MinElevation {
                observer_is_from: !observer_is_from,
                min_deg,
            },
            v => v,
        };
        let mut link = FifoLink {
            dirs: [mk(a, b, vis), mk(b, a, flip(vis))],
        };
        if self.trace {
            for d in link.dirs.iter_mut() {
                d.trace_queue();
            }
        }
        let name = format!(
            "{}:{}-{}",
            c.name, m.names[a as usize], m.names[b as usize]
        );
        m.built.push((name, c.rate_bps));
        let k = self.layers.len() as u32;
        self.layers.push(AnyLinkLayer::Fifo(link));
        let m = self.mobile.as_deref_mut().unwrap();
        m.dir_ends.push((a, b));
        m.dir_ends.push((b, a));
        m.out[a as usize].push((b, 2 * k));
        m.out[b as usize].push((a, 2 * k + 1));
        2 * k
    }

    /// Recompute the routes (a routing update is due).
    pub(super) fn reroute(&mut self, now: Time) {
        let m = self.mobile.as_deref_mut().unwrap();
        m.update(now);
        let next = m.net.plan.routing.next_after(Dur(now.0));
        self.q.push(Time(next.0), Ev::Reroute);
    }

    fn drop_packet(&mut self, now: Time, ld: u32, slot: u32) {
        if let Some(log) = self.log.as_deref_mut() {
            let p = &self.packets[slot as usize];
            log.record(
                now,
                ld,
                PacketEventKind::Drop(crate::net::LossReason::LinkDown),
                slot,
                p,
            );
        }
        self.free_lost(slot);
    }
}

