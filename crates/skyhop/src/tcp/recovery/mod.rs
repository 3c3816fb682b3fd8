//! Loss recovery: what the sender (re)transmits after duplicate ACKs and how
//! it leaves recovery. Kept apart from congestion control (`tcp::cc`), as ns-3
//! separates congestion ops from recovery ops: the controller decides how far
//! the window falls (`on_loss`), the recovery decides what goes out. A
//! recovery owns its state (in recovery or not, partial ACKs seen, HighRxt);
//! the sender owns the sequence space, the timers and the SACK scoreboard.
//!
//! - `tahoe.rs`: fast retransmit, then slow start with go-back-N (RFC 5681).
//! - `reno.rs`: Reno and NewReno Impatient / Slow-but-Steady (RFC 5681, RFC 6582).
//! - `sack.rs`: RFC 6675 SACK-based recovery.
//! - `aero.rs`: AeroTCP's super fast error control (Shang 2007).
//! - `prr.rs`: RFC 6937 Proportional Rate Reduction over RFC 6675.
//!
//! Register a recovery with one line in `tcp/registry.rs`.

mod aero;
mod prr;
mod reno;
mod sack;
mod tahoe;

pub use aero::AeroRecovery;
pub use prr::PrrRecovery;

pub use reno::{NewRenoRecovery, RenoRecovery};
pub use sack::{NextRule, SackRecovery};
pub use tahoe::TahoeRecovery;

pub use super::registry::{Rec, RecKind};

use super::cc::AckSample;
use super::seg::DataSeg;
use super::sender::TcpSender;
use crate::engine::time::Time;

/// Hooks a loss recovery implements. The sender calls them with itself, so
/// a recovery can read the sequence space and use the sender's primitives
/// (`emit_segment`, `retransmit_first`, `enter_loss`); it is object safe, so
/// one from user code can be boxed into `Rec::Custom`.
pub trait RecoveryOps: Send {
    /// Whether the sender is in loss recovery (cwnd growth is then the recovery's business).
    fn in_recovery(&self) -> bool;

    /// A duplicate ACK (RFC 5681 section 2), already counted in `s.dupacks()`.
    fn on_dupack(&mut self, s: &mut TcpSender, now: Time, a: &AckSample, out: &mut Vec<DataSeg>);

    /// A new cumulative ACK while `in_recovery()`. Returns whether the
    /// retransmission timer is to be restarted (RFC 6298 (5.3)).
    fn on_new_ack(
        &mut self,
        s: &mut TcpSender,
        now: Time,
        a: &AckSample,
        out: &mut Vec<DataSeg>,
    ) -> bool;

    /// Send what recovery allows while `in_recovery()`; return `false` to let
    /// the sender's sliding window send instead (the default).
    fn transmit(&mut self, _s: &mut TcpSender, _now: Time, _out: &mut Vec<DataSeg>) -> bool {
        false
    }

    /// The cumulative ACK advanced to `ack` (in or out of recovery).
    fn on_cum_ack(&mut self, _ack: u64) {}

    /// The sender's retransmission timer fired while `in_recovery()`;
    /// return `true` if the recovery handled it (a recovery-owned,
    /// fine-grained timer, as AeroTCP's) so that no coarse timeout is
    /// taken. Called on the timeout path only (default: `false`).
    fn on_timer_in_recovery(
        &mut self,
        _s: &mut TcpSender,
        _now: Time,
        _out: &mut Vec<DataSeg>,
    ) -> bool {
        false
    }

    /// A retransmission timeout: leave recovery and forget its state.
    /// `snd_una` is the first unacknowledged byte.
    fn on_rto(&mut self, snd_una: u64);

    /// RACK (RFC 8985, `tcp::rack`) marked segments lost while not in
    /// recovery (on an ACK or at its reordering timer): start a recovery.
    /// Only called on senders that run RACK (default: nothing).
    fn on_rack_loss(
        &mut self,
        _s: &mut TcpSender,
        _now: Time,
        _a: &AckSample,
        _out: &mut Vec<DataSeg>,
    ) {
    }

    /// A timeout on a sender that keeps its SACK scoreboard across it
    /// (with RACK), after `on_rto`: return `true` to retransmit from the
    /// scoreboard as an RTO recovery until the cumulative ACK reaches
    /// `s.recover()`; `false` (the default) makes the sender go back N.
    fn on_rto_keep_sack(&mut self, _s: &mut TcpSender, _now: Time) -> bool {
        false
    }
}

/// Generates the recovery enum the sender holds (static dispatch), its kind
/// enum and its names from the one list in `tcp/registry.rs`.
macro_rules! recoveries {
    ($($v:ident($t:ty) = $name:literal => $make:expr),* $(,)?) => {
        /// The loss recoveries skyhop offers.
        pub enum Rec {
            $($v($t),)*
            Custom(Box<dyn $crate::tcp::recovery::RecoveryOps>),
            /// Placeholder while the sender lends itself to its recovery.
            Vacant,
        }

        /// Which built-in recovery (by name).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum RecKind {
            $($v,)*
        }

        impl RecKind {
            pub const NAMES: &'static [&'static str] = &[$($name),*];
            pub fn name(self) -> &'static str {
                match self {
                    $(RecKind::$v => $name,)*
                }
            }
            pub fn parse(name: &str) -> Option<RecKind> {
                match name {
                    $($name => Some(RecKind::$v),)*
                    _ => None,
                }
            }
        }

        impl Rec {
            pub fn build(kind: RecKind, cfg: &$crate::tcp::TcpConfig) -> Rec {
                match kind {
                    $(RecKind::$v => {
                        let make: fn(&$crate::tcp::TcpConfig) -> $t = $make;
                        Rec::$v(make(cfg))
                    })*
                }
            }
            /// Static dispatch of the per-ACK queries.
            #[inline]
            pub fn in_recovery(&self) -> bool {
                match self {
                    $(Rec::$v(r) => $crate::tcp::recovery::RecoveryOps::in_recovery(r),)*
                    Rec::Custom(r) => r.in_recovery(),
                    Rec::Vacant => unreachable!("recovery used while lent out"),
                }
            }
            #[inline]
            pub fn on_cum_ack(&mut self, ack: u64) {
                match self {
                    $(Rec::$v(r) => $crate::tcp::recovery::RecoveryOps::on_cum_ack(r, ack),)*
                    Rec::Custom(r) => r.on_cum_ack(ack),
                    Rec::Vacant => unreachable!("recovery used while lent out"),
                }
            }
            #[inline]
            pub fn get(&self) -> &dyn $crate::tcp::recovery::RecoveryOps {
                match self {
                    $(Rec::$v(r) => r,)*
                    Rec::Custom(r) => r.as_ref(),
                    Rec::Vacant => unreachable!("recovery used while lent out"),
                }
            }
            #[inline]
            pub fn get_mut(&mut self) -> &mut dyn $crate::tcp::recovery::RecoveryOps {
                match self {
                    $(Rec::$v(r) => r,)*
                    Rec::Custom(r) => r.as_mut(),
                    Rec::Vacant => unreachable!("recovery used while lent out"),
                }
            }
        }

        impl std::fmt::Debug for Rec {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $(Rec::$v(_) => f.write_str($name),)*
                    Rec::Custom(_) => f.write_str("custom"),
                    Rec::Vacant => f.write_str("vacant"),
                }
            }
        }
    };
}
pub(crate) use recoveries;
