//! TCP Westwood with ABSE (Adaptive Bandwidth Share Estimation).
//!
//! SPEC §3 "Westwood with ABSE". Sources: R. Wang, M. Valla, M. Y. Sanadidi,
//! M. Gerla, "Adaptive bandwidth share estimation in TCP Westwood",
//! IEEE Globecom 2002 (ABSE: adaptive sampling interval, time-varying filter
//! gain); S. Mascolo, C. Casetti, M. Gerla, M. Y. Sanadidi, R. Wang,
//! "TCP Westwood: bandwidth estimation for enhanced transport over wireless
//! links", ACM MobiCom 2001 (DUPACK accounting, the ssthresh/cwnd rules).
//!
//! Window growth is Reno's (the [`CongestionOps`] defaults); Westwood changes
//! only how far the window falls: after 3 DUPACKs or an RTO, ssthresh is set
//! to the Eligible Rate Estimate (ERE) times RTT_min instead of FlightSize/2.
//! The estimator is driven by ACKs only ([`CongestionOps::observe_ack`]); it
//! owns no clock and no timer.
//!
//! Mascolo et al.'s first filter inserted "virtual null samples" when no ACK
//! came for a while; ABSE and SPEC §3 do not, and neither does this: after a
//! gap the next sample (T_k ≥ Δt_k) is small and α_k gives it a large weight.
//!
//! Helpers shared with Westwood+ (`westwood_plus.rs`): [`DeliveryCounter`]
//! (what an ACK reports delivered) and [`westwood_loss`] / [`westwood_rto`]
//! (the window rules).

use std::collections::VecDeque;

use super::{AckSample, CcState, CongestionOps};
use crate::engine::time::{Dur, Time, NS_PER_S};

/// Settings of the ABSE estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WestwoodParams {
    /// Filter constant τ of the ERE low-pass filter (SPEC §3: "fixed; document
    /// the value, e.g. a few RTTs").
    ///
    /// Default 1 s. A GEO hop's round trip is 0.50–0.56 s (ground–satellite
    /// ≈ 0.12–0.14 s each way, SPEC §1), so τ = 1 s averages the rate over
    /// about two round trips of the studies' paths: long enough that the ERE
    /// is not the ACK burst of the last window (which after a loss is what
    /// ssthresh is set from), short enough to follow a rate change (ACM mode
    /// switch, a new competing flow) within a few seconds — the filter's step
    /// response reaches 1 − 1/e after τ. Mascolo et al. (2001) likewise use a
    /// sub-second-to-second cut-off for paths of 0.1–0.5 s RTT; ABSE (Wang et
    /// al. 2002) keeps τ fixed and adapts the sampling interval instead.
    pub tau: Dur,
}

impl Default for WestwoodParams {
    fn default() -> Self {
        WestwoodParams {
            tau: Dur::from_secs(1),
        }
    }
}

impl WestwoodParams {
    /// Checks the settings; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        if self.tau == Dur::ZERO {
            return Err("westwood tau must be positive (the ERE filter constant)".to_string());
        }
        Ok(())
    }
}

/// What an ACK reports delivered, in bytes (SPEC §3; Mascolo et al. 2001,
/// §2.2, "DUPACKs and delayed ACKs").
///
/// - A duplicate ACK counts one segment delivered (the receiver got a
///   segment, just not the next in order), and that segment is remembered as
///   credit.
/// - A cumulative ACK counts what it acknowledges minus the credit of the
///   DUPACKs before it, floored at 0; credit it does not use is kept for the
///   following ACKs (e.g. the partial ACKs of a NewReno recovery), so no
///   byte is counted twice.
/// - A delayed ACK counts all it covers.
///
/// Linux `tcp_westwood.c` instead counts at least one MSS for a cumulative
/// ACK whose bytes were all credited; SPEC §3 says "only what was not already
/// counted", which is what this does. SACK blocks are not used: SPEC §3
/// counts one segment per DUPACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeliveryCounter {
    /// Bytes credited to DUPACKs and not yet covered by a cumulative ACK.
    dupack_credit: u64,
}

impl DeliveryCounter {
    /// Bytes `ack` reports delivered that were not counted before.
    pub fn delivered(&mut self, ack: &AckSample, mss: u64) -> u64 {
        if ack.is_dupack {
            self.dupack_credit += mss;
            return mss;
        }
        let counted = ack.acked_bytes.saturating_sub(self.dupack_credit);
        self.dupack_credit = self.dupack_credit.saturating_sub(ack.acked_bytes);
        counted
    }

    /// Bytes credited to DUPACKs that no cumulative ACK has covered yet.
    #[cfg(test)]
    pub fn dupack_credit(&self) -> u64 {
        self.dupack_credit
    }
}

/// True for the ACKs an estimator takes into account: new cumulative data or
/// a duplicate ACK. A pure window update (nothing new, not a DUPACK) carries
/// no delivery information and is skipped.
pub(super) fn is_delivery_ack(ack: &AckSample) -> bool {
    ack.is_dupack || ack.acked_bytes > 0
}

/// Bytes per second from `bytes` delivered over `span` (span > 0), computed
/// as bytes·10⁹/ns so that whole rates come out exact.
pub(super) fn rate_bytes_per_s(bytes: u64, span: Dur) -> f64 {
    bytes as f64 * NS_PER_S as f64 / span.0 as f64
}

/// `rate` (bytes/s) × `d`, in bytes.
pub(super) fn bytes_in(rate: f64, d: Dur) -> f64 {
    rate * d.0 as f64 / NS_PER_S as f64
}

/// ssthresh in bytes from a rate estimate (bytes/s) and RTT_min.
///
/// SPEC §3 / Mascolo et al. 2001: ssthresh = ERE·RTT_min / segment size, a
/// whole number of segments (ns-2 and Linux divide in integers), floored at
/// 2 segments — the RFC 5681 minimum, so that a near-zero estimate (e.g.
/// right after a long outage) cannot leave ssthresh below what fast
/// retransmit needs. A relative slack of 1e-9 segment keeps a product that is
/// a whole number of segments up to floating-point noise from being floored
/// one segment short.
pub(super) fn ssthresh_from_rate(rate: f64, rtt_min: Dur, mss: u64) -> u64 {
    let segments = bytes_in(rate, rtt_min) / mss as f64;
    let whole = if segments.is_finite() && segments > 0.0 {
        (segments + 1e-9).floor() as u64
    } else {
        0
    };
    whole.max(2) * mss
}

/// The ssthresh a Westwood controller falls back to, given its estimate.
/// With an estimate and an RTT_min: [`ssthresh_from_rate`]. Before either
/// exists (a loss before the second ACK, or before any RTT sample): the
/// Reno rule of RFC 5681 (4), max(FlightSize/2, 2·SMSS).
fn westwood_ssthresh(s: &CcState, estimate: Option<(f64, Dur)>, flight_bytes: u64) -> u64 {
    match estimate {
        Some((rate, rtt_min)) => ssthresh_from_rate(rate, rtt_min, s.mss),
        None => (flight_bytes / 2).max(2 * s.mss),
    }
}

/// 3 DUPACKs (Mascolo et al. 2001, §3.1; SPEC §3): ssthresh = ERE·RTT_min;
/// if cwnd > ssthresh then cwnd = ssthresh (else cwnd is kept). The same
/// cwnd rule is used with the Reno fallback ssthresh.
pub(super) fn westwood_loss(s: &mut CcState, estimate: Option<(f64, Dur)>, flight_bytes: u64) {
    s.ssthresh = westwood_ssthresh(s, estimate, flight_bytes);
    if s.cwnd > s.ssthresh {
        s.cwnd = s.ssthresh;
    }
}

/// RTO (Mascolo et al. 2001, §3.1; SPEC §3): cwnd = 1 segment,
/// ssthresh = max(2 segments, ERE·RTT_min).
pub(super) fn westwood_rto(s: &mut CcState, estimate: Option<(f64, Dur)>, flight_bytes: u64) {
    s.ssthresh = westwood_ssthresh(s, estimate, flight_bytes);
    s.cwnd = s.mss;
}

/// TCP Westwood with the ABSE estimator. See the module documentation.
#[derive(Clone, Debug)]
pub struct Westwood {
    params: WestwoodParams,
    counter: DeliveryCounter,
    /// ACK arrivals, oldest first: (t_i, bytes counted by ACKs up to and
    /// including i since the connection began). Cumulative sums make the
    /// bytes of any window (t_k − T_k, t_k] two look-ups.
    history: VecDeque<(Time, u64)>,
    /// Cumulative count of the newest entry pruned from `history`.
    pruned_total: u64,
    /// Bytes counted since the connection began.
    total: u64,
    /// Largest RTT used so far; see [`Westwood::prune`].
    max_rtt: Dur,
    /// t_{k−1}: arrival time of the previous ACK.
    last_ack: Option<Time>,
    /// δ_k, the ERE, in bytes per second.
    ere: Option<f64>,
    /// s_k of the last sample, bytes per second.
    last_sample: Option<f64>,
    /// T_k of the last sample.
    last_interval: Option<Dur>,
    /// RTT_min as last reported by the sender.
    min_rtt: Option<Dur>,
    /// Last RTT known (SRTT, or the last sample before SRTT exists).
    rtt: Option<Dur>,
}

impl Default for Westwood {
    fn default() -> Self {
        Westwood::new(WestwoodParams::default())
    }
}

impl Westwood {
    pub fn new(params: WestwoodParams) -> Self {
        Westwood {
            params,
            counter: DeliveryCounter::default(),
            history: VecDeque::new(),
            pruned_total: 0,
            total: 0,
            max_rtt: Dur::ZERO,
            last_ack: None,
            ere: None,
            last_sample: None,
            last_interval: None,
            min_rtt: None,
            rtt: None,
        }
    }

    pub fn params(&self) -> &WestwoodParams {
        &self.params
    }

    /// δ_k, the Eligible Rate Estimate, in bytes per second (None before the
    /// second ACK).
    pub fn ere_bytes_per_s(&self) -> Option<f64> {
        self.ere
    }

    /// s_k of the last sample, bytes per second.
    pub fn last_sample_bytes_per_s(&self) -> Option<f64> {
        self.last_sample
    }

    /// T_k, the sampling interval chosen at the last sample.
    pub fn last_sampling_interval(&self) -> Option<Dur> {
        self.last_interval
    }

    /// Filter weight α_k = (2τ − Δt_k)/(2τ + Δt_k) (ABSE; the Tustin
    /// discretisation of a first-order low-pass filter with time constant τ),
    /// clamped to 0 when Δt_k > 2τ, where the formula would go negative:
    /// after so long a gap the old estimate carries no weight. In [0, 1) for
    /// Δt_k > 0.
    pub fn alpha(&self, dt: Dur) -> f64 {
        let two_tau = 2.0 * self.params.tau.0 as f64;
        let dt = dt.0 as f64;
        ((two_tau - dt) / (two_tau + dt)).max(0.0)
    }

    /// T_k, the ABSE sampling interval (Wang et al. 2002; SPEC §3).
    ///
    /// The source gives two inconsistent forms of this formula; SPEC §3
    /// chooses this one and so do we:
    /// - if δ_{k−1}·RTT_min ≥ cwnd (the pipe holds the whole window: no
    ///   congestion), T_k = T_min, the ACK inter-arrival time Δt_k;
    /// - otherwise T_k = RTT·(cwnd − δ_{k−1}·RTT_min)/cwnd, kept within
    ///   [T_min, RTT] (T_min wins when Δt_k > RTT, after an idle gap).
    ///
    /// RTT is the sender's SRTT, or its last sample before SRTT exists; with
    /// no RTT at all T_k = T_min. Before the first estimate δ_{k−1} is taken
    /// as 0 (so T_k = RTT), and without RTT_min the product is taken as 0.
    fn sampling_interval(&self, cwnd: u64, t_min: Dur) -> Dur {
        let Some(rtt) = self.rtt else {
            return t_min;
        };
        let pipe = match (self.ere, self.min_rtt) {
            (Some(ere), Some(rtt_min)) => bytes_in(ere, rtt_min),
            _ => 0.0,
        };
        let cwnd = cwnd as f64;
        if pipe >= cwnd {
            return t_min;
        }
        let t = Dur((rtt.0 as f64 * (cwnd - pipe) / cwnd).round() as u64);
        t.min(rtt).max(t_min)
    }

    /// Bytes counted by ACKs that arrived after `start` (exclusive).
    fn delivered_after(&self, start: Time) -> u64 {
        let i = self.history.partition_point(|&(t, _)| t <= start);
        let before = if i == 0 {
            self.pruned_total
        } else {
            self.history[i - 1].1
        };
        self.total - before
    }

    /// Drops ACKs older than 2·max(largest RTT used so far, τ). A window is
    /// at most one RTT long (or Δt_k, which never reaches behind t_{k−1}), so
    /// this stays exact unless the RTT jumps past twice anything seen before
    /// (and past 2τ) within one step. The τ floor keeps history while no RTT
    /// is known yet (e.g. Karn's rule after a retransmitted first segment),
    /// so the first RTT-long window is complete.
    fn prune(&mut self, now: Time) {
        let horizon = self.max_rtt.max(self.params.tau).saturating_mul(2);
        let keep_after = Time(now.0.saturating_sub(horizon.0));
        while let Some(&(t, cum)) = self.history.front() {
            if t >= keep_after {
                break;
            }
            self.pruned_total = cum;
            self.history.pop_front();
        }
    }
}

impl CongestionOps for Westwood {
    fn observe_ack(&mut self, s: &CcState, ack: &AckSample) {
        if !is_delivery_ack(ack) {
            return;
        }
        if ack.min_rtt.is_some() {
            self.min_rtt = ack.min_rtt;
        }
        if let Some(rtt) = ack.srtt.or(ack.rtt_sample) {
            self.rtt = Some(rtt);
            self.max_rtt = self.max_rtt.max(rtt);
        }
        let now = ack.now;
        let bytes = self.counter.delivered(ack, s.mss);
        self.total += bytes;
        self.history.push_back((now, self.total));

        let Some(prev) = self.last_ack else {
            // k = 0: no Δt yet; this ACK only enters later windows.
            self.last_ack = Some(now);
            return;
        };
        let dt = now.since(prev);
        if dt == Dur::ZERO {
            // Several ACKs at one instant: α = 1, δ is unchanged; their bytes
            // are in the history for the next sample.
            return;
        }
        self.last_ack = Some(now);

        // T_k from δ_{k−1}; the window (t_k − T_k, t_k] always holds this ACK.
        let t_k = self.sampling_interval(s.cwnd, dt);
        let bytes_in_window = match now.0.checked_sub(t_k.0) {
            Some(start) => self.delivered_after(Time(start)),
            // The window reaches back before t = 0: every ACK so far is in it
            // (and nothing was pruned, as now < T_k ≤ RTT).
            None => self.total,
        };
        let s_k = rate_bytes_per_s(bytes_in_window, t_k);

        // δ_k = α_k·δ_{k−1} + (1 − α_k)·s_k, written δ_{k−1} + (1 − α_k)(s_k − δ_{k−1})
        // so that a constant rate is a fixed point exactly. The first sample
        // initialises δ (as Linux tcp_westwood.c does with its first
        // estimate): starting from 0 with τ = 1 s would leave the ERE far
        // below the rate for seconds, and a loss then would set a needlessly
        // small ssthresh.
        self.ere = Some(match self.ere {
            None => s_k,
            Some(d) => d + (1.0 - self.alpha(dt)) * (s_k - d),
        });
        self.last_sample = Some(s_k);
        self.last_interval = Some(t_k);
        self.prune(now);
    }

    fn on_loss(&mut self, s: &mut CcState, _now: Time, flight_bytes: u64) {
        let est = self.ere.zip(self.min_rtt);
        westwood_loss(s, est, flight_bytes);
    }

    fn on_rto(&mut self, s: &mut CcState, _now: Time, flight_bytes: u64) {
        let est = self.ere.zip(self.min_rtt);
        westwood_rto(s, est, flight_bytes);
    }

    /// The ERE in bit/s.
    fn rate_estimate_bps(&self) -> Option<f64> {
        self.ere.map(|d| d * 8.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1460;

    fn ms(x: u64) -> Dur {
        Dur::from_millis(x)
    }

    fn at_ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    fn state(cwnd_segments: u64) -> CcState {
        CcState {
            cwnd: cwnd_segments * MSS,
            ssthresh: u64::MAX,
            mss: MSS,
        }
    }

    /// A new cumulative ACK of `acked` bytes at `now`.
    fn ack(now: Time, acked: u64, srtt: Option<Dur>, min_rtt: Option<Dur>) -> AckSample {
        AckSample {
            now,
            acked_bytes: acked,
            is_dupack: false,
            sacked_bytes: 0,
            rtt_sample: srtt,
            srtt,
            min_rtt,
            flight_bytes: 0,
        }
    }

    fn dupack(now: Time, srtt: Option<Dur>, min_rtt: Option<Dur>) -> AckSample {
        AckSample {
            is_dupack: true,
            acked_bytes: 0,
            ..ack(now, 0, srtt, min_rtt)
        }
    }

    fn rel_err(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    /// One segment every 10 ms (146 000 B/s) from t = 0 to `until_ms`, with no
    /// RTT known, so every T_k = Δt_k and every s_k is exactly the rate.
    fn fed_at_146_kbyte_per_s(until_ms: u64) -> Westwood {
        let mut w = Westwood::default();
        let s = state(1);
        for i in 0..=until_ms / 10 {
            w.observe_ack(&s, &ack(at_ms(10 * i), MSS, None, None));
        }
        w
    }

    #[test]
    fn westwood_estimate_converges_to_a_constant_ack_rate() {
        // 1460 B every 12 ms = 121 666.67 B/s = 973 333.3 bit/s. SRTT 0.5 s and
        // RTT_min 0.5 s from the start: the first sample has no δ_{k−1} and
        // uses T = RTT, whose window holds only the two ACKs so far
        // (2920 B / 0.5 s = 5840 B/s); the filter must climb from there.
        let mut w = Westwood::default();
        let s = state(2);
        let (srtt, rtt_min) = (Some(ms(500)), Some(ms(500)));
        w.observe_ack(&s, &ack(at_ms(0), MSS, srtt, rtt_min));
        w.observe_ack(&s, &ack(at_ms(12), MSS, srtt, rtt_min));
        assert_eq!(w.last_sampling_interval(), Some(ms(500)));
        assert!(rel_err(w.ere_bytes_per_s().unwrap(), 5840.0) < 1e-12);
        // About 36 s of ACKs: the error decays as ((2τ−Δt)/(2τ+Δt))^k, 1e-14 after 3000.
        for i in 2..3000 {
            w.observe_ack(&s, &ack(at_ms(12 * i), MSS, srtt, rtt_min));
        }
        let rate = 1460.0 / 0.012;
        assert!(rel_err(w.ere_bytes_per_s().unwrap(), rate) < 1e-9);
        assert!(rel_err(w.rate_estimate_bps().unwrap(), 973_333.333_333_3) < 1e-9);
        // Uncongested (δ·RTT_min = 60 833 B ≥ cwnd = 2920 B): T_k = Δt_k.
        assert_eq!(w.last_sampling_interval(), Some(ms(12)));
    }

    #[test]
    fn westwood_filter_weights_the_new_sample_by_one_minus_alpha() {
        // τ = 1 s. ACKs at 0 and 0.5 s (no RTT known: T_k = Δt_k):
        // s_1 = 1460 B / 0.5 s = 2920 B/s initialises δ_1.
        let mut w = Westwood::default();
        let s = state(1);
        w.observe_ack(&s, &ack(at_ms(0), MSS, None, None));
        w.observe_ack(&s, &ack(at_ms(500), MSS, None, None));
        assert_eq!(w.ere_bytes_per_s(), Some(2920.0));
        // Δt = 0.25 s: α = (2 − 0.25)/(2 + 0.25) = 7/9. A delayed ACK of two
        // segments: s_2 = 2920 B / 0.25 s = 11 680 B/s.
        // δ_2 = 7/9·2920 + 2/9·11 680 = 43 800/9 = 4866.67 B/s.
        assert!(rel_err(w.alpha(ms(250)), 7.0 / 9.0) < 1e-15);
        w.observe_ack(&s, &ack(at_ms(750), 2 * MSS, None, None));
        assert_eq!(w.last_sample_bytes_per_s(), Some(11_680.0));
        assert!(rel_err(w.ere_bytes_per_s().unwrap(), 43_800.0 / 9.0) < 1e-12);
    }

    #[test]
    fn westwood_filter_forgets_the_old_estimate_after_a_gap_longer_than_two_tau() {
        // Δt = 3 s > 2τ = 2 s: α would be (2 − 3)/(2 + 3) = −0.2; clamped to 0.
        let mut w = Westwood::default();
        assert_eq!(w.alpha(Dur::from_secs(3)), 0.0);
        let s = state(1);
        w.observe_ack(&s, &ack(at_ms(0), MSS, None, None));
        w.observe_ack(&s, &ack(at_ms(10), MSS, None, None));
        assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
        w.observe_ack(&s, &ack(at_ms(3010), 3 * MSS, None, None));
        // δ = s = 4380 B / 3 s = 1460 B/s.
        assert_eq!(w.ere_bytes_per_s(), Some(1460.0));
    }

    #[test]
    fn westwood_samples_over_a_shortened_rtt_when_congested() {
        // δ = 146 000 B/s exactly, RTT_min = 0.25 s: δ·RTT_min = 36 500 B = 25 segments.
        // cwnd = 50 segments = 73 000 B > 36 500: congested.
        // T = SRTT·(73 000 − 36 500)/73 000 = 0.4 s · 1/2 = 200 ms.
        let mut w = fed_at_146_kbyte_per_s(1000);
        assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
        let (srtt, rtt_min) = (Some(ms(400)), Some(ms(250)));
        w.observe_ack(&state(50), &ack(at_ms(1010), MSS, srtt, rtt_min));
        assert_eq!(w.last_sampling_interval(), Some(ms(200)));
        // (t − 200 ms, t] holds the 20 ACKs at t, t − 10, …, t − 190 ms:
        // 29 200 B / 0.2 s = 146 000 B/s, the true rate.
        assert_eq!(w.last_sample_bytes_per_s(), Some(146_000.0));
        assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
    }

    #[test]
    fn westwood_samples_every_ack_when_the_pipe_holds_the_window() {
        // δ·RTT_min = 36 500 B ≥ cwnd = 20 segments = 29 200 B: T = T_min = Δt = 10 ms.
        let mut w = fed_at_146_kbyte_per_s(1000);
        let (srtt, rtt_min) = (Some(ms(400)), Some(ms(250)));
        w.observe_ack(&state(20), &ack(at_ms(1010), MSS, srtt, rtt_min));
        assert_eq!(w.last_sampling_interval(), Some(ms(10)));
        // Exactly at the boundary (cwnd = 36 500 B = δ·RTT_min) it is still T_min.
        let mut w = fed_at_146_kbyte_per_s(1000);
        w.observe_ack(&state(25), &ack(at_ms(1010), MSS, srtt, rtt_min));
        assert_eq!(w.last_sampling_interval(), Some(ms(10)));
    }

    #[test]
    fn westwood_keeps_the_sampling_interval_within_t_min_and_rtt() {
        let (srtt, rtt_min) = (Some(ms(400)), Some(ms(250)));
        // cwnd = 36 600 B, barely above δ·RTT_min = 36 500 B:
        // T = 0.4 s · 100/36 600 = 1.09 ms < T_min = 10 ms → 10 ms.
        let mut w = fed_at_146_kbyte_per_s(1000);
        let s = CcState {
            cwnd: 36_600,
            ..state(1)
        };
        w.observe_ack(&s, &ack(at_ms(1010), MSS, srtt, rtt_min));
        assert_eq!(w.last_sampling_interval(), Some(ms(10)));
        // An ACK after 0.6 s of silence (Δt > RTT = 0.4 s): T = T_min = 600 ms.
        let mut w = fed_at_146_kbyte_per_s(1000);
        w.observe_ack(&state(50), &ack(at_ms(1600), MSS, srtt, rtt_min));
        assert_eq!(w.last_sampling_interval(), Some(ms(600)));
        // A huge cwnd: T = 0.4 s · (1 − 36 500/2⁴⁰) = 400 ms − 13.28 ns, rounded to the ns.
        let mut w = fed_at_146_kbyte_per_s(1000);
        let s = CcState {
            cwnd: 1 << 40,
            ..state(1)
        };
        w.observe_ack(&s, &ack(at_ms(1010), MSS, srtt, rtt_min));
        assert_eq!(w.last_sampling_interval(), Some(Dur(399_999_987)));
        // No estimate yet (δ_{k−1} taken as 0): T = RTT exactly.
        let mut w = Westwood::default();
        w.observe_ack(&state(50), &ack(at_ms(0), MSS, srtt, rtt_min));
        w.observe_ack(&state(50), &ack(at_ms(10), MSS, srtt, rtt_min));
        assert_eq!(w.last_sampling_interval(), Some(ms(400)));
    }

    #[test]
    fn westwood_counts_a_cumulative_ack_after_three_dupacks_only_for_the_remainder() {
        // Segment 2 is lost; 3, 4 and 5 arrive (3 DUPACKs, 1460 B each); the
        // retransmitted 2 then draws a cumulative ACK for 2–5 (5840 B), of
        // which 5840 − 4380 = 1460 B were not counted before.
        let mut c = DeliveryCounter::default();
        assert_eq!(c.delivered(&ack(at_ms(0), MSS, None, None), MSS), 1460);
        for i in 1..=3 {
            assert_eq!(c.delivered(&dupack(at_ms(i), None, None), MSS), 1460);
        }
        assert_eq!(c.dupack_credit(), 4380);
        assert_eq!(c.delivered(&ack(at_ms(4), 4 * MSS, None, None), MSS), 1460);
        assert_eq!(c.dupack_credit(), 0);
        // A delayed ACK afterwards counts all it covers.
        assert_eq!(c.delivered(&ack(at_ms(5), 2 * MSS, None, None), MSS), 2920);
    }

    #[test]
    fn westwood_carries_dupack_credit_over_partial_acks_floored_at_zero() {
        // 3 DUPACKs (4380 B credit), then NewReno partial ACKs of 1, 2 and 3 segments.
        let mut c = DeliveryCounter::default();
        for i in 0..3 {
            c.delivered(&dupack(at_ms(i), None, None), MSS);
        }
        assert_eq!(c.delivered(&ack(at_ms(3), MSS, None, None), MSS), 0);
        assert_eq!(c.dupack_credit(), 2920);
        assert_eq!(c.delivered(&ack(at_ms(4), 2 * MSS, None, None), MSS), 0);
        assert_eq!(c.dupack_credit(), 0);
        assert_eq!(c.delivered(&ack(at_ms(5), 3 * MSS, None, None), MSS), 4380);
    }

    #[test]
    fn westwood_samples_dupacks_as_one_segment_each_and_not_twice() {
        // ACKs every 10 ms, no RTT (T = Δt): each sample is what that ACK counted.
        let mut w = fed_at_146_kbyte_per_s(100);
        let s = state(1);
        for i in 1..=3 {
            w.observe_ack(&s, &dupack(at_ms(100 + 10 * i), None, None));
            assert_eq!(w.last_sample_bytes_per_s(), Some(146_000.0));
        }
        // Cumulative ACK of 4 segments (the retransmission plus the 3 reported): 1 is new.
        w.observe_ack(&s, &ack(at_ms(140), 4 * MSS, None, None));
        assert_eq!(w.last_sample_bytes_per_s(), Some(146_000.0));
        assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
    }

    #[test]
    fn westwood_ignores_window_updates_and_merges_acks_at_one_instant() {
        let mut w = fed_at_146_kbyte_per_s(100);
        let s = state(1);
        // A pure window update: no delivery, no sample.
        w.observe_ack(&s, &ack(at_ms(105), 0, None, None));
        assert_eq!(w.last_sampling_interval(), Some(ms(10)));
        // Two ACKs at t = 110 ms: the second leaves δ unchanged (α = 1) ...
        w.observe_ack(&s, &ack(at_ms(110), MSS, None, None));
        w.observe_ack(&s, &ack(at_ms(110), MSS, None, None));
        assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
        // ... but its bytes are in the next RTT-long window: SRTT = 40 ms,
        // RTT_min = 10 ms, cwnd 4 segments > δ·RTT_min = 1 segment:
        // T = 40 ms·(4 − 1)/4 = 30 ms; (90, 120] holds 100, 110, 110, 120 = 4 segments.
        let rtt = (Some(ms(40)), Some(ms(10)));
        w.observe_ack(&state(4), &ack(at_ms(120), MSS, rtt.0, rtt.1));
        assert_eq!(w.last_sampling_interval(), Some(ms(30)));
        let s_k = w.last_sample_bytes_per_s().unwrap();
        assert!(rel_err(s_k, 4.0 * 1460.0 / 0.03) < 1e-12);
    }

    #[test]
    fn westwood_sets_ssthresh_from_estimate_after_three_dupacks() {
        // ERE = 146 000 B/s, RTT_min = 0.25 s: ERE·RTT_min = 36 500 B = 25 segments.
        let mut w = fed_at_146_kbyte_per_s(1000);
        w.observe_ack(
            &state(20),
            &ack(at_ms(1010), MSS, Some(ms(400)), Some(ms(250))),
        );
        assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
        // cwnd 50 segments > ssthresh: cut to ssthresh (not to flight/2).
        let mut s = state(50);
        w.on_loss(&mut s, at_ms(1010), 50 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (36_500, 36_500));
        // cwnd 20 segments ≤ ssthresh: kept.
        let mut s = state(20);
        w.on_loss(&mut s, at_ms(1010), 20 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (36_500, 29_200));
    }

    #[test]
    fn westwood_rounds_ssthresh_down_to_whole_segments() {
        // 121 666.67 B/s × 0.5 s = 60 833 B = 41.67 segments → 41 × 1460 = 59 860 B.
        assert_eq!(ssthresh_from_rate(1460.0 / 0.012, ms(500), MSS), 59_860);
    }

    #[test]
    fn westwood_restarts_from_one_segment_with_ssthresh_from_estimate_after_rto() {
        let mut w = fed_at_146_kbyte_per_s(1000);
        w.observe_ack(
            &state(20),
            &ack(at_ms(1010), MSS, Some(ms(400)), Some(ms(250))),
        );
        let mut s = state(50);
        w.on_rto(&mut s, at_ms(2000), 50 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (36_500, MSS));
    }

    #[test]
    fn westwood_floors_ssthresh_at_two_segments() {
        // ERE = 1460 B/s (one segment per second), RTT_min = 0.25 s: 0.25 segment → 2 segments.
        let mut w = Westwood::default();
        let s = state(1);
        w.observe_ack(&s, &ack(at_ms(0), MSS, None, Some(ms(250))));
        w.observe_ack(&s, &ack(at_ms(1000), MSS, None, Some(ms(250))));
        assert_eq!(w.ere_bytes_per_s(), Some(1460.0));
        let mut s = state(10);
        w.on_rto(&mut s, at_ms(2000), 10 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (2 * MSS, MSS));
        let mut s = state(10);
        w.on_loss(&mut s, at_ms(2000), 10 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (2 * MSS, 2 * MSS));
    }

    #[test]
    fn westwood_falls_back_to_half_the_flight_before_any_estimate() {
        let mut w = Westwood::default();
        assert_eq!(w.rate_estimate_bps(), None);
        let mut s = state(10);
        w.on_loss(&mut s, at_ms(0), 10 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (5 * MSS, 5 * MSS));
        let mut s = state(10);
        w.on_rto(&mut s, at_ms(0), 3 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (2 * MSS, MSS));
        // An estimate but no RTT_min yet: still the fallback.
        let mut w = fed_at_146_kbyte_per_s(100);
        assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
        let mut s = state(10);
        w.on_loss(&mut s, at_ms(200), 8 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (4 * MSS, 4 * MSS));
    }

    #[test]
    fn westwood_grows_the_window_like_reno() {
        let mut w = Westwood::default();
        let mut s = CcState {
            cwnd: 2 * MSS,
            ssthresh: 4 * MSS,
            mss: MSS,
        };
        w.on_ack(&mut s, &ack(at_ms(0), MSS, None, None));
        assert_eq!(s.cwnd, 3 * MSS);
        s.cwnd = 10 * MSS;
        w.on_ack(&mut s, &ack(at_ms(1), MSS, None, None));
        assert_eq!(s.cwnd, 10 * MSS + MSS / 10);
    }

    #[test]
    fn westwood_prunes_history_without_changing_samples() {
        // 100 s of ACKs every 10 ms, SRTT 400 ms, τ = 1 s: history stays
        // 2·max(RTT, τ) = 2 s long, and every sample still equals a count
        // over all ACKs ever sent.
        let mut w = Westwood::default();
        let (srtt, rtt_min) = (Some(ms(400)), Some(ms(250)));
        for i in 0..10_000u64 {
            let now = 10 * i;
            w.observe_ack(&state(50), &ack(at_ms(now), MSS, srtt, rtt_min));
            if i == 0 {
                continue;
            }
            let t_k = w.last_sampling_interval().unwrap().0;
            let start_ns = at_ms(now).0 as i128 - t_k as i128;
            // Windows are ≤ 400 ms: the last 100 ACKs (1 s) hold every candidate.
            let n = (i.saturating_sub(100)..=i)
                .filter(|j| at_ms(10 * j).0 as i128 > start_ns)
                .count() as u64;
            let expected = rate_bytes_per_s(n * MSS, Dur(t_k));
            assert_eq!(w.last_sample_bytes_per_s(), Some(expected), "at {now} ms");
        }
        assert!(w.history.len() <= 201, "history len {}", w.history.len());
        // The fixed point δ = 20 segments / T(δ) is a double root at 146 000 B/s
        // (T = 200 ms), approached from above: T stays a little under 200 ms.
        let t_k = w.last_sampling_interval().unwrap();
        assert!(t_k <= ms(200) && t_k > ms(199), "{t_k}");
        assert!(rel_err(w.ere_bytes_per_s().unwrap(), 146_000.0) < 1e-3);
    }

    #[test]
    fn westwood_params_reject_a_zero_tau() {
        assert!(WestwoodParams { tau: Dur::ZERO }.validate().is_err());
        assert!(WestwoodParams::default().validate().is_ok());
    }
}
