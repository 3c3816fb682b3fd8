//! Earth-fixed Cartesian positions (metres, origin at the Earth's centre, z
//! towards the north pole, x through latitude 0°, longitude 0°) on the
//! spherical Earth of [`EARTH_RADIUS_M`], and what a node at a position
//! sees of another: range, elevation above its local horizon, azimuth
//! clockwise from north, and whether the Earth blocks the line of sight.
//!
//! A ground node at altitude 0 and a GEO at [`GEO_RADIUS_M`] on the equator
//! give the ranges of [`super::geo_link`] (the same sphere; the closed form
//! and this vector form agree to a few micrometres).

use super::geo_sat::{EARTH_RADIUS_M, SPEED_OF_LIGHT_M_PER_S};
use crate::engine::time::Dur;

/// A point or vector in the Earth-fixed frame, metres.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl Vec3 {
    pub const fn new(x: f64, y: f64, z: f64) -> Vec3 {
        Vec3 { x, y, z }
    }
    #[inline]
    pub fn minus(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
    #[inline]
    pub fn plus(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
    #[inline]
    pub fn scale(self, k: f64) -> Vec3 {
        Vec3::new(self.x * k, self.y * k, self.z * k)
    }
    #[inline]
    pub fn dot(self, o: Vec3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    #[inline]
    pub fn cross(self, o: Vec3) -> Vec3 {
        Vec3::new(
            self.y * o.z - self.z * o.y,
            self.z * o.x - self.x * o.z,
            self.x * o.y - self.y * o.x,
        )
    }
    #[inline]
    pub fn norm(self) -> f64 {
        self.dot(self).sqrt()
    }
    #[inline]
    pub fn distance(self, o: Vec3) -> f64 {
        self.minus(o).norm()
    }
    /// The point a fraction `f` of the way from `self` to `o`.
    #[inline]
    pub fn lerp(self, o: Vec3, f: f64) -> Vec3 {
        self.plus(o.minus(self).scale(f))
    }
}

/// The position of (`lat_deg`, `lon_deg`) at `alt_m` above the sphere.
pub fn geodetic_to_ecef(lat_deg: f64, lon_deg: f64, alt_m: f64) -> Vec3 {
    let (phi, lam) = (lat_deg.to_radians(), lon_deg.to_radians());
    let r = EARTH_RADIUS_M + alt_m;
    Vec3::new(
        r * phi.cos() * lam.cos(),
        r * phi.cos() * lam.sin(),
        r * phi.sin(),
    )
}

/// Latitude, longitude (degrees, longitude in (−180, 180]) and altitude
/// (metres above the sphere) of a position.
pub fn ecef_to_geodetic(p: Vec3) -> (f64, f64, f64) {
    let r = p.norm();
    let lat = (p.z / r).asin().to_degrees();
    let lon = p.y.atan2(p.x).to_degrees();
    (lat, lon, r - EARTH_RADIUS_M)
}

/// What an observer sees of a target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LookAngles {
    /// Straight-line distance, metres.
    pub range_m: f64,
    /// Angle above the observer's local horizon (the plane normal to its
    /// radius), degrees in [−90, 90].
    pub elevation_deg: f64,
    /// Degrees clockwise from true north, in [0, 360).
    pub azimuth_deg: f64,
}

/// The look angles from an observer at (`lat_deg`, `lon_deg`, `alt_m`) to `target`.
pub fn look_angles(lat_deg: f64, lon_deg: f64, alt_m: f64, target: Vec3) -> LookAngles {
    let obs = geodetic_to_ecef(lat_deg, lon_deg, alt_m);
    let d = target.minus(obs);
    let (phi, lam) = (lat_deg.to_radians(), lon_deg.to_radians());
    let (sp, cp, sl, cl) = (phi.sin(), phi.cos(), lam.sin(), lam.cos());
    let east = -sl * d.x + cl * d.y;
    let north = -sp * cl * d.x - sp * sl * d.y + cp * d.z;
    let up = cp * cl * d.x + cp * sl * d.y + sp * d.z;
    let range_m = (east * east + north * north + up * up).sqrt();
    LookAngles {
        range_m,
        elevation_deg: if range_m > 0.0 {
            (up / range_m).clamp(-1.0, 1.0).asin().to_degrees()
        } else {
            90.0
        },
        azimuth_deg: east.atan2(north).to_degrees().rem_euclid(360.0),
    }
}

/// Whether the segment from `a` to `b` stays at least `radius_m` from the
/// Earth's centre (the line of sight clears a sphere of that radius).
pub fn clears_earth(a: Vec3, b: Vec3, radius_m: f64) -> bool {
    let d = b.minus(a);
    let len2 = d.dot(d);
    // Closest point of the segment to the origin.
    let f = if len2 > 0.0 {
        (-a.dot(d) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    a.plus(d.scale(f)).norm() >= radius_m
}

/// Propagation delay over `range_m` at c, rounded to the nanosecond.
#[inline]
pub fn delay_of(range_m: f64) -> Dur {
    Dur::from_secs_f64(range_m / SPEED_OF_LIGHT_M_PER_S)
}

#[cfg(test)]
mod tests {
    use super::super::geo_sat::{geo_link, GEO_RADIUS_M};
    use super::*;

    fn geo(lon: f64) -> Vec3 {
        geodetic_to_ecef(0.0, lon, GEO_RADIUS_M - EARTH_RADIUS_M)
    }

    #[test]
    fn the_vector_form_agrees_with_the_closed_geo_form() {
        for (lat, lon, sat) in [
            (40.71, -74.01, -96.0),
            (41.90, 12.50, 0.0),
            (-33.9, 18.4, 10.0),
            (0.0, -96.0, -96.0),
        ] {
            let g = geo_link(lat, lon, sat).unwrap();
            let l = look_angles(lat, lon, 0.0, geo(sat));
            assert!((l.range_m - g.slant_range_m).abs() < 1e-5, "{l:?} {g:?}");
            assert!((l.elevation_deg - g.elevation_deg).abs() < 1e-9);
            if g.elevation_deg < 89.0 {
                assert!((l.azimuth_deg - g.azimuth_deg).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn a_point_straight_up_is_at_the_zenith_and_round_trips() {
        let l = look_angles(45.0, 7.0, 0.0, geodetic_to_ecef(45.0, 7.0, 1000.0));
        assert!((l.range_m - 1000.0).abs() < 1e-6);
        assert!((l.elevation_deg - 90.0).abs() < 1e-6);
        let (lat, lon, alt) = ecef_to_geodetic(geodetic_to_ecef(-12.5, 170.25, 550e3));
        assert!((lat + 12.5).abs() < 1e-12 && (lon - 170.25).abs() < 1e-12);
        assert!((alt - 550e3).abs() < 1e-6);
    }

    #[test]
    fn the_earth_blocks_opposite_points_but_not_neighbours() {
        let a = geodetic_to_ecef(0.0, 0.0, 550e3);
        assert!(!clears_earth(
            a,
            geodetic_to_ecef(0.0, 180.0, 550e3),
            EARTH_RADIUS_M
        ));
        assert!(clears_earth(
            a,
            geodetic_to_ecef(0.0, 20.0, 550e3),
            EARTH_RADIUS_M
        ));
        // Two points 550 km up see each other while the chord's lowest
        // point, r·cos(Δ/2), is above the surface: Δ < 2·acos(R/(R+h)).
        let max = 2.0
            * (EARTH_RADIUS_M / (EARTH_RADIUS_M + 550e3))
                .acos()
                .to_degrees();
        assert!(clears_earth(
            a,
            geodetic_to_ecef(0.0, max - 0.01, 550e3),
            EARTH_RADIUS_M
        ));
        assert!(!clears_earth(
            a,
            geodetic_to_ecef(0.0, max + 0.01, 550e3),
            EARTH_RADIUS_M
        ));
    }
}
