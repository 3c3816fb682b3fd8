//! The world of a moving network: packets forwarded hop by hop towards
//! their destination from the current routing state (`network.rs`), links
//! between moving nodes built the first time traffic crosses them, plan
//! links given their moving delay and visibility, and the routes
//! recomputed on the policy's schedule.
//!
//! Also here: the hint that brings in the next event's
//! packet before it runs (`World::prefetch_next`), which the many busy
//! directions of a moving network need most.

use super::network::{Mobile, DYN_ROUTE, MAX_HOPS, NO_LD};
use super::state::Ev;
use super::world::World;
use crate::engine::time::Dur;
use crate::engine::Time;
use crate::mobility::Positions;
use crate::net::access::BeamShare;
use crate::net::mobile::MotionPlan;
use crate::net::moving::{DirMotion, Visibility};
use crate::net::routing::NO_HOP;
use crate::net::{AnyLinkLayer, FifoDir, FifoLink, LinkLayerSpec};
use crate::observe::PacketEventKind;
use std::borrow::Cow;
use std::sync::Arc;

/// The moving parts of a plan link's two directions.
pub(super) fn attach_motion(
    layer: &mut AnyLinkLayer,
    positions: &Arc<Positions>,
    ends: (u32, u32),
    visibility: Visibility,
    motion: &MotionPlan,
) {
    // The plan gives moving ends only to layers that support motion.
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
        layer.set_motion(
            crate::net::Dir::from_index(dir),
            Box::new(DirMotion::new(
                positions.clone(),
                from,
                to,
                vis,
                motion.when_down,
                motion.lose_in_flight,
            )),
        );
    }
}

/// A layer's spec in the run over `motion`: an access link's beam share
/// reads the run's access network (a randomly started constellation's
/// own, `MotionPlan::for_run`), not the plan's.
pub(super) fn run_layer_spec<'a>(
    spec: &'a LinkLayerSpec,
    motion: Option<&MotionPlan>,
) -> Cow<'a, LinkLayerSpec> {
    if let (LinkLayerSpec::StarlinkAccess(s), Some(net)) =
        (spec, motion.and_then(|m| m.access.as_ref()))
    {
        if let Some(b) = s.beam.as_ref().filter(|b| !Arc::ptr_eq(&b.net, net)) {
            let mut s = s.clone();
            s.beam = Some(BeamShare {
                net: net.clone(),
                terminal: b.terminal,
            });
            return Cow::Owned(LinkLayerSpec::StarlinkAccess(s));
        }
    }
    Cow::Borrowed(spec)
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
        let r = self.packets.slot(slot).route & !DYN_ROUTE;
        let (src, dslot) = self.mobile().routes[r as usize];
        self.dyn_forward(now, slot, src, dslot);
    }

    /// A packet of a moving world crossed link direction `ld`.
    #[inline(never)]
    pub(super) fn dyn_arrive(&mut self, now: Time, slot: u32, ld: usize) {
        let r = self.packets.slot(slot).route & !DYN_ROUTE;
        let m = self.mobile();
        let (_, dslot) = m.routes[r as usize];
        let node = m.dir_ends[ld].1;
        if node == m.routing.dests[dslot as usize] {
            self.deliver(now, slot);
            return;
        }
        let p = self.packets.slot_mut(slot);
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
        let at = dslot as usize * m.out.len() + node as usize;
        let mut ld = m.next_ld[at];
        if ld == NO_LD {
            let next = m.routing.next_hop(dslot, node);
            if next == NO_HOP {
                m.unroutable += 1;
                self.free_lost(slot);
                return;
            }
            ld = self.link_dir(node, next);
            self.mobile().next_ld[at] = ld;
        }
        self.transmit_on(now, slot, ld as usize);
    }

    /// The link direction from `a` to its neighbour `b`, built on first use.
    /// A built link is named and directed from its lower-numbered end,
    /// whichever way its first packet goes: `forward` is a ground station
    /// (a scenario node) to its satellite, or the lower-numbered satellite
    /// to the higher.
    fn link_dir(&mut self, from: u32, to: u32) -> u32 {
        let m = self.mobile.as_deref_mut().unwrap();
        if let Some(&(_, ld)) = m.out[from as usize].iter().find(|&&(n, _)| n == to) {
            return ld;
        }
        let (a, b) = (from.min(to), from.max(to));
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
        if self.trace.as_ref().is_some_and(|t| t.wants("queue")) {
            for d in link.dirs.iter_mut() {
                d.trace_queue();
            }
        }
        let name = format!("{}:{}-{}", c.name, m.names[a as usize], m.names[b as usize]);
        if let Some(log) = self.log.as_deref_mut() {
            log.built_names.push(name.clone());
        }
        m.built.push((name, c.rate_bps));
        let k = self.layers.len() as u32;
        self.layers.push(AnyLinkLayer::Fifo(link));
        let m = self.mobile.as_deref_mut().unwrap();
        m.dir_ends.push((a, b));
        m.dir_ends.push((b, a));
        m.out[a as usize].push((b, 2 * k));
        m.out[b as usize].push((a, 2 * k + 1));
        if from == a {
            2 * k
        } else {
            2 * k + 1
        }
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
            let p = &self.packets.get(slot);
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

impl World {
    /// A hint, before an event runs: if the next event, or the one after
    /// it, is a packet's arrival at the end of a FIFO link, bring in its
    /// slot (named by the token), which holds its place in the in-flight
    /// list, so that the misses overlap with this event's work (and the
    /// next's). With many link directions busy (a moving network carrying
    /// hundreds of thousands of packets) a direction's next arrival is
    /// hundreds of events away and its lines have left the cache by then;
    /// one event ahead was too short to bring a slot in from memory. The
    /// layer's kind is not read (its record is cold too): a wake-up of
    /// another kind of layer names no slot, and its hint is wasted, never
    /// wrong. Only in a moving world: a static one's few directions keep
    /// their lines, and its prefetches two arrivals ahead
    /// (`World::prefetch_arrival`) find them in time.
    #[inline(always)]
    pub(super) fn prefetch_next(&self) {
        if self.mobile.is_none() {
            return;
        }
        if let Some(&Ev::Link { token, .. }) = self.q.peek() {
            self.packets.prefetch(token >> 1);
        }
        if let Some(&Ev::Link { token, .. }) = self.q.peek_after_next() {
            self.packets.prefetch(token >> 1);
        }
    }
}
