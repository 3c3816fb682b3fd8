//! The clear-sky link budget of one direction of a satellite hop: the
//! carrier-to-noise density C/N₀ from the transmitter's EIRP, the free-space
//! loss over the slant range, other fixed losses and the receiver's G/T,
//!
//!   C/N₀ = EIRP − L_fs − L_other + G/T − 10 log₁₀ k   (dBHz),
//!   L_fs = 20 log₁₀(4π d f / c),
//!
//! with k Boltzmann's constant (10 log₁₀ k = −228.6 dBW/K/Hz); and what rain
//! does to it: its attenuation A (dB) lowers C, and, at a receiver whose
//! system noise temperature T_sys is given, raises the noise by the sky
//! temperature the rain adds, T_m (1 − 10^(−A/10)) (ITU-R P.618-13 §3,
//! with the medium's mean temperature T_m, 275 K by default). The rest of
//! the chain (the feeder link of a transparent satellite, interference) can
//! be given as one C/(N + I) combined with this hop's C/N:
//!
//!   (C/N)_total⁻¹ = (C/N)_hop⁻¹ + (C/(N + I))_other⁻¹   (linear).
//!
//! Es/N₀ = C/N₀ − 10 log₁₀ R_s for a carrier of R_s symbols per second.

use crate::geo::SPEED_OF_LIGHT_M_PER_S;

/// 10 log₁₀ of Boltzmann's constant, 1.380649e-23 J/K (exact in SI).
pub const BOLTZMANN_DB: f64 = -228.599_163_1;

/// The medium's mean temperature for rain's sky noise, K (ITU-R P.618 §3).
pub const MEDIUM_TEMPERATURE_K: f64 = 275.0;

/// Free-space loss (dB) over `range_m` metres at `freq_hz`.
pub fn free_space_loss_db(range_m: f64, freq_hz: f64) -> f64 {
    20.0 * (4.0 * std::f64::consts::PI * range_m * freq_hz / SPEED_OF_LIGHT_M_PER_S).log10()
}

/// dB to linear and back.
pub fn from_db(x: f64) -> f64 {
    10f64.powf(x / 10.0)
}
pub fn to_db(x: f64) -> f64 {
    10.0 * x.log10()
}

/// One direction's budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    pub freq_hz: f64,
    pub eirp_dbw: f64,
    pub gt_dbk: f64,
    /// Fixed losses besides free space (gases, pointing, polarisation), dB.
    pub other_losses_db: f64,
    /// The receiver's system noise temperature, K: rain adds sky noise to
    /// it (None: the receiver's noise is taken as unchanged by rain).
    pub system_noise_k: Option<f64>,
    /// T_m for rain's sky noise, K.
    pub medium_temperature_k: f64,
    /// C/(N + I) of the rest of the chain, dB (None: this hop alone).
    pub other_cn_db: Option<f64>,
}

impl Budget {
    /// Clear-sky C/N₀ (dBHz) over `range_m`, this hop alone.
    pub fn clear_cn0_dbhz(&self, range_m: f64) -> f64 {
        self.eirp_dbw - free_space_loss_db(range_m, self.freq_hz) - self.other_losses_db
            + self.gt_dbk
            - BOLTZMANN_DB
    }

    /// How much rain of `a_db` lowers this hop's C/N₀ (dB): the attenuation,
    /// and the noise it adds at a receiver whose T_sys is known.
    pub fn rain_degradation_db(&self, a_db: f64) -> f64 {
        let noise = match self.system_noise_k {
            Some(t) if a_db > 0.0 => {
                let sky = self.medium_temperature_k * (1.0 - from_db(-a_db));
                to_db((t + sky) / t)
            }
            _ => 0.0,
        };
        a_db + noise
    }

    /// Es/N₀ (dB) for a carrier of `symbol_rate` symbols/s, over `range_m`
    /// under rain of `a_db`, with the rest of the chain combined.
    pub fn esn0_db(&self, range_m: f64, a_db: f64, symbol_rate: f64) -> f64 {
        let hop =
            self.clear_cn0_dbhz(range_m) - self.rain_degradation_db(a_db) - to_db(symbol_rate);
        combine(hop, self.other_cn_db)
    }
}

/// This hop's C/N combined with the rest of the chain's (dB).
pub fn combine(hop_db: f64, other_db: Option<f64>) -> f64 {
    match other_db {
        Some(o) => -to_db(from_db(-hop_db) + from_db(-o)),
        None => hop_db,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_space_loss_of_a_geo_hop_at_ka_band() {
        // 38 000 km at 20 GHz: 20 log10(4π · 3.8e7 · 2e10 / 299 792 458).
        let l = free_space_loss_db(3.8e7, 20e9);
        let by_hand =
            20.0 * (4.0 * std::f64::consts::PI * 3.8e7 * 2e10 / 299_792_458.0_f64).log10();
        assert!((l - by_hand).abs() < 1e-12);
        assert!((l - 210.06).abs() < 0.01, "{l}");
    }

    #[test]
    fn the_budget_adds_up_term_by_term() {
        let b = Budget {
            freq_hz: 20e9,
            eirp_dbw: 60.0,
            gt_dbk: 16.0,
            other_losses_db: 1.0,
            system_noise_k: None,
            medium_temperature_k: MEDIUM_TEMPERATURE_K,
            other_cn_db: None,
        };
        let l = free_space_loss_db(3.8e7, 20e9);
        let cn0 = 60.0 - l - 1.0 + 16.0 + 228.599_163_1;
        assert!((b.clear_cn0_dbhz(3.8e7) - cn0).abs() < 1e-9);
        // 30 Mbaud: Es/N0 = C/N0 − 74.771 dB; 3 dB of rain takes 3 dB.
        let esn0 = cn0 - 10.0 * 3e7f64.log10();
        assert!((b.esn0_db(3.8e7, 0.0, 3e7) - esn0).abs() < 1e-9);
        assert!((b.esn0_db(3.8e7, 3.0, 3e7) - (esn0 - 3.0)).abs() < 1e-9);
    }

    #[test]
    fn rain_raises_the_noise_of_a_receiver_whose_temperature_is_known() {
        let b = Budget {
            freq_hz: 20e9,
            eirp_dbw: 60.0,
            gt_dbk: 16.0,
            other_losses_db: 0.0,
            system_noise_k: Some(275.0),
            medium_temperature_k: 275.0,
            other_cn_db: None,
        };
        // 3.0103 dB of rain: half the power through, T_sky = 137.5 K on
        // 275 K, the noise up by 10 log10(1.5) = 1.761 dB.
        let a = 10.0 * 2f64.log10();
        let d = b.rain_degradation_db(a);
        assert!((d - (a + 10.0 * 1.5f64.log10())).abs() < 1e-12, "{d}");
        assert_eq!(b.rain_degradation_db(0.0), 0.0);
    }

    #[test]
    fn two_equal_links_in_tandem_lose_three_db() {
        assert!((combine(10.0, Some(10.0)) - (10.0 - 10.0 * 2f64.log10())).abs() < 1e-12);
        assert_eq!(combine(10.0, None), 10.0);
    }
}
