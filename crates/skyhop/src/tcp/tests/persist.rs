//! Zero windows and the persist timer (RFC 9293 section 3.8.6.1, RFC 1122
//! 4.2.2.17), with a real receiver whose buffer is held by a proxy-style
//! consumer that does not release it.
//!
//! Path: 300 ms each way, no bottleneck (segments sent together arrive together).

use super::harness::*;
use crate::tcp::{AckSeg, DataSeg, WindowPolicy};

/// A sender (IW 10) and a receiver with a 4000-byte buffer that nobody
/// drains, after the first window: the buffer is full, the window is zero.
fn full_buffer() -> (H, Rx) {
    let mut c = cfg("newreno");
    c.initial_window = 10;
    c.rcv_buffer = 4000; // the sender starts from this window
    let mut h = H::new(c);
    let mut rx = Rx::new(4000, 0, false);
    rx.r.set_proxy_mode(WindowPolicy::Free);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1 2 3");
    let acks: Vec<String> = (0..4).map(|k| rx.seg(300, k)).collect();
    assert_eq!(
        acks,
        [
            "ack 1000 wnd 3000",
            "ack 2000 wnd 2000",
            "ack 3000 wnd 1000",
            "ack 4000 wnd 0"
        ]
    );
    // The sender: RTT sample 600 ms, RTO 1800 ms; nothing more fits.
    assert_eq!(h.at(600).ack_wnd(1000, 3000), "");
    assert_eq!(h.at(600).ack_wnd(2000, 2000), "");
    assert_eq!(h.at(600).ack_wnd(3000, 1000), "");
    assert_eq!(h.s.rto().0, 1_800_000_000);
    // Window zero, all data acknowledged: the retransmission timer stops
    // (RFC 6298 (5.2)) and the persist timer starts, one RTO out.
    assert_eq!(h.at(600).ack_wnd(4000, 0), "");
    assert_eq!(h.s.rto_deadline(), None);
    assert_eq!(h.s.persist_deadline(), Some(ms(2400)));
    (h, rx)
}

fn probe_reply(rx: &mut Rx, t_ms: u64) -> AckSeg {
    let probe = DataSeg {
        seq: 4000,
        len: 1,
        retx: false,
        probe: true,
        ts: crate::engine::time::Time::ZERO,
    };
    let acks = rx.data_acks(t_ms, &probe);
    assert_eq!(acks.len(), 1);
    acks[0]
}

#[test]
fn zero_window_probes_back_off_and_a_window_update_resumes_sending_from_the_unaccepted_probe_byte()
{
    let (mut h, mut rx) = full_buffer();
    // Probe 1: one byte, the next one to send.
    assert_eq!(h.at(2400).timer(), "P[4000+1]");
    assert_eq!(h.poll_ms(), Some(2400 + 3600)); // interval doubled
                                                // The buffer is full: the receiver drops the byte and repeats window 0.
    let reply = probe_reply(&mut rx, 2700);
    assert_eq!(show_ack(&reply), "ack 4000 wnd 0");
    assert_eq!(rx.r.stats.beyond_buffer, 0, "a probe is no overflow");
    assert_eq!(h.at(3000).ack_seg(reply), "");
    // Probes 2 and 3, 3.6 s and 7.2 s later; each reply is ACK 4000 again.
    assert_eq!(h.at(6000).timer(), "P[4000+1]");
    let reply = probe_reply(&mut rx, 6300);
    assert_eq!(h.at(6600).ack_seg(reply), "");
    assert_eq!(h.poll_ms(), Some(6000 + 7200));
    assert_eq!(h.at(13_200).timer(), "P[4000+1]");
    let reply = probe_reply(&mut rx, 13_500);
    assert_eq!(h.at(13_800).ack_seg(reply), "");
    // Three identical ACKs with data (the probe byte) outstanding: they are
    // replies to probes, not duplicate ACKs.
    assert_eq!(h.s.stats.fast_recoveries, 0);
    assert_eq!(h.s.stats.retransmissions, 0);
    assert_eq!(h.s.stats.window_probes, 3);
    assert_eq!(h.poll_ms(), Some(13_200 + 14_400));
    // The consumer frees the buffer: the receiver sends a window update.
    let mut acks = Vec::new();
    rx.r.release(4000, &mut acks);
    assert_eq!(show_acks(&acks), "ack 4000 wnd 4000 update");
    // The sender leaves persist mode and sends a window's worth from byte
    // 4000: the probe byte was never accepted, so it goes again as the
    // first byte of segment 4 (which therefore counts as a resend).
    assert_eq!(h.at(14_300).ack_seg(acks[0]), "R4 5 6 7");
    assert_eq!(h.s.persist_deadline(), None);
    assert_eq!(h.s.rto_deadline(), Some(ms(14_300 + 1800)));
    // The receiver takes all four in order.
    for k in 4..8 {
        rx.seg(14_600, k);
    }
    assert_eq!(rx.r.rcv_nxt(), 8000);
}

#[test]
fn the_persist_interval_doubles_up_to_the_maximum_rto() {
    let (mut h, _rx) = full_buffer();
    let mut t = 2400;
    let mut intervals = Vec::new();
    for _ in 0..8 {
        assert_eq!(h.at(t).timer(), "P[4000+1]");
        let next = h.poll_ms().unwrap();
        intervals.push(next - t);
        t = next;
    }
    // RTO 1.8 s doubled per probe, capped at rto_max = 60 s.
    assert_eq!(
        intervals,
        [3600, 7200, 14_400, 28_800, 57_600, 60_000, 60_000, 60_000]
    );
}

#[test]
fn a_window_smaller_than_one_segment_is_probed_when_its_update_never_comes() {
    // The receiver advertises 500 bytes, less than a segment, with nothing
    // outstanding. If the update that reopens the window is lost, only the
    // persist timer can restart the connection.
    let mut c = cfg("newreno");
    c.initial_window = 10;
    c.rcv_buffer = 2500;
    let mut h = H::new(c);
    assert_eq!(h.at(0).app(UNLIMITED), "0 1");
    assert_eq!(h.at(600).ack_wnd(2000, 500), "");
    assert_eq!(h.s.persist_deadline(), Some(ms(600 + 1800)));
    // The timer fires: a segment does not fit, so probe the window.
    assert_eq!(h.at(2400).timer(), "P[2000+1]");
    // The byte fits (window 500): ACK 2001 with whatever window is current.
    assert_eq!(
        h.at(3000).ack_wnd(2001, 3000),
        "[2001+1000] [3001+1000] [4001+1000]"
    );
}
