//! The controller enum the sender holds: one variant per line of
//! `controllers!` in `tcp/registry.rs` (static dispatch on the per-ACK
//! path), its constructor from a `TcpConfig`, and `Custom` for a controller
//! from user code.

use super::{
    AckSample, AeroTcp, Bbr, CcState, CongestionOps, Cubic, Hybla, RateSample, RenoCc, SendSample,
    Westwood, Westwood2001, WestwoodParams, WestwoodPlus,
};
use crate::engine::time::{Dur, Time};
use crate::tcp::config::TcpConfig;
use crate::tcp::registry::{controllers, CcKind};

/// Generates [`Cc`] from the list.
macro_rules! controller_enum {
    ($($v:ident($t:ty) = $name:literal => $make:expr; $traits:expr),* $(,)?) => {
        /// The congestion controllers skyhop offers, chosen per TCP leg.
        pub enum Cc {
            $($v($t),)*
            Custom(Box<dyn CongestionOps>),
        }

        impl Cc {
            /// Build the controller `kind` for a connection configured by `cfg`.
            pub fn build(kind: CcKind, cfg: &TcpConfig) -> Cc {
                match kind {
                    $(CcKind::$v => {
                        let make: fn(&TcpConfig) -> $t = $make;
                        Cc::$v(make(cfg))
                    })*
                }
            }
        }

        impl std::fmt::Debug for Cc {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $(Cc::$v(_) => f.write_str($name),)*
                    Cc::Custom(_) => f.write_str("custom"),
                }
            }
        }

        impl CongestionOps for Cc {
            #[inline]
            fn observe_ack(&mut self, s: &CcState, a: &AckSample) {
                match self {
                    $(Cc::$v(c) => c.observe_ack(s, a),)*
                    Cc::Custom(c) => c.observe_ack(s, a),
                }
            }
            fn on_established(&mut self, s: &mut CcState, srtt: Option<Dur>) {
                match self {
                    $(Cc::$v(c) => c.on_established(s, srtt),)*
                    Cc::Custom(c) => c.on_established(s, srtt),
                }
            }
            #[inline]
            fn on_ack(&mut self, s: &mut CcState, a: &AckSample) {
                match self {
                    $(Cc::$v(c) => c.on_ack(s, a),)*
                    Cc::Custom(c) => c.on_ack(s, a),
                }
            }
            fn on_loss(&mut self, s: &mut CcState, now: Time, flight: u64) {
                match self {
                    $(Cc::$v(c) => c.on_loss(s, now, flight),)*
                    Cc::Custom(c) => c.on_loss(s, now, flight),
                }
            }
            fn on_rto(&mut self, s: &mut CcState, now: Time, flight: u64) {
                match self {
                    $(Cc::$v(c) => c.on_rto(s, now, flight),)*
                    Cc::Custom(c) => c.on_rto(s, now, flight),
                }
            }
            fn on_undo(&mut self, s: &mut CcState, prior_cwnd: u64, prior_ssthresh: u64) {
                match self {
                    $(Cc::$v(c) => c.on_undo(s, prior_cwnd, prior_ssthresh),)*
                    Cc::Custom(c) => c.on_undo(s, prior_cwnd, prior_ssthresh),
                }
            }
            fn on_exit_recovery(&mut self, s: &mut CcState, now: Time) {
                match self {
                    $(Cc::$v(c) => c.on_exit_recovery(s, now),)*
                    Cc::Custom(c) => c.on_exit_recovery(s, now),
                }
            }
            #[inline]
            fn on_send(&mut self, s: &CcState, tx: &SendSample) {
                match self {
                    $(Cc::$v(c) => c.on_send(s, tx),)*
                    Cc::Custom(c) => c.on_send(s, tx),
                }
            }
            #[inline]
            fn pacing_rate_bps(&self, s: &CcState) -> Option<f64> {
                match self {
                    $(Cc::$v(c) => c.pacing_rate_bps(s),)*
                    Cc::Custom(c) => c.pacing_rate_bps(s),
                }
            }
            fn wants_rate_samples(&self) -> bool {
                match self {
                    $(Cc::$v(c) => c.wants_rate_samples(),)*
                    Cc::Custom(c) => c.wants_rate_samples(),
                }
            }
            fn on_rate_sample(&mut self, s: &mut CcState, a: &AckSample, rs: &RateSample) {
                match self {
                    $(Cc::$v(c) => c.on_rate_sample(s, a, rs),)*
                    Cc::Custom(c) => c.on_rate_sample(s, a, rs),
                }
            }
fn set_connections_open(&mut self, n: u32) {
                match self {
                    $(Cc::$v(c) => c.set_connections_open(n),)*
                    Cc::Custom(c) => c.set_connections_open(n),
                }
            }
                        fn rate_estimate_bps(&self) -> Option<f64> {
                match self {
                    $(Cc::$v(c) => c.rate_estimate_bps(),)*
                    Cc::Custom(c) => c.rate_estimate_bps(),
                }
            }
        }
    };
}

controllers!(controller_enum!);
