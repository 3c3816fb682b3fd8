//! Land-mobile-satellite urban shadowing, physical-statistical: a terminal
//! moves at constant speed along a street canyon; the link is in line of
//! sight when the satellite's elevation exceeds the masking angle of the
//! skyline at the satellite's azimuth, shadowed otherwise.
//!
//! This is the street-canyon model used for the source-shadowed GEO case of
//! M. Luglio, M. Y. Sanadidi, M. Gerla, J. Stepanek, "On-Board Satellite
//! 'Split TCP' Proxy", IEEE JSAC 22(2), 2004, which took its streets from a
//! building database of Madrid. That database is not available here, so the
//! streets are synthesised:
//!
//! - building heights are log-normal (median `height_median_m`, log-standard
//!   deviation `height_sigma`), the distribution S. R. Saunders and
//!   B. G. Evans fitted to city-centre building heights in their
//!   physical-statistical LMS shadowing model ("Physical model of shadowing
//!   probability for land mobile satellite propagation", Electronics Letters
//!   32(17), 1996); the defaults (median 15 m, σ = 0.4: about five storeys,
//!   90 % between 9 and 25 m) describe a dense European centre and are an
//!   assumption, not a fit to the Madrid data;
//! - building frontages (widths along the street) are uniform between
//!   `building_width_min_m` and `building_width_max_m`, contiguous (no gaps
//!   within a block), drawn independently on each side;
//! - every `block_length_m` of street a crossroad of `crossroad_width_m`
//!   (default: the street width) is an open section (no buildings);
//! - second-row buildings are ignored: a ray that crosses a gap sees the sky.
//!
//! Geometry: the street's axis points at `street_azimuth_deg` (clockwise
//! from north; drawn uniformly per run when not given, so runs sample
//! different orientations relative to the satellite). The terminal, at
//! `terminal_height_m`, is `lateral_offset_m` to the right of the axis. For a
//! satellite at relative azimuth α from the direction of travel, the
//! horizontal ray meets the facade on the right (sin α > 0) or left side at
//! horizontal distance d = d⊥ / |sin α| (d⊥ the terminal's distance to that
//! facade), at a point d·cos α ahead along the street; a building of height
//! h there masks elevations below atan((h − h_terminal) / d).
//!
//! Route: a section of `section_length_m` is synthesised, and long routes
//! are built by traversing it, crossing a crossroad, traversing it reversed
//! (heading turned by 180°, so the sides swap relative to the satellite),
//! crossing a crossroad, and so on. Each run starts at a uniformly drawn
//! point of that cycle. The terminal moves at `speed_mps` from t = 0.
//!
//! Alternatively `masking_file`, a CSV `distance_m,azimuth_deg,masking_deg`,
//! gives recorded masking angles: a distance's angles hold from that
//! distance to the next one listed (the last holds to the end), azimuths are
//! interpolated linearly (circularly) between the listed ones; the terminal
//! starts at distance 0.
//!
//! A transmission is shadowed if the terminal is shadowed at its start or at
//! its end (at 2 m/s a 1500-byte packet at 1 Mb/s spans 2.4 cm of street).
//! Shadowed packets see `shadowed_per` (default 1) or `shadowed_ber`; in line
//! of sight, `los_per` (default 0) or `los_ber`.
//!
//! Moving ends: on a link between moving nodes, the satellite's elevation
//! and azimuth are those seen from the lower end at each instant (unless
//! `elevation_deg` and `azimuth_deg` fix them); the street and the
//! terminal's progress along it stay as above.
//!
//! Streams: the street, orientation and start point are drawn from a stream
//! of the link (not of the direction), so both directions of a link see the
//! same street; loss draws use each direction's own stream.

use super::loss::StateLoss;
use super::table::{self, Loaded};
use super::{ApplyTo, ChannelCtx, ChannelModel, ChannelState, Tx};
use crate::engine::rng::RngStream;
use crate::engine::time::Time;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Most buildings on one side of a synthesised street (and crossroads).
pub const MAX_BUILDINGS: f64 = 1e6;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LmsUrbanSpec {
    /// Terminal speed, m/s (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_mps: Option<f64>,
    /// Facade-to-facade width, m (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street_width_m: Option<f64>,
    /// Antenna height above the street, m (default 1.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_height_m: Option<f64>,
    /// Terminal's distance to the right of the street's axis, m (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lateral_offset_m: Option<f64>,
    /// Direction of the street's axis, degrees clockwise from north
    /// (default: drawn uniformly per run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street_azimuth_deg: Option<f64>,
    /// Median building height, m (default 15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height_median_m: Option<f64>,
    /// Standard deviation of ln(height) (default 0.4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height_sigma: Option<f64>,
    /// Building frontage range, m (default 10 to 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub building_width_min_m: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub building_width_max_m: Option<f64>,
    /// Street length between crossroads, m (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_length_m: Option<f64>,
    /// Crossroad width, m (default: the street width).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crossroad_width_m: Option<f64>,
    /// Length of the synthesised section, m (default 500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section_length_m: Option<f64>,
    /// Satellite elevation and azimuth seen from the terminal, degrees
    /// (default: from the positions of the link's nodes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elevation_deg: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub azimuth_deg: Option<f64>,
    /// CSV of recorded masking angles (instead of a synthetic street).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub masking_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowed_per: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowed_ber: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub los_per: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub los_ber: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apply_to: Option<ApplyTo>,
    #[serde(skip)]
    pub masks: Loaded<MaskTable>,
}

/// Recorded masking angles: per listed distance, (azimuth, masking) sorted by azimuth.
#[derive(Debug, PartialEq)]
pub struct MaskTable {
    pub distance_m: Vec<f64>,
    pub angles: Vec<Vec<(f64, f64)>>,
}

impl MaskTable {
    pub fn load(file: &str) -> Result<MaskTable, String> {
        let tab = table::read(file, &[&["distance_m", "azimuth_deg", "masking_deg"]])?;
        let mut m = MaskTable {
            distance_m: Vec::new(),
            angles: Vec::new(),
        };
        for (line, row) in &tab.rows {
            let (d, az, mask) = (row[0], row[1], row[2]);
            if d < 0.0 {
                return Err(format!("{file} line {line}: distance_m {d} is negative"));
            }
            if !(0.0..360.0).contains(&az) {
                return Err(format!(
                    "{file} line {line}: azimuth_deg {az} is not in [0, 360)"
                ));
            }
            if !(0.0..=90.0).contains(&mask) {
                return Err(format!(
                    "{file} line {line}: masking_deg {mask} is not in [0, 90]"
                ));
            }
            match m.distance_m.last() {
                Some(&last) if d == last => {
                    let g = m.angles.last_mut().unwrap();
                    if az <= g.last().unwrap().0 {
                        return Err(format!(
                            "{file} line {line}: azimuth_deg {az} does not increase within distance {d}"
                        ));
                    }
                    g.push((az, mask));
                }
                Some(&last) if d < last => {
                    return Err(format!(
                        "{file} line {line}: distance_m {d} decreases (previous {last})"
                    ));
                }
                _ => {
                    m.distance_m.push(d);
                    m.angles.push(vec![(az, mask)]);
                }
            }
        }
        Ok(m)
    }

    /// Masking at route distance `r` and azimuth `az` (degrees).
    pub fn masking(&self, r: f64, az: f64) -> f64 {
        let i = self
            .distance_m
            .partition_point(|&d| d <= r)
            .saturating_sub(1);
        interp_circular(&self.angles[i], az.rem_euclid(360.0))
    }
}

/// Linear interpolation over a circle of (azimuth, value) sorted by azimuth.
fn interp_circular(g: &[(f64, f64)], az: f64) -> f64 {
    if g.len() == 1 {
        return g[0].1;
    }
    let j = g.partition_point(|&(a, _)| a <= az);
    let (a0, v0, a1, v1) = if j == 0 {
        let l = g[g.len() - 1];
        (l.0 - 360.0, l.1, g[0].0, g[0].1)
    } else if j == g.len() {
        let l = g[g.len() - 1];
        (l.0, l.1, g[0].0 + 360.0, g[0].1)
    } else {
        (g[j - 1].0, g[j - 1].1, g[j].0, g[j].1)
    };
    if a0 == az {
        return v0;
    }
    v0 + (v1 - v0) * (az - a0) / (a1 - a0)
}

fn positive(key: &str, v: Option<f64>) -> Result<(), (String, String)> {
    match v {
        Some(x) if !(x.is_finite() && x > 0.0) => {
            Err((key.into(), format!("{x} must be a positive number")))
        }
        _ => Ok(()),
    }
}

impl LmsUrbanSpec {
    pub fn validate(&self) -> Result<(), (String, String)> {
        positive("speed_mps", self.speed_mps)?;
        positive("street_width_m", self.street_width_m)?;
        positive("height_median_m", self.height_median_m)?;
        positive("building_width_min_m", self.building_width_min_m)?;
        positive("building_width_max_m", self.building_width_max_m)?;
        positive("block_length_m", self.block_length_m)?;
        positive("crossroad_width_m", self.crossroad_width_m)?;
        positive("section_length_m", self.section_length_m)?;
        if let Some(s) = self.height_sigma {
            if !(s.is_finite() && s >= 0.0) {
                return Err(("height_sigma".into(), format!("{s} must be 0 or more")));
            }
        }
        if let Some(h) = self.terminal_height_m {
            if !(h.is_finite() && h >= 0.0) {
                return Err(("terminal_height_m".into(), format!("{h} must be 0 or more")));
            }
        }
        let p = self.params();
        if self.masking_file.is_none() {
            // The synthesised street is held in memory: a bounded number
            // of buildings and crossroads (which also keeps every length
            // far above the resolution of the positions along it).
            let blocks = p.section / (p.block + p.cross);
            if blocks > MAX_BUILDINGS {
                let key = if self.block_length_m.is_some() || self.crossroad_width_m.is_some() {
                    "block_length_m"
                } else {
                    "section_length_m"
                };
                return Err((
                    key.into(),
                    format!(
                        "the {} m section would have about {blocks:.3e} crossroads, more than {MAX_BUILDINGS:.0e}: lengthen block_length_m (or crossroad_width_m) or shorten section_length_m",
                        p.section
                    ),
                ));
            }
            let buildings = p.section / p.wmin;
            if buildings > MAX_BUILDINGS {
                let key = if self.building_width_min_m.is_some() || self.section_length_m.is_none()
                {
                    "building_width_min_m"
                } else {
                    "section_length_m"
                };
                return Err((
                    key.into(),
                    format!(
                        "the synthesised street would hold about {buildings:.3e} buildings per side ({} m section, buildings from {} m wide), more than {MAX_BUILDINGS:.0e}: raise building_width_min_m or shorten section_length_m",
                        p.section, p.wmin
                    ),
                ));
            }
        }
        if p.wmin > p.wmax {
            return Err((
                "building_width_min_m".into(),
                "is larger than building_width_max_m".into(),
            ));
        }
        if p.offset.abs() >= p.width / 2.0 {
            return Err((
                "lateral_offset_m".into(),
                format!(
                    "{} puts the terminal outside the {} m street",
                    p.offset, p.width
                ),
            ));
        }
        if let Some(e) = self.elevation_deg {
            if !(e.is_finite() && e > 0.0 && e <= 90.0) {
                return Err((
                    "elevation_deg".into(),
                    format!("{e} is not an elevation above the horizon (0, 90]"),
                ));
            }
        }
        for (k, v) in [
            ("azimuth_deg", self.azimuth_deg),
            ("street_azimuth_deg", self.street_azimuth_deg),
        ] {
            if let Some(a) = v {
                if !a.is_finite() {
                    return Err((k.into(), format!("{a} is not an angle")));
                }
            }
        }
        for (state, per, ber) in [
            ("shadowed", self.shadowed_per, self.shadowed_ber),
            ("los", self.los_per, self.los_ber),
        ] {
            super::loss::check_per_or_ber(
                &format!("{state}_per"),
                &format!("{state}_ber"),
                per,
                ber,
            )?;
        }
        Ok(())
    }

    /// Bytes the synthesised street of one direction can take at most (for
    /// the memory estimate): its buildings and crossroads.
    pub fn street_bytes(&self) -> u64 {
        if self.masking_file.is_some() {
            return 0;
        }
        let p = self.params();
        let per_side =
            (p.section / p.wmin + p.section / (p.block + p.cross) + 2.0).min(2.0 * MAX_BUILDINGS);
        (2.0 * per_side * 24.0 + p.section / (p.block + p.cross) * 16.0) as u64
    }

    fn params(&self) -> Params {
        let width = self.street_width_m.unwrap_or(20.0);
        Params {
            width,
            h_t: self.terminal_height_m.unwrap_or(1.5),
            offset: self.lateral_offset_m.unwrap_or(0.0),
            median: self.height_median_m.unwrap_or(15.0),
            sigma: self.height_sigma.unwrap_or(0.4),
            wmin: self.building_width_min_m.unwrap_or(10.0),
            wmax: self.building_width_max_m.unwrap_or(30.0),
            block: self.block_length_m.unwrap_or(100.0),
            cross: self.crossroad_width_m.unwrap_or(width),
            section: self.section_length_m.unwrap_or(500.0),
        }
    }
}

struct Params {
    width: f64,
    h_t: f64,
    offset: f64,
    median: f64,
    sigma: f64,
    wmin: f64,
    wmax: f64,
    block: f64,
    cross: f64,
    section: f64,
}

/// One side of a synthesised street section: buildings as (start, end,
/// height) along the section, sorted, crossroads left out.
#[derive(Clone, Debug, Default)]
pub struct Side {
    pub buildings: Vec<(f64, f64, f64)>,
}

impl Side {
    /// Height of the facade at `x` (0 in a crossroad or off the section).
    pub fn height_at(&self, x: f64) -> f64 {
        let i = self.buildings.partition_point(|b| b.1 <= x);
        match self.buildings.get(i) {
            Some(&(a, b, h)) if a <= x && x < b => h,
            _ => 0.0,
        }
    }
}

/// A synthetic street canyon and the terminal's route along it.
pub struct Street {
    /// Left and right sides, as seen travelling in the section's direction.
    pub sides: [Side; 2],
    pub width: f64,
    pub terminal_height: f64,
    pub offset: f64,
    pub street_azimuth_deg: f64,
    pub section: f64,
    pub cross: f64,
    /// Route distance at t = 0.
    pub start_m: f64,
    /// Crossroads inside the section: (start, end).
    pub crossroads: Vec<(f64, f64)>,
}

impl Street {
    fn synthesise(p: &Params, azimuth: Option<f64>, rng: &mut RngStream) -> Street {
        // Crossroads of the section: after each block.
        let mut crossroads = Vec::new();
        let mut x = p.block;
        while x < p.section {
            crossroads.push((x, (x + p.cross).min(p.section)));
            x += p.cross + p.block;
        }
        let mut sides: [Side; 2] = Default::default();
        for side in sides.iter_mut() {
            let mut block_start = 0.0;
            let mut k = 0;
            while block_start < p.section {
                let block_end = crossroads.get(k).map_or(p.section, |c| c.0);
                let mut x = block_start;
                while x < block_end {
                    let w = p.wmin + (p.wmax - p.wmin) * rng.uniform();
                    let h = p.median * (p.sigma * std_normal(rng)).exp();
                    let end = (x + w).min(block_end);
                    side.buildings.push((x, end, h));
                    x = end;
                }
                block_start = crossroads.get(k).map_or(p.section, |c| c.1);
                k += 1;
            }
        }
        let street_azimuth_deg = azimuth.unwrap_or_else(|| 360.0 * rng.uniform());
        let period = 2.0 * (p.section + p.cross);
        let start_m = period * rng.uniform();
        Street {
            sides,
            width: p.width,
            terminal_height: p.h_t,
            offset: p.offset,
            street_azimuth_deg,
            section: p.section,
            cross: p.cross,
            start_m,
            crossroads,
        }
    }

    /// Length of one cycle of the route (section, crossroad, reversed section, crossroad).
    pub fn period(&self) -> f64 {
        2.0 * (self.section + self.cross)
    }

    /// Where route distance `r` is: `Some((x in the section, reversed))`, or
    /// `None` in a crossroad between traversals.
    pub fn locate(&self, r: f64) -> Option<(f64, bool)> {
        let u = r.rem_euclid(self.period());
        let (s, c) = (self.section, self.cross);
        if u < s {
            Some((u, false))
        } else if u < s + c {
            None
        } else if u < 2.0 * s + c {
            Some((s - (u - s - c), true))
        } else {
            None
        }
    }

    /// Masking angle (degrees) at route distance `r` towards azimuth `az`.
    pub fn masking(&self, r: f64, az: f64) -> f64 {
        let Some((x, reversed)) = self.locate(r) else {
            return 0.0;
        };
        // In a crossroad? (They are disjoint and in order.)
        let i = self.crossroads.partition_point(|&(a, _)| a <= x);
        if i > 0 && x < self.crossroads[i - 1].1 {
            return 0.0;
        }
        let heading = self.street_azimuth_deg + if reversed { 180.0 } else { 0.0 };
        let alpha = (az - heading).to_radians();
        let (sa, ca) = alpha.sin_cos();
        if sa.abs() < 1e-9 {
            return 0.0;
        }
        let right = sa > 0.0;
        let d_perp = if right {
            self.width / 2.0 - self.offset
        } else {
            self.width / 2.0 + self.offset
        };
        let d = d_perp / sa.abs();
        let dir = if reversed { -1.0 } else { 1.0 };
        let xh = x + dir * d * ca;
        // Sides are named for the forward traversal: reversed, right is left.
        let side = if right != reversed { 1 } else { 0 };
        let h = self.sides[side].height_at(xh);
        self.masking_for(h, d)
    }

    /// The elevation a facade of height `h` at horizontal distance `d` masks.
    pub fn masking_for(&self, h: f64, d: f64) -> f64 {
        if h <= self.terminal_height {
            0.0
        } else {
            ((h - self.terminal_height) / d).atan().to_degrees()
        }
    }
}

/// A standard normal draw (Box–Muller, one of the pair).
fn std_normal(rng: &mut RngStream) -> f64 {
    let u1 = 1.0 - rng.uniform();
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// Where the masking angles come from.
pub enum Skyline {
    Street(Street),
    Recorded(Arc<MaskTable>),
}

pub struct LmsUrban {
    pub skyline: Skyline,
    pub speed_mps: f64,
    pub elevation_deg: f64,
    pub azimuth_deg: f64,
    shadowed: StateLoss,
    los: StateLoss,
    apply_to: ApplyTo,
    rng: RngStream,
    /// The satellite's elevation and azimuth over time, when the link's
    /// ends move (and the spec does not fix them).
    look: Option<super::LookFn>,
    fixed_angles: bool,
}

impl LmsUrban {
    pub fn build(s: &LmsUrbanSpec, ctx: &ChannelCtx) -> LmsUrban {
        let p = s.params();
        let g = ctx.geometry;
        let elevation_deg = s
            .elevation_deg
            .or(g.map(|g| g.elevation_deg))
            .expect("lms-urban: elevation checked at plan build");
        let azimuth_deg = s
            .azimuth_deg
            .or(g.map(|g| g.azimuth_deg))
            .expect("lms-urban: azimuth checked at plan build");
        let skyline = match (&s.masks.0, &s.masking_file) {
            (Some(m), _) => Skyline::Recorded(m.clone()),
            (None, Some(f)) => Skyline::Recorded(Arc::new(
                MaskTable::load(f).unwrap_or_else(|e| panic!("lms-urban: {e}")),
            )),
            (None, None) => {
                // The street belongs to the link, not to one direction.
                let link = ctx.link.rsplit_once(':').map_or(ctx.link, |x| x.0);
                let mut rng =
                    RngStream::derive(ctx.seed, &format!("lms-urban:{link}:{}", ctx.index));
                Skyline::Street(Street::synthesise(&p, s.street_azimuth_deg, &mut rng))
            }
        };
        LmsUrban {
            skyline,
            speed_mps: s.speed_mps.unwrap_or(2.0),
            elevation_deg,
            azimuth_deg,
            shadowed: StateLoss::from_pair(s.shadowed_per, s.shadowed_ber, 1.0),
            los: StateLoss::from_pair(s.los_per, s.los_ber, 0.0),
            apply_to: s.apply_to.unwrap_or_default(),
            rng: ctx.own_rng("lms-urban"),
            look: None,
            fixed_angles: s.elevation_deg.is_some() && s.azimuth_deg.is_some(),
        }
    }

    /// The satellite's (elevation, azimuth) at `t`, degrees.
    #[inline]
    pub fn angles_at(&self, t: Time) -> (f64, f64) {
        match &self.look {
            Some(f) => f(t),
            None => (self.elevation_deg, self.azimuth_deg),
        }
    }

    /// Route distance at `t` (m).
    pub fn distance_at(&self, t: Time) -> f64 {
        let r = self.speed_mps * t.as_secs_f64();
        match &self.skyline {
            Skyline::Street(s) => s.start_m + r,
            Skyline::Recorded(_) => r,
        }
    }

    /// Masking angle at route distance `r` towards azimuth `az`.
    pub fn masking_at_distance(&self, r: f64, az: f64) -> f64 {
        match &self.skyline {
            Skyline::Street(s) => s.masking(r, az),
            Skyline::Recorded(m) => m.masking(r, az),
        }
    }

    /// Masking angle towards the satellite at `t`.
    pub fn masking_at(&self, t: Time) -> f64 {
        self.masking_at_distance(self.distance_at(t), self.angles_at(t).1)
    }

    /// Line of sight at `t`.
    pub fn los_at(&self, t: Time) -> bool {
        let (el, az) = self.angles_at(t);
        el > self.masking_at_distance(self.distance_at(t), az)
    }

    /// The full skyline at `t`: masking angle per whole degree of azimuth 0..359.
    pub fn skyline_at(&self, t: Time) -> Vec<f64> {
        let r = self.distance_at(t);
        (0..360)
            .map(|a| self.masking_at_distance(r, a as f64))
            .collect()
    }
}

impl ChannelModel for LmsUrban {
    fn is_lost(&mut self, tx: &Tx) -> bool {
        if !self.apply_to.covers(tx.kind) {
            return false;
        }
        let shadowed = !self.los_at(tx.start) || !self.los_at(tx.end);
        let p = if shadowed { self.shadowed } else { self.los }.probability(tx.bytes);
        self.rng.bernoulli(p)
    }

    fn state(&mut self, now: Time) -> Option<ChannelState> {
        let los = self.los_at(now);
        Some(ChannelState {
            state: (!los) as u32,
            loss_probability: if los { self.los } else { self.shadowed }.probability(1500),
        })
    }

    fn observe(&mut self, now: Time, out: &mut Vec<(&'static str, f64)>) {
        out.push(("masking_deg", self.masking_at(now)));
    }

    /// Take the satellite's elevation and azimuth from `look` at each instant.
    fn follow(&mut self, look: super::LookFn) {
        if !self.fixed_angles {
            self.look = Some(look);
        }
    }
}

mod spec_ops;

#[cfg(test)]
mod tests {
    use super::*;

    fn street(spec: &LmsUrbanSpec, seed: u64) -> Street {
        let p = spec.params();
        Street::synthesise(
            &p,
            spec.street_azimuth_deg,
            &mut RngStream::derive(seed, "s"),
        )
    }

    #[test]
    fn a_building_masks_below_atan_of_its_height_over_distance() {
        // One building of 21.5 m on each side, perpendicular view.
        let spec = LmsUrbanSpec {
            street_width_m: Some(20.0),
            lateral_offset_m: Some(2.0),
            street_azimuth_deg: Some(0.0),
            height_sigma: Some(0.0),
            height_median_m: Some(21.5),
            ..Default::default()
        };
        let s = street(&spec, 1);
        // Satellite due east (right of a northbound terminal), facade 8 m
        // away, at x = 50 m of the forward traversal.
        let expect = (20.0f64 / 8.0).atan().to_degrees();
        assert!((s.masking(50.0, 90.0) - expect).abs() < 1e-9);
        // West: facade 12 m away.
        let west = (20.0f64 / 12.0).atan().to_degrees();
        assert!((s.masking(50.0, 270.0) - west).abs() < 1e-9);
        // Oblique at 30° off the axis: d = 8 / sin 30° = 16 m.
        let obl = (20.0f64 / 16.0).atan().to_degrees();
        assert!((s.masking(50.0, 30.0) - obl).abs() < 1e-9);
        // LOS exactly when the elevation exceeds it.
        assert!(expect > 68.0 && expect < 68.3);
    }

    #[test]
    fn crossroads_and_the_reversed_section_are_open_or_swapped() {
        let spec = LmsUrbanSpec {
            street_azimuth_deg: Some(0.0),
            height_sigma: Some(0.0),
            ..Default::default()
        };
        let s = street(&spec, 2);
        // In the first crossroad (100..120 m) the sky is open.
        assert_eq!(s.masking(110.0, 90.0), 0.0);
        // Between the traversals (500..520 m) too.
        assert_eq!(s.masking(510.0, 90.0), 0.0);
        // Reversed: position x = 50 m is reached at 520 + 450 = 970 m and
        // the east facade is now the left one, the same buildings.
        assert!((s.masking(970.0, 90.0) - s.masking(50.0, 90.0)).abs() < 1e-9);
    }

    #[test]
    fn line_of_sight_fraction_falls_as_the_elevation_drops() {
        let spec = LmsUrbanSpec {
            street_azimuth_deg: Some(0.0),
            ..Default::default()
        };
        let s = street(&spec, 3);
        let frac = |el: f64| {
            let n = 20_000;
            (0..n)
                .filter(|&i| el > s.masking(i as f64 * 0.1, 60.0))
                .count() as f64
                / n as f64
        };
        let fr: Vec<f64> = [80.0, 60.0, 45.0, 30.0, 15.0]
            .iter()
            .map(|&e| frac(e))
            .collect();
        for w in fr.windows(2) {
            assert!(w[0] > w[1], "{fr:?}");
        }
        assert!(fr[0] > 0.95 && fr[4] < 0.5, "{fr:?}");
    }

    #[test]
    fn on_a_moving_link_the_satellite_elevation_and_azimuth_follow_the_positions() {
        // Recorded skyline: 30° towards the north-east quarter, open elsewhere.
        let masks = MaskTable {
            distance_m: vec![0.0],
            angles: vec![vec![(0.0, 30.0), (90.0, 30.0), (91.0, 0.0), (359.0, 0.0)]],
        };
        let spec = LmsUrbanSpec {
            masks: Loaded(Some(Arc::new(masks))),
            masking_file: Some("recorded.csv".into()),
            ..Default::default()
        };
        let ctx = ChannelCtx {
            seed: 1,
            link: "l:forward",
            index: 0,
            geometry: Some(super::super::HopGeometry {
                ground_node: 0,
                lat_deg: 0.0,
                lon_deg: 0.0,
                sat_lon_deg: 0.0,
                elevation_deg: 60.0,
                azimuth_deg: 45.0,
                slant_range_m: 1e6,
            }),
        };
        let mut m = LmsUrban::build(&spec, &ctx);
        let s = Time::from_secs_f64;
        // Fixed at the geometry of t = 0: 60° over a 30° mask.
        assert!(m.los_at(s(0.0)) && m.los_at(s(20.0)));
        // The satellite sinks to 20° at 10 s, still behind the mask, then
        // moves to azimuth 180° (open sky) at 30 s.
        m.follow(Arc::new(|t: Time| {
            let t = t.as_secs_f64();
            if t < 10.0 {
                (60.0, 45.0)
            } else if t < 30.0 {
                (20.0, 45.0)
            } else {
                (20.0, 180.0)
            }
        }));
        assert!(m.los_at(s(5.0)));
        assert!(!m.los_at(s(15.0)));
        assert!(m.los_at(s(35.0)));
        // A spec that fixes the angles ignores the motion.
        let fixed = LmsUrbanSpec {
            elevation_deg: Some(20.0),
            azimuth_deg: Some(45.0),
            ..spec.clone()
        };
        let mut f = LmsUrban::build(&fixed, &ctx);
        f.follow(Arc::new(|_| (80.0, 180.0)));
        assert!(!f.los_at(s(35.0)));
    }

    #[test]
    fn recorded_masks_interpolate_azimuths_and_hold_distances() {
        let m = MaskTable {
            distance_m: vec![0.0, 10.0],
            angles: vec![
                vec![(0.0, 10.0), (90.0, 40.0), (180.0, 10.0)],
                vec![(45.0, 5.0)],
            ],
        };
        assert_eq!(m.masking(5.0, 45.0), 25.0);
        assert_eq!(m.masking(5.0, 90.0), 40.0);
        // 270° lies between 180° (10) and 360° (= 0°, 10).
        assert_eq!(m.masking(5.0, 270.0), 10.0);
        assert_eq!(m.masking(500.0, 300.0), 5.0);
    }
}
