//! Motion along waypoints: great-circle legs on the spherical Earth, each
//! flown at constant ground speed (the angle swept grows linearly with
//! time), altitude changing linearly along the leg. An aircraft's flight, a
//! HAPS's station-keeping pattern (repeated), a train.
//!
//! Times are seconds from the start of the run. Before the first waypoint
//! the node waits there; after the last it stays there, unless the track
//! repeats: then the last waypoint must be the first again, and the pattern
//! starts over every `t_last − t_first` seconds.
//!
//! Speed, where a track is given one, is ground speed: distance along the
//! great circle on the Earth's surface (radius R_e) per second.

use super::frame::{geodetic_to_ecef, Vec3};
use super::geo_sat::EARTH_RADIUS_M;

/// A point of a track: where the node is at `at_s` seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waypoint {
    pub lat_deg: f64,
    pub lon_deg: f64,
    pub alt_m: f64,
    pub at_s: f64,
}

/// Why a track cannot be built: the waypoint (index) and a one-line message.
#[derive(Clone, Debug, PartialEq)]
pub struct TrackError {
    pub index: usize,
    pub message: String,
}

/// A node's motion along waypoints.
#[derive(Clone, Debug, PartialEq)]
pub struct Track {
    points: Vec<Waypoint>,
    /// Unit vectors of the waypoints (directions from the Earth's centre).
    units: Vec<Vec3>,
    /// Angle of each leg, radians.
    angles: Vec<f64>,
    repeat: bool,
}

fn unit(w: &Waypoint) -> Vec3 {
    geodetic_to_ecef(w.lat_deg, w.lon_deg, 0.0).scale(1.0 / EARTH_RADIUS_M)
}

fn angle_between(a: Vec3, b: Vec3) -> f64 {
    a.cross(b).norm().atan2(a.dot(b))
}

fn err(index: usize, message: String) -> TrackError {
    TrackError { index, message }
}

impl Track {
    /// A track through waypoints with their times (strictly increasing).
    pub fn timed(points: Vec<Waypoint>, repeat: bool) -> Result<Track, TrackError> {
        if points.is_empty() {
            return Err(err(0, "a route needs at least one waypoint".into()));
        }
        for (i, w) in points.iter().enumerate() {
            if !(w.lat_deg.is_finite() && (-90.0..=90.0).contains(&w.lat_deg)) {
                return Err(err(i, format!("lat {} is not within [-90, 90]", w.lat_deg)));
            }
            if !w.lon_deg.is_finite() {
                return Err(err(i, format!("lon {} is not an angle", w.lon_deg)));
            }
            if !(w.alt_m.is_finite() && w.alt_m >= 0.0) {
                return Err(err(
                    i,
                    format!("altitude {} m is below the ground", w.alt_m),
                ));
            }
            if !w.at_s.is_finite() || w.at_s < 0.0 {
                return Err(err(
                    i,
                    format!("time {} s is not a time of the run", w.at_s),
                ));
            }
            if i > 0 && w.at_s <= points[i - 1].at_s {
                return Err(err(
                    i,
                    format!(
                        "waypoints out of order: {} s is not after the previous waypoint's {} s",
                        w.at_s,
                        points[i - 1].at_s
                    ),
                ));
            }
        }
        let units: Vec<Vec3> = points.iter().map(unit).collect();
        let mut angles = Vec::with_capacity(points.len().saturating_sub(1));
        for i in 1..points.len() {
            let a = angle_between(units[i - 1], units[i]);
            if std::f64::consts::PI - a < 1e-9 {
                return Err(err(
                    i,
                    "antipodal to the previous waypoint: the great circle between them is not unique"
                        .into(),
                ));
            }
            angles.push(a);
        }
        if repeat {
            let (f, l) = (points[0], points[points.len() - 1]);
            if points.len() < 2
                || angle_between(units[0], units[points.len() - 1]) > 1e-12
                || (f.alt_m - l.alt_m).abs() > 1e-9
            {
                return Err(err(
                    points.len() - 1,
                    "a repeated route must end where it starts (the last waypoint equal to the first)"
                        .into(),
                ));
            }
        }
        Ok(Track {
            points,
            units,
            angles,
            repeat,
        })
    }

    /// A track through waypoints (their `at_s` ignored) flown at
    /// `speed_mps` ground speed, leaving the first at `start_s`.
    pub fn with_speed(
        mut points: Vec<Waypoint>,
        speed_mps: f64,
        start_s: f64,
        repeat: bool,
    ) -> Result<Track, TrackError> {
        if !(speed_mps.is_finite() && speed_mps > 0.0) {
            return Err(err(0, format!("speed {speed_mps} m/s must be positive")));
        }
        let mut t = start_s;
        for i in 0..points.len() {
            if i > 0 {
                let a = angle_between(unit(&points[i - 1]), unit(&points[i]));
                let d = a * EARTH_RADIUS_M;
                if d <= 0.0 {
                    return Err(err(i, "the same place as the previous waypoint".into()));
                }
                t += d / speed_mps;
            }
            points[i].at_s = t;
        }
        Track::timed(points, repeat)
    }

    pub fn waypoints(&self) -> &[Waypoint] {
        &self.points
    }

    /// Time of the first and last waypoint, seconds.
    pub fn span_s(&self) -> (f64, f64) {
        (self.points[0].at_s, self.points[self.points.len() - 1].at_s)
    }

    /// Latitude, longitude (degrees) and altitude (m) at `t_s`.
    pub fn at(&self, t_s: f64) -> (f64, f64, f64) {
        let (u, alt) = self.unit_at(t_s);
        (
            u.z.clamp(-1.0, 1.0).asin().to_degrees(),
            u.y.atan2(u.x).to_degrees(),
            alt,
        )
    }

    /// Earth-fixed position at `t_s`.
    pub fn position(&self, t_s: f64) -> Vec3 {
        let (u, alt) = self.unit_at(t_s);
        u.scale(EARTH_RADIUS_M + alt)
    }

    fn unit_at(&self, t_s: f64) -> (Vec3, f64) {
        let (first, last) = self.span_s();
        let mut t = t_s;
        if self.repeat && t > last {
            t = first + (t - first).rem_euclid(last - first);
        }
        let n = self.points.len();
        if t <= first || n == 1 {
            return (self.units[0], self.points[0].alt_m);
        }
        if t >= last {
            return (self.units[n - 1], self.points[n - 1].alt_m);
        }
        // The leg [i, i+1] holding t.
        let i = self.points.partition_point(|w| w.at_s <= t) - 1;
        let (a, b) = (&self.points[i], &self.points[i + 1]);
        let f = (t - a.at_s) / (b.at_s - a.at_s);
        let omega = self.angles[i];
        let u = if omega < 1e-15 {
            self.units[i]
        } else {
            let s = omega.sin();
            self.units[i]
                .scale(((1.0 - f) * omega).sin() / s)
                .plus(self.units[i + 1].scale((f * omega).sin() / s))
        };
        (u, a.alt_m + f * (b.alt_m - a.alt_m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wp(lat: f64, lon: f64, alt: f64, at: f64) -> Waypoint {
        Waypoint {
            lat_deg: lat,
            lon_deg: lon,
            alt_m: alt,
            at_s: at,
        }
    }

    #[test]
    fn along_the_equator_the_longitude_grows_linearly_with_time() {
        let t = Track::timed(
            vec![wp(0.0, 0.0, 10e3, 0.0), wp(0.0, 10.0, 10e3, 100.0)],
            false,
        )
        .unwrap();
        let (lat, lon, alt) = t.at(25.0);
        assert!(lat.abs() < 1e-12 && (lon - 2.5).abs() < 1e-12 && alt == 10e3);
        assert_eq!(t.at(-5.0), t.at(0.0));
        assert!((t.at(1e6).1 - 10.0).abs() < 1e-12);
    }

    #[test]
    fn a_speed_sets_the_times_from_the_great_circle_distance() {
        // A quarter of a meridian at 250 m/s.
        let t = Track::with_speed(
            vec![wp(0.0, 0.0, 0.0, 0.0), wp(90.0, 0.0, 0.0, 0.0)],
            250.0,
            10.0,
            false,
        )
        .unwrap();
        let quarter = std::f64::consts::FRAC_PI_2 * EARTH_RADIUS_M;
        assert!((t.span_s().1 - (10.0 + quarter / 250.0)).abs() < 1e-6);
        // Half way in time is 45° north.
        let mid = 10.0 + quarter / 500.0;
        assert!((t.at(mid).0 - 45.0).abs() < 1e-9);
    }

    #[test]
    fn a_repeated_pattern_starts_over() {
        let pts = vec![
            wp(10.0, 10.0, 20e3, 0.0),
            wp(10.0, 10.1, 20e3, 60.0),
            wp(10.0, 10.0, 20e3, 120.0),
        ];
        let t = Track::timed(pts.clone(), true).unwrap();
        let a = t.position(30.0);
        let b = t.position(150.0);
        assert!(a.distance(b) < 1e-6);
        let open = vec![pts[0], pts[1]];
        assert!(Track::timed(open, true).is_err());
    }

    #[test]
    fn waypoints_out_of_order_are_refused_with_their_index() {
        let e =
            Track::timed(vec![wp(0.0, 0.0, 0.0, 10.0), wp(0.0, 1.0, 0.0, 5.0)], false).unwrap_err();
        assert_eq!(e.index, 1);
        assert!(e.message.contains("out of order"), "{}", e.message);
        assert!(Track::timed(vec![wp(95.0, 0.0, 0.0, 0.0)], false).is_err());
        assert!(Track::timed(
            vec![wp(0.0, 0.0, 0.0, 0.0), wp(0.0, 180.0, 0.0, 1.0)],
            false
        )
        .is_err());
    }
}
