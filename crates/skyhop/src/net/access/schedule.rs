//! The access network of a run and its epoch schedule: for every
//! reconfiguration epoch, each terminal's serving satellite, the gateway
//! its traffic lands at, and its path to its PoP.
//!
//! The policy (docs/leo.md, "Starlink as deployed"), per epoch and per
//! terminal in the order given:
//! 1. Candidates: the satellites the terminal's dish sees at or above the
//!    terminals' minimum elevation at the epoch's start and at its end (a
//!    pass is one arc, so such a satellite stays in view for the whole
//!    epoch).
//! 2. Bent pipe: for each candidate, the gateways that see it at or above
//!    their own minimum elevation at both instants and have an antenna for
//!    it (a gateway tracks at most `antennas` satellites at once; terminals
//!    on the same satellite share one). The pair with the least one-way
//!    propagation dish → satellite → gateway → PoP wins (fibre delay
//!    included; ties to the lower satellite, then gateway).
//! 3. Only when no candidate has a bent pipe: inter-satellite links. From
//!    every candidate, paths of at most `isl_hops` ISL hops (the least
//!    delay within that many hops, by hop-limited Bellman–Ford) to a
//!    satellite that a gateway sees as in 2; the least total delay wins.
//! 4. Otherwise the terminal has no service in the epoch.
//!
//! Delays are those at the epoch's start (exact SGP4 positions). The plan
//! of an epoch depends on nothing but the positions, so it is computed
//! once, when first asked for, and cached; the routing (at the epoch's
//! start) and the access links (for their beam shares) read the same plan.

use super::EpochClock;
use crate::engine::time::Dur;
use crate::geo::{delay_of, Vec3};
use crate::mobility::Positions;
use crate::net::moving::Visibility;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// A user terminal: the host behind it, its dish (the node linked to the
/// satellites) and its PoP (index into [`AccessNet::pops`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TerminalSpec {
    pub host: u32,
    pub dish: u32,
    pub pop: usize,
}

/// A gateway: its node, lowest elevation, antennas (satellites tracked at
/// once) and the one-way delay of its terrestrial link to each PoP.
#[derive(Clone, Debug, PartialEq)]
pub struct GatewaySpec {
    pub node: u32,
    pub min_elevation_deg: f64,
    pub antennas: u32,
    /// By PoP index.
    pub fibre: Vec<Dur>,
}

/// The scheduler's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SchedulerParams {
    pub clock: EpochClock,
    /// Terminals see satellites at or above this elevation (Starlink: 25°).
    pub min_elevation_deg: f64,
    /// Inter-satellite hops allowed between the serving satellite and the
    /// one a gateway sees (0: bent pipe only).
    pub isl_hops: u32,
}

/// A terminal's access in one epoch.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    /// The serving satellite (node).
    pub sat: u32,
    /// Index into [`AccessNet::gateways`].
    pub gateway: usize,
    /// Nodes from the dish to the PoP: dish, serving satellite, the
    /// satellites crossed over ISLs, gateway, PoP.
    pub path: Vec<u32>,
    pub isl_hops: u32,
    /// One-way propagation dish → PoP at the epoch's start (fibre included).
    pub delay: Dur,
    /// Terminals of the run served by the same satellite in this epoch
    /// (they divide its beam).
    pub sharers: u32,
}

/// Every terminal's access over one epoch.
#[derive(Clone, Debug, PartialEq)]
pub struct EpochPlan {
    pub index: u64,
    pub start: Dur,
    pub end: Dur,
    /// By terminal; `None`: no service in this epoch.
    pub terminals: Vec<Option<Assignment>>,
}

/// A terminal's access as a new epoch starts (for the run's network events).
#[derive(Clone, Debug, PartialEq)]
pub struct EpochEvent {
    pub t: Dur,
    pub terminal: usize,
    /// The path of the previous epoch (`None` at t = 0 or without service).
    pub old: Option<Vec<u32>>,
    pub new: Option<Vec<u32>>,
    pub delay: Option<Dur>,
}

/// The access network of a run.
#[derive(Debug)]
pub struct AccessNet {
    positions: Arc<Positions>,
    /// Satellite nodes (a constellation's range).
    pub sats: Range<u32>,
    /// Per satellite (offset from `sats.start`): its ISL neighbours (offsets).
    isl: Vec<Vec<u32>>,
    /// PoP nodes.
    pub pops: Vec<u32>,
    pub gateways: Vec<GatewaySpec>,
    pub terminals: Vec<TerminalSpec>,
    pub params: SchedulerParams,
    cache: Mutex<BTreeMap<u64, Arc<EpochPlan>>>,
}

const NONE: u32 = u32::MAX;

impl AccessNet {
    /// `isls`: inter-satellite links as node pairs (both ends in `sats`).
    pub fn new(
        positions: Arc<Positions>,
        sats: Range<u32>,
        isls: &[(u32, u32)],
        pops: Vec<u32>,
        gateways: Vec<GatewaySpec>,
        terminals: Vec<TerminalSpec>,
        params: SchedulerParams,
    ) -> AccessNet {
        let mut isl = vec![Vec::new(); sats.len()];
        for &(a, b) in isls {
            if sats.contains(&a) && sats.contains(&b) {
                isl[(a - sats.start) as usize].push(b - sats.start);
                isl[(b - sats.start) as usize].push(a - sats.start);
            }
        }
        for n in isl.iter_mut() {
            n.sort_unstable();
            n.dedup();
        }
        AccessNet {
            positions,
            sats,
            isl,
            pops,
            gateways,
            terminals,
            params,
            cache: Mutex::new(BTreeMap::new()),
        }
    }

    /// The same access network over other positions (a run's shifted
    /// constellation, `MotionPlan::for_run`), with no epoch planned yet.
    pub fn with_positions(&self, positions: Arc<Positions>) -> AccessNet {
        AccessNet {
            positions,
            sats: self.sats.clone(),
            isl: self.isl.clone(),
            pops: self.pops.clone(),
            gateways: self.gateways.clone(),
            terminals: self.terminals.clone(),
            params: self.params,
            cache: Mutex::new(BTreeMap::new()),
        }
    }

    /// The plan of epoch `n` (computed on first use).
    pub fn plan(&self, n: u64) -> Arc<EpochPlan> {
        if let Some(p) = self.cache.lock().unwrap().get(&n) {
            return p.clone();
        }
        let p = Arc::new(self.compute(n));
        self.cache.lock().unwrap().insert(n, p.clone());
        p
    }

    /// The plan of the epoch holding instant `t`.
    pub fn plan_at(&self, t: Dur) -> Arc<EpochPlan> {
        self.plan(self.params.clock.index_at(t))
    }

    /// What changed for each terminal when an epoch starts at `t` (empty
    /// when `t` is not an epoch's start; at t = 0, the first assignments).
    pub fn events_at(&self, t: Dur) -> Vec<EpochEvent> {
        let n = self.params.clock.index_at(t);
        if self.params.clock.start(n) != t {
            return Vec::new();
        }
        let new = self.plan(n);
        let old = (n > 0).then(|| self.plan(n - 1));
        (0..self.terminals.len())
            .map(|k| EpochEvent {
                t,
                terminal: k,
                old: old
                    .as_ref()
                    .and_then(|o| o.terminals[k].as_ref().map(|a| a.path.clone())),
                new: new.terminals[k].as_ref().map(|a| a.path.clone()),
                delay: new.terminals[k].as_ref().map(|a| a.delay),
            })
            .collect()
    }

    fn sat_offsets(&self) -> Range<usize> {
        0..self.sats.len()
    }

    fn compute(&self, n: u64) -> EpochPlan {
        let clock = self.params.clock;
        let (t0, t1) = (clock.start(n), clock.end(n));
        let (s0, s1) = (t0.as_secs_f64(), t1.as_secs_f64());
        let at = |node: u32, s: f64| self.positions.position(node, s);
        let sat0: Vec<Vec3> = self.sats.clone().map(|s| at(s, s0)).collect();
        let sat1: Vec<Vec3> = self.sats.clone().map(|s| at(s, s1)).collect();
        let sees = |min: f64, obs: (Vec3, Vec3), s: usize| {
            Visibility::sees(min, obs.0, sat0[s]) && Visibility::sees(min, obs.1, sat1[s])
        };
        // Which satellites each gateway sees over the whole epoch.
        let gw_pos: Vec<(Vec3, Vec3)> = self
            .gateways
            .iter()
            .map(|g| (at(g.node, s0), at(g.node, s1)))
            .collect();
        let gw_sees: Vec<Vec<bool>> = self
            .gateways
            .iter()
            .zip(&gw_pos)
            .map(|(g, &p)| {
                self.sat_offsets()
                    .map(|s| sees(g.min_elevation_deg, p, s))
                    .collect()
            })
            .collect();
        // Satellites each gateway tracks this epoch (its antennas).
        let mut tracked: Vec<Vec<usize>> = vec![Vec::new(); self.gateways.len()];
        let mut out = Vec::with_capacity(self.terminals.len());
        for term in &self.terminals {
            let dish = (at(term.dish, s0), at(term.dish, s1));
            let cand: Vec<usize> = self
                .sat_offsets()
                .filter(|&s| sees(self.params.min_elevation_deg, dish, s))
                .collect();
            let up: Vec<Dur> = cand
                .iter()
                .map(|&s| delay_of(dish.0.distance(sat0[s])))
                .collect();
            // The best gateway for satellite `s` reached after `d` (cost, gateway).
            let landing = |s: usize, d: Dur, tracked: &[Vec<usize>]| -> Option<(Dur, usize)> {
                let mut best: Option<(Dur, usize)> = None;
                for (g, gw) in self.gateways.iter().enumerate() {
                    let free = tracked[g].contains(&s) || (tracked[g].len() as u32) < gw.antennas;
                    if !gw_sees[g][s] || !free {
                        continue;
                    }
                    let c =
                        Dur(d.0 + delay_of(sat0[s].distance(gw_pos[g].0)).0 + gw.fibre[term.pop].0);
                    if best.is_none_or(|(b, _)| c < b) {
                        best = Some((c, g));
                    }
                }
                best
            };
            // Bent pipe.
            let mut best: Option<(Dur, Vec<usize>, usize)> = None;
            for (i, &s) in cand.iter().enumerate() {
                if let Some((c, g)) = landing(s, up[i], &tracked) {
                    if best.as_ref().is_none_or(|(b, _, _)| c < *b) {
                        best = Some((c, vec![s], g));
                    }
                }
            }
            // Inter-satellite links, only without a bent pipe.
            if best.is_none() && self.params.isl_hops > 0 && !cand.is_empty() {
                best = self.over_isls(&cand, &up, &sat0, |s, d| landing(s, d, &tracked));
            }
            let a = best.map(|(delay, sats, g)| {
                let last = *sats.last().unwrap();
                if !tracked[g].contains(&last) {
                    tracked[g].push(last);
                }
                let mut path = vec![term.dish];
                path.extend(sats.iter().map(|&s| self.sats.start + s as u32));
                path.push(self.gateways[g].node);
                path.push(self.pops[term.pop]);
                Assignment {
                    sat: self.sats.start + sats[0] as u32,
                    gateway: g,
                    isl_hops: sats.len() as u32 - 1,
                    path,
                    delay,
                    sharers: 0,
                }
            });
            out.push(a);
        }
        let serving: Vec<Option<u32>> = out.iter().map(|a| a.as_ref().map(|a| a.sat)).collect();
        for a in out.iter_mut().flatten() {
            a.sharers = serving.iter().filter(|&&s| s == Some(a.sat)).count() as u32;
        }
        EpochPlan {
            index: n,
            start: t0,
            end: t1,
            terminals: out,
        }
    }

    /// The least-delay path within `isl_hops` ISL hops from a candidate
    /// (delay `up[i]` to reach `cand[i]`) to a satellite a gateway takes:
    /// (total delay, satellites from the serving one, gateway).
    fn over_isls(
        &self,
        cand: &[usize],
        up: &[Dur],
        sat0: &[Vec3],
        landing: impl Fn(usize, Dur) -> Option<(Dur, usize)>,
    ) -> Option<(Dur, Vec<usize>, usize)> {
        let ns = self.sats.len();
        let hops = self.params.isl_hops as usize;
        let mut dist = vec![u64::MAX; ns];
        for (i, &s) in cand.iter().enumerate() {
            dist[s] = dist[s].min(up[i].0);
        }
        // via[h][v]: the predecessor that improved v at layer h (NONE: not improved).
        let mut via: Vec<Vec<u32>> = Vec::with_capacity(hops + 1);
        via.push(vec![NONE; ns]);
        for _ in 1..=hops {
            let prev = dist.clone();
            let mut layer = vec![NONE; ns];
            for u in 0..ns {
                if prev[u] == u64::MAX {
                    continue;
                }
                for &v in &self.isl[u] {
                    let v = v as usize;
                    let d = prev[u] + delay_of(sat0[u].distance(sat0[v])).0;
                    if d < dist[v] || (d == dist[v] && layer[v] != NONE && (u as u32) < layer[v]) {
                        dist[v] = d;
                        layer[v] = u as u32;
                    }
                }
            }
            via.push(layer);
        }
        let mut best: Option<(Dur, usize, usize)> = None;
        for (v, &d) in dist.iter().enumerate() {
            if d == u64::MAX {
                continue;
            }
            if let Some((c, g)) = landing(v, Dur(d)) {
                if best.is_none_or(|(b, _, _)| c < b) {
                    best = Some((c, v, g));
                }
            }
        }
        let (c, v, g) = best?;
        // Walk back through the layers.
        let mut path = vec![v];
        let (mut h, mut v) = (hops, v);
        loop {
            while h > 0 && via[h][v] == NONE {
                h -= 1;
            }
            if h == 0 {
                break;
            }
            v = via[h][v] as usize;
            path.push(v);
            h -= 1;
        }
        path.reverse();
        Some((c, path, g))
    }
}
