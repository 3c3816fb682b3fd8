//! Path geometry of GEO links (the GEO paths of Luglio et al., IEEE JSAC 2004).
//! These closed forms are the ground-to-GEO and GEO-to-GEO numbers every
//! static scenario has used; `frame.rs` gives the same numbers for any pair
//! of positions on the same spherical Earth.
//!
//! Slant range, one-way propagation delay, elevation and azimuth from a
//! ground station to a geostationary satellite, and the range of an
//! inter-satellite link between two GEOs, so that scenarios compute their
//! delays from places instead of typing them in (E2: New York → GEO −96° →
//! San Francisco; E3: Rome → GEO 0° → ISL → GEO −95° → Los Angeles).
//!
//! Model: a spherical Earth of radius R_e = 6378.137 km (the WGS-84
//! equatorial radius), stations at sea level, satellites on the equator at
//! the geostationary radius r_s = 42 164.17 km, propagation at c in vacuum.
//! Neglecting the flattening moves the range by a few km (< 0.02 ms) at
//! mid latitudes; atmospheric delay (a few ns to tens of ns) is neglected.
//!
//! Formulas (e.g. G. Maral, M. Bousquet, "Satellite Communications Systems",
//! §2.2.4), with φ the station latitude and Δλ = λ_sat − λ_station:
//! - cos γ = cos φ · cos Δλ (γ: central angle station–sub-satellite point)
//! - slant range d = √(R_e² + r_s² − 2·R_e·r_s·cos γ)
//! - elevation E: sin E = (r_s·cos γ − R_e) / d
//! - azimuth from the station's local east/north components of the line of
//!   sight, clockwise from true north.

use std::fmt;

use crate::engine::time::Dur;

/// Earth radius of the spherical model (WGS-84 equatorial), metres.
pub const EARTH_RADIUS_M: f64 = 6_378_137.0;
/// Geostationary orbit radius from the Earth's centre, metres.
pub const GEO_RADIUS_M: f64 = 42_164_170.0;
/// Speed of light in vacuum, metres per second.
pub const SPEED_OF_LIGHT_M_PER_S: f64 = 299_792_458.0;

/// A ground station's view of a GEO satellite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoLink {
    /// Distance from the station to the satellite, metres.
    pub slant_range_m: f64,
    /// One-way propagation delay, slant range / c, rounded to the nanosecond.
    pub delay: Dur,
    /// Elevation of the satellite above the horizon, degrees (≥ 0).
    pub elevation_deg: f64,
    /// Azimuth of the satellite, degrees clockwise from true north, in [0, 360).
    pub azimuth_deg: f64,
}

/// A geometry that cannot be built, with a one-line message.
#[derive(Clone, Debug, PartialEq)]
pub enum GeoError {
    /// A latitude outside [−90°, 90°] or a non-finite angle.
    InvalidAngle { what: &'static str, value_deg: f64 },
    /// The satellite is below the station's horizon.
    BelowHorizon {
        lat_deg: f64,
        lon_deg: f64,
        sat_lon_deg: f64,
        elevation_deg: f64,
    },
    /// The Earth blocks the line of sight between two GEO satellites.
    IslBlocked {
        sat_lon_a_deg: f64,
        sat_lon_b_deg: f64,
    },
}

impl fmt::Display for GeoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GeoError::InvalidAngle { what, value_deg } => {
                write!(f, "invalid {what}: {value_deg} degrees")
            }
            GeoError::BelowHorizon {
                lat_deg,
                lon_deg,
                sat_lon_deg,
                elevation_deg,
            } => write!(
                f,
                "GEO satellite at longitude {sat_lon_deg}° is below the horizon of the station at \
                 ({lat_deg}°, {lon_deg}°): elevation {elevation_deg:.2}°"
            ),
            GeoError::IslBlocked {
                sat_lon_a_deg,
                sat_lon_b_deg,
            } => write!(
                f,
                "the Earth blocks the inter-satellite link between GEOs at longitudes \
                 {sat_lon_a_deg}° and {sat_lon_b_deg}° (at most {:.1}° apart)",
                max_isl_separation_deg()
            ),
        }
    }
}

impl std::error::Error for GeoError {}

fn check_finite(what: &'static str, value_deg: f64) -> Result<(), GeoError> {
    if value_deg.is_finite() {
        Ok(())
    } else {
        Err(GeoError::InvalidAngle { what, value_deg })
    }
}

/// Slant range, one-way delay, elevation and azimuth from a ground station at
/// (`lat_deg`, `lon_deg`) (degrees, north and east positive) to a GEO
/// satellite at longitude `sat_lon_deg` (east positive).
///
/// An error when the satellite is below the horizon (elevation < 0) or an
/// angle is invalid.
pub fn geo_link(lat_deg: f64, lon_deg: f64, sat_lon_deg: f64) -> Result<GeoLink, GeoError> {
    check_finite("station latitude", lat_deg)?;
    check_finite("station longitude", lon_deg)?;
    check_finite("satellite longitude", sat_lon_deg)?;
    if !(-90.0..=90.0).contains(&lat_deg) {
        return Err(GeoError::InvalidAngle {
            what: "station latitude (must be within [-90, 90])",
            value_deg: lat_deg,
        });
    }
    let phi = lat_deg.to_radians();
    let dlon = (sat_lon_deg - lon_deg).to_radians();
    let (re, rs) = (EARTH_RADIUS_M, GEO_RADIUS_M);

    // Line of sight in the station's local frame (east, north, up), from the
    // Earth-centred vectors of the station and the satellite.
    let east = rs * dlon.sin();
    let north = -rs * phi.sin() * dlon.cos();
    let up = rs * phi.cos() * dlon.cos() - re;
    let slant_range_m = (east * east + north * north + up * up).sqrt();

    let elevation_deg = (up / slant_range_m).asin().to_degrees();
    if elevation_deg < 0.0 {
        return Err(GeoError::BelowHorizon {
            lat_deg,
            lon_deg,
            sat_lon_deg,
            elevation_deg,
        });
    }
    // At the zenith (station at the sub-satellite point) the azimuth is
    // undefined; atan2 then returns 0° or 180°, as good as any.
    let azimuth_deg = east.atan2(north).to_degrees().rem_euclid(360.0);
    Ok(GeoLink {
        slant_range_m,
        delay: Dur::from_secs_f64(slant_range_m / SPEED_OF_LIGHT_M_PER_S),
        elevation_deg,
        azimuth_deg,
    })
}

/// Largest longitude separation of two GEOs whose line of sight clears the
/// Earth's surface: 2·acos(R_e / r_s) ≈ 162.6°.
pub fn max_isl_separation_deg() -> f64 {
    2.0 * (EARTH_RADIUS_M / GEO_RADIUS_M).acos().to_degrees()
}

/// Range (metres) and one-way delay of an inter-satellite link between GEOs
/// at longitudes `sat_lon_a_deg` and `sat_lon_b_deg`: the chord
/// 2·r_s·sin(|Δλ|/2). An error when the Earth is in the way (the chord's
/// closest approach to the Earth's centre, r_s·cos(Δλ/2), below R_e; the
/// atmosphere is not counted).
pub fn geo_isl(sat_lon_a_deg: f64, sat_lon_b_deg: f64) -> Result<(f64, Dur), GeoError> {
    check_finite("satellite longitude", sat_lon_a_deg)?;
    check_finite("satellite longitude", sat_lon_b_deg)?;
    // Separation folded into [0°, 180°].
    let sep = (sat_lon_a_deg - sat_lon_b_deg).rem_euclid(360.0);
    let sep = sep.min(360.0 - sep).to_radians();
    if GEO_RADIUS_M * (sep / 2.0).cos() < EARTH_RADIUS_M {
        return Err(GeoError::IslBlocked {
            sat_lon_a_deg,
            sat_lon_b_deg,
        });
    }
    let range_m = 2.0 * GEO_RADIUS_M * (sep / 2.0).sin();
    Ok((
        range_m,
        Dur::from_secs_f64(range_m / SPEED_OF_LIGHT_M_PER_S),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(d: Dur) -> f64 {
        d.as_secs_f64() * 1e3
    }

    #[test]
    fn new_york_sees_a_geo_at_minus_96_at_38_degrees_and_126_6_ms() {
        // Luglio et al., IEEE JSAC 2004's geometry: New York with a GEO at −96° → elevation ≈ 38°, one-way ≈ 126.6 ms.
        let l = geo_link(40.71, -74.01, -96.0).unwrap();
        assert!((l.elevation_deg - 38.0).abs() < 0.5, "{l:?}");
        assert!((ms(l.delay) - 126.6).abs() < 0.05, "{l:?}");
        assert!((l.slant_range_m - 37_953_283.0).abs() < 10.0, "{l:?}");
        // South-west of New York: between south (180°) and west (270°).
        assert!(l.azimuth_deg > 180.0 && l.azimuth_deg < 270.0, "{l:?}");
    }

    #[test]
    fn the_delay_is_the_slant_range_over_c_to_the_nanosecond() {
        let l = geo_link(40.71, -74.01, -96.0).unwrap();
        let expected_ns = l.slant_range_m / SPEED_OF_LIGHT_M_PER_S * 1e9;
        assert!((l.delay.0 as f64 - expected_ns).abs() <= 0.5);
    }

    #[test]
    fn the_studies_ground_stations_see_their_geos_above_the_horizon_at_119_to_140_ms() {
        let cases = [
            ("San Francisco", 37.77, -122.42, -96.0),
            ("Rome", 41.90, 12.50, 0.0),
            ("Los Angeles", 34.05, -118.24, -95.0),
            ("New York", 40.71, -74.01, -96.0),
        ];
        for (name, lat, lon, sat) in cases {
            let l = geo_link(lat, lon, sat).unwrap();
            assert!(
                l.elevation_deg > 0.0 && l.elevation_deg < 90.0,
                "{name}: {l:?}"
            );
            let d = ms(l.delay);
            assert!((119.0..=140.0).contains(&d), "{name}: {d} ms");
        }
        // San Francisco looks south-east to −96°.
        let sf = geo_link(37.77, -122.42, -96.0).unwrap();
        assert!(sf.azimuth_deg > 90.0 && sf.azimuth_deg < 180.0, "{sf:?}");
    }

    #[test]
    fn a_station_under_the_satellite_sees_it_at_the_zenith_at_the_orbit_altitude() {
        let l = geo_link(0.0, -96.0, -96.0).unwrap();
        assert!((l.elevation_deg - 90.0).abs() < 1e-9);
        assert!((l.slant_range_m - (GEO_RADIUS_M - EARTH_RADIUS_M)).abs() < 1e-6);
        // 35 786.033 km / c = 119.37 ms, the shortest GEO hop.
        assert!((ms(l.delay) - 119.3695).abs() < 1e-3, "{l:?}");
    }

    #[test]
    fn a_station_on_the_satellites_meridian_looks_due_south_or_north() {
        let north = geo_link(45.0, 10.0, 10.0).unwrap();
        assert!((north.azimuth_deg - 180.0).abs() < 1e-9, "{north:?}");
        let south = geo_link(-45.0, 10.0, 10.0).unwrap();
        assert!(south.azimuth_deg.abs() < 1e-9, "{south:?}");
        // Same elevation both sides of the equator.
        assert!((north.elevation_deg - south.elevation_deg).abs() < 1e-9);
    }

    #[test]
    fn a_satellite_below_the_horizon_is_an_error_with_the_elevation() {
        // Rome cannot see a GEO at −96° (elevation ≈ −21.7°).
        let e = geo_link(41.90, 12.50, -96.0).unwrap_err();
        match &e {
            GeoError::BelowHorizon { elevation_deg, .. } => {
                assert!((elevation_deg + 21.74).abs() < 0.05, "{e:?}")
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(e.to_string().contains("below the horizon"), "{e}");
        // Nor can a polar station.
        assert!(geo_link(89.0, 0.0, 0.0).is_err());
    }

    #[test]
    fn invalid_angles_are_errors() {
        assert!(matches!(
            geo_link(91.0, 0.0, 0.0),
            Err(GeoError::InvalidAngle { .. })
        ));
        assert!(matches!(
            geo_link(f64::NAN, 0.0, 0.0),
            Err(GeoError::InvalidAngle { .. })
        ));
        assert!(geo_isl(0.0, f64::INFINITY).is_err());
    }

    #[test]
    fn the_isl_between_geos_at_0_and_minus_95_is_the_chord_of_the_orbit() {
        // 2 · 42 164.17 km · sin(47.5°) = 62 173.37 km → 207.39 ms.
        let (range, delay) = geo_isl(0.0, -95.0).unwrap();
        assert!((range - 62_173_374.0).abs() < 1.0, "{range}");
        assert!((ms(delay) - 207.388).abs() < 1e-3, "{delay}");
        // Symmetric, and the separation is taken the short way round.
        assert_eq!(geo_isl(-95.0, 0.0).unwrap(), (range, delay));
        assert_eq!(
            geo_isl(170.0, -85.0).unwrap().0,
            geo_isl(0.0, 105.0).unwrap().0
        );
    }

    #[test]
    fn an_isl_through_the_earth_is_an_error() {
        assert!((max_isl_separation_deg() - 162.6).abs() < 0.05);
        let e = geo_isl(0.0, 170.0).unwrap_err();
        assert!(e.to_string().contains("blocks"), "{e}");
        assert!(geo_isl(0.0, 160.0).is_ok());
    }
}
