//! AeroTCP's window: an allocation, not a probe (Y. Shang, "Transport
//! Protocol and Flow Control for IP-Based Broadband Aeronautical Satellite
//! Networks", M.S. thesis, University of Maryland, College Park, 2007).
//!
//! The satellite leg between the ground and aircraft gateways is one FIFO
//! link with no router inside it, so a loss there is corruption, never
//! congestion. AeroTCP therefore has no slow start and no AIMD: cwnd is the
//! connection's share of the link, SatBW/N x SatRTT (N the maximum or the
//! current number of connections), one peak-rate-delay product, or a rate
//! looked up in a table by the number of connections open
//! ([`crate::tcp::config::AeroAllocation`]). A loss or a timeout leaves the
//! window where it is; loss recovery is `tcp::recovery::aero`.

use super::{AckSample, CcState, CongestionOps};
use crate::engine::time::Time;
use crate::tcp::config::{AeroAdaptive, TcpConfig};

#[derive(Debug)]
pub struct AeroTcp {
    fixed_segments: u32,
    adaptive: Option<AeroAdaptive>,
    /// Wire bytes of one full packet (MSS + headers).
    packet: u64,
    /// Connections open on the satellite leg (adaptive allocation), as the
    /// world last said (`set_connections_open`).
    open: u32,
}

impl AeroTcp {
    pub fn new(cfg: &TcpConfig) -> AeroTcp {
        AeroTcp {
            fixed_segments: cfg.aero.cwnd_segments.max(1),
            adaptive: cfg.aero.adaptive.clone(),
            packet: cfg.mss as u64 + cfg.header_bytes as u64,
            open: 0,
        }
    }

    /// The allocated window in bytes of payload.
    pub fn target(&self, mss: u64) -> u64 {
        let segs = match &self.adaptive {
            Some(a) => a.segments(self.open, self.packet),
            None => self.fixed_segments,
        };
        segs as u64 * mss
    }

    fn set(&self, s: &mut CcState) {
        s.cwnd = self.target(s.mss);
        // No slow start: ssthresh plays no part; keep it at the window.
        s.ssthresh = s.cwnd;
    }
}

impl CongestionOps for AeroTcp {
    /// No growth: the window follows the allocation (recomputed on every
    /// new ACK, so an adaptive window follows connections opening and closing).
    fn on_ack(&mut self, s: &mut CcState, _ack: &AckSample) {
        self.set(s);
    }
    /// No window reduction on loss: a loss is corruption.
    fn on_loss(&mut self, s: &mut CcState, _now: Time, _flight: u64) {
        self.set(s);
    }
    /// No slow start after a timeout either.
    fn on_rto(&mut self, s: &mut CcState, _now: Time, _flight: u64) {
        self.set(s);
    }
    fn on_exit_recovery(&mut self, s: &mut CcState, _now: Time) {
        self.set(s);
    }
    /// The count the adaptive allocation divides the link by; the window
    /// follows it at the next ACK, loss or timeout.
    fn set_connections_open(&mut self, n: u32) {
        self.open = n;
    }
}
