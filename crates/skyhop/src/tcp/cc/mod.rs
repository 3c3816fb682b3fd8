//! Congestion controllers: how cwnd grows and how far it falls.
//!
//! A controller never decides *what* to (re)transmit; that is the loss
//! recovery's job (`tcp::recovery`). The sender calls the hooks below and
//! applies what the controller sets in [`CcState`]. All windows are in bytes.
//!
//! One file per algorithm; the sender holds them through the [`Cc`] enum
//! (`dispatch.rs`: static dispatch on the per-ACK path), generated from the
//! list in `tcp/registry.rs`.

mod aerotcp;
mod bbr;
mod cubic;
mod dispatch;
mod hybla;
mod hystart;
mod reno;
mod westwood;
mod westwood2001;
mod westwood_plus;

pub use aerotcp::AeroTcp;
pub use bbr::{Bbr, BbrMode, HIGH_GAIN};
pub use cubic::Cubic;
pub use hybla::Hybla;
pub use hystart::{HyStart, Phase as HyStartPhase};
pub use reno::RenoCc;
pub use westwood::{FilterInput, Westwood, WestwoodParams};
pub use westwood2001::Westwood2001;
pub use westwood_plus::WestwoodPlus;

pub use super::registry::CcKind;
pub use dispatch::Cc;

use crate::engine::time::{Dur, Time};
pub use crate::tcp::rate_sample::RateSample;

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
    /// Bytes newly delivered by this ACK: cumulatively acknowledged and not
    /// SACKed before, plus newly SACKed (Linux's `acked_sacked`).
    pub delivered_bytes: u64,
    /// The window is in use (Linux's `tcp_is_cwnd_limited`): the sender was
    /// held back by cwnd during the last window of data, or, in slow start,
    /// cwnd is below twice the most it had out. Always true unless the
    /// connection validates its window (`TcpConfig::cwnd_validation`).
    pub cwnd_limited: bool,
    /// The connection is in Linux's Open state: no loss recovery, nothing
    /// SACKed or marked lost outstanding.
    pub open: bool,
}

impl AckSample {
    /// An ACK of `acked_bytes` new bytes at `now` with nothing else known
    /// (no RTT, nothing SACKed): for tests and controllers' own use.
    pub fn new_data(now: Time, acked_bytes: u64) -> AckSample {
        AckSample {
            now,
            acked_bytes,
            is_dupack: false,
            sacked_bytes: 0,
            rtt_sample: None,
            srtt: None,
            min_rtt: None,
            flight_bytes: 0,
            delivered_bytes: acked_bytes,
            cwnd_limited: true,
            open: true,
        }
    }
}

/// Hooks a congestion controller implements (object safe, so a controller
/// from user code can be boxed into `Cc::Custom`). Defaults are standard
/// RFC 5681 behaviour, so a controller overrides only what it changes.
pub trait CongestionOps: Send {
    /// Every ACK (new or duplicate) passes here first, for estimators.
    fn observe_ack(&mut self, _s: &CcState, _ack: &AckSample) {}

    /// The connection is established (the handshake's SYN-ACK arrived,
    /// with `srtt` from it unless the SYN was retransmitted): a controller
    /// may set its initial window (Linux's `init` hook). Not called on a
    /// connection without a handshake. Default: nothing.
    fn on_established(&mut self, _s: &mut CcState, _srtt: Option<Dur>) {}

    /// A new cumulative ACK outside loss recovery: grow the window.
    /// RFC 5681 (3.1): slow start adds one SMSS per ACK while cwnd < ssthresh;
    /// congestion avoidance adds SMSS*SMSS/cwnd per ACK (equation 3).
    fn on_ack(&mut self, s: &mut CcState, ack: &AckSample) {
        if ack.acked_bytes == 0 || !ack.cwnd_limited {
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

    /// A timeout turned out spurious (F-RTO, RFC 5682, or the Eifel test
    /// with timestamps, RFC 3522): restore the window as it was before it,
    /// `prior_cwnd` and `prior_ssthresh`. Default, as Linux's
    /// `tcp_undo_cwnd_reduction` with `tcp_reno_undo_cwnd`: cwnd and
    /// ssthresh each the larger of now and before.
    fn on_undo(&mut self, s: &mut CcState, prior_cwnd: u64, prior_ssthresh: u64) {
        s.cwnd = s.cwnd.max(prior_cwnd);
        s.ssthresh = s.ssthresh.max(prior_ssthresh);
    }

    /// Loss recovery ended (the recovery point was acknowledged). The
    /// recovery has already set cwnd as its algorithm says; a controller
    /// may adjust it (default: nothing).
    fn on_exit_recovery(&mut self, _s: &mut CcState, _now: Time) {}

    /// A segment left the sender (send-time hook: delivery-rate sampling,
    /// pacing state). Default: nothing.
    fn on_send(&mut self, _s: &CcState, _tx: &SendSample) {}

    /// Pacing rate in bit/s (wire bytes); `None` (the default) sends as the
    /// window allows, back to back. With a rate, the sender spaces
    /// transmissions by their wire size over the rate and asks for a timer
    /// at the next departure (`TcpSender::poll_at`).
    fn pacing_rate_bps(&self, _s: &CcState) -> Option<f64> {
        None
    }

    /// Whether the sender is to keep a delivery-rate sampler
    /// (`tcp::rate_sample`) for this controller and call
    /// [`CongestionOps::on_rate_sample`]. Asked once, when the sender is
    /// built; default false (no per-segment state, no per-ACK cost).
    fn wants_rate_samples(&self) -> bool {
        false
    }

    /// Every ACK (new or duplicate, in or out of recovery), after
    /// `observe_ack` and before the recovery sees it, with the delivery-rate
    /// sample it produced. Only for controllers that want rate samples.
    fn on_rate_sample(&mut self, _s: &mut CcState, _ack: &AckSample, _rs: &RateSample) {}

    /// Eligible/estimated rate in bit/s, for controllers that keep one (for traces).
    fn rate_estimate_bps(&self) -> Option<f64> {
        None
    }

    /// The number of connections open on the connection's path changed
    /// (given by the world for controllers that share a link by count:
    /// AeroTCP's adaptive allocation). Default: nothing.
    fn set_connections_open(&mut self, _n: u32) {}
}

/// What the sender tells a controller about a segment it sent.
#[derive(Clone, Copy, Debug)]
pub struct SendSample {
    pub now: Time,
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    pub retx: bool,
    /// Bytes in flight after this send (snd_max - snd_una).
    pub flight_bytes: u64,
}
