//! CUBIC (RFC 9438) and Hybla (Caini & Firrincieli 2004) in packet traces.

use super::harness::*;

#[test]
fn cubic_reduces_to_beta_times_the_flight_and_recovers_with_prr() {
    // IW 10 (ssthresh 10: congestion avoidance), 0 lost. RFC 9438 4.6: on
    // the third duplicate ACK ssthresh = 0.7 * FlightSize 10000 = 7000.
    // PRR: pipe before sending = 10 - 3 SACKed - 1 lost = 6 <= 7: SSRB
    // sndcnt = MIN(7 - 6, MAX(1, 1) + 1) = 1: the retransmission only.
    let mut c = cfg("cubic");
    c.initial_window = 10;
    c.initial_ssthresh = 10 * MSS;
    let mut h = H::new(c);
    h.prime_rtt(500, 40);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    assert_eq!(h.at(501).sack(0, &[(1, 2)]), "");
    assert_eq!(h.at(502).sack(0, &[(1, 3)]), "");
    assert_eq!(h.at(503).sack(0, &[(1, 4)]), "R0");
    assert_eq!(h.ssthresh(), 7000);
    // 4: pipe = R0 + [5,10) = 6 < ssthresh: SSRB sndcnt = MIN(7 - 6,
    // MAX(prr_delivered 2 - prr_out 1, 1) + 1) = 1: new data, 10. PRR
    // holds pipe at ssthresh from here, one segment per ACK.
    assert_eq!(h.at(504).sack(0, &[(1, 5)]), "10");
    // 5: pipe = R0 + [6,11) = 6: one more.
    assert_eq!(h.at(505).sack(0, &[(1, 6)]), "11");
    // R0's ACK (at 1003) covers RecoveryPoint 10000: cwnd = ssthresh 7000
    // (RFC 6937), una 10000 + 7000 lets 12..16 out.
    assert_eq!(h.at(1003).sack(10, &[]), "12 13 14 15 16");
    assert_eq!(h.cwnd(), 7000);
}

#[test]
fn hybla_grows_rho_squared_segments_per_round_trip_in_congestion_avoidance() {
    // RTT 100 ms against RTT0 = 25 ms: ρ = 4 (32 eighths). cwnd 10
    // segments in congestion avoidance: each ACK adds ρ²·128 / cwnd =
    // 2048 / cwnd 128ths of a segment, fractions carried (Linux's
    // hybla_cong_avoid).
    let mut c = cfg("hybla");
    c.initial_window = 10;
    c.initial_ssthresh = 10 * MSS;
    let mut h = H::new(c);
    h.prime_rtt(100, 40);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    // ACK 1: 2048 / 10 = 204 = 1 segment + 76/128: cwnd 11 segments; una
    // 1000 + 11000 lets 10 and 11 out.
    assert_eq!(h.at(100).ack(1), "10 11");
    assert_eq!(h.cwnd(), 11 * MSS);
    // ACK 2: 2048 / 11 = 186 = 1 + 58/128; 76 + 58 = 134 carries one
    // more: 13 segments. una 2000 + 13000: 12, 13, 14.
    assert_eq!(h.at(101).ack(2), "12 13 14");
    assert_eq!(h.cwnd(), 13 * MSS);
    // ACK 3: 2048 / 13 = 157 = 1 + 29/128 (6 + 29 = 35 carried): 14.
    assert_eq!(h.at(102).ack(3), "15 16");
    for k in 4..=10 {
        h.at(100 + k - 1).ack(k);
    }
    // ACKs 4..10: 146, 136, 128, 120, 113, 107, 102 128ths: 15, 16, 17,
    // 18, 19, 20 and 20 segments with 119/128 carried. One round of ACKs
    // took the window from 10 to 20 segments, where Reno (ρ = 1) would
    // have reached 11: about ρ² = 16 per round less the growth within it.
    assert_eq!(h.cwnd(), 20 * MSS);
}
