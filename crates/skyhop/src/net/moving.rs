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
use crate::geo::{delay_of, Vec3};
use crate::mobility::{Positions, Sampled};
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
        let d = target.minus(obs);
        let up = obs.scale(1.0 / obs.norm());
        d.dot(up) >= d.norm() * min_deg.to_radians().sin()
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

/// The moving part of one FIFO direction.
pub struct DirMotion {
    pub positions: Arc<Positions>,
    pub from: u32,
    pub to: u32,
    pub visibility: Visibility,
    pub when_down: WhenDown,
    pub lose_in_flight: bool,
    cache: [Sampled; 2],
    last_arrival: Time,
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
        DirMotion {
            positions,
            from,
            to,
            visibility,
            when_down,
            lose_in_flight,
            cache: [Sampled::default(); 2],
            last_arrival: Time::ZERO,
        }
    }

    #[inline]
    fn ends(&mut self, t: Time) -> (Vec3, Vec3) {
        let s = t.as_secs_f64();
        let [ca, cb] = &mut self.cache;
        (
            self.positions.position_sampled(self.from, s, ca),
            self.positions.position_sampled(self.to, s, cb),
        )
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
        if self.visibility == Visibility::Always {
            return true;
        }
        let (a, b) = self.ends(t);
        self.visibility.up(a, b)
    }

    /// When a transmission wanting to start at `start` may start: `start`
    /// itself when up; when down, `None` (dropped) or, holding, the first
    /// instant it is up again within the horizon (found on a 100 ms grid,
    /// then to the microsecond by bisection).
    pub fn start_at(&mut self, start: Time) -> Option<Time> {
        if self.up_at(start) {
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
