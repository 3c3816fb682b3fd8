//! TCP Westwood with ABSE (Adaptive Bandwidth Share Estimation).
//!
//! Westwood with ABSE, as the E1 study (Palazzi et al., WPC 2005) uses it. Sources: R. Wang, M. Valla, M. Y. Sanadidi,
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
//! Helpers shared with Westwood+ (`westwood_plus.rs`): [`DeliveryCounter`]
//! (what an ACK reports delivered) and [`westwood_loss`] / [`westwood_rto`]
//! (the window rules).
//!
//! Why the filter's input is the trapezoid of the last two samples, and how
//! the alternatives behave on bursty ACKs, is `westwood/design.md`,
//! included here:
//!
#![doc = include_str!("westwood/design.md")]

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::{AckSample, CcState, CongestionOps};
use crate::engine::time::{Dur, Time, NS_PER_S};

/// Settings of the ABSE estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WestwoodParams {
    /// Filter constant τ of the ERE low-pass filter: fixed, a few RTTs (the
    /// studies leave its value open, so it is documented here).
    ///
    /// Default 1 s. A GEO hop's round trip is 0.50–0.56 s (ground–satellite
    /// ≈ 0.12–0.14 s each way, Luglio et al., IEEE JSAC 2004), so τ = 1 s averages the rate over
    /// about two round trips of the studies' paths: long enough that the ERE
    /// is not the ACK burst of the last window (which after a loss is what
    /// ssthresh is set from), short enough to follow a rate change (ACM mode
    /// switch, a new competing flow) within a few seconds — the filter's step
    /// response reaches 1 − 1/e after τ. Mascolo et al. (2001) likewise use a
    /// sub-second-to-second cut-off for paths of 0.1–0.5 s RTT; ABSE (Wang et
    /// al. 2002) keeps τ fixed and adapts the sampling interval instead.
    pub tau: Dur,
    /// What the filter takes as its input over (t_{k−1}, t_k]. Default
    /// [`FilterInput::Trapezoid`]; see the module documentation.
    pub input: FilterInput,
}

/// The input of the ERE filter δ_k = α_k·δ_{k−1} + (1 − α_k)·u_k over
/// (t_{k−1}, t_k]. See the module documentation for how they differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FilterInput {
    /// u_k = (s_k + s_{k−1})/2, the Tustin discretisation that α_k belongs to
    /// (Mascolo et al. 2001; ns-2 TCPW). The first sample, which has
    /// no predecessor, stands for both ends.
    #[default]
    Trapezoid,
    /// u_k = s_k, the E1 study's literal formula. Biased low, below the sender's
    /// throughput, when ACKs come in bursts separated by silences longer than
    /// T_k; kept to compare against.
    LatestSample,
    /// u_k = the mean over (t_{k−1}, t_k] of the windowed rate, each earlier
    /// ACK counted for the T_j it was sampled with from its arrival on: the
    /// exact integral of the ABSE sample, an unbiased throughput estimate.
    IntervalMean,
}

impl Default for WestwoodParams {
    fn default() -> Self {
        WestwoodParams {
            tau: Dur::from_secs(1),
            input: FilterInput::Trapezoid,
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

/// What an ACK reports delivered, in bytes (Palazzi et al., WPC 2005; Mascolo et al. 2001,
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
/// ACK whose bytes were all credited; here only what was not already counted
/// is credited, as the E1 study's description reads. SACK blocks are not used: the E1 study
/// counts one segment per DUPACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct DeliveryCounter {
    /// Bytes credited to DUPACKs and not yet covered by a cumulative ACK.
    dupack_credit: u64,
}

impl DeliveryCounter {
    /// Bytes `ack` reports delivered that were not counted before.
    pub(super) fn delivered(&mut self, ack: &AckSample, mss: u64) -> u64 {
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
/// Palazzi et al., WPC 2005 / Mascolo et al. 2001: ssthresh = ERE·RTT_min / segment size, a
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

/// 3 DUPACKs (Mascolo et al. 2001, §3.1; Palazzi et al., WPC 2005): ssthresh = ERE·RTT_min;
/// if cwnd > ssthresh then cwnd = ssthresh (else cwnd is kept). The same
/// cwnd rule is used with the Reno fallback ssthresh.
pub(super) fn westwood_loss(s: &mut CcState, estimate: Option<(f64, Dur)>, flight_bytes: u64) {
    s.ssthresh = westwood_ssthresh(s, estimate, flight_bytes);
    if s.cwnd > s.ssthresh {
        s.cwnd = s.ssthresh;
    }
}

/// RTO (Mascolo et al. 2001, §3.1; Palazzi et al., WPC 2005): cwnd = 1 segment,
/// ssthresh = max(2 segments, ERE·RTT_min).
pub(super) fn westwood_rto(s: &mut CcState, estimate: Option<(f64, Dur)>, flight_bytes: u64) {
    s.ssthresh = westwood_ssthresh(s, estimate, flight_bytes);
    s.cwnd = s.mss;
}

/// The ABSE windowed rate as a function of time, for
/// [`FilterInput::IntervalMean`]: an ACK counted at t_j with sampling interval
/// T_j adds bytes_j/T_j to the rate over [t_j, t_j + T_j), the time it stays
/// in the window (t − T_j, t]. With a constant T this is bytes in
/// (t − T, t] / T at every t, the E1 study's sample taken continuously.
#[derive(Clone, Debug, Default)]
struct WindowedRate {
    /// Open windows, earliest close first: (t_j + T_j, bytes, T_j), in ns.
    open: BinaryHeap<Reverse<(u64, u64, u64)>>,
    /// Sum of bytes_j/T_j over the open windows, bytes per second.
    rate: f64,
}

impl WindowedRate {
    /// Counts `bytes` at `at` for `span` (> 0).
    fn open(&mut self, at: Time, bytes: u64, span: Dur) {
        if bytes == 0 {
            return;
        }
        self.open.push(Reverse((at.0 + span.0, bytes, span.0)));
        self.rate += rate_bytes_per_s(bytes, span);
    }

    /// Mean rate over (from, to], from < to, for windows opened at or before
    /// `from`; closes the windows that end by `to`.
    fn mean_over(&mut self, from: Time, to: Time) -> f64 {
        let mut area = 0.0; // bytes/s × ns
        let mut at = from.0;
        while let Some(&Reverse((end, bytes, span))) = self.open.peek() {
            if end > to.0 {
                break;
            }
            self.open.pop();
            area += self.rate * end.saturating_sub(at) as f64;
            at = at.max(end);
            self.rate -= rate_bytes_per_s(bytes, Dur(span));
        }
        if self.open.is_empty() {
            // Clear the rounding left by adding and removing the same terms.
            self.rate = 0.0;
        }
        area += self.rate * (to.0 - at) as f64;
        area / (to.0 - from.0) as f64
    }
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
    /// s_k of the last sample (s_{k−1} of the next), bytes per second.
    last_sample: Option<f64>,
    /// T_k of the last sample.
    last_interval: Option<Dur>,
    /// u_k, the last filter input, bytes per second.
    last_input: Option<f64>,
    /// The windowed rate over time, kept only for [`FilterInput::IntervalMean`].
    windowed: WindowedRate,
    /// Bytes of the ACK(s) at t_0, whose window opens once T_1 is known
    /// (used by IntervalMean).
    first_bytes: u64,
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
            last_input: None,
            windowed: WindowedRate::default(),
            first_bytes: 0,
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

    /// u_k, the input the filter took at the last sample, bytes per second.
    pub fn last_filter_input_bytes_per_s(&self) -> Option<f64> {
        self.last_input
    }

    /// Filter weight α_k = (2τ − Δt_k)/(2τ + Δt_k) (ABSE; the Tustin
    /// discretisation of a first-order low-pass filter with time constant τ),
    /// clamped to 0 when Δt_k > 2τ, where the formula would go negative:
    /// after so long a gap the old estimate carries no weight (with
    /// [`FilterInput::Trapezoid`] δ_k is then (s_k + s_{k−1})/2, the limit of
    /// the formula as Δt_k → 2τ). In [0, 1) for Δt_k > 0.
    pub fn alpha(&self, dt: Dur) -> f64 {
        let two_tau = 2.0 * self.params.tau.0 as f64;
        let dt = dt.0 as f64;
        ((two_tau - dt) / (two_tau + dt)).max(0.0)
    }

    /// T_k, the ABSE sampling interval (Wang et al. 2002; Palazzi et al., WPC 2005).
    ///
    /// The source gives two inconsistent forms of this formula; the E1 study
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

        let exact = self.params.input == FilterInput::IntervalMean;
        let Some(prev) = self.last_ack else {
            // k = 0: no Δt yet; this ACK only enters later windows.
            self.last_ack = Some(now);
            self.first_bytes = bytes;
            return;
        };
        let dt = now.since(prev);
        if dt == Dur::ZERO {
            // Several ACKs at one instant: α = 1, δ is unchanged; their bytes
            // are in the history for the next sample (and in the windowed
            // rate with the T of the first of them).
            match self.last_interval {
                Some(t) if exact => self.windowed.open(now, bytes, t),
                Some(_) => {}
                None => self.first_bytes += bytes,
            }
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

        // δ_k = α_k·δ_{k−1} + (1 − α_k)·u_k (u_k: see FilterInput), written
        // δ_{k−1} + (1 − α_k)(u_k − δ_{k−1}) so that a constant rate is a fixed
        // point exactly. The first input initialises δ (as Linux
        // tcp_westwood.c does with its first estimate): starting from 0 with
        // τ = 1 s would leave the ERE far below the rate for seconds, and a
        // loss then would set a needlessly small ssthresh.
        let input = match self.params.input {
            FilterInput::Trapezoid => 0.5 * (s_k + self.last_sample.unwrap_or(s_k)),
            FilterInput::LatestSample => s_k,
            FilterInput::IntervalMean => {
                if self.last_interval.is_none() {
                    // k = 1: the first ACK's window opens at t_0 with T_1.
                    self.windowed.open(prev, self.first_bytes, t_k);
                }
                let mean = self.windowed.mean_over(prev, now);
                self.windowed.open(now, bytes, t_k);
                mean
            }
        };
        self.ere = Some(match self.ere {
            None => input,
            Some(d) => d + (1.0 - self.alpha(dt)) * (input - d),
        });
        self.last_sample = Some(s_k);
        self.last_input = Some(input);
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
mod tests;
