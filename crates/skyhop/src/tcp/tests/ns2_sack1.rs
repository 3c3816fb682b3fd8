//! ns-2's Sack1 (`recovery/ns2_sack1.rs`) on the path of `newreno.rs` (one
//! 1000-byte segment per 10 ms at the bottleneck, 300 ms each way, a
//! segment handed over at t leaves at D = max(t, previous D) + 10 ms and its
//! ACK is back at D + 600 ms; RTO the 1 s minimum). IW 10, ssthresh 10
//! segments, segments 0..9 sent at t = 0, 2 and 5 lost.

use super::harness::*;
use crate::engine::time::Time;
use crate::tcp::cc::Cc;
use crate::tcp::recovery::{Ns2Sack1Recovery, Rec};
use crate::tcp::TcpSender;

fn sender() -> H {
    let mut c = cfg("sack");
    c.initial_window = 10;
    c.initial_ssthresh = 10 * MSS;
    let cc = Cc::build(c.variant.cc, &c);
    let mut h = H {
        s: TcpSender::new(c, cc, Rec::Ns2Sack1(Ns2Sack1Recovery::default())),
        now: Time::ZERO,
    };
    h.prime_rtt(610, 40);
    h
}

fn pipe(h: &H) -> u64 {
    match &h.s.rec {
        Rec::Ns2Sack1(r) => r.pipe(),
        _ => unreachable!(),
    }
}

#[test]
fn sack1_counts_pipe_per_ack_and_resends_a_hole_as_soon_as_pipe_allows() {
    let mut h = sender();
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    assert_eq!(h.at(610).ack(1), "10"); // 10 leaves at 620
    assert_eq!(h.at(620).ack(2), "11"); // 11 leaves at 630
                                        // 3 and 4 arrive above the hole at 2: duplicate ACKs that SACK new data.
    assert_eq!(h.at(640).sack(2, &[(3, 4)]), "");
    assert_eq!(h.at(650).sack(2, &[(3, 5)]), "");
    // The third (6 arrives): ssthresh = cwnd = ⌊10 / 2⌋ = 5 segments;
    // pipe_ = 12 - 2 - 3 = 7 segments; R2 (not counted; leaves 680, ACK
    // at 1280).
    assert_eq!(h.at(670).sack(2, &[(6, 7), (3, 5)]), "R2");
    assert_eq!((h.ssthresh(), h.cwnd()), (5000, 5000));
    assert_eq!(pipe(&h), 7000);
    // Each ACK takes one from pipe_: 6, 5 segments: nothing (pipe_ < cwnd
    // fails). RFC 6675 would resend 5 at 690 (three segments SACKed above
    // it); Sack1 waits for pipe_.
    assert_eq!(h.at(680).sack(2, &[(6, 8), (3, 5)]), "");
    assert_eq!(h.at(690).sack(2, &[(6, 9), (3, 5)]), "");
    assert_eq!(pipe(&h), 5000);
    // pipe_ 4 < 5: the next hole not yet resent, 5 (leaves 710, ACK 1310).
    assert_eq!(h.at(700).sack(2, &[(6, 10), (3, 5)]), "R5");
    assert_eq!(pipe(&h), 5000);
    // No hole left below the highest SACK: new data, one per ACK.
    assert_eq!(h.at(1220).sack(2, &[(6, 11), (3, 5)]), "12");
    assert_eq!(h.at(1230).sack(2, &[(6, 12), (3, 5)]), "13");
    // R2 arrives: ACK 5, partial: pipe_ 5 - 2 = 3 segments; 14 and 15.
    assert_eq!(h.at(1280).sack(5, &[(6, 12)]), "14 15");
    assert_eq!(pipe(&h), 5000);
    assert_eq!(h.poll_ms(), Some(2280)); // the timer restarted
                                         // R5 arrives: ACK 12 >= recover (12000): out of recovery with cwnd
                                         // 5 segments, not opened (Sack1's exit calls newack, not opencwnd);
                                         // una 12000 + 5000: 16.
    assert_eq!(h.at(1310).ack(12), "16");
    assert!(!h.s.in_recovery());
    assert_eq!(h.cwnd(), 5000);
    assert_eq!(h.s.stats.retransmissions, 2);
}

#[test]
fn sack1_counts_only_duplicate_acks_that_change_the_scoreboard() {
    let mut h = sender();
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    // Segment 0 lost: 1 arrives (SACK news), then the same SACK twice (a
    // duplicate without news, e.g. a window update's copy): not counted.
    assert_eq!(h.at(620).sack(0, &[(1, 2)]), "");
    assert_eq!(h.at(621).sack(0, &[(1, 2)]), "");
    assert_eq!(h.at(622).sack(0, &[(1, 2)]), "");
    assert!(!h.s.in_recovery());
    // 2 and 3 arrive: the second and third that count.
    assert_eq!(h.at(630).sack(0, &[(1, 3)]), "");
    assert_eq!(h.at(640).sack(0, &[(1, 4)]), "R0");
    assert!(h.s.in_recovery());
}
