//! Places and motion: where each node is (`lat`/`lon`/`altitude`, a GEO's
//! `geo_longitude`, a `route`, the cities a constellation adds), link
//! delays and elevation checks from positions, and the moving network a
//! scenario with routes, a `[constellation]` or a `[routing]` table
//! resolves into (`net::mobile::MotionPlan`, docs/leo.md).
//!
//! Ground-to-GEO and GEO-to-GEO links between nodes without an altitude or
//! a route keep the closed forms of `geo::geo_link` and `geo::geo_isl`
//! (today's numbers); every other pair of placed nodes gets the straight
//! line between their positions on the same sphere.

use crate::channel::HopGeometry;
use crate::engine::time::Dur;
use crate::error::ScenarioError;
use crate::geo::{self, delay_of, geodetic_to_ecef, look_angles, Track, Vec3, Waypoint};
use crate::mobility::cities::{cities, City};
use crate::mobility::{self, tle, Epoch, NodeMotion, Orbiter, Phasing, Shell};
use crate::net::addr::MAX_NODES;
use crate::net::mobile::{ConstellationPlan, LinkClass, LinkMotion, MotionPlan, RoutingPolicy};
use crate::net::moving::{Visibility, WhenDown};
use crate::scenario::schema::{
    ConstellationSection, GroundRule, NodeSection, PhasingSection, RoutingPolicyName, Scenario,
    WhenDownName,
};
use std::collections::BTreeMap;

/// Altitude from which a node counts as a satellite (elevation checks).
const SATELLITE_ALTITUDE_M: f64 = 100e3;

/// Where every plan node is.
pub(super) struct Places {
    /// Per plan node: its motion (`None`: no place).
    pub motions: Vec<Option<NodeMotion>>,
    /// Per plan node: whether it keeps the closed GEO forms (a ground node
    /// at altitude 0 without a route, or a GEO by longitude).
    pub classic: Vec<bool>,
    /// The scenario moves (routes, a constellation or a routing table).
    pub moving: bool,
}

/// The cities a constellation adds as nodes (those not declared already).
pub(super) fn added_cities(scn: &Scenario) -> Vec<City> {
    let n = scn
        .constellation
        .as_ref()
        .and_then(|c| c.cities)
        .unwrap_or(0) as usize;
    cities()
        .into_iter()
        .take(n)
        .filter(|c| !scn.nodes.contains_key(c.name))
        .collect()
}

fn err(file: &str, key: String, m: impl Into<String>) -> ScenarioError {
    ScenarioError::new(file, key, m)
}

fn track(file: &str, name: &str, n: &NodeSection) -> Result<Option<Track>, ScenarioError> {
    let Some(r) = &n.route else {
        return Ok(None);
    };
    let key = format!("nodes.{name}.route");
    let pts: Vec<Waypoint> = r
        .waypoints
        .iter()
        .map(|w| Waypoint {
            lat_deg: w.lat,
            lon_deg: w.lon,
            alt_m: w.altitude.map_or(0.0, |a| a.0),
            at_s: w.at.map_or(f64::NAN, |d| d.0.as_secs_f64()),
        })
        .collect();
    let made = match r.speed {
        Some(v) => Track::with_speed(
            pts,
            v.0,
            r.start.map_or(0.0, |d| d.0.as_secs_f64()),
            r.repeat,
        ),
        None => {
            if let Some(i) = r.waypoints.iter().position(|w| w.at.is_none()) {
                return Err(err(
                    file,
                    format!("{key}.waypoints[{i}].at"),
                    "missing: give every waypoint a time (at = \"10 min\"), or the route a speed",
                ));
            }
            Track::timed(pts, r.repeat)
        }
    };
    made.map(Some).map_err(|e| {
        let field = if e.message.contains("out of order") || e.message.contains("time") {
            ".at"
        } else {
            ""
        };
        err(
            file,
            format!("{key}.waypoints[{}]{field}", e.index),
            e.message,
        )
    })
}

/// The place of every plan node: the scenario's (in name order), then the
/// added cities.
pub(super) fn places(scn: &Scenario, file: &str, added: &[City]) -> Result<Places, ScenarioError> {
    let mut motions = Vec::new();
    let mut classic = Vec::new();
    let mut moving = scn.constellation.is_some() || scn.routing.is_some();
    for (name, n) in &scn.nodes {
        let alt = n.altitude.map_or(0.0, |a| a.0);
        if let Some(t) = track(file, name, n)? {
            moving = true;
            motions.push(Some(NodeMotion::Track(t)));
            classic.push(false);
        } else if let Some((lat, lon)) = n.lat.zip(n.lon) {
            motions.push(Some(NodeMotion::Fixed(geodetic_to_ecef(lat, lon, alt))));
            classic.push(n.altitude.is_none());
        } else if let Some(g) = n.geo_longitude {
            let h = geo::GEO_RADIUS_M - geo::EARTH_RADIUS_M;
            motions.push(Some(NodeMotion::Fixed(geodetic_to_ecef(0.0, g, h))));
            classic.push(true);
        } else {
            motions.push(None);
            classic.push(false);
        }
    }
    for c in added {
        motions.push(Some(NodeMotion::Fixed(geodetic_to_ecef(
            c.lat_deg, c.lon_deg, 0.0,
        ))));
        classic.push(false);
    }
    Ok(Places {
        motions,
        classic,
        moving,
    })
}

/// A link's delay and geometry from its ends' positions: (delay at t = 0,
/// the hop's geometry for channel models, its motion when an end moves).
pub(super) type LinkGeometry = (Option<Dur>, Option<HopGeometry>, Option<LinkMotion>);

/// An error with the key it belongs to, if not the caller's default.
pub(super) type KeyedError = (Option<String>, String);

impl Places {
    fn moves(&self, n: u32) -> bool {
        matches!(self.motions[n as usize], Some(NodeMotion::Track(_)))
    }

    fn at0(&self, n: u32) -> Option<Vec3> {
        self.motions[n as usize].as_ref().map(|m| m.position(0.0))
    }

    /// The geometry of a link between plan nodes `a` and `b` (named for
    /// messages) with an optional minimum elevation, for the cases the
    /// closed GEO forms do not cover (`None`: those forms apply).
    pub(super) fn link(
        &self,
        (a, b): (u32, u32),
        names: (&str, &str),
        min_elevation: Option<f64>,
    ) -> Option<Result<LinkGeometry, KeyedError>> {
        let (pa, pb) = (self.at0(a)?, self.at0(b)?);
        let moving = self.moves(a) || self.moves(b);
        if self.classic[a as usize]
            && self.classic[b as usize]
            && !moving
            && min_elevation.is_none()
        {
            return None;
        }
        // The observer is the end nearer the Earth's centre.
        let (obs, target, obs_name, obs_is_a) = if pa.norm() <= pb.norm() {
            (a, pb, names.0, true)
        } else {
            (b, pa, names.1, false)
        };
        let (lat, lon, alt) = geo::ecef_to_geodetic(if obs_is_a { pa } else { pb });
        let look = look_angles(lat, lon, alt, target);
        let satellite = target.norm() - geo::EARTH_RADIUS_M >= SATELLITE_ALTITUDE_M;
        let min = min_elevation.or(satellite.then_some(0.0));
        let visibility = match min {
            Some(m) => Visibility::MinElevation {
                observer_is_from: obs_is_a,
                min_deg: m,
            },
            None => Visibility::Always,
        };
        if let (Some(m), false) = (min, moving) {
            // The run's rule (`Visibility::up`), at the only instant there is.
            if !visibility.up(pa, pb) {
                return Some(Err((
                    Some(format!("nodes.{obs_name}")),
                    format!(
                        "{} is at elevation {:.2}° seen from {obs_name}, below {}° (the link is never up)",
                        if obs_is_a { names.1 } else { names.0 },
                        look.elevation_deg,
                        m
                    ),
                )));
            }
        }
        let (_, tlon, _) = geo::ecef_to_geodetic(target);
        let geometry = HopGeometry {
            ground_node: obs,
            lat_deg: lat,
            lon_deg: lon,
            sat_lon_deg: tlon,
            elevation_deg: look.elevation_deg,
            azimuth_deg: look.azimuth_deg,
            slant_range_m: look.range_m,
        };
        let motion = (moving || (min.is_some() && self.moving)).then_some(LinkMotion {
            moving_delay: moving,
            visibility,
        });
        Some(Ok((
            Some(delay_of(pa.distance(pb))),
            Some(geometry),
            motion,
        )))
    }
}

/// The longest `constellation.start_spread`.
const MAX_START_SPREAD: Dur = Dur::from_secs(30 * 86_400);

/// The constellation's satellites, ISLs and link classes.
fn constellation(
    c: &ConstellationSection,
    file: &str,
    duration: Dur,
) -> Result<(ConstellationPlan, Option<f64>), ScenarioError> {
    let key = |k: &str| format!("constellation.{k}");
    let preset = c.preset.and_then(|p| mobility::preset(p.name()));
    let min_elevation = c
        .min_elevation
        .or(preset.as_ref().map(|p| p.min_elevation_deg))
        .unwrap_or(25.0);
    let start = match &c.start {
        Some(s) => Some(Epoch::parse(s).map_err(|m| err(file, key("start"), m))?),
        None => None,
    };
    let mut altitude_m = None;
    let mut isls = Vec::new();
    let sats: Vec<(String, Orbiter)> = if let Some(path) = &c.tle {
        let sets = tle::read(path).map_err(|m| err(file, key("tle"), m))?;
        if sets.len() > MAX_NODES {
            return Err(err(
                file,
                key("tle"),
                format!(
                    "{path}: {} satellites, more than the {MAX_NODES} nodes skyhop can address",
                    sets.len()
                ),
            ));
        }
        let start = start.unwrap_or_else(|| {
            Epoch(
                sets.iter()
                    .map(|s| s.elements.epoch())
                    .fold(f64::MIN, f64::max),
            )
        });
        let mut seen = BTreeMap::new();
        let mut out = Vec::new();
        for s in sets {
            let n = seen.entry(s.name.clone()).or_insert(0);
            *n += 1;
            let name = if *n == 1 {
                s.name.clone()
            } else {
                format!("{} #{n}", s.name)
            };
            let o = Orbiter::new(&s.elements, start)
                .map_err(|m| err(file, key("tle"), format!("{path}: {}: {m}", s.name)))?;
            out.push((name, o));
        }
        out
    } else {
        let base = preset.as_ref().map(|p| p.shell.clone());
        fn need<T>(v: Option<T>, file: &str, k: &str) -> Result<T, ScenarioError> {
            v.ok_or_else(|| {
                err(
                    file,
                    format!("constellation.{k}"),
                    format!("missing: give constellation.{k}, a preset (\"starlink-550\", \"kuiper-630\", \"telesat-1015\") or a tle file"),
                )
            })
        }
        let shell = Shell {
            planes: need(c.planes.or(base.as_ref().map(|s| s.planes)), file, "planes")?,
            per_plane: need(
                c.per_plane.or(base.as_ref().map(|s| s.per_plane)),
                file,
                "per_plane",
            )?,
            altitude_km: need(
                c.altitude
                    .map(|a| a.0 / 1e3)
                    .or(base.as_ref().map(|s| s.altitude_km)),
                file,
                "altitude",
            )?,
            inclination_deg: need(
                c.inclination.or(base.as_ref().map(|s| s.inclination_deg)),
                file,
                "inclination",
            )?,
            phasing: match &c.phasing {
                Some(PhasingSection::Walker(f)) => Phasing::Walker(*f),
                Some(PhasingSection::Named(_)) => Phasing::HalfOffset,
                None => base.as_ref().map_or(Phasing::HalfOffset, |s| s.phasing),
            },
        };
        shell.validate().map_err(|(k, m)| {
            let m = match k {
                "planes" => format!("{}: {m}", shell.planes),
                "per_plane" => format!("{}: {m}", shell.per_plane),
                _ => m,
            };
            err(file, key(k), m)
        })?;
        // Counted before anything is allocated for them.
        if shell.satellites() > MAX_NODES {
            return Err(err(
                file,
                key("planes"),
                format!(
                    "{} planes of {} satellites are {} satellites, more than the {MAX_NODES} nodes skyhop can address",
                    shell.planes,
                    shell.per_plane,
                    shell.satellites()
                ),
            ));
        }
        altitude_m = Some(shell.altitude_km * 1e3);
        if let Some(isl) = &c.isl {
            isls = shell.plus_grid(isl.shift.unwrap_or(0));
        }
        let start = start.unwrap_or(Epoch::Y2000);
        let prefix = c.preset.map_or("sat", |p| p.name());
        let per = shell.per_plane as usize;
        shell
            .orbiters(start)
            .map_err(|m| err(file, key("altitude"), m))?
            .into_iter()
            .enumerate()
            .map(|(k, o)| (format!("{prefix}-{}-{}", k / per, k % per), o))
            .collect()
    };
    // Every orbit must propagate over the run, from any start the spread
    // may draw.
    let spread = c.start_spread.map_or(Dur::ZERO, |d| d.0);
    if spread > MAX_START_SPREAD {
        return Err(err(
            file,
            key("start_spread"),
            format!(
                "{} is out of range: at most 43200 min (30 days)",
                crate::units::Duration(spread)
            ),
        ));
    }
    for (name, o) in &sats {
        for t in [0.0, (duration + spread).as_secs_f64()] {
            if let Err(m) = o.teme(t) {
                return Err(err(
                    file,
                    key(if c.tle.is_some() { "tle" } else { "altitude" }),
                    format!("satellite {name} cannot be propagated to t = {t} s: {m}"),
                ));
            }
        }
    }
    let class = |s: &Option<crate::scenario::schema::LinkClassSection>, k: &str, name: &str| {
        s.as_ref()
            .map(|s| LinkClass {
                name: name.into(),
                rate_bps: s.rate.0,
                queue: s.queue.unwrap_or(100),
            })
            .ok_or_else(|| {
                err(
                    file,
                    key(k),
                    format!("missing: give constellation.{k} = {{ rate = \"1 Gbps\" }} (queue 100 by default)"),
                )
            })
    };
    let gsl = class(&c.gsl, "gsl", "gsl")?;
    let isl = match &c.isl {
        Some(_) => class(&c.isl, "isl", "isl")?,
        None => gsl.clone(),
    };
    let range = match c.ground_rule.unwrap_or_default() {
        GroundRule::Elevation => None,
        GroundRule::Range => {
            let h = altitude_m.ok_or_else(|| {
                err(
                    file,
                    key("ground_rule"),
                    "\"range\" needs a shell (its altitude), not a TLE file",
                )
            })?;
            Some(h / min_elevation.to_radians().sin())
        }
    };
    Ok((
        ConstellationPlan {
            sats,
            isls,
            min_elevation_deg: min_elevation,
            max_range_m: range,
            isl,
            gsl,
        },
        altitude_m,
    ))
}

/// The moving network of a scenario that moves (`None` for a static one).
pub(super) fn motion_plan(
    scn: &Scenario,
    file: &str,
    places: &Places,
    nodes: &[String],
    index: &BTreeMap<&str, u32>,
    links: Vec<Option<LinkMotion>>,
    duration: Dur,
) -> Result<Option<MotionPlan>, ScenarioError> {
    if !places.moving {
        return Ok(None);
    }
    let mut consts = Vec::new();
    let mut grounds = Vec::new();
    if let Some(c) = &scn.constellation {
        consts.push(constellation(c, file, duration)?.0);
        grounds = match &c.ground {
            Some(g) => g
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let id = *index.get(n.as_str()).ok_or_else(|| {
                        err(
                            file,
                            format!("constellation.ground[{i}]"),
                            format!("node {n:?} does not exist"),
                        )
                    })?;
                    if places.motions[id as usize].is_none() {
                        return Err(err(
                            file,
                            format!("constellation.ground[{i}]"),
                            format!("node {n:?} has no place: give it lat and lon"),
                        ));
                    }
                    Ok(id)
                })
                .collect::<Result<Vec<_>, _>>()?,
            // Every node with a place below the satellites.
            None => (0..nodes.len() as u32)
                .filter(|&n| {
                    places.motions[n as usize].as_ref().is_some_and(|m| {
                        m.position(0.0).norm() - geo::EARTH_RADIUS_M < SATELLITE_ALTITUDE_M
                    })
                })
                .collect(),
        };
    }
    let r = scn.routing.clone().unwrap_or_default();
    let routing = match r.policy.unwrap_or_default() {
        RoutingPolicyName::ShortestDelay => {
            RoutingPolicy::Interval(r.update.map_or(Dur::from_millis(100), |d| d.0))
        }
        RoutingPolicyName::Epochs => RoutingPolicy::Epochs {
            period: r.epoch.map_or(Dur::from_secs(15), |d| d.0),
            offset: r.epoch_offset.map_or(Dur::ZERO, |d| d.0),
        },
    };
    let when_down = match r.when_down.unwrap_or_default() {
        WhenDownName::Drop => WhenDown::Drop,
        WhenDownName::Hold => WhenDown::Hold,
    };
    let mut m = MotionPlan::build(
        places.motions.clone(),
        links,
        consts,
        grounds,
        routing,
        when_down,
        r.lose_in_flight.unwrap_or(false),
    );
    m.start_spread = scn
        .constellation
        .as_ref()
        .and_then(|c| c.start_spread)
        .map_or(Dur::ZERO, |d| d.0);
    Ok(Some(m))
}
