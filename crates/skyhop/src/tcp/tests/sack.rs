//! RFC 6675 SACK-based loss recovery: scoreboard, IsLost(), SetPipe(),
//! NextSeg() and step (C). Same path model and window as `newreno.rs`
//! (10 segments, 2, 5 and 8 lost); the receiver's SACK blocks are written
//! out by hand, most recent first (RFC 2018 section 4).

/// NextSeg()'s answer as `(seq, len, rule)`, printed (the rule's type is
/// private to the recovery module).
fn next_seg(h: &H) -> String {
    format!("{:?}", h.s.sack_next_seg())
}

use super::harness::*;

#[test]
fn sack_recovery_retransmits_exactly_the_three_holes_within_one_rtt_and_nothing_sacked() {
    let mut c = cfg("sack");
    c.initial_window = 10;
    c.initial_ssthresh = 10 * MSS;
    let mut h = H::new(c);
    h.prime_rtt(610, 40);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    assert_eq!(h.at(610).ack(1), "10");
    assert_eq!(h.at(620).ack(2), "11");
    // 3 and 4 arrive above the hole at 2. IsLost(2000) needs 3 SACKed
    // blocks above it or more than (DupThresh-1)*SMSS = 2000 bytes SACKed:
    // 1000, then exactly 2000 bytes: not yet.
    assert_eq!(h.at(640).sack(2, &[(3, 4)]), "");
    assert_eq!(h.at(650).sack(2, &[(3, 5)]), "");
    assert!(!h.s.sack_is_lost(2 * MSS));
    // 6: third duplicate ACK (and IsLost(2000): 3000 bytes above). RFC 6675
    // (4.1) RecoveryPoint = HighData = 12000; (4.2) ssthresh = cwnd =
    // FlightSize/2 = 5000; (4.3) retransmit 2, HighRxt = 3000.
    assert_eq!(h.at(670).sack(2, &[(6, 7), (3, 5)]), "R2");
    assert!(h.s.in_recovery());
    assert_eq!((h.ssthresh(), h.cwnd()), (5000, 5000));
    // (4.4) SetPipe: [2,3) lost but retransmitted: 1000; [5,6) not lost
    // (1 block, 1000 bytes above): 1000; [7,12) not lost: 5000. Pipe 7000 > cwnd.
    assert_eq!(h.s.sack_pipe().unwrap(), 7000);
    // 7: pipe = 1000 + 1000 + [8,12) 4000 = 6000: nothing.
    assert_eq!(h.at(680).sack(2, &[(6, 8), (3, 5)]), "");
    assert_eq!(h.s.sack_pipe().unwrap(), 6000);
    // 9: now 3000 bytes are SACKed above 5: IsLost(5000), so [5,6) drops out
    // of the pipe: 1000 + 0 + [8,9) 1000 + [10,12) 2000 = 4000. Step (C):
    // cwnd - pipe >= SMSS: NextSeg rule (1), the first lost hole above HighRxt: 5.
    assert_eq!(h.at(700).sack(2, &[(9, 10), (6, 8), (3, 5)]), "R5");
    assert_eq!(h.s.sack_pipe().unwrap(), 5000); // R5 counts once (lost, retransmitted)
                                                // The hole at 8 is not lost yet (2000 bytes above): NextSeg() would now
                                                // take rule (2), new data.
    assert_eq!(next_seg(&h), "Some((12000, 1000, NewData))");
    // 10: pipe = 1000 + 1000 + [8,9) 1000 + [11,12) 1000 = 4000: one
    // segment, by rule (2): 12.
    assert_eq!(h.at(1220).sack(2, &[(9, 11), (6, 8), (3, 5)]), "12");
    // 11: 3000 bytes above 8: lost. pipe = 1000 + 1000 + 0 + [12,13) 1000
    // = 3000: two segments: rule (1) R8, then rule (2) 13.
    assert_eq!(h.at(1230).sack(2, &[(9, 12), (6, 8), (3, 5)]), "R8 13");
    assert_eq!(h.s.sack_pipe().unwrap(), 5000);
    // The bottleneck timing: R2 leaves 680 (ACK 1280), R5 710 (1310), 12
    // 1230 (1830), R8 1240 (1840), 13 1250 (1850).
    // R2 arrives: ACK 5, a cumulative ACK below RecoveryPoint: stay in
    // recovery (RFC 6675 step (A) does not apply). Scoreboard [6,8) [9,12).
    // pipe = R5 1000 + R8 1000 + [12,14) 2000 = 4000: one new segment.
    assert_eq!(h.at(1280).sack(5, &[(9, 12), (6, 8)]), "14");
    assert!(h.s.in_recovery());
    // R5 arrives: ACK 8. pipe = R8 1000 + [12,15) 3000: one more.
    assert_eq!(h.at(1310).sack(8, &[(9, 12)]), "15");
    // 12 arrives: it merges into [9,13).
    assert_eq!(h.at(1830).sack(8, &[(9, 13)]), "16");
    // R8 arrives: ACK 13 covers RecoveryPoint 12000: recovery ends (step
    // (A)), cwnd stays at ssthresh = 5000; una 13000 + 5000 lets 17 out.
    assert_eq!(h.at(1840).ack(13), "17");
    assert!(!h.s.in_recovery());
    assert_eq!(h.cwnd(), 5000);
    assert_eq!(h.at(1850).ack(14), "18"); // congestion avoidance: 5200
                                          // Each hole once; no SACKed segment ever went again; no timeout.
    assert_eq!(h.s.stats.retransmissions, 3);
    assert_eq!(h.s.stats.timeouts, 0);
    assert_eq!(h.s.stats.fast_recoveries, 1);
}

#[test]
fn is_lost_needs_dupthresh_sacked_blocks_or_more_than_two_segments_sacked_above() {
    let sender = || {
        let mut c = cfg("sack");
        c.initial_window = 10;
        let mut h = H::new(c);
        assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
        h
    };
    // Three discontiguous SACKed blocks of 500 bytes above 0 (1500 bytes in
    // all, below 2000): lost by the block count. So the first duplicate ACK
    // already enters recovery, by RFC 6675 section 5 step (2),
    // IsLost(HighACK + 1), without waiting for DupThresh duplicate ACKs.
    let mut h = sender();
    let blocks = [(5000, 5500), (3000, 3500), (1000, 1500)];
    assert_eq!(h.at(600).sack_bytes(0, &blocks), "R0");
    assert_eq!(h.s.stats.fast_recoveries, 1);
    assert!(h.s.sack_is_lost(0));
    // The hole at 1500 has two blocks (1000 bytes) above it: not lost.
    assert!(!h.s.sack_is_lost(1500));

    // Two blocks, exactly 2000 = (DupThresh - 1) * SMSS bytes above 0: not lost...
    let mut h = sender();
    assert_eq!(h.at(600).sack_bytes(0, &[(4000, 5000), (2000, 3000)]), "");
    assert!(!h.s.sack_is_lost(0));
    assert!(!h.s.in_recovery());
    // ...one byte more is "more than": lost, and recovery starts at the
    // second duplicate ACK.
    assert_eq!(h.at(610).sack_bytes(0, &[(4000, 5001), (2000, 3000)]), "R0");
    assert!(h.s.sack_is_lost(0));
    assert!(h.s.sack_is_lost(1000)); // two blocks, 2001 bytes above
    assert!(!h.s.sack_is_lost(3000)); // one block, 1001 bytes above
}

#[test]
fn sack_next_seg_rule_three_resends_an_unsacked_hole_not_yet_lost_when_no_new_data_is_left() {
    // 10 segments of application data, all sent at once; 2 and 7 lost.
    let mut c = cfg("sack");
    c.initial_window = 10;
    let mut h = H::new(c);
    assert_eq!(h.at(0).app(10 * MSS), "0 1 2 3 4 5 6 7 8 9");
    assert_eq!(h.at(610).ack(1), "");
    assert_eq!(h.at(620).ack(2), "");
    assert_eq!(h.at(640).sack(2, &[(3, 4)]), "");
    assert_eq!(h.at(650).sack(2, &[(3, 5)]), "");
    // Third duplicate ACK: cwnd = ssthresh = FlightSize/2 = 8000/2 = 4000, R2.
    // pipe = R2 1000 + [6,10) 4000 = 5000.
    assert_eq!(h.at(660).sack(2, &[(3, 6)]), "R2");
    assert_eq!((h.cwnd(), h.s.sack_pipe().unwrap()), (4000, 5000));
    // 6: pipe 4000, still no room.
    assert_eq!(h.at(670).sack(2, &[(3, 7)]), "");
    // 8 (7 is lost): pipe = R2 1000 + [7,8) 1000 + [9,10) 1000 = 3000. The
    // hole at 7 has only 1000 bytes above it: not lost, so rule (1) fails;
    // no new data, so rule (2) fails; rule (3): the first unSACKed segment
    // above HighRxt below the highest SACK, 7.
    assert_eq!(h.at(690).sack(2, &[(8, 9), (3, 7)]), "R7");
    assert_eq!(h.s.stats.retransmissions, 2);
}

#[test]
fn sack_rescue_retransmission_repairs_a_lost_tail_without_a_timeout() {
    // 10 segments of application data; 2 and the last one, 9, lost. Without
    // RFC 6675 NextSeg rule (4) nothing would ever report 9 missing.
    let mut c = cfg("sack");
    c.initial_window = 10;
    let mut h = H::new(c);
    h.prime_rtt(610, 40);
    assert_eq!(h.at(0).app(10 * MSS), "0 1 2 3 4 5 6 7 8 9");
    assert_eq!(h.at(610).ack(1), "");
    assert_eq!(h.at(620).ack(2), "");
    assert_eq!(h.at(640).sack(2, &[(3, 4)]), "");
    assert_eq!(h.at(650).sack(2, &[(3, 5)]), "");
    assert_eq!(h.at(660).sack(2, &[(3, 6)]), "R2"); // cwnd 4000, pipe 5000
    assert_eq!(h.at(670).sack(2, &[(3, 7)]), ""); // pipe 4000
                                                  // 7: pipe = R2 1000 + [8,10) 2000 = 3000. Rules (1)-(3) find nothing
                                                  // (no hole below the highest SACK above HighRxt, no new data). Rule (4):
                                                  // one segment holding the highest unSACKed byte, 9; RescueRxt =
                                                  // RecoveryPoint, HighRxt unchanged.
    assert_eq!(next_seg(&h), "Some((9000, 1000, Rescue))");
    assert_eq!(h.at(680).sack(2, &[(3, 8)]), "R9"); // leaves 690, ACK at 1290
                                                    // 8: pipe = R2 1000 + [9,10) 1000 = 2000, but the rescue was used: nothing.
    assert_eq!(h.at(690).sack(2, &[(3, 9)]), "");
    // R2 (left at 670) arrives: ACK 9, partial. The only hole left is 9,
    // already resent.
    assert_eq!(h.at(1270).ack(9), "");
    assert!(h.s.in_recovery());
    // R9 arrives: ACK 10 ends recovery and the transfer.
    assert_eq!(h.at(1290).ack(10), "");
    assert!(!h.s.in_recovery() && h.s.all_acked());
    assert_eq!(h.s.stats.timeouts, 0);
    assert_eq!(h.s.stats.retransmissions, 2);
}

#[test]
fn sack_recovery_treats_the_cap_on_unacknowledged_bytes_like_a_receive_window_of_that_size() {
    // A proxy's outgoing leg (`third` policy) may keep at most `max_unacked`
    // bytes unacknowledged. NextSeg rule (2) may send new data only "if the
    // receiver's advertised window allows"; the cap must bind the same way.
    // Trace with a 5000-byte cap and an open window, then with no cap and
    // a 5000-byte window: the same segments must go out.
    let trace = |capped: bool| {
        let mut c = cfg("sack");
        c.initial_window = 10;
        let wnd = if capped { BIG_WND } else { 5 * MSS };
        c.rcv_buffer = wnd;
        let mut h = H::new(c);
        if capped {
            h.s.set_max_unacked(Some(5 * MSS));
        }
        let sack = |h: &mut H, t: u64, ack: u64, blocks: &[(u64, u64)]| {
            let b: Vec<(u64, u64)> = blocks.iter().map(|&(s, e)| (s * MSS, e * MSS)).collect();
            h.at(t).ack_seg(crate::tcp::AckSeg {
                ack: ack * MSS,
                wnd,
                sack: crate::tcp::SackBlocks::from_slice(&b),
                window_update: false,
                tsecr: None,
            })
        };
        vec![
            h.at(0).app(UNLIMITED),
            // 0 lost; 1..4 SACKed.
            sack(&mut h, 610, 0, &[(1, 2)]),
            sack(&mut h, 620, 0, &[(1, 3)]),
            // cwnd = ssthresh = max(5000/2, 2 SMSS) = 2500; pipe = R0 + [4,5) = 2000.
            sack(&mut h, 630, 0, &[(1, 4)]),
            // pipe = 1000: room for one segment. Rule (2), new data 5, would
            // make 6000 bytes unacknowledged: refused. Rules (1), (3): no hole
            // left. Rule (4): the one rescue retransmission, of the highest
            // unSACKed segment, which is 0 again (RFC-literal).
            sack(&mut h, 640, 0, &[(1, 5)]),
            // R0's ACK covers RecoveryPoint: cwnd 2500 from una 5000.
            sack(&mut h, 1240, 5, &[]),
        ]
    };
    let expected = ["0 1 2 3 4", "", "", "R0", "R0", "5 6"];
    assert_eq!(trace(false), expected, "limited by the receive window");
    assert_eq!(
        trace(true),
        expected,
        "limited by the cap on unacknowledged bytes"
    );
}
