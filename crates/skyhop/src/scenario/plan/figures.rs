//! A leg's capacity figures, computed once when the plan is built: its
//! bottleneck, propagation and full round trip, bandwidth-delay products
//! and wire packet. Every consumer (the warnings, the memory estimate,
//! `describe`, AeroTCP's allocation) reads these; [`bytes_in`] is the one
//! formula of a bandwidth-delay product.

use crate::engine::time::Dur;
use crate::net::mobile::{MotionPlan, MovingNet, RoutingPolicy};
use crate::net::routing::{path_from, Graph};
use crate::net::LinkDirSpec;
use std::cell::OnceCell;

/// Bytes a rate carries over a duration (rounded to the nearest byte): a
/// bandwidth-delay product.
pub fn bytes_in(rate_bps: u64, d: Dur) -> u64 {
    (rate_bps as f64 / 8.0 * d.as_secs_f64()).round() as u64
}

/// A leg's capacity figures.
#[derive(Clone, Debug, PartialEq)]
pub struct LegFigures {
    /// The slowest direction of its data path, bit/s.
    pub bottleneck: u64,
    /// Propagation there and back.
    pub propagation: Dur,
    /// The round trip: propagation there and back plus the transmission of
    /// one full segment and of its ACK on every hop.
    pub rtt: Dur,
    /// `bottleneck` × `rtt`, bytes.
    pub bdp: u64,
    /// `bottleneck` × `propagation`, bytes: what a receive window must
    /// cover (`warnings.rs`).
    pub propagation_bdp: u64,
    /// Bytes of a full segment on the wire.
    pub packet: u64,
    /// The leg crosses a moving network: the figures are those of its
    /// route at the start of the run, these nodes (empty: no route then).
    pub route_at_start: Option<Vec<u32>>,
}

impl LegFigures {
    /// The figures of a path of hops (rate, one-way delay), the ACKs
    /// returning over `back` (the same hops reversed when `None`).
    fn of(hops: &[(u64, Dur)], back: Option<&[(u64, Dur)]>, packet: u64, ack: u64) -> Self {
        let back = back.unwrap_or(hops);
        let mut propagation = Dur::ZERO;
        let mut rtt = Dur::ZERO;
        for &(rate, delay) in hops {
            propagation = propagation + delay;
            rtt = rtt + delay + Dur::transmission(packet, rate);
        }
        for &(rate, delay) in back {
            propagation = propagation + delay;
            rtt = rtt + delay + Dur::transmission(ack, rate);
        }
        let bottleneck = hops.iter().map(|h| h.0).min().unwrap_or(1);
        LegFigures {
            bottleneck,
            propagation,
            rtt,
            bdp: bytes_in(bottleneck, rtt),
            propagation_bdp: bytes_in(bottleneck, propagation),
            packet,
            route_at_start: None,
        }
    }
}

/// What the figures of every leg are computed from: the plan's link
/// directions and, in a moving network, its graph at the start of the run
/// (built on the first leg that crosses it).
pub(super) struct Figures<'a> {
    dirs: &'a [LinkDirSpec],
    motion: Option<&'a MotionPlan>,
    start: OnceCell<(MovingNet, Graph)>,
}

impl<'a> Figures<'a> {
    pub(crate) fn new(dirs: &'a [LinkDirSpec], motion: Option<&'a MotionPlan>) -> Self {
        Figures {
            dirs,
            motion,
            start: OnceCell::new(),
        }
    }

    /// The figures of a leg over `path` with link directions `fwd` (data)
    /// and `rev` (ACKs), sending full segments of `mss` + `header` bytes.
    pub(crate) fn leg(
        &self,
        path: &[u32],
        fwd: &[u32],
        rev: &[u32],
        mss: u32,
        header: u32,
    ) -> LegFigures {
        let packet = (mss + header) as u64;
        let ack = header as u64;
        let hop = |&d: &u32| {
            let l = &self.dirs[d as usize];
            (l.rate_bps, l.delay)
        };
        match self.moving_hops(path, fwd) {
            Some((route, hops)) => LegFigures {
                route_at_start: Some(route),
                ..LegFigures::of(&hops, None, packet, ack)
            },
            None => {
                let there: Vec<_> = fwd.iter().map(hop).collect();
                let back: Vec<_> = rev.iter().map(hop).collect();
                LegFigures::of(&there, Some(&back), packet, ack)
            }
        }
    }

    /// For a leg that crosses the moving network (its plan links do not
    /// join its ends): its route at time 0 as the run's first routing
    /// update makes it (the shortest-delay tree, or an access scheduler's
    /// first epoch) and that route's
    /// hops as (rate, one-way delay); empty when the ends are not joined
    /// then. `None` for a leg over plan links only.
    #[allow(clippy::type_complexity)]
    fn moving_hops(&self, path: &[u32], fwd: &[u32]) -> Option<(Vec<u32>, Vec<(u64, Dur)>)> {
        let motion = self.motion?;
        if fwd.len() + 1 == path.len() {
            return None;
        }
        let (net, graph) = self.start.get_or_init(|| {
            let ends: Vec<(u32, u32, Dur)> = self
                .dirs
                .chunks(2)
                .map(|d| (d[0].from, d[0].to, d[0].delay))
                .collect();
            let mut net = MovingNet::new(motion.clone(), &ends);
            // The graph of the run's first routing update: with epochs,
            // the links up for the whole first epoch.
            let until = matches!(motion.routing, RoutingPolicy::Epochs { .. })
                .then(|| motion.routing.next_after(Dur::ZERO).as_secs_f64());
            let graph = net.snapshot(0.0, until);
            (net, graph)
        });
        let (src, dst) = (*path.first()?, *path.last()?);
        let (mut dist, mut next) = (Vec::new(), Vec::new());
        graph.tree_to(dst, &mut dist, &mut next);
        // An access network's scheduler overrides the trees with its first
        // epoch's paths, as in the run (`net/access/install.rs`).
        if let Some(a) = motion.access.as_deref() {
            let (mut n, mut d) = ([next], [dist]);
            a.install(Dur::ZERO, graph, &[dst], &mut n, &mut d);
            [next] = n;
        }
        let route = path_from(&next, src, dst, graph.nodes());
        let hops = route
            .windows(2)
            .map(|w| {
                let delay = Dur(graph.weight(w[0], w[1]).unwrap_or(0));
                let rate = match self.dirs.iter().find(|d| (d.from, d.to) == (w[0], w[1])) {
                    Some(d) => d.rate_bps,
                    None => net
                        .link_kind(w[0], w[1])
                        .map_or(1, |(c, _)| motion.classes[c].rate_bps),
                };
                (rate, delay)
            })
            .collect();
        Some((route, hops))
    }
}
