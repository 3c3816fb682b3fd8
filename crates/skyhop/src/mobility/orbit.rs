//! A satellite on its orbit: SGP4 (the `sgp4` crate, with its WGS-72
//! constants as TLEs are defined) gives the position in the TEME frame; a
//! rotation by the Greenwich mean sidereal time (IAU 1982 expression, the
//! crate's `iau_epoch_to_sidereal_time`) takes it to the Earth-fixed frame
//! of `geo`. Polar motion and the equation of the equinoxes are neglected
//! (tens of metres, below 0.2 µs of delay).
//!
//! Time: the run's t = 0 is an instant in Julian years since J2000 (12:00
//! UTC on 1 January 2000), as the crate counts; each satellite propagates
//! from its own elements' epoch.

use crate::geo::Vec3;

/// Seconds in a Julian year (the crate's epoch unit).
const JULIAN_YEAR_S: f64 = 365.25 * 86_400.0;

/// An instant, in Julian years since J2000.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Epoch(pub f64);

impl Epoch {
    /// 00:00:00 UTC on 1 January 2000 (where generated shells start, as in
    /// Hypatia's Walker-delta TLEs).
    pub const Y2000: Epoch = Epoch(-0.5 / 365.25);

    /// Parse "YYYY-MM-DDTHH:MM:SS" with an optional fraction and "Z" (UTC).
    pub fn parse(s: &str) -> Result<Epoch, String> {
        let t = s.trim().trim_end_matches('Z');
        let dt = sgp4::chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f").map_err(
            |e| format!("{s:?} is not a UTC date and time like \"2024-06-01T12:00:00Z\" ({e})"),
        )?;
        Ok(Epoch(sgp4::julian_years_since_j2000(&dt)))
    }

    /// `t_s` seconds later.
    #[inline]
    pub fn plus_s(self, t_s: f64) -> Epoch {
        Epoch(self.0 + t_s / JULIAN_YEAR_S)
    }

    /// Seconds from `self` to `other`.
    pub fn seconds_to(self, other: Epoch) -> f64 {
        (other.0 - self.0) * JULIAN_YEAR_S
    }

    /// Greenwich mean sidereal time, radians.
    #[inline]
    pub fn gmst(self) -> f64 {
        sgp4::iau_epoch_to_sidereal_time(self.0)
    }
}

/// One satellite's propagator.
#[derive(Clone)]
pub struct Orbiter {
    constants: sgp4::Constants,
    /// Minutes from the elements' epoch to the run's t = 0.
    offset_min: f64,
    /// The run's t = 0.
    start: Epoch,
    /// The elements' epoch.
    elements_epoch: Epoch,
}

impl std::fmt::Debug for Orbiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Orbiter")
            .field("offset_min", &self.offset_min)
            .field("start", &self.start)
            .finish()
    }
}

impl Orbiter {
    /// From elements (a TLE's, or generated), for a run starting at `start`.
    pub fn new(elements: &sgp4::Elements, start: Epoch) -> Result<Orbiter, String> {
        let constants = sgp4::Constants::from_elements(elements).map_err(|e| e.to_string())?;
        let elements_epoch = Epoch(elements.epoch());
        Ok(Orbiter {
            constants,
            offset_min: elements_epoch.seconds_to(start) / 60.0,
            start,
            elements_epoch,
        })
    }

    /// The same orbit for a run whose t = 0 is `by_s` seconds later: at
    /// run time t it is where `self` is at t + `by_s` (bit for bit the
    /// orbiter [`Orbiter::new`] makes of the same elements with the start
    /// moved by `by_s`).
    pub fn shifted(&self, by_s: f64) -> Orbiter {
        let start = self.start.plus_s(by_s);
        Orbiter {
            constants: self.constants.clone(),
            offset_min: self.elements_epoch.seconds_to(start) / 60.0,
            start,
            elements_epoch: self.elements_epoch,
        }
    }

    /// Position in TEME at run time `t_s`, metres.
    pub fn teme(&self, t_s: f64) -> Result<Vec3, String> {
        let p = self
            .constants
            .propagate(sgp4::MinutesSinceEpoch(self.offset_min + t_s / 60.0))
            .map_err(|e| e.to_string())?;
        Ok(Vec3::new(
            p.position[0] * 1e3,
            p.position[1] * 1e3,
            p.position[2] * 1e3,
        ))
    }

    /// Earth-fixed position at run time `t_s`, metres (NaN coordinates if
    /// the propagator fails; checked when the run is built).
    #[inline]
    pub fn position(&self, t_s: f64) -> Vec3 {
        match self.teme(t_s) {
            Ok(p) => teme_to_ecef(p, self.start.plus_s(t_s)),
            Err(_) => Vec3::new(f64::NAN, f64::NAN, f64::NAN),
        }
    }
}

/// Rotate a TEME position into the Earth-fixed frame at `at`.
#[inline]
pub fn teme_to_ecef(p: Vec3, at: Epoch) -> Vec3 {
    let (s, c) = at.gmst().sin_cos();
    Vec3::new(c * p.x + s * p.y, -s * p.x + c * p.y, p.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epochs_parse_and_count_seconds() {
        let a = Epoch::parse("2000-01-01T00:00:00Z").unwrap();
        assert!((a.0 - Epoch::Y2000.0).abs() < 1e-15);
        let b = Epoch::parse("2000-01-02T00:00:00").unwrap();
        assert!((a.seconds_to(b) - 86_400.0).abs() < 1e-6);
        assert!(Epoch::parse("yesterday").is_err());
    }

    #[test]
    fn the_iss_tle_propagates_to_its_orbit_in_the_earth_fixed_frame() {
        let el = sgp4::Elements::from_tle(
            Some("ISS (ZARYA)".into()),
            b"1 25544U 98067A   20194.88612269 -.00002218  00000-0 -31515-4 0  9992",
            b"2 25544  51.6461 221.2784 0001413  89.1723 280.4612 15.49507896236008",
        )
        .unwrap();
        let o = Orbiter::new(&el, Epoch(el.epoch())).unwrap();
        for t in [0.0, 600.0, 3000.0] {
            let p = o.position(t);
            let alt = p.norm() - crate::geo::EARTH_RADIUS_M;
            assert!((380e3..450e3).contains(&alt), "{alt}");
            // The rotation keeps the radius and the z component.
            let q = o.teme(t).unwrap();
            assert!((p.norm() - q.norm()).abs() < 1e-6 && p.z == q.z);
        }
    }

    #[test]
    fn a_shifted_orbiter_is_the_orbit_with_its_start_moved() {
        let el = sgp4::Elements::from_tle(
            Some("ISS (ZARYA)".into()),
            b"1 25544U 98067A   20194.88612269 -.00002218  00000-0 -31515-4 0  9992",
            b"2 25544  51.6461 221.2784 0001413  89.1723 280.4612 15.49507896236008",
        )
        .unwrap();
        let start = Epoch(el.epoch()).plus_s(120.0);
        let o = Orbiter::new(&el, start).unwrap();
        for by in [0.0, 0.25, 1234.5678, 5400.0] {
            let s = o.shifted(by);
            let moved = Orbiter::new(&el, start.plus_s(by)).unwrap();
            for t in [0.0, 0.1, 17.0, 600.0] {
                // Bit for bit the orbiter of the moved start ...
                assert_eq!(s.position(t), moved.position(t), "{by} {t}");
                // ... and where the unshifted one is `by` later (to 2 mm:
                // instants are held in Julian years since J2000, whose
                // last bit in 2020 is 0.11 µs, 0.9 mm along the orbit).
                let d = s.position(t).distance(o.position(t + by));
                assert!(d < 2e-3, "{by} {t}: {d} m");
            }
        }
        // Not a no-op: 0.25 s is about 1.9 km along the orbit.
        let d = o.shifted(0.25).position(0.0).distance(o.position(0.0));
        assert!((1.5e3..2.5e3).contains(&d), "{d}");
    }
}
