//! Round-trip time estimation and the retransmission timeout: RFC 6298,
//! or ns-2's tick-granular timer ([`Ns2Timer`], `rtt/ns2.rs`), the one the
//! published studies ran.

use crate::engine::time::{Dur, Time};

mod ns2;
use ns2::Ns2State;
pub use ns2::Ns2Timer;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Dur>,
    rttvar: Dur,
    min_rtt: Option<Dur>,
    latest: Option<Dur>,
    /// RTO before back-off.
    rto: Dur,
    /// Number of consecutive back-offs (RFC 6298 (5.5)).
    backoff: u32,
    rto_min: Dur,
    rto_max: Dur,
    granularity: Dur,
    /// Floor of the variation term (Linux: `rto_min`; RFC 6298: none).
    var_floor: Dur,
    /// ns-2's timer in place of RFC 6298's arithmetic (`None`: RFC 6298).
    ns2: Option<Box<Ns2State>>,
}

impl RttEstimator {
    /// RFC 6298 (2.1): until a sample is taken, RTO = the initial RTO.
    pub fn new(rto_initial: Dur, rto_min: Dur, rto_max: Dur, granularity: Dur) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Dur::ZERO,
            min_rtt: None,
            latest: None,
            rto: rto_initial,
            backoff: 0,
            rto_min,
            rto_max,
            granularity,
            var_floor: Dur::ZERO,
            ns2: None,
        }
    }

    /// ns-2's retransmission timer (`Agent/TCP`, tcp.cc): RTT samples and
    /// SRTT/RTTVAR in whole ticks of `timer.tick`, the RTO in ticks, its
    /// bounds and back-off as ns-2 applies them. `rto_initial` is ns-2's
    /// `rtxcur_init_` (6 s until 2006-01-21, 3 s after), `rto_min` its
    /// `minrto_`, `rto_max` its `maxrto_`.
    pub fn ns2(rto_initial: Dur, rto_min: Dur, rto_max: Dur, timer: Ns2Timer) -> Self {
        let mut e = RttEstimator::new(rto_initial, rto_min, rto_max, timer.tick);
        e.ns2 = Some(Box::new(Ns2State::new(timer, rto_initial)));
        e
    }

    /// A fresh estimator of the same kind and bounds, with `rto_initial`
    /// as its initial RTO (after a lost SYN, RFC 6298 (5.7)).
    pub fn restarted(&self, rto_initial: Dur) -> Self {
        let fresh = match self.ns2.as_deref() {
            Some(n) => RttEstimator::ns2(rto_initial, self.rto_min, self.rto_max, n.timer()),
            None => RttEstimator::new(rto_initial, self.rto_min, self.rto_max, self.granularity),
        };
        fresh.with_var_floor(self.var_floor)
    }

    /// ns-2's timer, when this estimator runs it.
    pub fn ns2_timer(&self) -> Option<Ns2Timer> {
        self.ns2.as_deref().map(Ns2State::timer)
    }

    /// Linux's timeout: RTO = SRTT + max(4·RTTVAR, `floor`) (its RTTVAR is
    /// never below `rto_min`, tcp_rtt_estimator), where RFC 6298 gives
    /// max(SRTT + 4·RTTVAR, RTO_min). On a long path with a steady RTT the
    /// RFC's timeout shrinks to about SRTT and fires spuriously when one ACK
    /// is delayed (a lone segment waiting for the delayed-ACK timer); Linux's
    /// keeps `rto_min` of slack above SRTT.
    pub fn with_var_floor(mut self, floor: Dur) -> Self {
        self.var_floor = floor;
        self
    }

    /// A valid sample from a segment sent at `sent` and acknowledged at
    /// `now` (Karn's rule is the caller's duty). Returns the sample taken:
    /// `now - sent`, or with ns-2's timer the whole ticks between the two
    /// (tcp.cc `rtt_update` without timestamps).
    pub fn sample_sent(&mut self, sent: Time, now: Time) -> Dur {
        if let Some(n) = self.ns2.as_deref_mut() {
            let r = n.sample_ticks(n.ticks_between(sent, now));
            self.note_sample(r);
            return r;
        }
        let r = now - sent;
        self.sample(r);
        r
    }

    /// Take a valid sample (Karn's rule is the caller's duty: never a
    /// retransmitted segment). With ns-2's timer, `r` is rounded to whole
    /// ticks, as ns-2 does with timestamps (tcp.cc `rtt_update`).
    pub fn sample(&mut self, r: Dur) {
        if let Some(n) = self.ns2.as_deref_mut() {
            let r = n.sample_ticks(n.ticks_rounded(r));
            self.note_sample(r);
            return;
        }
        match self.srtt {
            None => {
                // RFC 6298 (2.2): SRTT <- R, RTTVAR <- R/2.
                self.srtt = Some(r);
                self.rttvar = Dur(r.0 / 2);
            }
            Some(srtt) => {
                // RFC 6298 (2.3): RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|; SRTT <- 7/8 SRTT + 1/8 R'.
                let diff = srtt.0.abs_diff(r.0);
                self.rttvar = Dur((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(Dur((7 * srtt.0 + r.0) / 8));
            }
        }
        self.note_sample(r);
        let srtt = self.srtt.unwrap();
        // RFC 6298 (2.2)/(2.3): RTO <- SRTT + max(G, K*RTTVAR), K = 4.
        // (With a variation floor: Linux's SRTT + max(4·RTTVAR, rto_min).)
        let var = self
            .granularity
            .0
            .max(4 * self.rttvar.0)
            .max(self.var_floor.0);
        let rto = srtt + Dur(var);
        // RFC 6298 (2.4) minimum, (2.5) maximum.
        self.rto = rto.max(self.rto_min).min(self.rto_max);
        // Karn: a fresh sample from new data ends the back-off.
        self.backoff = 0;
    }

    /// The smallest and the latest sample.
    fn note_sample(&mut self, r: Dur) {
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.latest = Some(r);
    }

    /// The current timeout, back-off applied: RTO * 2^backoff, capped at the maximum.
    pub fn rto(&self) -> Dur {
        if let Some(n) = self.ns2.as_deref() {
            return n.rto(self.rto_min, self.rto_max);
        }
        let mult = 1u64.checked_shl(self.backoff).unwrap_or(u64::MAX);
        Dur(self.rto.0.saturating_mul(mult)).min(self.rto_max.max(self.rto))
    }

    /// RFC 6298 (5.5): back off the timer after an expiry.
    pub fn back_off(&mut self) {
        if let Some(n) = self.ns2.as_deref_mut() {
            n.back_off(self.rto_min, self.rto_max);
            return;
        }
        if self.rto() < self.rto_max {
            self.backoff += 1;
        }
    }

    /// Back-offs since the last valid sample (the exponent: the timeout
    /// is multiplied by 2^backoff).
    pub fn backoff(&self) -> u32 {
        match self.ns2.as_deref() {
            Some(n) => n.backoff_exponent(),
            None => self.backoff,
        }
    }
    pub fn srtt(&self) -> Option<Dur> {
        match self.ns2.as_deref() {
            Some(n) => n.srtt(),
            None => self.srtt,
        }
    }
    pub fn rttvar(&self) -> Dur {
        match self.ns2.as_deref() {
            Some(n) => n.rttvar(),
            None => self.rttvar,
        }
    }
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }
    pub fn latest(&self) -> Option<Dur> {
        self.latest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(
            Dur::from_secs(1),
            Dur::from_secs(1),
            Dur::from_secs(60),
            Dur::from_millis(1),
        )
    }

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        let mut e = est();
        e.sample(Dur::from_millis(500));
        assert_eq!(e.srtt(), Some(Dur::from_millis(500)));
        assert_eq!(e.rttvar(), Dur::from_millis(250));
        // 500 + 4*250 = 1500 ms
        assert_eq!(e.rto(), Dur::from_millis(1500));
    }

    #[test]
    fn second_sample_follows_the_rfc_6298_filters() {
        let mut e = est();
        e.sample(Dur::from_millis(500));
        e.sample(Dur::from_millis(700));
        // RTTVAR = 3/4*250 + 1/4*200 = 237.5 ms; SRTT = 7/8*500 + 1/8*700 = 525 ms
        assert_eq!(e.rttvar(), Dur(237_500_000));
        assert_eq!(e.srtt(), Some(Dur::from_millis(525)));
        assert_eq!(e.rto(), Dur(525_000_000 + 950_000_000));
    }

    #[test]
    fn rto_is_floored_at_the_minimum() {
        let mut e = est();
        for _ in 0..50 {
            e.sample(Dur::from_millis(20));
        }
        assert_eq!(e.rto(), Dur::from_secs(1));
    }

    #[test]
    fn with_linux_variation_floor_the_rto_keeps_rto_min_above_srtt() {
        // 200 ms minimum, a steady 540 ms round trip: RTTVAR decays towards
        // 0, so RFC 6298 gives RTO -> SRTT (+ G), where Linux keeps
        // SRTT + 200 ms.
        let mk = || {
            RttEstimator::new(
                Dur::from_secs(1),
                Dur::from_millis(200),
                Dur::from_secs(120),
                Dur::from_millis(1),
            )
        };
        let (mut rfc, mut linux) = (mk(), mk().with_var_floor(Dur::from_millis(200)));
        for _ in 0..100 {
            rfc.sample(Dur::from_millis(540));
            linux.sample(Dur::from_millis(540));
        }
        assert_eq!(rfc.rttvar(), Dur::ZERO);
        assert_eq!(rfc.rto(), Dur::from_millis(541));
        assert_eq!(linux.rto(), Dur::from_millis(740));
        // A larger variation wins over the floor: first sample 500 ms gives
        // RTTVAR 250 ms, 4·RTTVAR = 1 s > 200 ms.
        let mut l = mk().with_var_floor(Dur::from_millis(200));
        l.sample(Dur::from_millis(500));
        assert_eq!(l.rto(), Dur::from_millis(1500));
    }

    #[test]
    fn back_off_doubles_until_the_maximum_and_a_sample_resets_it() {
        let mut e = est();
        e.sample(Dur::from_millis(500)); // RTO 1.5 s
        e.back_off();
        assert_eq!(e.rto(), Dur::from_secs(3));
        e.back_off();
        assert_eq!(e.rto(), Dur::from_secs(6));
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.rto(), Dur::from_secs(60));
        e.sample(Dur::from_millis(500));
        assert_eq!(e.backoff(), 0);
        assert!(e.rto() < Dur::from_secs(2));
    }
}
