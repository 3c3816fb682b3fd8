//! Uniform packet error rate: each packet lost independently with probability p.

use super::{ApplyTo, ChannelCtx, ChannelModel, ChannelState, Tx};
use crate::engine::rng::RngStream;
use crate::engine::time::Time;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PerSpec {
    /// Packet loss probability.
    pub p: f64,
    /// Which packets it applies to (default: the link's `errors_apply_to`, else both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apply_to: Option<ApplyTo>,
}

impl PerSpec {
    pub fn validate(&self) -> Result<(), (String, String)> {
        super::loss::check_probability("p", self.p, false)
    }
}

impl super::ChannelSpecOps for PerSpec {
    type Model = Per;
    fn build(&self, ctx: &ChannelCtx) -> Per {
        Per::build(self, ctx)
    }
    fn validate(&self) -> Result<(), (String, String)> {
        PerSpec::validate(self)
    }
    fn apply_to_mut(&mut self) -> Option<&mut Option<ApplyTo>> {
        Some(&mut self.apply_to)
    }
}

pub struct Per {
    p: f64,
    apply_to: ApplyTo,
    rng: RngStream,
}

impl Per {
    pub fn new(p: f64, apply_to: ApplyTo, rng: RngStream) -> Per {
        Per { p, apply_to, rng }
    }
    pub fn build(s: &PerSpec, ctx: &ChannelCtx) -> Per {
        Per::new(s.p, s.apply_to.unwrap_or_default(), ctx.link_rng())
    }
}

impl ChannelModel for Per {
    #[inline]
    fn is_lost(&mut self, tx: &Tx) -> bool {
        // Draws only when the model applies, so other packets shift no draw.
        self.apply_to.covers(tx.kind) && self.rng.bernoulli(self.p)
    }
    fn state(&mut self, _now: Time) -> Option<ChannelState> {
        Some(ChannelState {
            state: 0,
            loss_probability: self.p,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::PacketKind;

    fn tx(kind: PacketKind) -> Tx {
        Tx {
            start: Time::ZERO,
            end: Time::ZERO,
            bytes: 1500,
            kind,
            seq: 0,
            retx: false,
        }
    }

    #[test]
    fn uniform_per_hits_its_rate() {
        let mut m = Per::new(0.01, ApplyTo::Both, RngStream::derive(1, "t"));
        let lost = (0..200_000)
            .filter(|_| m.is_lost(&tx(PacketKind::Data)))
            .count();
        // 2000 expected, sd ~ 44.5
        assert!((1800..2200).contains(&lost), "{lost}");
    }

    #[test]
    fn apply_to_restricts_the_model() {
        let mut m = Per::new(1.0 - 1e-12, ApplyTo::Data, RngStream::derive(1, "t"));
        assert!(!m.is_lost(&tx(PacketKind::Ack)));
        assert!(m.is_lost(&tx(PacketKind::Data)));
    }
}
