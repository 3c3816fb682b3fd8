//! The 2001 Westwood (`cc/westwood2001.rs`) in a sender over ns-2's
//! NewReno (Slow-but-Steady, no partial window deflation), on the path of
//! `newreno.rs`: one 1000-byte segment per 10 ms at the bottleneck, 300 ms
//! each way, the RTO the 1 s minimum.

use super::harness::*;
use crate::engine::time::{Dur, Time};
use crate::tcp::cc::Cc;
use crate::tcp::recovery::{Ns2NewRenoRecovery, Rec};
use crate::tcp::TcpSender;

fn sender() -> H {
    let mut c = cfg("westwood-2001");
    c.initial_window = 10;
    c.initial_ssthresh = 10 * MSS;
    let cc = Cc::build(c.variant.cc, &c);
    let rec = Rec::Ns2NewRenoSbs(Ns2NewRenoRecovery::new(false, false));
    let mut h = H {
        s: TcpSender::new(c, cc, rec),
        now: Time::ZERO,
    };
    // RTT_min 610 ms (the agent's starts at 5 s).
    h.prime_rtt(610, 40);
    h
}

#[test]
fn three_duplicate_acks_keep_a_cwnd_below_the_estimate_and_send_at_once() {
    let mut h = sender();
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    // Samples, one segment each (8000 bit) over the interval since the
    // previous ACK (the first from time 0), b̂ = 0.9047 b̂ + 0.0476 (b + b'):
    // 610 ms: b 13 114.75, b̂ 624.26; 620: 800 000, 39 269.03.
    assert_eq!(h.at(610).ack(1), "10");
    assert_eq!(h.at(620).ack(2), "11");
    assert_eq!(h.cwnd(), 10_199);
    // Duplicate ACKs count one segment each: 640: 400 000, 92 646.69;
    // 650: 800 000, 140 937.46.
    assert_eq!(h.at(640).ack(2), "");
    assert_eq!(h.at(650).ack(2), "");
    // 670: 400 000, b̂ 184 626.12 bit/s; × 0.61 s / 8000 bit = 14.08
    // segments: ssthresh 14, cwnd 10199 kept (below 14 077), inflated by
    // 3: una 2000 + 13199 lets 12 and 13 out with R2 (NewReno halving
    // would have left 5 + 3 segments and sent nothing new).
    assert_eq!(h.at(670).ack(2), "R2 12 13");
    assert_eq!((h.ssthresh(), h.cwnd()), (14_000, 13_199));
    assert_eq!(h.s.rate_estimate_bps().map(|b| b.round()), Some(184_626.0));
}

#[test]
fn a_timeout_restarts_from_two_segments() {
    let mut h = sender();
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3 4 5 6 7 8 9");
    // No ACK comes back: the timer (1 s) fires. No estimate yet: ssthresh
    // at its floor, 2 segments, and the agent's cwnd = 2: go back to 0
    // with two segments (RFC 5681 and the ABSE Westwood resend one).
    assert_eq!(h.at(1000).timer(), "R0 R1");
    assert_eq!((h.ssthresh(), h.cwnd()), (2 * MSS, 2 * MSS));
    assert_eq!(h.s.rto(), Dur::from_secs(2));
}
