//! Congestion controllers: how cwnd grows and how far it falls.
//!
//! A controller never decides *what* to (re)transmit; that is the loss
//! recovery's job (`tcp::recovery`). The sender calls the hooks below and
//! applies what the controller sets in [`CcState`]. All windows are in bytes.
//!
//! One file per algorithm; the sender holds them through the [`Cc`] enum
//! (static dispatch on the per-ACK path).

mod reno;
mod westwood;
mod westwood_plus;

pub use reno::RenoCc;
pub use westwood::{FilterInput, Westwood, WestwoodParams};
pub use westwood_plus::WestwoodPlus;

use crate::engine::time::{Dur, Time};

/// Window state shared by the sender and its controller (bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcState {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
}

/// What the sender knows when an ACK arrives, handed to the controller.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: Time,
    /// Bytes newly acknowledged cumulatively by this ACK (0 for a duplicate ACK).
    pub acked_bytes: u64,
    /// True for a duplicate ACK (no new cumulative data, same window, data outstanding).
    pub is_dupack: bool,
    /// Bytes newly reported by SACK blocks of this ACK.
    pub sacked_bytes: u64,
    /// RTT sample taken on this ACK (Karn's rule already applied).
    pub rtt_sample: Option<Dur>,
    /// Smoothed RTT (RFC 6298), if any sample was taken yet.
    pub srtt: Option<Dur>,
    /// Smallest RTT sample seen on the connection.
    pub min_rtt: Option<Dur>,
    /// Bytes in flight before this ACK was processed.
    pub flight_bytes: u64,
}

/// Hooks a congestion controller implements. Defaults are standard
/// RFC 5681 behaviour, so a controller overrides only what it changes.
pub trait CongestionOps {
    /// Every ACK (new or duplicate) passes here first, for estimators.
    fn observe_ack(&mut self, _s: &CcState, _ack: &AckSample) {}

    /// A new cumulative ACK outside loss recovery: grow the window.
    /// RFC 5681 (3.1): slow start adds one SMSS per ACK while cwnd < ssthresh;
    /// congestion avoidance adds SMSS*SMSS/cwnd per ACK (equation 3).
    fn on_ack(&mut self, s: &mut CcState, ack: &AckSample) {
        if ack.acked_bytes == 0 {
            return;
        }
        if s.cwnd < s.ssthresh {
            s.cwnd += s.mss.min(ack.acked_bytes.max(1));
        } else {
            s.cwnd += (s.mss * s.mss / s.cwnd).max(1);
        }
    }

    /// Loss detected by duplicate ACKs (or SACK): set ssthresh and the base
    /// cwnd the recovery starts from (before any Reno inflation).
    /// RFC 5681 (4): ssthresh = max(FlightSize / 2, 2*SMSS).
    fn on_loss(&mut self, s: &mut CcState, _now: Time, flight_bytes: u64) {
        s.ssthresh = (flight_bytes / 2).max(2 * s.mss);
        s.cwnd = s.ssthresh;
    }

    /// Retransmission timeout. RFC 5681 (5): ssthresh = max(FlightSize/2, 2*SMSS), cwnd = 1 SMSS.
    fn on_rto(&mut self, s: &mut CcState, _now: Time, flight_bytes: u64) {
        s.ssthresh = (flight_bytes / 2).max(2 * s.mss);
        s.cwnd = s.mss;
    }

    /// Eligible/estimated rate in bit/s, for controllers that keep one (for traces).
    fn rate_estimate_bps(&self) -> Option<f64> {
        None
    }
}

/// The controllers skyhop offers, chosen per TCP leg.
#[derive(Clone, Debug)]
pub enum Cc {
    Reno(RenoCc),
    Westwood(Westwood),
    WestwoodPlus(WestwoodPlus),
}

impl CongestionOps for Cc {
    #[inline]
    fn observe_ack(&mut self, s: &CcState, a: &AckSample) {
        match self {
            Cc::Reno(c) => c.observe_ack(s, a),
            Cc::Westwood(c) => c.observe_ack(s, a),
            Cc::WestwoodPlus(c) => c.observe_ack(s, a),
        }
    }
    #[inline]
    fn on_ack(&mut self, s: &mut CcState, a: &AckSample) {
        match self {
            Cc::Reno(c) => c.on_ack(s, a),
            Cc::Westwood(c) => c.on_ack(s, a),
            Cc::WestwoodPlus(c) => c.on_ack(s, a),
        }
    }
    fn on_loss(&mut self, s: &mut CcState, now: Time, flight: u64) {
        match self {
            Cc::Reno(c) => c.on_loss(s, now, flight),
            Cc::Westwood(c) => c.on_loss(s, now, flight),
            Cc::WestwoodPlus(c) => c.on_loss(s, now, flight),
        }
    }
    fn on_rto(&mut self, s: &mut CcState, now: Time, flight: u64) {
        match self {
            Cc::Reno(c) => c.on_rto(s, now, flight),
            Cc::Westwood(c) => c.on_rto(s, now, flight),
            Cc::WestwoodPlus(c) => c.on_rto(s, now, flight),
        }
    }
    fn rate_estimate_bps(&self) -> Option<f64> {
        match self {
            Cc::Reno(c) => c.rate_estimate_bps(),
            Cc::Westwood(c) => c.rate_estimate_bps(),
            Cc::WestwoodPlus(c) => c.rate_estimate_bps(),
        }
    }
}
