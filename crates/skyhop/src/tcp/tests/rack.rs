//! RACK-TLP, RFC 8985, over RFC 6675 SACK recovery (`tcp.rack`).
//!
//! Path model for every trace: 10 segments of 1000 bytes sent at t = 0, an
//! RTT of exactly 100 ms (the estimator primed with it, so SRTT = min RTT
//! = 100 ms and the RTO is its 1 s minimum), ACKs written by hand one per
//! arriving segment. Reno's controller: IW 10 = ssthresh, so a new ACK
//! adds SMSS²/cwnd (RFC 5681 (3)) and a loss halves FlightSize.

use super::harness::*;
use crate::tcp::rack::LossTimer;

fn rack_sender(app: u64) -> H {
    let mut c = cfg("sack");
    c.rack = true;
    c.initial_window = 10;
    c.initial_ssthresh = 10 * MSS;
    let mut h = H::new(c);
    h.prime_rtt(100, 40);
    assert_eq!(h.at(0).app(app), "0 1 2 3 4 5 6 7 8 9");
    h
}

fn stats(h: &H) -> crate::tcp::rack::RackStats {
    h.s.rack().expect("runs RACK").stats.clone()
}

#[test]
fn a_lost_fast_retransmission_is_found_by_rack_one_rtt_later_and_sent_again_without_a_timeout() {
    let mut h = rack_sender(UNLIMITED);
    // 2 is lost. ACKs of 0 and 1: cwnd 10000 + 100, then + 99 (10199):
    // one new segment each.
    assert_eq!(h.at(100).ack(1), "10");
    assert_eq!(h.at(101).ack(2), "11");
    // 3 SACKed at 102: RACK.xmit_ts = 0 (3's), RACK.rtt = 102 ms. 2 was
    // sent at the same instant with a lower end: "sent before" (the
    // sequence breaks the tie, section 6.2). No reordering seen and one
    // segment SACKed: reo_wnd = min RTT / 4 = 25 ms (step 4), so 2 is lost
    // only at 0 + 102 + 25 = 127 ms: the reordering timer is armed for then.
    assert_eq!(h.at(102).sack(2, &[(3, 4)]), "");
    assert_eq!(
        h.s.rack().unwrap().timer(),
        Some((ms(127), LossTimer::Reorder))
    );
    // 4 SACKed: RACK.rtt = 103, the wait now ends at 128.
    assert_eq!(h.at(103).sack(2, &[(3, 5)]), "");
    assert_eq!(h.poll_ms(), Some(128));
    // 5 SACKed: three segments SACKed (DupThresh) and no reordering seen:
    // reo_wnd = 0, and 2 has waited 0 + 104 <= 104 ms: lost. Recovery
    // starts: ssthresh = cwnd = FlightSize / 2 = 10000 / 2, and 2 is
    // retransmitted (RFC 6675 (4.3)).
    assert_eq!(h.at(104).sack(2, &[(3, 6)]), "R2");
    assert!(h.s.in_recovery());
    assert_eq!((h.ssthresh(), h.cwnd()), (5000, 5000));
    // pipe = FlightSize 10000 - SACKed 3000 - lost 1000 + resent 1000 = 7000.
    assert_eq!(h.s.sack_pipe(), Some(7000));
    // 6, 7 SACKed: pipe 6000, 5000: nothing; 8: pipe 4000: new data 12;
    // 9: FlightSize 11000 - 7000 SACKed = 4000: 13.
    assert_eq!(h.at(105).sack(2, &[(3, 7)]), "");
    assert_eq!(h.at(106).sack(2, &[(3, 8)]), "");
    assert_eq!(h.at(107).sack(2, &[(3, 9)]), "12");
    assert_eq!(h.at(108).sack(2, &[(3, 10)]), "13");
    // The retransmission R2 (sent at 104) is lost too. 10 (sent at 100)
    // and 11 (101) are SACKed at 200 and 201: sent before R2, so R2 is not
    // judged; each frees a segment of pipe for new data.
    assert_eq!(h.at(200).sack(2, &[(3, 11)]), "14");
    assert_eq!(h.at(201).sack(2, &[(3, 12)]), "15");
    // 12 (sent at 107) SACKed at 207: RACK.xmit_ts = 107, RACK.rtt = 100,
    // and R2 was sent at 104, before it: in recovery reo_wnd = 0, and
    // 104 + 100 <= 207: the retransmission is lost (step 5). NextSeg rule
    // (1) resends it at once; pipe = FlightSize 14000 - 10000 SACKed -
    // 1000 lost = 3000 leaves room for one new segment as well.
    assert_eq!(h.at(207).sack(2, &[(3, 13)]), "R2 16");
    assert_eq!(stats(&h).lost_retransmissions, 1);
    // 13, 14, 15 SACKed: pipe 4000 before each, a new segment each.
    assert_eq!(h.at(208).sack(2, &[(3, 14)]), "17");
    assert_eq!(h.at(300).sack(2, &[(3, 15)]), "18");
    assert_eq!(h.at(301).sack(2, &[(3, 16)]), "19");
    // The second R2 arrives with 16: ACK 17 passes RecoveryPoint (12000):
    // recovery ends with cwnd = ssthresh = 5000; 17..19 are outstanding,
    // so 20 and 21 fill the window; then congestion avoidance (5200): 22.
    assert_eq!(h.at(307).ack(17), "20 21");
    assert!(!h.s.in_recovery());
    assert_eq!(h.at(308).ack(18), "22");
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.stats.retransmissions, 2);
    assert_eq!(h.s.stats.timeouts, 0);
    assert_eq!(h.s.stats.fast_recoveries, 1);
}

#[test]
fn without_rack_the_lost_retransmission_waits_for_the_timeout() {
    // The same losses under plain RFC 6675: the SACKs of 10..15 never make
    // the hole at 2 "lost" again (it is below HighRxt), so nothing is sent
    // for it until the RTO, 1 s after the last ACK of new data (the one at
    // 104 restarted it... the cumulative ACK never moves: the fast
    // retransmission at 104 armed it for 1104).
    let mut c = cfg("sack");
    c.initial_window = 10;
    c.initial_ssthresh = 10 * MSS;
    let mut h = H::new(c);
    h.prime_rtt(100, 40);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    assert_eq!(h.at(100).ack(1), "10");
    assert_eq!(h.at(101).ack(2), "11");
    assert_eq!(h.at(102).sack(2, &[(3, 4)]), "");
    assert_eq!(h.at(103).sack(2, &[(3, 5)]), "");
    assert_eq!(h.at(104).sack(2, &[(3, 6)]), "R2");
    for (t, top) in [(105, 7), (106, 8), (107, 9), (108, 10)] {
        h.at(t).sack(2, &[(3, top)]);
    }
    for (t, top) in [(200, 11), (201, 12), (207, 13), (208, 14)] {
        let sent = h.at(t).sack(2, &[(3, top)]);
        assert!(!sent.contains('R'), "{t}: {sent}");
    }
    assert_eq!(h.poll_ms(), Some(1104));
    assert!(h.at(1104).timer().starts_with("R2"));
    assert_eq!(h.s.stats.timeouts, 1);
}

#[test]
fn reordering_within_the_window_sends_nothing_and_a_loss_beyond_it_is_resent_at_the_timer() {
    let mut h = rack_sender(UNLIMITED);
    assert_eq!(h.at(100).ack(1), "10");
    assert_eq!(h.at(101).ack(2), "11");
    // 2 is delayed, not lost: 3 is SACKed first, the reordering timer is
    // armed for 0 + 102 + 25 = 127 ms...
    assert_eq!(h.at(102).sack(2, &[(3, 4)]), "");
    assert_eq!(h.poll_ms(), Some(127));
    // ...and 2 arrives at 110, inside the window: no retransmission. Its
    // end (3000) is below RACK.fack (4000) and it was never resent:
    // reordering seen (step 3). The cumulative ACK of 2 and 3: cwnd
    // 10199 + 98 = 10297 lets 12 and 13 out.
    assert_eq!(h.at(110).ack(4), "12 13");
    assert!(h.s.rack().unwrap().reordering_seen());
    assert_eq!(h.s.stats.retransmissions, 0);
    assert_ne!(
        h.s.rack().unwrap().timer().map(|t| t.1),
        Some(LossTimer::Reorder)
    );
    // cwnd 10297 + 97 = 10394: 14.
    assert_eq!(h.at(111).ack(5), "14");
    // Now 5 is lost. With reordering seen, reo_wnd stays min RTT / 4 =
    // 25 ms even once DupThresh segments are SACKed: the third and fourth
    // SACKed segments (at 115 and 116), which would start an RFC 6675
    // fast retransmit, send nothing.
    assert_eq!(h.at(113).sack(5, &[(6, 7)]), "");
    assert_eq!(h.at(114).sack(5, &[(6, 8)]), "");
    assert_eq!(h.at(115).sack(5, &[(6, 9)]), "");
    assert_eq!(h.at(116).sack(5, &[(6, 10)]), "");
    assert!(!h.s.in_recovery());
    // RACK.rtt = 116 ms (9, sent at 0, SACKed at 116): 5 is lost at
    // 0 + 116 + 25 = 141 ms, when the reordering timer fires (section
    // 6.3): recovery, ssthresh = cwnd = 10000 / 2, R5.
    assert_eq!(
        h.s.rack().unwrap().reo_wnd(),
        crate::engine::time::Dur::from_millis(25)
    );
    assert_eq!(h.poll_ms(), Some(141));
    assert_eq!(h.at(141).timer(), "R5");
    assert!(h.s.in_recovery());
    assert_eq!((h.ssthresh(), h.cwnd()), (5000, 5000));
    assert_eq!(stats(&h).reorder_timeouts, 1);
    assert_eq!(h.s.stats.retransmissions, 1);
}

#[test]
fn a_tail_loss_is_repaired_by_a_probe_two_srtt_after_the_last_ack_not_by_the_timeout() {
    // Only 10 segments to send; 8 and 9 are lost.
    let mut h = rack_sender(10 * MSS);
    // Section 7.2: the probe timer, PTO = 2 SRTT = 200 ms, is armed when
    // new data goes out (t = 0) and re-armed by each ACK of new data.
    assert_eq!(h.poll_ms(), Some(200));
    for k in 1..=8 {
        assert_eq!(h.at(99 + k).ack(k), "");
    }
    // The last ACK (of 7) at 107: PTO at 307, before the RTO at 1107.
    assert_eq!(h.s.rto_deadline(), Some(ms(1107)));
    assert_eq!(h.poll_ms(), Some(307));
    // Section 7.3: no new data, so the highest segment sent (9) goes again,
    // and the RTO is re-armed from now (1307).
    assert_eq!(h.at(307).timer(), "R9");
    assert_eq!(h.s.rto_deadline(), Some(ms(1307)));
    assert_eq!(stats(&h).probes, 1);
    // The probe's SACK at 407: RACK.xmit_ts = 307 (R9's own RTT, 100 ms, is
    // not below min RTT, so its delivery counts, step 2); 8 was sent long
    // before and 0 + 100 + 25 <= 407: lost. Recovery, R8.
    assert_eq!(h.at(407).sack(8, &[(9, 10)]), "R8");
    assert!(h.s.in_recovery());
    // R8 arrives: everything acknowledged, recovery over, no timeout ever.
    assert_eq!(h.at(507).ack(10), "");
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.stats.timeouts, 0);
    assert_eq!(h.s.stats.retransmissions, 2);
    assert_eq!(h.poll_ms(), None);
}

#[test]
fn a_probe_sends_new_data_when_there_is_some_and_waits_longer_for_a_single_segment() {
    // One segment of data: PTO = 2 SRTT + the 200 ms worst-case delayed ACK
    // (section 7.2, FlightSize of one segment).
    let mut c = cfg("sack");
    c.rack = true;
    let mut h = H::new(c);
    h.prime_rtt(100, 40);
    assert_eq!(h.at(0).app(MSS), "0");
    assert_eq!(h.poll_ms(), Some(400));
    // Lost. More data arrives from the application at 300 but cwnd (IW 1)
    // is full, so the probe at 400 sends new data, 1, beyond cwnd (TLP
    // sends one segment whatever the window).
    assert_eq!(h.at(300).app(MSS), "");
    assert_eq!(h.at(400).timer(), "1");
    // 1's SACK at 500: 0 was sent 400 ms before 1: lost, resent.
    assert_eq!(h.at(500).sack(0, &[(1, 2)]), "R0");
    assert_eq!(h.at(600).ack(2), "");
    assert_eq!(h.s.stats.timeouts, 0);
}

#[test]
fn a_timeout_keeps_the_scoreboard_and_resends_only_the_holes() {
    // 3 and 6 lost, and so is every ACK after the SACK of 4 (reverse path
    // outage): the RTO fires. RFC 2018 section 8 would forget the SACKs of
    // 4 and 5 and go back N; with RACK the scoreboard stays, only the
    // unSACKed segments are marked lost and resent (RFC 6675 section 5.1).
    let mut h = rack_sender(10 * MSS);
    assert_eq!(h.at(100).ack(1), "");
    assert_eq!(h.at(101).ack(2), "");
    assert_eq!(h.at(103).ack(3), "");
    assert_eq!(h.at(104).sack(3, &[(4, 5)]), "");
    assert_eq!(h.at(105).sack(3, &[(4, 6)]), "");
    // The reordering timer (0 + 105 + 25 = 130 ms) marks 3 lost: R3.
    assert_eq!(h.at(130).timer(), "R3");
    // Nothing more comes back. The RTO, armed by the fast retransmission
    // at 130: 1130. cwnd = 1 segment; 3 (the first unacknowledged) goes
    // at once whatever the window; 6..9, lost too, wait for the window.
    assert_eq!(h.poll_ms(), Some(1130));
    assert_eq!(h.at(1130).timer(), "R3");
    assert_eq!(h.s.stats.timeouts, 1);
    assert_eq!(h.cwnd(), MSS);
    // Its ACK: cumulative to 6 (4 and 5 were held): slow start, cwnd 2:
    // R6 R7 — never 4 or 5.
    assert_eq!(h.at(1230).ack(6), "R6 R7");
    assert_eq!(h.at(1330).ack(7), "R8 R9");
    assert_eq!(h.at(1331).ack(8), "");
    assert_eq!(h.at(1430).ack(10), "");
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.stats.retransmissions, 6);
}

#[test]
fn a_loss_rack_finds_on_the_first_sack_is_resent_before_limited_transmit_sends_new_data() {
    // 9, the last of the initial window, is lost. Its successors' ACKs
    // (0..8 at 100..108) each send one new segment (cwnd 10000 + 100 +
    // 99 + ... stays below 11000), 10..18.
    let mut c = cfg("sack");
    c.rack = true;
    c.limited_transmit = true;
    c.initial_window = 10;
    c.initial_ssthresh = 10 * MSS;
    let mut h = H::new(c);
    h.prime_rtt(100, 40);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    for k in 1..=9 {
        assert_eq!(h.at(99 + k).ack(k), format!("{}", 9 + k));
    }
    // 10 (sent at 100) SACKed at 200, the first duplicate ACK: RACK.rtt =
    // 100 ms and 9 (sent at 0) has waited 200 > 0 + 100 + reo_wnd 25 ms:
    // lost at once. Recovery starts (ssthresh = cwnd = FlightSize 10000 /
    // 2) and 9 is resent first; Limited Transmit no longer applies (in
    // recovery), and pipe = 10000 - 1000 SACKed - 1000 lost + 1000 resent
    // = 9000 >= cwnd: nothing new. (Linux's order: tcp_fastretrans_alert
    // and the retransmission queue before new data.)
    assert_eq!(h.at(200).sack(9, &[(10, 11)]), "R9");
    assert!(h.s.in_recovery());
    assert_eq!((h.ssthresh(), h.cwnd()), (5000, 5000));
    // 11..14 SACKed: pipe 8000, 7000, 6000, 5000: nothing (cwnd - pipe <
    // SMSS); 15..18: pipe 4000 before each, one new segment each.
    assert_eq!(h.at(201).sack(9, &[(10, 12)]), "");
    assert_eq!(h.at(202).sack(9, &[(10, 13)]), "");
    assert_eq!(h.at(203).sack(9, &[(10, 14)]), "");
    assert_eq!(h.at(204).sack(9, &[(10, 15)]), "");
    assert_eq!(h.at(205).sack(9, &[(10, 16)]), "19");
    assert_eq!(h.at(206).sack(9, &[(10, 17)]), "20");
    assert_eq!(h.at(207).sack(9, &[(10, 18)]), "21");
    assert_eq!(h.at(208).sack(9, &[(10, 19)]), "22");
    // R9 left before 19..22 and arrives before them: ACK 19 at 300 passes
    // RecoveryPoint (19000) and ends recovery, cwnd = ssthresh = 5000 with
    // 19..22 outstanding: 23. No SACK of a segment sent after R9 can come
    // ahead of R9's own ACK, so RACK never judges R9: one retransmission.
    assert_eq!(h.at(300).ack(19), "23");
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.stats.retransmissions, 1);
    assert_eq!(stats(&h).lost_retransmissions, 0);
}
