//! Rain attenuation on an Earth–space path exceeded for a percentage of an
//! average year, Recommendation ITU-R P.618-13 (12/2017) §2.2.1.1, steps 1
//! to 10, from the site's rain statistics given directly:
//!
//! - the rain height h_R (step 1 reads it from P.839's maps, which skyhop
//!   does not ship: the scenario gives it, e.g. h₀ + 0.36 km);
//! - the rain rate exceeded for 0.01 % of an average year R₀.₀₁ (step 4
//!   reads it from P.837's maps or local data: the scenario gives it);
//! - the station's height above sea level h_s and its latitude φ;
//! - the path's elevation θ and polarisation tilt τ, and the frequency f.
//!
//! Valid, as the recommendation says, for 0.001 % ≤ p ≤ 5 % and frequencies
//! up to 55 GHz; P.1853 asks for p up to 10 % when rain is that frequent,
//! which this computes with the same formula (as ITU-Rpy does).

use super::p838;

/// The effective radius of the Earth in step 2's low-elevation formula, km.
const RE_KM: f64 = 8500.0;

/// A site and path, as P.618's rain-attenuation method reads them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RainPath {
    /// Station latitude φ, degrees.
    pub lat_deg: f64,
    /// Station height above mean sea level h_s, km.
    pub station_height_km: f64,
    /// Rain height h_R, km.
    pub rain_height_km: f64,
    /// R₀.₀₁, mm/h.
    pub r001_mm_h: f64,
    /// f, GHz.
    pub freq_ghz: f64,
    /// θ, degrees.
    pub elevation_deg: f64,
    /// τ, degrees (45 for circular polarisation).
    pub tilt_deg: f64,
}

impl RainPath {
    /// A₀.₀₁ (dB), steps 2 to 9; 0 when the station is above the rain.
    pub fn a001(&self) -> f64 {
        let th = self.elevation_deg.to_radians();
        let dh = self.rain_height_km - self.station_height_km;
        if dh <= 0.0 || self.r001_mm_h <= 0.0 {
            return 0.0;
        }
        let f = self.freq_ghz;
        // Step 2: slant-path length below the rain height.
        let ls = if self.elevation_deg >= 5.0 {
            dh / th.sin()
        } else {
            2.0 * dh / ((th.sin().powi(2) + 2.0 * dh / RE_KM).sqrt() + th.sin())
        };
        // Step 3: its horizontal projection.
        let lg = (ls * th.cos()).abs();
        // Step 5: specific attenuation (P.838).
        let g = p838::specific_attenuation(self.r001_mm_h, f, self.elevation_deg, self.tilt_deg);
        // Step 6: horizontal reduction factor.
        let r001 = 1.0 / (1.0 + 0.78 * (lg * g / f).sqrt() - 0.38 * (1.0 - (-2.0 * lg).exp()));
        // Step 7: vertical adjustment factor.
        let zeta = dh.atan2(lg * r001).to_degrees();
        let lr = if zeta > self.elevation_deg {
            lg * r001 / th.cos()
        } else {
            dh / th.sin()
        };
        let chi = if self.lat_deg.abs() < 36.0 {
            36.0 - self.lat_deg.abs()
        } else {
            0.0
        };
        let v001 = 1.0
            / (1.0
                + th.sin().sqrt()
                    * (31.0 * (1.0 - (-self.elevation_deg / (1.0 + chi)).exp()) * (lr * g).sqrt()
                        / (f * f)
                        - 0.45));
        // Steps 8 and 9: effective path length and A₀.₀₁.
        g * lr * v001
    }

    /// A_p (dB), the attenuation exceeded for `p_percent` % of an average
    /// year (step 10).
    pub fn attenuation(&self, p_percent: f64) -> f64 {
        let a001 = self.a001();
        if a001 <= 0.0 {
            return 0.0;
        }
        let p = p_percent;
        let th = self.elevation_deg.to_radians();
        let lat = self.lat_deg.abs();
        let beta = if p >= 1.0 || lat >= 36.0 {
            0.0
        } else if self.elevation_deg >= 25.0 {
            -0.005 * (lat - 36.0)
        } else {
            -0.005 * (lat - 36.0) + 1.8 - 4.25 * th.sin()
        };
        let exponent = -(0.655 + 0.033 * p.ln() - 0.045 * a001.ln() - beta * (1.0 - p) * th.sin());
        a001 * (p / 0.01).powf(exponent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of ITU-R Study Group 3's validation examples for P.618-13
    /// (lat, h_s, f, θ, τ, p, R₀.₀₁, L_s → A_rain). The examples give the
    /// slant length L_s of step 2 from P.839's rain height; the rain height
    /// is recovered from it as h_s + L_s sin θ.
    /// (lat, h_s, f, θ, τ, p, R₀.₀₁, L_s, A_rain).
    type Row = (f64, f64, f64, f64, f64, f64, f64, f64, f64);

    #[test]
    fn attenuation_matches_the_itu_validation_examples() {
        #[rustfmt::skip]
        let rows: [Row; 10] = [
            (51.5, 0.031_382_984, 14.25, 31.076_991_24, 0.0, 1.0, 26.480_52, 4.690_817_392, 0.495_317_069),
            (41.9, 0.046_122_988, 14.25, 40.232_036, 0.0, 0.1, 33.936_232, 4.646_913_874, 2.696_765_133),
            (33.94, 0.0, 14.25, 46.359_692_61, 0.0, 0.01, 27.135_868_32, 3.542_006_965, 5.941_806_096),
            (51.5, 0.031_382_984, 29.0, 31.076_991_24, 0.0, 0.001, 26.480_52, 4.690_817_392, 45.198_656_38),
            (22.9, 0.0, 14.25, 22.278_334_68, 0.0, 0.1, 50.639_304, 10.969_954_51, 8.271_647_438),
            (25.78, 0.008_617_28, 29.0, 52.678_984_86, 0.0, 0.01, 78.299_499_3, 5.735_098_894, 58.474_383_36),
            (22.9, 0.0, 29.0, 22.278_334_68, 0.0, 0.001, 50.639_304, 10.969_954_51, 83.599_639_1),
            (28.717, 0.209_383_699, 14.25, 48.241_170_54, 90.0, 1.0, 63.618_888_08, 6.768_266_217, 1.274_463_613),
            (3.133, 0.051_251_456, 29.0, 85.804_595_66, 90.0, 0.01, 99.151_171_86, 4.919_906_58, 83.378_562_27),
            (9.05, 2.539_861_878, 29.0, 20.143_358_09, 90.0, 0.1, 42.910_071_83, 6.516_372_436, 19.239_103_78),
        ];
        for (lat, hs, f, el, tau, p, r001, ls, want) in rows {
            let path = RainPath {
                lat_deg: lat,
                station_height_km: hs,
                rain_height_km: hs + ls * el.to_radians().sin(),
                r001_mm_h: r001,
                freq_ghz: f,
                elevation_deg: el,
                tilt_deg: tau,
            };
            let got = path.attenuation(p);
            assert!(
                (got - want).abs() < 1e-6 * want,
                "lat {lat}, {f} GHz, p {p} %: {got} dB, want {want} dB"
            );
        }
    }

    #[test]
    fn a_station_above_the_rain_sees_none() {
        let path = RainPath {
            lat_deg: 45.0,
            station_height_km: 4.0,
            rain_height_km: 3.0,
            r001_mm_h: 40.0,
            freq_ghz: 20.0,
            elevation_deg: 35.0,
            tilt_deg: 45.0,
        };
        assert_eq!(path.attenuation(0.01), 0.0);
    }
}
