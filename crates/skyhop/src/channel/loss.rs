//! Loss probabilities shared by the channel models: a packet error rate or a
//! bit error rate per state, and the checks of their ranges.

/// Probability that a packet of `bytes` bytes has at least one bit in error.
#[inline]
pub fn packet_loss_probability(ln_1m_ber: f64, bytes: u32) -> f64 {
    // 1 - (1 - BER)^(8L) = -expm1(8L ln(1 - BER)), accurate for tiny BER.
    -((8 * bytes as u64) as f64 * ln_1m_ber).exp_m1()
}

/// Loss of one state: a packet error rate, or ln(1 − BER) for a bit error rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StateLoss {
    Per(f64),
    Ber { ln_1m_ber: f64 },
}

impl StateLoss {
    pub fn per(p: f64) -> StateLoss {
        StateLoss::Per(p)
    }
    pub fn ber(ber: f64) -> StateLoss {
        StateLoss::Ber {
            ln_1m_ber: (-ber).ln_1p(),
        }
    }
    /// A state's loss from its `per` or `ber` key (at most one given: see
    /// [`check_per_or_ber`]), else a packet error rate of `default`.
    pub fn from_pair(per: Option<f64>, ber: Option<f64>, default: f64) -> StateLoss {
        match (per, ber) {
            (Some(p), _) => StateLoss::per(p),
            (_, Some(b)) => StateLoss::ber(b),
            _ => StateLoss::per(default),
        }
    }
    /// Probability that a packet of `bytes` bytes is lost in this state.
    #[inline]
    pub fn probability(self, bytes: u32) -> f64 {
        match self {
            StateLoss::Per(p) => p,
            StateLoss::Ber { ln_1m_ber } => packet_loss_probability(ln_1m_ber, bytes),
        }
    }
}

/// A state of a stateful model takes a packet error rate (`per_key`) or a
/// bit error rate (`ber_key`), not both, each a probability in [0, 1].
pub(crate) fn check_per_or_ber(
    per_key: &str,
    ber_key: &str,
    per: Option<f64>,
    ber: Option<f64>,
) -> Result<(), (String, String)> {
    if per.is_some() && ber.is_some() {
        return Err((
            ber_key.to_string(),
            format!("give {per_key} or {ber_key}, not both"),
        ));
    }
    if let Some(p) = per {
        check_probability(per_key, p, true)?;
    }
    if let Some(b) = ber {
        check_probability(ber_key, b, true)?;
    }
    Ok(())
}

/// A probability in [0, 1] (or [0, 1) when `one_ok` is false).
pub(crate) fn check_probability(key: &str, p: f64, one_ok: bool) -> Result<(), (String, String)> {
    let ok = p.is_finite() && p >= 0.0 && if one_ok { p <= 1.0 } else { p < 1.0 };
    if ok {
        Ok(())
    } else {
        let range = if one_ok { "[0, 1]" } else { "[0, 1)" };
        Err((
            key.to_string(),
            format!("{p} is not a probability in {range}"),
        ))
    }
}
