//! Loss recovery: what the sender (re)transmits after duplicate ACKs and how
//! it leaves recovery. Kept apart from congestion control (`tcp::cc`), as ns-3
//! separates congestion ops from recovery ops: the controller decides how far
//! the window falls (`on_loss`), the recovery decides what goes out. A
//! recovery owns its state (in recovery or not, partial ACKs seen, HighRxt);
//! it works on the sending side's state, [`SendCore`] (the sequence space,
//! the window, the SACK scoreboard, the retransmission timer, RACK), which
//! the sender lends it for each call. The sender runs the timers.
//!
//! - `tahoe.rs`: fast retransmit, then slow start with go-back-N (RFC 5681).
//! - `reno.rs`: Reno and NewReno Impatient / Slow-but-Steady (RFC 5681, RFC 6582).
//! - `ns2_newreno.rs`: NewReno as ns-2's `Agent/TCP/Newreno` runs it (the
//!   studies' simulator), with or without partial window deflation.
//! - `ns2_sack1.rs`: SACK recovery as ns-2's `Agent/TCP/Sack1` runs it.
//! - `sack.rs`: RFC 6675 SACK-based recovery.
//! - `aero.rs`: AeroTCP's super fast error control (Shang 2007).
//! - `prr.rs`: RFC 6937 Proportional Rate Reduction over RFC 6675.
//!
//! Register a recovery with one line in `tcp/registry.rs`; the sender holds
//! it through the [`Rec`] enum (`dispatch.rs`: static dispatch).

mod aero;
mod dispatch;
mod ns2_newreno;
mod ns2_sack1;
mod prr;
mod reno;
mod sack;
mod tahoe;

pub use aero::AeroRecovery;
pub use ns2_newreno::{ns2_halving_basis, Ns2NewRenoRecovery};
pub use ns2_sack1::Ns2Sack1Recovery;
pub use prr::PrrRecovery;

pub use reno::{NewRenoRecovery, RenoRecovery};
pub use sack::{NextRule, SackRecovery};
pub use tahoe::TahoeRecovery;

pub use super::registry::RecKind;
pub use super::send_core::SendCore;
pub use dispatch::Rec;

use super::cc::AckSample;
use super::seg::DataSeg;
use crate::engine::time::Time;

/// Hooks a loss recovery implements. The sender calls them with its
/// [`SendCore`], so a recovery can read the sequence space and use the
/// primitives of every transmission (`emit_segment`, `retransmit_first`,
/// `enter_loss`); it is object safe, so one from user code can be boxed
/// into `Rec::Custom`.
pub trait RecoveryOps: Send {
    /// Whether the sender is in loss recovery (cwnd growth is then the recovery's business).
    fn in_recovery(&self) -> bool;

    /// A duplicate ACK (RFC 5681 section 2), already counted in `s.dupacks()`.
    fn on_dupack(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>);

    /// A new cumulative ACK while `in_recovery()`. Returns whether the
    /// retransmission timer is to be restarted (RFC 6298 (5.3)).
    fn on_new_ack(
        &mut self,
        s: &mut SendCore,
        now: Time,
        a: &AckSample,
        out: &mut Vec<DataSeg>,
    ) -> bool;

    /// Send what recovery allows while `in_recovery()`; return `false` to let
    /// the sender's sliding window send instead (the default).
    fn transmit(&mut self, _s: &mut SendCore, _now: Time, _out: &mut Vec<DataSeg>) -> bool {
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
        _s: &mut SendCore,
        _now: Time,
        _out: &mut Vec<DataSeg>,
    ) -> bool {
        false
    }

    /// What a retransmission timeout's reduction starts from, called
    /// before `on_rto` with the bytes outstanding: by default the sender's
    /// rule (FlightSize, RFC 5681 (5); cwnd when the window is validated).
    fn timeout_basis(&self, s: &SendCore, flight: u64) -> u64 {
        s.reduction_basis(flight)
    }

    /// A retransmission timeout: leave recovery and forget its state.
    /// `snd_una` is the first unacknowledged byte.
    fn on_rto(&mut self, snd_una: u64);

    /// RACK (RFC 8985, `tcp::rack`) marked segments lost while not in
    /// recovery (on an ACK or at its reordering timer): start a recovery.
    /// Only called on senders that run RACK (default: nothing).
    fn on_rack_loss(
        &mut self,
        _s: &mut SendCore,
        _now: Time,
        _a: &AckSample,
        _out: &mut Vec<DataSeg>,
    ) {
    }

    /// The recovery under way is a timeout's (after `on_rto_keep_sack`
    /// returned true), not a fast recovery (default: false).
    fn in_rto_recovery(&self) -> bool {
        false
    }

    /// A timeout on a sender that keeps its SACK scoreboard across it
    /// (with RACK), after `on_rto`: return `true` to retransmit from the
    /// scoreboard as an RTO recovery until the cumulative ACK reaches
    /// `s.recover()`; `false` (the default) makes the sender go back N.
    fn on_rto_keep_sack(&mut self, _s: &mut SendCore, _now: Time) -> bool {
        false
    }
}
