//! BBR v1: N. Cardwell, Y. Cheng, C. S. Gunn, S. Hassas Yeganeh,
//! V. Jacobson, "BBR: Congestion-Based Congestion Control", ACM Queue 14(5),
//! 2016 (CACM 60(2), 2017), as specified in
//! draft-cardwell-iccrg-bbr-congestion-control-00 (2017). Section numbers
//! below are the draft's.
//!
//! BBR models the path by its bottleneck bandwidth (BtlBw: windowed maximum
//! of delivery-rate samples over 10 round trips, 4.1.1) and round-trip
//! propagation time (RTprop: windowed minimum of RTT samples over 10 s,
//! 4.1.2), paces at pacing_gain × BtlBw (4.2.1) and caps inflight at
//! cwnd_gain × BDP (4.2.3). Its states: Startup (gain 2/ln 2, until the
//! bandwidth stops growing by 25 % for three rounds), Drain (gain ln 2/2
//! until inflight ≤ BDP), ProbeBW (pacing gain cycling 5/4, 3/4, 1 × 6,
//! one phase per RTprop) and ProbeRTT (cwnd 4 segments for 200 ms and a
//! round, when RTprop has not been refreshed for 10 s) (4.3).
//!
//! Delivery-rate samples come from the sender's rate sampler
//! (`tcp::rate_sample`), which the sender keeps only for a controller that
//! asks for it. BBR sets cwnd itself on every ACK, in and out of loss
//! recovery (the recovery decides what to send, BBR how much, as Linux's
//! `cong_control` hook bypasses PRR): ssthresh is not used.
//!
//! As Linux's `tcp_bbr.c` runs it, where the draft leaves room: pacing 1 %
//! below the estimate (`bbr_pacing_margin_percent`); RTprop refreshed by a
//! strictly lower sample, or by any sample once it expired unless the ACK
//! may have been delayed (`bbr_update_min_rtt`); on entering a recovery
//! cwnd = inflight (segments marked lost excluded, with RACK) + the bytes
//! the ACK delivered, and a new round starts; on every ACK the bytes it
//! newly marked lost come off cwnd before BBR regrows it
//! (`bbr_set_cwnd_to_recover_or_restore`); a timeout forgets the full
//! bandwidth reached so far (`bbr_set_state`); the cwnd target is rounded
//! up to an even number of segments and two more in the 5/4 phase
//! (`bbr_quantization_budget`).
//!
//! Simplifications, all documented in docs/scenario.md: without RACK,
//! inflight counts lost-but-unSACKed bytes; the ProbeBW up-phase ends on
//! time and inflight only (no loss count per ACK); no long-term bandwidth
//! (policer) mode and no ACK-aggregation allowance; no idle-restart
//! handling; rate samples in ProbeRTT are not marked application-limited;
//! the ProbeBW starting phase is drawn from a deterministic generator
//! seeded by the connection's state.

use super::{AckSample, CcState, CongestionOps};
use crate::engine::time::{Dur, Time};
use crate::tcp::rate_sample::RateSample;

/// 4.3.1.1: 2/ln 2, the smallest gain that doubles the delivery rate each round.
pub const HIGH_GAIN: f64 = 2.885_390_081_777_926_8;
/// 4.3.4: the ProbeBW pacing gain cycle.
pub(super) const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// 4.1.1: BtlBwFilterLen, round trips.
pub(super) const BTLBW_FILTER_LEN: u64 = 10;
/// 4.1.2: RTpropFilterLen.
pub(super) const RTPROP_FILTER_LEN: Dur = Dur::from_secs(10);
/// 4.3.5: ProbeRTTDuration.
pub(super) const PROBE_RTT_DURATION: Dur = Dur::from_millis(200);
/// 4.2.3.1: BBRMinPipeCwnd, segments.
pub(super) const MIN_PIPE_CWND_SEGMENTS: u64 = 4;
/// Linux paces 1 % below the estimate (`bbr_pacing_margin_percent`), so
/// that a pacing rate equal to the bottleneck's does not build a queue
/// from the rounding of its own rate estimates.
pub(super) const PACING_MARGIN: f64 = 0.01;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BbrMode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Laid out in the order written (`repr(C)`): what a paced transmission
/// reads (the pacing rate, `started`) and the flags first, the filters
/// after, the mode history (read by traces and tests only) last.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Bbr {
    /// Pacing rate, payload bytes per second.
    pacing_rate: f64,
    /// Wire bytes per payload byte of a full segment, (MSS + header) / MSS.
    wire_factor: f64,
    mode: BbrMode,
    /// A segment has been sent: `rtprop_stamp` is the connection's.
    started: bool,
    /// The pacing rate was set from a measured SRTT.
    has_seen_rtt: bool,
    rtprop_expired: bool,
    probe_rtt_round_done: bool,
    packet_conservation: bool,
    in_loss_recovery: bool,
    round_start: bool,
    filled_pipe: bool,
    full_bw_count: u32,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// When RTprop was last set; from the connection's first segment on
    /// (Linux's `bbr_init` stamps `min_rtt_stamp` when the connection is
    /// set up), not from the run's time zero.
    rtprop_stamp: Time,
    prior_cwnd: u64,
    next_round_delivered: u64,
    round_count: u64,
    full_bw: f64,
    cycle_index: usize,
    cycle_stamp: Time,
    /// Inflight, bytes delivered and C.delivered of the latest ACK.
    last_inflight: u64,
    last_delivered: u64,
    last_total_delivered: u64,
    last_undelivered: u64,
    init_cwnd: u64,
    mss: u64,
    rtprop: Option<Dur>,
    probe_rtt_done_stamp: Option<Time>,
    /// After a timeout: C.delivered at which everything outstanding at the
    /// timeout has been delivered, when the loss recovery ends.
    rto_recovered_at: Option<u64>,
    /// BtlBw's windowed max filter.
    bw_filter: MaxFilter,
    /// Every mode entered, in order (for traces and tests).
    modes_seen: Vec<(Time, BbrMode)>,
}

impl Bbr {
    pub fn new(cfg: &crate::tcp::TcpConfig) -> Bbr {
        let mss = cfg.mss as u64;
        let init_cwnd = cfg.initial_window as u64 * mss;
        Bbr {
            mode: BbrMode::Startup,
            // 4.3.2.1 BBREnterStartup.
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            // 4.2.1 BBRInitPacingRate: nominal bandwidth = InitialCwnd / SRTT,
            // with 1 ms when no RTT sample exists yet.
            pacing_rate: HIGH_GAIN * init_cwnd as f64 / 1e-3,
            has_seen_rtt: false,
            bw_filter: MaxFilter::default(),
            rtprop: None,
            rtprop_stamp: Time::ZERO,
            rtprop_expired: false,
            started: false,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            packet_conservation: false,
            prior_cwnd: 0,
            in_loss_recovery: false,
            next_round_delivered: 0,
            round_start: false,
            round_count: 0,
            filled_pipe: false,
            full_bw: 0.0,
            full_bw_count: 0,
            cycle_index: 0,
            cycle_stamp: Time::ZERO,
            last_inflight: 0,
            last_delivered: 0,
            last_total_delivered: 0,
            last_undelivered: 0,
            rto_recovered_at: None,
            init_cwnd,
            mss,
            wire_factor: (cfg.mss as f64 + cfg.header_bytes as f64) / cfg.mss as f64,
            modes_seen: vec![(Time::ZERO, BbrMode::Startup)],
        }
    }

    pub fn mode(&self) -> BbrMode {
        self.mode
    }
    /// Modes entered, with the time of entry, from Startup at 0.
    pub fn modes_seen(&self) -> &[(Time, BbrMode)] {
        &self.modes_seen
    }
    /// BtlBw, payload bytes per second.
    pub fn btl_bw(&self) -> f64 {
        self.bw_filter.max()
    }
    pub fn rtprop(&self) -> Option<Dur> {
        self.rtprop
    }
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }
    pub fn filled_pipe(&self) -> bool {
        self.filled_pipe
    }
    pub fn round_count(&self) -> u64 {
        self.round_count
    }

    fn enter(&mut self, now: Time, mode: BbrMode) {
        self.mode = mode;
        self.modes_seen.push((now, mode));
    }

    /// 4.2.3.2 BBRInflight(gain): gain × BtlBw × RTprop + 3 send quanta.
    fn inflight(&self, gain: f64) -> u64 {
        let Some(rtprop) = self.rtprop else {
            return self.init_cwnd;
        };
        let bdp = self.btl_bw() * rtprop.as_secs_f64();
        (gain * bdp) as u64 + 3 * self.send_quantum()
    }

    /// The cwnd target: BBRInflight(cwnd_gain) rounded up to an even number
    /// of segments, two more in ProbeBW's 5/4 phase (Linux's
    /// `bbr_quantization_budget`).
    fn cwnd_target(&self) -> u64 {
        let t = self.inflight(self.cwnd_gain);
        if self.rtprop.is_none() {
            return t;
        }
        let segs = t.div_ceil(self.mss);
        let mut segs = (segs + 1) & !1;
        if self.mode == BbrMode::ProbeBw && self.cycle_index == 0 {
            segs += 2;
        }
        segs * self.mss
    }

    /// 4.2.2 BBRSetSendQuantum: one segment below 1.2 Mb/s, two below
    /// 24 Mb/s, else 1 ms at the pacing rate up to 64 kB.
    fn send_quantum(&self) -> u64 {
        let bps = self.pacing_rate * 8.0;
        if bps < 1.2e6 {
            self.mss
        } else if bps < 24e6 {
            2 * self.mss
        } else {
            ((self.pacing_rate * 1e-3) as u64).min(65_536)
        }
    }

    /// 4.1.1.3 BBRUpdateRound and BBRUpdateBtlBw.
    fn update_btl_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        if rs.newly_delivered > 0 && rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = rs.total_delivered;
            self.round_count += 1;
            self.round_start = true;
            if self.packet_conservation {
                // 4.2.3.4: packet conservation lasts one round of recovery.
                self.packet_conservation = false;
            }
        }
        if rs.valid && (rs.delivery_rate >= self.btl_bw() || !rs.is_app_limited) {
            // Windowed max over the last BtlBwFilterLen rounds. As Linux's
            // minmax filter, it moves only when a sample enters: through
            // application-limited stretches the estimate stays as it was.
            self.bw_filter.update(self.round_count, rs.delivery_rate);
        }
    }

    /// 4.3.4.3 BBRCheckCyclePhase / BBRIsNextCyclePhase.
    fn check_cycle_phase(&mut self, now: Time, prior_inflight: u64) {
        if self.mode != BbrMode::ProbeBw {
            return;
        }
        let rtprop = self.rtprop.unwrap_or(Dur::ZERO);
        let is_full_length = now.since(self.cycle_stamp) > rtprop;
        let next = if self.pacing_gain == 1.0 {
            is_full_length
        } else if self.pacing_gain > 1.0 {
            is_full_length && prior_inflight >= self.inflight(self.pacing_gain)
        } else {
            is_full_length || prior_inflight <= self.inflight(1.0)
        };
        if next {
            self.advance_cycle_phase(now);
        }
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.pacing_gain = PACING_GAIN_CYCLE[self.cycle_index];
    }

    /// 4.3.2.2 BBRCheckFullPipe.
    fn check_full_pipe(&mut self, rs: &RateSample) {
        if self.filled_pipe || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.btl_bw() >= self.full_bw * 1.25 {
            self.full_bw = self.btl_bw();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= 3 {
            self.filled_pipe = true;
        }
    }

    /// 4.3.3 BBRCheckDrain.
    fn check_drain(&mut self, now: Time, inflight: u64) {
        if self.mode == BbrMode::Startup && self.filled_pipe {
            self.enter(now, BbrMode::Drain);
            self.pacing_gain = 1.0 / HIGH_GAIN;
            self.cwnd_gain = HIGH_GAIN;
        }
        if self.mode == BbrMode::Drain && inflight <= self.inflight(1.0) {
            self.enter_probe_bw(now, inflight);
        }
    }

    /// 4.3.4.2 BBREnterProbeBW: start at a random phase other than 3/4.
    fn enter_probe_bw(&mut self, now: Time, salt: u64) {
        self.enter(now, BbrMode::ProbeBw);
        self.pacing_gain = 1.0;
        self.cwnd_gain = 2.0;
        // random_int_between(0, 6), from a deterministic generator
        // (splitmix64) seeded by the time and the connection's state.
        let r = splitmix64(now.0 ^ salt.rotate_left(32) ^ self.round_count) % 7;
        self.cycle_index = PACING_GAIN_CYCLE.len() - 1 - r as usize;
        self.advance_cycle_phase(now);
    }

    /// 4.1.2.3 BBRUpdateRTprop, as Linux's `bbr_update_min_rtt`: a sample
    /// strictly below RTprop, or, once the filter expired, any sample of an
    /// ACK that was not possibly delayed (the draft takes `<=` and any).
    fn update_rtprop(&mut self, now: Time, rtt: Option<Dur>, ack_delayed: bool) {
        self.rtprop_expired = now > self.rtprop_stamp + RTPROP_FILTER_LEN;
        if let Some(r) = rtt {
            if self.rtprop.is_none_or(|p| r < p) || (self.rtprop_expired && !ack_delayed) {
                self.rtprop = Some(r);
                self.rtprop_stamp = now;
            }
        }
    }

    /// 4.3.5 BBRCheckProbeRTT / BBRHandleProbeRTT.
    fn check_probe_rtt(&mut self, now: Time, s: &mut CcState, inflight: u64) {
        if self.mode != BbrMode::ProbeRtt && self.rtprop_expired {
            self.enter(now, BbrMode::ProbeRtt);
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd(s);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode != BbrMode::ProbeRtt {
            return;
        }
        match self.probe_rtt_done_stamp {
            None if inflight <= MIN_PIPE_CWND_SEGMENTS * self.mss => {
                self.probe_rtt_done_stamp = Some(now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
            }
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    self.rtprop_stamp = now;
                    // BBRRestoreCwnd, then BBRExitProbeRTT.
                    s.cwnd = s.cwnd.max(self.prior_cwnd);
                    if self.filled_pipe {
                        self.enter_probe_bw(now, inflight);
                    } else {
                        self.enter(now, BbrMode::Startup);
                        self.pacing_gain = HIGH_GAIN;
                        self.cwnd_gain = HIGH_GAIN;
                    }
                }
            }
            None => {}
        }
    }

    /// 4.2.3.4 BBRSaveCwnd.
    fn save_cwnd(&mut self, s: &CcState) {
        self.prior_cwnd = if !self.in_loss_recovery && self.mode != BbrMode::ProbeRtt {
            s.cwnd
        } else {
            self.prior_cwnd.max(s.cwnd)
        };
    }
}

/// The maximum of the samples of the last `BTLBW_FILTER_LEN` rounds, kept
/// in place (it sits in the sender's state, read on every ACK): the
/// samples that can still become the maximum, at most one per round, by
/// round, rates decreasing. A sample no larger than the one kept for its
/// round is not kept: the two leave together, by age or behind a larger
/// sample, so it never becomes the maximum.
#[derive(Clone, Copy, Debug, Default)]
struct MaxFilter {
    /// (round, rate), oldest first; `len` of them.
    e: [(u64, f64); BTLBW_FILTER_LEN as usize],
    len: usize,
}

impl MaxFilter {
    /// The maximum (0 before the first sample).
    #[inline]
    fn max(&self) -> f64 {
        if self.len == 0 {
            0.0
        } else {
            self.e[0].1
        }
    }

    /// A sample `rate` of round `round` (rounds never decrease).
    fn update(&mut self, round: u64, rate: f64) {
        let old = self.e[..self.len]
            .iter()
            .take_while(|f| f.0 + BTLBW_FILTER_LEN <= round)
            .count();
        if old > 0 {
            self.e.copy_within(old..self.len, 0);
            self.len -= old;
        }
        while self.len > 0 && self.e[self.len - 1].1 <= rate {
            self.len -= 1;
        }
        if self.len > 0 && self.e[self.len - 1].0 == round {
            // The round's larger sample stays; this one would leave with it.
            return;
        }
        // Rounds kept are above round - BTLBW_FILTER_LEN and distinct, and
        // this round is not among them: there is room.
        self.e[self.len] = (round, rate);
        self.len += 1;
    }
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl CongestionOps for Bbr {
    fn wants_rate_samples(&self) -> bool {
        true
    }

    /// 4.2.1 BBRInit (`BBR.rtprop_stamp = Now()`): at the connection's
    /// first segment. Stamped at the run's time zero instead, the 10 s
    /// RTprop filter of a connection opened 10 s or more into a run would
    /// have expired at its first ACK and sent it to ProbeRTT (cwnd 4
    /// segments for 200 ms) before it ever started up.
    fn on_send(&mut self, _s: &CcState, tx: &crate::tcp::cc::SendSample) {
        if !self.started {
            self.started = true;
            self.rtprop_stamp = tx.now;
        }
    }

    /// 4.2 BBRUpdateOnACK: the model, the state machine, then pacing rate
    /// and cwnd, on every ACK (new or duplicate, in or out of recovery).
    fn on_rate_sample(&mut self, s: &mut CcState, ack: &AckSample, rs: &RateSample) {
        let now = ack.now;
        let inflight = rs.inflight;
        if self
            .rto_recovered_at
            .is_some_and(|m| rs.total_delivered >= m)
        {
            // Everything outstanding at the timeout is delivered: the loss
            // recovery is over, BBRRestoreCwnd (4.2.3.4).
            self.rto_recovered_at = None;
            self.in_loss_recovery = false;
            s.cwnd = s.cwnd.max(self.prior_cwnd);
        }
        // BBRUpdateModelAndState.
        self.update_btl_bw(rs);
        self.check_cycle_phase(now, rs.prior_inflight);
        self.check_full_pipe(rs);
        self.check_drain(now, inflight);
        self.update_rtprop(now, rs.rtt, rs.is_ack_delayed);
        let was_probe_rtt_waiting =
            self.mode == BbrMode::ProbeRtt && self.probe_rtt_done_stamp.is_none();
        self.check_probe_rtt(now, s, inflight);
        if was_probe_rtt_waiting && self.probe_rtt_done_stamp.is_some() {
            // 4.3.5: the ProbeRTT round starts now.
            self.next_round_delivered = rs.total_delivered;
        }
        // BBRUpdateControlParameters: 4.2.1 BBRSetPacingRate. The initial
        // rate assumed a 1 ms RTT; with the first RTT sample it is
        // recomputed from SRTT (as Linux's bbr_set_pacing_rate does).
        if !self.has_seen_rtt {
            if let Some(srtt) = ack.srtt {
                self.has_seen_rtt = true;
                self.pacing_rate = HIGH_GAIN * self.init_cwnd as f64 / srtt.as_secs_f64().max(1e-6);
            }
        }
        let bw = self.btl_bw();
        if bw > 0.0 {
            let rate = self.pacing_gain * bw;
            if self.filled_pipe || rate > self.pacing_rate {
                self.pacing_rate = rate;
            }
        }
        // 4.2.3.6 BBRSetCwnd, as Linux's bbr_set_cwnd: nothing changes on
        // an ACK that delivered nothing but the caps.
        let delivered = rs.newly_delivered;
        if delivered > 0 {
            let mut cwnd = s.cwnd;
            if rs.losses > 0 {
                // bbr_set_cwnd_to_recover_or_restore: an ACK releases at
                // most twice what it delivered: first the newly lost bytes
                // come off, then cwnd grows by the delivered ones.
                cwnd = cwnd.saturating_sub(rs.losses).max(self.mss);
            }
            if self.packet_conservation {
                // 4.2.3.4 BBRModulateCwndForRecovery.
                cwnd = cwnd.max(inflight + delivered);
            } else {
                let target = self.cwnd_target();
                if self.filled_pipe {
                    cwnd = (cwnd + delivered).min(target);
                } else if cwnd < target || rs.total_delivered < self.init_cwnd {
                    cwnd += delivered;
                }
                cwnd = cwnd.max(MIN_PIPE_CWND_SEGMENTS * self.mss);
            }
            s.cwnd = cwnd;
        }
        if self.mode == BbrMode::ProbeRtt {
            // 4.2.3.5 BBRModulateCwndForProbeRTT.
            s.cwnd = s.cwnd.min(MIN_PIPE_CWND_SEGMENTS * self.mss);
        }
        self.last_inflight = inflight;
        self.last_delivered = delivered;
        self.last_total_delivered = rs.total_delivered;
        self.last_undelivered = rs.undelivered;
    }

    /// Window growth is BBRSetCwnd's, done on every ACK above.
    fn on_ack(&mut self, _s: &mut CcState, _ack: &AckSample) {}

    /// 4.2.3.4 BBROnEnterFastRecovery, as Linux: save cwnd; cwnd =
    /// inflight (after this ACK, segments marked lost excluded) + the bytes
    /// it delivered; packet conservation for one round, which starts now.
    fn on_loss(&mut self, s: &mut CcState, _now: Time, _flight_bytes: u64) {
        self.save_cwnd(s);
        self.in_loss_recovery = true;
        s.cwnd = (self.last_inflight + self.last_delivered).max(self.mss);
        self.packet_conservation = true;
        self.next_round_delivered = self.last_total_delivered;
    }

    /// 4.2.3.4: on a timeout, save cwnd and restart from one segment;
    /// BBRSetCwnd regrows it by the delivered bytes, and when the data
    /// outstanding at the timeout has been delivered (the end of the
    /// timeout's loss recovery, as Linux leaves TCP_CA_Loss) BBRRestoreCwnd.
    fn on_rto(&mut self, s: &mut CcState, _now: Time, _flight_bytes: u64) {
        self.save_cwnd(s);
        self.in_loss_recovery = true;
        // Linux's bbr_set_state(TCP_CA_Loss): the full-bandwidth search
        // starts over (it matters only before the pipe was filled).
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.rto_recovered_at = Some(self.last_total_delivered + self.last_undelivered);
        s.cwnd = self.mss;
        self.packet_conservation = false;
    }

    /// A spurious timeout undone: Linux's `bbr_undo_cwnd` keeps cwnd and
    /// restarts the full-bandwidth search; the recovery's end restores the
    /// saved cwnd (`bbr_set_cwnd_to_recover_or_restore`).
    fn on_undo(&mut self, s: &mut CcState, _prior_cwnd: u64, _prior_ssthresh: u64) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.rto_recovered_at = None;
        self.on_exit_recovery(s, Time::ZERO);
    }

    /// 4.2.3.4 BBRRestoreCwnd on leaving recovery.
    fn on_exit_recovery(&mut self, s: &mut CcState, _now: Time) {
        self.in_loss_recovery = false;
        self.packet_conservation = false;
        s.cwnd = s.cwnd.max(self.prior_cwnd);
    }

    /// Pacing at pacing_rate (payload) less Linux's 1 % margin, expressed
    /// in wire bits per second.
    fn pacing_rate_bps(&self, _s: &CcState) -> Option<f64> {
        Some(self.pacing_rate * (1.0 - PACING_MARGIN) * 8.0 * self.wire_factor)
    }

    fn rate_estimate_bps(&self) -> Option<f64> {
        Some(self.btl_bw() * 8.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout (see the struct): what a paced transmission reads and
    /// the flags in the first 32 bytes, the mode history last. A change
    /// here is a layout change to measure, not a number to update.
    #[test]
    fn the_pacing_rate_and_the_flags_come_first() {
        use std::mem::{offset_of, size_of};
        assert_eq!(offset_of!(Bbr, pacing_rate), 0);
        assert_eq!(offset_of!(Bbr, wire_factor), 8);
        assert!(offset_of!(Bbr, started) < 32);
        assert!(offset_of!(Bbr, full_bw_count) + 4 <= 32);
        assert_eq!(offset_of!(Bbr, modes_seen) + 24, size_of::<Bbr>());
    }

    #[test]
    fn the_max_filter_is_the_windowed_max_of_every_sample() {
        // Nondecreasing rounds with many samples per round (rates with
        // ties) against the maximum over every sample still in the window
        // when a sample enters, and against a filter that keeps every
        // candidate (the deque this one replaced).
        let mut rng = crate::engine::rng::RngStream::derive(11, "bw_filter");
        for _ in 0..200 {
            let mut f = MaxFilter::default();
            let mut all: Vec<(u64, f64)> = Vec::new();
            let mut deque: std::collections::VecDeque<(u64, f64)> = Default::default();
            let mut round = 0u64;
            for _ in 0..500 {
                let u = rng.uniform();
                if u < 0.2 {
                    round += 1 + (rng.uniform() * 3.0) as u64 * (u < 0.02) as u64 * 5;
                }
                let rate = (rng.uniform() * 20.0).floor() * 1e5;
                f.update(round, rate);
                all.push((round, rate));
                while deque
                    .front()
                    .is_some_and(|x| x.0 + BTLBW_FILTER_LEN <= round)
                {
                    deque.pop_front();
                }
                while deque.back().is_some_and(|x| x.1 <= rate) {
                    deque.pop_back();
                }
                deque.push_back((round, rate));
                let want = all
                    .iter()
                    .filter(|x| x.0 + BTLBW_FILTER_LEN > round)
                    .map(|x| x.1)
                    .fold(0.0, f64::max);
                assert_eq!(f.max(), want);
                assert_eq!(deque.front().unwrap().1, want);
                assert!(f.len <= BTLBW_FILTER_LEN as usize);
            }
        }
    }
}
