//! Error and channel models, one per link direction.
//!
//! Each model decides, per packet, whether the packet is corrupted (lost).
//! It can be restricted to data packets, ACKs, or both (`ApplyTo`).
//! Implemented here: uniform packet error rate (PER), bit error rate (BER:
//! a packet of L bytes is lost with probability 1 - (1 - BER)^(8L)), and an
//! exact list of data segments to drop (for hand-worked tests).

use crate::engine::rng::RngStream;

/// Which packets a model applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplyTo {
    Data,
    Acks,
    Both,
}

impl ApplyTo {
    pub fn parse(s: &str) -> Option<ApplyTo> {
        match s {
            "data" => Some(ApplyTo::Data),
            "acks" => Some(ApplyTo::Acks),
            "both" => Some(ApplyTo::Both),
            _ => None,
        }
    }
    #[inline]
    fn covers(self, is_ack: bool) -> bool {
        match self {
            ApplyTo::Both => true,
            ApplyTo::Data => !is_ack,
            ApplyTo::Acks => is_ack,
        }
    }
}

/// The random part of a link direction's losses.
#[derive(Clone, Debug, PartialEq)]
pub enum LossModel {
    None,
    /// Each packet lost independently with probability p.
    Per(f64),
    /// Each bit in error independently with probability `ber`.
    Ber(f64),
}

/// One link direction's error model.
#[derive(Clone, Debug)]
pub struct ErrorModel {
    pub loss: LossModel,
    pub apply_to: ApplyTo,
    /// Exact drops: first bytes of data segments to lose on their first
    /// transmission (any connection crossing this direction). Checked before
    /// the random model, and consumed when used.
    pub drop_list: Vec<u64>,
    /// ln(1 - BER), cached.
    ln_1m_ber: f64,
}

impl ErrorModel {
    pub fn new(loss: LossModel, apply_to: ApplyTo) -> ErrorModel {
        let ln_1m_ber = match loss {
            LossModel::Ber(b) => (-b).ln_1p(),
            _ => 0.0,
        };
        ErrorModel {
            loss,
            apply_to,
            drop_list: Vec::new(),
            ln_1m_ber,
        }
    }

    pub fn none() -> ErrorModel {
        ErrorModel::new(LossModel::None, ApplyTo::Both)
    }

    /// Probability that a packet of `bytes` bytes is lost.
    #[inline]
    pub fn loss_probability(&self, bytes: u32, is_ack: bool) -> f64 {
        if !self.apply_to.covers(is_ack) {
            return 0.0;
        }
        match self.loss {
            LossModel::None => 0.0,
            LossModel::Per(p) => p,
            // 1 - (1 - BER)^(8L) = -expm1(8L ln(1 - BER)), accurate for tiny BER.
            LossModel::Ber(_) => -((8 * bytes as u64) as f64 * self.ln_1m_ber).exp_m1(),
        }
    }

    /// Decide whether this packet is lost. Draws from `rng` only when the
    /// random model applies, so the exact drop list does not shift draws.
    #[inline]
    pub fn is_lost(&mut self, rng: &mut RngStream, bytes: u32, is_ack: bool) -> bool {
        let p = self.loss_probability(bytes, is_ack);
        p > 0.0 && rng.uniform() < p
    }

    /// Whether the exact drop list claims this data segment; consumes the entry.
    #[inline]
    pub fn drop_listed(&mut self, seq: u64, retx: bool) -> bool {
        if self.drop_list.is_empty() || retx {
            return false;
        }
        if let Some(i) = self.drop_list.iter().position(|&s| s == seq) {
            self.drop_list.swap_remove(i);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ber_loss_grows_with_packet_length() {
        let m = ErrorModel::new(LossModel::Ber(1e-6), ApplyTo::Both);
        let data = m.loss_probability(1500, false);
        let ack = m.loss_probability(40, true);
        assert!((data - (1.0 - (1.0f64 - 1e-6).powi(12000))).abs() < 1e-12);
        assert!((ack - (1.0 - (1.0f64 - 1e-6).powi(320))).abs() < 1e-12);
        assert!(ack < data / 30.0);
    }

    #[test]
    fn apply_to_restricts_the_model() {
        let m = ErrorModel::new(LossModel::Per(0.5), ApplyTo::Data);
        assert_eq!(m.loss_probability(40, true), 0.0);
        assert_eq!(m.loss_probability(1500, false), 0.5);
    }

    #[test]
    fn uniform_per_hits_its_rate() {
        let mut m = ErrorModel::new(LossModel::Per(0.01), ApplyTo::Both);
        let mut rng = RngStream::derive(1, "t");
        let lost = (0..200_000)
            .filter(|_| m.is_lost(&mut rng, 1500, false))
            .count();
        // 2000 expected, sd ~ 44.5
        assert!((1800..2200).contains(&lost), "{lost}");
    }
}
