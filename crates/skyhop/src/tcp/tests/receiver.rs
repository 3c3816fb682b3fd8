//! The receiver: reassembly, immediate duplicate ACKs with SACK blocks
//! (RFC 2018), delayed ACKs (RFC 5681 section 4.2), window updates.

use super::harness::*;

#[test]
fn out_of_order_segments_get_immediate_duplicate_acks_with_the_most_recent_sack_block_first() {
    let mut rx = Rx::new(1 << 20, 3, false);
    let w = 1 << 20;
    assert_eq!(rx.seg(0, 0), format!("ack 1000 wnd {w}"));
    // 2, 4, 6 arrive over holes at 1, 3, 5. RFC 2018 section 4: the first
    // block holds the segment that triggered the ACK, then the most recently
    // reported blocks.
    assert_eq!(rx.seg(10, 2), format!("ack 1000 wnd {w} sack [2000,3000)"));
    assert_eq!(
        rx.seg(20, 4),
        format!("ack 1000 wnd {w} sack [4000,5000) [2000,3000)")
    );
    assert_eq!(
        rx.seg(30, 6),
        format!("ack 1000 wnd {w} sack [6000,7000) [4000,5000) [2000,3000)")
    );
    // 8: four blocks exist, three fit; the oldest report ([2000,3000)) drops out.
    assert_eq!(
        rx.seg(40, 8),
        format!("ack 1000 wnd {w} sack [8000,9000) [6000,7000) [4000,5000)")
    );
    // 3 joins 2 and 4 into [2000,5000): reported first.
    assert_eq!(
        rx.seg(50, 3),
        format!("ack 1000 wnd {w} sack [2000,5000) [8000,9000) [6000,7000)")
    );
    assert_eq!(rx.r.stats.out_of_order_segments, 5);
    // 1 fills the first hole: the cumulative ACK jumps over 2..4 to 5000;
    // the blocks still above it remain, most recent first.
    assert_eq!(
        rx.seg(60, 1),
        format!("ack 5000 wnd {w} sack [8000,9000) [6000,7000)")
    );
    assert_eq!(rx.r.rcv_nxt(), 5000);
    // 5 fills the next: ACK 7000.
    assert_eq!(rx.seg(70, 5), format!("ack 7000 wnd {w} sack [8000,9000)"));
    // An old duplicate gets an immediate ACK too.
    assert_eq!(rx.seg(80, 2), format!("ack 7000 wnd {w} sack [8000,9000)"));
    assert_eq!(rx.r.stats.duplicate_segments, 1);
    assert_eq!(rx.seg(90, 7), format!("ack 9000 wnd {w}"));
}

#[test]
fn without_sack_an_out_of_order_segment_gets_a_plain_duplicate_ack() {
    let mut rx = Rx::new(1 << 20, 0, false);
    let w = 1 << 20;
    rx.seg(0, 0);
    assert_eq!(rx.seg(10, 2), format!("ack 1000 wnd {w}"));
    assert_eq!(rx.seg(20, 1), format!("ack 3000 wnd {w}"));
}

#[test]
fn delayed_acks_acknowledge_every_second_segment_or_on_the_timeout() {
    let mut rx = Rx::new(1 << 20, 0, true);
    let w = 1 << 20;
    // RFC 5681 (4.2): at least every second full-sized segment...
    assert_eq!(rx.seg(0, 0), "");
    assert_eq!(rx.r.poll_at(), Some(ms(200)));
    assert_eq!(rx.seg(10, 1), format!("ack 2000 wnd {w}"));
    assert_eq!(rx.r.poll_at(), None);
    // ...and within the delayed-ACK timeout (200 ms here).
    assert_eq!(rx.seg(20, 2), "");
    assert_eq!(rx.timer(219), "");
    assert_eq!(rx.timer(220), format!("ack 3000 wnd {w}"));
    assert_eq!(rx.r.poll_at(), None);
    // Out-of-order data and the segment that fills the hole are ACKed at
    // once (RFC 5681 (4.2): "immediately ... when a segment fills in all or
    // part of a gap").
    assert_eq!(rx.seg(300, 3), "");
    assert_eq!(rx.seg(310, 5), format!("ack 4000 wnd {w}"));
    assert_eq!(rx.seg(320, 4), format!("ack 6000 wnd {w}"));
    assert_eq!(rx.r.poll_at(), None);
}

#[test]
fn a_proxy_receiver_closes_its_window_as_its_buffer_fills_and_sends_an_update_when_it_drains() {
    let mut rx = Rx::new(4000, 0, false);
    rx.r.set_proxy_mode(crate::tcp::WindowPolicy::Free);
    assert_eq!(rx.seg(0, 0), "ack 1000 wnd 3000");
    assert_eq!(rx.seg(10, 1), "ack 2000 wnd 2000");
    assert_eq!(rx.seg(20, 2), "ack 3000 wnd 1000");
    assert_eq!(rx.seg(30, 3), "ack 4000 wnd 0");
    // A segment past the buffer is discarded and the window re-advertised.
    assert_eq!(rx.seg(40, 4), "ack 4000 wnd 0");
    assert_eq!(rx.r.stats.beyond_buffer, 1);
    // Releasing one segment: window 0 -> 1000, reopened from below one
    // segment: an update at once.
    let mut acks = Vec::new();
    rx.r.release(1000, &mut acks);
    assert_eq!(show_acks(&acks), "ack 4000 wnd 1000 update");
    // Releasing 1000 more: grew by one segment only (and less than half the
    // buffer): no update (BSD's rule).
    acks.clear();
    rx.r.release(1000, &mut acks);
    assert_eq!(show_acks(&acks), "");
    // 2000 more: grew by 3000 since advertised: update.
    rx.r.release(2000, &mut acks);
    assert_eq!(show_acks(&acks), "ack 4000 wnd 4000 update");
}

/// A window with `n` holes (every other segment lost, then the losses
/// repaired in order): every hole-filling retransmission delivers exactly
/// its own segment plus the one held above it. Returns the treap nodes the
/// receiver visited per segment (`rangeset/counts.rs`) while the holes
/// were made and while they were filled.
fn reassemble_with_holes(n: u64) -> (f64, f64) {
    use crate::engine::time::{Dur, Time};
    use crate::tcp::rangeset::counts::nodes_visited;
    use crate::tcp::receiver::TcpReceiver;
    use crate::tcp::seg::DataSeg;
    let mss = 1000u32;
    let mut r = TcpReceiver::new(4 * n * mss as u64, mss, 3, false, Dur::ZERO);
    let mut acks = Vec::new();
    let seg = |i: u64| DataSeg {
        seq: i * mss as u64,
        len: mss,
        retx: false,
        probe: false,
        ts: crate::engine::time::Time::ZERO,
    };
    // Segments 1, 3, 5, ... arrive; 0, 2, 4, ... are lost.
    let v0 = nodes_visited();
    for i in (1..2 * n).step_by(2) {
        let a = r.on_segment(Time::ZERO, &seg(i), &mut acks);
        assert_eq!(a.delivered, None);
    }
    let v1 = nodes_visited();
    assert_eq!(acks.len() as u64, n);
    assert_eq!(r.occupancy(), n * mss as u64);
    let last = acks.last().unwrap();
    assert_eq!(last.ack, 0);
    assert_eq!(last.sack.as_slice()[0], ((2 * n - 1) * 1000, 2 * n * 1000));
    // The retransmissions fill the holes in order.
    for i in (0..2 * n).step_by(2) {
        let a = r.on_segment(Time::ZERO, &seg(i), &mut acks);
        let m = mss as u64;
        assert_eq!(a.delivered, Some((i * m, (i + 2) * m)));
    }
    let v2 = nodes_visited();
    assert_eq!(r.rcv_nxt(), 2 * n * mss as u64);
    assert_eq!(r.occupancy(), 0);
    assert!(acks.last().unwrap().sack.as_slice().is_empty());
    ((v1 - v0) as f64 / n as f64, (v2 - v1) as f64 / n as f64)
}

/// The receiver's per-segment bookkeeping is logarithmic in the holes,
/// measured by the reassembly queue's treap node visits per segment: from
/// a thousand holes to a hundred thousand, each tenfold adds a constant
/// (the treap is 2·ln(10) = 4.6 levels deeper on average, and a segment
/// costs a few descents: some tens of visits), where a scan of the queue
/// would add thousands.
#[test]
fn tens_of_thousands_of_holes_are_reassembled_in_logarithmic_time() {
    let sizes = [1_000u64, 10_000, 100_000];
    let at = sizes.map(reassemble_with_holes);
    eprintln!("treap node visits per segment at {sizes:?} holes: {at:?}");
    for k in 1..sizes.len() {
        let (lo, hi) = (at[k - 1], at[k]);
        assert!(
            hi.0 - lo.0 <= 50.0 && hi.1 - lo.1 <= 50.0,
            "per segment, holes made / filled: {lo:?} at {} holes, {hi:?} at {}",
            sizes[k - 1],
            sizes[k]
        );
    }
    assert!(at[2].0 < 250.0 && at[2].1 < 250.0, "{:?}", at[2]);
}

#[test]
fn autotuning_opens_the_window_for_out_of_order_segments_only_with_sack() {
    use crate::engine::time::{Dur, Time};
    use crate::tcp::receiver::TcpReceiver;
    use crate::tcp::seg::DataSeg;
    let mss = 1000u32;
    let seg = |i: u64| DataSeg {
        seq: i * mss as u64,
        len: mss,
        retx: false,
        probe: false,
        ts: Time::ZERO,
    };
    // The window starts at ten segments (clamp 65 536 B); segment 0 is lost
    // and 1..=5 arrive above the hole. Linux's tcp_data_queue_ofo grows
    // rcv_ssthresh by two segments for each of them on a SACK connection,
    // so a window with holes keeps opening: 10 000 + 5 × 2000 = 20 000.
    // Without SACK it does not (the duplicate ACKs must trigger the fast
    // retransmit), and the window stays at 10 000.
    for (sack, wnd) in [(3, 20_000), (0, 10_000)] {
        let mut r = TcpReceiver::new(4_000_000, mss, sack, false, Dur::ZERO);
        r.set_autotune(true);
        let mut acks = Vec::new();
        for i in 1..=5 {
            r.on_segment(Time::ZERO, &seg(i), &mut acks);
        }
        assert_eq!(acks.last().unwrap().wnd, wnd, "sack blocks {sack}");
        // The hole filled: in order growth as before (+2000), whole
        // window available again.
        r.on_segment(Time::ZERO, &seg(0), &mut acks);
        assert_eq!(acks.last().unwrap().ack, 6000);
        assert_eq!(acks.last().unwrap().wnd, wnd + 2000, "sack blocks {sack}");
    }
}
