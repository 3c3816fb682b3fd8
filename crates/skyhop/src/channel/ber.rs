//! Bit error rate: a packet of L bytes is lost with probability
//! 1 − (1 − BER)^(8L), so short ACKs are hit less than data.

use super::loss::packet_loss_probability;
use super::{ApplyTo, ChannelCtx, ChannelModel, ChannelState, Tx};
use crate::engine::rng::RngStream;
use crate::engine::time::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BerSpec {
    /// Probability that a bit is in error.
    pub ber: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apply_to: Option<ApplyTo>,
}

impl BerSpec {
    pub fn validate(&self) -> Result<(), (String, String)> {
        super::loss::check_probability("ber", self.ber, false)
    }
}

impl super::ChannelSpecOps for BerSpec {
    type Model = Ber;
    fn build(&self, ctx: &ChannelCtx) -> Ber {
        Ber::build(self, ctx)
    }
    fn validate(&self) -> Result<(), (String, String)> {
        BerSpec::validate(self)
    }
    fn apply_to_mut(&mut self) -> Option<&mut Option<ApplyTo>> {
        Some(&mut self.apply_to)
    }
}

pub struct Ber {
    apply_to: ApplyTo,
    /// ln(1 − BER), cached.
    ln_1m_ber: f64,
    rng: RngStream,
}

impl Ber {
    pub fn new(ber: f64, apply_to: ApplyTo, rng: RngStream) -> Ber {
        Ber {
            apply_to,
            ln_1m_ber: (-ber).ln_1p(),
            rng,
        }
    }
    pub fn build(s: &BerSpec, ctx: &ChannelCtx) -> Ber {
        Ber::new(s.ber, s.apply_to.unwrap_or_default(), ctx.link_rng())
    }
    pub fn loss_probability(&self, bytes: u32) -> f64 {
        packet_loss_probability(self.ln_1m_ber, bytes)
    }
}

impl ChannelModel for Ber {
    #[inline]
    fn is_lost(&mut self, tx: &Tx) -> bool {
        if !self.apply_to.covers(tx.kind) {
            return false;
        }
        let p = self.loss_probability(tx.bytes);
        self.rng.bernoulli(p)
    }
    fn state(&mut self, _now: Time) -> Option<ChannelState> {
        Some(ChannelState {
            state: 0,
            loss_probability: self.loss_probability(1500),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ber_loss_grows_with_packet_length() {
        let m = Ber::new(1e-6, ApplyTo::Both, RngStream::derive(1, "t"));
        let data = m.loss_probability(1500);
        let ack = m.loss_probability(40);
        assert!((data - (1.0 - (1.0f64 - 1e-6).powi(12000))).abs() < 1e-12);
        assert!((ack - (1.0 - (1.0f64 - 1e-6).powi(320))).abs() < 1e-12);
        assert!(ack < data / 30.0);
    }
}
