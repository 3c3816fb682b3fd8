//! NewReno (RFC 6582): Impatient against Slow-but-Steady on one window with
//! three losses.
//!
//! The path of every trace in this file (and in `reno_tahoe.rs`): a
//! bottleneck that sends one 1000-byte segment per 10 ms, 300 ms each way, so
//! a segment handed to it at t leaves at D = max(t, previous D) + 10 ms and its
//! ACK is back at D + 600 ms. The RTT estimator is primed at 610 ms, so the
//! RTO is the 1 s minimum (RFC 6298 (2.4)): shorter than the two round trips a
//! three-loss NewReno recovery needs after its first partial ACK, which is
//! where the two flavours part.
//!
//! The window: IW = 10 segments, ssthresh = 10 segments (congestion
//! avoidance), segments 0..9 sent at t = 0, leaving at 10, 20, ..., 100 ms;
//! segments 2, 5 and 8 are lost.

use super::harness::*;
use crate::engine::time::Dur;

/// The part all Reno-family variants share: up to the seventh duplicate ACK.
pub(super) fn three_losses_until_1230_ms(variant: &str) -> H {
    let mut c = cfg(variant);
    c.initial_window = 10;
    c.initial_ssthresh = 10 * MSS;
    let mut h = H::new(c);
    h.prime_rtt(610, 40);
    assert_eq!(h.s.rto(), Dur::from_secs(1));
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    // Congestion avoidance: cwnd 10000 -> 10100 -> 10199, one new segment per ACK.
    assert_eq!(h.at(610).ack(1), "10"); // 10 leaves at 620, ACK at 1220
    assert_eq!(h.at(620).ack(2), "11"); // 11 leaves at 630, ACK at 1230
    assert_eq!(h.cwnd(), 10_199);
    // 2 is lost; 3 and 4 give duplicate ACKs 1 and 2.
    assert_eq!(h.at(640).ack(2), "");
    assert_eq!(h.at(650).ack(2), "");
    assert_eq!(h.s.stats.fast_recoveries, 0);
    h
}

/// NewReno from the third duplicate ACK to the second partial ACK (both flavours).
fn newreno_until_second_partial_ack(variant: &str) -> H {
    let mut h = three_losses_until_1230_ms(variant);
    // Third duplicate ACK (segment 6): RFC 6582 step 2 / RFC 5681 (3.2) steps
    // 2-3: ssthresh = FlightSize/2 = (12000 - 2000)/2 = 5000, retransmit 2,
    // cwnd = ssthresh + 3 SMSS = 8000, recover = 12000. R2 leaves at 680,
    // its ACK is back at 1280. The timer restarts: 670 + 1000.
    assert_eq!(h.at(670).ack(2), "R2");
    assert_eq!((h.ssthresh(), h.cwnd()), (5000, 8000));
    assert!(h.s.in_recovery());
    assert_eq!(h.poll_ms(), Some(1670));
    // Step 3: each further duplicate ACK inflates cwnd by one SMSS; new data
    // goes out once una + cwnd passes snd_nxt = 12000.
    assert_eq!(h.at(680).ack(2), ""); // 7:  cwnd 9000
    assert_eq!(h.at(700).ack(2), ""); // 9:  cwnd 10000 (8 is lost)
    assert_eq!(h.at(1220).ack(2), "12"); // 10: cwnd 11000, limit 13000; ACK at 1830
    assert_eq!(h.at(1230).ack(2), "13"); // 11: cwnd 12000; ACK at 1840
    assert_eq!(h.cwnd(), 12_000);
    // R2 arrives; the receiver holds 3, 4: ACK 5, a partial ACK (5000 < recover
    // 12000). RFC 6582 step 5: retransmit 5; deflate by the 3000 bytes
    // acknowledged and add back one SMSS: cwnd = 12000 - 3000 + 1000 = 10000;
    // una 5000 + 10000 = 15000 lets 14 out. First partial ACK: both flavours
    // reset the timer, to 1280 + 1000 = 2280.
    assert_eq!(h.at(1280).ack(5), "R5 14"); // R5 leaves 1290 (ACK 1890), 14 at 1300 (ACK 1900)
    assert_eq!(h.cwnd(), 10_000);
    assert_eq!(h.poll_ms(), Some(2280));
    // 12 and 13 arrive above the hole at 5: duplicate ACKs inflate again.
    assert_eq!(h.at(1830).ack(5), "15"); // cwnd 11000; 15 ACKed at 2440
    assert_eq!(h.at(1840).ack(5), "16"); // cwnd 12000; 16 ACKed at 2450
                                         // R5 arrives; the receiver holds 6, 7: ACK 8, the second partial ACK.
                                         // Retransmit 8; cwnd = 12000 - 3000 + 1000 = 10000; una 8000 + 10000 lets 17 out.
    assert_eq!(h.at(1890).ack(8), "R8 17"); // R8 ACKed at 2500, 17 at 2510
    assert_eq!(h.cwnd(), 10_000);
    assert!(h.s.in_recovery());
    h
}

#[test]
fn newreno_slow_but_steady_resets_the_timer_on_every_partial_ack_and_retransmits_one_hole_per_rtt()
{
    let mut h = newreno_until_second_partial_ack("newreno-sbs");
    // RFC 6582 section 4, Slow-but-Steady: the second partial ACK resets the
    // timer too, to 1890 + 1000.
    assert_eq!(h.poll_ms(), Some(2890));
    assert_eq!(h.at(1900).ack(8), "18"); // 14: cwnd 11000
    assert_eq!(h.at(2440).ack(8), "19"); // 15: cwnd 12000
    assert_eq!(h.at(2450).ack(8), "20"); // 16: cwnd 13000
                                         // R8 arrives; the receiver holds 9..16: ACK 17 >= recover 12000, a full
                                         // acknowledgement. RFC 6582 step 6: cwnd = ssthresh = 5000, recovery
                                         // ends; una 17000 + 5000 = 22000 lets 21 out.
    assert_eq!(h.at(2500).ack(17), "21");
    assert!(!h.s.in_recovery());
    assert_eq!((h.cwnd(), h.ssthresh()), (5000, 5000));
    assert_eq!(h.s.flight(), 5000);
    assert_eq!(h.poll_ms(), Some(3500));
    // Back in congestion avoidance: 5000 + 200, then + 192.
    assert_eq!(h.at(2510).ack(18), "22");
    assert_eq!(h.cwnd(), 5200);
    assert_eq!(h.at(2520).ack(19), "23");
    assert_eq!(h.cwnd(), 5392);
    // One recovery, one retransmission per hole, one per RTT, no timeout.
    assert_eq!(h.s.stats.timeouts, 0);
    assert_eq!(h.s.stats.fast_recoveries, 1);
    assert_eq!(h.s.stats.retransmissions, 3);
}

#[test]
fn newreno_impatient_keeps_the_timer_of_the_first_partial_ack_so_three_losses_end_in_a_timeout() {
    let mut h = newreno_until_second_partial_ack("newreno-impatient");
    // RFC 6582 section 4, Impatient: only the first partial ACK reset the
    // timer; it still expires at 2280, before R8's ACK can come back (2500).
    assert_eq!(h.poll_ms(), Some(2280));
    assert_eq!(h.at(1900).ack(8), "18"); // cwnd 11000
    assert_eq!(h.poll_ms(), Some(2280));
    // RTO (RFC 5681 (5) / RFC 6298 (5.4)-(5.6)): ssthresh = FlightSize/2 =
    // (19000 - 8000)/2 = 5500, cwnd = 1 SMSS, retransmit the first
    // unacknowledged segment, double the RTO, recover = 19000.
    assert_eq!(h.at(2280).timer(), "R8"); // leaves 2290; its duplicate ACK is back at 2890
    assert_eq!((h.cwnd(), h.ssthresh()), (MSS, 5500));
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.rto(), Dur::from_secs(2));
    assert_eq!(h.poll_ms(), Some(4280));
    // 15 and 16 arrive above the hole at 8: duplicate ACKs, no inflation now.
    assert_eq!(h.at(2440).ack(8), "");
    assert_eq!(h.at(2450).ack(8), "");
    // The first R8 arrives: ACK 17. Slow start (cwnd 2000) and go-back-N from
    // snd_nxt = 17000: 17 and 18 go out again though they are in flight.
    assert_eq!(h.at(2500).ack(17), "R17 R18"); // leave 2510, 2520: duplicate ACKs at 3110, 3120
    assert_eq!(h.cwnd(), 2 * MSS);
    assert_eq!(h.at(2510).ack(18), "19 20"); // cwnd 3000; leave 2530, 2540
    assert_eq!(h.at(2520).ack(19), "21 22"); // cwnd 4000
                                             // The receiver answers the needless resends (R8 at 2890, R17 at 3110,
                                             // R18 at 3120) with duplicate ACKs of 19. Three of them, but ACK 19000
                                             // does not exceed recover = 19000: RFC 6582 step 2, no fast retransmit.
    assert_eq!(h.at(2890).ack(19), "");
    assert_eq!(h.at(3110).ack(19), "");
    assert_eq!(h.at(3120).ack(19), "");
    assert_eq!(h.s.stats.fast_recoveries, 1);
    // 19 (new data, sent at 2510, never retransmitted) is ACKed at 3130: a
    // valid RTT sample of 620 ms, which ends the back-off.
    assert_eq!(h.at(3130).ack(20), "23 24"); // cwnd 5000
    assert_eq!(h.s.rto(), Dur::from_secs(1));
    assert_eq!(h.s.stats.timeouts, 1);
}

#[test]
fn newreno_leaves_recovery_on_the_full_ack_with_cwnd_equal_to_ssthresh_after_one_halving() {
    // Two losses 10 segments apart in a 20-segment window (see
    // reno_tahoe.rs for Reno on the same pattern). Same path model; IW = 20,
    // ssthresh = 20 segments; 0 and 10 lost; ACK of segment i at 610 + 10 i.
    let mut c = cfg("newreno");
    c.initial_window = 20;
    c.initial_ssthresh = 20 * MSS;
    let mut h = H::new(c);
    h.prime_rtt(610, 40);
    let all: Vec<String> = (0..20).map(|i| i.to_string()).collect();
    assert_eq!(h.at(0).app(UNLIMITED), all.join(" "));
    assert_eq!(h.at(620).ack(0), "");
    assert_eq!(h.at(630).ack(0), "");
    // Third duplicate ACK: ssthresh = 20000/2, cwnd = 13000, R0 (ACK at 1250).
    assert_eq!(h.at(640).ack(0), "R0");
    assert_eq!((h.ssthresh(), h.cwnd()), (10_000, 13_000));
    // Duplicate ACKs for 4..9 and 11..19 (10 is lost): cwnd 14000 .. 28000;
    // new data from cwnd 21000 on (una 0 + cwnd > 20000): 20..27.
    let mut sent = Vec::new();
    for t in (650..=700).step_by(10).chain((720..=800).step_by(10)) {
        let out = h.at(t).ack(0);
        if !out.is_empty() {
            sent.push(out);
        }
    }
    assert_eq!(sent.join(" "), "20 21 22 23 24 25 26 27");
    assert_eq!(h.cwnd(), 28_000);
    // R0 arrives: ACK 10, partial (recover = 20000): R10; cwnd = 28000 -
    // 10000 + 1000 = 19000; una 10000 + 19000 = 29000 lets 28 out.
    assert_eq!(h.at(1250).ack(10), "R10 28"); // R10's ACK at 1860
                                              // 20..27 arrive above the hole at 10: 8 duplicate ACKs, 8 new segments.
    let mut sent = Vec::new();
    for t in (1340..=1410).step_by(10) {
        sent.push(h.at(t).ack(10));
    }
    assert_eq!(sent.join(" "), "29 30 31 32 33 34 35 36");
    // R10 arrives: ACK 28 >= recover 20000. Full ACK: cwnd = ssthresh = 10000;
    // una 28000 + 10000 = 38000, snd_nxt 37000: 37 goes out.
    assert_eq!(h.at(1860).ack(28), "37");
    assert_eq!((h.cwnd(), h.ssthresh()), (10_000, 10_000));
    assert_eq!(h.s.stats.fast_recoveries, 1);
    assert_eq!(h.s.stats.retransmissions, 2);
}
