//! TCP Westwood+: one bandwidth sample per RTT, EWMA with gain 7/8.
//!
//! Offered beside Westwood because the hybrid-network study (Palazzi et al.,
//! WPC 2005) also uses it. Source: L. A. Grieco,
//! S. Mascolo, "Performance evaluation and comparison of Westwood+, New Reno
//! and Vegas TCP congestion control", ACM CCR 34(2), 2004; A. Dell'Aera,
//! L. A. Grieco, S. Mascolo, "Linux 2.4 implementation of Westwood+ TCP with
//! rate-halving", ICC 2004.
//!
//! Westwood's ACK-by-ACK samples over-estimate under ACK compression;
//! Westwood+ instead counts the bytes ACKed over (at least) one RTT:
//! - bytes are counted as in Westwood: one segment per DUPACK, a cumulative
//!   ACK only for what the DUPACKs before it did not already count
//!   ([`DeliveryCounter`]);
//! - when at least one RTT (the sender's SRTT, or its last sample before
//!   SRTT exists) has elapsed since the last sample, the sample is
//!   b_k = bytes ACKed since then / time elapsed, and
//!   BWE_k = 7/8·BWE_{k−1} + 1/8·b_k;
//! - after 3 DUPACKs ssthresh = BWE·RTT_min (whole segments, at least 2) and
//!   cwnd = min(cwnd, ssthresh); after an RTO cwnd = 1 segment with the same
//!   ssthresh (as Westwood, [`westwood_loss`] / [`westwood_rto`]).
//!
//! Window growth is Reno's. The estimator runs on ACKs only: no timer (the
//! ns-3 version schedules its own, which STYLE.md asks us not to copy).

use super::westwood::{
    is_delivery_ack, rate_bytes_per_s, westwood_loss, westwood_rto, DeliveryCounter,
};
use super::{AckSample, CcState, CongestionOps};
use crate::engine::time::{Dur, Time};

/// Weight of the old estimate in the EWMA (Grieco & Mascolo 2004: 7/8).
const BWE_GAIN: f64 = 7.0 / 8.0;

/// TCP Westwood+. See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct WestwoodPlus {
    counter: DeliveryCounter,
    /// Start of the current measurement interval: the time of the last
    /// sample, or of the first ACK. Bytes of ACKs in (start, now] count.
    interval_start: Option<Time>,
    /// Bytes counted by ACKs since `interval_start`.
    interval_bytes: u64,
    /// BWE, bytes per second.
    bwe: Option<f64>,
    /// The last sample b_k, bytes per second.
    last_sample: Option<f64>,
    /// Samples taken so far.
    samples: u64,
    /// RTT_min as last reported by the sender.
    min_rtt: Option<Dur>,
}

impl WestwoodPlus {
    pub fn new() -> Self {
        Self::default()
    }

    /// The bandwidth estimate BWE in bytes per second (None before the
    /// first RTT-long interval has closed).
    pub fn bwe_bytes_per_s(&self) -> Option<f64> {
        self.bwe
    }

    /// The last sample b_k, bytes per second.
    pub fn last_sample_bytes_per_s(&self) -> Option<f64> {
        self.last_sample
    }

    /// Number of samples taken (one per RTT at most).
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

impl CongestionOps for WestwoodPlus {
    fn observe_ack(&mut self, s: &CcState, ack: &AckSample) {
        if !is_delivery_ack(ack) {
            return;
        }
        if ack.min_rtt.is_some() {
            self.min_rtt = ack.min_rtt;
        }
        let bytes = self.counter.delivered(ack, s.mss);
        let Some(start) = self.interval_start else {
            // The first ACK opens the first interval; what it ACKs was
            // delivered over an unknown time before it, so it is not counted.
            self.interval_start = Some(ack.now);
            return;
        };
        self.interval_bytes += bytes;
        let Some(rtt) = ack.srtt.or(ack.rtt_sample) else {
            return;
        };
        let elapsed = ack.now.since(start);
        if elapsed < rtt || elapsed == Dur::ZERO {
            return;
        }
        let b_k = rate_bytes_per_s(self.interval_bytes, elapsed);
        // BWE_k = 7/8·BWE_{k−1} + 1/8·b_k. The first sample initialises BWE
        // (as Linux tcp_westwood.c does): an EWMA started from 0 would need
        // about 8 RTTs — 4 s on a GEO path — to come within 1/e of the rate.
        self.bwe = Some(match self.bwe {
            None => b_k,
            Some(bwe) => BWE_GAIN * bwe + (1.0 - BWE_GAIN) * b_k,
        });
        self.last_sample = Some(b_k);
        self.samples += 1;
        self.interval_start = Some(ack.now);
        self.interval_bytes = 0;
    }

    fn on_loss(&mut self, s: &mut CcState, _now: Time, flight_bytes: u64) {
        westwood_loss(s, self.bwe.zip(self.min_rtt), flight_bytes);
    }

    fn on_rto(&mut self, s: &mut CcState, _now: Time, flight_bytes: u64) {
        westwood_rto(s, self.bwe.zip(self.min_rtt), flight_bytes);
    }

    /// BWE in bit/s.
    fn rate_estimate_bps(&self) -> Option<f64> {
        self.bwe.map(|b| b * 8.0)
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

    /// SRTT 100 ms and RTT_min 80 ms on every ACK.
    fn ack(now: Time, acked: u64) -> AckSample {
        AckSample {
            now,
            acked_bytes: acked,
            is_dupack: false,
            sacked_bytes: 0,
            rtt_sample: Some(ms(100)),
            srtt: Some(ms(100)),
            min_rtt: Some(ms(80)),
            flight_bytes: 0,
            delivered_bytes: acked,
            cwnd_limited: true,
            open: true,
        }
    }

    fn dupack(now: Time) -> AckSample {
        AckSample {
            is_dupack: true,
            ..ack(now, 0)
        }
    }

    /// ACKs of one segment every 10 ms from t = 0 up to `until_ms` (146 000 B/s).
    fn fed_one_rtt(until_ms: u64) -> WestwoodPlus {
        let mut w = WestwoodPlus::new();
        for i in 0..=until_ms / 10 {
            w.observe_ack(&state(10), &ack(at_ms(10 * i), MSS));
        }
        w
    }

    #[test]
    fn westwood_plus_takes_no_sample_before_one_rtt_has_elapsed() {
        // First ACK at 0 opens the interval; at 90 ms only 0.9 SRTT has passed.
        let w = fed_one_rtt(90);
        assert_eq!(w.samples(), 0);
        assert_eq!(w.rate_estimate_bps(), None);
    }

    #[test]
    fn westwood_plus_samples_the_bytes_acked_over_one_rtt() {
        // At 100 ms: the ACKs at 10, 20, …, 100 ms (10 segments) over 0.1 s.
        let w = fed_one_rtt(100);
        assert_eq!(w.samples(), 1);
        assert_eq!(w.bwe_bytes_per_s(), Some(146_000.0));
        assert_eq!(w.rate_estimate_bps(), Some(1_168_000.0));
    }

    #[test]
    fn westwood_plus_updates_only_once_per_rtt() {
        let mut w = fed_one_rtt(100);
        // Double the rate (2 segments per ACK) for the next RTT: no update until 200 ms.
        for t in (110..=190).step_by(10) {
            w.observe_ack(&state(10), &ack(at_ms(t), 2 * MSS));
            assert_eq!(w.samples(), 1, "at {t} ms");
            assert_eq!(w.bwe_bytes_per_s(), Some(146_000.0));
        }
        w.observe_ack(&state(10), &ack(at_ms(200), 2 * MSS));
        assert_eq!(w.samples(), 2);
        // b_2 = 20 segments / 0.1 s = 292 000 B/s;
        // BWE = 7/8·146 000 + 1/8·292 000 = 127 750 + 36 500 = 164 250 B/s.
        assert_eq!(w.last_sample_bytes_per_s(), Some(292_000.0));
        assert_eq!(w.bwe_bytes_per_s(), Some(164_250.0));
    }

    #[test]
    fn westwood_plus_follows_the_seven_eighths_ewma_exactly() {
        // Rate falls to zero-ish: one segment per RTT. Each sample is 14 600 B/s
        // and BWE_k = 7/8·BWE_{k−1} + 1/8·14 600, hand-iterated from 146 000.
        let mut w = fed_one_rtt(100);
        let mut expected = 146_000.0_f64;
        for k in 1..=5u64 {
            w.observe_ack(&state(10), &ack(at_ms(100 + 100 * k), MSS));
            expected = 0.875 * expected + 0.125 * 14_600.0;
            assert_eq!(w.samples(), 1 + k);
            assert!((w.bwe_bytes_per_s().unwrap() - expected).abs() < 1e-9);
        }
        // 146 000 → 129 575 → 115 203.125 → 102 627.734 → 91 624.268 → 81 996.234
        assert!((w.bwe_bytes_per_s().unwrap() - 81_996.234_130_859_38).abs() < 1e-6);
    }

    #[test]
    fn westwood_plus_measures_over_the_time_actually_elapsed() {
        // After an idle 250 ms (more than one RTT), the one ACK that ends it
        // closes the interval (100, 350]: 1460 B / 0.25 s = 5840 B/s.
        let mut w = fed_one_rtt(100);
        w.observe_ack(&state(10), &ack(at_ms(350), MSS));
        assert_eq!(w.last_sample_bytes_per_s(), Some(5840.0));
    }

    #[test]
    fn westwood_plus_credits_dupacks_once() {
        // Interval (100, 200]: ACKs at 110..150 (5 segments), 3 DUPACKs at
        // 160..180 (3 segments credited), then a cumulative ACK at 200 for
        // 4 segments of which 1 is new: 9 segments / 0.1 s = 131 400 B/s.
        let mut w = fed_one_rtt(100);
        for t in (110..=150).step_by(10) {
            w.observe_ack(&state(10), &ack(at_ms(t), MSS));
        }
        for t in (160..=180).step_by(10) {
            w.observe_ack(&state(10), &dupack(at_ms(t)));
        }
        w.observe_ack(&state(10), &ack(at_ms(200), 4 * MSS));
        assert_eq!(w.last_sample_bytes_per_s(), Some(131_400.0));
    }

    #[test]
    fn westwood_plus_sets_ssthresh_from_bwe_times_rtt_min_after_three_dupacks() {
        // BWE = 146 000 B/s, RTT_min = 80 ms: 11 680 B = 8 segments.
        let mut w = fed_one_rtt(100);
        let mut s = state(20);
        w.on_loss(&mut s, at_ms(100), 20 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (11_680, 11_680));
        let mut s = state(5);
        w.on_loss(&mut s, at_ms(100), 5 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (11_680, 5 * MSS));
        let mut s = state(20);
        w.on_rto(&mut s, at_ms(100), 20 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (11_680, MSS));
    }

    #[test]
    fn westwood_plus_falls_back_to_half_the_flight_before_any_sample() {
        let mut w = fed_one_rtt(50);
        let mut s = state(20);
        w.on_loss(&mut s, at_ms(50), 12 * MSS);
        assert_eq!((s.ssthresh, s.cwnd), (6 * MSS, 6 * MSS));
    }
}
