//! RFC 6937 Proportional Rate Reduction (PRR-SSRB) over RFC 6675, with a
//! Reno controller (ssthresh = FlightSize / 2) so the numbers are the RFC's.
//! Every ACK is written out by hand; pipe and sndcnt are worked in the
//! comments from RFC 6937 section 3.1 (in whole segments, as the RFC's
//! examples and senders count).

use super::harness::*;
use crate::tcp::{CcKind, RecKind, TcpConfig};

fn prr_cfg(limited_transmit: bool) -> TcpConfig {
    let mut c = cfg("sack");
    c.variant.cc = CcKind::Reno;
    c.variant.recovery = RecKind::Prr;
    c.initial_window = 20;
    c.initial_ssthresh = 20 * MSS;
    c.limited_transmit = limited_transmit;
    c
}

#[test]
fn prr_spreads_the_reduction_over_the_round_one_segment_every_other_ack() {
    // RFC 6937 section 6, first example: 20 segments in flight, the first
    // lost, Limited Transmit on. RFC 6675 alone would stay silent for half
    // an RTT and then send one segment per ACK; PRR sends the fast
    // retransmission and then one new segment on every second ACK.
    let mut h = H::new(prr_cfg(true));
    assert_eq!(
        h.at(0).app(UNLIMITED),
        "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19"
    );
    // Duplicate ACKs 1 and 2 (1 and 2 SACKed): Limited Transmit sends 20
    // and 21 (RFC 3042), within cwnd + 2 SMSS = 22000.
    assert_eq!(h.at(501).sack(0, &[(1, 2)]), "20");
    assert_eq!(h.at(502).sack(0, &[(1, 3)]), "21");
    assert_eq!(h.cwnd(), 20_000);
    // Third: recovery. ssthresh = FlightSize / 2 = 22 / 2 = 11 segments;
    // RecoverFS = snd.nxt - snd.una = 22 segments. DeliveredData 1,
    // prr_delivered 1; pipe before sending = 22 - 3 SACKed - 1 lost = 18 >
    // ssthresh: sndcnt = CEIL(1 * 11 / 22) - prr_out 0 = 1: the fast
    // retransmission R0.
    assert_eq!(h.at(503).sack(0, &[(1, 4)]), "R0");
    assert_eq!(h.ssthresh(), 11_000);
    // ACK k (k = 4..19 segments SACKed): prr_delivered = k - 2; while
    // pipe > ssthresh, sndcnt = CEIL((k - 2) * 11 / 22) - prr_out: 1 - 1 =
    // 0 at k = 4, 2 - 1 = 1 at k = 5, 2 - 2 = 0 at 6, 3 - 2 = 1 at 7, ...:
    // one new segment on every odd ACK, and pipe (1 + snd.nxt - (k + 1))
    // falls by one every second ACK: 18 at k = 4, 12 at k = 15. At k = 17
    // pipe = 1 + [18,28) = 11 = ssthresh: the reduction is done, and the
    // Slow Start Reduction Bound takes over: sndcnt = MIN(ssthresh - pipe,
    // ...) = 0; at 18 pipe = 10: 1 (28); at 19 pipe = 10 again: 1 (29).
    let mut sent = Vec::new();
    for k in 4..=19 {
        sent.push(h.at(500 + k).sack(0, &[(1, k + 1)]));
    }
    assert_eq!(
        sent,
        ["", "22", "", "23", "", "24", "", "25", "", "26", "", "27", "", "", "28", "29"]
    );
    // R0 and 22..29: 9 segments for 17 delivered; RFC 6675 would have sent
    // nothing until pipe fell below cwnd = 11 (k = 11) and then one per ACK.
    assert_eq!(h.s.stats.retransmissions, 1);
    // 20 arrives (sent at 501): SACK [1,21). prr_delivered 18, prr_out 9;
    // pipe = R0 1 + [21,30) 9 = 10 <= ssthresh 11: sndcnt = MIN(1,
    // MAX(18 - 9, 1) + 1) = 1: 30.
    assert_eq!(h.at(1001).sack(0, &[(1, 21)]), "30");
    // 21: pipe = 1 + [22,31) 9 = 10 again: 31.
    assert_eq!(h.at(1002).sack(0, &[(1, 22)]), "31");
    // R0 arrives: ACK 22 covers RecoveryPoint 22000: recovery ends with
    // cwnd = ssthresh = 11000 (section 3.1); una 22000 + 11000 lets 32 out.
    assert_eq!(h.at(1003).ack(22), "32");
    assert!(!h.s.in_recovery());
    assert_eq!(h.cwnd(), 11_000);
    assert_eq!(h.s.stats.timeouts, 0);
}

#[test]
fn prr_ssrb_catches_up_like_slow_start_after_heavy_losses_then_holds_pipe_at_ssthresh() {
    // 20 segments, 0..9 all lost: pipe falls below ssthresh at once, and
    // PRR's Slow Start Reduction Bound (RFC 6937 section 3.1) lets the
    // sender send at most DeliveredData + 1 segment per ACK until pipe is
    // back at ssthresh.
    let mut h = H::new(prr_cfg(false));
    assert_eq!(
        h.at(0).app(UNLIMITED),
        "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19"
    );
    assert_eq!(h.at(501).sack(0, &[(10, 11)]), "");
    assert_eq!(h.at(502).sack(0, &[(10, 12)]), "");
    // Third duplicate ACK: ssthresh 10, RecoverFS 20. The hole [0,10) is
    // lost (3 segments SACKed above); pipe before sending = [13,20) = 7 <=
    // ssthresh: sndcnt = MIN(10 - 7, MAX(1 - 0, 1) + 1) = 2: R0 and R1.
    assert_eq!(h.at(503).sack(0, &[(10, 13)]), "R0 R1");
    // pipe = 2 retransmitted + [14,20) 6 = 8: sndcnt = MIN(2, MAX(2 - 2,
    // 1) + 1) = 2: two more, as slow start would.
    assert_eq!(h.at(504).sack(0, &[(10, 14)]), "R2 R3");
    // pipe = 4 + 5 = 9: MIN(10 - 9, 2) = 1 per ACK from now on: pipe is
    // held at ssthresh.
    assert_eq!(h.at(505).sack(0, &[(10, 15)]), "R4");
    assert_eq!(h.at(506).sack(0, &[(10, 16)]), "R5");
    assert_eq!(h.at(507).sack(0, &[(10, 17)]), "R6");
    assert_eq!(h.ssthresh(), 10_000);
    assert_eq!(h.s.stats.retransmissions, 7);
}

#[test]
fn rfc_6675_alone_sends_the_same_window_in_a_burst() {
    // The contrast to the test above: plain RFC 6675 (cwnd = ssthresh at
    // once) sends three segments on the entering ACK: pipe 7 + R0 = 8,
    // then R1 (9), R2 (10).
    let mut c = prr_cfg(false);
    c.variant.recovery = RecKind::Sack;
    let mut h = H::new(c);
    h.at(0).app(UNLIMITED);
    assert_eq!(h.at(501).sack(0, &[(10, 11)]), "");
    assert_eq!(h.at(502).sack(0, &[(10, 12)]), "");
    assert_eq!(h.at(503).sack(0, &[(10, 13)]), "R0 R1 R2");
}
