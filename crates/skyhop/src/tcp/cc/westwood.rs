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
//! # The filter input: (s_k + s_{k−1})/2, not s_k
//!
//! the E1 study writes the filter as δ_k = α_k·δ_{k−1} + (1 − α_k)·s_k with the
//! Tustin coefficient α_k = (2τ − Δt_k)/(2τ + Δt_k). The Tustin (bilinear)
//! discretisation of the low-pass filter τ·dδ/dt + δ = s(t) that this α_k
//! belongs to is δ_k = α_k·δ_{k−1} + (1 − α_k)·(s_k + s_{k−1})/2: the input
//! over (t_{k−1}, t_k] is the trapezoid of the samples at its two ends. That
//! is the filter of Mascolo et al. 2001 and of the ns-2 TCPW code of
//! the ABSE authors' group, and what this module uses by default
//! ([`FilterInput::Trapezoid`]). The E1 study's short form
//! ([`FilterInput::LatestSample`]) is kept as an option, and so is the exact
//! time-average of the windowed rate ([`FilterInput::IntervalMean`]).
//!
//! All three agree on a steady ACK stream. They differ when a window-limited
//! sender on an uncongested long path (E1: cwnd well below the 42-packet
//! pipe, random losses only) gets its window ACKed in a burst of W ACKs one
//! bottleneck packet time g apart (12 ms at 1 Mb/s), then nothing for a
//! silence G of most of the RTT P:
//!
//! - **LatestSample is biased low, below the sender's own throughput.** The
//!   filter weighs s_k by Δt_k as if it held over (t_{k−1}, t_k], but s_k
//!   counts only the ACKs in (t_k − T_k, t_k]. With T_k shorter than the
//!   silence, every byte of a burst has left the window before the next ACK
//!   samples it again, and the silence is represented only by the first ACK
//!   after it, whose window holds one segment: a burst of W segments counts
//!   as ≈ 1 + W(W − 1)·g/(2T_k) segments, about 3 of 10 for T_k = 0.28 s.
//!   In E1 the ERE sat at a quarter to a half of cwnd/RTT, so ssthresh =
//!   ERE·RTT_min cut the window harder than Reno's halving after each random
//!   loss, and the low ERE kept the congestion test δ_{k−1}·RTT_min ≥ cwnd
//!   false, so the estimator never left the branch that caused the bias.
//! - **Trapezoid** spreads each silence between the sample before it (the
//!   whole burst in the window) and the one after it. In the congested
//!   branch it recovers the throughput to first order, but for a silence
//!   longer than T_k it gives ≈ throughput·P/(2T_k): still high for
//!   T_k < P/2 and low above (about −30 % at T_k = 0.46 s with 10-segment
//!   bursts), exact again at T_k = P. In the uncongested branch (T_k = Δt_k, the
//!   original TCPW sample d_k/Δt_k) it interpolates from the burst rate d/g
//!   down to d/G across the silence, so the ERE settles at
//!   ≈ [(W − 2) + (g + G)²/(2gG)]·d/P: between the throughput (W·d/P) and
//!   the bottleneck rate d/g (≈ 580 kbit/s for 10 segments per 557 ms on a
//!   1 Mb/s path). That is the known "bandwidth estimate" behaviour of TCPW
//!   on bursty ACKs, which ABSE keeps for an uncongested path and replaces
//!   by RTT-scale windows under congestion.
//! - **IntervalMean** integrates the windowed rate exactly: each ACK stays in
//!   the window for the T_k it was sampled with, whether or not another ACK
//!   arrives to observe it, and the filter input over (t_{k−1}, t_k] is the
//!   mean of that rate over the interval. Every byte is counted exactly once,
//!   so the ERE is the throughput in both branches (T_k then only sets how
//!   much the input is smoothed before the filter). An ACK's bytes enter from
//!   the next ACK on (the input is causal), a lag of one ACK interval.
//!
//! The default follows the published filter (the E1 study's α_k is its
//! coefficient). IntervalMean is the exact reading of the same windowed
//! sample; on E1 it makes Westwood markedly less aggressive: after a random
//! loss ssthresh ≈ cwnd·RTT_min/RTT (the window is kept) instead of a slow
//! start towards ≈ 580 kbit/s × RTT_min. The tests feed both bursty patterns
//! to all three.
//!
//! Mascolo et al. also feed "virtual null samples" after τ/m of silence; ABSE
//! and the E1 study do not, and neither does this. With windowed samples a null
//! value is not what the window holds, and with a one-segment window (after
//! an RTO) the trapezoid through a null sample halves the estimate. The
//! price: after a long silence the sample from before it still enters the
//! trapezoid with weight ½ (see [`Westwood::alpha`]).
//!
//! Helpers shared with Westwood+ (`westwood_plus.rs`): [`DeliveryCounter`]
//! (what an ACK reports delivered) and [`westwood_loss`] / [`westwood_rto`]
//! (the window rules).

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

    fn with_input(input: FilterInput) -> Westwood {
        Westwood::new(WestwoodParams {
            input,
            ..WestwoodParams::default()
        })
    }

    #[test]
    fn westwood_filter_weights_the_trapezoid_of_the_last_two_samples_by_one_minus_alpha() {
        // Was `westwood_filter_weights_the_new_sample_by_one_minus_alpha`, which
        // expected the E1 study's short form u_k = s_k (kept below as LatestSample).
        // τ = 1 s. ACKs at 0 and 0.5 s (no RTT known: T_k = Δt_k):
        // s_1 = 1460 B / 0.5 s = 2920 B/s initialises δ_1.
        // Then Δt = 0.25 s: α = (2 − 0.25)/(2 + 0.25) = 7/9, and a delayed ACK
        // of two segments: s_2 = 2920 B / 0.25 s = 11 680 B/s.
        let feed = |w: &mut Westwood| {
            let s = state(1);
            w.observe_ack(&s, &ack(at_ms(0), MSS, None, None));
            w.observe_ack(&s, &ack(at_ms(500), MSS, None, None));
            assert_eq!(w.ere_bytes_per_s(), Some(2920.0));
            w.observe_ack(&s, &ack(at_ms(750), 2 * MSS, None, None));
            assert_eq!(w.last_sample_bytes_per_s(), Some(11_680.0));
        };
        let mut w = Westwood::default();
        assert!(rel_err(w.alpha(ms(250)), 7.0 / 9.0) < 1e-15);
        feed(&mut w);
        // u_2 = (11 680 + 2920)/2 = 7300: δ_2 = 7/9·2920 + 2/9·7300 = 35 040/9.
        assert_eq!(w.last_filter_input_bytes_per_s(), Some(7300.0));
        assert!(rel_err(w.ere_bytes_per_s().unwrap(), 35_040.0 / 9.0) < 1e-12);
        // The E1 study's short form: δ_2 = 7/9·2920 + 2/9·11 680 = 43 800/9.
        let mut w = with_input(FilterInput::LatestSample);
        feed(&mut w);
        assert!(rel_err(w.ere_bytes_per_s().unwrap(), 43_800.0 / 9.0) < 1e-12);
        // Interval mean: over (0.5, 0.75] only the ACK at 0.5 s is in the
        // window, counted at 1460 B / 0.5 s (its T); the delayed ACK enters
        // from its arrival on. δ_2 = 2920.
        let mut w = with_input(FilterInput::IntervalMean);
        feed(&mut w);
        assert_eq!(w.last_filter_input_bytes_per_s(), Some(2920.0));
        assert_eq!(w.ere_bytes_per_s(), Some(2920.0));
    }

    #[test]
    fn westwood_filter_forgets_the_old_estimate_after_a_gap_longer_than_two_tau() {
        // Δt = 3 s > 2τ = 2 s: α would be (2 − 3)/(2 + 3) = −0.2; clamped to 0,
        // so δ_{k−1} carries no weight and δ_k is the filter input itself.
        let feed = |w: &mut Westwood| {
            let s = state(1);
            w.observe_ack(&s, &ack(at_ms(0), MSS, None, None));
            w.observe_ack(&s, &ack(at_ms(10), MSS, None, None));
            assert_eq!(w.ere_bytes_per_s(), Some(146_000.0));
            w.observe_ack(&s, &ack(at_ms(3010), 3 * MSS, None, None));
            // s = 4380 B / 3 s = 1460 B/s.
            assert_eq!(w.last_sample_bytes_per_s(), Some(1460.0));
        };
        let mut w = Westwood::default();
        assert_eq!(w.alpha(Dur::from_secs(3)), 0.0);
        feed(&mut w);
        // The trapezoid still holds the sample from before the silence:
        // δ = (146 000 + 1460)/2. (This test expected 1460, the E1 study's short form.)
        assert_eq!(w.ere_bytes_per_s(), Some(73_730.0));
        let mut w = with_input(FilterInput::LatestSample);
        feed(&mut w);
        assert_eq!(w.ere_bytes_per_s(), Some(1460.0));
        // Interval mean: one segment over the 3 s.
        let mut w = with_input(FilterInput::IntervalMean);
        feed(&mut w);
        assert!(rel_err(w.ere_bytes_per_s().unwrap(), 1460.0 / 3.0) < 1e-12);
    }

    /// Average throughput of [`ten_acks_every_557_ms`], bit/s.
    const BURSTY_THROUGHPUT_BPS: f64 = 10.0 * 1460.0 * 8.0 / 0.557;

    /// A window-limited sender on an uncongested GEO path (E1 between losses):
    /// every RTT = RTT_min = 557 ms, 10 one-segment ACKs 12 ms apart (the
    /// packet time at 1 Mb/s), then silence; cwnd constant. Feeds 60 bursts
    /// and returns the ERE (bit/s) after each ACK of one more, and the last T_k.
    fn ten_acks_every_557_ms(w: &mut Westwood, cwnd_segments: u64) -> (Vec<f64>, Dur) {
        let rtt = (Some(ms(557)), Some(ms(557)));
        let mut last = Vec::new();
        for p in 0..=60 {
            last.clear();
            for i in 0..10 {
                let a = ack(at_ms(557 * p + 12 * i), MSS, rtt.0, rtt.1);
                w.observe_ack(&state(cwnd_segments), &a);
                last.extend(w.rate_estimate_bps());
            }
        }
        (last, w.last_sampling_interval().unwrap())
    }

    fn within(values: &[f64], lo: f64, hi: f64) -> bool {
        values.iter().all(|&v| v >= lo && v <= hi)
    }

    #[test]
    fn westwood_bursty_acks_on_an_uncongested_path_give_the_tcpw_bandwidth_estimate() {
        // cwnd = 10 segments = what is in flight. Throughput 209.7 kbit/s,
        // bottleneck 973.3 kbit/s (1460 B per 12 ms).
        let thr = BURSTY_THROUGHPUT_BPS;
        // Trapezoid: the ERE·RTT_min ≥ cwnd branch (T_k = T_min = Δt_k, the
        // TCPW sample d/Δt). Across each silence G = 557 − 108 = 449 ms it
        // interpolates from d/g down to d/G: per period the filter takes in
        // (W − 2)·d + d·(g + G)²/(2gG) = 27.7 segments for the 10 delivered,
        // i.e. ≈ 581 kbit/s, between throughput and bottleneck rate.
        let (ere, t_k) = ten_acks_every_557_ms(&mut Westwood::default(), 10);
        let g: f64 = 0.012;
        let gap = 0.557 - 9.0 * g;
        let derived = (8.0 + (g + gap).powi(2) / (2.0 * g * gap)) * 1460.0 * 8.0 / 0.557;
        assert!(rel_err(derived, 581_000.0) < 2e-3, "{derived}");
        assert!(within(&ere, 0.95 * derived, 1.05 * derived), "{ere:?}");
        assert_eq!(t_k, ms(12));
        // The E1 study's short form: the ERE is a quarter of the throughput, and stays
        // in the windowed branch (T_k ≈ 0.4 s) that causes it.
        let (ere, t_k) = ten_acks_every_557_ms(&mut with_input(FilterInput::LatestSample), 10);
        assert!(within(&ere, 0.0, 0.35 * thr), "{ere:?}");
        assert!(t_k > ms(300), "{t_k}");
        // Interval mean: the throughput, within the ±20 % the long window of
        // the first ACK after each silence makes it swing by.
        let (ere, _) = ten_acks_every_557_ms(&mut with_input(FilterInput::IntervalMean), 10);
        assert!(within(&ere, 0.8 * thr, 1.2 * thr), "{ere:?}");
    }

    #[test]
    fn westwood_counts_bursty_acks_across_the_silences_in_the_congested_branch() {
        // cwnd = 40 segments while 10 are sent per RTT (e.g. the receiver's
        // window holds the flight): ERE·RTT_min < cwnd, T_k ≈ 0.42–0.48 s,
        // shorter than the 449 ms silences.
        let thr = BURSTY_THROUGHPUT_BPS;
        let (ere, t_k) = ten_acks_every_557_ms(&mut with_input(FilterInput::IntervalMean), 40);
        assert!(t_k > ms(400) && t_k < ms(557), "{t_k}");
        assert!(within(&ere, 0.97 * thr, 1.03 * thr), "{ere:?}");
        // Trapezoid: for silences longer than T_k ≈ 0.46 s it takes in about
        // throughput·P/(2T_k), 0.62–0.72 of it: still low, though less so
        // than the E1 study's short form (about half).
        let (ere, t_k) = ten_acks_every_557_ms(&mut Westwood::default(), 40);
        assert!(t_k > ms(400) && t_k < ms(557), "{t_k}");
        assert!(within(&ere, 0.65 * thr, 0.8 * thr), "{ere:?}");
        let (ere, _) = ten_acks_every_557_ms(&mut with_input(FilterInput::LatestSample), 40);
        assert!(within(&ere, 0.0, 0.55 * thr), "{ere:?}");
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
        let zero = WestwoodParams {
            tau: Dur::ZERO,
            ..WestwoodParams::default()
        };
        assert!(zero.validate().is_err());
        assert!(WestwoodParams::default().validate().is_ok());
    }
}
