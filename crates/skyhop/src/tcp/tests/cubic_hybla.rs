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
    // RTT 100 ms against RTT0 = 25 ms: ρ = 4. cwnd 10 segments in
    // congestion avoidance: each ACK adds ρ² / cwnd = 16 / cwnd segments.
    let mut c = cfg("hybla");
    c.initial_window = 10;
    c.initial_ssthresh = 10 * MSS;
    let mut h = H::new(c);
    h.prime_rtt(100, 40);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    // ACK 1: cwnd 10000 + 16/10 * 1000 = 11600: una 1000 + 11600 lets 10
    // and 11 out (end 12000).
    assert_eq!(h.at(100).ack(1), "10 11");
    assert_eq!(h.cwnd(), 11_600);
    // ACK 2: + 16/11.6 segments = 1379.31: 12979: una 2000 + 12979 = 14979: 12, 13.
    assert_eq!(h.at(101).ack(2), "12 13");
    assert_eq!(h.cwnd(), 12_979);
    for k in 3..=10 {
        h.at(100 + k - 1).ack(k);
    }
    // After one round (10 ACKs) the window follows w += 16 / w ten times
    // from 10: 10 → 21.31 segments (a Reno window would be at 11).
    let mut w = 10.0f64;
    for _ in 0..10 {
        w += 16.0 / w;
    }
    assert_eq!(h.cwnd() / 10, (w * 100.0) as u64);
}
