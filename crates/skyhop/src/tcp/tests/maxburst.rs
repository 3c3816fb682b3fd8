//! ns-2's `maxburst_`: at most that many segments leave per transmission
//! opportunity (an ACK, the application's data, a timeout); the rest of
//! the window waits for the next one. (ns-2's default is 0, no limit.)

use super::harness::*;

#[test]
fn maxburst_sends_at_most_that_many_segments_per_opportunity() {
    let mut c = cfg("newreno");
    c.initial_window = 10;
    let mut h = H::new(c);
    h.s.set_maxburst(4);
    // Ten segments fit in the window; four leave.
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3");
    // Slow start: ACK 1 makes cwnd 11000, una 1000 + 11000 lets 4..11
    // out; four of them.
    assert_eq!(h.at(600).ack(1), "4 5 6 7");
    assert_eq!(h.cwnd(), 11_000);
    // ACK 2: cwnd 12000, the window reaches 14000: 8..13; four.
    assert_eq!(h.at(610).ack(2), "8 9 10 11");
    // Without the limit the whole window goes: a cumulative ACK of 5
    // (cwnd 13000) reaches 18000: 12..17, six.
    h.s.set_maxburst(0);
    assert_eq!(h.at(620).ack(5), "12 13 14 15 16 17");
}
