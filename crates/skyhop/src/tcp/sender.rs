//! The sending side of a TCP connection, as a sans-IO state machine.
//!
//! Inputs: application data (`add_app_data`), ACKs (`on_ack`), timer expiry
//! (`on_timer`), each with the current time. Outputs: data segments pushed
//! into the caller's vector, and `poll_at()`, the next instant the sender
//! needs a timer call. It never reads a clock or touches the event queue.
//!
//! Sequence numbers are 64-bit byte offsets from 0 (no wrap-around); the
//! first data byte is 0. Loss recovery lives in `tcp::recovery` (one file per
//! strategy); window arithmetic in the congestion controller (`tcp::cc`).
//! The optional handshake is `handshake.rs`; the state a loss recovery works
//! on, and the primitives of every send, `send_core.rs`.

use super::cc::{AckSample, Cc, CcState, CongestionOps};
use super::config::TcpConfig;
use super::handshake::Handshake;
use super::rack::{LossTimer, Rack};
use super::recovery::{NextRule, Rec, RecoveryOps, SackRecovery};
use super::seg::{AckSeg, DataSeg};
use super::send_core::SendCore;
use crate::engine::time::{Dur, Time};

/// Counters of one sender.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub acks_received: u64,
    pub window_probes: u64,
}

#[derive(Debug)]
pub struct TcpSender {
    /// The state a recovery works on (sequence space, window, scoreboard,
    /// retransmission timer, RACK), with the primitives of every send.
    pub(super) core: SendCore,
    /// The loss recovery, owning its own state.
    pub(super) rec: Rec,
    pub(super) persist_at: Option<Time>,
    pub(super) persist_backoff: u32,
    pub(super) hs: Handshake,
    pub stats: SenderStats,
}

impl TcpSender {
    /// A sender with the given controller and recovery (see `tcp::new_sender`
    /// for the ones a variant names).
    pub fn new(cfg: TcpConfig, cc: Cc, rec: Rec) -> TcpSender {
        let rack = cfg.rack && cfg.variant.sack && matches!(rec, Rec::Sack(_) | Rec::Prr(_));
        TcpSender {
            hs: Handshake::new(cfg.handshake),
            core: SendCore::new(cfg, cc, rack),
            rec,
            persist_at: None,
            persist_backoff: 0,
            stats: SenderStats::default(),
        }
    }

    // ---- observers -------------------------------------------------------
    pub fn cwnd(&self) -> u64 {
        self.core.st.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.core.st.ssthresh
    }
    pub fn snd_una(&self) -> u64 {
        self.core.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.core.snd_nxt
    }
    pub fn snd_max(&self) -> u64 {
        self.core.snd_max
    }
    pub fn rwnd(&self) -> u64 {
        self.core.rwnd
    }
    /// Bytes sent and not yet cumulatively acknowledged.
    pub fn flight(&self) -> u64 {
        self.core.snd_max - self.core.snd_una
    }
    pub fn in_recovery(&self) -> bool {
        self.rec.in_recovery()
    }
    /// Duplicate ACKs counted since the last new cumulative ACK.
    pub fn dupacks(&self) -> u32 {
        self.core.dupacks
    }
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint: one past the highest byte
    /// sent when the last recovery or timeout began (`None` before any).
    pub fn recover(&self) -> Option<u64> {
        self.core.recover
    }
    /// The congestion window state (cwnd, ssthresh, mss in bytes).
    pub fn cc_state(&self) -> CcState {
        self.core.st
    }
    pub fn srtt(&self) -> Option<Dur> {
        self.core.rtt.srtt()
    }
    pub fn rto(&self) -> Dur {
        self.core.rtt.rto()
    }
    pub fn rto_deadline(&self) -> Option<Time> {
        self.core.rto_at
    }
    pub fn persist_deadline(&self) -> Option<Time> {
        self.persist_at
    }
    pub fn rate_estimate_bps(&self) -> Option<f64> {
        self.core.cc.rate_estimate_bps()
    }
    pub fn config(&self) -> &TcpConfig {
        &self.core.cfg
    }
    /// Everything the application handed over has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.core.snd_una >= self.core.app_end
    }
    pub fn app_end(&self) -> u64 {
        self.core.app_end
    }
    /// Data may flow: the handshake is done, or there is none.
    pub fn established(&self) -> bool {
        self.hs.established()
    }

    /// The next instant this sender needs `on_timer`.
    #[inline]
    pub fn poll_at(&self) -> Option<Time> {
        let t = match (self.core.rto_at, self.persist_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let t = match (t, self.core.pace_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match self.core.rack.as_deref().and_then(Rack::timer_at) {
            Some(b) => Some(t.map_or(b, |a| a.min(b))),
            None => t,
        }
    }

    /// RACK-TLP's state (RFC 8985), when the sender runs it.
    pub fn rack(&self) -> Option<&Rack> {
        self.core.rack.as_deref()
    }

    // ---- inputs ----------------------------------------------------------

    /// The application hands over `bytes` more bytes (`u64::MAX` saturates:
    /// an unlimited source).
    pub fn add_app_data(&mut self, now: Time, bytes: u64, out: &mut Vec<DataSeg>) {
        let before = out.len();
        self.take_app_data(now, bytes, out);
        self.tally(out, before);
    }

    /// An acknowledgement arrived. Returns the bytes newly acknowledged.
    pub fn on_ack(&mut self, now: Time, ack: &AckSeg, out: &mut Vec<DataSeg>) -> u64 {
        let before = out.len();
        let acked = self.take_ack(now, ack, out);
        self.tally(out, before);
        acked
    }

    /// A timer expired (or the engine calls at `poll_at()`).
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        let before = out.len();
        self.take_timers(now, out);
        self.tally(out, before);
    }

    /// Count what went on the wire from `out[before..]` (every segment of
    /// this sender passes here once, SYNs included).
    fn tally(&mut self, out: &[DataSeg], before: usize) {
        for d in &out[before..] {
            self.stats.segments_sent += 1;
            self.stats.bytes_sent += d.len as u64;
            if d.probe {
                self.stats.window_probes += 1;
            } else if d.retx {
                self.stats.retransmissions += 1;
            }
        }
        self.stats.fast_recoveries = self.core.losses;
    }

    fn take_app_data(&mut self, now: Time, bytes: u64, out: &mut Vec<DataSeg>) {
        self.core.app_end = self.core.app_end.saturating_add(bytes);
        if !self.hs.established() {
            // Data waits for the handshake; open the connection if not yet.
            self.hs.connect(&mut self.core, now, out);
            return;
        }
        if self.core.cfg.idle_restart {
            self.restart_after_idle(now);
        }
        let max_before = self.core.snd_max;
        self.try_send(now, out);
        if self.core.rack.is_some() {
            self.arm_loss_probe(now, self.core.snd_max > max_before);
        }
    }

    /// RFC 5681 (4.1): "TCP SHOULD set cwnd to no more than RW before
    /// beginning transmission if the TCP has not sent data in an interval
    /// exceeding the retransmission timeout", RW = min(IW, cwnd). Only with
    /// nothing outstanding (an idle connection; a stalled one has its
    /// retransmission timer). ssthresh is left as it is.
    fn restart_after_idle(&mut self, now: Time) {
        let idle = self.core.snd_una == self.core.snd_max && self.core.snd_nxt == self.core.snd_max;
        if let (true, Some(last)) = (idle, self.core.last_send) {
            if now.since(last) > self.core.rtt.rto() {
                let iw = self.core.cfg.initial_window as u64 * self.core.st.mss;
                self.core.st.cwnd = self.core.st.cwnd.min(iw);
            }
        }
    }

    /// Open the connection: with the handshake on, send the SYN (once; a
    /// repeated call does nothing). Without the handshake, nothing to do.
    pub fn connect(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        let before = out.len();
        self.hs.connect(&mut self.core, now, out);
        self.tally(out, before);
    }

    /// Set the cap on unacknowledged bytes (a proxy's outgoing-leg limit).
    pub fn set_max_unacked(&mut self, cap: Option<u64>) {
        self.core.cfg.max_unacked = cap;
    }

    fn take_ack(&mut self, now: Time, ack: &AckSeg, out: &mut Vec<DataSeg>) -> u64 {
        self.stats.acks_received += 1;
        if !self.hs.established() {
            if self.hs.syn_sent() {
                self.hs.on_syn_ack(&mut self.core, now, ack);
                self.try_send(now, out);
            }
            return 0;
        }
        let a = ack.ack;
        if a > self.core.snd_max || a < self.core.snd_una {
            // Acknowledges data never sent, or an old ACK: ignore (RFC 793).
            return 0;
        }
        let persisting = self.persist_at.is_some();
        self.core.rwnd = ack.wnd;
        let flight_before = self.flight();
        let pipe_before = if self.core.rs.is_some() {
            self.pipe()
        } else {
            0
        };

        // SACK blocks update the scoreboard (RFC 6675 Update()).
        let mut sacked_bytes = 0;
        if self.core.cfg.variant.sack {
            for &(s, e) in ack.sack.as_slice() {
                let e = e.min(self.core.snd_max);
                let s = s.max(a);
                if s < e {
                    if let Some(r) = self.core.rack.as_deref_mut() {
                        r.note_sack_block(&self.core.sb, s, e);
                    }
                    sacked_bytes += self.core.sb.insert(s, e);
                }
            }
        }
        let acked = a - self.core.snd_una;
        if acked > 0 {
            self.core.sb.remove_below(a);
        }
        // RFC 8985 section 6.2: RACK's view of this ACK (steps 1-5).
        let mut rack_lost = 0;
        let max_before = self.core.snd_max;
        if let Some(r) = self.core.rack.as_deref_mut() {
            rack_lost = r.on_ack(
                now,
                a,
                &self.core.sb,
                self.rec.in_recovery(),
                self.core.rtt.srtt(),
                self.core.rtt.min_rtt(),
            );
        }

        // RTT sample from the timed segment (Karn: cleared on any retransmission).
        let mut rtt_sample = None;
        if let Some((end, t0)) = self.core.timed {
            if a >= end {
                let r = now - t0;
                self.core.rtt.sample(r);
                rtt_sample = Some(r);
                self.core.timed = None;
            }
        }
        // RFC 5681 (2): a duplicate ACK acknowledges nothing new while data is
        // outstanding. A pure window update or a reply to a zero-window probe
        // is not one (as in BSD, which counts none while persisting).
        let is_dupack = acked == 0
            && self.core.snd_max > self.core.snd_una
            && !ack.window_update
            && ack.wnd > 0
            && !persisting;
        let sample = AckSample {
            now,
            acked_bytes: acked,
            is_dupack,
            sacked_bytes,
            rtt_sample,
            srtt: self.core.rtt.srtt(),
            min_rtt: self.core.rtt.min_rtt(),
            flight_bytes: flight_before,
        };
        self.core.cc.observe_ack(&self.core.st, &sample);
        if let Some(r) = self.core.rack.as_deref_mut() {
            // RFC 8985 section 7.4: the ACK of a loss probe that repaired a
            // loss: the window is reduced as after a fast recovery (Linux's
            // CWR episode: the controller's reduction, no recovery phase).
            if r.tlp_on_ack(a, is_dupack, !ack.sack.is_empty()) {
                self.core.cc.on_loss(&mut self.core.st, now, flight_before);
                self.core.cc.on_exit_recovery(&mut self.core.st, now);
            }
        }
        if let Some(r) = self.core.rs.as_deref_mut() {
            // Delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation)
            // for a controller that asked for one (BBR).
            let mut rs = r.on_ack(now, a, ack.sack.as_slice(), self.core.rtt.min_rtt());
            (rs.prior_inflight, rs.inflight) = (pipe_before, self.pipe_after(a));
            self.core.cc.on_rate_sample(&mut self.core.st, &sample, &rs);
        }

        if ack.wnd > 0 && self.persist_at.is_some() {
            // The window opened: leave persist mode.
            self.persist_at = None;
            self.persist_backoff = 0;
        }

        if acked > 0 {
            self.core.snd_una = a;
            if self.core.snd_nxt < a {
                self.core.snd_nxt = a;
            }
            self.rec.on_cum_ack(a);
            self.core.dupacks = 0;
            let restart_timer = self.on_new_ack(now, &sample, out);
            if self.core.snd_una == self.core.snd_max {
                // RFC 6298 (5.2): all outstanding data acknowledged: stop the timer.
                self.core.rto_at = None;
            } else if restart_timer {
                // RFC 6298 (5.3): restart the timer on an ACK of new data.
                self.core.rto_at = Some(now + self.core.rtt.rto());
            }
        } else if is_dupack {
            self.core.dupacks += 1;
            self.rec.on_dupack(&mut self.core, now, &sample, out);
            if self.core.cfg.limited_transmit {
                self.limited_transmit(now, out);
            }
        }
        if rack_lost > 0 && !self.rec.in_recovery() {
            // RFC 8985 section 6.2: RACK found lost segments; start a
            // recovery (RFC 6675 section 5, with RACK's "lost" for IsLost()).
            self.rec.on_rack_loss(&mut self.core, now, &sample, out);
        }
        self.try_send(now, out);
        if self.core.rack.is_some() {
            self.arm_loss_probe(now, acked > 0 || self.core.snd_max > max_before);
        }
        if self.core.rs.is_some()
            && self.core.snd_nxt >= self.core.app_end
            && self.flight() < self.core.st.cwnd
        {
            // The application has nothing more to send: rate samples until
            // this data is delivered are application-limited.
            if let Some(r) = self.core.rs.as_deref_mut() {
                r.set_app_limited();
            }
        }
        acked
    }

    /// RFC 3042 Limited Transmit: on each of the first DupThresh - 1
    /// duplicate ACKs, send one new segment if the receive window allows and
    /// the data outstanding stays within cwnd + 2 SMSS (section 2); cwnd is
    /// not changed. Only outside loss recovery.
    fn limited_transmit(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        if self.core.dupacks >= self.core.cfg.dupthresh
            || self.rec.in_recovery()
            || self.core.snd_nxt < self.core.snd_max
            || self.core.snd_nxt >= self.core.app_end
        {
            return;
        }
        let len = self.core.seg_len_at(self.core.snd_nxt);
        let end = self.core.snd_nxt + len as u64;
        let rwnd_limit = match self.core.cfg.max_unacked {
            Some(cap) => self.core.rwnd.min(cap),
            None => self.core.rwnd,
        };
        let cwnd_limit = self.core.st.cwnd + self.core.dupacks as u64 * self.core.st.mss;
        if end > self.core.snd_una + rwnd_limit.min(cwnd_limit) {
            return;
        }
        let seq = self.core.snd_nxt;
        self.core.emit(now, seq, len, false, out);
        self.core.snd_nxt = end;
    }

    fn take_timers(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        if let Some(t) = self.core.pace_at {
            if now >= t {
                self.core.pace_at = None;
                let max_before = self.core.snd_max;
                self.try_send(now, out);
                if self.core.rack.is_some() && self.core.snd_max > max_before {
                    self.arm_loss_probe(now, true);
                }
            }
        }
        if let Some(t) = self.persist_at {
            if now >= t {
                self.persist_fire(now, out);
            }
        }
        if let Some((t, kind)) = self.core.rack.as_deref().and_then(Rack::timer) {
            if now >= t {
                self.loss_timer_fire(now, kind, out);
            }
        }
        if let Some(t) = self.core.rto_at {
            if now >= t {
                self.rto_fire(now, out);
            }
        }
    }

    // ---- internals -------------------------------------------------------

    /// Bytes in the network as a rate-sampling controller (BBR) counts
    /// them: in SACK recovery, RFC 6675 SetPipe(); after a timeout, while
    /// going back N, what was resent since (the rest is presumed lost, as
    /// Linux marks it on an RTO); otherwise what is outstanding and not SACKed.
    fn pipe(&self) -> u64 {
        if let Some(r) = self.core.rack.as_deref() {
            return r.pipe(self.core.snd_una, self.core.snd_max, self.core.sb.bytes());
        }
        match &self.rec {
            Rec::Sack(r) if r.in_recovery() => r.set_pipe(&self.core),
            Rec::Prr(r) if r.in_recovery() => r.set_pipe(&self.core),
            _ if self.core.snd_nxt < self.core.snd_max => self.core.snd_nxt - self.core.snd_una,
            _ => (self.core.snd_max - self.core.snd_una).saturating_sub(self.core.sb.bytes()),
        }
    }

    /// `pipe()` once the cumulative ACK `a` is applied (called before it is).
    fn pipe_after(&mut self, a: u64) -> u64 {
        let una = self.core.snd_una;
        let nxt = self.core.snd_nxt;
        self.core.snd_una = a.max(una);
        self.core.snd_nxt = nxt.max(self.core.snd_una);
        let p = self.pipe();
        self.core.snd_una = una;
        self.core.snd_nxt = nxt;
        p
    }

    /// Send what the window allows. In SACK recovery transmission is driven by
    /// RFC 6675 step (C) instead.
    pub(super) fn try_send(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        if !self.hs.established() {
            return;
        }
        let before = out.len();
        let handled = self.rec.in_recovery() && self.rec.transmit(&mut self.core, now, out);
        if !handled {
            let limit = self.core.snd_una.saturating_add(self.core.window());
            while self.core.snd_nxt < self.core.app_end {
                let len = self.core.seg_len_at(self.core.snd_nxt);
                if self.core.snd_nxt + len as u64 > limit {
                    break;
                }
                if self.core.pace_at.is_some_and(|t| t > now) {
                    // Paced: the timer at `pace_at` sends the rest.
                    break;
                }
                let seq = self.core.snd_nxt;
                self.core.emit(now, seq, len, false, out);
                self.core.snd_nxt += len as u64;
            }
        }
        // Persist (RFC 1122 4.2.2.17, BSD tcp_output): nothing outstanding, data
        // waiting, nothing could be sent: probe the window when the timer fires.
        // "Nothing outstanding" is snd_nxt == snd_una: an unaccepted probe byte
        // may sit above snd_una (snd_max) without a retransmission timer, and a
        // window that reopens to less than a segment must still be probed.
        if out.len() == before
            && self.core.snd_nxt == self.core.snd_una
            && self.core.snd_nxt < self.core.app_end
            && self.persist_at.is_none()
            && self.core.rto_at.is_none()
        {
            self.persist_at = Some(now + self.persist_interval());
        }
    }

    fn persist_interval(&self) -> Dur {
        let mult = 1u64 << self.persist_backoff.min(16);
        Dur(self.core.rtt.rto().0.saturating_mul(mult)).min(self.core.cfg.rto_max)
    }

    fn persist_fire(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        self.persist_at = None;
        if self.core.rwnd > 0 && self.core.snd_nxt == self.core.snd_una {
            // The window is open again; just send.
            self.persist_backoff = 0;
            let before = out.len();
            self.try_send(now, out);
            if out.len() > before {
                return;
            }
            // The window is open but smaller than the next segment, and the
            // update that would widen it may have been lost: probe it, or the
            // connection could stall for good (RFC 1122 4.2.2.17; BSD's
            // persist timer forces output whatever the window).
            self.persist_at = None;
        }
        if self.core.snd_una < self.core.app_end {
            // Probe with one byte: the first unacknowledged one, or the next new one.
            // snd_nxt stays at snd_una, as BSD tcp_output pulls it back while the
            // window is zero: a probe byte the receiver drops goes out again as the
            // first byte of the next segment when the window opens (RFC 9293
            // 3.8.6.1). Advancing it would leave a one-byte hole in the stream.
            let seq = self.core.snd_una;
            self.core.emit(now, seq, 1, true, out);
            self.persist_backoff += 1;
            self.persist_at = Some(now + self.persist_interval());
        }
    }

    fn rto_fire(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        self.core.rto_at = None;
        if !self.hs.established() {
            // The SYN (or its SYN-ACK) was lost.
            self.stats.timeouts += 1;
            self.hs.on_rto(&mut self.core, now, out);
            return;
        }
        if self.core.snd_una == self.core.snd_max {
            return;
        }
        if self.rec.in_recovery() && self.rec.on_timer_in_recovery(&mut self.core, now, out) {
            // A recovery-owned (fine-grained) timer, not a timeout.
            return;
        }
        self.stats.timeouts += 1;
        let flight = self.flight();
        if self.core.rack.is_some() {
            self.rto_fire_keeping_sack(now, flight, out);
            return;
        }
        // RFC 5681 (5) via the controller: ssthresh and cwnd = loss window.
        self.core.cc.on_rto(&mut self.core.st, now, flight);
        // RFC 6298 (5.5): back off the timer.
        self.core.rtt.back_off();
        // Leave any recovery; remember the highest byte sent so duplicate ACKs
        // caused by the go-back-N resends do not start a fast retransmit
        // (RFC 6582 section 3.2 step 4; RFC 6675 section 5.1).
        self.rec.on_rto(self.core.snd_una);
        self.core.dupacks = 0;
        self.core.recover = Some(self.core.snd_max);
        // RFC 2018 section 8: after a timeout the SACK scoreboard is discarded.
        self.core.sb.clear();
        self.core.timed = None;
        // Go back N: resend from the first unacknowledged byte, as cwnd allows.
        self.core.snd_nxt = self.core.snd_una;
        // RFC 6298 (5.4)/(5.6): retransmit the earliest segment, restart the timer.
        let seq = self.core.snd_una;
        let len = self.core.seg_len_at(seq).max(1);
        self.core.emit(now, seq, len, false, out);
        self.core.snd_nxt = seq + len as u64;
        self.core.rto_at = Some(now + self.core.rtt.rto());
        self.try_send(now, out);
    }

    /// A timeout with RACK: as Linux (`tcp_enter_loss`) and ns-3 do, and
    /// RFC 6675 section 5.1 allows, the SACK scoreboard is kept: SACKed
    /// segments are not resent, the unSACKed ones are marked lost (RACK
    /// judges the recently sent later) and retransmitted, first the
    /// earliest (RFC 6298 (5.4)), then by RFC 6675 step (C) as the loss
    /// window opens (RTO recovery, until RecoveryPoint = HighData now is
    /// acknowledged). A timeout during a recovery keeps that recovery's
    /// ssthresh (Linux reduces it once per window of data).
    fn rto_fire_keeping_sack(&mut self, now: Time, flight: u64, out: &mut Vec<DataSeg>) {
        let in_recovery = self.rec.in_recovery();
        let ssthresh = self.core.st.ssthresh;
        // RFC 5681 (5) via the controller: ssthresh and cwnd = loss window.
        self.core.cc.on_rto(&mut self.core.st, now, flight);
        if in_recovery {
            self.core.st.ssthresh = ssthresh;
        }
        // RFC 6298 (5.5): back off the timer.
        self.core.rtt.back_off();
        self.rec.on_rto(self.core.snd_una);
        self.core.dupacks = 0;
        self.core.recover = Some(self.core.snd_max);
        self.core.timed = None;
        if let Some(r) = self.core.rack.as_deref_mut() {
            r.on_rto(now);
        }
        let first = self.core.rack.as_deref().and_then(Rack::first_lost);
        if !self.rec.on_rto_keep_sack(&mut self.core, now) {
            // The recovery cannot run from the scoreboard: go back N.
            self.core.sb.clear();
            self.core.snd_nxt = self.core.snd_una;
        }
        // RFC 6298 (5.4): retransmit the earliest unacknowledged segment.
        let (seq, len) = match first {
            Some((s, e)) if self.core.snd_nxt == self.core.snd_max => (s, (e - s) as u32),
            _ => (
                self.core.snd_una,
                self.core.seg_len_at(self.core.snd_una).max(1),
            ),
        };
        self.core.emit(now, seq, len, false, out);
        self.core.snd_nxt = self.core.snd_nxt.max(seq + len as u64);
        self.core.rto_at = Some(now + self.core.rtt.rto());
        self.try_send(now, out);
    }

    /// RFC 8985 section 7.2: (re)arm the loss probe timer after new data
    /// went out or new data was acknowledged (`trigger`), unless in
    /// recovery, with SACKed segments (RACK.segs_sacked > 0), nothing
    /// outstanding, or a probe still unanswered; a pending reordering
    /// timer keeps the slot (section 8: one loss timer at a time).
    fn arm_loss_probe(&mut self, now: Time, trigger: bool) {
        let allowed = self.hs.established()
            && self.core.snd_max > self.core.snd_una
            && self.core.sb.is_empty()
            && !self.rec.in_recovery();
        let one_segment = self.core.snd_max - self.core.snd_una <= self.core.st.mss;
        let (srtt, rto_at) = (self.core.rtt.srtt(), self.core.rto_at);
        let Some(r) = self.core.rack.as_deref_mut() else {
            return;
        };
        match r.timer {
            Some((_, LossTimer::Reorder)) => {}
            _ if !allowed || r.tlp_end_seq.is_some() => r.timer = None,
            Some((_, LossTimer::Probe)) if !trigger => {}
            _ if trigger => {
                let at = Rack::pto_deadline(now, srtt, one_segment, rto_at);
                r.timer = Some((at, LossTimer::Probe));
            }
            _ => {}
        }
    }

    /// RACK-TLP's timer expired: the reordering timer (RFC 8985 section
    /// 6.3) or the probe timeout (section 7.3).
    fn loss_timer_fire(&mut self, now: Time, kind: LossTimer, out: &mut Vec<DataSeg>) {
        match kind {
            LossTimer::Reorder => {
                let in_recovery = self.rec.in_recovery();
                let srtt = self.core.rtt.srtt();
                let lost = match self.core.rack.as_deref_mut() {
                    Some(r) => r.on_reorder_timer(now, in_recovery, srtt),
                    None => 0,
                };
                if lost > 0 && !in_recovery {
                    let sample = AckSample {
                        now,
                        acked_bytes: 0,
                        is_dupack: false,
                        sacked_bytes: 0,
                        rtt_sample: None,
                        srtt,
                        min_rtt: self.core.rtt.min_rtt(),
                        flight_bytes: self.flight(),
                    };
                    self.rec.on_rack_loss(&mut self.core, now, &sample, out);
                }
                self.try_send(now, out);
                self.arm_loss_probe(now, false);
            }
            LossTimer::Probe => self.send_loss_probe(now, out),
        }
    }

    /// RFC 8985 section 7.3, TLP_send_probe: one new segment if the
    /// receive window allows, else the highest-sequence segment sent again;
    /// then the retransmission timer is re-armed (not the probe timer).
    fn send_loss_probe(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        let allowed = self.hs.established()
            && self.core.snd_max > self.core.snd_una
            && self.core.sb.is_empty()
            && !self.rec.in_recovery();
        let Some(r) = self.core.rack.as_deref_mut() else {
            return;
        };
        r.timer = None;
        if !allowed || r.tlp_end_seq.is_some() {
            return;
        }
        let last = r.last_seg();
        let wnd = match self.core.cfg.max_unacked {
            Some(cap) => self.core.rwnd.min(cap),
            None => self.core.rwnd,
        };
        let mut is_retrans = true;
        if self.core.snd_nxt == self.core.snd_max && self.core.snd_nxt < self.core.app_end {
            let len = self.core.seg_len_at(self.core.snd_nxt);
            if self.core.snd_nxt + len as u64 <= self.core.snd_una.saturating_add(wnd) {
                let seq = self.core.snd_nxt;
                self.core.emit(now, seq, len, false, out);
                self.core.snd_nxt += len as u64;
                is_retrans = false;
            }
        }
        if is_retrans {
            let Some((seq, end)) = last else {
                return;
            };
            self.core.emit(now, seq, (end - seq) as u32, false, out);
        }
        if let Some(r) = self.core.rack.as_deref_mut() {
            r.tlp_end_seq = Some(self.core.snd_max);
            r.tlp_is_retrans = is_retrans;
            r.stats.probes += 1;
        }
        self.core.rto_at = Some(now + self.core.rtt.rto());
    }

    /// Whether duplicate ACKs may start a new recovery: only once the
    /// cumulative ACK has passed `recover` (RFC 6582 section 3.2 step 2).
    pub fn may_enter_recovery(&self) -> bool {
        self.core.may_enter_recovery()
    }

    // ---- the recovery seam ----------------------------------------------

    /// A new cumulative ACK. Returns whether the retransmission timer is to be
    /// restarted (RFC 6298 (5.3)); NewReno Impatient declines after the first
    /// partial ACK.
    fn on_new_ack(&mut self, now: Time, s: &AckSample, out: &mut Vec<DataSeg>) -> bool {
        if !self.rec.in_recovery() {
            self.core.cc.on_ack(&mut self.core.st, s);
            return true;
        }
        self.rec.on_new_ack(&mut self.core, now, s, out)
    }

    /// RFC 6675 SetPipe() of a SACK recovery (for tests and traces).
    pub fn sack_pipe(&self) -> Option<u64> {
        match &self.rec {
            Rec::Sack(r) => Some(r.set_pipe(&self.core)),
            _ => None,
        }
    }

    /// AeroTCP's recovery `pipe` in bytes (for tests and traces).
    pub fn aero_pipe(&self) -> Option<u64> {
        match &self.rec {
            Rec::Aero(r) => Some(r.pipe()),
            _ => None,
        }
    }

    /// RFC 6675 NextSeg() of a SACK recovery (for tests).
    pub fn sack_next_seg(&self) -> Option<(u64, u32, NextRule)> {
        match &self.rec {
            Rec::Sack(r) => r.next_seg(&self.core),
            _ => None,
        }
    }

    /// RFC 6675 IsLost() over this sender's scoreboard.
    pub fn sack_is_lost(&self, seq: u64) -> bool {
        SackRecovery::is_lost(&self.core, seq)
    }
}
