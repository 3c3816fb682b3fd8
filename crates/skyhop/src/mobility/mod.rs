//! Where every node is at every instant: fixed places, waypoint tracks
//! (`geo::Track`), and satellites on orbits (`orbit.rs`: SGP4 through the
//! `sgp4` crate; `shell.rs`: Walker-delta shells, presets, the +Grid of
//! inter-satellite links; `tle.rs`: TLE files).
//!
//! All positions are in the Earth-fixed frame of `geo` (spherical Earth of
//! radius 6 378.137 km). [`Positions`] is immutable and shared (links, the
//! routing state and channel models read it); [`Sampled`] is a per-user
//! cache that interpolates an orbit between SGP4 positions taken every
//! [`SAMPLE_S`] seconds: a satellite's deviation from the chord over 0.1 s
//! is a·Δt²/8 ≈ 1 cm at LEO (a ≈ 8.4 m/s²), 0.03 ns of delay.

pub mod cities;
pub mod ground;
pub mod orbit;
pub mod shell;
pub mod tle;

pub use orbit::{Epoch, Orbiter};
pub use shell::{preset, presets, Phasing, Preset, Shell, MIN_ALTITUDE_KM};

use crate::geo::{ecef_to_geodetic, look_angles, LookAngles, Track, Vec3};

/// Interval of the orbit samples that [`Sampled`] interpolates between, seconds.
pub const SAMPLE_S: f64 = 0.1;

/// How one node moves (held once per node: the size difference between
/// variants costs nothing).
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub enum NodeMotion {
    /// Always at this place.
    Fixed(Vec3),
    /// Along waypoints.
    Track(Track),
    /// On an orbit.
    Orbit(Orbiter),
}

impl NodeMotion {
    #[inline]
    pub fn position(&self, t_s: f64) -> Vec3 {
        match self {
            NodeMotion::Fixed(p) => *p,
            NodeMotion::Track(tr) => tr.position(t_s),
            NodeMotion::Orbit(o) => o.position(t_s),
        }
    }
}

/// The motion of every node, by node index (`None`: a node without a place).
#[derive(Clone, Debug, Default)]
pub struct Positions {
    pub nodes: Vec<Option<NodeMotion>>,
}

/// A cache of one orbit's samples at k·SAMPLE_S and (k+1)·SAMPLE_S.
#[derive(Clone, Copy, Debug)]
pub struct Sampled {
    k: i64,
    p0: Vec3,
    p1: Vec3,
}

impl Default for Sampled {
    fn default() -> Self {
        Sampled {
            k: i64::MIN,
            p0: Vec3::default(),
            p1: Vec3::default(),
        }
    }
}

/// `x.floor() as i64` without the library call, for the sample index of a
/// time (finite, far below 2⁶³): truncation, one down for a negative
/// fraction.
#[inline(always)]
pub(crate) fn floor_i64(x: f64) -> i64 {
    let k = x as i64;
    if (k as f64) > x {
        k - 1
    } else {
        k
    }
}

impl Positions {
    pub fn has_place(&self, node: u32) -> bool {
        matches!(self.nodes.get(node as usize), Some(Some(_)))
    }

    /// The same nodes with every orbit advanced by `by_s` seconds (the
    /// run's t = 0 that much later along the orbits; fixed places and
    /// tracks unchanged): a constellation's random start
    /// (`constellation.start_spread`).
    pub fn orbits_shifted(&self, by_s: f64) -> Positions {
        Positions {
            nodes: self
                .nodes
                .iter()
                .map(|m| match m {
                    Some(NodeMotion::Orbit(o)) => Some(NodeMotion::Orbit(o.shifted(by_s))),
                    m => m.clone(),
                })
                .collect(),
        }
    }

    /// Whether the node moves.
    pub fn moves(&self, node: u32) -> bool {
        matches!(
            self.nodes.get(node as usize),
            Some(Some(NodeMotion::Track(_) | NodeMotion::Orbit(_)))
        )
    }

    /// Exact position of `node` at `t_s` (panics for a node without a place).
    #[inline]
    pub fn position(&self, node: u32, t_s: f64) -> Vec3 {
        self.nodes[node as usize]
            .as_ref()
            .expect("a node with a place")
            .position(t_s)
    }

    /// Position of `node` at `t_s`: exact for fixed places and tracks; for
    /// an orbit, interpolated between SGP4 samples held in `cache`.
    #[inline]
    pub fn position_sampled(&self, node: u32, t_s: f64, cache: &mut Sampled) -> Vec3 {
        match self.nodes[node as usize]
            .as_ref()
            .expect("a node with a place")
        {
            NodeMotion::Orbit(o) => {
                let x = t_s / SAMPLE_S;
                let k = floor_i64(x);
                if k != cache.k {
                    if k == cache.k + 1 {
                        cache.p0 = cache.p1;
                    } else {
                        cache.p0 = o.position(k as f64 * SAMPLE_S);
                    }
                    cache.p1 = o.position((k + 1) as f64 * SAMPLE_S);
                    cache.k = k;
                }
                cache.p0.lerp(cache.p1, x - k as f64)
            }
            m => m.position(t_s),
        }
    }

    /// Latitude, longitude, altitude of `node` at `t_s`.
    pub fn geodetic(&self, node: u32, t_s: f64) -> (f64, f64, f64) {
        ecef_to_geodetic(self.position(node, t_s))
    }

    /// What `from` sees of `to` at `t_s`.
    pub fn look(&self, from: u32, to: u32, t_s: f64) -> LookAngles {
        let (lat, lon, alt) = self.geodetic(from, t_s);
        look_angles(lat, lon, alt, self.position(to, t_s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampled_orbit_positions_stay_within_a_centimetre_of_sgp4() {
        // Between two samples Δt = 0.1 s apart the interpolated point lies
        // on the chord; at a fraction f of the interval it is off the orbit
        // by a·f(1 − f)·Δt²/2 (to second order), a the satellite's
        // acceleration in the Earth-fixed frame (here from SGP4's own
        // positions by a central second difference: about 7.7 m/s² at
        // 550 km, gravity's 8.3 less the frame's rotation terms). At
        // mid-interval that is a·Δt²/8 = 0.96 cm.
        let sh = preset("starlink-550").unwrap().shell;
        let orb = sh.orbiters(Epoch::Y2000).unwrap();
        let pos = Positions {
            nodes: vec![Some(NodeMotion::Orbit(orb[5].clone()))],
        };
        let mut c = Sampled::default();
        let mut worst: f64 = 0.0;
        let mut sagitta: f64 = 0.0;
        for i in 0..500 {
            let t = 3.0 + i as f64 * 0.0137;
            let d = pos
                .position_sampled(0, t, &mut c)
                .distance(pos.position(0, t));
            let h = 1e-3;
            let (before, after) = (pos.position(0, t - h), pos.position(0, t + h));
            let twice = pos.position(0, t).scale(2.0);
            let acc = before.plus(after).minus(twice).norm() / (h * h);
            assert!((7.0..8.5).contains(&acc), "{t}: {acc} m/s²");
            let f = t / SAMPLE_S - (t / SAMPLE_S).floor();
            let want = acc * f * (1.0 - f) * SAMPLE_S * SAMPLE_S / 2.0;
            assert!(
                (d - want).abs() <= 3e-3 * want + 1e-6,
                "{t}: {d} m off, the chord's {want} m"
            );
            worst = worst.max(d);
            sagitta = sagitta.max(acc * SAMPLE_S * SAMPLE_S / 8.0);
        }
        assert!(worst < 0.01, "{worst} m");
        // Some samples fall near mid-interval: the bound is reached.
        assert!(worst > 0.98 * sagitta, "{worst} m of {sagitta}");
    }

    #[test]
    fn the_sample_index_is_the_floor() {
        for x in [0.0, 0.3, 1.0, 1.5, 2.999, 3.0, 1e6 + 0.25, -0.5, -1.0, -2.5] {
            assert_eq!(floor_i64(x), x.floor() as i64, "{x}");
        }
    }
}
