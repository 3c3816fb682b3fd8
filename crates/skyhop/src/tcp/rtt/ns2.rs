//! ns-2's retransmission timer, as `Agent/TCP` (ns-2's tcp.cc: `rtt_init`,
//! `rtt_update`, `rtt_timeout`, `rtt_backoff`) computes it: the simulator
//! every published study of E1–E4 and E6 ran.
//!
//! - An RTT sample is a whole number of clock ticks of `tcpTick_` (0.1 s
//!   until 2002-03-08, 0.01 s after): without timestamps, the ticks the
//!   clock struck between the segment's send and its ACK, at least one
//!   (ns-2 offsets its clock by a `boot_time_` drawn uniformly in one tick
//!   per agent; here the ticks fall at whole multiples of `tcpTick_` from
//!   time 0); with timestamps, the measured time rounded to whole ticks.
//! - SRTT and RTTVAR are kept in ticks, scaled by 8 and 4 (`t_srtt_`,
//!   `t_rttvar_`), updated in integer arithmetic with the gains 1/8 and
//!   1/4; the first sample sets SRTT to it and RTTVAR to half of it.
//! - The RTO before bounds and back-off is ⌊SRTT + 4·RTTVAR⌋ whole ticks
//!   (`t_rtxcur_`), `rtxcur_init_` before the first sample (6 s until
//!   2006-01-21, 3 s after).
//! - `rtt_timeout`: with `rfc2988_` (the default from 2002-03-08) the
//!   minimum `minrto_` is applied before the back-off multiplies; before,
//!   after it. Then at most `maxrto_`, and never below two ticks.
//! - `rtt_backoff`: the multiplier doubles while below 64 (or, with
//!   `rfc2988_`, while the timeout is below `maxrto_`); once it exceeds 8,
//!   SRTT is folded into RTTVAR and forgotten, so that the next sample
//!   starts the estimate afresh. A valid sample resets the multiplier.

use crate::engine::time::{Dur, Time};

/// How ns-2's timer is configured (the settings that changed over the
/// studies' years; `minrto_`, `maxrto_` and `rtxcur_init_` are the
/// estimator's bounds and initial RTO).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ns2Timer {
    /// `tcpTick_`: the granularity of RTT samples and of the RTO.
    pub tick: Dur,
    /// `rfc2988_`: apply `minrto_` before the back-off multiplier (RFC
    /// 2988; ns-2's default from 2002-03-08), or after it (before then).
    pub clamp_before_backoff: bool,
}

#[derive(Clone, Debug)]
pub(super) struct Ns2State {
    timer: Ns2Timer,
    /// `t_srtt_`: SRTT in ticks, times 8 (0: no sample since the start or
    /// since a long back-off forgot it).
    srtt8: i64,
    /// `t_rttvar_`: RTTVAR in ticks, times 4.
    rttvar4: i64,
    /// `t_rtxcur_`: the RTO before bounds and back-off.
    rtxcur: Dur,
    /// `t_backoff_`: the back-off multiplier, 1, 2, 4, ...
    backoff: u64,
}

impl Ns2State {
    pub(super) fn new(timer: Ns2Timer, rtxcur_init: Dur) -> Self {
        assert!(timer.tick > Dur::ZERO, "ns-2's tcpTick_ must be positive");
        Ns2State {
            timer,
            srtt8: 0,
            rttvar4: 0,
            rtxcur: rtxcur_init,
            backoff: 1,
        }
    }

    pub(super) fn timer(&self) -> Ns2Timer {
        self.timer
    }

    fn tick(&self) -> u64 {
        self.timer.tick.0
    }

    fn ticks(&self, n: i64) -> Dur {
        Dur(n.max(0) as u64 * self.tick())
    }

    /// tcp.cc `rtt_update` without timestamps: the clock ticks between a
    /// send at `sent` and its ACK at `now`, at least one.
    pub(super) fn ticks_between(&self, sent: Time, now: Time) -> i64 {
        let t = self.tick();
        ((now.0 / t) as i64 - (sent.0 / t) as i64).max(1)
    }

    /// tcp.cc `rtt_update` with timestamps: `int(tao / tcpTick_ + 0.5)`, at
    /// least one.
    pub(super) fn ticks_rounded(&self, r: Dur) -> i64 {
        let t = self.tick();
        ((r.0 + t / 2) / t).max(1) as i64
    }

    /// tcp.cc `rtt_update` for a sample of `m` ticks (a valid sample also
    /// ends the back-off, as `newack` resets `t_backoff_`). Returns the
    /// sample as a duration.
    pub(super) fn sample_ticks(&mut self, m: i64) -> Dur {
        if self.srtt8 != 0 {
            // a1 = 7/8 a0 + 1/8 m, in eighths: t_srtt_ += m - a0.
            let mut delta = m - (self.srtt8 >> 3);
            self.srtt8 += delta;
            if self.srtt8 <= 0 {
                self.srtt8 = 1;
            }
            // var1 = 3/4 var0 + 1/4 |m - a0|, in quarters.
            delta = delta.abs() - (self.rttvar4 >> 2);
            self.rttvar4 += delta;
            if self.rttvar4 <= 0 {
                self.rttvar4 = 1;
            }
        } else {
            // srtt = rtt, rttvar = rtt / 2.
            self.srtt8 = m << 3;
            self.rttvar4 = m << 1;
        }
        // t_rtxcur_ = ((t_rttvar_ << 3) + t_srtt_) >> 3 ticks: the whole
        // ticks of SRTT + 4 RTTVAR (rttvar_exp_ = 2, 3 and 2 fraction bits).
        self.rtxcur = self.ticks(((self.rttvar4 << 3) + self.srtt8) >> 3);
        self.backoff = 1;
        self.ticks(m)
    }

    /// tcp.cc `rtt_timeout`.
    pub(super) fn rto(&self, rto_min: Dur, rto_max: Dur) -> Dur {
        let mut t = if self.timer.clamp_before_backoff {
            self.rtxcur.max(rto_min).saturating_mul(self.backoff)
        } else {
            self.rtxcur.saturating_mul(self.backoff).max(rto_min)
        };
        t = t.min(rto_max);
        let two_ticks = Dur(2 * self.tick());
        t.max(two_ticks)
    }

    /// tcp.cc `rtt_backoff`.
    pub(super) fn back_off(&mut self, rto_min: Dur, rto_max: Dur) {
        if self.backoff < 64
            || (self.timer.clamp_before_backoff && self.rto(rto_min, rto_max) < rto_max)
        {
            self.backoff <<= 1;
        }
        if self.backoff > 8 {
            // Backed off this far: fold SRTT into RTTVAR and forget it.
            self.rttvar4 += self.srtt8 >> 3;
            self.srtt8 = 0;
        }
    }

    pub(super) fn backoff_exponent(&self) -> u32 {
        self.backoff.trailing_zeros()
    }

    pub(super) fn srtt(&self) -> Option<Dur> {
        (self.srtt8 > 0).then(|| Dur(self.srtt8 as u64 * self.tick() / 8))
    }

    pub(super) fn rttvar(&self) -> Dur {
        Dur(self.rttvar4.max(0) as u64 * self.tick() / 4)
    }
}

#[cfg(test)]
mod tests {
    use super::super::RttEstimator;
    use super::*;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    /// ns-2 of 2001 (ns-2.1b8a, the E1 study's): tcpTick_ 0.1 s, minrto_
    /// 1 s, maxrto_ 64 s, rtxcur_init_ 6 s, minrto_ applied after the
    /// back-off.
    fn ns2_2001() -> RttEstimator {
        RttEstimator::ns2(
            Dur::from_secs(6),
            Dur::from_secs(1),
            Dur::from_secs(64),
            Ns2Timer {
                tick: Dur::from_millis(100),
                clamp_before_backoff: false,
            },
        )
    }

    #[test]
    fn a_sample_counts_the_ticks_between_send_and_ack() {
        let mut e = ns2_2001();
        // Before any sample: rtxcur_init_.
        assert_eq!(e.rto(), Dur::from_secs(6));
        // Sent at 30 ms, ACKed at 570 ms: the clock struck at 100, 200,
        // ..., 500 ms: 5 ticks (the true 540 ms is not seen).
        assert_eq!(e.sample_sent(ms(30), ms(570)), Dur::from_millis(500));
        // First sample: SRTT 5 ticks (t_srtt_ 40), RTTVAR 2.5 (t_rttvar_
        // 10); t_rtxcur_ = (80 + 40) >> 3 = 15 ticks.
        assert_eq!(e.srtt(), Some(Dur::from_millis(500)));
        assert_eq!(e.rttvar(), Dur::from_millis(250));
        assert_eq!(e.rto(), Dur::from_millis(1500));
        // Sent at 590 ms, ACKed at 1130 ms (the same 540 ms): 11 - 5 = 6 ticks.
        assert_eq!(e.sample_sent(ms(590), ms(1130)), Dur::from_millis(600));
        // delta = 6 - 5 = 1: t_srtt_ 41; |1| - (10 >> 2) = -1: t_rttvar_ 9;
        // t_rtxcur_ = (72 + 41) >> 3 = 14 ticks.
        assert_eq!(e.rto(), Dur::from_millis(1400));
        // A sample within one tick (sent and ACKed between strikes) counts 1.
        assert_eq!(e.sample_sent(ms(1210), ms(1290)), Dur::from_millis(100));
        assert_eq!(e.min_rtt(), Some(Dur::from_millis(100)));
        assert_eq!(e.latest(), Some(Dur::from_millis(100)));
    }

    #[test]
    fn the_variation_decays_in_whole_quarter_ticks_and_minrto_binds() {
        let mut e = ns2_2001();
        e.sample_sent(ms(30), ms(570)); // 5 ticks: t_srtt_ 40, t_rttvar_ 10
        e.sample_sent(ms(590), ms(1130)); // 6: 41, 9
                                          // 5 ticks: delta 5 - 5 = 0, t_rttvar_ 9 - 2 = 7; then 6, 5, 4, 3,
                                          // and 3 - (3 >> 2) = 3 for ever.
        let mut rttvar4 = vec![];
        for k in 0..7u64 {
            let t0 = 2000 + 1000 * k;
            e.sample_sent(ms(t0), ms(t0 + 500));
            rttvar4.push(e.rttvar().0 / 25_000_000);
        }
        assert_eq!(rttvar4, vec![7, 6, 5, 4, 3, 3, 3]);
        // t_rtxcur_ = (24 + 41) >> 3 = 8 ticks = 0.8 s, below minrto_ 1 s.
        assert_eq!(e.srtt(), Some(Dur(41 * 100_000_000 / 8)));
        assert_eq!(e.rto(), Dur::from_secs(1));
        // Before 2002-03-08 the minimum applies after the back-off:
        // max(0.8 s x 2, 1 s) = 1.6 s; then 3.2 s.
        e.back_off();
        assert_eq!(e.rto(), Dur::from_millis(1600));
        e.back_off();
        assert_eq!(e.rto(), Dur::from_millis(3200));
        assert_eq!(e.backoff(), 2);
        // A valid sample ends the back-off.
        e.sample_sent(ms(20_000), ms(20_500));
        assert_eq!(e.backoff(), 0);
    }

    #[test]
    fn with_rfc2988_the_minimum_applies_before_the_back_off() {
        let mut e = RttEstimator::ns2(
            Dur::from_secs(6),
            Dur::from_secs(1),
            Dur::from_secs(64),
            Ns2Timer {
                tick: Dur::from_millis(100),
                clamp_before_backoff: true,
            },
        );
        // The same samples as above: t_rtxcur_ 0.8 s.
        e.sample_sent(ms(30), ms(570));
        e.sample_sent(ms(590), ms(1130));
        for k in 0..7u64 {
            let t0 = 2000 + 1000 * k;
            e.sample_sent(ms(t0), ms(t0 + 500));
        }
        assert_eq!(e.rto(), Dur::from_secs(1));
        // max(0.8 s, 1 s) x 2 = 2 s (not 1.6 s), then 4, 8, 16, 32, 64, 64.
        let mut rtos = vec![];
        for _ in 0..8 {
            e.back_off();
            rtos.push(e.rto().0 / 1_000_000_000);
        }
        assert_eq!(rtos, vec![2, 4, 8, 16, 32, 64, 64, 64]);
        // The multiplier stopped at 64: the timeout reached maxrto_.
        assert_eq!(e.backoff(), 6);
    }

    #[test]
    fn a_back_off_beyond_eight_forgets_srtt_and_the_next_sample_starts_afresh() {
        let mut e = ns2_2001();
        e.sample_sent(ms(30), ms(570)); // t_srtt_ 40, t_rttvar_ 10
        for _ in 0..3 {
            e.back_off(); // x2, x4, x8: SRTT kept
        }
        assert_eq!(e.srtt(), Some(Dur::from_millis(500)));
        // x16 > 8: t_rttvar_ += t_srtt_ >> 3 = 10 + 5 = 15; t_srtt_ = 0.
        e.back_off();
        assert_eq!(e.srtt(), None);
        assert_eq!(e.rttvar(), Dur::from_millis(375));
        // t_rtxcur_ is unchanged (1.5 s) until a sample: 1.5 x 16 = 24 s.
        assert_eq!(e.rto(), Dur::from_secs(24));
        // The next sample is a first one: SRTT 7 ticks, RTTVAR 3.5.
        e.sample_sent(ms(10_000), ms(10_700));
        assert_eq!(e.srtt(), Some(Dur::from_millis(700)));
        assert_eq!(e.rttvar(), Dur::from_millis(350));
        // ((14 << 3) + 56) >> 3 = 21 ticks.
        assert_eq!(e.rto(), Dur::from_millis(2100));
    }

    #[test]
    fn timestamps_round_to_whole_ticks_and_the_timeout_is_at_least_two_ticks() {
        // tcpTick_ 10 ms (from 2002-03-08), no minimum, a tiny initial RTO.
        let mut e = RttEstimator::ns2(
            Dur::from_millis(5),
            Dur::ZERO,
            Dur::from_secs(60),
            Ns2Timer {
                tick: Dur::from_millis(10),
                clamp_before_backoff: true,
            },
        );
        assert_eq!(e.rto(), Dur::from_millis(20));
        // int(254 ms / 10 ms + 0.5) = 25 ticks; int(255/10 + 0.5) = 26.
        e.sample(Dur::from_millis(254));
        assert_eq!(e.latest(), Some(Dur::from_millis(250)));
        let mut f = e.restarted(Dur::from_secs(3));
        assert_eq!(f.rto(), Dur::from_secs(3));
        f.sample(Dur::from_millis(255));
        assert_eq!(f.latest(), Some(Dur::from_millis(260)));
        assert_eq!(f.ns2_timer(), e.ns2_timer());
    }
}
