//! A moving network: which links may exist (the plan's own links, the
//! +Grid of inter-satellite links, ground-to-satellite links by minimum
//! elevation), what the graph looks like at an instant, and the routing
//! state built from it (a shortest-path tree per destination in use).
//!
//! - [`MotionPlan`]: what a scenario resolves into (positions, link
//!   classes, visibility rules, routing policy); the world builds a
//!   [`MovingNet`] from it and the plan's links.
//! - [`MovingNet::snapshot`]: the graph at t (every candidate link visible
//!   at t — and, for a routing epoch, still visible at its end — with its
//!   propagation delay at t). Cost: one position per node with a place
//!   (an SGP4 call per satellite), a dot-product test per
//!   (ground node, satellite) pair, one entry per link up.
//! - [`RoutingState::recompute`]: one Dijkstra per destination in use.
//!   Only destinations that traffic goes to are computed: a run's routing
//!   cost is (satellites + links) × log × destinations per update, and its
//!   event cost does not depend on satellites that carry nothing (their
//!   links are never built).

use super::moving::{Visibility, WhenDown};
use super::routing::{path_from, Graph, NO_HOP};
use crate::engine::time::Dur;
use crate::geo::{delay_of, Vec3};
use crate::mobility::Positions;
use std::sync::Arc;

/// Rate and queue of links a moving network creates (ISLs, GSLs).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkClass {
    /// Name used for the links of the class in results ("isl", "gsl").
    pub name: String,
    pub rate_bps: u64,
    pub queue: u32,
}

/// How a plan link between nodes with places behaves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkMotion {
    /// The delay follows the positions at each packet (else the plan's delay).
    pub moving_delay: bool,
    /// When the forward direction is up (the reverse mirrors it).
    pub visibility: Visibility,
}

/// Ground nodes linked to any satellite of a range they see high enough.
#[derive(Clone, Debug, PartialEq)]
pub struct GslRule {
    pub grounds: Vec<u32>,
    pub sats: std::ops::Range<u32>,
    pub min_elevation_deg: f64,
    /// Instead of the elevation: link to satellites at most this far
    /// (Hypatia's rule, `Visibility::MaxRange`).
    pub max_range_m: Option<f64>,
    /// Index into [`MotionPlan::classes`].
    pub class: usize,
}

/// When routes are recomputed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RoutingPolicy {
    /// Every `Dur` from t = 0, with the graph at that instant (Hypatia's
    /// forwarding-state updates; default 100 ms).
    Interval(Dur),
    /// Fixed epochs of `period` starting at `offset` (and at t = 0):
    /// routes are computed at an epoch's start over links visible for the
    /// whole epoch (at its start and its end), and held until the next
    /// (Starlink's 15-second reconfiguration).
    Epochs { period: Dur, offset: Dur },
}

impl RoutingPolicy {
    /// The next recomputation after `t`, and the end of the epoch that
    /// starts at `t` (for visibility over the epoch).
    pub fn next_after(&self, t: Dur) -> Dur {
        match *self {
            RoutingPolicy::Interval(d) => Dur((t.0 / d.0 + 1) * d.0),
            RoutingPolicy::Epochs { period, offset } => {
                if t < offset {
                    offset
                } else {
                    Dur(offset.0 + ((t.0 - offset.0) / period.0 + 1) * period.0)
                }
            }
        }
    }

    fn holds_for_epoch(&self) -> bool {
        matches!(self, RoutingPolicy::Epochs { .. })
    }
}

/// What a scenario says about motion.
#[derive(Clone, Debug)]
pub struct MotionPlan {
    /// By node index: the plan's nodes, then `extra_nodes`.
    pub positions: Arc<Positions>,
    /// Nodes beyond the plan's (satellites), by name.
    pub extra_nodes: Vec<String>,
    /// Per plan link (by index): its motion, `None` for a link with a fixed
    /// delay that is always up.
    pub links: Vec<Option<LinkMotion>>,
    /// Inter-satellite links (node pairs) and their class.
    pub isls: Vec<(u32, u32)>,
    pub isl_class: usize,
    pub gsls: Vec<GslRule>,
    pub classes: Vec<LinkClass>,
    pub routing: RoutingPolicy,
    pub when_down: WhenDown,
    pub lose_in_flight: bool,
    /// Terminals, gateways and PoPs of an access network whose epoch
    /// schedule overrides the routes (`net/access/`); `None`: geometric
    /// routing only.
    pub access: Option<Arc<super::access::AccessNet>>,
    /// Each run starts its orbits an offset later, drawn from its seed,
    /// uniform in [0, start_spread] ([`MotionPlan::for_run`];
    /// `constellation.start_spread`). Zero: every run starts at t = 0.
    pub start_spread: Dur,
    /// The offset this network's orbits were advanced by (a run's, from
    /// [`MotionPlan::for_run`]; zero in a plan).
    pub start_offset: Dur,
}

/// A constellation as a scenario resolves it: its satellites (named, with
/// their propagators), +Grid links between them (satellite indices), the
/// minimum elevation of its ground links and the two link classes.
pub struct ConstellationPlan {
    pub sats: Vec<(String, crate::mobility::Orbiter)>,
    pub isls: Vec<(u32, u32)>,
    pub min_elevation_deg: f64,
    /// Hypatia's ground-link rule instead of the elevation (see [`GslRule`]).
    pub max_range_m: Option<f64>,
    pub isl: LinkClass,
    pub gsl: LinkClass,
}

impl MotionPlan {
    /// A moving network of `node_motions` (the plan's nodes, in order; a
    /// node's `None`: no place), the plan links' motion, and constellations
    /// whose ground links serve the `grounds` nodes. Satellites follow the
    /// plan's nodes, constellation by constellation.
    pub fn build(
        node_motions: Vec<Option<crate::mobility::NodeMotion>>,
        links: Vec<Option<LinkMotion>>,
        constellations: Vec<ConstellationPlan>,
        grounds: Vec<u32>,
        routing: RoutingPolicy,
        when_down: WhenDown,
        lose_in_flight: bool,
    ) -> MotionPlan {
        let mut nodes = node_motions;
        let mut plan = MotionPlan {
            positions: Arc::new(Positions::default()),
            extra_nodes: Vec::new(),
            links,
            isls: Vec::new(),
            isl_class: 0,
            gsls: Vec::new(),
            classes: Vec::new(),
            routing,
            when_down,
            lose_in_flight,
            access: None,
            start_spread: Dur::ZERO,
            start_offset: Dur::ZERO,
        };
        for c in constellations {
            let base = nodes.len() as u32;
            let n = c.sats.len() as u32;
            for (name, o) in c.sats {
                plan.extra_nodes.push(name);
                nodes.push(Some(crate::mobility::NodeMotion::Orbit(o)));
            }
            plan.isl_class = plan.classes.len();
            plan.classes.push(c.isl);
            plan.isls
                .extend(c.isls.iter().map(|&(a, b)| (base + a, base + b)));
            plan.gsls.push(GslRule {
                grounds: grounds.clone(),
                sats: base..base + n,
                min_elevation_deg: c.min_elevation_deg,
                max_range_m: c.max_range_m,
                class: plan.classes.len(),
            });
            plan.classes.push(c.gsl);
        }
        plan.positions = Arc::new(Positions { nodes });
        plan
    }

    /// The network of the run with `seed`. With a `start_spread`: every
    /// orbit advanced by an offset drawn from the seed (its own stream,
    /// uniform over the nanoseconds of [0, start_spread]), as if the
    /// constellation's t = 0 were that much later, and the access network
    /// (if any) planned over the advanced orbits; the epochs and every
    /// other time of the run are unchanged. `None` without a spread: the
    /// plan's network as it is.
    pub fn for_run(&self, seed: u64) -> Option<MotionPlan> {
        use rand::Rng;
        if self.start_spread == Dur::ZERO {
            return None;
        }
        let mut rng = crate::engine::rng::RngStream::derive(seed, "constellation:start");
        let by = Dur(rng.inner().gen_range(0..=self.start_spread.0));
        let positions = Arc::new(self.positions.orbits_shifted(by.as_secs_f64()));
        let mut m = self.clone();
        m.access = self
            .access
            .as_ref()
            .map(|a| Arc::new(a.with_positions(positions.clone())));
        m.positions = positions;
        m.start_offset = by;
        Some(m)
    }

    /// Bytes a run of this network holds beyond its packets: positions and
    /// propagators, the graph of a snapshot, and the routing state for
    /// `destinations` destinations.
    pub fn memory_bytes(&self, destinations: usize) -> u64 {
        let nodes = self.positions.nodes.len() as u64;
        let sats: u64 = self.gsls.iter().map(|r| r.sats.len() as u64).sum();
        let grounds: u64 = self.gsls.iter().map(|r| r.grounds.len() as u64).sum();
        // A propagator is about 600 B; a ground node sees a few dozen
        // satellites at most (64 counted).
        let motion =
            nodes * std::mem::size_of::<Option<crate::mobility::NodeMotion>>() as u64 + sats * 600;
        let edges = self.isls.len() as u64 + grounds * 64 + self.links.len() as u64;
        let graph = edges * 2 * 12 + nodes * 4 + edges * 16;
        let routing = destinations as u64 * nodes * 12;
        motion + graph + routing + nodes * 48
    }
}

/// A candidate link (undirected) and how it is judged.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    a: u32,
    b: u32,
    /// Fixed delay, or `None`: from positions.
    delay: Option<Dur>,
    visibility: Visibility,
}

/// A moving network at run time.
#[derive(Clone)]
pub struct MovingNet {
    pub plan: MotionPlan,
    pub nodes: usize,
    /// Plan links and ISLs.
    fixed: Vec<Candidate>,
    /// Positions of every node with a place, refreshed by each snapshot.
    pos: Vec<Vec3>,
    has_place: Vec<bool>,
}

impl MovingNet {
    /// `plan_links[k]`: the forward direction of plan link k (from, to,
    /// delay); `nodes`: the plan's node count plus the extra nodes.
    pub fn new(plan: MotionPlan, plan_links: &[(u32, u32, Dur)]) -> MovingNet {
        let nodes = plan.positions.nodes.len();
        let mut fixed = Vec::with_capacity(plan_links.len() + plan.isls.len());
        for (k, &(a, b, d)) in plan_links.iter().enumerate() {
            let m = plan.links.get(k).copied().flatten();
            fixed.push(Candidate {
                a,
                b,
                delay: match m {
                    Some(m) if m.moving_delay => None,
                    _ => Some(d),
                },
                visibility: m.map_or(Visibility::Always, |m| m.visibility),
            });
        }
        for &(a, b) in &plan.isls {
            fixed.push(Candidate {
                a,
                b,
                delay: None,
                visibility: Visibility::Always,
            });
        }
        let has_place = (0..nodes as u32)
            .map(|n| plan.positions.has_place(n))
            .collect();
        MovingNet {
            nodes,
            fixed,
            pos: vec![Vec3::default(); nodes],
            has_place,
            plan,
        }
    }

    fn refresh(&mut self, t_s: f64) {
        for n in 0..self.nodes {
            if self.has_place[n] {
                self.pos[n] = self.plan.positions.position(n as u32, t_s);
            }
        }
    }

    /// The graph at `t_s`: links up then (and, with `until_s`, still up
    /// then), weighted by their propagation delay at `t_s`, in ns.
    pub fn snapshot(&mut self, t_s: f64, until_s: Option<f64>) -> Graph {
        let later: Option<Vec<Vec3>> = until_s.map(|u| {
            self.refresh(u);
            self.pos.clone()
        });
        self.refresh(t_s);
        let mut edges: Vec<(u32, u32, u64)> = Vec::with_capacity(self.fixed.len() + 64);
        for c in &self.fixed {
            let up = |p: &[Vec3]| c.visibility.up(p[c.a as usize], p[c.b as usize]);
            if !up(&self.pos) || later.as_deref().is_some_and(|l| !up(l)) {
                continue;
            }
            let d = match c.delay {
                Some(d) => d,
                None => delay_of(self.pos[c.a as usize].distance(self.pos[c.b as usize])),
            };
            edges.push((c.a, c.b, d.0));
        }
        for rule in &self.plan.gsls {
            let sin_min = rule.min_elevation_deg.to_radians().sin();
            for &g in &rule.grounds {
                let gp = self.pos[g as usize];
                let up = gp.scale(1.0 / gp.norm());
                let sees = |p: &[Vec3], s: u32| {
                    let d = p[s as usize].minus(p[g as usize]);
                    match rule.max_range_m {
                        Some(max) => d.norm() <= max,
                        None => {
                            let u = p[g as usize].scale(1.0 / p[g as usize].norm());
                            d.dot(u) >= d.norm() * sin_min
                        }
                    }
                };
                for s in rule.sats.clone() {
                    let d = self.pos[s as usize].minus(gp);
                    let h = d.dot(up);
                    if h <= 0.0 {
                        continue;
                    }
                    let r = d.norm();
                    match rule.max_range_m {
                        Some(max) if r > max => continue,
                        Some(_) => {}
                        None if h < r * sin_min => continue,
                        None => {}
                    }
                    if later.as_deref().is_some_and(|l| !sees(l, s)) {
                        continue;
                    }
                    edges.push((g, s, delay_of(r).0));
                }
            }
        }
        Graph::undirected(self.nodes, &edges)
    }

    /// Whether `a` and `b` may be linked: a plan link or ISL (its index in
    /// the candidates), or a GSL (`None` inside `Some`): the class and
    /// visibility of the link to build.
    pub fn link_kind(&self, a: u32, b: u32) -> Option<(usize, Visibility)> {
        // ISLs: after the plan links.
        let np = self.plan.links.len();
        if self.fixed[np..]
            .iter()
            .any(|c| (c.a, c.b) == (a, b) || (c.a, c.b) == (b, a))
        {
            return Some((self.plan.isl_class, Visibility::Always));
        }
        for rule in &self.plan.gsls {
            let (g_is_a, sat) = if rule.grounds.contains(&a) {
                (true, b)
            } else if rule.grounds.contains(&b) {
                (false, a)
            } else {
                continue;
            };
            if rule.sats.contains(&sat) {
                let v = match rule.max_range_m {
                    Some(r) => Visibility::MaxRange(r),
                    None => Visibility::MinElevation {
                        observer_is_from: g_is_a,
                        min_deg: rule.min_elevation_deg,
                    },
                };
                return Some((rule.class, v));
            }
        }
        None
    }
}

/// The routing state: for each destination in use, every node's next hop.
#[derive(Default)]
pub struct RoutingState {
    /// Destination node of each slot.
    pub dests: Vec<u32>,
    /// Per node: its destination slot (`NO_HOP` if none).
    slot_of: Vec<u32>,
    /// Per destination slot: next hop of every node.
    pub next: Vec<Vec<u32>>,
    /// Per destination slot: delay of every node's route (ns).
    pub dist: Vec<Vec<u64>>,
    /// Recomputations so far.
    pub updates: u64,
    /// The next recomputation, under way on a thread of its own.
    ahead: Option<Ahead>,
    /// The copy of the network that thread works on, between recomputations.
    spare: Option<MovingNet>,
    /// Never run ahead (every recomputation on the caller's thread): set
    /// where the machine has no second processor to run ahead on.
    pub synchronous: bool,
    /// Recomputations taken from a thread that ran ahead.
    pub taken_ahead: u64,
}

/// A recomputation started ahead of its time: the graph and the trees of
/// `t` are a function of `t` alone (the positions then, the links
/// visible), so they can be built while the run simulates the epoch
/// before, on the processor's other core. The main thread takes them at
/// `t` instead of building them; results are the same bit for bit.
struct Ahead {
    t: Dur,
    handle: std::thread::JoinHandle<Prepared>,
}

/// What a recomputation ahead hands back.
struct Prepared {
    net: MovingNet,
    graph: Graph,
    /// The destinations it computed (those in use when it started: a
    /// prefix of the destinations at `t`, which only grow).
    dests: Vec<u32>,
    next: Vec<Vec<u32>>,
    dist: Vec<Vec<u64>>,
}

/// Whether a recomputation is worth a thread of its own (it costs more
/// than starting one, some tens of microseconds): `nodes` × `dests` of at
/// least [`AHEAD_MIN_WORK`] (a constellation's hundreds of satellites, not
/// a few aircraft and their ground stations).
fn worth_ahead(nodes: usize, dests: usize) -> bool {
    nodes.saturating_mul(dests) >= AHEAD_MIN_WORK
}

/// Nodes × destinations from which recomputations run ahead (a tree over
/// a thousand nodes takes some hundreds of microseconds).
const AHEAD_MIN_WORK: usize = 2_000;

/// The tree towards each of `dests` on `g`, into `dist` and `next` (one
/// entry per destination).
fn trees_on(g: &Graph, dests: &[u32], dist: &mut [Vec<u64>], next: &mut [Vec<u32>]) {
    for (i, &d) in dests.iter().enumerate() {
        g.tree_to(d, &mut dist[i], &mut next[i]);
    }
}

/// The graph of `t` and every destination's tree on it.
fn prepare(mut net: MovingNet, t: Dur, dests: Vec<u32>) -> Prepared {
    let g = snapshot_at(&mut net, t);
    let (mut next, mut dist) = (vec![Vec::new(); dests.len()], vec![Vec::new(); dests.len()]);
    trees_on(&g, &dests, &mut dist, &mut next);
    Prepared {
        net,
        graph: g,
        dests,
        next,
        dist,
    }
}

/// The routing graph of the epoch starting at `t` (links up at `t` and,
/// when routes hold for the epoch, still up at its end).
fn snapshot_at(net: &mut MovingNet, t: Dur) -> Graph {
    let until = net
        .plan
        .routing
        .holds_for_epoch()
        .then(|| net.plan.routing.next_after(t).as_secs_f64());
    net.snapshot(t.as_secs_f64(), until)
}

impl RoutingState {
    pub fn new(nodes: usize) -> RoutingState {
        RoutingState {
            slot_of: vec![NO_HOP; nodes],
            synchronous: std::thread::available_parallelism().is_ok_and(|n| n.get() < 2),
            ..Default::default()
        }
    }

    /// The slot of destination `dst` (added on first use; computed at the next recomputation).
    pub fn slot(&mut self, dst: u32) -> u32 {
        let s = self.slot_of[dst as usize];
        if s != NO_HOP {
            return s;
        }
        let s = self.dests.len() as u32;
        self.dests.push(dst);
        self.slot_of[dst as usize] = s;
        self.next.push(vec![NO_HOP; self.slot_of.len()]);
        self.dist.push(vec![u64::MAX; self.slot_of.len()]);
        s
    }

    /// Recompute every destination's tree at `t_s` (with the policy's epoch end).
    pub fn recompute(&mut self, net: &mut MovingNet, t: Dur) {
        let g = match self.take_ahead(t) {
            Some(g) => g,
            None => {
                let g = snapshot_at(net, t);
                self.recompute_on(&g);
                g
            }
        };
        if let Some(a) = net.plan.access.as_deref() {
            a.install(t, &g, &self.dests, &mut self.next, &mut self.dist);
        }
        if !self.synchronous && worth_ahead(net.nodes, self.dests.len()) {
            let next_t = net.plan.routing.next_after(t);
            let wnet = self.spare.take().unwrap_or_else(|| net.clone());
            let dests = self.dests.clone();
            let handle = std::thread::Builder::new()
                .name("skyhop-routes".into())
                .spawn(move || prepare(wnet, next_t, dests))
                .expect("a thread for the next route recomputation");
            self.ahead = Some(Ahead { t: next_t, handle });
        }
    }

    /// The recomputation of `t` built ahead, if one was: its trees taken
    /// in (those of destinations added since computed here), its graph
    /// returned. `None`: none was started for `t`; compute it now.
    fn take_ahead(&mut self, t: Dur) -> Option<Graph> {
        let ahead = self.ahead.take()?;
        let at = ahead.t;
        let p = match ahead.handle.join() {
            Ok(p) => p,
            Err(e) => std::panic::resume_unwind(e),
        };
        self.spare = Some(p.net);
        let k = p.dests.len();
        if at != t || self.dests.get(..k) != Some(&p.dests[..]) {
            return None;
        }
        for (i, (next, dist)) in p.next.into_iter().zip(p.dist).enumerate() {
            self.next[i] = next;
            self.dist[i] = dist;
        }
        trees_on(
            &p.graph,
            &self.dests[k..],
            &mut self.dist[k..],
            &mut self.next[k..],
        );
        self.updates += 1;
        self.taken_ahead += 1;
        Some(p.graph)
    }

    /// Recompute every destination's tree on graph `g`.
    pub fn recompute_on(&mut self, g: &Graph) {
        self.recompute_on_threads(g, 1);
    }

    /// The same on `threads` threads (destinations split between them; the
    /// result does not depend on the split).
    pub fn recompute_on_threads(&mut self, g: &Graph, threads: usize) {
        let n = self.dests.len();
        if threads <= 1 || n < 2 * threads {
            trees_on(g, &self.dests, &mut self.dist, &mut self.next);
        } else {
            let chunk = n.div_ceil(threads);
            std::thread::scope(|sc| {
                for ((dests, dist), next) in self
                    .dests
                    .chunks(chunk)
                    .zip(self.dist.chunks_mut(chunk))
                    .zip(self.next.chunks_mut(chunk))
                {
                    sc.spawn(move || trees_on(g, dests, dist, next));
                }
            });
        }
        self.updates += 1;
    }

    /// The next hop from `node` towards the destination in `slot`.
    #[inline]
    pub fn next_hop(&self, slot: u32, node: u32) -> u32 {
        self.next[slot as usize][node as usize]
    }

    /// The current node path from `src` to the destination in `slot`.
    pub fn path(&self, slot: u32, src: u32) -> Vec<u32> {
        let dst = self.dests[slot as usize];
        path_from(&self.next[slot as usize], src, dst, self.slot_of.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geo::geodetic_to_ecef;
    use crate::mobility::NodeMotion;

    #[test]
    fn epochs_start_at_their_offset_then_every_period() {
        let p = RoutingPolicy::Epochs {
            period: Dur::from_secs(15),
            offset: Dur::from_secs(12),
        };
        assert_eq!(p.next_after(Dur::ZERO), Dur::from_secs(12));
        assert_eq!(p.next_after(Dur::from_secs(12)), Dur::from_secs(27));
        assert_eq!(p.next_after(Dur::from_secs(30)), Dur::from_secs(42));
        let i = RoutingPolicy::Interval(Dur::from_millis(100));
        assert_eq!(i.next_after(Dur::from_millis(250)), Dur::from_millis(300));
    }

    #[test]
    fn a_ground_node_links_only_to_satellites_above_its_minimum_elevation() {
        // Ground at (0, 0); "satellites" fixed at 550 km above (0, 0),
        // (0, 5) and (0, 15): elevations 90°, about 37° and about 8°.
        let fixed = |lat, lon, alt| Some(NodeMotion::Fixed(geodetic_to_ecef(lat, lon, alt)));
        let positions = Arc::new(Positions {
            nodes: vec![
                fixed(0.0, 0.0, 0.0),
                fixed(0.0, 0.0, 550e3),
                fixed(0.0, 5.0, 550e3),
                fixed(0.0, 15.0, 550e3),
            ],
        });
        let extra = vec!["s1".into(), "s2".into(), "s3".into()];
        let plan = test_plan(positions, extra, vec![], vec![0], 1..4, 25.0);
        let mut net = MovingNet::new(plan, &[]);
        let g = net.snapshot(0.0, None);
        assert_eq!(g.edges(), 2);
        assert_eq!(g.weight(0, 1), Some(delay_of(550e3).0));
        assert!(g.weight(0, 2).is_some() && g.weight(0, 3).is_none());
        assert!(matches!(
            net.link_kind(2, 0),
            Some((
                0,
                Visibility::MinElevation {
                    observer_is_from: false,
                    ..
                }
            ))
        ));
        assert!(net.link_kind(1, 2).is_none());
    }

    /// Kuiper-630 with its +Grid and six cities, every 100 ms.
    fn kuiper_with_cities() -> MovingNet {
        let shell = crate::mobility::preset("kuiper-630").unwrap().shell;
        let (planes, per) = (shell.planes, shell.per_plane);
        let orbiters = shell.orbiters(crate::mobility::Epoch::Y2000).unwrap();
        let cities = [
            (51.5, -0.1),
            (40.7, -74.0),
            (35.7, 139.7),
            (-33.9, 151.2),
            (19.1, 72.9),
            (-23.5, -46.6),
        ];
        let g = cities.len() as u32;
        let mut nodes: Vec<Option<NodeMotion>> = cities
            .iter()
            .map(|&(lat, lon)| Some(NodeMotion::Fixed(geodetic_to_ecef(lat, lon, 0.0))))
            .collect();
        nodes.extend(orbiters.into_iter().map(|o| Some(NodeMotion::Orbit(o))));
        let sat = |p: u32, k: u32| g + (p % planes) * per + k % per;
        let mut isls = Vec::new();
        for p in 0..planes {
            for k in 0..per {
                isls.push((sat(p, k), sat(p, k + 1)));
                isls.push((sat(p, k), sat(p + 1, k)));
            }
        }
        let n = nodes.len() as u32;
        let extra = (g..n).map(|i| format!("s{i}")).collect();
        let positions = Arc::new(Positions { nodes });
        let plan = test_plan(positions, extra, isls, (0..g).collect(), g..n, 30.0);
        MovingNet::new(plan, &[])
    }

    /// A plan of no plan links: `isls`, and one ground-to-satellite rule
    /// (by minimum elevation), routes every 100 ms.
    fn test_plan(
        positions: Arc<Positions>,
        extra_nodes: Vec<String>,
        isls: Vec<(u32, u32)>,
        grounds: Vec<u32>,
        sats: std::ops::Range<u32>,
        min_elevation_deg: f64,
    ) -> MotionPlan {
        MotionPlan {
            positions,
            extra_nodes,
            links: vec![],
            isls,
            isl_class: 0,
            gsls: vec![GslRule {
                grounds,
                sats,
                min_elevation_deg,
                max_range_m: None,
                class: 0,
            }],
            classes: vec![],
            routing: RoutingPolicy::Interval(Dur::from_millis(100)),
            when_down: WhenDown::Drop,
            lose_in_flight: false,
            access: None,
            start_spread: Dur::ZERO,
            start_offset: Dur::ZERO,
        }
    }

    #[test]
    fn routes_built_ahead_are_the_routes_built_in_turn() {
        // Two routing states over the same network, one always on the
        // caller's thread, through ten updates; destinations are added
        // between updates (after the next update was started ahead with
        // the destinations before), and one update comes off its schedule
        // (the one started ahead is then not used).
        let mut net = kuiper_with_cities();
        let mut now = RoutingState::new(net.nodes);
        now.synchronous = true;
        let mut ahead = RoutingState::new(net.nodes);
        for rs in [&mut now, &mut ahead] {
            rs.slot(0);
            rs.slot(3);
        }
        let mut t = Dur::ZERO;
        for step in 0..10 {
            if step == 4 {
                t = Dur(t.0 + 37_000_000);
            }
            now.recompute(&mut net, t);
            ahead.recompute(&mut net, t);
            assert_eq!(now.dests, ahead.dests, "at {t}");
            assert!(now.next == ahead.next && now.dist == ahead.dist, "at {t}");
            // Every city reaches every destination through the grid.
            for s in 0..now.dests.len() as u32 {
                for src in 0..6 {
                    assert!(!now.path(s, src).is_empty(), "{src} to slot {s} at {t}");
                }
            }
            if step == 2 || step == 6 {
                for rs in [&mut now, &mut ahead] {
                    rs.slot(1 + step as u32 / 2);
                }
            }
            t = net.plan.routing.next_after(t);
        }
        assert_eq!(now.dests.len(), 4);
        assert_eq!(now.taken_ahead, 0);
        if !ahead.synchronous {
            // Taken at every update but the first and the one off schedule.
            assert_eq!(ahead.taken_ahead, 8);
        }
    }
}
