//! ns-2's NewReno (`Agent/TCP/Newreno`, `recovery/ns2_newreno.rs`) on the
//! path and loss pattern of `newreno.rs`: a bottleneck sending one
//! 1000-byte segment per 10 ms, 300 ms each way (a segment handed over at t
//! leaves at D = max(t, previous D) + 10 ms, its ACK is back at D + 600
//! ms), the RTO the 1 s minimum; IW 10, ssthresh 10 segments, segments
//! 0..9 sent at t = 0, segments 2, 5 and 8 lost. Against RFC 6582's
//! traces there, ns-2 without partial window deflation falls back to
//! `cwnd_` on each partial ACK and waits for new duplicate ACKs.

use super::harness::*;
use crate::engine::time::{Dur, Time};
use crate::tcp::cc::Cc;
use crate::tcp::recovery::{Ns2NewRenoRecovery, Rec};
use crate::tcp::TcpSender;

fn ns2_sender(c: crate::tcp::TcpConfig, impatient: bool, deflate: bool) -> H {
    let cc = Cc::build(c.variant.cc, &c);
    let rec = Rec::Ns2NewReno(Ns2NewRenoRecovery::new(impatient, deflate));
    H {
        s: TcpSender::new(c, cc, rec),
        now: Time::ZERO,
    }
}

/// Up to the second duplicate ACK (the same for every flavour).
fn three_losses(impatient: bool, deflate: bool) -> H {
    let mut c = cfg("newreno");
    c.initial_window = 10;
    c.initial_ssthresh = 10 * MSS;
    let mut h = ns2_sender(c, impatient, deflate);
    h.prime_rtt(610, 40);
    assert_eq!(h.s.rto(), Dur::from_secs(1));
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    assert_eq!(h.at(610).ack(1), "10"); // cwnd 10100; 10 ACKed at 1220
    assert_eq!(h.at(620).ack(2), "11"); // cwnd 10199; 11 ACKed at 1230
    assert_eq!(h.at(640).ack(2), "");
    assert_eq!(h.at(650).ack(2), "");
    // Third duplicate ACK: ns-2 halves the window, ⌊10199 / 1000⌋ = 10
    // segments: ssthresh = cwnd_ = 5 segments, dupwnd_ = 3; R2 (ACKed at
    // 1280), the timer restarts to 1670, recover = 12000.
    assert_eq!(h.at(670).ack(2), "R2");
    assert_eq!((h.ssthresh(), h.cwnd()), (5000, 8000));
    assert_eq!(h.poll_ms(), Some(1670));
    // ++dupwnd_ per duplicate ACK; new data once una + cwnd_ + dupwnd_
    // passes 12000.
    assert_eq!(h.at(680).ack(2), ""); // 7: window 9000
    assert_eq!(h.at(700).ack(2), ""); // 9: 10000
    assert_eq!(h.at(1220).ack(2), "12"); // 10: 11000; 12 ACKed at 1830
    assert_eq!(h.at(1230).ack(2), "13"); // 11: 12000; 13 ACKed at 1840
    h
}

#[test]
fn without_partial_window_deflation_each_partial_ack_falls_back_to_cwnd_and_waits() {
    let mut h = three_losses(false, false);
    // R2 arrives; the receiver holds 3, 4: ACK 5, partial. dupwnd_ = 0:
    // the window is cwnd_ = 5000, una 5000 + 5000 < snd_nxt 14000, so only
    // R5 goes out (RFC 6582 deflates to 10000 and sends 14 too).
    // Slow-but-Steady: the timer restarts, 1280 + 1000.
    assert_eq!(h.at(1280).ack(5), "R5"); // R5 ACKed at 1890
    assert_eq!(h.cwnd(), 5000);
    assert_eq!(h.poll_ms(), Some(2280));
    // 12 and 13 arrive above the hole at 5: dupwnd_ 1, 2: windows 6000 and
    // 7000 from una 5000, below 14000: nothing.
    assert_eq!(h.at(1830).ack(5), "");
    assert_eq!(h.at(1840).ack(5), "");
    assert_eq!(h.cwnd(), 7000);
    // R5 arrives; the receiver holds 6, 7: ACK 8, the second partial ACK:
    // dupwnd_ = 0 again, R8 alone; the timer restarts again.
    assert_eq!(h.at(1890).ack(8), "R8"); // R8 ACKed at 2500
    assert_eq!(h.cwnd(), 5000);
    assert_eq!(h.poll_ms(), Some(2890));
    assert!(h.s.in_recovery());
    // R8 arrives; the receiver holds 9..13: ACK 14 >= recover, the full
    // ACK: cwnd_ stays 5000 and opens as for any new ACK (congestion
    // avoidance, + 1000²/5000): 5200; una 14000 + 5200 lets 14..18 out.
    assert_eq!(h.at(2500).ack(14), "14 15 16 17 18");
    assert!(!h.s.in_recovery());
    assert_eq!((h.cwnd(), h.ssthresh()), (5200, 5000));
    assert_eq!(h.poll_ms(), Some(3500));
    assert_eq!(h.s.stats.timeouts, 0);
    assert_eq!(h.s.stats.retransmissions, 3);
}

#[test]
fn impatient_without_deflation_times_out_and_halves_cwnd_without_the_inflation() {
    let mut h = three_losses(true, false);
    assert_eq!(h.at(1280).ack(5), "R5");
    assert_eq!(h.poll_ms(), Some(2280)); // the first partial ACK: restarted
    assert_eq!(h.at(1830).ack(5), "");
    assert_eq!(h.at(1840).ack(5), "");
    // The second partial ACK leaves the timer at 2280 (Impatient).
    assert_eq!(h.at(1890).ack(8), "R8");
    assert_eq!(h.poll_ms(), Some(2280));
    // The timeout, before R8's ACK (2500): Reno's timeout clears dupwnd_,
    // then halves cwnd_ = 5000 (not FlightSize = 14000 - 8000): ssthresh
    // ⌊5 / 2⌋ = 2 segments, cwnd 1; go back to 8; the timer doubles.
    assert_eq!(h.at(2280).timer(), "R8");
    assert_eq!((h.ssthresh(), h.cwnd()), (2000, MSS));
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.rto(), Dur::from_secs(2));
    assert_eq!(h.s.stats.timeouts, 1);
}

#[test]
fn with_partial_window_deflation_the_sends_are_rfc_6582s_and_the_exit_grows_cwnd() {
    let mut h = three_losses(false, true);
    // ACK 5 acknowledges 3 segments: dupwnd_ 7 > 3, so dupwnd_ -= 2: 5;
    // window 10000: R5 and 14 (as RFC 6582's trace).
    assert_eq!(h.at(1280).ack(5), "R5 14");
    assert_eq!(h.cwnd(), 10_000);
    assert_eq!(h.at(1830).ack(5), "15");
    assert_eq!(h.at(1840).ack(5), "16");
    // ACK 8: dupwnd_ 7 - 2 = 5.
    assert_eq!(h.at(1890).ack(8), "R8 17");
    assert_eq!(h.at(1900).ack(8), "18");
    assert_eq!(h.at(2440).ack(8), "19");
    assert_eq!(h.at(2450).ack(8), "20");
    // Full ACK 17: cwnd_ 5000 opened to 5200 (RFC 6582: ssthresh, 5000);
    // una 17000 + 5200: 21.
    assert_eq!(h.at(2500).ack(17), "21");
    assert_eq!((h.cwnd(), h.ssthresh()), (5200, 5000));
    assert_eq!(h.s.stats.retransmissions, 3);
}

#[test]
fn the_reduction_halves_the_window_not_flightsize() {
    // IW 20 in congestion avoidance, but the application has 10 segments:
    // FlightSize is 10 segments, the window 20. Segment 0 is lost.
    let mut c = cfg("newreno");
    c.initial_window = 20;
    c.initial_ssthresh = 20 * MSS;
    let mut h = ns2_sender(c.clone(), false, false);
    h.prime_rtt(610, 40);
    assert_eq!(h.at(0).app(10 * MSS), "0 1 2 3 4 5 6 7 8 9");
    assert_eq!(h.at(620).ack(0), "");
    assert_eq!(h.at(630).ack(0), "");
    // ssthresh = ⌊20 / 2⌋ = 10 segments (RFC 5681: FlightSize / 2 = 5).
    assert_eq!(h.at(640).ack(0), "R0");
    assert_eq!((h.ssthresh(), h.cwnd()), (10_000, 13_000));
    // With the receiver allowing 8000 bytes, W = min(20, 8): ssthresh 4.
    let mut h = ns2_sender(c, false, false);
    h.prime_rtt(610, 40);
    assert_eq!(h.at(0).app(10 * MSS), "0 1 2 3 4 5 6 7 8 9");
    assert_eq!(h.at(620).ack_wnd(0, 8000), "");
    assert_eq!(h.at(630).ack_wnd(0, 8000), "");
    assert_eq!(h.at(640).ack_wnd(0, 8000), "R0");
    assert_eq!((h.ssthresh(), h.cwnd()), (4000, 7000));
}

#[test]
fn in_recovery_at_most_two_segments_go_out_per_ack() {
    // A fixed window of 20 segments (ns-2's window_), IW 20, ssthresh 20;
    // segments 0 and 19 lost.
    let mut c = cfg("newreno");
    c.initial_window = 20;
    c.initial_ssthresh = 20 * MSS;
    c.rcv_buffer = 20 * MSS;
    let mut h = ns2_sender(c, false, false);
    h.prime_rtt(610, 40);
    let all: Vec<String> = (0..20).map(|i| i.to_string()).collect();
    assert_eq!(h.at(0).app(UNLIMITED), all.join(" "));
    let w = 20 * MSS;
    assert_eq!(h.at(620).ack_wnd(0, w), "");
    assert_eq!(h.at(630).ack_wnd(0, w), "");
    // W = 20: ssthresh = cwnd_ = 10 segments; R0 ACKed at 1250.
    assert_eq!(h.at(640).ack_wnd(0, w), "R0");
    // Duplicate ACKs for 4..18 inflate to 28 segments, but the window of
    // 20 holds everything back.
    for t in (650..=790).step_by(10) {
        assert_eq!(h.at(t).ack_wnd(0, w), "");
    }
    assert_eq!(h.cwnd(), 28_000);
    // R0 arrives: ACK 19, partial. The window is cwnd_ = 10 segments from
    // una 19000: 20..28 would fit, but ns-2 sends two per ACK in recovery:
    // R19, 20, 21 (R19 ACKed at 1860).
    assert_eq!(h.at(1250).ack_wnd(19 * MSS, w), "R19 20 21");
    // R19 arrives: ACK 20, the full ACK; cwnd_ 10000 opens to 10100 and
    // the window is no longer held to two per ACK: 22..29.
    assert_eq!(h.at(1860).ack_wnd(20 * MSS, w), "22 23 24 25 26 27 28 29");
    assert_eq!(h.cwnd(), 10_100);
}

/// `exitFastRetrans_` (`tcp.exit_fast_retrans`): the duplicate ACKs that a
/// timeout's go-back-N causes. IW 10, ssthresh 10 segments, 0..9 sent at
/// t = 0; 0, 1, 2, 3 and 7 are lost and the ACKs of the others too, so the
/// timer fires at 1000 (RTO 1 s). ns-2 halves ⌊min(cwnd_, wnd_)⌋ = 10:
/// ssthresh 5 segments, cwnd 1, recover = 10, go back N. Slow start
/// resends 0..6; the receiver already holds 4, 5, 6, so R3 brings ACK 7
/// and R4, R5, R6 three duplicate ACKs of 7, below recover: no fast
/// retransmit (bug_fix_).
fn go_back_n_with_three_duplicate_acks(exit_fast_retrans: bool) -> H {
    let mut c = cfg("newreno");
    c.initial_window = 10;
    c.initial_ssthresh = 10 * MSS;
    c.exit_fast_retrans = exit_fast_retrans;
    let cc = Cc::build(c.variant.cc, &c);
    let rec = Rec::Ns2NewRenoSbs(
        Ns2NewRenoRecovery::new(false, false).exit_fast_retrans(exit_fast_retrans),
    );
    let mut h = H {
        s: TcpSender::new(c, cc, rec),
        now: Time::ZERO,
    };
    h.prime_rtt(610, 40);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    assert_eq!(h.at(1000).timer(), "R0");
    assert_eq!((h.ssthresh(), h.cwnd()), (5 * MSS, MSS));
    // Slow start: cwnd 2, 3, 4, each ACK sending up to una + cwnd.
    assert_eq!(h.at(1610).ack(1), "R1 R2");
    assert_eq!(h.at(2220).ack(2), "R3 R4");
    assert_eq!(h.at(2230).ack(3), "R5 R6");
    // R3: ACK 7, cwnd 5 (= ssthresh); una 7 + 5: R7, R8, R9 and 10, 11.
    assert_eq!(h.at(2830).ack(7), "R7 R8 R9 10 11");
    assert_eq!(h.cwnd(), 5 * MSS);
    assert_eq!(h.at(2840).ack(7), "");
    assert_eq!(h.at(2850).ack(7), "");
    h
}

#[test]
fn without_exit_fast_retrans_a_refused_fast_retransmit_still_inflates_the_window() {
    let mut h = go_back_n_with_three_duplicate_acks(false);
    // The third duplicate ACK: dupack_action refuses (7 < recover 10), but
    // dupwnd_ = 3 all the same: window cwnd_ 5 + 3 = 8 from una 7, up to
    // 15; at most two per ACK while duplicates are counted: 12, 13. Nothing
    // resent, ssthresh kept.
    assert_eq!(h.at(2860).ack(7), "12 13");
    assert_eq!((h.cwnd(), h.ssthresh()), (8 * MSS, 5 * MSS));
    assert_eq!(h.s.stats.fast_recoveries, 0);
    // R7 brings ACK 10 (8 and 9 held): a new ACK after a timeout clears
    // dupwnd_, cwnd_ 5 opens by 1000²/5000: 5200; una 10 + 5.2 lets 14 out.
    assert_eq!(h.at(3440).ack(10), "14");
    assert_eq!((h.cwnd(), h.ssthresh()), (5200, 5 * MSS));
    assert!(!h.s.in_recovery());
}

#[test]
fn with_exit_fast_retrans_the_duplicates_of_a_go_back_n_change_nothing() {
    let mut h = go_back_n_with_three_duplicate_acks(true);
    assert_eq!(h.at(2860).ack(7), "");
    assert_eq!((h.cwnd(), h.ssthresh()), (5 * MSS, 5 * MSS));
    assert!(!h.s.in_recovery());
    // ACK 10: cwnd 5200, una 10 + 5.2: 12, 13, 14.
    assert_eq!(h.at(3440).ack(10), "12 13 14");
    assert_eq!(h.cwnd(), 5200);
    assert_eq!(h.s.stats.fast_recoveries, 0);
}
