//! Starlink's ground segment as shipped in
//! `data/starlink_ground_2023-10.csv` (source, date and licence in
//! `data/README.md`): gateways (ground stations that exchange the users'
//! traffic with the satellites, each with its minimum elevation and number
//! of antennas) and points of presence (PoPs, where Starlink's network meets
//! the Internet), and the delay of the terrestrial links between them.
//!
//! Terrestrial delay: the great-circle distance on skyhop's sphere times a
//! route factor, at the speed of light in fibre (2/3 c). The default factor
//! 2.1 is the rule of thumb Bozkurt et al. measured for Internet paths
//! ("Dissecting Latency in the Internet's Fiber Infrastructure", arXiv
//! 1811.10737: multiply line-of-sight distance by 2.1, then divide by the
//! speed of light in fibre); the shortest paths through the conduits they
//! mapped would give 1.3.

use crate::engine::time::Dur;
use crate::geo::{EARTH_RADIUS_M, SPEED_OF_LIGHT_M_PER_S};

const CSV: &str = include_str!("../../data/starlink_ground_2023-10.csv");

/// Default route factor of terrestrial links (Bozkurt et al.'s 2.1).
pub const ROUTE_FACTOR: f64 = 2.1;

/// Speed of light in fibre, m/s (refractive index 1.5, as Bozkurt et al.).
pub const FIBRE_SPEED_M_PER_S: f64 = SPEED_OF_LIGHT_M_PER_S * 2.0 / 3.0;

/// A gateway or a PoP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    Gateway,
    Pop,
}

/// One ground site of the shipped list.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    pub kind: SiteKind,
    /// Gateways by town ("Milano"), PoPs by their code ("FRA").
    pub name: &'static str,
    /// ISO 3166 country code.
    pub country: &'static str,
    pub lat_deg: f64,
    pub lon_deg: f64,
    /// Gateways: the lowest elevation at which they track a satellite.
    pub min_elevation_deg: Option<f64>,
    /// Gateways: antennas, i.e. satellites tracked at once.
    pub antennas: Option<u32>,
}

/// Every site of the shipped list, in file order (PoPs first).
pub fn sites() -> Vec<Site> {
    CSV.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&'static str> = l.split(',').collect();
            Site {
                kind: if f[0] == "pop" {
                    SiteKind::Pop
                } else {
                    SiteKind::Gateway
                },
                name: f[1],
                country: f[2],
                lat_deg: f[3].parse().expect("latitude"),
                lon_deg: f[4].parse().expect("longitude"),
                min_elevation_deg: f[5].parse().ok(),
                antennas: f[6].parse().ok(),
            }
        })
        .collect()
}

/// The shipped site of this kind called `name`.
pub fn site(kind: SiteKind, name: &str) -> Option<Site> {
    sites()
        .into_iter()
        .find(|s| s.kind == kind && s.name == name)
}

/// Great-circle distance between two places on skyhop's sphere, metres.
pub fn great_circle_m(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (la1, lo1) = (a.0.to_radians(), a.1.to_radians());
    let (la2, lo2) = (b.0.to_radians(), b.1.to_radians());
    let h = ((la2 - la1) / 2.0).sin().powi(2)
        + la1.cos() * la2.cos() * ((lo2 - lo1) / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * h.sqrt().min(1.0).asin()
}

/// One-way delay of a terrestrial link between two places (latitude,
/// longitude in degrees): great-circle distance × `route_factor` at the
/// speed of light in fibre, rounded to the nanosecond.
pub fn terrestrial_delay(a: (f64, f64), b: (f64, f64), route_factor: f64) -> Dur {
    Dur::from_secs_f64(great_circle_m(a, b) * route_factor / FIBRE_SPEED_M_PER_S)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_holds_pops_and_gateways_with_valid_fields() {
        let s = sites();
        let pops = s.iter().filter(|x| x.kind == SiteKind::Pop).count();
        let gws: Vec<_> = s.iter().filter(|x| x.kind == SiteKind::Gateway).collect();
        assert_eq!(pops, 23);
        assert_eq!(gws.len(), 20);
        assert!(s
            .iter()
            .all(|x| x.lat_deg.abs() <= 90.0 && x.lon_deg.abs() <= 180.0));
        assert!(gws.iter().all(|g| g.antennas.is_some_and(|a| a > 0)
            && g.min_elevation_deg
                .is_some_and(|e| (0.0..90.0).contains(&e))));
        let fra = site(SiteKind::Pop, "FRA").unwrap();
        assert_eq!((fra.lat_deg, fra.lon_deg, fra.country), (50.12, 8.73, "DE"));
        let man = site(SiteKind::Gateway, "Isle-of-Man").unwrap();
        assert_eq!(man.min_elevation_deg, Some(5.0));
        assert!(site(SiteKind::Gateway, "FRA").is_none());
    }

    #[test]
    fn a_quarter_meridian_is_a_quarter_of_the_circumference() {
        let q = great_circle_m((0.0, 0.0), (90.0, 0.0));
        assert!((q - EARTH_RADIUS_M * std::f64::consts::FRAC_PI_2).abs() < 1e-6);
        // One degree of longitude on the equator.
        let d = great_circle_m((0.0, 10.0), (0.0, 11.0));
        assert!((d - EARTH_RADIUS_M * 1f64.to_radians()).abs() < 1e-6);
    }

    #[test]
    fn terrestrial_delay_is_distance_times_factor_at_two_thirds_of_c() {
        // 1° of equator = 111 319.49 m; × 2.1 / (2/3 · 299 792 458) = 1.169 664 ms.
        let d = terrestrial_delay((0.0, 10.0), (0.0, 11.0), 2.1);
        let by_hand = EARTH_RADIUS_M * 1f64.to_radians() * 2.1 / (299_792_458.0 * 2.0 / 3.0);
        assert_eq!(d, Dur::from_secs_f64(by_hand));
        assert_eq!(d.0, 1_169_664);
    }
}
