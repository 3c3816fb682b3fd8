//! Standard AIMD window control of RFC 5681, used by Tahoe, Reno, NewReno
//! and SACK senders (they differ in loss recovery, not in window growth).
//!
//! With byte counting (`TcpConfig::byte_counting`, RFC 3465) the growth is
//! Linux's `tcp_reno_cong_avoid`: slow start adds the bytes each ACK newly
//! delivered, congestion avoidance one SMSS per cwnd of delivered bytes, so
//! that delayed ACKs (one per two segments) neither halve the growth of
//! congestion avoidance nor slow slow start to ×1.5 per round trip.

use super::{AckSample, CcState, CongestionOps};
use crate::tcp::config::TcpConfig;

#[derive(Clone, Debug, Default)]
pub struct RenoCc {
    /// Byte counting (RFC 3465) instead of one SMSS per ACK.
    byte_counting: bool,
    /// Bytes delivered in congestion avoidance and not yet turned into
    /// window (Linux's `snd_cwnd_cnt`, in bytes).
    cnt: u64,
}

impl RenoCc {
    pub fn new(cfg: &TcpConfig) -> RenoCc {
        RenoCc {
            byte_counting: cfg.byte_counting,
            cnt: 0,
        }
    }
}

/// Linux's `tcp_reno_cong_avoid` in bytes, with `delivered` the bytes the
/// ACK newly delivered (Linux's `acked_sacked`): RFC 3465 byte counting.
/// `cnt` carries Linux's `snd_cwnd_cnt` (bytes) between calls.
pub(super) fn reno_byte_counting(s: &mut CcState, cnt: &mut u64, delivered: u64) {
    let mut acked = delivered;
    if s.cwnd < s.ssthresh {
        // RFC 3465 (2.2) / tcp_slow_start: cwnd += bytes delivered, up to
        // ssthresh; the rest counts in congestion avoidance. (RFC 3465's
        // limit L = 2 SMSS per ACK is not applied, as in Linux: a stretch
        // ACK after ACK loss grows the window by what it delivered.)
        let cwnd = (s.cwnd + acked).min(s.ssthresh);
        acked -= cwnd - s.cwnd;
        s.cwnd = cwnd;
        if acked == 0 {
            return;
        }
    }
    // RFC 3465 (2.1) / tcp_cong_avoid_ai: one SMSS per cwnd of delivered
    // bytes. Credit earned at a larger window is applied gently first.
    let w = s.cwnd.max(1);
    if *cnt >= w {
        *cnt = 0;
        s.cwnd += s.mss;
    }
    *cnt += acked;
    let w = s.cwnd.max(1);
    if *cnt >= w {
        let delta = *cnt / w;
        *cnt -= delta * w;
        s.cwnd += delta * s.mss;
    }
}

impl CongestionOps for RenoCc {
    fn on_ack(&mut self, s: &mut CcState, ack: &AckSample) {
        if !self.byte_counting {
            // RFC 5681: one SMSS per ACK in slow start, SMSS²/cwnd after.
            let mut rfc = DefaultGrowth;
            rfc.on_ack(s, ack);
            return;
        }
        if ack.acked_bytes == 0 || !ack.cwnd_limited {
            return;
        }
        reno_byte_counting(s, &mut self.cnt, ack.delivered_bytes);
    }
}

/// The trait's default hooks (RFC 5681), callable from an override.
struct DefaultGrowth;
impl CongestionOps for DefaultGrowth {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::Time;

    const MSS: u64 = 1000;

    #[test]
    fn slow_start_adds_what_each_ack_delivered_and_avoidance_one_segment_per_window() {
        let mut s = CcState {
            cwnd: 10 * MSS,
            ssthresh: 13 * MSS,
            mss: MSS,
        };
        let mut cnt = 0;
        // A delayed ACK of two segments: +2000 (RFC 3465), not +1000.
        reno_byte_counting(&mut s, &mut cnt, 2 * MSS);
        assert_eq!(s.cwnd, 12 * MSS);
        // Two more: 1000 to reach ssthresh 13000, 1000 left for avoidance.
        reno_byte_counting(&mut s, &mut cnt, 2 * MSS);
        assert_eq!((s.cwnd, cnt), (13 * MSS, MSS));
        // Avoidance: 12 more segments delivered completes one window of
        // 13000 bytes: +1 SMSS, nothing carried.
        for _ in 0..6 {
            reno_byte_counting(&mut s, &mut cnt, 2 * MSS);
        }
        assert_eq!((s.cwnd, cnt), (14 * MSS, 0));
    }

    #[test]
    fn without_byte_counting_a_delayed_ack_grows_one_segment() {
        let mut r = RenoCc::default();
        let mut s = CcState {
            cwnd: 10 * MSS,
            ssthresh: 100 * MSS,
            mss: MSS,
        };
        r.on_ack(&mut s, &AckSample::new_data(Time::ZERO, 2 * MSS));
        assert_eq!(s.cwnd, 11 * MSS);
        let mut r = RenoCc {
            byte_counting: true,
            cnt: 0,
        };
        r.on_ack(&mut s, &AckSample::new_data(Time::ZERO, 2 * MSS));
        assert_eq!(s.cwnd, 13 * MSS);
    }
}
