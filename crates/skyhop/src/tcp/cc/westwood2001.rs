//! TCP Westwood as the 2001 papers and UCLA's ns-2 agent define it: the
//! Westwood the on-board split-proxy study (Luglio et al., IEEE JSAC 2004)
//! cites — C. Casetti, M. Gerla, S. Mascolo, M. Y. Sanadidi, R. Wang, "TCP
//! Westwood: Bandwidth Estimation for Enhanced Transport over Wireless
//! Links", ACM MobiCom 2001 — as the `Agent/TCP/WestwoodNR` agent of ns-2
//! (UCLA, tcp-w-nr.cc, 2001) runs it over ns-2's NewReno. Not the adaptive
//! estimator (ABSE, Wang et al. 2002) of `westwood.rs`, which the HAPS
//! study uses.
//!
//! Per ACK (the agent's `bwe_computation`, before NewReno sees the ACK):
//!
//! - the segments the ACK reports delivered, `cumul_ack` (the paper's
//!   `AckedCount`): a duplicate ACK counts one and is remembered
//!   (`unaccounted_`); a cumulative ACK of more than one segment counts
//!   only what the remembered duplicates did not (at least one); and no
//!   ACK counts more than two segments (the agent's cap: more means an
//!   ACK was lost on the way back);
//! - the sample b_k = cumul_ack · packetSize_ · 8 / (t_k − t_{k−1}), in
//!   bit/s, the interval from the previous ACK (from time 0 for the first);
//! - the filter b̂_k = 0.9047 · b̂_{k−1} + 0.0476 · (b_k + b_{k−1}) (the
//!   agent's default `filter_type_` 1: the paper's discretised low-pass
//!   filter with constant coefficients, α = 19/21, written with four
//!   digits), starting from 0;
//! - RTT_min: the smallest tick-granular RTT sample (`t_rtt_ · tcpTick_`),
//!   starting at 5 s.
//!
//! After three duplicate ACKs: ssthresh = ⌊max(2, b̂·RTT_min / (8 ·
//! packetSize_))⌋ segments and cwnd falls to max(2, b̂·RTT_min / (8 ·
//! packetSize_)) segments (not rounded) if it was larger. After a timeout:
//! the same ssthresh and cwnd = 2 segments. Window growth is Reno's.
//!
//! Two ACKs at one instant have no interval between them; the agent would
//! divide by zero. Here the second one's segments are carried to the next
//! ACK with an interval.

use super::{AckSample, CcState, CongestionOps};
use crate::engine::time::{Dur, Time};

/// The agent's filter weights (`filter_type_` 1).
const KEEP: f64 = 0.9047;
const TAKE: f64 = 0.0476;
/// The agent's `min_rtt_estimate` before any RTT sample.
const RTT_MIN_INIT: Dur = Dur(5_000_000_000);

/// TCP Westwood of 2001; see the module documentation.
#[derive(Clone, Debug)]
pub struct Westwood2001 {
    /// `current_bwe_`: b̂_k, bit/s.
    bwe: f64,
    /// `last_bwe_sample_`: b_{k−1}, bit/s.
    last_sample: f64,
    /// `unaccounted_`: segments credited to duplicate ACKs and not yet
    /// covered by a cumulative ACK.
    unaccounted: u64,
    /// `lastackrx_`: when the previous ACK arrived.
    last_ack_at: Time,
    /// `min_rtt_estimate`.
    rtt_min: Dur,
    /// Segments of ACKs at the instant of the previous one, not yet sampled.
    carried: u64,
}

impl Default for Westwood2001 {
    fn default() -> Self {
        Westwood2001 {
            bwe: 0.0,
            last_sample: 0.0,
            unaccounted: 0,
            last_ack_at: Time::ZERO,
            rtt_min: RTT_MIN_INIT,
            carried: 0,
        }
    }
}

impl Westwood2001 {
    /// b̂, bit/s.
    pub fn bwe_bps(&self) -> f64 {
        self.bwe
    }

    /// RTT_min as the agent keeps it.
    pub fn rtt_min(&self) -> Dur {
        self.rtt_min
    }

    /// Segments credited to duplicate ACKs not yet covered.
    pub fn unaccounted(&self) -> u64 {
        self.unaccounted
    }

    /// The paper's `AckedCount` with the agent's cap of two: segments this
    /// ACK counts as delivered.
    fn acked_count(&mut self, ack: &AckSample, mss: u64) -> u64 {
        let mut cumul = if ack.is_dupack {
            0
        } else {
            ack.acked_bytes.div_ceil(mss)
        };
        if cumul > 1 {
            if self.unaccounted >= cumul {
                self.unaccounted -= cumul;
                cumul = 1;
            } else {
                cumul -= self.unaccounted;
                self.unaccounted = 0;
            }
        }
        if cumul == 0 {
            self.unaccounted += 1;
            cumul = 1;
        }
        cumul.min(2)
    }

    /// max(2, b̂·RTT_min / (8 · packetSize_)), in segments (not rounded).
    fn window_segments(&self, mss: u64) -> f64 {
        (self.bwe * self.rtt_min.as_secs_f64() / (8.0 * mss as f64)).max(2.0)
    }
}

impl CongestionOps for Westwood2001 {
    fn observe_ack(&mut self, s: &CcState, ack: &AckSample) {
        if !ack.is_dupack && ack.acked_bytes == 0 {
            // A pure window update reports no delivery (ns-2's sinks send none).
            return;
        }
        if let Some(m) = ack.min_rtt {
            self.rtt_min = self.rtt_min.min(m);
        }
        let segments = self.acked_count(ack, s.mss) + self.carried;
        let interval = ack.now.since(self.last_ack_at);
        if interval == Dur::ZERO {
            self.carried = segments;
            return;
        }
        self.carried = 0;
        let sample = (segments * s.mss * 8) as f64 / interval.as_secs_f64();
        self.bwe = self.bwe * KEEP + (sample + self.last_sample) * TAKE;
        self.last_sample = sample;
        self.last_ack_at = ack.now;
    }

    fn on_loss(&mut self, s: &mut CcState, _now: Time, _flight_bytes: u64) {
        let w = self.window_segments(s.mss);
        s.ssthresh = w.floor() as u64 * s.mss;
        let cap = (w * s.mss as f64) as u64;
        if s.cwnd > cap {
            s.cwnd = cap;
        }
    }

    fn on_rto(&mut self, s: &mut CcState, _now: Time, _flight_bytes: u64) {
        s.ssthresh = self.window_segments(s.mss).floor() as u64 * s.mss;
        s.cwnd = 2 * s.mss;
    }

    fn rate_estimate_bps(&self) -> Option<f64> {
        Some(self.bwe)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

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

    fn ack(now_ms: u64, acked: u64, min_rtt: Option<Dur>) -> AckSample {
        AckSample {
            min_rtt,
            ..AckSample::new_data(at_ms(now_ms), acked)
        }
    }

    fn dupack(now_ms: u64) -> AckSample {
        AckSample {
            is_dupack: true,
            acked_bytes: 0,
            delivered_bytes: 0,
            ..ack(now_ms, 0, None)
        }
    }

    #[test]
    fn the_filter_takes_each_ack_sample_with_the_previous_one() {
        let mut w = Westwood2001::default();
        let s = state(10);
        // First ACK at 100 ms, one segment: b_1 = 8000 bit / 0.1 s = 80 000
        // bit/s (the interval runs from time 0); b̂_1 = 0.0476·80 000.
        w.observe_ack(&s, &ack(100, MSS, None));
        assert!((w.bwe_bps() - 3808.0).abs() < 1e-9);
        // One segment 10 ms later: b_2 = 800 000;
        // b̂_2 = 0.9047·3808 + 0.0476·(800 000 + 80 000) = 45 333.0976.
        w.observe_ack(&s, &ack(110, MSS, None));
        assert!((w.bwe_bps() - 45_333.097_6).abs() < 1e-6);
        // A steady 800 kbit/s: the fixed point is 0.0952/0.0953 of it (the
        // agent's four-digit weights sum to 0.9999).
        for k in 3..2000 {
            w.observe_ack(&s, &ack(100 + 10 * k, MSS, None));
        }
        let fixed = 800_000.0 * 0.0952 / 0.0953;
        assert!((w.bwe_bps() - fixed).abs() < 1e-6, "{}", w.bwe_bps());
    }

    #[test]
    fn duplicate_acks_count_one_segment_each_and_the_cumulative_ack_the_rest_capped_at_two() {
        let mut w = Westwood2001::default();
        let s = state(10);
        let mut counted = vec![];
        // Each ACK 10 ms after the last: b_k / 800 000 bit/s is its count.
        let mut feed = |w: &mut Westwood2001, a: AckSample| {
            w.observe_ack(&s, &a);
            counted.push((w.last_sample / 800_000.0).round() as u64);
        };
        feed(&mut w, ack(10, MSS, None)); // 1
        for t in [20, 30, 40] {
            feed(&mut w, dupack(t)); // 1 each, remembered
        }
        assert_eq!(w.unaccounted(), 3);
        // A partial ACK of 2 segments: 3 remembered cover it: counts 1.
        feed(&mut w, ack(50, 2 * MSS, None));
        assert_eq!(w.unaccounted(), 1);
        // An ACK of 5 segments: 5 - 1 = 4, capped at 2.
        feed(&mut w, ack(60, 5 * MSS, None));
        assert_eq!(w.unaccounted(), 0);
        // A delayed ACK of 2 segments counts 2; of 3 (one lost ACK) 2.
        feed(&mut w, ack(70, 2 * MSS, None));
        feed(&mut w, ack(80, 3 * MSS, None));
        assert_eq!(counted, vec![1, 1, 1, 1, 1, 2, 2, 2]);
    }

    #[test]
    fn three_duplicate_acks_set_ssthresh_from_the_estimate_and_cap_cwnd_unrounded() {
        let mut w = Westwood2001::default();
        // RTT_min from a 500 ms sample (below the initial 5 s).
        w.observe_ack(&state(10), &ack(100, MSS, Some(Dur::from_millis(500))));
        assert_eq!(w.rtt_min(), Dur::from_millis(500));
        // 124 000 bit/s · 0.5 s / 8000 bit = 7.75 segments: ssthresh 7,
        // cwnd 7750 B.
        w.bwe = 124_000.0;
        let mut s = state(20);
        w.on_loss(&mut s, Time::ZERO, 0);
        assert_eq!((s.ssthresh, s.cwnd), (7 * MSS, 7750));
        // cwnd below the estimate is kept.
        let mut s = state(5);
        w.on_loss(&mut s, Time::ZERO, 0);
        assert_eq!((s.ssthresh, s.cwnd), (7 * MSS, 5 * MSS));
        // A timeout: the same ssthresh, cwnd 2 segments.
        let mut s = state(20);
        w.on_rto(&mut s, Time::ZERO, 0);
        assert_eq!((s.ssthresh, s.cwnd), (7 * MSS, 2 * MSS));
        // A tiny estimate: both at 2 segments.
        w.bwe = 1000.0;
        let mut s = state(20);
        w.on_loss(&mut s, Time::ZERO, 0);
        assert_eq!((s.ssthresh, s.cwnd), (2 * MSS, 2 * MSS));
    }

    #[test]
    fn before_any_rtt_sample_rtt_min_is_five_seconds_and_acks_at_one_instant_are_carried() {
        let mut w = Westwood2001::default();
        let s = state(10);
        w.observe_ack(&s, &ack(100, MSS, None));
        assert_eq!(w.rtt_min(), Dur::from_secs(5));
        // Two ACKs at 200 ms: the second has no interval; its segment goes
        // into the next sample: at 210 ms, 2 segments over 10 ms.
        w.observe_ack(&s, &ack(200, MSS, None));
        let b = w.bwe_bps();
        w.observe_ack(&s, &ack(200, MSS, None));
        assert_eq!(w.bwe_bps(), b);
        w.observe_ack(&s, &ack(210, MSS, None));
        assert!((w.last_sample - 1_600_000.0).abs() < 1e-6);
        // A window update (nothing acknowledged, not a duplicate) is not a sample.
        let upd = AckSample {
            acked_bytes: 0,
            delivered_bytes: 0,
            ..ack(220, 0, None)
        };
        let b = w.bwe_bps();
        w.observe_ack(&s, &upd);
        assert_eq!(w.bwe_bps(), b);
    }
}
