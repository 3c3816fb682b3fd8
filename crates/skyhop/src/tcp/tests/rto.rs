//! The retransmission timer, RFC 6298: SRTT/RTTVAR, the minimum RTO,
//! exponential back-off and Karn's rule.

use super::harness::*;
use crate::engine::time::{Dur, Time};

#[test]
fn srtt_and_rttvar_follow_rfc_6298_over_three_samples_one_timed_segment_at_a_time() {
    let mut h = H::new(cfg("newreno")); // IW 1; min RTO 1 s; G = 1 ms
    assert_eq!(h.at(0).app(UNLIMITED), "0"); // timed: segment 0
    assert_eq!(h.s.srtt(), None);
    assert_eq!(h.s.rto(), Dur::from_secs(1)); // (2.1) initial RTO
                                              // (2.2) first sample R = 500 ms: SRTT = R, RTTVAR = R/2, RTO = SRTT +
                                              // max(G, 4 RTTVAR) = 1500 ms.
    assert_eq!(h.at(500).ack(1), "1 2"); // timed: segment 1, sent at 500
    assert_eq!(h.s.srtt(), Some(Dur::from_millis(500)));
    assert_eq!(h.s.core.rtt.rttvar(), Dur::from_millis(250));
    assert_eq!(h.s.rto(), Dur::from_millis(1500));
    assert_eq!(h.poll_ms(), Some(2000)); // (5.3) restarted on new data ACKed
                                         // (2.3) R' = 700 ms: RTTVAR = 3/4 250 + 1/4 |500 - 700| = 237.5 ms,
                                         // SRTT = 7/8 500 + 1/8 700 = 525 ms, RTO = 525 + 950 = 1475 ms.
    assert_eq!(h.at(1200).ack(2), "3 4"); // timed: segment 3, sent at 1200
    assert_eq!(h.s.core.rtt.rttvar(), Dur(237_500_000));
    assert_eq!(h.s.srtt(), Some(Dur::from_millis(525)));
    assert_eq!(h.s.rto(), Dur::from_millis(1475));
    // ACK 3 ends no timed segment: no sample.
    assert_eq!(h.at(1210).ack(3), "5 6");
    assert_eq!(h.s.srtt(), Some(Dur::from_millis(525)));
    // R' = 400 ms: RTTVAR = 3/4 237.5 + 1/4 125 = 209.375 ms, SRTT = 7/8 525
    // + 1/8 400 = 509.375 ms, RTO = 509.375 + 837.5 = 1346.875 ms.
    assert_eq!(h.at(1600).ack(4), "7 8");
    assert_eq!(h.s.core.rtt.rttvar(), Dur(209_375_000));
    assert_eq!(h.s.srtt(), Some(Dur(509_375_000)));
    assert_eq!(h.s.rto(), Dur(1_346_875_000));
    assert_eq!(h.s.poll_at(), Some(Time(1_600_000_000 + 1_346_875_000)));
}

#[test]
fn rto_backs_off_from_one_to_two_to_four_seconds_and_a_fresh_sample_ends_the_back_off() {
    let mut h = H::new(cfg("newreno"));
    assert_eq!(h.at(0).app(UNLIMITED), "0");
    assert_eq!(h.poll_ms(), Some(1000));
    // (5.4)-(5.6): retransmit the earliest segment, double the RTO, restart.
    assert_eq!(h.at(1000).timer(), "R0");
    assert_eq!(h.poll_ms(), Some(3000)); // 1 s -> 2 s
    assert_eq!(h.at(3000).timer(), "R0");
    assert_eq!(h.poll_ms(), Some(7000)); // 2 s -> 4 s
    assert_eq!(h.at(7000).timer(), "R0");
    assert_eq!(h.poll_ms(), Some(15000)); // 4 s -> 8 s
    assert_eq!(h.s.stats.timeouts, 3);
    // The ACK of the (thrice) retransmitted segment: Karn, no sample; the
    // backed-off RTO stays for the next segment. ssthresh = 2 SMSS after the
    // timeouts, so slow start: cwnd 1000 -> 2000, segments 1 and 2.
    assert_eq!(h.at(7300).ack(1), "1 2"); // timed: 1, sent at 7300
    assert_eq!(h.s.srtt(), None);
    assert_eq!(h.s.rto(), Dur::from_secs(8));
    assert_eq!(h.poll_ms(), Some(15_300));
    // A fresh sample from new data (600 ms): SRTT 600, RTTVAR 300, RTO
    // 1800 ms, back-off gone. Congestion avoidance: cwnd 2000 + 500.
    assert_eq!(h.at(7900).ack(2), "3");
    assert_eq!(h.s.srtt(), Some(Dur::from_millis(600)));
    assert_eq!(h.s.rto(), Dur::from_millis(1800));
    assert_eq!(h.poll_ms(), Some(9700));
}

#[test]
fn karn_no_rtt_sample_from_an_ack_covering_a_segment_retransmitted_by_the_timer() {
    let mut h = H::new(cfg("newreno"));
    h.prime_rtt(600, 40);
    assert_eq!(h.at(0).app(UNLIMITED), "0"); // timed
    assert_eq!(h.at(1000).timer(), "R0");
    // The original was only late: its ACK comes 1300 ms after it was sent.
    // Taken as a sample it would move SRTT to 7/8 600 + 1/8 1300 = 687.5 ms
    // and end the back-off.
    assert_eq!(h.at(1300).ack(1), "1 2");
    assert_eq!(h.s.srtt(), Some(Dur::from_millis(600)));
    assert_eq!(h.s.core.rtt.backoff(), 1);
}

#[test]
fn karn_no_rtt_sample_from_an_ack_covering_a_fast_retransmission() {
    let mut c = cfg("newreno");
    c.initial_window = 4;
    let mut h = H::new(c);
    h.prime_rtt(600, 40);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3"); // timed: segment 0
                                                   // 0 is lost; 1, 2, 3 give three duplicate ACKs: R0; cwnd = 2000 + 3000
                                                   // lets 4 out (timed: 4, sent at 630).
    assert_eq!(h.at(610).ack(0), "");
    assert_eq!(h.at(620).ack(0), "");
    assert_eq!(h.at(630).ack(0), "R0 4");
    // R0's ACK covers 0..3, sent at 0: as a sample, 1240 ms.
    assert_eq!(h.at(1240).ack(4), "5");
    assert_eq!(h.s.srtt(), Some(Dur::from_millis(600)));
    // 4 was never retransmitted: its ACK is a valid sample (620 ms).
    h.at(1250).ack(5);
    assert_eq!(h.s.core.rtt.latest(), Some(Dur::from_millis(620)));
}

#[test]
fn the_timer_restarts_on_each_ack_of_new_data_and_stops_when_everything_is_acknowledged() {
    let mut c = cfg("newreno");
    c.initial_window = 3;
    let mut h = H::new(c);
    assert_eq!(h.at(0).app(3 * MSS), "0 1 2");
    assert_eq!(h.poll_ms(), Some(1000)); // (5.1) started by the first send
                                         // (5.3) an ACK of new data restarts it, with the new RTO: sample 500 ms,
                                         // RTO 1500 ms.
    assert_eq!(h.at(500).ack(1), "");
    assert_eq!(h.poll_ms(), Some(2000));
    // A duplicate ACK does not.
    assert_eq!(h.at(510).ack(1), "");
    assert_eq!(h.poll_ms(), Some(2000));
    assert_eq!(h.at(520).ack(2), "");
    assert_eq!(h.poll_ms(), Some(2020));
    // (5.2) all outstanding data acknowledged: off.
    assert_eq!(h.at(530).ack(3), "");
    assert_eq!(h.poll_ms(), None);
}

#[test]
fn acks_of_data_never_sent_and_acks_older_than_snd_una_are_ignored() {
    let mut c = cfg("newreno");
    c.initial_window = 4;
    let mut h = H::new(c);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3");
    // An ACK of two segments adds min(N, SMSS) = one (RFC 5681 eq. 2): cwnd 5000.
    assert_eq!(h.at(500).ack(2), "4 5 6");
    let (una, cwnd) = (h.s.snd_una(), h.cwnd());
    // Beyond snd_max (7000): acknowledges nothing we sent (RFC 9293 3.10.7.4).
    assert_eq!(h.at(510).ack(8), "");
    // Below snd_una: an old ACK, not a duplicate; its window is stale too.
    assert_eq!(h.at(520).ack_wnd(1000, 0), "");
    assert_eq!((h.s.snd_una(), h.cwnd()), (una, cwnd));
    assert_eq!(h.s.rwnd(), BIG_WND);
    assert_eq!(h.s.stats.fast_recoveries, 0);
}
