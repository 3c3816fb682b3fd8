//! Spurious timeouts (`tcp.frto`): F-RTO (RFC 5682, SACK-enhanced, as
//! Linux's `tcp_frto = 2`) and the Eifel test with timestamps (RFC 3522),
//! over RACK's RTO recovery.
//!
//! Path model for every trace: an RTT of 100 ms (the estimator primed, so
//! the RTO is its 1 s minimum and the loss probe's timeout 2 × SRTT =
//! 200 ms), 10 segments at t = 0, Reno's controller in congestion
//! avoidance (IW 10 = ssthresh). Nothing comes back for a while (a delay
//! spike, or everything lost): the tail loss probe goes out at 200 ms,
//! which rearms the RTO for 1200 ms.

use super::harness::*;

fn frto_sender(timestamps: bool) -> H {
    let mut c = cfg("sack");
    c.rack = true;
    c.frto = true;
    c.timestamps = timestamps;
    c.initial_window = 10;
    c.initial_ssthresh = 10 * MSS;
    let mut h = H::new(c);
    h.prime_rtt(100, 40);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    // RFC 8985 section 7.3: the probe, new data.
    assert_eq!(h.at(200).timer(), "10");
    // RFC 6298 (5.4): the timeout retransmits the first segment; RACK
    // marks every unSACKed segment lost (nothing delivered yet). ssthresh
    // = FlightSize 11000 / 2 = 5500, cwnd one segment.
    assert_eq!(h.at(1200).timer(), "R0");
    assert_eq!((h.cwnd(), h.ssthresh()), (MSS, 5500));
    h
}

#[test]
fn f_rto_sends_new_data_after_the_first_ack_and_undoes_when_original_data_is_acknowledged() {
    let mut h = frto_sender(false);
    // The ACK of the original 0 (only late): SND.UNA advances, the
    // recovery is not complete (RecoveryPoint 11000), and 0 was
    // retransmitted, so it proves nothing. Step 2b: new data instead of
    // retransmissions. Slow start: cwnd 2 segments; pipe = 10 outstanding
    // - 10 marked lost = 0: 11 and 12 go out.
    assert_eq!(h.at(1250).ack(1), "11 12");
    assert!(h.s.in_recovery());
    // The ACK of the original 1, sent before the timeout and never
    // retransmitted: the timeout was spurious (step 3b). Undo: cwnd =
    // max(2000, 10000 before), ssthresh = max(5500, max(10000, 3/4 ×
    // 10000)); no segment lost, the recovery left. Then this ACK grows the
    // window as in congestion avoidance: + 1000²/10000 = 10100, and
    // FlightSize 11000 leaves no room.
    assert_eq!(h.at(1251).ack(2), "");
    assert!(!h.s.in_recovery());
    assert_eq!((h.cwnd(), h.ssthresh()), (10_100, 10_000));
    assert_eq!(h.s.undo.undos, 1);
    assert_eq!(h.s.stats.retransmissions, 1);
    // The rest of the late ACKs clock out new data as before the spike.
    assert_eq!(h.at(1252).ack(3), "");
    assert_eq!(h.at(1253).ack(4), "13");
}

#[test]
fn with_timestamps_the_eifel_test_undoes_at_the_first_ack() {
    let mut h = frto_sender(true);
    // The ACK of the original 0 echoes its TSval 0, older than the
    // timeout's retransmission at 1200: the original was delivered, the
    // timeout was spurious (RFC 3522; Linux's tcp_packet_delayed). Undo,
    // then congestion avoidance: cwnd 10100; FlightSize 10000 leaves 100.
    assert_eq!(h.at(1250).ack_ts(1, &[], 0), "");
    assert!(!h.s.in_recovery());
    assert_eq!((h.cwnd(), h.ssthresh()), (10_100, 10_000));
    assert_eq!(h.s.undo.undos, 1);
}

#[test]
fn a_sack_of_the_new_data_shows_the_loss_was_real() {
    let mut h = frto_sender(false);
    // Everything before the timeout was lost. The ACK of R0: step 2b,
    // new data 11 and 12.
    assert_eq!(h.at(1300).ack(1), "11 12");
    // 11 arrives over the holes: a duplicate ACK with a SACK of new data
    // (step 3a): the loss was real, the conventional recovery goes on.
    // pipe = 12 outstanding - 1 SACKed - 10 lost = 1 (12): one
    // retransmission fits cwnd 2: R1, the first segment marked lost.
    assert_eq!(h.at(1400).sack(1, &[(11, 12)]), "R1");
    // 12 SACKed: pipe 1 (R1): R2.
    assert_eq!(h.at(1401).sack(1, &[(11, 13)]), "R2");
    assert_eq!(h.s.undo.undos, 0);
    assert!(h.s.in_recovery());
}
