//! RFC 7323 timestamps (`tcp.timestamps`): what the receiver echoes, and the
//! RTT sample every ACK of new data gives the sender, retransmitted data
//! included, so that the back-off of a timeout ends with the first ACK of
//! its retransmission.

use super::harness::*;
use crate::engine::time::Dur;

#[test]
fn the_receiver_echoes_the_earliest_unacknowledged_segment_and_a_retransmission_that_fills_the_hole(
) {
    // Delayed ACKs (every second segment or 200 ms), SACK.
    let mut rx = Rx::new(1 << 20, 3, true);
    rx.r.set_timestamps(true);
    let w = 1 << 20;
    // Segment 0 (TSval 10) at the left edge: SEG.SEQ 0 <= Last.ACK.sent 0,
    // so TS.Recent = 10 (RFC 7323 section 4.3 (2)). The ACK is delayed.
    assert_eq!(rx.seg_ts(100, 0, 10), "");
    // Segment 1 (TSval 11): SEG.SEQ 1000 > Last.ACK.sent 0: TS.Recent stays
    // 10. Second segment: the ACK goes out, echoing the earlier one.
    assert_eq!(rx.seg_ts(101, 1, 11), format!("ack 2000 wnd {w} ts 10"));
    // 2 is lost; 3 (TSval 13) arrives out of order: not at the left edge
    // (3000 > 2000), TS.Recent stays 10; the duplicate ACK echoes 10.
    assert_eq!(
        rx.seg_ts(103, 3, 13),
        format!("ack 2000 wnd {w} sack [3000,4000) ts 10")
    );
    // The retransmission of 2 (TSval 600) fills the hole at the left edge:
    // TS.Recent = 600, echoed by the ACK it causes at once.
    assert_eq!(rx.seg_ts(700, 2, 600), format!("ack 4000 wnd {w} ts 600"));
    // Without timestamps nothing is echoed.
    let mut rx = Rx::new(1 << 20, 3, true);
    rx.seg_ts(100, 0, 10);
    assert_eq!(rx.seg_ts(101, 1, 11), format!("ack 2000 wnd {w}"));
}

#[test]
fn the_receiver_acks_every_nth_segment_with_the_segment_count_option() {
    // OPNET's "Maximum ACK Segments" = 3: an ACK every third full segment.
    let mut rx = Rx::new(1 << 20, 0, true);
    rx.r.set_delayed_ack_segments(3);
    let w = 1 << 20;
    assert_eq!(rx.seg(0, 0), "");
    assert_eq!(rx.seg(1, 1), "");
    assert_eq!(rx.seg(2, 2), format!("ack 3000 wnd {w}"));
    assert_eq!(rx.seg(3, 3), "");
    // The timer (200 ms after the first unacknowledged segment) sends the rest.
    assert_eq!(rx.r.poll_at(), Some(ms(203)));
    assert_eq!(rx.timer(203), format!("ack 4000 wnd {w}"));
}

#[test]
fn every_ack_of_new_data_is_a_sample_and_the_first_ack_of_a_retransmission_ends_the_back_off() {
    let mut c = cfg("newreno"); // IW 1, min RTO 1 s
    c.timestamps = true;
    let mut h = H::new(c);
    assert_eq!(h.at(0).app(UNLIMITED), "0");
    // The ACK of 0 echoes its TSval 0: R = 500 ms, SRTT 500, RTTVAR 250,
    // RTO 500 + 4 × 250 = 1500 ms (RFC 6298 (2.2)). Slow start: 1 and 2.
    assert_eq!(h.at(500).ack_ts(1, &[], 0), "1 2");
    assert_eq!(h.s.rto(), Dur::from_millis(1500));
    // 1 and 2 are lost. At 2000 the RTO fires: go back N from 1 (RFC 6298
    // (5.4)), back-off to 3 s (5.5); ssthresh = FlightSize 2000 / 2 = 2 SMSS.
    assert_eq!(h.at(2000).timer(), "R1");
    assert_eq!(h.s.rto(), Dur::from_secs(3));
    // R1's ACK echoes R1's TSval 2000: a valid sample of 500 ms even though
    // the segment was retransmitted (RFC 7323 section 4.2). SRTT 500,
    // RTTVAR 3/4 × 250 = 187.5 ms: RTO 1250 ms, the back-off gone.
    // Slow start to 2 SMSS: R2 (going back N) and 3.
    assert_eq!(h.at(2500).ack_ts(2, &[], 2000), "R2 3");
    assert_eq!(h.s.rto(), Dur::from_millis(1250));
    assert_eq!(h.s.core.rtt.backoff(), 0);
    assert_eq!(h.poll_ms(), Some(3750));
    // A duplicate ACK (nothing new) gives no sample: RFC 7323 section 4.1
    // takes TSecr only from ACKs that advance the left edge.
    h.at(2600).ack_ts(2, &[], 100);
    assert_eq!(h.s.srtt(), Some(Dur::from_millis(500)));

    // Without timestamps, Karn's rule: R1's ACK gives no sample, the
    // backed-off 3 s RTO stays for the next segments.
    let mut h = H::new(cfg("newreno"));
    assert_eq!(h.at(0).app(UNLIMITED), "0");
    assert_eq!(h.at(500).ack(1), "1 2");
    assert_eq!(h.at(2000).timer(), "R1");
    assert_eq!(h.at(2500).ack(2), "R2 3");
    assert_eq!(h.s.rto(), Dur::from_secs(3));
    assert_eq!(h.poll_ms(), Some(5500));
}
