//! The sender's side of the optional three-way handshake
//! (`TcpConfig::handshake`, off by default).
//!
//! The connection opens with a SYN (`TcpSender::connect`, or the first
//! `add_app_data`) and sends no data until the SYN-ACK arrives. The SYN is
//! retransmitted on the RTO with RFC 6298 back-off; the exchange gives the
//! first RTT sample unless the SYN was retransmitted (Karn), and then
//! RFC 6298 (5.7) sets the RTO to 3 s (if it was lower) and RFC 5681 (3.1)
//! the initial window to one segment. The ACK of the SYN-ACK rides on the
//! first data segment (no packet of its own).

use super::cc::CongestionOps;
use super::seg::{AckSeg, DataSeg};
use super::send_core::SendCore;
use crate::engine::time::{Dur, Time};

/// Laid out in the order written (`repr(C)`): `established`, read on every
/// ACK and transmission, last, beside the sender's per-event fields.
#[derive(Clone, Debug)]
#[repr(C)]
pub(super) struct Handshake {
    /// When the first SYN went out (`None`: not yet sent).
    syn_sent_at: Option<Time>,
    /// When the SYN-ACK arrived (for the results' handshake time).
    established_at: Option<Time>,
    /// The SYN was retransmitted (no RTT sample; RFC 6298 (5.7)).
    syn_retx: bool,
    /// Data may flow (always true without a handshake).
    established: bool,
}

impl Handshake {
    /// `on`: the connection opens with a handshake; otherwise it is
    /// established from the start.
    pub(super) fn new(on: bool) -> Handshake {
        Handshake {
            established: !on,
            syn_sent_at: None,
            syn_retx: false,
            established_at: None,
        }
    }

    /// A handshake that started: when its first SYN went out and when the
    /// SYN-ACK arrived (`None` until then); `None` without one.
    pub(super) fn times(&self) -> Option<(Time, Option<Time>)> {
        self.syn_sent_at.map(|t| (t, self.established_at))
    }

    /// Data may flow: the handshake is done, or there is none.
    #[inline]
    pub(super) fn established(&self) -> bool {
        self.established
    }

    /// The SYN went out and its SYN-ACK is awaited.
    pub(super) fn syn_sent(&self) -> bool {
        !self.established && self.syn_sent_at.is_some()
    }

    /// Send the SYN, once (a repeated call does nothing).
    pub(super) fn connect(&mut self, core: &mut SendCore, now: Time, out: &mut Vec<DataSeg>) {
        if self.established || self.syn_sent_at.is_some() {
            return;
        }
        self.syn_sent_at = Some(now);
        Self::send_syn(core, now, false, out);
    }

    fn send_syn(core: &mut SendCore, now: Time, retx: bool, out: &mut Vec<DataSeg>) {
        out.push(DataSeg::syn(retx, now));
        // RFC 6298: the SYN is timed like data (initial RTO, backed off).
        core.restart_rto(now);
    }

    /// The SYN-ACK arrived (any ACK in SYN-SENT acknowledges the SYN: the
    /// receiver sends nothing else before data). The sender then sends.
    pub(super) fn on_syn_ack(&mut self, core: &mut SendCore, now: Time, ack: &AckSeg) {
        self.established = true;
        self.established_at = Some(now);
        core.rto_at = None;
        core.rwnd = ack.wnd;
        if self.syn_retx {
            // Karn: no sample. RFC 6298 (5.7): the SYN (or SYN-ACK) was lost,
            // so the RTO once data flows is 3 s if it was lower, unbacked.
            // (ns-2 has no such rule: its timer stays backed off until
            // the first valid sample.)
            if core.rtt.ns2_timer().is_none() {
                let init = core.cfg.rto_initial.max(Dur::from_secs(3));
                core.rtt = core.rtt.restarted(init);
            }
            // RFC 5681 (3.1): after a lost SYN or SYN-ACK the initial window is one segment.
            core.st.cwnd = core.st.cwnd.min(core.st.mss);
        } else if let Some(t0) = self.syn_sent_at {
            core.rtt.sample_sent(t0, now);
        }
        // The controller's initial window (Linux calls its `init` here).
        let srtt = core.rtt.srtt();
        core.cc.on_established(&mut core.st, srtt);
    }

    /// The retransmission timer fired before the connection was
    /// established: the SYN (or its SYN-ACK) was lost: back off and send it
    /// again (RFC 6298 (5.5)-(5.6)).
    pub(super) fn on_rto(&mut self, core: &mut SendCore, now: Time, out: &mut Vec<DataSeg>) {
        core.rtt.back_off();
        self.syn_retx = true;
        Self::send_syn(core, now, true, out);
    }
}
