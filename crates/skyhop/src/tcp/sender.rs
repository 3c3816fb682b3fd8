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
use super::rack::Rack;
use super::recovery::{NextRule, Rec, RecoveryOps, SackRecovery};
use super::seg::{AckSeg, DataSeg};
use super::send_core::SendCore;
use super::tlp;
use crate::engine::time::{Dur, Time};

mod timers;
mod undo;

/// A sender with the controller and recovery its variant names.
pub fn new_sender(cfg: TcpConfig) -> TcpSender {
    let cc = Cc::build(cfg.variant.cc, &cfg);
    let rec = Rec::build(cfg.variant.recovery, &cfg);
    TcpSender::new(cfg, cc, rec)
}

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

/// Laid out in the order written (`repr(C)`, aligned to a cache line):
/// the handshake's and the timeout episode's rarely read fields first, then
/// what every ACK and transmission reads (the handshake's `established`,
/// the episode's flags, the recovery, the persist timer, the counters, the
/// `SendCore`'s sequence space and window and its configuration's
/// per-event fields) in one run of lines, then the configuration's set-up
/// parameters, the RTT estimator, the controller and the scoreboard. With
/// many connections interleaved (a paced sender sends one segment per timer
/// event) each event brings its connection's state into the cache line by
/// line: the fewer lines an event touches, the fewer misses.
/// `tcp/tests/layout.rs` pins the offsets.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct TcpSender {
    pub(super) hs: Handshake,
    /// A timeout's loss episode, for undoing it if it was spurious.
    pub(super) undo: undo::Undo,
    /// The loss recovery, owning its own state.
    pub(super) rec: Rec,
    /// The persist timer (RFC 1122 4.2.2.17): when to probe a closed window.
    pub(super) persist_at: Option<Time>,
    /// Window probes sent since the window last opened (the timer backs off).
    pub(super) persist_backoff: u32,
    pub stats: SenderStats,
    /// The state a recovery works on (sequence space, window, scoreboard,
    /// retransmission timer, RACK), with the primitives of every send.
    pub(super) core: SendCore,
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
            undo: undo::Undo::default(),
            stats: SenderStats::default(),
        }
    }

    /// A hint that an ACK will reach this sender soon (the engine knows a
    /// hop ahead): bring the state its ACK path reads into the cache. No
    /// effect on results.
    #[inline]
    pub fn prefetch_for_ack(&self) {
        crate::engine::prefetch_all(self);
        if let Some(rs) = self.core.rs.as_deref() {
            rs.prefetch();
        }
        if let Some(rack) = self.core.rack.as_deref() {
            rack.prefetch();
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

    /// A handshake that started: when the first SYN went out and when the
    /// SYN-ACK arrived (`None` until then); `None` without one.
    pub fn handshake_times(&self) -> Option<(Time, Option<Time>)> {
        self.hs.times()
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
        let c = &mut self.core;
        let idle = c.snd_una == c.snd_max && c.snd_nxt == c.snd_max;
        if let (true, Some(last)) = (idle, c.last_send) {
            if now.since(last) > c.rtt.rto() {
                let iw = c.cfg.initial_window as u64 * c.st.mss;
                c.st.cwnd = c.st.cwnd.min(iw);
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

    /// The number of connections open on this connection's path changed
    /// (an input from the world: AeroTCP's adaptive allocation divides the
    /// satellite link by it).
    pub fn set_connections_open(&mut self, n: u32) {
        self.core.cc.set_connections_open(n);
    }

    /// At most `segments` new segments per transmission opportunity
    /// outside a recovery (ns-2's `maxburst_`; 0: no limit).
    pub fn set_maxburst(&mut self, segments: u32) {
        self.core.maxburst = segments;
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
        let acked = a - self.core.snd_una;
        let (sacked_bytes, delivered_bytes) = self.core.update_scoreboard(a, &ack.sack);
        // RFC 8985 section 6.2: RACK's view of this ACK (steps 1-5).
        let mut rack_lost = 0;
        let mut lost_bytes = 0;
        let max_before = self.core.snd_max;
        let in_recovery = self.rec.in_recovery();
        let c = &mut self.core;
        if let Some(r) = c.rack.as_deref_mut() {
            let before = r.stats.marked_lost_bytes;
            rack_lost = r.on_ack(now, a, &c.sb, in_recovery, c.rtt.srtt(), c.rtt.min_rtt());
            lost_bytes = r.stats.marked_lost_bytes - before;
        }
        let rtt_sample = c.take_rtt_sample(now, a, ack.tsecr);
        // RFC 5681 (2): a duplicate ACK acknowledges nothing new while data is
        // outstanding. A pure window update or a reply to a zero-window probe
        // is not one (as in BSD, which counts none while persisting).
        let is_dupack =
            acked == 0 && c.snd_max > c.snd_una && !ack.window_update && ack.wnd > 0 && !persisting;
        let sample = AckSample {
            now,
            acked_bytes: acked,
            is_dupack,
            sacked_bytes,
            rtt_sample,
            srtt: c.rtt.srtt(),
            min_rtt: c.rtt.min_rtt(),
            flight_bytes: flight_before,
            delivered_bytes,
            cwnd_limited: c.cwnd_in_use(),
            // Linux's Open state: no recovery, nothing SACKed outstanding.
            open: !in_recovery && c.sb.is_empty(),
        };
        c.cc.observe_ack(&c.st, &sample);
        if let Some(r) = c.rack.as_deref_mut() {
            // RFC 8985 section 7.4: the ACK of a loss probe that repaired a
            // loss: the window is reduced as after a fast recovery (Linux's
            // CWR episode: the controller's reduction, no recovery phase).
            if tlp::on_ack(r, a, is_dupack, !ack.sack.is_empty()) {
                let basis = c.reduction_basis(flight_before);
                c.cc.on_loss(&mut c.st, now, basis);
                c.cc.on_exit_recovery(&mut c.st, now);
            }
        }
        if let Some(r) = self.core.rs.as_deref_mut() {
            // Delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation)
            // for a controller that asked for one (BBR).
            let mut rs = r.on_ack(now, a, ack.sack.as_slice(), self.core.rtt.min_rtt());
            (rs.prior_inflight, rs.inflight) = (pipe_before, self.pipe_after(a));
            rs.losses = lost_bytes;
            rs.is_ack_delayed = rs.newly_delivered > 0
                && rs.newly_delivered < self.core.st.mss
                && ack.sack.is_empty();
            self.core.cc.on_rate_sample(&mut self.core.st, &sample, &rs);
        }

        // A timeout's recovery: undo it if it was spurious, or F-RTO's
        // new data (RFC 5682, RFC 3522; Linux's tcp_process_loss).
        self.process_loss(ack, acked, is_dupack);

        if ack.wnd > 0 && self.persist_at.is_some() {
            // The window opened: leave persist mode.
            self.persist_at = None;
            self.persist_backoff = 0;
        }

        if acked > 0 {
            self.core.snd_una = a;
            self.core.raise_snd_nxt(a);
            self.rec.on_cum_ack(a);
            self.core.dupacks = 0;
            let restart_timer = self.on_new_ack(now, &sample, out);
            if self.core.snd_una == self.core.snd_max {
                // RFC 6298 (5.2): all outstanding data acknowledged: stop the timer.
                self.core.rto_at = None;
            } else if restart_timer {
                // RFC 6298 (5.3): restart the timer on an ACK of new data.
                self.core.restart_rto(now);
            }
        } else if is_dupack {
            self.core.dupacks += 1;
            self.rec.on_dupack(&mut self.core, now, &sample, out);
        }
        if rack_lost > 0 && !self.rec.in_recovery() {
            // RFC 8985 section 6.2: RACK found lost segments; start a
            // recovery (RFC 6675 section 5, with RACK's "lost" for IsLost()).
            self.rec.on_rack_loss(&mut self.core, now, &sample, out);
        }
        if is_dupack && self.core.cfg.limited_transmit {
            // After loss detection, as in Linux (tcp_fastretrans_alert, then
            // the retransmission queue, then new data): a segment RACK found
            // lost on this ACK is resent before any new one. Sent behind new
            // data, the retransmission's ACK would come after that data's
            // SACK, and RACK would judge the retransmission lost as well.
            self.limited_transmit(now, out);
        }
        self.try_send(now, out);
        if !self.rec.in_recovery() {
            // Any timeout's episode is over.
            self.undo.end();
        }
        if acked > 0 {
            self.undo.last_rto_una = None;
        }
        if self.core.rack.is_some() {
            self.arm_loss_probe(now, acked > 0 || self.core.snd_max > max_before);
        }
        let c = &mut self.core;
        if let Some(r) = c.rs.as_deref_mut() {
            if c.snd_nxt >= c.app_end && c.snd_max - c.snd_una < c.st.cwnd {
                // The application has nothing more to send: rate samples until
                // this data is delivered are application-limited.
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
        let c = &mut self.core;
        if c.dupacks >= c.cfg.dupthresh
            || self.rec.in_recovery()
            || c.snd_nxt < c.snd_max
            || c.snd_nxt >= c.app_end
        {
            return;
        }
        let len = c.seg_len_at(c.snd_nxt);
        let end = c.snd_nxt + len as u64;
        let cwnd_limit = c.st.cwnd + c.dupacks as u64 * c.st.mss;
        if end > c.snd_una + c.send_window().min(cwnd_limit) {
            return;
        }
        let seq = c.snd_nxt;
        c.emit(now, seq, len, false, out);
        c.snd_nxt = end;
    }

    // ---- internals -------------------------------------------------------

    /// Bytes in the network as a rate-sampling controller (BBR) counts
    /// them: in SACK recovery, RFC 6675 SetPipe(); after a timeout, while
    /// going back N, what was resent since (the rest is presumed lost, as
    /// Linux marks it on an RTO); otherwise what is outstanding and not SACKed.
    fn pipe(&self) -> u64 {
        let c = &self.core;
        if let Some(r) = c.rack.as_deref() {
            return r.pipe(c.snd_una, c.snd_max, c.sb.bytes());
        }
        match &self.rec {
            Rec::Sack(r) if r.in_recovery() => r.set_pipe(c),
            Rec::Prr(r) if r.in_recovery() => r.set_pipe(c),
            _ if c.snd_nxt < c.snd_max => c.snd_nxt - c.snd_una,
            _ => (c.snd_max - c.snd_una).saturating_sub(c.sb.bytes()),
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
    fn try_send(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        if !self.hs.established() {
            return;
        }
        let before = out.len();
        let in_recovery = self.rec.in_recovery();
        let frto_new = in_recovery && self.undo.send_new && self.frto_send_new(now, out);
        let handled = frto_new || (in_recovery && self.rec.transmit(&mut self.core, now, out));
        let c = &mut self.core;
        if !handled {
            let limit = c.snd_una.saturating_add(c.window());
            // ns-2's send_much(..., maxburst_): at most `maxburst` segments
            // at a time (0: no limit).
            let burst_end = match c.maxburst {
                0 => usize::MAX,
                b => before + b as usize,
            };
            while c.snd_nxt < c.app_end && out.len() < burst_end {
                let len = c.seg_len_at(c.snd_nxt);
                if c.snd_nxt + len as u64 > limit {
                    break;
                }
                if c.paced(now) {
                    // Paced: the timer at `pace_at` sends the rest.
                    break;
                }
                let seq = c.snd_nxt;
                c.emit(now, seq, len, false, out);
                c.snd_nxt += len as u64;
            }
        }
        if c.cfg.cwnd_validation {
            let in_flight = if in_recovery {
                self.pipe()
            } else {
                let c = &self.core;
                (c.snd_max - c.snd_una).saturating_sub(c.sb.bytes())
            };
            let sent = out.len() > before;
            let c = &mut self.core;
            if sent || in_flight + c.st.mss > c.st.cwnd {
                c.note_cwnd_use(in_flight);
            }
        }
        let c = &mut self.core;
        // Persist (RFC 1122 4.2.2.17, BSD tcp_output): nothing outstanding, data
        // waiting, nothing could be sent: probe the window when the timer fires.
        // "Nothing outstanding" is snd_nxt == snd_una: an unaccepted probe byte
        // may sit above snd_una (snd_max) without a retransmission timer, and a
        // window that reopens to less than a segment must still be probed.
        if out.len() == before
            && c.snd_nxt == c.snd_una
            && c.snd_nxt < c.app_end
            && self.persist_at.is_none()
            && c.rto_at.is_none()
        {
            self.persist_at = Some(now + self.persist_interval());
        }
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
