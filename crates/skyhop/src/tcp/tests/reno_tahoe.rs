//! Reno and Tahoe (RFC 5681 section 3.2; Tahoe as in 4.3BSD-Tahoe / ns-2).
//! Same path model and loss pattern as `newreno.rs`.

use super::harness::*;
use super::newreno::three_losses_until_1230_ms;

#[test]
fn reno_leaves_recovery_on_the_first_new_ack_so_three_losses_in_one_window_end_in_a_timeout() {
    let mut h = three_losses_until_1230_ms("reno");
    // Third duplicate ACK: as NewReno, ssthresh 5000, cwnd 8000, R2.
    assert_eq!(h.at(670).ack(2), "R2");
    assert_eq!((h.ssthresh(), h.cwnd()), (5000, 8000));
    assert_eq!(h.at(680).ack(2), "");
    assert_eq!(h.at(700).ack(2), "");
    assert_eq!(h.at(1220).ack(2), "12");
    assert_eq!(h.at(1230).ack(2), "13");
    // R2's ACK (5) is new: RFC 5681 (3.2) step 6, Reno deflates to
    // cwnd = ssthresh = 5000 and leaves recovery. Flight 14000 - 5000 = 9000
    // exceeds cwnd: nothing goes out, and the hole at 5 is not repaired.
    assert_eq!(h.at(1280).ack(5), "");
    assert!(!h.s.in_recovery());
    assert_eq!(h.cwnd(), 5000);
    assert_eq!(h.poll_ms(), Some(2280));
    // Only 12 and 13 are left to arrive above the hole: two duplicate ACKs,
    // one short of a second fast retransmit.
    assert_eq!(h.at(1830).ack(5), "");
    assert_eq!(h.at(1840).ack(5), "");
    assert_eq!(h.s.stats.fast_recoveries, 1);
    // RTO: ssthresh = (14000 - 5000)/2 = 4500, cwnd = 1, retransmit 5.
    assert_eq!(h.at(2280).timer(), "R5"); // leaves 2290, ACK 8 at 2890
    assert_eq!((h.cwnd(), h.ssthresh()), (MSS, 4500));
    // Slow start and go-back-N from 8: 9 was received but goes again.
    assert_eq!(h.at(2890).ack(8), "R8 R9");
    assert_eq!(h.cwnd(), 2 * MSS);
    assert_eq!(h.s.stats.timeouts, 1);
}

#[test]
fn reno_halves_again_for_a_second_loss_in_the_same_window_where_newreno_halves_once() {
    // The pattern of newreno.rs's last test: IW = ssthresh = 20 segments, 0
    // and 10 lost, ACK of segment i at 610 + 10 i.
    let mut c = cfg("reno");
    c.initial_window = 20;
    c.initial_ssthresh = 20 * MSS;
    let mut h = H::new(c);
    h.prime_rtt(610, 40);
    h.at(0).app(UNLIMITED);
    assert_eq!(h.at(620).ack(0), "");
    assert_eq!(h.at(630).ack(0), "");
    assert_eq!(h.at(640).ack(0), "R0"); // ssthresh 10000, cwnd 13000
    let mut sent = Vec::new();
    for t in (650..=700).step_by(10).chain((720..=800).step_by(10)) {
        let out = h.at(t).ack(0);
        if !out.is_empty() {
            sent.push(out);
        }
    }
    assert_eq!(sent.join(" "), "20 21 22 23 24 25 26 27");
    // R0's ACK (10) ends Reno's recovery: cwnd = 10000 < flight 18000.
    assert_eq!(h.at(1250).ack(10), "");
    assert_eq!(h.cwnd(), 10_000);
    // 20..27 arrive above the hole at 10: the third duplicate ACK starts a
    // second fast retransmit, which halves again: ssthresh = FlightSize/2 =
    // (28000 - 10000)/2 = 9000, cwnd = 9000 + 3000.
    assert_eq!(h.at(1340).ack(10), "");
    assert_eq!(h.at(1350).ack(10), "");
    assert_eq!(h.at(1360).ack(10), "R10"); // ACK 28 back at 1970
    assert_eq!((h.ssthresh(), h.cwnd()), (9000, 12_000));
    // Five more duplicate ACKs inflate cwnd to 17000: una 10000 + 17000 =
    // 27000 < snd_nxt 28000, nothing new.
    for t in (1370..=1410).step_by(10) {
        assert_eq!(h.at(t).ack(10), "");
    }
    // R10's ACK: recovery ends at cwnd = 9000 (NewReno: 10000, one recovery).
    assert_eq!(h.at(1970).ack(28), "28 29 30 31 32 33 34 35 36");
    assert_eq!(h.cwnd(), 9000);
    assert_eq!(h.s.stats.fast_recoveries, 2);
    assert_eq!(h.s.stats.timeouts, 0);
}

#[test]
fn tahoe_falls_to_one_segment_after_three_duplicate_acks_and_goes_back_n() {
    let mut h = three_losses_until_1230_ms("tahoe");
    // Third duplicate ACK: ssthresh = 10000/2 = 5000, cwnd = 1 SMSS,
    // snd_nxt back to una: the resend of 2 is all cwnd allows. Timer 1670.
    assert_eq!(h.at(670).ack(2), "R2"); // ACK 5 back at 1280
    assert_eq!((h.ssthresh(), h.cwnd()), (5000, MSS));
    assert!(!h.s.in_recovery(), "Tahoe has no fast recovery");
    assert_eq!(h.poll_ms(), Some(1670));
    // Further duplicate ACKs do nothing: no inflation.
    for t in [680, 700, 1220, 1230] {
        assert_eq!(h.at(t).ack(2), "");
    }
    // ACK 5: slow start (cwnd 2000) from snd_nxt = 5000: 5 and 6, though 6
    // was received (go-back-N).
    assert_eq!(h.at(1280).ack(5), "R5 R6"); // leave 1290, 1300: ACK 8 at 1890, dup at 1900
    assert_eq!(h.cwnd(), 2 * MSS);
    assert_eq!(h.at(1890).ack(8), "R8 R9 R10"); // cwnd 3000; ACK 12 at 2500
    assert_eq!(h.at(1900).ack(8), ""); // the receiver's answer to the needless R6
                                       // ACK 12: cwnd 4000; past snd_max = 12000 everything is new data.
    assert_eq!(h.at(2500).ack(12), "12 13 14 15");
    assert_eq!(h.cwnd(), 4 * MSS);
    assert_eq!(h.s.stats.fast_recoveries, 1);
    assert_eq!(h.s.stats.timeouts, 0);
    assert_eq!(h.s.stats.retransmissions, 6);
}
