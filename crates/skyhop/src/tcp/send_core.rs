//! What a loss recovery works on: the sending side's sequence space, window,
//! SACK scoreboard, retransmission timer and RACK state, with the
//! primitives every transmission goes through. The sender (`sender.rs`)
//! owns one of these next to its recovery and lends it to the recovery for
//! each call (`RecoveryOps` in `tcp::recovery`); the sender alone runs the
//! timers, the persist state, the handshake and the order of operations.
//!
//! Sequence numbers are 64-bit byte offsets from 0 (no wrap-around); the
//! first data byte is 0.
//!
//! Every recovery, built in or from user code, reads and changes it through
//! its public methods only; the fields are for the sender.

use super::cc::{AckSample, Cc, CcState, CongestionOps, SendSample};
use super::config::TcpConfig;
use super::rack::Rack;
use super::rangeset::RangeSet;
use super::rate_sample::RateSampler;
use super::rtt::{Ns2Timer, RttEstimator};
use super::seg::{DataSeg, SackBlocks};
use crate::engine::time::{Dur, Time};

/// The fields are laid out in the order written (`repr(C)`), the ones
/// every ACK and every transmission reads first: with many connections
/// interleaved (a paced sender sends one segment per timer event) each
/// event brings its connection's state into the cache line by line, so
/// the per-event fields share as few lines as possible. The sequence
/// space, window, timers and the pointers to RACK and the rate sampler
/// come first, then the configuration (its per-event fields first, see
/// `TcpConfig`), the RTT estimator, the controller and the scoreboard.
/// `tcp/tests/layout.rs` pins the offsets.
#[derive(Debug)]
#[repr(C)]
pub struct SendCore {
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
    pub(super) st: CcState,
    /// Delivery-rate sampler, kept only for a controller that asks for rate
    /// samples (`CongestionOps::wants_rate_samples`); `None` costs others nothing.
    pub(super) rs: Option<Box<RateSampler>>,
    /// RACK-TLP loss detection (RFC 8985), kept only with `TcpConfig::rack`
    /// and an RFC 6675 recovery; `None` costs others nothing.
    pub(super) rack: Option<Box<Rack>>,
    /// Pacing: the earliest time the next segment may leave (only with a
    /// controller that sets a pacing rate).
    pub(super) pace_at: Option<Time>,
    pub(super) rto_at: Option<Time>,
    /// When data was last sent (for the restart after idle).
    pub(super) last_send: Option<Time>,
    /// The segment being timed for an RTT sample: (end byte, send time).
    pub(super) timed: Option<(u64, Time)>,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint (one past the highest byte
    /// sent when recovery or the last timeout began); `None` before any.
    pub(super) recover: Option<u64>,
    /// How much of cwnd the sender uses (Linux's `tcp_cwnd_validate`).
    pub(super) cwnd_use: CwndUse,
    /// Loss episodes entered (`enter_loss`).
    pub(super) losses: u64,
    pub(super) dupacks: u32,
    /// At most this many segments per transmission opportunity outside a
    /// recovery (ns-2's `maxburst_`; 0: as many as the window allows).
    pub(super) maxburst: u32,
    pub(super) cfg: TcpConfig,
    pub(super) rtt: RttEstimator,
    pub(super) cc: Cc,
    /// SACK scoreboard: SACKed ranges above snd_una.
    pub(super) sb: RangeSet,
}

/// Linux's record of how much of its window a sender uses
/// (`tcp_cwnd_validate`, `tcp_is_cwnd_limited`): whether cwnd held the
/// sender back at some point of the current window of data, and the most
/// bytes it had outstanding then. A controller grows cwnd only while it is
/// in use, so that a window the sender never fills (limited by the receive
/// window or the application) does not grow without bound (RFC 7661's
/// concern, as Linux resolves it).
#[derive(Clone, Copy, Debug, Default)]
pub struct CwndUse {
    /// cwnd was full at some transmission of the current window.
    limited: bool,
    /// Bytes outstanding (SND.MAX − SND.UNA) at the last update.
    max_out: u64,
    /// The window ends when SND.UNA reaches this (SND.MAX at the last update).
    usage_seq: u64,
}

impl SendCore {
    /// The state of a connection before its first byte, with the given
    /// controller; `rack` keeps RACK-TLP state (RFC 8985).
    pub(super) fn new(cfg: TcpConfig, cc: Cc, rack: bool) -> SendCore {
        let mss = cfg.mss as u64;
        let st = CcState {
            // RFC 5681 (3.1) IW; RFC 3390 / 6928 values by configuration.
            cwnd: cfg.initial_window as u64 * mss,
            ssthresh: cfg.initial_ssthresh,
            mss,
        };
        let rtt = if cfg.rtt_tick > Dur::ZERO {
            // ns-2's timer (its tcpTick_, rfc2988_).
            RttEstimator::ns2(
                cfg.rto_initial,
                cfg.rto_min,
                cfg.rto_max,
                Ns2Timer {
                    tick: cfg.rtt_tick,
                    clamp_before_backoff: cfg.rto_min_before_backoff,
                },
            )
        } else {
            RttEstimator::new(
                cfg.rto_initial,
                cfg.rto_min,
                cfg.rto_max,
                cfg.clock_granularity,
            )
        }
        .with_var_floor(if cfg.rttvar_floor {
            cfg.rto_min
        } else {
            Dur::ZERO
        });
        let rs = cc
            .wants_rate_samples()
            .then(|| Box::new(RateSampler::new()));
        let rack = rack.then(|| Box::new(Rack::new(cfg.dupthresh)));
        SendCore {
            maxburst: cfg.maxburst,
            rs,
            rack,
            rwnd: cfg.rcv_buffer,
            last_send: None,
            cfg,
            cc,
            st,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 0,
            dupacks: 0,
            recover: None,
            rtt,
            rto_at: None,
            timed: None,
            sb: RangeSet::new(),
            pace_at: None,
            losses: 0,
            cwnd_use: CwndUse::default(),
        }
    }

    // ---- what a recovery reads ---------------------------------------------

    pub fn config(&self) -> &TcpConfig {
        &self.cfg
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
    /// One past the last byte the application has handed over.
    pub fn app_end(&self) -> u64 {
        self.app_end
    }
    /// The peer's advertised window.
    pub fn rwnd(&self) -> u64 {
        self.rwnd
    }
    /// Bytes sent and not yet cumulatively acknowledged.
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    /// The congestion window state (cwnd, ssthresh, mss in bytes).
    pub fn cc_state(&self) -> CcState {
        self.st
    }
    #[inline]
    pub fn cwnd(&self) -> u64 {
        self.st.cwnd
    }
    #[inline]
    pub fn ssthresh(&self) -> u64 {
        self.st.ssthresh
    }
    /// SMSS in bytes.
    #[inline]
    pub fn mss(&self) -> u64 {
        self.st.mss
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
    /// Whether duplicate ACKs may start a new recovery: only once the
    /// cumulative ACK has passed `recover` (RFC 6582 section 3.2 step 2).
    pub fn may_enter_recovery(&self) -> bool {
        match self.recover {
            None => true,
            Some(r) => self.snd_una > r,
        }
    }
    /// The SACK scoreboard: SACKed ranges above `snd_una`.
    pub fn scoreboard(&self) -> &RangeSet {
        &self.sb
    }
    /// RACK-TLP's state (RFC 8985), when the sender runs it.
    pub fn rack(&self) -> Option<&Rack> {
        self.rack.as_deref()
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// A pacing controller holds the next segment until after `now`.
    #[inline]
    pub fn paced(&self, now: Time) -> bool {
        self.pace_at.is_some_and(|t| t > now)
    }

    /// Usable window: min(cwnd, rwnd, cap on unacknowledged bytes).
    #[inline]
    pub fn window(&self) -> u64 {
        self.st.cwnd.min(self.send_window())
    }

    /// The receive window with a split proxy's cap on unacknowledged bytes
    /// (`max_unacked`) and the send buffer (`send_buffer`: Linux's
    /// `tcp_wmem[2]` holds the data sent and not yet acknowledged), which
    /// bind like it.
    #[inline]
    pub fn send_window(&self) -> u64 {
        let w = self.rwnd.min(self.cfg.send_buffer);
        match self.cfg.max_unacked {
            Some(cap) => w.min(cap),
            None => w,
        }
    }

    /// Length of the segment starting at `seq` (full MSS unless the app data ends first).
    #[inline]
    pub fn seg_len_at(&self, seq: u64) -> u32 {
        (self.app_end - seq).min(self.cfg.mss as u64) as u32
    }

    /// The pacing rate in wire bits per second: the controller's own (BBR),
    /// else, with `TcpConfig::pacing`, Linux's `tcp_update_pacing_rate` for
    /// a window-based controller: max(cwnd, FlightSize) / SRTT × 200 % while
    /// cwnd is below half of ssthresh (`tcp_pacing_ss_ratio`), × 120 %
    /// after (`tcp_pacing_ca_ratio`); none before the first RTT sample.
    #[inline]
    pub fn pacing_rate_bps(&self) -> Option<f64> {
        if let Some(r) = self.cc.pacing_rate_bps(&self.st) {
            return Some(r);
        }
        if !self.cfg.pacing {
            return None;
        }
        let srtt = self.rtt.srtt()?.as_secs_f64().max(1e-6);
        let ratio = if self.st.cwnd < self.st.ssthresh / 2 {
            2.0
        } else {
            1.2
        };
        let bytes = self.st.cwnd.max(self.snd_max - self.snd_una) as f64;
        let wire = (self.cfg.mss + self.cfg.header_bytes) as f64 / self.cfg.mss as f64;
        Some(ratio * bytes * 8.0 * wire / srtt)
    }

    // ---- what the sender does on an ACK -----------------------------------

    /// Linux's `tcp_cwnd_validate` after a transmission attempt: `in_flight`
    /// is what the network holds as the recovery counts it; cwnd is full
    /// when not another whole segment fits. Called when something was sent
    /// or cwnd is full.
    pub(super) fn note_cwnd_use(&mut self, in_flight: u64) {
        let full = in_flight + self.st.mss > self.st.cwnd;
        let out = self.snd_max - self.snd_una;
        let u = &mut self.cwnd_use;
        if self.snd_una >= u.usage_seq || full || (!u.limited && out > u.max_out) {
            u.limited = full;
            u.max_out = out;
            u.usage_seq = self.snd_max;
        }
    }

    /// Linux's `tcp_is_cwnd_limited`: cwnd was full during the current
    /// window, or, in slow start, cwnd is below twice the most that was
    /// outstanding (so that slow start may double what was sent). Always
    /// true unless the connection validates its window
    /// (`TcpConfig::cwnd_validation`).
    pub fn cwnd_in_use(&self) -> bool {
        if !self.cfg.cwnd_validation || self.cwnd_use.limited {
            return true;
        }
        self.st.cwnd < self.st.ssthresh && self.st.cwnd < 2 * self.cwnd_use.max_out
    }

    /// RFC 6675 Update(): the SACK blocks of an ACK of `a` enter the
    /// scoreboard, clipped to [a, HighData), and what `a` covers leaves it.
    /// Returns the bytes newly SACKed and the bytes the ACK newly delivered
    /// (acknowledged cumulatively and not SACKed before, or newly SACKed).
    pub(super) fn update_scoreboard(&mut self, a: u64, blocks: &SackBlocks) -> (u64, u64) {
        let mut sacked = 0;
        if self.cfg.variant.sack {
            for &(s, e) in blocks.as_slice() {
                let e = e.min(self.snd_max);
                let s = s.max(a);
                // A block held already (an ACK repeats its blocks) changes
                // nothing: no descent for RACK or the scoreboard.
                if s < e && !self.sb.holds_recent(s, e) {
                    sacked += match self.rack.as_deref_mut() {
                        Some(r) => r.sack_block(&mut self.sb, s, e),
                        None => self.sb.insert(s, e),
                    };
                }
            }
        }
        let mut delivered = sacked + a.saturating_sub(self.snd_una);
        if a > self.snd_una {
            delivered -= self.sb.remove_below(a);
        }
        (sacked, delivered)
    }

    /// The RTT sample an ACK of `a` gives. With timestamps (RFC 7323
    /// section 4.1), every ACK that acknowledges new data gives one, from
    /// the TSval it echoes, retransmitted data included (RFC 7323 section
    /// 4.2: timestamps remove the retransmission ambiguity Karn's rule
    /// avoids). Without, the timed segment gives one per round trip (Karn:
    /// none once a retransmission stopped the timing).
    pub(super) fn take_rtt_sample(
        &mut self,
        now: Time,
        a: u64,
        tsecr: Option<Time>,
    ) -> Option<Dur> {
        if self.cfg.timestamps {
            let t = tsecr.filter(|_| a > self.snd_una)?;
            let r = now - t;
            // A valid sample: RFC 6298's estimator, which also ends any
            // back-off (as Linux's tcp_ack_update_rtt).
            self.rtt.sample(r);
            return Some(r);
        }
        let (end, t0) = self.timed?;
        if a < end {
            return None;
        }
        // The estimator's own sample: the time elapsed, or with ns-2's
        // timer the clock ticks between the send and this ACK.
        let r = self.rtt.sample_sent(t0, now);
        self.timed = None;
        Some(r)
    }

    // ---- what a recovery does ----------------------------------------------

    /// Set cwnd (bytes), as a recovery inflates or deflates it.
    #[inline]
    pub fn set_cwnd(&mut self, cwnd: u64) {
        self.st.cwnd = cwnd;
    }

    /// Keep `snd_nxt` at or above `seq` (new data is sent from there).
    #[inline]
    pub fn raise_snd_nxt(&mut self, seq: u64) {
        if self.snd_nxt < seq {
            self.snd_nxt = seq;
        }
    }

    /// Go back N: forget the SACK scoreboard and send again from the first
    /// unacknowledged byte, as the window allows.
    pub fn go_back_n(&mut self) {
        self.sb.clear();
        self.snd_nxt = self.snd_una;
    }

    /// What a reduction starts from: FlightSize (RFC 5681 (4)), or cwnd
    /// when the window is validated (Linux's `ssthresh` hooks reduce cwnd;
    /// a validated cwnd is what the sender uses).
    pub fn reduction_basis(&self, flight: u64) -> u64 {
        if self.cfg.cwnd_validation {
            self.st.cwnd
        } else {
            flight
        }
    }

    /// Loss detected: count the recovery, let the controller set ssthresh and
    /// the base cwnd, remember the recovery point, and stop timing (Karn, as
    /// BSD and ns-2: a retransmission ends the current RTT measurement).
    pub fn enter_loss(&mut self, now: Time, s: &AckSample) {
        self.losses += 1;
        let basis = self.reduction_basis(s.flight_bytes);
        self.cc.on_loss(&mut self.st, now, basis);
        self.recover = Some(self.snd_max);
        self.timed = None;
    }

    /// The recovery ended: the controller may adjust the window it left.
    pub fn exit_recovery(&mut self, now: Time) {
        self.cc.on_exit_recovery(&mut self.st, now);
    }

    /// The controller's window growth on a new cumulative ACK, as outside
    /// recovery (an RTO recovery's loss window grows so).
    pub fn grow_window(&mut self, a: &AckSample) {
        self.cc.on_ack(&mut self.st, a);
    }

    /// Restart the retransmission timer: RTO from `now`.
    #[inline]
    pub fn restart_rto(&mut self, now: Time) {
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// Have the retransmission timer fire no later than `at`.
    pub fn rto_no_later_than(&mut self, at: Time) {
        self.rto_at = Some(self.rto_at.map_or(at, |r| r.min(at)));
    }

    /// Retransmit the first unacknowledged segment and restart the timer, as
    /// BSD and ns-2 do on a fast retransmit.
    pub fn retransmit_first(&mut self, now: Time, out: &mut Vec<DataSeg>) {
        let seq = self.snd_una;
        let len = self.seg_len_at(seq).max(1);
        self.emit_segment(now, seq, len, out);
        self.restart_rto(now);
    }

    /// Send `len` bytes from `seq` (a retransmission if below `snd_max`);
    /// keeps `snd_nxt` at or above its end.
    #[inline]
    pub fn emit_segment(&mut self, now: Time, seq: u64, len: u32, out: &mut Vec<DataSeg>) {
        self.emit(now, seq, len, false, out);
        self.raise_snd_nxt(seq + len as u64);
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
            if probe {
                // A zero-window probe measures the receiver's window, not
                // the path: the samples until it is delivered are
                // application-limited (one byte per probe interval would
                // otherwise age the bandwidth filter down to nothing).
                r.set_app_limited();
            }
        }
        if let Some(r) = self.rack.as_deref_mut() {
            // RFC 8985 section 6.1: Segment.xmit_ts = Now.
            r.on_send(now, seq, len);
        }
        // A window probe is not paced and does not delay what follows
        // (Linux sends it outside tcp_write_xmit).
        if let Some(rate) = self.pacing_rate_bps().filter(|_| !probe) {
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
            ts: now,
        });
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
            self.restart_rto(now);
        }
    }
}
