//! A link direction between nodes that move: its propagation delay and
//! whether it is up, evaluated from the nodes' positions at each packet's
//! transmission.
//!
//! - Delay: the straight-line distance between the two ends at the instant
//!   the packet's last bit leaves the transmitter, over c (rounded to the
//!   nanosecond); the packet keeps that delay while it propagates. Orbit
//!   positions are interpolated between SGP4 samples (`mobility::Sampled`).
//! - Order: an arrival is never earlier than the previous arrival on the
//!   same direction (`max(end + delay, last arrival)`). With positions that
//!   move continuously the delay changes by at most v/c ≈ 2.5·10⁻⁵ s per
//!   second, far less than a packet's transmission time, so the bound only
//!   guards against rounding; it keeps the direction FIFO, as the medium is.
//! - Visibility: a direction with a minimum elevation is up while the
//!   observer (the end nearer the Earth's centre) sees the other end at
//!   least that high above its horizon. A packet whose transmission would
//!   start while the direction is down is dropped (the default: the queue
//!   of an interface whose peer has set is flushed, and the routing sends
//!   the traffic another way at its next update) or held until the
//!   direction is up again ([`WhenDown::Hold`]: for links that come back,
//!   e.g. a relay masked for a moment); a packet that cannot be sent within
//!   [`HOLD_HORIZON_S`] is dropped. A packet in flight when the direction
//!   goes down arrives, unless `lose_in_flight` is set (then it is lost if
//!   the direction is down when it would arrive).

use crate::engine::time::{Dur, Time};
use crate::geo::{Vec3, SPEED_OF_LIGHT_M_PER_S};
use crate::mobility::{floor_i64, NodeMotion, Positions, SAMPLE_S};
use std::sync::Arc;

/// Longest a held packet waits for its direction to come back up, seconds.
pub const HOLD_HORIZON_S: f64 = 600.0;

/// What happens to a packet sent while its direction is down.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WhenDown {
    #[default]
    Drop,
    Hold,
}

/// When a direction is up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Visibility {
    Always,
    /// The observer end (`true`: the direction's sender) sees the other at
    /// or above `min_deg`.
    MinElevation {
        observer_is_from: bool,
        min_deg: f64,
    },
    /// The ends are at most this many metres apart (Hypatia's ground-link
    /// rule: the range at which a satellite at altitude h is seen at the
    /// minimum elevation over a flat Earth, h / sin(elevation)).
    MaxRange(f64),
}

impl Visibility {
    /// Whether `target` is visible from `obs` (positions in the Earth-fixed frame).
    #[inline]
    pub fn sees(min_deg: f64, obs: Vec3, target: Vec3) -> bool {
        Visibility::sees_up(min_deg.to_radians().sin(), up_of(obs), obs, target)
    }

    /// [`Visibility::sees`] with the sine of the minimum elevation and the
    /// observer's unit up vector ([`up_of`]) already computed.
    #[inline(always)]
    fn sees_up(sin_min: f64, up: Vec3, obs: Vec3, target: Vec3) -> bool {
        let d = target.minus(obs);
        d.dot(up) >= d.norm() * sin_min
    }

    /// Whether a direction from `from` to `to` (positions in the
    /// Earth-fixed frame) is up: the one rule of the run, the moving
    /// network's routing, the plan's checks and `describe`.
    #[inline]
    pub fn up(self, from: Vec3, to: Vec3) -> bool {
        match self {
            Visibility::Always => true,
            Visibility::MinElevation {
                observer_is_from: true,
                min_deg,
            } => Visibility::sees(min_deg, from, to),
            Visibility::MinElevation { min_deg, .. } => Visibility::sees(min_deg, to, from),
            Visibility::MaxRange(r) => from.distance(to) <= r,
        }
    }
}

/// The unit vector up from the Earth's centre through `obs`.
#[inline(always)]
fn up_of(obs: Vec3) -> Vec3 {
    obs.scale(1.0 / obs.norm())
}

/// `geo::delay_of`, bit for bit, without the library call of `f64::round`
/// on the usual range: for 1 ≤ x < 2⁵¹ nanoseconds, x + 0.5 is exact or
/// rounds to the integer above (x within half a unit below it), so its
/// truncation is x rounded half away from zero.
#[inline(always)]
fn delay_of(range_m: f64) -> Dur {
    let x = range_m / SPEED_OF_LIGHT_M_PER_S * 1e9;
    if (1.0..2_251_799_813_685_248.0).contains(&x) {
        Dur((x + 0.5) as u64)
    } else {
        crate::geo::delay_of(range_m)
    }
}

/// The visibility test of a direction, in the line its packets read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VisKind {
    Always,
    /// A minimum elevation seen from the sender (`true`) or the receiver.
    MinElevation(bool),
    MaxRange,
}

/// How one end of a direction moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EndKind {
    Fixed,
    Orbit,
    Track,
}

/// One end of a direction as its packets read it. A fixed end: its place
/// (`p0`) and the unit vector up through it (`p1`); an orbit: its SGP4
/// samples at k·SAMPLE_S and (k+1)·SAMPLE_S, k the direction's
/// [`DirMotion::k`] (both ends sample the same instants); a track: nothing
/// kept (its position is computed exactly at each packet).
#[derive(Clone, Copy, Debug, Default)]
struct End {
    p0: Vec3,
    p1: Vec3,
}

/// The moving part of one FIFO direction: what a packet reads first, in
/// two cache lines (the sample index, both ends' samples, the visibility
/// already shown, the last arrival, the visibility test's kind), then what
/// only a new sample or the rare path needs.
#[repr(C, align(64))]
pub struct DirMotion {
    /// Index of the orbit samples held (`i64::MIN`: none yet).
    k: i64,
    a: End,
    /// Transmissions starting before this time find the direction up
    /// without a test (`start_at`): shown for the whole of a sample
    /// interval at once (`show_up`).
    up_until: Time,
    b: End,
    last_arrival: Time,
    vis: VisKind,
    kinds: [EndKind; 2],
    pub when_down: WhenDown,
    pub lose_in_flight: bool,
    /// With a minimum elevation: its sine; with a maximum range: the range.
    vis_param: f64,
    pub visibility: Visibility,
    pub positions: Arc<Positions>,
    pub from: u32,
    pub to: u32,
}

impl DirMotion {
    pub fn new(
        positions: Arc<Positions>,
        from: u32,
        to: u32,
        visibility: Visibility,
        when_down: WhenDown,
        lose_in_flight: bool,
    ) -> DirMotion {
        let end = |n: u32| match positions.nodes[n as usize]
            .as_ref()
            .expect("a node with a place")
        {
            NodeMotion::Fixed(p) => (
                EndKind::Fixed,
                End {
                    p0: *p,
                    p1: up_of(*p),
                },
            ),
            NodeMotion::Orbit(_) => (EndKind::Orbit, End::default()),
            NodeMotion::Track(_) => (EndKind::Track, End::default()),
        };
        let ((ka, a), (kb, b)) = (end(from), end(to));
        let (vis, vis_param) = match visibility {
            Visibility::Always => (VisKind::Always, 0.0),
            Visibility::MinElevation {
                observer_is_from,
                min_deg,
            } => (
                VisKind::MinElevation(observer_is_from),
                min_deg.to_radians().sin(),
            ),
            Visibility::MaxRange(r) => (VisKind::MaxRange, r),
        };
        // Always up: never tested.
        let up_until = if vis == VisKind::Always {
            Time::MAX
        } else {
            Time::ZERO
        };
        DirMotion {
            k: i64::MIN,
            a,
            up_until,
            b,
            last_arrival: Time::ZERO,
            vis_param,
            vis,
            kinds: [ka, kb],
            when_down,
            lose_in_flight,
            visibility,
            positions,
            from,
            to,
        }
    }

    /// The orbit ends' samples k·SAMPLE_S and (k+1)·SAMPLE_S (as
    /// `mobility::Sampled` takes them: the next pair reuses the later one).
    #[cold]
    #[inline(never)]
    fn resample(&mut self, k: i64) {
        for (end, kind, node) in [
            (&mut self.a, self.kinds[0], self.from),
            (&mut self.b, self.kinds[1], self.to),
        ] {
            if kind == EndKind::Orbit {
                end.p0 = if k == self.k.wrapping_add(1) {
                    end.p1
                } else {
                    self.positions.position(node, k as f64 * SAMPLE_S)
                };
                end.p1 = self.positions.position(node, (k + 1) as f64 * SAMPLE_S);
            }
        }
        self.k = k;
    }

    /// One end's position at `t_s` (`x`, `k`: the sample coordinates of
    /// `t_s`): its place, its orbit interpolated between the samples held,
    /// or its track's exact position — the positions of
    /// `Positions::position_sampled`, bit for bit.
    #[inline(always)]
    fn at(&self, which: usize, t_s: f64, x: f64) -> Vec3 {
        let e = if which == 0 { &self.a } else { &self.b };
        match self.kinds[which] {
            EndKind::Fixed => e.p0,
            EndKind::Orbit => e.p0.lerp(e.p1, x - self.k as f64),
            EndKind::Track => self
                .positions
                .position(if which == 0 { self.from } else { self.to }, t_s),
        }
    }

    #[inline]
    fn ends(&mut self, t: Time) -> (Vec3, Vec3) {
        let s = t.as_secs_f64();
        let x = s / SAMPLE_S;
        let k = floor_i64(x);
        if k != self.k && (self.kinds[0] == EndKind::Orbit || self.kinds[1] == EndKind::Orbit) {
            self.resample(k);
        }
        (self.at(0, s, x), self.at(1, s, x))
    }

    /// The propagation delay of a packet whose last bit leaves at `t`.
    #[inline]
    pub fn delay_at(&mut self, t: Time) -> Dur {
        let (a, b) = self.ends(t);
        delay_of(a.distance(b))
    }

    /// Whether the direction is up at `t`.
    #[inline]
    pub fn up_at(&mut self, t: Time) -> bool {
        match self.vis {
            VisKind::Always => true,
            VisKind::MinElevation(observer_is_from) => {
                let (a, b) = self.ends(t);
                let (obs, target, e) = if observer_is_from {
                    (a, b, &self.a)
                } else {
                    (b, a, &self.b)
                };
                let kind = self.kinds[usize::from(!observer_is_from)];
                let up = if kind == EndKind::Fixed {
                    e.p1
                } else {
                    up_of(obs)
                };
                Visibility::sees_up(self.vis_param, up, obs, target)
            }
            VisKind::MaxRange => {
                let (a, b) = self.ends(t);
                a.distance(b) <= self.vis_param
            }
        }
    }

    /// When a transmission wanting to start at `start` may start: `start`
    /// itself when up; when down, `None` (dropped) or, holding, the first
    /// instant it is up again within the horizon (found on a 100 ms grid,
    /// then to the microsecond by bisection).
    pub fn start_at(&mut self, start: Time) -> Option<Time> {
        if start < self.up_until {
            return Some(start);
        }
        if self.up_at(start) {
            self.show_up(start);
            return Some(start);
        }
        if self.when_down == WhenDown::Drop {
            return None;
        }
        let step = Dur::from_millis(100);
        let horizon = start + Dur::from_secs_f64(HOLD_HORIZON_S);
        let mut lo = start;
        let mut hi = start + step;
        while !self.up_at(hi) {
            if hi >= horizon {
                return None;
            }
            lo = hi;
            hi += step;
        }
        while hi.since(lo) > Dur(1_000) {
            let mid = Time(lo.0 + (hi.0 - lo.0) / 2);
            if self.up_at(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Some(hi)
    }

    /// The direction is up at `start` (its samples are those of `start`'s
    /// interval): if it is up over the whole of that sample interval with a
    /// margin, transmissions starting later in it skip the test (start
    /// times on a direction never go back). Over one interval both ends
    /// move on straight lines (interpolated samples), so their difference
    /// `d` is affine in time; the elevation test `d·up − |d|·sin(min)`
    /// (a ground observer: `up` fixed; a mask at or above the horizon) and
    /// the range test `r − |d|` are concave in `d`, so each is at least its
    /// smaller value at the interval's two samples. A metre of margin there
    /// covers the rounding of the interpolation, many orders over. Ends
    /// following a track, or an observer that moves, are always tested.
    #[inline(never)]
    fn show_up(&mut self, start: Time) {
        const MARGIN_M: f64 = 1.0;
        const SAMPLE_NS: u64 = 100_000_000;
        const _: () = assert!(SAMPLE_S == 0.1);
        let [ka, kb] = self.kinds;
        if ka == EndKind::Track || kb == EndKind::Track || !(0..1 << 31).contains(&self.k) {
            return;
        }
        // The two ends at the interval's samples (a fixed end's place is p0).
        let at = |e: &End, kind: EndKind, i: usize| {
            if i == 1 && kind == EndKind::Orbit {
                e.p1
            } else {
                e.p0
            }
        };
        let shown = (0..2).all(|i| {
            let (a, b) = (at(&self.a, ka, i), at(&self.b, kb, i));
            match self.vis {
                VisKind::Always => true,
                VisKind::MinElevation(observer_is_from) => {
                    let (obs, target, kind, e) = if observer_is_from {
                        (a, b, ka, &self.a)
                    } else {
                        (b, a, kb, &self.b)
                    };
                    let d = target.minus(obs);
                    kind == EndKind::Fixed
                        && self.vis_param >= 0.0
                        && d.dot(e.p1) - d.norm() * self.vis_param >= MARGIN_M
                }
                VisKind::MaxRange => self.vis_param - a.distance(b) >= MARGIN_M,
            }
        });
        // Up to a microsecond before the interval's end (where the sample
        // index taken from the time in seconds still reads k).
        let until = Time((self.k as u64 + 1) * SAMPLE_NS - 1_000);
        if shown && start < until {
            self.up_until = until;
        }
    }

    /// The arrival of a packet whose last bit leaves at `end`, or `None`
    /// when it is lost because the direction went down in flight.
    #[inline]
    pub fn arrival(&mut self, end: Time) -> Option<Time> {
        let d = self.delay_at(end);
        let at = (end + d).max(self.last_arrival);
        if self.lose_in_flight && !self.up_at(at) {
            return None;
        }
        self.last_arrival = at;
        Some(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kuiper-630's satellites at the J2000 epoch (the tests' orbits).
    fn kuiper_orbiters() -> Vec<crate::mobility::Orbiter> {
        crate::mobility::preset("kuiper-630")
            .unwrap()
            .shell
            .orbiters(crate::mobility::Epoch::Y2000)
            .unwrap()
    }

    #[test]
    fn the_inline_delay_is_geos_bit_for_bit() {
        // Ranges from a metre to beyond GEO, drawn at random, and ranges
        // whose delay lies at, just below and just above a half nanosecond
        // (the rounding's ties and its neighbours).
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut ranges = vec![0.0, 0.1, 0.15, 0.3, 1e-9, 4e8];
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ranges.push((x >> 11) as f64 / (1u64 << 53) as f64 * 1e8);
        }
        for k in [1u64, 2, 3, 1_000, 123_456, 2_000_001, 99_999_999] {
            let r = (k as f64 + 0.5) * 1e-9 * SPEED_OF_LIGHT_M_PER_S;
            ranges.extend([
                r,
                f64::from_bits(r.to_bits() - 1),
                f64::from_bits(r.to_bits() + 1),
            ]);
        }
        for r in ranges {
            assert_eq!(delay_of(r), crate::geo::delay_of(r), "{r} m");
        }
    }

    #[test]
    fn a_directions_positions_are_the_sampled_ones_bit_for_bit() {
        // Ends fixed, on an orbit and on a track, read at times that stay
        // within a sample, step to the next one, jump ahead and go back:
        // the delay equals the one from Positions::position_sampled (each
        // orbit with its own Sampled cache, fixed places and tracks exact).
        use crate::geo::{geodetic_to_ecef, Track, Waypoint};
        use crate::mobility::Sampled;
        let orb = kuiper_orbiters();
        let wp = |at_s, lat_deg, lon_deg, alt_m| Waypoint {
            lat_deg,
            lon_deg,
            alt_m,
            at_s,
        };
        let track = Track::timed(
            vec![wp(0.0, 10.0, 20.0, 1000.0), wp(3600.0, 12.0, 25.0, 2000.0)],
            false,
        )
        .unwrap();
        let pos = Arc::new(Positions {
            nodes: vec![
                Some(NodeMotion::Fixed(geodetic_to_ecef(45.0, 7.0, 0.0))),
                Some(NodeMotion::Orbit(orb[17].clone())),
                Some(NodeMotion::Orbit(orb[18].clone())),
                Some(NodeMotion::Track(track)),
            ],
        });
        let times = [
            0.0, 0.03, 0.0999, 0.1, 0.1000001, 0.25, 0.31, 7.77, 7.8, 2.0, 2.05, 1e4,
        ];
        for (from, to) in [(0, 1), (1, 0), (1, 2), (2, 3), (3, 0), (0, 3)] {
            let mut m = DirMotion::new(
                pos.clone(),
                from,
                to,
                Visibility::Always,
                WhenDown::Drop,
                false,
            );
            let (mut ca, mut cb) = (Sampled::default(), Sampled::default());
            for &t in &times {
                let at = Time((t * 1e9) as u64);
                let s = at.as_secs_f64();
                let a = pos.position_sampled(from, s, &mut ca);
                let b = pos.position_sampled(to, s, &mut cb);
                assert_eq!(
                    m.delay_at(at),
                    delay_of(a.distance(b)),
                    "{from}>{to} at {t}"
                );
                for observer_is_from in [true, false] {
                    let vis = Visibility::MinElevation {
                        observer_is_from,
                        min_deg: 25.0,
                    };
                    let mut v = DirMotion::new(pos.clone(), from, to, vis, WhenDown::Drop, false);
                    let (obs, target) = if observer_is_from { (a, b) } else { (b, a) };
                    let sees = Visibility::sees(25.0, obs, target);
                    assert_eq!(v.up_at(at), sees, "{from}>{to} at {t}");
                    let mut r = DirMotion::new(
                        pos.clone(),
                        from,
                        to,
                        Visibility::MaxRange(1.5e6),
                        WhenDown::Drop,
                        false,
                    );
                    assert_eq!(r.up_at(at), a.distance(b) <= 1.5e6, "{from}>{to} at {t}");
                }
            }
        }
    }

    #[test]
    fn a_sample_interval_shown_up_answers_as_the_test_would() {
        // A ground station under a Kuiper satellite at t = 0: the pass
        // ends within minutes. Every 2 997 µs for 20 min, a transmission's
        // start is answered by `start_at` (which skips the test inside an
        // interval shown up) and by the test itself on fresh samples:
        // elevation masks of 30° and 0° seen from the ground, the same
        // from the satellite (a mask below its horizon; never shown: its up
        // moves), and a range rule.
        use crate::geo::Vec3;
        use crate::mobility::Sampled;
        let orb = kuiper_orbiters();
        let sat = NodeMotion::Orbit(orb[17].clone());
        let under = sat
            .position(0.0)
            .scale(6_371_000.0 / sat.position(0.0).norm());
        let pos = Arc::new(Positions {
            nodes: vec![Some(NodeMotion::Fixed(under)), Some(sat)],
        });
        let sees = |vis: Visibility, g: Vec3, s: Vec3| match vis {
            Visibility::MinElevation {
                observer_is_from: true,
                min_deg,
            } => Visibility::sees(min_deg, g, s),
            Visibility::MinElevation { min_deg, .. } => Visibility::sees(min_deg, s, g),
            Visibility::MaxRange(r) => g.distance(s) <= r,
            Visibility::Always => true,
        };
        let el = |observer_is_from, min_deg| Visibility::MinElevation {
            observer_is_from,
            min_deg,
        };
        for (vis, shown_somewhere) in [
            (el(true, 30.0), true),
            (el(true, 0.0), true),
            (el(false, -70.0), false),
            (Visibility::MaxRange(1.2e6), true),
        ] {
            let mut m = DirMotion::new(pos.clone(), 0, 1, vis, WhenDown::Drop, false);
            let (mut cg, mut cs) = (Sampled::default(), Sampled::default());
            let (mut ups, mut downs, mut shown) = (0, 0, 0);
            let mut last_shown = Time::ZERO;
            for i in 0..400_400u64 {
                let t = Time(i * 2_997_000);
                let s = t.as_secs_f64();
                let g = pos.position_sampled(0, s, &mut cg);
                let sat = pos.position_sampled(1, s, &mut cs);
                let want = sees(vis, g, sat);
                assert_eq!(m.start_at(t).is_some(), want, "{vis:?} at {t}");
                if want {
                    ups += 1
                } else {
                    downs += 1
                }
                if m.up_until != last_shown {
                    last_shown = m.up_until;
                    shown += 1;
                }
            }
            assert!(
                ups > 1000 && downs > 1000,
                "{vis:?}: {ups} up, {downs} down"
            );
            assert_eq!(
                shown > 100,
                shown_somewhere,
                "{vis:?}: {shown} intervals shown"
            );
        }
    }
}
