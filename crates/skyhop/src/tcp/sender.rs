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
//!
//! Handshake (`TcpConfig::handshake`, off by default): the connection opens
//! with a SYN (`connect`, or the first `add_app_data`) and sends no data
//! until the SYN-ACK arrives. The SYN is retransmitted on the RTO with
//! RFC 6298 back-off; the exchange gives the first RTT sample unless the SYN
//! was retransmitted (Karn), and then RFC 6298 (5.7) sets the RTO to 3 s (if
//! it was lower) and RFC 5681 (3.1) the initial window to one segment. The
//! ACK of the SYN-ACK rides on the first data segment (no packet of its own).

use super::cc::{AckSample, Cc, CcState, CongestionOps, SendSample};
use super::config::TcpConfig;
use super::rack::{LossTimer, Rack};
use super::rangeset::RangeSet;
use super::rate_sample::RateSampler;
use super::recovery::{Rec, RecoveryOps};
use super::rtt::RttEstimator;
use super::seg::{AckSeg, DataSeg};
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
    pub(super) cfg: TcpConfig,
    pub(super) cc: Cc,
    pub(super) st: CcState,
    /// Oldest unacknowledged byte (HighACK in RFC 6675).
    pub(super) snd_una: u64,
    /// Next byte to send (below `snd_max` after a go-back-N reset).
    pub(super) snd_nxt: u64,
    /// One past the highest byte ever sent (HighData in RFC 6675).
    pub(super) snd_max: u64,
    /// One past the last byte the application has handed over.
    pub(super) app_end: u64,
    /// The peer's advertised window.
    pub(super) rwnd: u64,
    pub(super) dupacks: u32,
    /// The loss recovery, owning its own state.
    pub(super) rec: Rec,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint (one past the highest byte
    /// sent when recovery or the last timeout began); `None` before any.
    pub(super) recover: Option<u64>,
    pub(super) rtt: RttEstimator,
    pub(super) rto_at: Option<Time>,
    /// The segment being timed for an RTT sample: (end byte, send time).
    pub(super) timed: Option<(u64, Time)>,
    pub(super) persist_at: Option<Time>,
    pub(super) persist_backoff: u32,
    /// SACK scoreboard: SACKed ranges above snd_una.
    pub(super) sb: RangeSet,
    /// Pacing: the earliest time the next segment may leave (only with a
    /// controller that sets a pacing rate).
    pub(super) pace_at: Option<Time>,
    /// Delivery-rate sampler, kept only for a controller that asks for rate
    /// samples (`CongestionOps::wants_rate_samples`); `None` costs others nothing.
    pub(super) rs: Option<Box<RateSampler>>,
    /// RACK-TLP loss detection (RFC 8985), kept only with `TcpConfig::rack`
    /// and an RFC 6675 recovery; `None` costs others nothing.
    pub(super) rack: Option<Box<Rack>>,
    /// Handshake state: data may flow (always true without a handshake).
    pub(super) established: bool,
    /// Handshake: when the first SYN went out (`None`: not yet sent).
    pub(super) syn_sent_at: Option<Time>,
    /// Handshake: the SYN was retransmitted (no RTT sample; RFC 6298 (5.7)).
    pub(super) syn_retx: bool,
    /// When data was last sent (for the restart after idle).
    pub(super) last_send: Option<Time>,
    pub stats: SenderStats,
}

impl TcpSender {
    /// A sender with the given controller and recovery (see `tcp::new_sender`
    /// for the ones a variant names).
    pub fn new(cfg: TcpConfig, cc: Cc, rec: Rec) -> TcpSender {
        let mss = cfg.mss as u64;
        let st = CcState {
            // RFC 5681 (3.1) IW; RFC 3390 / 6928 values by configuration.
            cwnd: cfg.initial_window as u64 * mss,
            ssthresh: cfg.initial_ssthresh,
            mss,
        };
        let rtt = RttEstimator::new(
            cfg.rto_initial,
            cfg.rto_min,
            cfg.rto_max,
            cfg.clock_granularity,
        )
        .with_var_floor(if cfg.rttvar_floor {
            cfg.rto_min
        } else {
            Dur::ZERO
        });
        let rs = cc
            .wants_rate_samples()
            .then(|| Box::new(RateSampler::new()));
        let rack = (cfg.rack && cfg.variant.sack && matches!(rec, Rec::Sack(_) | Rec::Prr(_)))
            .then(|| Box::new(Rack::new(cfg.dupthresh)));
        TcpSender {
            rs,
            rack,
            rwnd: cfg.rcv_buffer,
            established: !cfg.handshake,
            syn_sent_at: None,
            syn_retx: false,
            last_send: None,
            cfg,
            cc,
            st,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 0,
            dupacks: 0,
            rec,
            recover: None,
            rtt,
            rto_at: None,
            timed: None,
            persist_at: None,
            persist_backoff: 0,
            sb: RangeSet::new(),
            pace_at: None,
            stats: SenderStats::default(),
        }
    }

    // ---- observers -------------------------------------------------------
    pub fn cwnd(&self) -> u64 {
        self.st.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.st.ssthresh
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    pub fn rwnd(&self) -> u64 {
        self.rwnd
    }
    /// Bytes sent and not yet cumulatively acknowledged.
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    pub fn in_recovery(&self) -> bool {
        self.rec.in_recovery()
    }
    /// Duplicate ACKs counted since the last new cumulative ACK.
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint: one past the highest byte
    /// sent when the last recovery or timeout began (`None` before any).
    pub fn recover(&self) -> Option<u64> {
        self.recover
    }
    /// The congestion window state (cwnd, ssthresh, mss in bytes).
    pub fn cc_state(&self) -> CcState {
        self.st
    }
    pub fn srtt(&self) -> Option<Dur> {
        self.rtt.srtt()
    }
    pub fn rto(&self) -> Dur {
        self.rtt.rto()
    }
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_at
    }
    pub fn persist_deadline(&self) -> Option<Time> {
        self.persist_at
    }
    pub fn rate_estimate_bps(&self) -> Option<f64> {
        self.cc.rate_estimate_bps()
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    /// Everything the application handed over has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd_una >= self.app_end
    }
    pub fn app_end(&self) -> u64 {
        self.app_end
    }
    /// Data may flow: the handshake is done, or there is none.
    pub fn established(&self) -> bool {
        self.established
    }

    /// The next instant this sender needs `on_timer`.
    #[inline]
    pub fn poll_at(&self) -> Option<Time> {
        let t = match (self.rto_at, self.persist_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let t = match (t, self.pace_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match self.rack.as_deref().and_then(Rack::timer_at) {
            Some(b) => Some(t.map_or(b, |a| a.min(b))),
            None => t,
        }
    }

    /// RACK-TLP's state (RFC 8985), when the sender runs it.
    pub fn rack(&self) -> Option<&Rack> {
        self.rack.as_deref()
    }

    // ---- inputs ----------------------------------------------------------

    /// The application hands over `bytes` more bytes (`u64::MAX` saturates:
    /// an unlimited source).
    pub fn add_app_data(&mut self, now: Time, bytes: u64, out: &mut Vec<DataSeg>) {
        self.app_end = self.app_end.saturating_add(bytes);
        if !self.established {
            // Data waits for the handshake; open the connection if not yet.
            self.connect(now, out);
            return;
        }
        if self.cfg.idle_restart {
            self.restart_after_idle(now);
        }
        let max_before = self.snd_max;
        self.try_send(now, out);
        if self.rack.is_some() {
            self.arm_loss_probe(now, self.snd_max > max_before);
        }
    }

    /// RFC 5681 (4.1): "TCP SHOULD set cwnd to no more than RW before
    /// beginning transmission if the TCP has not sent data in an interval
    /// exceeding the retransmission timeout", RW = min(IW, cwnd). Only with
    /// nothing outstanding (an idle connection; a stalled one has its
    /// retransmission timer). ssthresh is left as it is.
    fn restart_after_idle(&mut self, now: Time) {
        let idle = self.snd_una == self.snd_max && self.snd_nxt == self.snd_max;
        if let (true, Some(last)) = (idle, self.last_send) {
            if now.since(last) > self.rtt.rto() {
                let iw = self.cfg.initial_window as u64 * self.st.mss;
                self.st.cwnd = self.st.cwnd.min(iw);
            }
        }
    }

    /// Open the connection: with the handshake on, send the SYN (once; a
    /// repeated call does nothing). Without the handshake, nothing to do.
    pub fn connect(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        if self.established || self.syn_sent_at.is_some() {
            return;
        }
        self.syn_sent_at = Some(now);
        self.send_syn(now, false, out);
    }

    fn send_syn(&mut self, now: Time, retx: bool, out: &mut Vec<DataSeg>) {
        out.push(DataSeg::syn(retx));
        self.stats.segments_sent += 1;
        if retx {
            self.stats.retransmissions += 1;
        }
        // RFC 6298: the SYN is timed like data (initial RTO, backed off).
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// The SYN-ACK arrived (any ACK in SYN-SENT acknowledges the SYN: the
    /// receiver sends nothing else before data).
    fn on_syn_ack(&mut self, now: Time, ack: &AckSeg, out: &mut Vec<DataSeg>) {
        self.established = true;
        self.rto_at = None;
        self.rwnd = ack.wnd;
        if self.syn_retx {
            // Karn: no sample. RFC 6298 (5.7): the SYN (or SYN-ACK) was lost,
            // so the RTO once data flows is 3 s if it was lower, unbacked.
            let init = self.cfg.rto_initial.max(Dur::from_secs(3));
            self.rtt = RttEstimator::new(
                init,
                self.cfg.rto_min,
                self.cfg.rto_max,
                self.cfg.clock_granularity,
            );
            // RFC 5681 (3.1): after a lost SYN or SYN-ACK the initial window is one segment.
            self.st.cwnd = self.st.cwnd.min(self.st.mss);
        } else if let Some(t0) = self.syn_sent_at {
            self.rtt.sample(now - t0);
        }
        self.try_send(now, out);
    }

    /// Set the cap on unacknowledged bytes (a proxy's outgoing-leg limit).
    pub fn set_max_unacked(&mut self, cap: Option<u64>) {
        self.cfg.max_unacked = cap;
    }

    /// An acknowledgement arrived. Returns the bytes newly acknowledged.
    pub fn on_ack(&mut self, now: Time, ack: &AckSeg, out: &mut Vec<DataSeg>) -> u64 {
        self.stats.acks_received += 1;
        if !self.established {
            if self.syn_sent_at.is_some() {
                self.on_syn_ack(now, ack, out);
            }
            return 0;
        }
        let a = ack.ack;
        if a > self.snd_max || a < self.snd_una {
            // Acknowledges data never sent, or an old ACK: ignore (RFC 793).
            return 0;
        }
        let persisting = self.persist_at.is_some();
        self.rwnd = ack.wnd;
        let flight_before = self.flight();
        let pipe_before = if self.rs.is_some() { self.pipe() } else { 0 };

        // SACK blocks update the scoreboard (RFC 6675 Update()).
        let mut sacked_bytes = 0;
        if self.cfg.variant.sack {
            for &(s, e) in ack.sack.as_slice() {
                let e = e.min(self.snd_max);
                let s = s.max(a);
                if s < e {
                    if let Some(r) = self.rack.as_deref_mut() {
                        r.note_sack_block(&self.sb, s, e);
                    }
                    sacked_bytes += self.sb.insert(s, e);
                }
            }
        }
        let acked = a - self.snd_una;
        if acked > 0 {
            self.sb.remove_below(a);
        }
        // RFC 8985 section 6.2: RACK's view of this ACK (steps 1-5).
        let mut rack_lost = 0;
        let max_before = self.snd_max;
        if let Some(r) = self.rack.as_deref_mut() {
            rack_lost = r.on_ack(
                now,
                a,
                &self.sb,
                self.rec.in_recovery(),
                self.rtt.srtt(),
                self.rtt.min_rtt(),
            );
        }

        // RTT sample from the timed segment (Karn: cleared on any retransmission).
        let mut rtt_sample = None;
        if let Some((end, t0)) = self.timed {
            if a >= end {
                let r = now - t0;
                self.rtt.sample(r);
                rtt_sample = Some(r);
                self.timed = None;
            }
        }
        // RFC 5681 (2): a duplicate ACK acknowledges nothing new while data is
        // outstanding. A pure window update or a reply to a zero-window probe
        // is not one (as in BSD, which counts none while persisting).
        let is_dupack = acked == 0
            && self.snd_max > self.snd_una
            && !ack.window_update
            && ack.wnd > 0
            && !persisting;
        let sample = AckSample {
            now,
            acked_bytes: acked,
            is_dupack,
            sacked_bytes,
            rtt_sample,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            flight_bytes: flight_before,
        };
        self.cc.observe_ack(&self.st, &sample);
        if let Some(r) = self.rack.as_deref_mut() {
            // RFC 8985 section 7.4: the ACK of a loss probe that repaired a
            // loss: the window is reduced as after a fast recovery (Linux's
            // CWR episode: the controller's reduction, no recovery phase).
            if r.tlp_on_ack(a, is_dupack, !ack.sack.is_empty()) {
                self.cc.on_loss(&mut self.st, now, flight_before);
                self.cc.on_exit_recovery(&mut self.st, now);
            }
        }
        if let Some(r) = self.rs.as_deref_mut() {
            // Delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation)
            // for a controller that asked for one (BBR).
            let mut rs = r.on_ack(now, a, ack.sack.as_slice(), self.rtt.min_rtt());
            (rs.prior_inflight, rs.inflight) = (pipe_before, self.pipe_after(a));
            self.cc.on_rate_sample(&mut self.st, &sample, &rs);
        }

        if ack.wnd > 0 && self.persist_at.is_some() {
            // The window opened: leave persist mode.
            self.persist_at = None;
            self.persist_backoff = 0;
        }

        if acked > 0 {
            self.snd_una = a;
            if self.snd_nxt < a {
                self.snd_nxt = a;
            }
            self.rec.on_cum_ack(a);
            self.dupacks = 0;
            let restart_timer = self.on_new_ack(now, &sample, out);
            if self.snd_una == self.snd_max {
                // RFC 6298 (5.2): all outstanding data acknowledged: stop the timer.
                self.rto_at = None;
            } else if restart_timer {
                // RFC 6298 (5.3): restart the timer on an ACK of new data.
                self.rto_at = Some(now + self.rtt.rto());
            }
        } else if is_dupack {
            self.dupacks += 1;
            self.on_dupack(now, &sample, out);
            if self.cfg.limited_transmit {
                self.limited_transmit(now, out);
            }
        }
        if rack_lost > 0 && !self.rec.in_recovery() {
            // RFC 8985 section 6.2: RACK found lost segments; start a
            // recovery (RFC 6675 section 5, with RACK's "lost" for IsLost()).
            self.lend_recovery(|rec, s| rec.on_rack_loss(s, now, &sample, out));
        }
        self.try_send(now, out);
        if self.rack.is_some() {
            self.arm_loss_probe(now, acked > 0 || self.snd_max > max_before);
        }
        if self.rs.is_some() && self.snd_nxt >= self.app_end && self.flight() < self.st.cwnd {
            // The application has nothing more to send: rate samples until
            // this data is delivered are application-limited.
            if let Some(r) = self.rs.as_deref_mut() {
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
        if self.dupacks >= self.cfg.dupthresh
            || self.rec.get().in_recovery()
            || self.snd_nxt < self.snd_max
            || self.snd_nxt >= self.app_end
        {
            return;
        }
        let len = self.seg_len_at(self.snd_nxt);
        let end = self.snd_nxt + len as u64;
        let rwnd_limit = match self.cfg.max_unacked {
            Some(cap) => self.rwnd.min(cap),
            None => self.rwnd,
        };
        let cwnd_limit = self.st.cwnd + self.dupacks as u64 * self.st.mss;
        if end > self.snd_una + rwnd_limit.min(cwnd_limit) {
            return;
        }
        let seq = self.snd_nxt;
        self.emit(now, seq, len, false, out);
        self.snd_nxt = end;
    }

    /// A timer expired (or the engine calls at `poll_at()`).
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        if let Some(t) = self.pace_at {
            if now >= t {
                self.pace_at = None;
                let max_before = self.snd_max;
                self.try_send(now, out);
                if self.rack.is_some() && self.snd_max > max_before {
                    self.arm_loss_probe(now, true);
                }
            }
        }
        if let Some(t) = self.persist_at {
            if now >= t {
                self.persist_fire(now, out);
            }
        }
        if let Some((t, kind)) = self.rack.as_deref().and_then(Rack::timer) {
            if now >= t {
                self.loss_timer_fire(now, kind, out);
            }
        }
        if let Some(t) = self.rto_at {
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
        if let Some(r) = self.rack.as_deref() {
            return r.pipe(self.snd_una, self.snd_max, self.sb.bytes());
        }
        match &self.rec {
            Rec::Sack(r) if r.in_recovery() => r.set_pipe(self),
            Rec::Prr(r) if r.in_recovery() => r.set_pipe(self),
            _ if self.snd_nxt < self.snd_max => self.snd_nxt - self.snd_una,
            _ => (self.snd_max - self.snd_una).saturating_sub(self.sb.bytes()),
        }
    }

    /// `pipe()` once the cumulative ACK `a` is applied (called before it is).
    fn pipe_after(&mut self, a: u64) -> u64 {
        let una = self.snd_una;
        let nxt = self.snd_nxt;
        self.snd_una = a.max(una);
        self.snd_nxt = nxt.max(self.snd_una);
        let p = self.pipe();
        self.snd_una = una;
        self.snd_nxt = nxt;
        p
    }

    /// Usable window: min(cwnd, rwnd, cap on unacknowledged bytes).
    #[inline]
    pub(super) fn window(&self) -> u64 {
        let w = self.st.cwnd.min(self.rwnd);
        match self.cfg.max_unacked {
            Some(cap) => w.min(cap),
            None => w,
        }
    }

    /// Put one segment on the wire and do the bookkeeping every send shares.
    pub(super) fn emit(
        &mut self,
        now: Time,
        seq: u64,
        len: u32,
        probe: bool,
        out: &mut Vec<DataSeg>,
    ) {
        let retx = seq < self.snd_max;
        if let Some(r) = self.rs.as_deref_mut() {
            r.on_send(now, seq, len, retx, self.snd_max - self.snd_una);
        }
        if let Some(r) = self.rack.as_deref_mut() {
            // RFC 8985 section 6.1: Segment.xmit_ts = Now.
            r.on_send(now, seq, len);
        }
        if let Some(rate) = self.cc.pacing_rate_bps(&self.st) {
            // The next departure is one wire-size transmission time later.
            let bits = (len as u64 + self.cfg.header_bytes as u64) * 8;
            let gap = Dur::from_secs_f64(bits as f64 / rate.max(1.0));
            let from = self.pace_at.map_or(now, |t| t.max(now));
            self.pace_at = Some(from + gap);
        }
        out.push(DataSeg {
            seq,
            len,
            retx,
            probe,
        });
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        if probe {
            self.stats.window_probes += 1;
        } else if retx {
            self.stats.retransmissions += 1;
        }
        if retx {
            // Karn's rule: no RTT sample from anything retransmitted.
            self.timed = None;
        } else if self.timed.is_none() && !probe {
            self.timed = Some((seq + len as u64, now));
        }
        let end = seq + len as u64;
        if end > self.snd_max {
            self.snd_max = end;
        }
        self.last_send = Some(now);
        let sample = SendSample {
            now,
            seq,
            len,
            retx,
            flight_bytes: self.snd_max - self.snd_una,
        };
        self.cc.on_send(&self.st, &sample);
        // RFC 6298 (5.1): start the timer when sending data if it is not running.
        if self.rto_at.is_none() && !probe {
            self.rto_at = Some(now + self.rtt.rto());
        }
    }

    /// Length of the segment starting at `seq` (full MSS unless the app data ends first).
    #[inline]
    pub(super) fn seg_len_at(&self, seq: u64) -> u32 {
        (self.app_end - seq).min(self.cfg.mss as u64) as u32
    }

    /// Send what the window allows. In SACK recovery transmission is driven by
    /// RFC 6675 step (C) instead.
    pub(super) fn try_send(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        if !self.established {
            return;
        }
        let before = out.len();
        let handled =
            self.rec.in_recovery() && self.lend_recovery(|rec, s| rec.transmit(s, now, out));
        if !handled {
            let limit = self.snd_una.saturating_add(self.window());
            while self.snd_nxt < self.app_end {
                let len = self.seg_len_at(self.snd_nxt);
                if self.snd_nxt + len as u64 > limit {
                    break;
                }
                if self.pace_at.is_some_and(|t| t > now) {
                    // Paced: the timer at `pace_at` sends the rest.
                    break;
                }
                let seq = self.snd_nxt;
                self.emit(now, seq, len, false, out);
                self.snd_nxt += len as u64;
            }
        }
        // Persist (RFC 1122 4.2.2.17, BSD tcp_output): nothing outstanding, data
        // waiting, nothing could be sent: probe the window when the timer fires.
        // "Nothing outstanding" is snd_nxt == snd_una: an unaccepted probe byte
        // may sit above snd_una (snd_max) without a retransmission timer, and a
        // window that reopens to less than a segment must still be probed.
        if out.len() == before
            && self.snd_nxt == self.snd_una
            && self.snd_nxt < self.app_end
            && self.persist_at.is_none()
            && self.rto_at.is_none()
        {
            self.persist_at = Some(now + self.persist_interval());
        }
    }

    fn persist_interval(&self) -> Dur {
        let mult = 1u64 << self.persist_backoff.min(16);
        Dur(self.rtt.rto().0.saturating_mul(mult)).min(self.cfg.rto_max)
    }

    fn persist_fire(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        self.persist_at = None;
        if self.rwnd > 0 && self.snd_nxt == self.snd_una {
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
        if self.snd_una < self.app_end {
            // Probe with one byte: the first unacknowledged one, or the next new one.
            // snd_nxt stays at snd_una, as BSD tcp_output pulls it back while the
            // window is zero: a probe byte the receiver drops goes out again as the
            // first byte of the next segment when the window opens (RFC 9293
            // 3.8.6.1). Advancing it would leave a one-byte hole in the stream.
            let seq = self.snd_una;
            self.emit(now, seq, 1, true, out);
            self.persist_backoff += 1;
            self.persist_at = Some(now + self.persist_interval());
        }
    }

    fn rto_fire(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        self.rto_at = None;
        if !self.established {
            // The SYN (or its SYN-ACK) was lost: back off and send it again
            // (RFC 6298 (5.5)-(5.6)).
            self.stats.timeouts += 1;
            self.rtt.back_off();
            self.syn_retx = true;
            self.send_syn(now, true, out);
            return;
        }
        if self.snd_una == self.snd_max {
            return;
        }
        if self.rec.in_recovery()
            && self.lend_recovery(|rec, s| rec.on_timer_in_recovery(s, now, out))
        {
            // A recovery-owned (fine-grained) timer, not a timeout.
            return;
        }
        self.stats.timeouts += 1;
        let flight = self.flight();
        if self.rack.is_some() {
            self.rto_fire_keeping_sack(now, flight, out);
            return;
        }
        // RFC 5681 (5) via the controller: ssthresh and cwnd = loss window.
        self.cc.on_rto(&mut self.st, now, flight);
        // RFC 6298 (5.5): back off the timer.
        self.rtt.back_off();
        // Leave any recovery; remember the highest byte sent so duplicate ACKs
        // caused by the go-back-N resends do not start a fast retransmit
        // (RFC 6582 section 3.2 step 4; RFC 6675 section 5.1).
        self.rec.get_mut().on_rto(self.snd_una);
        self.dupacks = 0;
        self.recover = Some(self.snd_max);
        // RFC 2018 section 8: after a timeout the SACK scoreboard is discarded.
        self.sb.clear();
        self.timed = None;
        // Go back N: resend from the first unacknowledged byte, as cwnd allows.
        self.snd_nxt = self.snd_una;
        // RFC 6298 (5.4)/(5.6): retransmit the earliest segment, restart the timer.
        let seq = self.snd_una;
        let len = self.seg_len_at(seq).max(1);
        self.emit(now, seq, len, false, out);
        self.snd_nxt = seq + len as u64;
        self.rto_at = Some(now + self.rtt.rto());
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
        let ssthresh = self.st.ssthresh;
        // RFC 5681 (5) via the controller: ssthresh and cwnd = loss window.
        self.cc.on_rto(&mut self.st, now, flight);
        if in_recovery {
            self.st.ssthresh = ssthresh;
        }
        // RFC 6298 (5.5): back off the timer.
        self.rtt.back_off();
        self.rec.get_mut().on_rto(self.snd_una);
        self.dupacks = 0;
        self.recover = Some(self.snd_max);
        self.timed = None;
        if let Some(r) = self.rack.as_deref_mut() {
            r.on_rto(now);
        }
        let first = self.rack.as_deref().and_then(Rack::first_lost);
        if !self.lend_recovery(|rec, s| rec.on_rto_keep_sack(s, now)) {
            // The recovery cannot run from the scoreboard: go back N.
            self.sb.clear();
            self.snd_nxt = self.snd_una;
        }
        // RFC 6298 (5.4): retransmit the earliest unacknowledged segment.
        let (seq, len) = match first {
            Some((s, e)) if self.snd_nxt == self.snd_max => (s, (e - s) as u32),
            _ => (self.snd_una, self.seg_len_at(self.snd_una).max(1)),
        };
        self.emit(now, seq, len, false, out);
        self.snd_nxt = self.snd_nxt.max(seq + len as u64);
        self.rto_at = Some(now + self.rtt.rto());
        self.try_send(now, out);
    }

    /// RFC 8985 section 7.2: (re)arm the loss probe timer after new data
    /// went out or new data was acknowledged (`trigger`), unless in
    /// recovery, with SACKed segments (RACK.segs_sacked > 0), nothing
    /// outstanding, or a probe still unanswered; a pending reordering
    /// timer keeps the slot (section 8: one loss timer at a time).
    fn arm_loss_probe(&mut self, now: Time, trigger: bool) {
        let allowed = self.established
            && self.snd_max > self.snd_una
            && self.sb.is_empty()
            && !self.rec.in_recovery();
        let one_segment = self.snd_max - self.snd_una <= self.st.mss;
        let (srtt, rto_at) = (self.rtt.srtt(), self.rto_at);
        let Some(r) = self.rack.as_deref_mut() else {
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
                let srtt = self.rtt.srtt();
                let lost = match self.rack.as_deref_mut() {
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
                        min_rtt: self.rtt.min_rtt(),
                        flight_bytes: self.flight(),
                    };
                    self.lend_recovery(|rec, s| rec.on_rack_loss(s, now, &sample, out));
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
        let allowed = self.established
            && self.snd_max > self.snd_una
            && self.sb.is_empty()
            && !self.rec.in_recovery();
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        r.timer = None;
        if !allowed || r.tlp_end_seq.is_some() {
            return;
        }
        let last = r.last_seg();
        let wnd = match self.cfg.max_unacked {
            Some(cap) => self.rwnd.min(cap),
            None => self.rwnd,
        };
        let mut is_retrans = true;
        if self.snd_nxt == self.snd_max && self.snd_nxt < self.app_end {
            let len = self.seg_len_at(self.snd_nxt);
            if self.snd_nxt + len as u64 <= self.snd_una.saturating_add(wnd) {
                let seq = self.snd_nxt;
                self.emit(now, seq, len, false, out);
                self.snd_nxt += len as u64;
                is_retrans = false;
            }
        }
        if is_retrans {
            let Some((seq, end)) = last else {
                return;
            };
            self.emit(now, seq, (end - seq) as u32, false, out);
        }
        if let Some(r) = self.rack.as_deref_mut() {
            r.tlp_end_seq = Some(self.snd_max);
            r.tlp_is_retrans = is_retrans;
            r.stats.probes += 1;
        }
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// Whether duplicate ACKs may start a new recovery: only once the
    /// cumulative ACK has passed `recover` (RFC 6582 section 3.2 step 2).
    pub fn may_enter_recovery(&self) -> bool {
        match self.recover {
            None => true,
            Some(r) => self.snd_una > r,
        }
    }

    // ---- the recovery seam ----------------------------------------------

    /// Lend the sender to its recovery for one call (the recovery owns its
    /// state; the sender owns everything else).
    #[inline]
    pub(super) fn lend_recovery<R>(
        &mut self,
        f: impl FnOnce(&mut dyn RecoveryOps, &mut TcpSender) -> R,
    ) -> R {
        let mut rec = std::mem::replace(&mut self.rec, Rec::Vacant);
        let r = f(rec.get_mut(), self);
        self.rec = rec;
        r
    }

    /// A new cumulative ACK. Returns whether the retransmission timer is to be
    /// restarted (RFC 6298 (5.3)); NewReno Impatient declines after the first
    /// partial ACK.
    fn on_new_ack(&mut self, now: Time, s: &AckSample, out: &mut Vec<DataSeg>) -> bool {
        if !self.rec.in_recovery() {
            self.cc.on_ack(&mut self.st, s);
            return true;
        }
        self.lend_recovery(|rec, snd| rec.on_new_ack(snd, now, s, out))
    }

    /// A duplicate ACK (RFC 5681 section 2 definition).
    fn on_dupack(&mut self, now: Time, s: &AckSample, out: &mut Vec<DataSeg>) {
        self.lend_recovery(|rec, snd| rec.on_dupack(snd, now, s, out));
    }

    /// Loss detected: count the recovery, let the controller set ssthresh and
    /// the base cwnd, remember the recovery point, and stop timing (Karn, as
    /// BSD and ns-2: a retransmission ends the current RTT measurement).
    pub fn enter_loss(&mut self, now: Time, s: &AckSample) {
        self.stats.fast_recoveries += 1;
        self.cc.on_loss(&mut self.st, now, s.flight_bytes);
        self.recover = Some(self.snd_max);
        self.timed = None;
    }

    /// The recovery ended: the controller may adjust the window it left.
    pub fn exit_recovery(&mut self, now: Time) {
        self.cc.on_exit_recovery(&mut self.st, now);
    }

    /// Retransmit the first unacknowledged segment and restart the timer, as
    /// BSD and ns-2 do on a fast retransmit.
    pub fn retransmit_first(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        let seq = self.snd_una;
        let len = self.seg_len_at(seq).max(1);
        self.emit(now, seq, len, false, out);
        if self.snd_nxt < seq + len as u64 {
            self.snd_nxt = seq + len as u64;
        }
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// Send `len` bytes from `seq` (a retransmission if below `snd_max`),
    /// for recoveries from user code; keeps `snd_nxt` at or above its end.
    pub fn emit_segment(&mut self, now: Time, seq: u64, len: u32, out: &mut Vec<DataSeg>) {
        self.emit(now, seq, len, false, out);
        if self.snd_nxt < seq + len as u64 {
            self.snd_nxt = seq + len as u64;
        }
    }

    /// RFC 6675 SetPipe() of a SACK recovery (for tests and traces).
    pub fn sack_pipe(&self) -> Option<u64> {
        match &self.rec {
            Rec::Sack(r) => Some(r.set_pipe(self)),
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
    pub fn sack_next_seg(&self) -> Option<(u64, u32, super::recovery::NextRule)> {
        match &self.rec {
            Rec::Sack(r) => r.next_seg(self),
            _ => None,
        }
    }

    /// RFC 6675 IsLost() over this sender's scoreboard.
    pub fn sack_is_lost(&self, seq: u64) -> bool {
        super::recovery::SackRecovery::is_lost(self, seq)
    }
}
