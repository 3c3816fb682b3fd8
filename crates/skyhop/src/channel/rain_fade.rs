//! Es/N₀ over time on a satellite hop: a clear-sky link budget from the
//! hop's geometry (`link_budget.rs`: EIRP, free-space loss over the slant
//! range, G/T) minus a rain attenuation series, either synthesised from the
//! site's rain statistics (ITU-R P.618 + P.1853, `rain/`) or replayed from a
//! recorded trace (`t_s,attenuation_db`, piecewise constant like `trace`).
//!
//! As a channel model it is the source of a direction's Es/N₀
//! ([`ChannelModel::esn0_db`]) for a link layer that adapts to it (the
//! DVB-S2 forward carrier); on a plain link it loses a packet whose
//! transmission starts while Es/N₀ is below `esn0_threshold_db` (for a
//! carrier of `symbol_rate_mbaud`), and loses nothing otherwise.
//!
//! The rain is the link's, not one direction's: both directions draw the
//! same Gaussian process X(t) (a stream named after the link and the
//! model's position), each through its own fitted law, so a fade hits the
//! uplink and the downlink of a terminal together, each at its frequency.
//!
//! The law is fitted once at the hop's elevation when the plan is built; a
//! terminal that moves changes its free-space loss with its slant range
//! (`follow_range`), not its rain statistics.

use super::link_budget::{combine, to_db, Budget, MEDIUM_TEMPERATURE_K};
use super::rain::{Lognormal, RainPath, Synthesiser};
use super::table::{self, Loaded};
use super::trace::AfterEnd;
use super::{ApplyTo, ChannelCtx, ChannelModel, ChannelState, HopGeometry, Tx};
use crate::engine::time::{Dur, Time};
use crate::units::Duration;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The site's rain statistics for P.618 (`rain = { ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SiteRain {
    /// Rain rate exceeded for 0.01 % of an average year, mm/h (P.837).
    pub r001_mm_h: f64,
    /// Rain height h_R above mean sea level, km (P.839: h₀ + 0.36 km).
    pub rain_height_km: f64,
    /// The station's height above mean sea level, km (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub station_height_km: Option<f64>,
    /// Polarisation tilt, degrees (default 45: circular).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tilt_deg: Option<f64>,
}

/// `{ model = "rain-fade", ... }` (see `docs/scenario.md`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RainFadeSpec {
    /// Carrier frequency, GHz.
    pub frequency_ghz: f64,
    /// Transmitter EIRP, dBW (with `gt_dbk`: the clear-sky budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eirp_dbw: Option<f64>,
    /// Receiver figure of merit G/T, dB/K.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gt_dbk: Option<f64>,
    /// Slant range, km (default: from the nodes' positions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_km: Option<f64>,
    /// Fixed losses besides free space, dB (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_losses_db: Option<f64>,
    /// Receiver system noise temperature, K: rain then also adds sky noise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_noise_k: Option<f64>,
    /// The rain medium's mean temperature, K (default 275).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medium_temperature_k: Option<f64>,
    /// C/(N + I) of the rest of the chain (feeder link, interference), dB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_cn_db: Option<f64>,
    /// Clear-sky C/N₀, dBHz, instead of EIRP, G/T and range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clear_sky_cn0_dbhz: Option<f64>,
    /// Probability of rain on the path, % of time (P.837's P₀).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_rain: Option<f64>,
    /// The site's rain statistics: attenuation from P.618.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rain: Option<SiteRain>,
    /// A measured exceedance curve instead: [[percent of time, dB], ...].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ccdf: Option<Vec<[f64; 2]>>,
    /// A recorded attenuation trace instead (CSV `t_s,attenuation_db`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The trace after its last row: "hold" (default) or "loop".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_end: Option<AfterEnd>,
    /// Sampling time of the synthesised series (default 1 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<Duration>,
    /// Path elevation, degrees (default: from the nodes' positions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elevation_deg: Option<f64>,
    /// Station latitude, degrees (default: from the nodes' positions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat_deg: Option<f64>,
    /// Symbol rate of the carrier, Mbaud (for Es/N₀ on a plain link).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol_rate_mbaud: Option<f64>,
    /// A plain link loses packets sent while Es/N₀ is below this, dB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub esn0_threshold_db: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apply_to: Option<ApplyTo>,
    #[serde(skip)]
    pub prepared: Loaded<Prepared>,
}

/// What the plan resolves once: the clear-sky budget's range and the
/// attenuation source.
#[derive(Debug)]
pub struct Prepared {
    pub range_m: Option<f64>,
    pub source: Source,
}

/// Where the attenuation comes from.
#[derive(Debug)]
pub enum Source {
    /// P.1853 synthesis of this fitted law.
    Law(Lognormal),
    /// A recorded trace: row times and attenuations (dB).
    Trace {
        t: Vec<Time>,
        a_db: Vec<f64>,
        looping: bool,
    },
}

fn finite(
    key: &str,
    v: Option<f64>,
    ok: impl Fn(f64) -> bool,
    what: &str,
) -> Result<(), (String, String)> {
    match v {
        Some(x) if !(x.is_finite() && ok(x)) => Err((key.into(), format!("{x} {what}"))),
        _ => Ok(()),
    }
}

impl RainFadeSpec {
    /// Range checks that need no file and no geometry.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let pos = |x: f64| x > 0.0;
        finite(
            "frequency_ghz",
            Some(self.frequency_ghz),
            |f| (1.0..=1000.0).contains(&f),
            "GHz is outside 1–1000 GHz (ITU-R P.838's range)",
        )?;
        finite(
            "range_km",
            self.range_km,
            pos,
            "is not a positive slant range",
        )?;
        finite(
            "other_losses_db",
            self.other_losses_db,
            |x| x >= 0.0,
            "is not a loss (0 dB or more)",
        )?;
        finite(
            "system_noise_k",
            self.system_noise_k,
            pos,
            "is not a noise temperature (K, above 0)",
        )?;
        finite(
            "medium_temperature_k",
            self.medium_temperature_k,
            pos,
            "is not a temperature (K, above 0)",
        )?;
        finite(
            "symbol_rate_mbaud",
            self.symbol_rate_mbaud,
            pos,
            "is not a positive symbol rate",
        )?;
        for (k, v) in [
            ("eirp_dbw", self.eirp_dbw),
            ("gt_dbk", self.gt_dbk),
            ("other_cn_db", self.other_cn_db),
            ("clear_sky_cn0_dbhz", self.clear_sky_cn0_dbhz),
            ("esn0_threshold_db", self.esn0_threshold_db),
        ] {
            finite(k, v, |_| true, "is not a finite number of dB")?;
        }
        finite(
            "elevation_deg",
            self.elevation_deg,
            |e| e > 0.0 && e <= 90.0,
            "is not an elevation in (0, 90] degrees",
        )?;
        finite(
            "lat_deg",
            self.lat_deg,
            |l| (-90.0..=90.0).contains(&l),
            "is not a latitude in [-90, 90]",
        )?;
        match (self.clear_sky_cn0_dbhz, self.eirp_dbw, self.gt_dbk) {
            (Some(_), None, None) | (None, Some(_), Some(_)) => {}
            (Some(_), _, _) => {
                return Err((
                    "clear_sky_cn0_dbhz".into(),
                    "give either clear_sky_cn0_dbhz or eirp_dbw and gt_dbk, not both".into(),
                ))
            }
            (None, None, _) => return Err((
                "eirp_dbw".into(),
                "missing: the clear-sky budget needs eirp_dbw and gt_dbk (or clear_sky_cn0_dbhz)"
                    .into(),
            )),
            (None, Some(_), None) => {
                return Err((
                    "gt_dbk".into(),
                    "missing: the clear-sky budget needs gt_dbk with eirp_dbw".into(),
                ))
            }
        }
        if self.esn0_threshold_db.is_some() && self.symbol_rate_mbaud.is_none() {
            return Err((
                "symbol_rate_mbaud".into(),
                "missing: esn0_threshold_db needs the carrier's symbol rate".into(),
            ));
        }
        if self.sample.is_some_and(|d| d.0 .0 == 0) {
            return Err(("sample".into(), "the sampling time must be positive".into()));
        }
        let sources = [
            self.rain.is_some(),
            self.ccdf.is_some(),
            self.file.is_some(),
        ];
        match sources.iter().filter(|&&x| x).count() {
            1 => {}
            0 => return Err(("rain".into(), "missing: give the site's rain statistics (rain = { r001_mm_h, rain_height_km } with p_rain), a measured ccdf with p_rain, or a recorded file".into())),
            _ => return Err(("file".into(), "give one attenuation source: rain, ccdf or file".into())),
        }
        if self.file.is_none() {
            finite(
                "p_rain",
                self.p_rain,
                |p| p > 0.0 && p < 100.0,
                "% is not a probability of rain in (0, 100) %",
            )?;
            if self.p_rain.is_none() {
                return Err((
                    "p_rain".into(),
                    "missing: the probability of rain on the path, % of time (ITU-R P.837's P0)"
                        .into(),
                ));
            }
        } else if self.p_rain.is_some() {
            return Err((
                "p_rain".into(),
                "a recorded file gives the attenuation itself; p_rain belongs to rain or ccdf"
                    .into(),
            ));
        }
        if let Some(r) = &self.rain {
            finite(
                "rain.r001_mm_h",
                Some(r.r001_mm_h),
                |x| x > 0.0,
                "mm/h is not a positive rain rate",
            )?;
            finite(
                "rain.rain_height_km",
                Some(r.rain_height_km),
                |x| (0.0..=10.0).contains(&x),
                "km is not a rain height in [0, 10] km",
            )?;
            finite(
                "rain.station_height_km",
                r.station_height_km,
                |x| (-0.5..=9.0).contains(&x),
                "km is not a station height",
            )?;
            finite(
                "rain.tilt_deg",
                r.tilt_deg,
                |x| (0.0..=90.0).contains(&x),
                "is not a polarisation tilt in [0, 90] degrees",
            )?;
        }
        if let Some(c) = &self.ccdf {
            for (i, [p, a]) in c.iter().enumerate() {
                if !(p.is_finite() && *p > 0.0 && *p < 100.0 && a.is_finite() && *a > 0.0) {
                    return Err((format!("ccdf[{i}]"), format!("[{p}, {a}] is not [percent of time in (0, 100), attenuation in dB above 0]")));
                }
            }
        }
        Ok(())
    }

    /// At plan build: read the trace, or fit the law at the hop's
    /// elevation; fix the clear-sky range.
    pub fn prepare(&mut self, geometry: Option<&HopGeometry>) -> Result<(), (String, String)> {
        let range_m = self
            .range_km
            .map(|r| r * 1e3)
            .or(geometry.map(|g| g.slant_range_m));
        if self.clear_sky_cn0_dbhz.is_none() && range_m.is_none() {
            return Err(("range_km".into(), "missing: the free-space loss needs the slant range; give range_km, or positions (lat/lon, geo_longitude) on the link's nodes".into()));
        }
        let source = if let Some(f) = &self.file {
            load_trace(f, self.after_end == Some(AfterEnd::Loop))
                .map_err(|m| ("file".to_string(), m))?
        } else {
            let p_rain = self.p_rain.expect("checked by validate");
            let law = if let Some(c) = &self.ccdf {
                let pairs: Vec<(f64, f64)> = c.iter().map(|&[p, a]| (p, a)).collect();
                Lognormal::fit(&pairs, p_rain).map_err(|m| ("ccdf".to_string(), m))?
            } else {
                let r = self.rain.as_ref().expect("checked by validate");
                let elevation = self.elevation_deg.or(geometry.map(|g| g.elevation_deg)).ok_or_else(|| {
                    ("elevation_deg".to_string(), "missing: P.618 needs the path's elevation; give elevation_deg, or positions on the link's nodes".to_string())
                })?;
                let lat = self.lat_deg.or(geometry.map(|g| g.lat_deg)).ok_or_else(|| {
                    ("lat_deg".to_string(), "missing: P.618 needs the station's latitude; give lat_deg, or positions on the link's nodes".to_string())
                })?;
                let path = RainPath {
                    lat_deg: lat,
                    station_height_km: r.station_height_km.unwrap_or(0.0),
                    rain_height_km: r.rain_height_km,
                    r001_mm_h: r.r001_mm_h,
                    freq_ghz: self.frequency_ghz,
                    elevation_deg: elevation,
                    tilt_deg: r.tilt_deg.unwrap_or(45.0),
                };
                Lognormal::from_p618(&path, p_rain).map_err(|m| ("rain".to_string(), m))?
            };
            Source::Law(law)
        };
        self.prepared = Loaded(Some(Arc::new(Prepared { range_m, source })));
        Ok(())
    }

    fn budget(&self) -> Option<Budget> {
        Some(Budget {
            freq_hz: self.frequency_ghz * 1e9,
            eirp_dbw: self.eirp_dbw?,
            gt_dbk: self.gt_dbk?,
            other_losses_db: self.other_losses_db.unwrap_or(0.0),
            system_noise_k: self.system_noise_k,
            medium_temperature_k: self.medium_temperature_k.unwrap_or(MEDIUM_TEMPERATURE_K),
            other_cn_db: self.other_cn_db,
        })
    }
}

impl super::ChannelSpecOps for RainFadeSpec {
    type Model = RainFade;
    fn build(&self, ctx: &ChannelCtx) -> RainFade {
        RainFade::build(self, ctx)
    }
    fn validate(&self) -> Result<(), (String, String)> {
        RainFadeSpec::validate(self)
    }
    fn apply_to_mut(&mut self) -> Option<&mut Option<ApplyTo>> {
        Some(&mut self.apply_to)
    }
    fn resolve_paths(&mut self, base: &std::path::Path) {
        if let Some(f) = self.file.as_mut() {
            *f = table::resolve(base, f);
        }
    }
    fn prepare(&mut self, geometry: Option<&HopGeometry>) -> Result<(), (String, String)> {
        RainFadeSpec::prepare(self, geometry)
    }
    fn gives_esn0(&self) -> bool {
        true
    }
}

fn load_trace(file: &str, looping: bool) -> Result<Source, String> {
    let tab = table::read(file, &[&["t_s", "attenuation_db"]])?;
    let (mut t, mut a_db) = (Vec::new(), Vec::new());
    for (line, row) in &tab.rows {
        let (ts, a) = (row[0], row[1]);
        if ts < 0.0 {
            return Err(format!("{file} line {line}: t_s {ts} is negative"));
        }
        let tt = Time::from_secs_f64(ts);
        if t.last().is_some_and(|&p| tt <= p) {
            return Err(format!(
                "{file} line {line}: t_s {ts} does not increase on the previous row"
            ));
        }
        if a < 0.0 {
            return Err(format!(
                "{file} line {line}: attenuation_db {a} is negative"
            ));
        }
        t.push(tt);
        a_db.push(a);
    }
    if looping && t.last().is_none_or(|l| l.0 == 0) {
        return Err(format!(
            "{file}: a looping trace needs a last row after t = 0 (it marks the period)"
        ));
    }
    Ok(Source::Trace { t, a_db, looping })
}

/// The slant range over time of a hop between moving nodes, metres.
pub type RangeFn = Arc<dyn Fn(Time) -> f64 + Send + Sync>;

/// The attenuation as a run reads it.
enum Series {
    Synth(Box<Synthesiser>),
    Trace(Arc<Prepared>),
}

/// The model of one direction.
pub struct RainFade {
    budget: Option<Budget>,
    clear_cn0_dbhz: Option<f64>,
    other_cn_db: Option<f64>,
    range_m: f64,
    range_fn: Option<RangeFn>,
    series: Series,
    symbol_rate: Option<f64>,
    threshold_db: Option<f64>,
    apply_to: ApplyTo,
}

impl RainFade {
    pub fn build(s: &RainFadeSpec, ctx: &ChannelCtx) -> RainFade {
        let prepared = match &s.prepared.0 {
            Some(p) => p.clone(),
            None => {
                // A spec built by hand, not through a plan: resolve it now.
                let mut s2 = s.clone();
                s2.prepare(ctx.geometry.as_ref())
                    .unwrap_or_else(|(k, m)| panic!("rain-fade {k}: {m}"));
                s2.prepared.0.expect("prepared")
            }
        };
        let series = match &prepared.source {
            Source::Law(law) => {
                // One rain process per link and position in the stack.
                let link = ctx.link.rsplit_once(':').map_or(ctx.link, |x| x.0);
                let rng = crate::engine::rng::RngStream::derive(
                    ctx.seed,
                    &format!("rain-fade:{link}:{}", ctx.index),
                );
                let ts = s.sample.map_or(Dur::from_secs(1), |d| d.0);
                Series::Synth(Box::new(Synthesiser::new(*law, ts.0, rng)))
            }
            Source::Trace { .. } => Series::Trace(prepared.clone()),
        };
        RainFade {
            budget: s.budget(),
            clear_cn0_dbhz: s.clear_sky_cn0_dbhz,
            other_cn_db: s.other_cn_db,
            range_m: prepared.range_m.unwrap_or(0.0),
            range_fn: None,
            series,
            symbol_rate: s.symbol_rate_mbaud.map(|r| r * 1e6),
            threshold_db: s.esn0_threshold_db,
            apply_to: s.apply_to.unwrap_or_default(),
        }
    }

    /// Follow a moving hop's slant range (unless `range_km` fixes it... the
    /// plan decides whether to call this).
    pub fn follow_range(&mut self, range: RangeFn) {
        self.range_fn = Some(range);
    }

    /// Rain attenuation at `t`, dB.
    pub fn attenuation_db(&mut self, t: Time) -> f64 {
        match &mut self.series {
            Series::Synth(s) => s.at(t),
            Series::Trace(p) => {
                let Source::Trace {
                    t: ts,
                    a_db,
                    looping,
                } = &p.source
                else {
                    unreachable!("a trace series holds a trace")
                };
                let mut q = t;
                if *looping {
                    q = Time(t.0 % ts.last().unwrap().0);
                }
                a_db[ts.partition_point(|&x| x <= q).saturating_sub(1)]
            }
        }
    }

    fn range_at(&self, t: Time) -> f64 {
        match &self.range_fn {
            Some(f) => f(t),
            None => self.range_m,
        }
    }

    /// This hop's C/N₀ at `t` (dBHz), rain included, before the rest of the chain.
    pub fn cn0_dbhz(&mut self, t: Time) -> f64 {
        let a = self.attenuation_db(t);
        match (self.clear_cn0_dbhz, self.budget) {
            (Some(c), _) => c - a,
            (None, Some(b)) => b.clear_cn0_dbhz(self.range_at(t)) - b.rain_degradation_db(a),
            (None, None) => unreachable!("validated: a clear-sky budget is given"),
        }
    }

    /// Es/N₀ (dB) at `t` for a carrier of `symbol_rate` symbols/s, the
    /// rest of the chain combined.
    pub fn esn0_at(&mut self, t: Time, symbol_rate: f64) -> f64 {
        combine(self.cn0_dbhz(t) - to_db(symbol_rate), self.other_cn_db)
    }
}

impl ChannelModel for RainFade {
    fn is_lost(&mut self, tx: &Tx) -> bool {
        match (self.threshold_db, self.symbol_rate) {
            (Some(th), Some(rs)) if self.apply_to.covers(tx.kind) => {
                self.esn0_at(tx.start, rs) < th
            }
            _ => false,
        }
    }
    fn state(&mut self, now: Time) -> Option<ChannelState> {
        let below = match (self.threshold_db, self.symbol_rate) {
            (Some(th), Some(rs)) => self.esn0_at(now, rs) < th,
            _ => false,
        };
        Some(ChannelState {
            state: below as u32,
            loss_probability: if below { 1.0 } else { 0.0 },
        })
    }
    fn esn0_db(&mut self, now: Time, symbol_rate: f64) -> Option<f64> {
        Some(self.esn0_at(now, symbol_rate))
    }
    fn observe(&mut self, now: Time, out: &mut Vec<(&'static str, f64)>) {
        out.push(("attenuation_db", self.attenuation_db(now)));
        out.push(("cn0_dbhz", self.cn0_dbhz(now)));
        if let Some(rs) = self.symbol_rate {
            out.push(("esn0_db", self.esn0_at(now, rs)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(toml_text: &str) -> RainFadeSpec {
        toml::from_str(toml_text).unwrap()
    }

    fn geometry() -> HopGeometry {
        HopGeometry {
            ground_node: 0,
            lat_deg: 51.5,
            lon_deg: -0.14,
            sat_lon_deg: 10.0,
            elevation_deg: 31.076_991_24,
            azimuth_deg: 160.0,
            slant_range_m: 3.8e7,
        }
    }

    fn ctx(g: Option<HopGeometry>) -> ChannelCtx<'static> {
        ChannelCtx {
            seed: 1,
            link: "t1:forward",
            index: 0,
            geometry: g,
        }
    }

    const SITE: &str = r#"
frequency_ghz = 14.25
eirp_dbw = 50.0
gt_dbk = 20.0
p_rain = 5.0
symbol_rate_mbaud = 10.0
esn0_threshold_db = 5.0
rain = { r001_mm_h = 26.48052, rain_height_km = 2.4525, station_height_km = 0.031382984, tilt_deg = 0.0 }
"#;

    #[test]
    fn the_law_is_fitted_to_p618_at_the_hops_elevation() {
        let mut s = spec(SITE);
        s.validate().unwrap();
        s.prepare(Some(&geometry())).unwrap();
        let p = s.prepared.0.clone().unwrap();
        let Source::Law(law) = p.source else { panic!() };
        // The fit through P.618's points at 0.01 … 5 %.
        let path = RainPath {
            lat_deg: 51.5,
            station_height_km: 0.031_382_984,
            rain_height_km: 2.4525,
            r001_mm_h: 26.480_52,
            freq_ghz: 14.25,
            elevation_deg: 31.076_991_24,
            tilt_deg: 0.0,
        };
        assert_eq!(law, Lognormal::from_p618(&path, 5.0).unwrap());
        assert_eq!(p.range_m, Some(3.8e7));
    }

    #[test]
    fn es_n0_is_the_budget_minus_the_rain() {
        let mut s = spec(SITE);
        s.prepare(Some(&geometry())).unwrap();
        let mut m = RainFade::build(&s, &ctx(Some(geometry())));
        let b = s.budget().unwrap();
        for k in 0..200 {
            let t = Time::from_secs_f64(k as f64 * 37.0);
            let a = m.attenuation_db(t);
            let want = b.clear_cn0_dbhz(3.8e7) - a - 70.0;
            assert!((m.esn0_at(t, 1e7) - want).abs() < 1e-9);
            let lost = m.is_lost(&Tx {
                start: t,
                end: t,
                bytes: 1500,
                kind: super::super::PacketKind::Data,
                seq: 0,
                retx: false,
            });
            assert_eq!(lost, want < 5.0);
        }
    }

    #[test]
    fn both_directions_of_a_link_share_the_rain() {
        let mut s = spec(SITE);
        s.prepare(Some(&geometry())).unwrap();
        let mut fwd = RainFade::build(&s, &ctx(Some(geometry())));
        let rev_ctx = ChannelCtx {
            link: "t1:reverse",
            ..ctx(Some(geometry()))
        };
        let mut rev = RainFade::build(&s, &rev_ctx);
        for k in 0..500 {
            let t = Time::from_secs_f64(k as f64 * 100.0);
            assert_eq!(fwd.attenuation_db(t), rev.attenuation_db(t));
        }
    }

    #[test]
    fn a_recorded_trace_is_replayed_piecewise_constant() {
        let dir = std::env::temp_dir().join(format!("skyhop-rain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("fade.csv");
        std::fs::write(&f, "t_s,attenuation_db\n0,0\n10,3.5\n20,1\n").unwrap();
        let text = format!(
            "frequency_ghz = 20.0\nclear_sky_cn0_dbhz = 85.0\nfile = {:?}\n",
            f.to_string_lossy()
        );
        let mut s = spec(&text);
        s.validate().unwrap();
        s.prepare(None).unwrap();
        let mut m = RainFade::build(&s, &ctx(None));
        let at = |m: &mut RainFade, x: f64| m.attenuation_db(Time::from_secs_f64(x));
        assert_eq!(at(&mut m, 5.0), 0.0);
        assert_eq!(at(&mut m, 10.0), 3.5);
        assert_eq!(at(&mut m, 19.9), 3.5);
        assert_eq!(at(&mut m, 100.0), 1.0);
        assert!((m.esn0_at(Time::from_secs_f64(12.0), 1e7) - (85.0 - 3.5 - 70.0)).abs() < 1e-12);
        std::fs::write(&f, "t_s,attenuation_db\n0,0\n10,-1\n").unwrap();
        let mut bad = spec(&text);
        assert!(bad
            .prepare(None)
            .unwrap_err()
            .1
            .contains("line 3: attenuation_db -1 is negative"));
    }

    #[test]
    fn bad_inputs_name_their_key() {
        let cases = [
            ("frequency_ghz = 0.5\nclear_sky_cn0_dbhz = 80.0\nfile = \"x.csv\"", "frequency_ghz"),
            ("frequency_ghz = 20.0\neirp_dbw = 50.0\nfile = \"x.csv\"", "gt_dbk"),
            ("frequency_ghz = 20.0\nclear_sky_cn0_dbhz = 80.0", "rain"),
            ("frequency_ghz = 20.0\nclear_sky_cn0_dbhz = 80.0\nccdf = [[0.1, 3.0], [1.0, 1.0]]", "p_rain"),
            ("frequency_ghz = 20.0\nclear_sky_cn0_dbhz = 80.0\np_rain = 3.0\nccdf = [[0.1, -3.0]]", "ccdf[0]"),
            ("frequency_ghz = 20.0\nclear_sky_cn0_dbhz = 80.0\nesn0_threshold_db = 3.0\nfile = \"x.csv\"", "symbol_rate_mbaud"),
        ];
        for (text, key) in cases {
            let e = spec(text).validate().unwrap_err();
            assert_eq!(e.0, key, "{text}: {e:?}");
        }
        // Without positions, P.618 needs the elevation.
        let mut s = spec(SITE);
        s.range_km = Some(38_000.0);
        assert_eq!(s.prepare(None).unwrap_err().0, "elevation_deg");
    }
}
