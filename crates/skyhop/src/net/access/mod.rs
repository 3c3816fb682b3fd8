//! LEO access as deployed by Starlink: a user terminal reaches the Internet
//! through one satellite at a time, chosen by a global scheduler that
//! reassigns terminals every 15 seconds, and the satellite's traffic lands
//! at a gateway that sends it over terrestrial fibre to a point of presence
//! (PoP). docs/leo.md ("Starlink as deployed") gives the model, its
//! defaults and their sources; this module is the engine's part of it.
//!
//! - [`EpochClock`]: the reconfiguration epochs (boundaries at
//!   `offset + n · period`; Starlink's are the 12th, 27th, 42nd and 57th
//!   second of every minute).
//! - `schedule.rs`: [`AccessNet`], the terminals, gateways and PoPs of a
//!   run and, per epoch, each terminal's serving satellite, gateway and
//!   path to its PoP ([`EpochPlan`]), computed from the positions at the
//!   epoch's start and end by a documented policy (bent pipe when a gateway
//!   shares the satellite's view, inter-satellite links otherwise, within
//!   a hop limit), cached, and installed into the routing state of a moving
//!   network (`install.rs`) so that packets follow it hop by hop.
//! - `link.rs`: the access link between a terminal's host and its dish, a
//!   link layer (`links.<id>.link_layer = { model = "starlink-access" }`):
//!   frames of 1/750 s, the uplink's request-grant delay, each terminal's
//!   share of its satellite's beam, the dish's and the gateway's queues
//!   (drop-front), and the pause of the terminal's frames around every
//!   epoch boundary.

mod install;
pub mod link;
pub mod schedule;

pub use link::{AccessLink, AccessLinkSpec, AccessParams, BeamShare, DropPolicy};
pub use schedule::{
    AccessNet, Assignment, EpochEvent, EpochPlan, GatewaySpec, SchedulerParams, TerminalSpec,
};

use crate::engine::time::Dur;

/// Reconfiguration epochs: boundaries at `offset + n · period` (n ≥ 0)
/// after t = 0; epoch 0 runs from t = 0 to the first boundary, epoch n ≥ 1
/// from boundary n − 1 to boundary n. With `offset` 0 the first boundary is
/// at `period` (t = 0 is not a reconfiguration). The same epochs as the
/// routing policy `epochs` (`net::mobile::RoutingPolicy::Epochs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EpochClock {
    pub period: Dur,
    pub offset: Dur,
}

impl EpochClock {
    /// Starlink's: 15 s epochs whose boundaries fall at seconds 12, 27, 42
    /// and 57 of each minute when t = 0 is a whole minute (Mohan et al., WWW
    /// 2024; Casparsen et al., arXiv 2601.08439).
    pub const STARLINK: EpochClock = EpochClock {
        period: Dur::from_secs(15),
        offset: Dur::from_secs(12),
    };

    fn first(&self) -> Dur {
        if self.offset.0 > 0 {
            self.offset
        } else {
            self.period
        }
    }

    /// The epoch holding instant `t`.
    pub fn index_at(&self, t: Dur) -> u64 {
        let f = self.first();
        if t < f {
            0
        } else {
            (t.0 - f.0) / self.period.0 + 1
        }
    }

    /// When epoch `n` starts (0 for epoch 0, else its opening boundary).
    pub fn start(&self, n: u64) -> Dur {
        if n == 0 {
            Dur::ZERO
        } else {
            Dur(self.first().0 + (n - 1) * self.period.0)
        }
    }

    /// When epoch `n` ends (the boundary that closes it).
    pub fn end(&self, n: u64) -> Dur {
        Dur(self.first().0 + n * self.period.0)
    }

    /// Whether `t` is a reconfiguration boundary.
    pub fn is_boundary(&self, t: Dur) -> bool {
        t.0 > 0 && self.start(self.index_at(t)) == t
    }
}

#[cfg(test)]
mod tests;
