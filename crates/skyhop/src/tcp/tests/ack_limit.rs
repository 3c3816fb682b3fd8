//! The receiver's ACK limit: the ack-after-forward rule of a split proxy
//! (the on-board proxy of Luglio et al., IEEE JSAC 2004). The cumulative ACK is min(rcv_nxt, limit); an owed ACK
//! the limit holds back is deferred (never sent as a duplicate ACK) and goes
//! out when the limit lets it advance; out-of-order and duplicate segments
//! are still answered at once. The window field is relative to the ACK, so
//! the right edge (ACK + window) is what it would be without the rule.

use super::harness::*;
use crate::tcp::{AckSeg, DataSeg, WindowPolicy};

/// A proxy-side receiver (window = free buffer), buffer 10 segments, with
/// the ACK limit at 0: nothing transmitted on the outgoing leg yet.
fn proxy_rx(sack_blocks: u32, delayed: bool) -> Rx {
    let mut rx = Rx::new(10_000, sack_blocks, delayed);
    rx.r.set_proxy_mode(WindowPolicy::Free);
    rx.r.set_ack_limit(0);
    rx
}

/// Raise the limit and return what `flush_deferred_ack` sent.
fn limit(rx: &mut Rx, to: u64) -> String {
    rx.r.set_ack_limit(to);
    let mut acks = Vec::new();
    rx.r.flush_deferred_ack(&mut acks);
    show_acks(&acks)
}

#[test]
fn acks_are_capped_at_the_limit_and_a_deferred_ack_goes_out_when_it_advances() {
    let mut rx = proxy_rx(0, false);
    // Segments 0 and 1 arrive in order; nothing was forwarded: no ACK at all
    // (an ACK 0 would be a duplicate ACK to the sender).
    assert_eq!(rx.seg(0, 0), "");
    assert_eq!(rx.seg(10, 1), "");
    assert_eq!(rx.r.rcv_nxt(), 2000);
    assert!(rx.r.ack_deferred());
    assert_eq!(rx.r.stats.deferred_acks, 2);
    assert_eq!(rx.r.stats.acks_sent, 0);
    // The outgoing leg transmitted segment 0: ACK 1000. The buffer holds
    // 2000 bytes, so the free-buffer window is 8000 and the right edge is
    // rcv_nxt + 8000 = 10000; relative to ACK 1000 that is a window of 9000.
    assert_eq!(limit(&mut rx, 1000), "ack 1000 wnd 9000");
    // The limit did not move: nothing more (no duplicate ACK).
    assert_eq!(limit(&mut rx, 1000), "");
    // A lower limit is ignored.
    assert_eq!(limit(&mut rx, 500), "");
    assert_eq!(rx.r.ack_value(), 1000);
    assert_eq!(rx.r.last_ack(), 1000);
    // The outgoing leg's segments need not align with the incoming ones.
    assert_eq!(limit(&mut rx, 1500), "ack 1500 wnd 8500");
    // A limit beyond rcv_nxt acknowledges everything received, no more.
    assert_eq!(limit(&mut rx, 5000), "ack 2000 wnd 8000");
    assert!(!rx.r.ack_deferred());
    assert_eq!(limit(&mut rx, 6000), "");
    // Below the limit the receiver ACKs at once as usual.
    assert_eq!(rx.seg(20, 2), "ack 3000 wnd 7000");
    assert_eq!(rx.seg(30, 3), "ack 4000 wnd 6000");
    assert_eq!(rx.seg(40, 4), "ack 5000 wnd 5000");
    assert_eq!(rx.seg(50, 5), "ack 6000 wnd 4000");
    // Past it, the ACK is deferred again.
    assert_eq!(rx.seg(60, 6), "");
    assert_eq!(limit(&mut rx, 7000), "ack 7000 wnd 3000");
    assert_eq!(rx.r.stats.acks_sent, 8);
    assert_eq!(rx.r.stats.deferred_acks, 3);
}

#[test]
fn deferral_never_sends_a_duplicate_ack_and_a_sender_sees_none() {
    // A NewReno sender with a large window feeds the receiver; the limit
    // creeps forward one segment at a time, as a slow outgoing leg would.
    let mut h = H::new(cfg("newreno"));
    h.s.set_max_unacked(None);
    let mut rx = Rx::new(1 << 20, 3, false);
    rx.r.set_proxy_mode(WindowPolicy::Free);
    rx.r.set_ack_limit(0);
    // The sender's window: IW 1 segment; grow it by feeding ACKs in turn.
    let mut in_flight: Vec<DataSeg> = Vec::new();
    let mut out = Vec::new();
    h.s.add_app_data(h.now, UNLIMITED, &mut out);
    in_flight.append(&mut out);
    let mut fwd = 0u64;
    let mut acks_seen: Vec<AckSeg> = Vec::new();
    for step in 1..=60u64 {
        h.at(step * 10);
        // Everything in flight arrives; the receiver sends nothing it would
        // have to repeat.
        for d in in_flight.drain(..) {
            let acks = rx.data_acks(step * 10, &d);
            acks_seen.extend(acks.iter().copied());
            for a in acks {
                h.s.on_ack(h.now, &a, &mut out);
            }
        }
        // The outgoing leg transmits one more segment: one ACK, advancing.
        fwd += MSS;
        rx.r.set_ack_limit(fwd);
        let mut acks = Vec::new();
        rx.r.flush_deferred_ack(&mut acks);
        assert!(acks.len() <= 1);
        acks_seen.extend(acks.iter().copied());
        for a in acks {
            h.s.on_ack(h.now, &a, &mut out);
        }
        in_flight.append(&mut out);
    }
    // Every ACK advanced the cumulative ACK and none passed the limit.
    for w in acks_seen.windows(2) {
        assert!(w[1].ack > w[0].ack, "{}", show_acks(w));
    }
    assert!(acks_seen.iter().all(|a| a.ack <= 60 * MSS));
    assert_eq!(acks_seen.last().unwrap().ack, 60 * MSS);
    assert!(rx.r.stats.deferred_acks > 0);
    // The sender counted no duplicate ACKs and never entered recovery.
    assert_eq!(h.s.stats.fast_recoveries, 0);
    assert_eq!(h.s.stats.retransmissions, 0);
    assert_eq!(h.s.dupacks(), 0);
    // The receiver held the data the limit had not reached.
    assert!(rx.r.rcv_nxt() > 60 * MSS);
}

#[test]
fn out_of_order_and_duplicate_segments_still_get_immediate_capped_acks() {
    let mut rx = proxy_rx(3, false);
    assert_eq!(rx.seg(0, 0), "");
    assert_eq!(rx.seg(10, 1), "");
    assert_eq!(limit(&mut rx, 1000), "ack 1000 wnd 9000");
    // 3 and 4 arrive over a hole at 2: duplicate ACKs at once, with SACK,
    // capped at the limit (1000), though 1 is held (rcv_nxt 2000).
    assert_eq!(rx.seg(20, 3), "ack 1000 wnd 9000 sack [3000,4000)");
    assert_eq!(rx.seg(30, 4), "ack 1000 wnd 9000 sack [3000,5000)");
    // A duplicate of old data (0) and a resend of held, unforwarded data (1)
    // are answered at once too.
    assert_eq!(rx.seg(40, 0), "ack 1000 wnd 9000 sack [3000,5000)");
    assert_eq!(rx.seg(50, 1), "ack 1000 wnd 9000 sack [3000,5000)");
    assert_eq!(rx.r.stats.duplicate_segments, 2);
    // 2 fills the hole: rcv_nxt jumps to 5000, but the ACK owed is capped:
    // deferred, not sent as a fifth ACK 1000.
    assert_eq!(rx.seg(60, 2), "");
    assert_eq!(rx.r.rcv_nxt(), 5000);
    // Buffer: 5000 held, window 5000, right edge 10000.
    assert_eq!(limit(&mut rx, 3000), "ack 3000 wnd 7000");
    assert_eq!(limit(&mut rx, 5000), "ack 5000 wnd 5000");
    assert_eq!(limit(&mut rx, 9000), "");
}

#[test]
fn delayed_acks_keep_their_every_second_segment_rhythm_under_the_limit() {
    let mut rx = proxy_rx(0, true);
    // The first segment: a delayed ACK is pending; forwarding it raises the
    // limit, which owes nothing yet.
    assert_eq!(rx.seg(0, 0), "");
    assert_eq!(rx.r.poll_at(), Some(ms(200)));
    assert_eq!(limit(&mut rx, 1000), "");
    // The second: an ACK is owed, capped at 1000 < 2000: deferred until the
    // proxy forwards the segment, then one ACK for both.
    assert_eq!(rx.seg(10, 1), "");
    assert_eq!(rx.r.poll_at(), None);
    assert_eq!(limit(&mut rx, 2000), "ack 2000 wnd 8000");
    // The delayed-ACK timer with nothing forwarded: the ACK waits for the
    // limit (a repeat of ACK 2000 would be a duplicate ACK)...
    assert_eq!(rx.seg(20, 2), "");
    assert_eq!(rx.timer(220), "");
    assert!(rx.r.ack_deferred());
    assert_eq!(limit(&mut rx, 2500), "ack 2500 wnd 7500");
    assert_eq!(limit(&mut rx, 3000), "ack 3000 wnd 7000");
    // ...and with part of it forwarded, the timer sends what it may.
    assert_eq!(rx.seg(300, 3), "");
    assert_eq!(rx.seg(310, 4), "");
    assert_eq!(limit(&mut rx, 4000), "ack 4000 wnd 6000");
    assert_eq!(limit(&mut rx, 5000), "ack 5000 wnd 5000");
    assert_eq!(rx.seg(320, 5), "");
    assert_eq!(rx.r.poll_at(), Some(ms(520)));
    assert_eq!(limit(&mut rx, 5500), "");
    assert_eq!(rx.timer(520), "ack 5500 wnd 4500");
    assert_eq!(limit(&mut rx, 6000), "ack 6000 wnd 4000");
    assert_eq!(rx.r.poll_at(), None);
}

#[test]
fn a_window_update_on_release_carries_the_capped_ack_and_the_same_right_edge() {
    // Buffer of 4 segments, all received, two forwarded.
    let mut rx = Rx::new(4000, 0, false);
    rx.r.set_proxy_mode(WindowPolicy::Free);
    rx.r.set_ack_limit(0);
    for k in 0..4 {
        assert_eq!(rx.seg(k * 10, k), "");
    }
    // Full buffer: window 0 at rcv_nxt 4000, so 2000 relative to ACK 2000.
    assert_eq!(limit(&mut rx, 2000), "ack 2000 wnd 2000");
    // The outgoing leg's receiver acknowledged 2000 bytes: the cache frees
    // them and the window reopens (right edge 6000).
    let mut acks = Vec::new();
    rx.r.release(2000, &mut acks);
    assert_eq!(show_acks(&acks), "ack 2000 wnd 4000 update");
    // A segment up to the right edge fits.
    assert_eq!(rx.seg(50, 5), "ack 2000 wnd 4000");
    assert_eq!(rx.r.stats.beyond_buffer, 0);
    assert_eq!(rx.seg(60, 4), "");
    assert_eq!(limit(&mut rx, 6000), "ack 6000 wnd 0");
}
