//! TCP Hybla: C. Caini, R. Firrincieli, "TCP Hybla: a TCP enhancement for
//! heterogeneous networks", International Journal of Satellite
//! Communications and Networking 22(5), 2004, as Linux runs it
//! (`net/ipv4/tcp_hybla.c`).
//!
//! The window of a long-RTT connection grows as that of a reference
//! connection with RTT0 (25 ms by default, `tcp.hybla_rtt0`): with the
//! normalised round-trip time ρ = RTT / RTT0 (section 3, equation 5), per
//! ACK
//! - slow start: cwnd += 2^ρ − 1 segments,
//! - congestion avoidance: cwnd += ρ² / cwnd segments (equation 6),
//!
//! so that per RTT the window grows by ρ² segments in congestion avoidance
//! and by a factor 2^ρ in slow start, as the reference connection does per
//! RTT0. Losses halve the window as Reno (the paper keeps the standard
//! reactions; the recovery is chosen separately).
//!
//! Linux's arithmetic, reproduced here: ρ is kept in eighths (`rho_3ls`),
//! at least 1, from the smallest SRTT seen (it is recomputed only when
//! SRTT falls below every earlier one); the slow-start increment is
//! 2^min(⌊ρ⌋, 16) × 2^frac(ρ) − 1 segments with 2^frac from a table of
//! eighths, in 1/128 of a segment; congestion avoidance adds ρ²·128 / cwnd
//! 128ths of a segment per ACK; fractions carry over (`snd_cwnd_cents`);
//! slow start stops at ssthresh and cwnd never exceeds 65 535 segments
//! (`snd_cwnd_clamp`). Increments are per ACK, whatever it acknowledges.
//! Outside the Open state (recovery, a timeout's recovery, SACKed data
//! outstanding) Hybla grows as Reno (`hybla_state`, `tcp_reno_cong_avoid`),
//! and only while the window is in use (`tcp_is_cwnd_limited`). On a
//! connection with a handshake the initial window is ⌊ρ⌋ segments from the
//! handshake's RTT (`hybla_init`).

use super::reno::reno_byte_counting;
use super::{AckSample, CcState, CongestionOps};
use crate::engine::time::Dur;

/// `tp->snd_cwnd_clamp` set by `hybla_init`: 65 535 segments.
pub(super) const HYBLA_CWND_CLAMP: u64 = 65_535;
/// The slow-start exponent is capped at 16 (`min(ca->rho, 16U)`).
pub(super) const HYBLA_MAX_EXPONENT: u32 = 16;
/// 2^(k/8) × 128 for k = 0..7 (`hybla_fraction`).
const FRACTIONS: [u64; 8] = [128, 139, 152, 165, 181, 197, 215, 234];

#[derive(Clone, Debug)]
pub struct Hybla {
    rtt0: Dur,
    /// ρ × 8, at least 8 (`rho_3ls`).
    rho_3ls: u64,
    /// The smallest SRTT seen (`minrtt_us`), from which ρ comes.
    min_srtt: Option<Dur>,
    /// Growth not yet applied, in 1/128 of a segment (`snd_cwnd_cents`).
    cents: u64,
    /// ACKs in congestion avoidance with less than a whole segment of
    /// growth (`snd_cwnd_cnt`).
    cnt: u64,
    /// Reno's byte count outside the Open state.
    reno_cnt: u64,
}

impl Hybla {
    pub fn new(rtt0: Dur) -> Hybla {
        Hybla {
            rtt0,
            rho_3ls: 8,
            min_srtt: None,
            cents: 0,
            cnt: 0,
            reno_cnt: 0,
        }
    }

    /// `hybla_recalc_param`: ρ × 8 = ⌊8 SRTT / RTT0⌋, at least 8.
    fn recalc(&mut self, srtt: Dur) {
        let r = if self.rtt0.0 > 0 {
            (8 * srtt.0 as u128 / self.rtt0.0 as u128) as u64
        } else {
            8
        };
        self.rho_3ls = r.max(8);
    }

    /// ρ as the controller uses it (eighths), at least 1.
    pub fn rho(&self) -> f64 {
        self.rho_3ls as f64 / 8.0
    }

    /// ρ from an SRTT alone (at least 1; 1 before the first sample).
    pub fn rho_for(&self, srtt: Option<Dur>) -> f64 {
        let mut h = self.clone();
        if let Some(s) = srtt {
            h.recalc(s);
        }
        h.rho()
    }
}

impl CongestionOps for Hybla {
    /// `hybla_init`: cwnd = ⌊ρ⌋ segments from the handshake's SRTT.
    fn on_established(&mut self, s: &mut CcState, srtt: Option<Dur>) {
        match srtt {
            Some(r) => self.recalc(r),
            None => self.rho_3ls = 8,
        }
        self.min_srtt = srtt;
        s.cwnd = (self.rho_3ls >> 3) * s.mss;
    }

    /// `hybla_cong_avoid`.
    fn on_ack(&mut self, s: &mut CcState, ack: &AckSample) {
        if ack.acked_bytes == 0 {
            return;
        }
        // Recalculate ρ only if this SRTT is the lowest.
        if let Some(srtt) = ack.srtt {
            if self.min_srtt.is_none_or(|m| srtt < m) {
                self.recalc(srtt);
                self.min_srtt = Some(srtt);
            }
        }
        if !ack.cwnd_limited {
            return;
        }
        let mss = s.mss;
        if !ack.open {
            // hybla_en is false outside TCP_CA_Open: Reno.
            reno_byte_counting(s, &mut self.reno_cnt, ack.delivered_bytes);
            s.cwnd = s.cwnd.min(HYBLA_CWND_CLAMP * mss);
            return;
        }
        let rho = self.rho_3ls >> 3;
        let rho_fractions = (self.rho_3ls - (rho << 3)) as usize;
        let mut pkts = s.cwnd / mss;
        let slow_start = s.cwnd < s.ssthresh;
        let increment = if slow_start {
            // Slow start, INC = 2^ρ − 1 segments, in 128ths: the integer
            // part of ρ as a shift (at most 16), the fraction from the table.
            (1u64 << rho.min(HYBLA_MAX_EXPONENT as u64)) * FRACTIONS[rho_fractions] - 128
        } else {
            // Congestion avoidance, INC = ρ² / W, in 128ths.
            let rho2_7ls = (self.rho_3ls * self.rho_3ls) << 1;
            let inc = rho2_7ls / pkts.max(1);
            if inc < 128 {
                self.cnt += 1;
            }
            inc
        };
        let odd = increment % 128;
        pkts += increment >> 7;
        self.cents += odd;
        // Whole segments out of the accumulated fractions.
        pkts += self.cents / 128;
        self.cents %= 128;
        // A window that has not grown for a while (increment below 1/128).
        if increment == 0 && odd == 0 && self.cnt >= pkts {
            pkts += 1;
            self.cnt = 0;
        }
        let mut cwnd = s.cwnd + (pkts - s.cwnd / mss) * mss;
        if slow_start {
            // Clamp slow start's window at ssthresh.
            cwnd = cwnd.min(s.ssthresh);
        }
        s.cwnd = cwnd.min(HYBLA_CWND_CLAMP * mss);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::Time;

    const MSS: u64 = 1000;

    fn ack(srtt_ms: u64) -> AckSample {
        AckSample {
            srtt: Some(Dur::from_millis(srtt_ms)),
            ..AckSample::new_data(Time::ZERO, MSS)
        }
    }

    #[test]
    fn rho_is_eighths_of_srtt_over_rtt0_at_least_one() {
        let h = Hybla::new(Dur::from_millis(25));
        assert_eq!(h.rho_for(None), 1.0);
        assert_eq!(h.rho_for(Some(Dur::from_millis(10))), 1.0);
        assert_eq!(h.rho_for(Some(Dur::from_millis(550))), 22.0);
        // 8 × 510 / 25 = 163.2: 163 eighths, ρ = 20.375.
        assert_eq!(h.rho_for(Some(Dur::from_millis(510))), 20.375);
    }

    #[test]
    fn congestion_avoidance_adds_rho_squared_over_cwnd_in_128ths() {
        // SRTT 100 ms: ρ = 4 (32 eighths), ρ²·128 = 2048. From 20 segments
        // in congestion avoidance: 2048 / 20 = 102 128ths per ACK (below
        // one segment: carried). After 2 ACKs: 204 → one segment, 76 left.
        let mut h = Hybla::new(Dur::from_millis(25));
        let mut s = CcState {
            cwnd: 20 * MSS,
            ssthresh: 20 * MSS,
            mss: MSS,
        };
        h.on_ack(&mut s, &ack(100));
        assert_eq!((s.cwnd, h.cents), (20 * MSS, 102));
        h.on_ack(&mut s, &ack(100));
        assert_eq!((s.cwnd, h.cents), (21 * MSS, 76));
        // Now 2048 / 21 = 97: 173 → one more segment, 45 left.
        h.on_ack(&mut s, &ack(100));
        assert_eq!((s.cwnd, h.cents), (22 * MSS, 45));
    }

    #[test]
    fn slow_start_adds_two_to_the_rho_minus_one_per_ack_capped_at_2_to_16() {
        // ρ = 2 (SRTT 50 ms): 4 × 128 − 128 = 384 128ths = 3 segments per ACK.
        let mut h = Hybla::new(Dur::from_millis(25));
        let mut s = CcState {
            cwnd: 2 * MSS,
            ssthresh: 1_000 * MSS,
            mss: MSS,
        };
        h.on_ack(&mut s, &ack(50));
        assert_eq!(s.cwnd, 5 * MSS);
        // ρ = 2.5 (62.5 ms, 20 eighths: 2 + 4/8): 4 × 181 − 128 = 596:
        // 4 segments and 84/128 carried. But ρ is recomputed only when SRTT
        // falls: it stays 2 at a larger SRTT.
        h.on_ack(&mut s, &ack(63));
        assert_eq!(s.cwnd, 8 * MSS);
        // ρ = 20 (500 ms) on a fresh connection: 2^16 × 128 − 128 128ths =
        // 65 535 segments, clamped at ssthresh, and at 65 535 segments.
        let mut h = Hybla::new(Dur::from_millis(25));
        let mut s = CcState {
            cwnd: 10 * MSS,
            ssthresh: u64::MAX / 4,
            mss: MSS,
        };
        h.on_ack(&mut s, &ack(500));
        assert_eq!(s.cwnd, HYBLA_CWND_CLAMP * MSS);
        let mut h = Hybla::new(Dur::from_millis(25));
        s.cwnd = 10 * MSS;
        s.ssthresh = 400 * MSS;
        h.on_ack(&mut s, &ack(500));
        assert_eq!(s.cwnd, 400 * MSS);
    }

    #[test]
    fn outside_the_open_state_or_with_the_window_unused_it_is_reno() {
        let mut h = Hybla::new(Dur::from_millis(25));
        let mut s = CcState {
            cwnd: 10 * MSS,
            ssthresh: 100 * MSS,
            mss: MSS,
        };
        // In a recovery (not Open): Reno slow start, + the delivered bytes.
        let a = AckSample {
            open: false,
            ..ack(500)
        };
        h.on_ack(&mut s, &a);
        assert_eq!(s.cwnd, 11 * MSS);
        // The window not in use: no growth at all.
        let a = AckSample {
            cwnd_limited: false,
            ..ack(500)
        };
        h.on_ack(&mut s, &a);
        assert_eq!(s.cwnd, 11 * MSS);
    }

    #[test]
    fn the_initial_window_is_rho_segments_from_the_handshake() {
        let mut h = Hybla::new(Dur::from_millis(25));
        let mut s = CcState {
            cwnd: 10 * MSS,
            ssthresh: u64::MAX / 4,
            mss: MSS,
        };
        // 8 × 510 / 25 = 163 eighths: ⌊ρ⌋ = 20 segments.
        h.on_established(&mut s, Some(Dur::from_millis(510)));
        assert_eq!(s.cwnd, 20 * MSS);
        // A retransmitted SYN gives no RTT: ρ = 1, one segment (Linux's
        // hybla_init with srtt 0, and RFC 5681 (3.1) after a lost SYN).
        h.on_established(&mut s, None);
        assert_eq!(s.cwnd, MSS);
    }
}
