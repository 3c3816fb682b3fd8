//! CUBIC congestion control, RFC 9438 (I. Rhee, L. Xu, S. Ha, A. Zimmermann,
//! L. Eggert, R. Scheffenegger, 2023), with its Reno-friendly region
//! (section 4.3) and fast convergence (section 4.7). β_cubic = 0.7,
//! C = 0.4 (section 5.1-5.2). Windows are computed in segments (the RFC's
//! unit) and applied to the byte window; fractions carry over between ACKs.
//!
//! Slow start is the standard one of RFC 5681 (RFC 9438 section 4.10),
//! with HyStart++ (RFC 9406, `hystart.rs`) when `tcp.hystart` is on.

use super::hystart::HyStart;
use super::{AckSample, CcState, CongestionOps};
use crate::engine::time::Time;

/// RFC 9438 section 5.1: β_cubic.
pub(super) const BETA_CUBIC: f64 = 0.7;
/// RFC 9438 section 5.2: C.
pub(super) const C_CUBIC: f64 = 0.4;

#[derive(Clone, Debug)]
pub struct Cubic {
    /// W_max in segments: the window before the last reduction (section 4.2).
    w_max: f64,
    /// K in seconds (section 4.2, equation 2).
    k: f64,
    /// When the current congestion avoidance stage began (t = 0).
    epoch_start: Option<Time>,
    /// W_est in segments, the Reno-friendly estimate (section 4.3).
    w_est: f64,
    /// Fraction of a byte of window growth not yet applied.
    frac: f64,
    /// Growth by delivered bytes (RFC 3465), not per ACK.
    byte_counting: bool,
    /// HyStart++ (RFC 9406) over the initial slow start.
    hystart: Option<HyStart>,
}

impl Default for Cubic {
    fn default() -> Self {
        Cubic {
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            w_est: 0.0,
            frac: 0.0,
            byte_counting: false,
            hystart: None,
        }
    }
}

impl Cubic {
    /// CUBIC for a connection configured by `cfg` (byte counting).
    pub fn new(cfg: &crate::tcp::config::TcpConfig) -> Cubic {
        Cubic {
            byte_counting: cfg.byte_counting,
            hystart: cfg.hystart.then(|| HyStart::new(cfg.pacing)),
            ..Cubic::default()
        }
    }

    /// RFC 9438 equation 1: W_cubic(t) = C (t - K)^3 + W_max (segments).
    pub fn w_cubic(&self, t: f64) -> f64 {
        C_CUBIC * (t - self.k).powi(3) + self.w_max
    }
    pub fn w_max(&self) -> f64 {
        self.w_max
    }
    pub fn k(&self) -> f64 {
        self.k
    }
    pub fn w_est(&self) -> f64 {
        self.w_est
    }
    /// HyStart++'s state, when it runs.
    pub fn hystart(&self) -> Option<&HyStart> {
        self.hystart.as_ref()
    }

    /// Grow the byte window by `inc` segments (fractions carried).
    fn grow(&mut self, s: &mut CcState, inc_segments: f64) {
        if inc_segments <= 0.0 {
            return;
        }
        self.frac += inc_segments * s.mss as f64;
        let whole = self.frac.floor();
        s.cwnd += whole as u64;
        self.frac -= whole;
    }
}

impl CongestionOps for Cubic {
    fn on_ack(&mut self, s: &mut CcState, ack: &AckSample) {
        if ack.acked_bytes == 0 || !ack.cwnd_limited {
            return;
        }
        // Bytes the window grows by: what this ACK newly delivered (RFC
        // 3465, Linux's acked_sacked), or what it acknowledged.
        let acked = if self.byte_counting {
            ack.delivered_bytes
        } else {
            ack.acked_bytes
        };
        if s.cwnd < s.ssthresh {
            if let Some(h) = self.hystart.as_mut() {
                if h.on_ack(s, ack, acked) {
                    return;
                }
            }
            // RFC 9438 section 4.10: standard slow start (RFC 5681 3.1);
            // with byte counting (RFC 3465 (2.2)) the bytes delivered, up
            // to ssthresh (Linux's tcp_slow_start).
            if self.byte_counting {
                s.cwnd = (s.cwnd + acked).min(s.ssthresh.max(s.cwnd));
            } else {
                s.cwnd += s.mss.min(acked);
            }
            return;
        }
        let mss = s.mss as f64;
        let cwnd = s.cwnd as f64 / mss;
        let now = ack.now;
        let epoch = match self.epoch_start {
            Some(t) => t,
            None => {
                // Section 4.2: a new congestion avoidance stage. K from
                // equation 2 with cwnd_epoch = cwnd; when the window is at or
                // above W_max already, the plateau is here (K = 0).
                self.epoch_start = Some(now);
                if cwnd < self.w_max {
                    self.k = ((self.w_max - cwnd) / C_CUBIC).cbrt();
                } else {
                    self.k = 0.0;
                    self.w_max = cwnd;
                }
                // Section 4.3: W_est starts at cwnd_epoch.
                self.w_est = cwnd;
                self.frac = 0.0;
                now
            }
        };
        let t = now.since(epoch).as_secs_f64();
        let rtt = ack.srtt.map_or(0.0, |d| d.as_secs_f64());
        // Growth is per SMSS acknowledged (one ACK per segment: per ACK).
        let segs_acked = acked as f64 / mss;
        // Section 4.3: W_est += α_cubic * segments_acked / cwnd, with
        // α_cubic = 3 (1 - β) / (1 + β) (equation 5) until W_est reaches
        // W_max, then 1 (Reno's own increase).
        let alpha = if self.w_est >= self.w_max {
            1.0
        } else {
            3.0 * (1.0 - BETA_CUBIC) / (1.0 + BETA_CUBIC)
        };
        self.w_est += alpha * segs_acked / cwnd;
        if self.w_cubic(t) < self.w_est {
            // Section 4.3: the Reno-friendly region: cwnd = W_est.
            let target_bytes = (self.w_est * mss).floor() as u64;
            if target_bytes > s.cwnd {
                s.cwnd = target_bytes;
                self.frac = 0.0;
            }
            return;
        }
        // Sections 4.4-4.5: target = W_cubic(t + RTT), clamped to
        // [cwnd, 1.5 cwnd] (section 4.2); cwnd += (target - cwnd) / cwnd.
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        self.grow(s, (target - cwnd) / cwnd * segs_acked);
    }

    /// RFC 9438 section 4.6: ssthresh = flight_size * β_cubic, cwnd =
    /// max(ssthresh, 2 SMSS); W_max = cwnd before the reduction, or with fast
    /// convergence (section 4.7) W_max = cwnd (1 + β_cubic) / 2 when the
    /// window did not reach the previous W_max.
    fn on_loss(&mut self, s: &mut CcState, _now: Time, flight_bytes: u64) {
        if let Some(h) = self.hystart.as_mut() {
            // RFC 9406 section 4.2: a loss ends HyStart++ (initial slow start only).
            h.stop();
        }
        let cwnd_prior = s.cwnd as f64 / s.mss as f64;
        if cwnd_prior < self.w_max {
            self.w_max = cwnd_prior * (1.0 + BETA_CUBIC) / 2.0;
        } else {
            self.w_max = cwnd_prior;
        }
        s.ssthresh = ((flight_bytes as f64 * BETA_CUBIC).round() as u64).max(2 * s.mss);
        s.cwnd = s.ssthresh;
        self.epoch_start = None;
        self.frac = 0.0;
    }

    /// RFC 9438 section 4.8: on a timeout, the standard reduction to one
    /// segment (RFC 5681 (5)) but ssthresh from β_cubic; the epoch restarts
    /// and W_max is updated as for a loss.
    fn on_rto(&mut self, s: &mut CcState, now: Time, flight_bytes: u64) {
        self.on_loss(s, now, flight_bytes);
        s.cwnd = s.mss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::Dur;

    const MSS: u64 = 1000;

    fn ack(now_ms: u64, bytes: u64) -> AckSample {
        ack_ns(now_ms * 1_000_000, bytes)
    }

    fn ack_ns(now_ns: u64, bytes: u64) -> AckSample {
        AckSample {
            now: Time(now_ns),
            acked_bytes: bytes,
            is_dupack: false,
            sacked_bytes: 0,
            rtt_sample: None,
            srtt: Some(Dur::from_millis(500)),
            min_rtt: Some(Dur::from_millis(500)),
            flight_bytes: 0,
            delivered_bytes: bytes,
            cwnd_limited: true,
            open: true,
        }
    }

    #[test]
    fn a_loss_at_100_segments_leaves_70_and_the_window_follows_the_cubic_closed_form() {
        let mut c = Cubic::default();
        let mut s = CcState {
            cwnd: 100 * MSS,
            ssthresh: 50 * MSS,
            mss: MSS,
        };
        // Section 4.6: flight 100 segments: ssthresh = cwnd = 70 segments;
        // first loss (W_max was 0): W_max = cwnd_prior = 100.
        c.on_loss(&mut s, Time::ZERO, 100 * MSS);
        assert_eq!((s.cwnd, s.ssthresh), (70_000, 70_000));
        assert_eq!(c.w_max(), 100.0);
        // The first ACK in congestion avoidance opens the epoch at t = 0:
        // K = cbrt((100 - 70) / 0.4) = cbrt(75) = 4.21716 s. At t = 0,
        // W_cubic(0) = 70 is below W_est = 70 + 0.52941 / 70 = 70.00756
        // (section 4.3): the Reno-friendly region, cwnd = 70007 bytes.
        c.on_ack(&mut s, &ack_ns(0, MSS));
        assert!((c.k() - 4.217_163).abs() < 1e-6, "K = {}", c.k());
        assert_eq!(s.cwnd, 70_007);
        // Then an ACK clock of cwnd segments per 500 ms RTT: each ACK moves
        // cwnd by (W_cubic(t + RTT) - cwnd) / cwnd, so over one RTT the
        // window reaches where the curve was one RTT ahead: cwnd(t) tracks
        // W_cubic(t). Compare at t = 1, 2, 4.2 (K, the plateau), 6 and 7 s.
        let mut now_ns: u64 = 0;
        for check_ms in [1000u64, 2000, 4217, 6000, 7000] {
            while now_ns < check_ms * 1_000_000 {
                now_ns += 500_000_000 * MSS / s.cwnd;
                c.on_ack(&mut s, &ack_ns(now_ns, MSS));
            }
            let t = now_ns as f64 / 1e9;
            // W_cubic(t) of the closed form (equation 1).
            let closed = 0.4 * (t - 75f64.cbrt()).powi(3) + 100.0;
            let w = s.cwnd as f64 / MSS as f64;
            assert!(
                (w - closed).abs() < 1.0,
                "t = {t}: cwnd {w} vs W_cubic(t) {closed}"
            );
        }
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_the_window_did_not_regain_it() {
        let mut c = Cubic::default();
        let mut s = CcState {
            cwnd: 100 * MSS,
            ssthresh: 50 * MSS,
            mss: MSS,
        };
        c.on_loss(&mut s, Time::ZERO, 100 * MSS);
        s.cwnd = 90 * MSS;
        // Section 4.7: 90 < W_max = 100: W_max = 90 (1 + 0.7) / 2 = 76.5;
        // ssthresh = 0.7 * 90 = 63 segments.
        c.on_loss(&mut s, Time::ZERO, 90 * MSS);
        assert!((c.w_max() - 76.5).abs() < 1e-9);
        assert_eq!(s.cwnd, 63_000);
        // K = cbrt((76.5 - 63) / 0.4) = cbrt(33.75) = 3.2317 s.
        c.on_ack(&mut s, &ack(0, MSS));
        assert!((c.k() - 33.75f64.cbrt()).abs() < 1e-9);
    }

    #[test]
    fn in_the_reno_friendly_region_the_window_follows_w_est() {
        // A short RTT makes Reno's growth beat the cubic curve right after a
        // loss (RFC 9438 section 4.3). W_max = 10 segments, cwnd 7 after
        // the loss, K = cbrt(3 / 0.4) = 1.957 s; RTT 1 ms.
        let mut c = Cubic::default();
        let mut s = CcState {
            cwnd: 10 * MSS,
            ssthresh: 5 * MSS,
            mss: MSS,
        };
        c.on_loss(&mut s, Time::ZERO, 10 * MSS);
        assert_eq!(s.cwnd, 7000);
        let mut a = ack(0, MSS);
        a.srtt = Some(Dur::from_millis(1));
        // 70 ACKs at t = 0 (10 RTTs' worth of ACKs arriving at once): W_est
        // grows by α = 3 (0.3) / 1.7 = 0.52941 per window: from 7, after
        // k ACKs W_est = 7 + 0.52941 Σ 1/cwnd_i. W_cubic(0) = 10 - 0.4 K^3
        // = 7 < W_est after the first ACK, so cwnd = floor(W_est * 1000).
        c.on_ack(&mut s, &a);
        // W_est = 7 + 0.52941 / 7 = 7.07563: cwnd 7075.
        assert!((c.w_est() - (7.0 + 0.9 / 1.7 / 7.0)).abs() < 1e-12);
        assert_eq!(s.cwnd, 7075);
        // The second ACK: W_est += 0.52941 / 7.075 = 0.07483: 7.15046.
        c.on_ack(&mut s, &a);
        assert_eq!(s.cwnd, 7150);
    }
}
