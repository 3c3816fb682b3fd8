//! Rain attenuation time series, Recommendation ITU-R P.1853-1 (02/2012)
//! §2.2.1 (Earth–space paths), the steps this implements:
//!
//! - **A1** P_rain, the probability of rain on the path (% of time): the
//!   scenario gives it (P.837's P₀ maps are not shipped).
//! - **A2** pairs [P_i, A_i]: A_i (dB) exceeded for P_i % of the time, P_i
//!   in {0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 3, 5, 10} with
//!   P_i ≤ P_rain, from P.618 (`p618.rs`) or given as a measured CCDF.
//! - **A3, A4** the least-squares fit ln A_i = σ Q⁻¹(P_i/100) + m
//!   ([`Lognormal::fit`]).
//! - **B** the low-pass filter's parameter β = 2 × 10⁻⁴ s⁻¹.
//! - **C** the offset A_offset = exp(m + σ Q⁻¹(P_rain/100)).
//! - **D1–D5** white Gaussian noise n(kTs) at the sampling time Ts (1 s by
//!   default), filtered X(kTs) = ρ X((k−1)Ts) + √(1 − ρ²) n(kTs) with
//!   ρ = exp(−β Ts), Y = exp(m + σ X), A_rain = max(Y − A_offset, 0).
//! - **D6** the recommendation starts the filter at X = 0 and discards
//!   the first 200 000 s of samples, the filter's transient; this starts it
//!   at X(0) drawn from N(0, 1), its stationary law, which is the same
//!   process in distribution (after 200 000 s, ρ^k < e⁻⁴⁰) without the
//!   200 000 draws.
//!
//! The series is held constant over each sample's interval [kTs, (k+1)Ts).
//! Its long-run exceedance is P(A_rain > a) = Q((ln(a + A_offset) − m)/σ),
//! and P(A_rain > 0) = P_rain/100: the offset makes the series continuous
//! where rain starts and stops but shifts it below the fitted lognormal by
//! A_offset, a known property of this synthesiser (L. Castanet and
//! colleagues' analyses, and the mixed Dirac-lognormal synthesiser
//! proposed to replace it), small where the attenuation is large.

use super::normal::q_inv;
use crate::engine::rng::RngStream;
use crate::engine::time::Time;
use rand_distr::{Distribution, StandardNormal};
use std::collections::VecDeque;

/// Step A2's percentages of time.
pub const P_I: [f64; 13] = [
    0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0,
];

/// Step B's low-pass filter parameter β, s⁻¹.
pub const BETA_PER_S: f64 = 2e-4;

/// The fitted lognormal law of rain attenuation with the probability of
/// rain (steps A1–A4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lognormal {
    /// m, the mean of ln A (A in dB).
    pub m: f64,
    /// σ, the standard deviation of ln A.
    pub sigma: f64,
    /// P_rain, % of time.
    pub p_rain_percent: f64,
}

impl Lognormal {
    /// Steps A3–A4: fit `pairs` of (P_i %, A_i dB) exceedance points.
    pub fn fit(pairs: &[(f64, f64)], p_rain_percent: f64) -> Result<Lognormal, String> {
        if !(p_rain_percent > 0.0 && p_rain_percent < 100.0) {
            return Err(format!(
                "p_rain {p_rain_percent} % is not a probability of rain in (0, 100) %"
            ));
        }
        let pts: Vec<(f64, f64)> = pairs
            .iter()
            .filter(|(p, _)| *p <= p_rain_percent)
            .map(|&(p, a)| (q_inv(p / 100.0), a.ln()))
            .collect();
        if pts.len() < 2 {
            return Err(format!(
                "the fit needs at least two exceedance points at or below p_rain = {p_rain_percent} %"
            ));
        }
        if pairs
            .iter()
            .any(|&(p, a)| !(p > 0.0 && p < 100.0 && a > 0.0 && a.is_finite()))
        {
            return Err(
                "each point needs a percentage in (0, 100) and a positive attenuation in dB".into(),
            );
        }
        let n = pts.len() as f64;
        let (sx, sy) = pts.iter().fold((0.0, 0.0), |(a, b), p| (a + p.0, b + p.1));
        let (mx, my) = (sx / n, sy / n);
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let sigma = sxy / sxx;
        if !(sigma > 0.0 && sigma.is_finite()) {
            return Err("the attenuation must grow as its percentage of time falls".into());
        }
        Ok(Lognormal {
            m: my - sigma * mx,
            sigma,
            p_rain_percent,
        })
    }

    /// Steps A2–A4 from P.618's attenuation at each P_i ≤ P_rain.
    pub fn from_p618(
        path: &super::p618::RainPath,
        p_rain_percent: f64,
    ) -> Result<Lognormal, String> {
        let pairs: Vec<(f64, f64)> = P_I
            .iter()
            .filter(|&&p| p <= p_rain_percent)
            .map(|&p| (p, path.attenuation(p)))
            .collect();
        if pairs.iter().any(|&(_, a)| a <= 0.0) {
            return Err("P.618 gives no rain attenuation on this path (the station is above the rain height, or R0.01 is 0)".into());
        }
        Lognormal::fit(&pairs, p_rain_percent)
    }

    /// Step C: A_offset (dB).
    pub fn offset_db(&self) -> f64 {
        (self.m + self.sigma * q_inv(self.p_rain_percent / 100.0)).exp()
    }

    /// The fitted law's exceedance P(A > a), a fraction.
    pub fn fitted_exceedance(&self, a_db: f64) -> f64 {
        super::normal::q((a_db.ln() - self.m) / self.sigma)
    }

    /// The synthesised series' long-run exceedance P(A_rain > a), a
    /// fraction (the fitted law shifted by the offset; P_rain at a = 0).
    pub fn series_exceedance(&self, a_db: f64) -> f64 {
        super::normal::q(((a_db + self.offset_db()).ln() - self.m) / self.sigma)
    }
}

/// Samples kept behind the latest for queries a little in the past.
const HISTORY: usize = 4096;

/// A seeded rain attenuation series (steps B–D), advanced lazily as it is
/// read; reads may go back up to 4096 samples cheaply (further back, the
/// series is drawn again from its start: the same values).
#[derive(Clone, Debug)]
pub struct Synthesiser {
    law: Lognormal,
    offset: f64,
    ts_ns: u64,
    rho: f64,
    gain: f64,
    start_rng: RngStream,
    rng: RngStream,
    /// (index, X) of the latest samples, the newest last.
    recent: VecDeque<(u64, f64)>,
}

impl Synthesiser {
    /// The series of `law` sampled every `ts_ns` nanoseconds, drawing from `rng`.
    pub fn new(law: Lognormal, ts_ns: u64, rng: RngStream) -> Synthesiser {
        let ts = ts_ns as f64 * 1e-9;
        let rho = (-BETA_PER_S * ts).exp();
        let mut s = Synthesiser {
            law,
            offset: law.offset_db(),
            ts_ns: ts_ns.max(1),
            rho,
            gain: (1.0 - rho * rho).sqrt(),
            start_rng: rng.clone(),
            rng,
            recent: VecDeque::with_capacity(HISTORY + 1),
        };
        s.restart();
        s
    }

    fn restart(&mut self) {
        self.rng = self.start_rng.clone();
        self.recent.clear();
        let x0: f64 = StandardNormal.sample(&mut self.rng);
        self.recent.push_back((0, x0));
    }

    pub fn law(&self) -> &Lognormal {
        &self.law
    }

    /// ρ = exp(−β Ts), the filter's one-sample correlation.
    pub fn rho(&self) -> f64 {
        self.rho
    }

    /// X(kTs), the filtered Gaussian process at sample `k`.
    pub fn x(&mut self, k: u64) -> f64 {
        let first = self.recent.front().unwrap().0;
        if k < first {
            self.restart();
        }
        loop {
            let &(last, x) = self.recent.back().unwrap();
            if k <= last {
                let first = self.recent.front().unwrap().0;
                return self.recent[(k - first) as usize].1;
            }
            let n: f64 = StandardNormal.sample(&mut self.rng);
            if self.recent.len() == HISTORY {
                self.recent.pop_front();
            }
            self.recent
                .push_back((last + 1, self.rho * x + self.gain * n));
        }
    }

    /// A_rain (dB) of sample `k` (step D5).
    pub fn sample_db(&mut self, k: u64) -> f64 {
        let x = self.x(k);
        ((self.law.m + self.law.sigma * x).exp() - self.offset).max(0.0)
    }

    /// A_rain (dB) at `t`: the sample whose interval holds it.
    pub fn at(&mut self, t: Time) -> f64 {
        self.sample_db(t.0 / self.ts_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::rain::normal::q;

    fn law() -> Lognormal {
        // Round numbers (not a real site): m = 0 (ln of 1 dB), σ = 1, rain 5 %.
        Lognormal {
            m: 0.0,
            sigma: 1.0,
            p_rain_percent: 5.0,
        }
    }

    #[test]
    fn the_fit_recovers_an_exact_lognormal() {
        let (m, s) = (0.7_f64, 1.3_f64);
        let pairs: Vec<(f64, f64)> = P_I
            .iter()
            .map(|&p| (p, (m + s * q_inv(p / 100.0)).exp()))
            .collect();
        let l = Lognormal::fit(&pairs, 3.0).unwrap();
        assert!(
            (l.m - m).abs() < 1e-12 && (l.sigma - s).abs() < 1e-12,
            "{l:?}"
        );
        // The offset is the fitted law's attenuation at P_rain.
        assert!((l.offset_db() - (m + s * q_inv(0.03)).exp()).abs() < 1e-12);
        assert!((l.fitted_exceedance(l.offset_db()) - 0.03).abs() < 1e-7);
        assert!((l.series_exceedance(0.0) - 0.03).abs() < 1e-7);
    }

    #[test]
    fn a_fit_needs_two_points_below_the_rain_probability() {
        assert!(Lognormal::fit(&[(0.01, 10.0), (1.0, 1.0)], 0.5)
            .unwrap_err()
            .contains("at least two"));
        assert!(Lognormal::fit(&[(0.01, 1.0), (1.0, 10.0)], 5.0)
            .unwrap_err()
            .contains("grow"));
    }

    #[test]
    fn the_filter_has_the_recommended_correlation_and_unit_variance() {
        let mut s = Synthesiser::new(law(), 1_000_000_000, RngStream::derive(3, "rain"));
        assert!((s.rho() - (-2e-4f64).exp()).abs() < 1e-15);
        let n = 4_000_000u64;
        let (mut sum, mut sum2, mut lag) = (0.0, 0.0, 0.0);
        let mut prev = s.x(0);
        for k in 1..=n {
            let x = s.x(k);
            sum += x;
            sum2 += x * x;
            lag += x * prev;
            prev = x;
        }
        let nf = n as f64;
        let var = sum2 / nf - (sum / nf).powi(2);
        // 4e6 samples are 800 correlation times (1/β = 5000 s): the
        // variance of the sample variance of an AR(1) is about
        // 2 (1 + ρ²)/(1 − ρ²)/n ≈ 2/(βn) = 2.5e-3, a standard error of 0.05.
        assert!((var - 1.0).abs() < 0.2, "variance {var}");
        let r1 = (lag / nf) / (sum2 / nf);
        assert!((r1 - s.rho()).abs() < 1e-4, "lag-1 correlation {r1}");
    }

    #[test]
    fn long_run_exceedance_matches_the_synthesisers_law() {
        // 2e7 one-second samples: 4000 correlation times. The exceedance of
        // a level by an AR(1) Gaussian process has an integrated
        // correlation time below the process's 2/β = 1e4 samples, so the
        // estimate's standard error is at most √(p(1 − p) · 1e4 / n).
        let l = law();
        let mut s = Synthesiser::new(l, 1_000_000_000, RngStream::derive(11, "rain"));
        let n = 20_000_000u64;
        let levels = [0.0, 0.5, 1.0, 2.0, 4.0];
        let mut over = [0u64; 5];
        for k in 0..n {
            let a = s.sample_db(k);
            for (i, &lv) in levels.iter().enumerate() {
                if a > lv {
                    over[i] += 1;
                }
            }
        }
        for (i, &lv) in levels.iter().enumerate() {
            let got = over[i] as f64 / n as f64;
            let want = l.series_exceedance(lv);
            let se = (want * (1.0 - want) * 1e4 / n as f64).sqrt();
            assert!(
                (got - want).abs() < 4.0 * se,
                "P(A > {lv} dB): {got} vs {want} (4 se = {})",
                4.0 * se
            );
        }
        // P(A > 0) is P_rain; the fitted lognormal and the series differ by
        // the offset A_off = e^{Q⁻¹(0.05)} = 5.18 dB: at 4 dB the fitted law
        // says Q(ln 4) = 8.3 %, the series Q(ln(4 + A_off)) = 1.3 %.
        assert!((l.series_exceedance(0.0) - 0.05).abs() < 1e-7);
        assert!((l.fitted_exceedance(4.0) - q(4f64.ln())).abs() < 1e-12);
    }

    #[test]
    fn reads_back_in_time_give_the_same_values() {
        let mut s = Synthesiser::new(law(), 1_000_000_000, RngStream::derive(5, "rain"));
        let ahead: Vec<f64> = (0..10_000).map(|k| s.x(k)).collect();
        assert_eq!(s.x(9_000), ahead[9_000]);
        // Beyond the kept history: drawn again from the start.
        assert_eq!(s.x(10), ahead[10]);
        assert_eq!(s.x(9_999), ahead[9_999]);
        let t = Time::from_secs_f64(12.7);
        assert_eq!(s.at(t), s.sample_db(12));
    }
}
