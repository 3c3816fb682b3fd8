//! AeroTCP's super fast error control, packet by packet, on the two worked
//! examples of Shang (2007): cwnd 8, the receiver window never limiting.
//! Packet n of the study is segment n here (bytes [1000n, 1000n + 1000));
//! segment 0 is sent and acknowledged first so that packets 1-8 are the
//! window. The receiver's SACK blocks are written by hand, most recent
//! first (RFC 2018), as the receiver of a FIFO link would send them.

use super::harness::*;

/// An AeroTCP sender with a fixed allocation of 8 segments, RTT 500 ms.
fn aero8() -> H {
    let mut c = cfg("aerotcp");
    c.aero.cwnd_segments = 8;
    c.initial_window = 8;
    let mut h = H::new(c);
    h.prime_rtt(500, 40);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7");
    // Packet 0 is acknowledged: packets 1-8 are the window.
    assert_eq!(h.at(500).ack(1), "8");
    assert_eq!(h.cwnd(), 8000);
    h
}

fn pipe(h: &H) -> u64 {
    h.s.aero_pipe().expect("an AeroTCP sender") / MSS
}

#[test]
fn losses_1_and_2_recover_without_window_reduction() {
    let mut h = aero8();
    // 3 arrives: the FIRST duplicate ACK (for 0, i.e. "next is 1") starts
    // super fast recovery: 1 is re-sent, pipe = cwnd = 8.
    assert_eq!(h.at(1000).sack(1, &[(3, 4)]), "R1");
    assert!(h.s.in_recovery());
    assert_eq!((pipe(&h), h.cwnd()), (8, 8000));
    // 4: new SACK data, pipe 7; the scoreboard shows the hole at 2: R2, pipe 8.
    assert_eq!(h.at(1010).sack(1, &[(3, 5)]), "R2");
    assert_eq!(pipe(&h), 8);
    // 5, 6, 7, 8: each brings pipe to 7, no hole left: new data 9-12.
    assert_eq!(h.at(1020).sack(1, &[(3, 6)]), "9");
    assert_eq!(h.at(1030).sack(1, &[(3, 7)]), "10");
    assert_eq!(h.at(1040).sack(1, &[(3, 8)]), "11");
    assert_eq!(h.at(1050).sack(1, &[(3, 9)]), "12");
    assert_eq!(pipe(&h), 8);
    // R1 arrives: a partial ACK (next is 2): pipe 8 - 2 = 6: 13 and 14.
    assert_eq!(h.at(1500).sack(2, &[(3, 9)]), "13 14");
    assert_eq!(pipe(&h), 8);
    assert!(h.s.in_recovery());
    // R2 arrives: the ACK covers 8, all that was outstanding at entry:
    // recovery ends with cwnd still 8. The sliding window (una 9, 9-14
    // out) lets 15 and 16 go.
    assert_eq!(h.at(1510).ack(9), "15 16");
    assert!(!h.s.in_recovery());
    assert_eq!(h.cwnd(), 8000);
    // 9-12 (sent during recovery) are acknowledged: one for one, up to 20;
    // from then on the window slides over packets sent after recovery.
    assert_eq!(h.at(1520).ack(10), "17");
    assert_eq!(h.at(1530).ack(11), "18");
    assert_eq!(h.at(1540).ack(12), "19");
    assert_eq!(h.at(1550).ack(13), "20");
    assert_eq!(h.cwnd(), 8000);
    assert_eq!(h.s.stats.retransmissions, 2);
    assert_eq!(h.s.stats.fast_recoveries, 1);
    assert_eq!(h.s.stats.timeouts, 0);
}

#[test]
fn losses_1_3_5_7_are_all_resent_within_the_first_four_duplicate_acks() {
    let mut h = aero8();
    // 2 arrives: first DUPACK: R1, pipe = 8.
    assert_eq!(h.at(1000).sack(1, &[(2, 3)]), "R1");
    assert_eq!(pipe(&h), 8);
    // 4, 6, 8: each reports new SACK data (pipe 7) and a new hole: R3, R5, R7.
    assert_eq!(h.at(1010).sack(1, &[(4, 5), (2, 3)]), "R3");
    assert_eq!(h.at(1020).sack(1, &[(6, 7), (4, 5), (2, 3)]), "R5");
    assert_eq!(h.at(1030).sack(1, &[(8, 9), (6, 7), (4, 5)]), "R7");
    assert_eq!(pipe(&h), 8);
    // R1, R3, R5 arrive: three partial ACKs, pipe - 2 each: 9-10, 11-12, 13-14.
    assert_eq!(h.at(1500).sack(3, &[(8, 9), (6, 7), (4, 5)]), "9 10");
    assert_eq!(h.at(1510).sack(5, &[(8, 9), (6, 7)]), "11 12");
    assert_eq!(h.at(1520).sack(7, &[(8, 9)]), "13 14");
    assert!(h.s.in_recovery());
    // R7 arrives: the ACK covering 8 ends recovery with cwnd 8.
    assert_eq!(h.at(1530).ack(9), "15 16");
    assert!(!h.s.in_recovery());
    assert_eq!(h.cwnd(), 8000);
    assert_eq!(h.s.stats.retransmissions, 4);
    assert_eq!(h.s.stats.timeouts, 0);
}

#[test]
fn a_lost_retransmission_is_caught_by_the_fine_grained_timer_and_sent_twice() {
    let mut h = aero8();
    assert_eq!(h.at(1000).sack(1, &[(3, 4)]), "R1");
    // SRTT 500 ms, RTTVAR about 0 after 40 equal samples: the fine timeout
    // is SRTT + max(4 RTTVAR, 1 ms granularity) = 501 ms, far below the
    // coarse 1 s floor.
    assert_eq!(h.poll_ms(), Some(1501));
    assert_eq!(h.at(1010).sack(1, &[(3, 5)]), "R2");
    assert_eq!(h.at(1020).sack(1, &[(3, 6)]), "9");
    // R1 is lost; R2 arrives: the receiver has 2-5, a duplicate ACK with
    // one new segment SACKed: pipe 7, no hole above R2: new data 10.
    assert_eq!(h.at(1500).sack(1, &[(2, 6)]), "10");
    // The fine timer fires for R1: two copies, no coarse timeout, cwnd 8.
    assert_eq!(h.poll_ms(), Some(1501));
    assert_eq!(h.at(1501).timer(), "R1 R1");
    assert_eq!(h.s.stats.timeouts, 0);
    assert_eq!(h.cwnd(), 8000);
    assert!(h.s.in_recovery());
    // One copy arrives after 6-9 did: the cumulative ACK passes 8, the
    // recovery point: recovery ends.
    h.at(2001).ack(10);
    assert!(!h.s.in_recovery());
    assert_eq!(h.cwnd(), 8000);
}
