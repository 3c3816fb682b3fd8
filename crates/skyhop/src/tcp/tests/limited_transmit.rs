//! RFC 3042 Limited Transmit: new data on the first two duplicate ACKs.

use super::harness::*;

fn trace(limited_transmit: bool, rwnd: u64) -> Vec<String> {
    let mut c = cfg("newreno");
    c.initial_window = 4;
    c.initial_ssthresh = 4 * MSS;
    c.limited_transmit = limited_transmit;
    let mut h = H::new(c);
    let mut v = vec![h.at(0).app(UNLIMITED)];
    // 0 is lost; 1, 2, 3 each give a duplicate ACK.
    for t in [500, 510, 520] {
        v.push(h.at(t).ack_wnd(0, rwnd));
    }
    v.push(format!("cwnd {} ssthresh {}", h.cwnd(), h.ssthresh()));
    v
}

#[test]
fn limited_transmit_sends_a_new_segment_on_each_of_the_first_two_duplicate_acks() {
    // Section 2: on duplicate ACKs 1 and 2 one new segment each, as long as
    // the outstanding data stays within cwnd + 2 SMSS (4 + 2 = 6 segments)
    // and the receive window allows; cwnd stays 4000. The third duplicate
    // ACK starts fast retransmit with FlightSize = 6 segments: ssthresh =
    // 3000, cwnd = 3000 + 3 SMSS = 6000 (RFC 5681 3.2): no room for more.
    assert_eq!(
        trace(true, BIG_WND),
        ["0 1 2 3", "4", "5", "R0", "cwnd 6000 ssthresh 3000"]
    );
    // Without it the first two duplicate ACKs send nothing, and the
    // smaller flight halves to ssthresh = max(2000, 2 SMSS); cwnd = 5000
    // then lets 4 follow the retransmission.
    assert_eq!(
        trace(false, BIG_WND),
        ["0 1 2 3", "", "", "R0 4", "cwnd 5000 ssthresh 2000"]
    );
    // The receive window still binds: 4000 bytes leave no room above 0..3,
    // neither for Limited Transmit nor after the retransmission.
    assert_eq!(
        trace(true, 4 * MSS),
        ["0 1 2 3", "", "", "R0", "cwnd 5000 ssthresh 2000"]
    );
}
