//! RFC 5681 section 3.1: initial window, slow start, congestion avoidance.

use super::harness::*;

#[test]
fn slow_start_from_one_segment_sends_two_segments_per_ack_and_doubles_the_window_each_round() {
    let mut h = H::new(cfg("newreno")); // IW = 1 segment, ssthresh unlimited
                                        // Round 1: IW = 1 segment (RFC 5681 (3.1), the studies' value).
    assert_eq!(h.at(0).app(UNLIMITED), "0");
    assert_eq!(h.cwnd(), MSS);
    // Each ACK of one full segment adds min(N, SMSS) = 1 SMSS (RFC 5681
    // eq. 2); the ACKed segment leaves the flight, so two new ones go out.
    // Round 2: cwnd 1 -> 2.
    assert_eq!(h.at(600).ack(1), "1 2");
    assert_eq!(h.cwnd(), 2 * MSS);
    // Round 3: 2 ACKs, 4 segments, cwnd 2 -> 4.
    assert_eq!(h.at(1200).ack(2), "3 4");
    assert_eq!(h.at(1212).ack(3), "5 6");
    assert_eq!(h.cwnd(), 4 * MSS);
    // Round 4: 4 ACKs, 8 segments, cwnd 4 -> 8.
    assert_eq!(h.at(1800).ack(4), "7 8");
    assert_eq!(h.at(1812).ack(5), "9 10");
    assert_eq!(h.at(1824).ack(6), "11 12");
    assert_eq!(h.at(1836).ack(7), "13 14");
    assert_eq!(h.cwnd(), 8 * MSS);
    assert_eq!(h.s.flight(), 8 * MSS); // segments 7..14 in flight
    assert_eq!(h.s.stats.retransmissions, 0);
}

#[test]
fn slow_start_grows_by_the_bytes_acknowledged_when_an_ack_covers_less_than_one_segment() {
    // RFC 5681 eq. (2): cwnd += min(N, SMSS); an ACK of 300 bytes adds 300.
    let mut h = H::new(cfg("newreno"));
    assert_eq!(h.at(0).app(UNLIMITED), "0");
    assert_eq!(h.at(600).ack_wnd(300, BIG_WND), "");
    assert_eq!(h.cwnd(), 1300);
    // una 300 + cwnd 1300 = 1600 < 2000: segment 1 does not fit yet.
    assert_eq!(h.at(610).ack_wnd(1000, BIG_WND), "1 2");
    assert_eq!(h.cwnd(), 2000);
}

#[test]
fn congestion_avoidance_adds_smss_squared_over_cwnd_per_ack_about_one_segment_per_round_trip() {
    let mut c = cfg("newreno");
    c.initial_window = 4;
    c.initial_ssthresh = 4 * MSS; // cwnd = ssthresh: congestion avoidance from the start
    let mut h = H::new(c);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3");
    // RFC 5681 eq. (3): cwnd += SMSS*SMSS/cwnd (integer bytes).
    // ACK 1: 4000 + 1e6/4000 = 4250; una 1000 + 4250 = 5250 -> segment 4 fits.
    assert_eq!(h.at(600).ack(1), "4");
    assert_eq!(h.cwnd(), 4250);
    // ACK 2: + 1e6/4250 = 235 -> 4485; limit 6485 -> segment 5.
    assert_eq!(h.at(610).ack(2), "5");
    assert_eq!(h.cwnd(), 4485);
    // ACK 3: + 222 -> 4707; ACK 4: + 212 -> 4919. One window of ACKs grew
    // cwnd by 919 bytes, just under one SMSS per RTT.
    assert_eq!(h.at(620).ack(3), "6");
    assert_eq!(h.at(630).ack(4), "7");
    assert_eq!(h.cwnd(), 4919);
    // ACK 5: + 203 -> 5122; limit 5000 + 5122 = 10122 -> segments 8 and 9.
    assert_eq!(h.at(1200).ack(5), "8 9");
    assert_eq!(h.cwnd(), 5122);
    assert_eq!(h.ssthresh(), 4 * MSS);
}

#[test]
fn an_initial_window_of_three_segments_sends_three_at_once() {
    // RFC 3390 value, selectable.
    let mut c = cfg("newreno");
    c.initial_window = 3;
    let mut h = H::new(c);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2");
    assert_eq!(h.at(600).ack(1), "3 4");
}

#[test]
fn the_last_segment_of_a_transfer_is_short_and_nothing_is_sent_past_the_application_data() {
    let mut c = cfg("newreno");
    c.initial_window = 4;
    let mut h = H::new(c);
    assert_eq!(h.at(0).app(2500), "0 1 [2000+500]");
    assert_eq!(h.at(600).ack_wnd(2500, BIG_WND), "");
    assert!(h.s.all_acked());
    assert_eq!(
        h.poll_ms(),
        None,
        "RFC 6298 (5.2): all data acknowledged, timer off"
    );
}
