//! Receive-buffer autotuning as Linux does it (`tcp_grow_window`,
//! `tcp_rcv_rtt_measure`, `tcp_rcv_space_adjust`; "dynamic right-sizing",
//! M. Fisk, W. Feng, "Dynamic right-sizing in TCP", LACSI 2001), for an
//! end host's receiver (`tcp.rcv_autotune`).
//!
//! The advertised window starts at ten segments (`tcp_select_initial_window`,
//! TCP_DEFAULT_INIT_RCVWND) and grows by two segments per segment received
//! (`rcv_ssthresh`; in order, or out of order on a SACK connection), up to
//! a clamp. The clamp starts at half of
//! the initial buffer (`tcp_rmem[1]` = 131 072 B, a window-to-buffer ratio
//! of one half) and follows the data the application took in the last
//! receiver round trip: window = 2 × copied + 16 segments, plus twice
//! that times the growth of copied since the round before (the sender may
//! be in slow start), never shrinking, at most the buffer (`tcp.rcv_buffer`,
//! Linux's `tcp_rmem[2]` as a window). The receiver's round trip is the
//! time to receive one advertised window of data (its estimate without
//! timestamps, the smallest seen).

use crate::engine::time::{Dur, Time};

/// The initial receive buffer, `tcp_rmem[1]`.
pub const RMEM_DEFAULT: u64 = 131_072;
/// The initial window, in segments (TCP_DEFAULT_INIT_RCVWND).
pub const INIT_RCVWND_SEGMENTS: u64 = 10;

#[derive(Clone, Debug)]
pub struct Autotune {
    mss: u64,
    /// The largest window (`tcp.rcv_buffer`).
    max: u64,
    /// `window_clamp`.
    clamp: u64,
    /// `rcv_ssthresh`: the window offered now.
    ssthresh: u64,
    /// `rcvq_space`: bytes copied in the last measured round, and where and
    /// when the current measurement began.
    space: u64,
    space_seq: u64,
    space_time: Time,
    /// `rcv_rtt_est`: the window edge to reach and when the measure began.
    rtt_seq: u64,
    rtt_time: Option<Time>,
    rtt: Option<Dur>,
}

impl Autotune {
    pub fn new(mss: u32, max: u64) -> Autotune {
        let mss = mss as u64;
        let clamp = (RMEM_DEFAULT / 2).min(max);
        let init = (INIT_RCVWND_SEGMENTS * mss).min(clamp);
        Autotune {
            mss,
            max,
            clamp,
            ssthresh: init,
            space: init,
            space_seq: 0,
            space_time: Time::ZERO,
            rtt_seq: 0,
            rtt_time: None,
            rtt: None,
        }
    }

    /// The window to offer (before the free buffer caps it).
    #[inline]
    pub fn window(&self) -> u64 {
        self.ssthresh
    }
    /// The current clamp on the window.
    pub fn clamp(&self) -> u64 {
        self.clamp
    }
    /// The receiver's round-trip estimate.
    pub fn rtt(&self) -> Option<Dur> {
        self.rtt
    }

    /// tcp_grow_window: two segments (or twice the segment) per segment,
    /// up to the clamp.
    fn grow(&mut self, len: u64) {
        let incr = (2 * self.mss).max(2 * len);
        self.ssthresh = (self.ssthresh + incr).min(self.clamp).max(self.ssthresh);
    }

    /// `len` bytes arrived out of order (above a hole). Linux grows the
    /// window for them too when the connection uses SACK
    /// (`tcp_data_queue_ofo`), so that a window with holes keeps opening
    /// while the holes are repaired.
    pub fn on_out_of_order(&mut self, len: u64) {
        self.grow(len);
    }

    /// `len` bytes arrived in order and `rcv_nxt` is now as given (the
    /// application takes them at once).
    pub fn on_data(&mut self, now: Time, len: u64, rcv_nxt: u64) {
        self.grow(len);
        // tcp_rcv_rtt_measure: the time to receive one window.
        match self.rtt_time {
            Some(t0) if rcv_nxt >= self.rtt_seq => {
                let r = now - t0;
                self.rtt = Some(self.rtt.map_or(r, |m| m.min(r)));
                self.new_rtt_measure(now, rcv_nxt);
            }
            None => self.new_rtt_measure(now, rcv_nxt),
            _ => {}
        }
        // tcp_rcv_space_adjust: once per receiver round trip.
        let Some(rtt) = self.rtt else {
            return;
        };
        if now.since(self.space_time) < rtt {
            return;
        }
        let copied = rcv_nxt - self.space_seq;
        if copied > self.space {
            let mut rcvwin = 2 * copied + 16 * self.mss;
            let grow = rcvwin as u128 * (copied - self.space) as u128 / self.space.max(1) as u128;
            rcvwin += 2 * grow.min(u64::MAX as u128 / 4) as u64;
            self.clamp = self.clamp.max(rcvwin.min(self.max));
            self.space = copied;
        }
        self.space_seq = rcv_nxt;
        self.space_time = now;
    }

    fn new_rtt_measure(&mut self, now: Time, rcv_nxt: u64) {
        self.rtt_seq = rcv_nxt + self.ssthresh;
        self.rtt_time = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    #[test]
    fn the_window_starts_at_ten_segments_and_grows_two_per_segment_up_to_the_clamp() {
        let mut a = Autotune::new(1000, 4_000_000);
        assert_eq!((a.window(), a.clamp()), (10_000, 65_536));
        // + 2 segments per segment received in order.
        for k in 1..=5 {
            a.on_data(ms(100 + k), 1000, k * 1000);
        }
        assert_eq!(a.window(), 20_000);
        // A small buffer caps everything.
        let a = Autotune::new(1000, 8000);
        assert_eq!((a.window(), a.clamp()), (8000, 8000));
    }

    #[test]
    fn the_clamp_follows_twice_what_arrived_in_a_round_trip_plus_growth() {
        let mut a = Autotune::new(1000, 4_000_000);
        // One segment every ms from t = 1 ms; the window measure gives an
        // RTT of 12 ms (12 segments to pass the 12 000-byte edge).
        let mut t = 0;
        while a.rtt().is_none() {
            t += 1;
            a.on_data(ms(t), 1000, t * 1000);
        }
        assert_eq!((t, a.rtt()), (13, Some(Dur::from_millis(12))));
        // space_time is still 0: at 13 ms (>= 12 ms) 13 000 copied > 10 000:
        // rcvwin = 26 000 + 16 000 = 42 000, grow = 42 000 × 3000 / 10 000
        // = 12 600: 42 000 + 25 200 = 67 200 > 65 536: the clamp grows.
        assert_eq!(a.clamp(), 67_200);
    }
}
