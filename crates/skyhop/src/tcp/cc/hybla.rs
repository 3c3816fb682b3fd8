//! TCP Hybla: C. Caini, R. Firrincieli, "TCP Hybla: a TCP enhancement for
//! heterogeneous networks", International Journal of Satellite
//! Communications and Networking 22(5), 2004.
//!
//! The window of a long-RTT connection grows as that of a reference
//! connection with RTT0 (25 ms by default, `tcp.hybla_rtt0`): with the
//! normalised round-trip time ρ = RTT / RTT0 (section 3, equation 5), per
//! ACK of one segment
//! - slow start: cwnd += 2^ρ − 1 segments,
//! - congestion avoidance: cwnd += ρ² / cwnd segments,
//!
//! so that per RTT the window grows by ρ² segments in congestion avoidance
//! and by a factor 2^ρ in slow start, as the reference connection does per
//! RTT0. RTT is the smoothed RTT (as Linux's tcp_hybla); ρ is at least 1
//! (a connection faster than the reference behaves as Reno), and 1 before
//! the first sample. Losses halve the window as Reno (the paper keeps the
//! standard reactions; the recovery is chosen separately).

use super::{AckSample, CcState, CongestionOps};
use crate::engine::time::Dur;

#[derive(Clone, Debug)]
pub struct Hybla {
    rtt0: Dur,
    /// Fraction of a byte of growth not yet applied.
    frac: f64,
}

impl Hybla {
    pub fn new(rtt0: Dur) -> Hybla {
        Hybla { rtt0, frac: 0.0 }
    }

    /// ρ = max(SRTT / RTT0, 1) (equation 5; floor as Linux).
    pub fn rho(&self, srtt: Option<Dur>) -> f64 {
        match srtt {
            Some(r) if self.rtt0.0 > 0 => (r.as_secs_f64() / self.rtt0.as_secs_f64()).max(1.0),
            _ => 1.0,
        }
    }
}

impl CongestionOps for Hybla {
    fn on_ack(&mut self, s: &mut CcState, ack: &AckSample) {
        if ack.acked_bytes == 0 {
            return;
        }
        let rho = self.rho(ack.srtt);
        let mss = s.mss as f64;
        let segs = ack.acked_bytes as f64 / mss;
        let inc_segments = if s.cwnd < s.ssthresh {
            // Equation 6, slow start: W += 2^ρ − 1 per ACK.
            (rho.exp2() - 1.0) * segs
        } else {
            // Equation 6, congestion avoidance: W += ρ² / W per ACK.
            rho * rho / (s.cwnd as f64 / mss) * segs
        };
        self.frac += inc_segments * mss;
        let whole = self.frac.floor();
        let mut cwnd = s.cwnd + whole as u64;
        self.frac -= whole;
        if s.cwnd < s.ssthresh && cwnd > s.ssthresh {
            // Slow start ends at ssthresh (the remainder of the increment is
            // not carried into congestion avoidance).
            cwnd = s.ssthresh;
            self.frac = 0.0;
        }
        s.cwnd = cwnd;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::Time;

    const MSS: u64 = 1000;

    fn ack(srtt_ms: Option<u64>) -> AckSample {
        AckSample {
            now: Time::ZERO,
            acked_bytes: MSS,
            is_dupack: false,
            sacked_bytes: 0,
            rtt_sample: None,
            srtt: srtt_ms.map(Dur::from_millis),
            min_rtt: None,
            flight_bytes: 0,
            delivered_bytes: MSS,
            cwnd_limited: true,
            open: true,
        }
    }

    #[test]
    fn rho_is_srtt_over_rtt0_at_least_one() {
        let h = Hybla::new(Dur::from_millis(25));
        assert_eq!(h.rho(None), 1.0);
        assert_eq!(h.rho(Some(Dur::from_millis(10))), 1.0);
        assert_eq!(h.rho(Some(Dur::from_millis(550))), 22.0);
    }

    #[test]
    fn congestion_avoidance_grows_rho_squared_segments_per_rtt() {
        // RTT 100 ms, RTT0 25 ms: ρ = 4, ρ² = 16 segments per RTT. From 20
        // segments, one RTT of ACKs is 20 ACKs, each adding 16 / cwnd.
        let mut h = Hybla::new(Dur::from_millis(25));
        let mut s = CcState {
            cwnd: 20 * MSS,
            ssthresh: 20 * MSS,
            mss: MSS,
        };
        // First ACK: 16 / 20 segments = 800 bytes.
        h.on_ack(&mut s, &ack(Some(100)));
        assert_eq!(s.cwnd, 20_800);
        for _ in 1..20 {
            h.on_ack(&mut s, &ack(Some(100)));
        }
        // Σ 16/cwnd_i over 20 ACKs with cwnd rising 20 → 33: less than 16
        // (the window grows during the round), more than 16 * 20 / 36.
        // Exactly: the discrete sum gives 33.44 segments.
        let w = s.cwnd as f64 / MSS as f64;
        let mut exact = 20.0f64;
        for _ in 0..20 {
            exact += 16.0 / exact;
        }
        assert!((w - exact).abs() < 0.002, "{w} vs {exact}");
        // A Reno window (ρ = 1) would have grown by about one segment.
        let mut r = Hybla::new(Dur::from_millis(25));
        let mut s1 = CcState {
            cwnd: 20 * MSS,
            ssthresh: 20 * MSS,
            mss: MSS,
        };
        for _ in 0..20 {
            r.on_ack(&mut s1, &ack(Some(25)));
        }
        assert_eq!(s1.cwnd / MSS, 20);
    }

    #[test]
    fn slow_start_grows_by_two_to_the_rho_per_rtt() {
        // ρ = 2 (RTT 50 ms): each ACK adds 2^2 - 1 = 3 segments, so one
        // round of 2 ACKs takes the window from 2 to 2 + 6 = 8 = 2 * 2^ρ.
        let mut h = Hybla::new(Dur::from_millis(25));
        let mut s = CcState {
            cwnd: 2 * MSS,
            ssthresh: 1_000 * MSS,
            mss: MSS,
        };
        h.on_ack(&mut s, &ack(Some(50)));
        assert_eq!(s.cwnd, 5 * MSS);
        h.on_ack(&mut s, &ack(Some(50)));
        assert_eq!(s.cwnd, 8 * MSS);
        // The next round: 8 ACKs: 8 * 4 = 32.
        for _ in 0..8 {
            h.on_ack(&mut s, &ack(Some(50)));
        }
        assert_eq!(s.cwnd, 32 * MSS);
        // It stops at ssthresh.
        s.ssthresh = 40 * MSS;
        for _ in 0..3 {
            h.on_ack(&mut s, &ack(Some(50)));
        }
        assert_eq!(s.cwnd, 40 * MSS);
    }
}
