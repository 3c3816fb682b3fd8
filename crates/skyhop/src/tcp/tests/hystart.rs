//! HyStart++ (RFC 9406) in CUBIC's initial slow start (`tcp.hystart`),
//! driven ACK by ACK as a sender with timestamps drives it: every ACK
//! acknowledges one 1000-byte segment and carries an RTT sample.
//!
//! A round ends when the cumulative ACK passes the highest byte sent when
//! it began (SND.NXT, windowEnd). Slow start adds min(N, L·SMSS) per ACK
//! (L = 8 without pacing); after N_RTT_SAMPLE = 8 samples in a round, a
//! round minimum at least max(4 ms, min(16 ms, last/8)) above the last
//! round's starts Conservative Slow Start (a quarter of the growth); after
//! CSS_ROUNDS = 5 rounds of it, ssthresh = cwnd: congestion avoidance.

use crate::engine::time::{Dur, Time};
use crate::tcp::cc::{AckSample, CcState, CongestionOps, Cubic, HyStartPhase};
use crate::tcp::TcpConfig;

const MSS: u64 = 1000;

struct Run {
    c: Cubic,
    s: CcState,
    /// Cumulative ACK and highest byte sent (the sender sends what cwnd allows).
    una: u64,
    max: u64,
}

impl Run {
    fn new() -> Run {
        let cfg = TcpConfig {
            hystart: true,
            ..TcpConfig::default()
        };
        let s = CcState {
            cwnd: 8 * MSS,
            ssthresh: u64::MAX / 4,
            mss: MSS,
        };
        Run {
            c: Cubic::new(&cfg),
            s,
            una: 0,
            max: 8 * MSS,
        }
    }

    /// One ACK of the next segment with an RTT sample of `rtt_ms`.
    fn ack(&mut self, rtt_ms: u64) {
        let a = AckSample {
            rtt_sample: Some(Dur::from_millis(rtt_ms)),
            srtt: Some(Dur::from_millis(rtt_ms)),
            flight_bytes: self.max - self.una,
            ..AckSample::new_data(Time::ZERO, MSS)
        };
        self.una += MSS;
        self.c.on_ack(&mut self.s, &a);
        // The sender fills the window with whole segments.
        self.max = self.max.max(self.una + self.s.cwnd / MSS * MSS);
    }

    /// The ACKs of one whole round (everything outstanding when it began).
    fn round(&mut self, rtt_ms: &dyn Fn(u64) -> u64) -> u64 {
        let end = self.max;
        let mut k = 0;
        while self.una < end {
            self.ack(rtt_ms(k));
            k += 1;
        }
        k
    }

    fn phase(&self) -> HyStartPhase {
        self.c.hystart().unwrap().phase()
    }
}

#[test]
fn a_delay_rise_of_an_eighth_of_the_round_trip_starts_conservative_slow_start_then_avoidance() {
    let mut r = Run::new();
    // Round 1: 8 ACKs at 100 ms, cwnd 8 → 16 segments (one per ACK).
    assert_eq!(r.round(&|_| 100), 8);
    assert_eq!((r.s.cwnd, r.phase()), (16 * MSS, HyStartPhase::SlowStart));
    // Round 2: 16 ACKs, still 100 ms: no rise (last round's minimum 100).
    assert_eq!(r.round(&|_| 100), 16);
    assert_eq!((r.s.cwnd, r.phase()), (32 * MSS, HyStartPhase::SlowStart));
    // Round 3: the queue builds: 113 ms from the first ACK. The threshold
    // is min(16, max(4, 100/8)) = 12.5 ms: 113 >= 112.5. At the 8th
    // sample (cwnd 32 + 8 = 40 segments) CSS begins; the other 24 ACKs of
    // the round grow a quarter segment each: + 6 segments = 46.
    assert_eq!(r.round(&|_| 113), 32);
    assert_eq!(r.phase(), HyStartPhase::Css(0));
    assert_eq!(r.s.cwnd, 46 * MSS);
    // Rounds 4 to 7 in CSS at a steady 113 ms (not below the baseline):
    // a quarter segment per ACK, ×1.25 per round.
    let mut expect = 46 * MSS;
    for k in 1..=4 {
        let acks = r.round(&|_| 113);
        expect += acks * MSS / 4;
        assert_eq!((r.s.cwnd, r.phase()), (expect, HyStartPhase::Css(k)));
    }
    // The first ACK of round 8 completes CSS_ROUNDS rounds: ssthresh =
    // cwnd, congestion avoidance (CUBIC's own growth from the next ACK).
    r.ack(113);
    assert_eq!(r.phase(), HyStartPhase::Off);
    assert_eq!(r.s.ssthresh, expect);
}

#[test]
fn a_spurious_rise_returns_to_slow_start_and_a_loss_ends_hystart() {
    let mut r = Run::new();
    r.round(&|_| 100);
    r.round(&|_| 100);
    // Round 3 rises to 113 ms (CSS at the 8th ACK, 40 segments)...
    let end = r.max;
    for _ in 0..8 {
        r.ack(113);
    }
    assert_eq!((r.phase(), r.s.cwnd), (HyStartPhase::Css(0), 40 * MSS));
    // ...and round 4 falls back below the CSS baseline (113 ms): after 8
    // samples of 101 ms, slow start again (RFC 9406 section 4.2).
    for _ in 0..24 {
        r.ack(113);
    }
    assert_eq!(r.s.cwnd, 46 * MSS);
    assert!(r.una == end);
    for _ in 0..8 {
        r.ack(101);
    }
    assert_eq!(r.phase(), HyStartPhase::SlowStart);
    // A loss: CUBIC's reduction, and HyStart++ is done for good.
    let flight = r.max - r.una;
    r.c.on_loss(&mut r.s, Time::ZERO, flight);
    assert_eq!(r.phase(), HyStartPhase::Off);
}
