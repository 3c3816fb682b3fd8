//! Constellation shells: Walker-delta patterns turned into SGP4 elements,
//! presets for the standard first shells, and the +Grid of inter-satellite
//! links.
//!
//! A shell of P planes × S satellites at altitude h and inclination i:
//! plane p has right ascension 360°·p/P, satellite s of it mean anomaly
//! 360°·s/S plus the plane's phase offset: Walker-delta phasing F gives
//! 360°·F·p/(P·S); "half-offset" shifts the odd planes by half a slot, as
//! Hypatia's generator does (S. Kassing et al., "Exploring the 'Internet
//! from space' with Hypatia", IMC 2020). Orbits are circular (eccentricity
//! 1e-7, as there), argument of perigee 0, no drag; the mean motion is
//! Kepler's for a = R_e + h with the WGS-72 constants SGP4 uses, given to
//! SGP4 as a TLE's (Kozai) mean motion. Satellite k = p·S + s.

use super::orbit::{Epoch, Orbiter};

/// WGS-72 Earth radius (km) and gravitational parameter (km³/s²).
const WGS72_RADIUS_KM: f64 = 6378.135;
const WGS72_MU: f64 = 398_600.8;

/// Lowest orbit accepted, km.
pub const MIN_ALTITUDE_KM: f64 = 100.0;

/// How planes are shifted against each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phasing {
    /// Walker-delta phasing factor F (0 ≤ F < P).
    Walker(u32),
    /// Odd planes shifted by half a slot (Hypatia's shells).
    HalfOffset,
}

/// A Walker-delta shell.
#[derive(Clone, Debug, PartialEq)]
pub struct Shell {
    pub planes: u32,
    pub per_plane: u32,
    pub altitude_km: f64,
    pub inclination_deg: f64,
    pub phasing: Phasing,
}

/// A named standard shell and the minimum elevation its ground links use.
pub struct Preset {
    pub name: &'static str,
    pub shell: Shell,
    pub min_elevation_deg: f64,
}

/// The standard first shells (filings as Hypatia models them: Starlink
/// 72 × 22 at 550 km, 53°; Kuiper 34 × 34 at 630 km, 51.9°; Telesat
/// 27 × 13 at 1 015 km, 98.98°), half-offset phasing.
pub fn presets() -> [Preset; 3] {
    let s = |planes, per_plane, altitude_km, inclination_deg| Shell {
        planes,
        per_plane,
        altitude_km,
        inclination_deg,
        phasing: Phasing::HalfOffset,
    };
    [
        Preset {
            name: "starlink-550",
            shell: s(72, 22, 550.0, 53.0),
            min_elevation_deg: 25.0,
        },
        Preset {
            name: "kuiper-630",
            shell: s(34, 34, 630.0, 51.9),
            min_elevation_deg: 30.0,
        },
        Preset {
            name: "telesat-1015",
            shell: s(27, 13, 1015.0, 98.98),
            min_elevation_deg: 10.0,
        },
    ]
}

/// The preset called `name`.
pub fn preset(name: &str) -> Option<Preset> {
    presets().into_iter().find(|p| p.name == name)
}

impl Shell {
    pub fn satellites(&self) -> usize {
        self.planes as usize * self.per_plane as usize
    }

    /// Check the parameters: (field, message).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.altitude_km.is_finite() && self.altitude_km >= MIN_ALTITUDE_KM) {
            return Err((
                "altitude",
                format!(
                    "{} km is below {MIN_ALTITUDE_KM} km: no orbit lasts there",
                    self.altitude_km
                ),
            ));
        }
        if !(self.inclination_deg.is_finite() && (0.0..=180.0).contains(&self.inclination_deg)) {
            return Err((
                "inclination",
                format!("{}° is not within [0, 180]", self.inclination_deg),
            ));
        }
        if self.planes == 0 {
            return Err(("planes", "must be at least 1".into()));
        }
        if self.per_plane == 0 {
            return Err(("per_plane", "must be at least 1".into()));
        }
        if let Phasing::Walker(f) = self.phasing {
            if f >= self.planes {
                return Err((
                    "phasing",
                    format!(
                        "F = {f} must be below the number of planes ({})",
                        self.planes
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Mean motion for the altitude, revolutions per day.
    pub fn mean_motion_rev_per_day(&self) -> f64 {
        let a = WGS72_RADIUS_KM + self.altitude_km;
        (WGS72_MU / (a * a * a)).sqrt() * 86_400.0 / (2.0 * std::f64::consts::PI)
    }

    /// (right ascension, mean anomaly) of satellite `k`, degrees.
    pub fn slot(&self, k: usize) -> (f64, f64) {
        let (pl, sp) = (self.planes as usize, self.per_plane as usize);
        let (p, s) = (k / sp, k % sp);
        let raan = 360.0 * p as f64 / pl as f64;
        let offset = match self.phasing {
            Phasing::Walker(f) => 360.0 * f as f64 * p as f64 / (pl * sp) as f64,
            Phasing::HalfOffset if p % 2 == 1 => 360.0 / (2.0 * sp as f64),
            Phasing::HalfOffset => 0.0,
        };
        (
            raan,
            (offset + 360.0 * s as f64 / sp as f64).rem_euclid(360.0),
        )
    }

    /// SGP4 elements of every satellite, with epoch `epoch`.
    pub fn elements(&self, epoch: Epoch) -> Vec<sgp4::Elements> {
        let secs = epoch.0 * 365.25 * 86_400.0;
        let j2000 = sgp4::chrono::NaiveDate::from_ymd_opt(2000, 1, 1)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap();
        let datetime = j2000 + sgp4::chrono::Duration::nanoseconds((secs * 1e9).round() as i64);
        let n = self.mean_motion_rev_per_day();
        (0..self.satellites())
            .map(|k| {
                let (raan, ma) = self.slot(k);
                sgp4::Elements {
                    object_name: None,
                    international_designator: None,
                    norad_id: k as u64 + 1,
                    classification: sgp4::Classification::Unclassified,
                    datetime,
                    mean_motion_dot: 0.0,
                    mean_motion_ddot: 0.0,
                    drag_term: 0.0,
                    element_set_number: 0,
                    inclination: self.inclination_deg,
                    right_ascension: raan,
                    eccentricity: 1e-7,
                    argument_of_perigee: 0.0,
                    mean_anomaly: ma,
                    mean_motion: n,
                    revolution_number: 0,
                    ephemeris_type: 0,
                }
            })
            .collect()
    }

    /// Propagators of every satellite, for a run starting at `start`
    /// (the elements' epoch is the run's start).
    pub fn orbiters(&self, start: Epoch) -> Result<Vec<Orbiter>, String> {
        self.elements(start)
            .iter()
            .map(|e| Orbiter::new(e, start))
            .collect()
    }

    /// The +Grid: each satellite linked to the next in its plane and to the
    /// same slot (shifted by `shift`) in the next plane, planes wrapping
    /// around; each pair once, lower index first, sorted.
    pub fn plus_grid(&self, shift: i64) -> Vec<(u32, u32)> {
        let (pl, sp) = (self.planes as i64, self.per_plane as i64);
        let mut out = Vec::with_capacity(2 * self.satellites());
        for p in 0..pl {
            for s in 0..sp {
                let k = p * sp + s;
                let mut add = |o: i64| {
                    if o != k {
                        out.push((k.min(o) as u32, k.max(o) as u32));
                    }
                };
                if sp > 1 {
                    add(p * sp + (s + 1) % sp);
                }
                if pl > 1 {
                    add(((p + 1) % pl) * sp + (s + shift).rem_euclid(sp));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_have_the_filed_sizes() {
        let sizes: Vec<usize> = presets().iter().map(|p| p.shell.satellites()).collect();
        assert_eq!(sizes, vec![1584, 1156, 351]);
        assert_eq!(preset("kuiper-630").unwrap().min_elevation_deg, 30.0);
        assert!(preset("iridium").is_none());
    }

    #[test]
    fn the_mean_motion_puts_the_satellites_at_the_shells_altitude() {
        let sh = preset("starlink-550").unwrap().shell;
        // Kepler: 550 km → about 15.05 revolutions a day.
        assert!((sh.mean_motion_rev_per_day() - 15.05).abs() < 0.01);
        let orb = sh.orbiters(Epoch::Y2000).unwrap();
        for o in orb.iter().step_by(97) {
            for t in [0.0, 1000.0] {
                let alt = o.teme(t).unwrap().norm() / 1e3 - WGS72_RADIUS_KM;
                // J2 makes the radius breathe by a few km around the mean.
                assert!((alt - 550.0).abs() < 15.0, "{alt}");
            }
        }
    }

    #[test]
    fn walker_and_half_offset_phasing_place_the_slots() {
        let mut sh = Shell {
            planes: 4,
            per_plane: 3,
            altitude_km: 700.0,
            inclination_deg: 60.0,
            phasing: Phasing::Walker(1),
        };
        assert_eq!(sh.slot(0), (0.0, 0.0));
        // Plane 1, slot 2: RAAN 90°, M = 240° + 360·1·1/12 = 270°.
        assert_eq!(sh.slot(5), (90.0, 270.0));
        sh.phasing = Phasing::HalfOffset;
        assert_eq!(sh.slot(5), (90.0, 300.0));
        assert_eq!(sh.slot(6), (180.0, 0.0));
    }

    #[test]
    fn the_plus_grid_gives_every_satellite_four_neighbours() {
        let sh = preset("kuiper-630").unwrap().shell;
        let g = sh.plus_grid(0);
        assert_eq!(g.len(), 2 * sh.satellites());
        let mut deg = vec![0; sh.satellites()];
        for &(a, b) in &g {
            deg[a as usize] += 1;
            deg[b as usize] += 1;
        }
        assert!(deg.iter().all(|&d| d == 4));
        assert!(g.contains(&(0, 1)) && g.contains(&(0, 34)) && g.contains(&(0, 33 * 34)));
    }

    #[test]
    fn orbits_below_100_km_and_bad_angles_are_refused() {
        let mut sh = preset("telesat-1015").unwrap().shell;
        sh.altitude_km = 80.0;
        let (k, m) = sh.validate().unwrap_err();
        assert_eq!(k, "altitude");
        assert!(m.contains("below 100 km"), "{m}");
        sh.altitude_km = 500.0;
        sh.inclination_deg = 200.0;
        assert_eq!(sh.validate().unwrap_err().0, "inclination");
    }
}
