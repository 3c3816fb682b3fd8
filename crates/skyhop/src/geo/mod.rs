//! Geometry on the spherical Earth: GEO slant ranges (`geo_sat.rs`, the
//! closed forms of the static scenarios), Earth-fixed Cartesian positions
//! of any node with its look angles and line-of-sight checks (`frame.rs`),
//! and motion along waypoints on great circles (`track.rs`).
//!
//! One Earth model for all of them: a sphere of radius R_e = 6 378.137 km
//! (the WGS-84 equatorial radius), latitudes taken as geocentric, altitudes
//! above that sphere, propagation at c in vacuum. Satellites on orbits
//! (`mobility`) are placed in the same Earth-fixed frame.

mod frame;
mod geo_sat;
mod track;

pub use frame::{
    clears_earth, delay_of, ecef_to_geodetic, geodetic_to_ecef, look_angles, LookAngles, Vec3,
};
pub use geo_sat::{
    geo_isl, geo_link, max_isl_separation_deg, GeoError, GeoLink, EARTH_RADIUS_M, GEO_RADIUS_M,
    SPEED_OF_LIGHT_M_PER_S,
};
pub use track::{Track, TrackError, Waypoint};
