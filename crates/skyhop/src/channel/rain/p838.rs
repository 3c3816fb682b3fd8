//! Specific attenuation of rain, Recommendation ITU-R P.838-3 (03/2005):
//! γ_R = k R^α dB/km for a rain rate R (mm/h), with k and α from the
//! recommendation's fitted curves (its Tables 1–4) for horizontal and
//! vertical polarisation, combined for a path of elevation θ and
//! polarisation tilt τ (45° for circular) by its equations (4) and (5).

/// One fitted curve: Σⱼ aⱼ exp(−((log₁₀ f − bⱼ)/cⱼ)²) + m log₁₀ f + c.
struct Curve<const N: usize> {
    a: [f64; N],
    b: [f64; N],
    c: [f64; N],
    m: f64,
    k: f64,
}

impl<const N: usize> Curve<N> {
    fn at(&self, f_ghz: f64) -> f64 {
        let x = f_ghz.log10();
        let mut s = self.m * x + self.k;
        for j in 0..N {
            s += self.a[j] * (-((x - self.b[j]) / self.c[j]).powi(2)).exp();
        }
        s
    }
}

/// Table 1: coefficients for k_H (log₁₀ k_H is the curve).
const K_H: Curve<4> = Curve {
    a: [-5.339_80, -0.353_51, -0.237_89, -0.941_58],
    b: [-0.100_08, 1.269_70, 0.860_36, 0.645_52],
    c: [1.130_98, 0.454_00, 0.153_54, 0.168_17],
    m: -0.189_61,
    k: 0.711_47,
};
/// Table 2: coefficients for k_V.
const K_V: Curve<4> = Curve {
    a: [-3.805_95, -3.449_65, -0.399_02, 0.501_67],
    b: [0.569_34, -0.229_11, 0.730_42, 1.073_19],
    c: [0.810_61, 0.510_59, 0.118_99, 0.271_95],
    m: -0.163_98,
    k: 0.632_97,
};
/// Table 3: coefficients for α_H.
const ALPHA_H: Curve<5> = Curve {
    a: [-0.143_18, 0.295_91, 0.321_77, -5.376_10, 16.172_1],
    b: [1.824_42, 0.775_64, 0.637_73, -0.962_30, -3.299_80],
    c: [-0.551_87, 0.198_22, 0.131_64, 1.478_28, 3.439_90],
    m: 0.678_49,
    k: -1.955_37,
};
/// Table 4: coefficients for α_V.
const ALPHA_V: Curve<5> = Curve {
    a: [-0.077_71, 0.567_27, -0.202_38, -48.299_1, 48.583_3],
    b: [2.338_40, 0.955_45, 1.145_20, 0.791_669, 0.791_459],
    c: [-0.762_84, 0.540_39, 0.268_09, 0.116_226, 0.116_479],
    m: -0.053_739,
    k: 0.834_33,
};

/// (k, α) at frequency `f_ghz` (1–1000 GHz) for a path of elevation
/// `elevation_deg` and polarisation tilt `tilt_deg`.
pub fn coefficients(f_ghz: f64, elevation_deg: f64, tilt_deg: f64) -> (f64, f64) {
    let kh = 10f64.powf(K_H.at(f_ghz));
    let kv = 10f64.powf(K_V.at(f_ghz));
    let ah = ALPHA_H.at(f_ghz);
    let av = ALPHA_V.at(f_ghz);
    let geo = elevation_deg.to_radians().cos().powi(2) * (2.0 * tilt_deg).to_radians().cos();
    // Equations (4) and (5).
    let k = (kh + kv + (kh - kv) * geo) / 2.0;
    let alpha = (kh * ah + kv * av + (kh * ah - kv * av) * geo) / (2.0 * k);
    (k, alpha)
}

/// γ_R (dB/km) for rain rate `r_mm_h`.
pub fn specific_attenuation(r_mm_h: f64, f_ghz: f64, elevation_deg: f64, tilt_deg: f64) -> f64 {
    let (k, alpha) = coefficients(f_ghz, elevation_deg, tilt_deg);
    k * r_mm_h.powf(alpha)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ITU-R Study Group 3's validation examples for P.838-3 (the rows of
    /// its spreadsheet: elevation, f, R, τ → k, α, γ_R).
    #[test]
    fn coefficients_match_the_itu_validation_examples() {
        let rows = [
            (
                31.076_991_24,
                14.25,
                26.480_52,
                0.0,
                0.039_754_88,
                1.124_180_43,
                1.581_308_39,
            ),
            (
                40.232_036,
                29.0,
                33.936_232,
                0.0,
                0.220_314_04,
                0.950_444_6,
                6.278_460_24,
            ),
            (
                22.278_334_68,
                14.25,
                50.639_304,
                0.0,
                0.039_493_19,
                1.129_253_36,
                3.321_396_38,
            ),
            (
                52.678_984_86,
                29.0,
                78.299_499_3,
                0.0,
                0.219_237_16,
                0.946_476_3,
                13.592_900_86,
            ),
            (
                85.804_595_66,
                14.25,
                99.135_589_78,
                90.0,
                0.041_330_39,
                1.094_996_29,
                6.340_645_98,
            ),
            (
                20.143_358_09,
                29.0,
                42.910_071_83,
                90.0,
                0.212_988_77,
                0.922_659_17,
                6.833_645_56,
            ),
        ];
        for (el, f, r, tau, k0, a0, g0) in rows {
            let (k, a) = coefficients(f, el, tau);
            assert!((k - k0).abs() < 5e-8, "k at {f} GHz, {el}°: {k} vs {k0}");
            assert!((a - a0).abs() < 5e-8, "α at {f} GHz, {el}°: {a} vs {a0}");
            let g = specific_attenuation(r, f, el, tau);
            assert!((g - g0).abs() < 1e-7 * g0, "γ at {f} GHz: {g} vs {g0}");
        }
    }
}
