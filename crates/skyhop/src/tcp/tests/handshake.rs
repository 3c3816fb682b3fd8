//! The optional three-way handshake (`TcpConfig::handshake`): SYN first, no
//! data before the SYN-ACK, SYN retransmission with RFC 6298 back-off and
//! (5.7), the exchange's RTT sample (Karn), and the receiver's SYN-ACK.
//!
//! In traces `SYN` is the SYN, `RSYN` its retransmission.

use super::harness::*;
use crate::engine::time::Dur;
use crate::tcp::{AckSeg, DataSeg, TcpConfig};

fn hs_cfg(iw: u32) -> TcpConfig {
    TcpConfig {
        handshake: true,
        initial_window: iw,
        ..cfg("newreno")
    }
}

/// `show`, with the SYN printed as `SYN`.
fn trace(s: String) -> String {
    s.replace("R[0+0]", "RSYN").replace("[0+0]", "SYN")
}

fn app(h: &mut H, bytes: u64) -> String {
    trace(h.app(bytes))
}
fn timer(h: &mut H) -> String {
    trace(h.timer())
}
fn syn_ack(h: &mut H, wnd: u64) -> String {
    trace(h.ack_seg(AckSeg::syn_ack(wnd, None)))
}

#[test]
fn default_is_off_and_data_starts_at_once() {
    assert!(!TcpConfig::default().handshake);
    let mut h = H::new(cfg("newreno"));
    assert!(h.s.established());
    assert_eq!(app(&mut h, UNLIMITED), "0");
}

#[test]
fn the_syn_goes_first_and_no_data_leaves_before_the_syn_ack() {
    let mut h = H::new(hs_cfg(3));
    assert!(!h.s.established());
    // t=0: the application has data; only the 40-byte SYN goes out, timed by
    // the initial RTO (1 s).
    assert_eq!(app(&mut h, UNLIMITED), "SYN");
    assert_eq!(h.s.flight(), 0);
    assert_eq!(h.poll_ms(), Some(1000));
    // More data and a second connect send nothing.
    assert_eq!(h.at(100).app(5000), "");
    let mut out = Vec::new();
    h.s.connect(h.now, &mut out);
    assert!(out.is_empty());
    assert_eq!(h.s.snd_max(), 0);
    assert_eq!(h.s.stats.segments_sent, 1);
    assert_eq!(h.s.stats.bytes_sent, 0);
}

#[test]
fn the_syn_ack_releases_the_initial_window_and_gives_the_first_rtt_sample() {
    let mut h = H::new(hs_cfg(3));
    assert_eq!(app(&mut h, UNLIMITED), "SYN");
    // t=600: SYN-ACK. RFC 6298 (2.2): SRTT = 600 ms, RTTVAR = 300 ms,
    // RTO = 600 + 4*300 = 1800 ms. IW = 3 segments go out at once; the
    // timer restarts on the first (RFC 6298 (5.1)): 600 + 1800 = 2400.
    assert_eq!(syn_ack(h.at(600), BIG_WND), "0 1 2");
    assert!(h.s.established());
    assert_eq!(h.s.srtt(), Some(Dur::from_millis(600)));
    assert_eq!(h.s.rto(), Dur::from_millis(1800));
    assert_eq!(h.poll_ms(), Some(2400));
    assert_eq!(h.s.stats.timeouts, 0);
    // The connection then runs as usual: an ACK of 0 at 1200 ms opens the
    // window by one segment (slow start): 3 4.
    assert_eq!(h.at(1200).ack(1), "3 4");
}

#[test]
fn the_syn_ack_window_limits_the_first_flight() {
    let mut h = H::new(hs_cfg(3));
    app(&mut h, UNLIMITED);
    // The SYN-ACK advertises 2000 bytes: two segments, not three.
    assert_eq!(syn_ack(h.at(500), 2 * MSS), "0 1");
    assert_eq!(h.s.rwnd(), 2 * MSS);
}

#[test]
fn a_lost_syn_is_retransmitted_with_back_off_and_then_rto_is_three_seconds() {
    let mut h = H::new(hs_cfg(3));
    assert_eq!(app(&mut h, UNLIMITED), "SYN");
    // RFC 6298 (5.5)/(5.6): at the initial RTO (1 s) the SYN goes again and
    // the timer doubles: 1000 + 2000 = 3000, then 3000 + 4000 = 7000.
    assert_eq!(h.at(999).app(0), "");
    assert_eq!(timer(h.at(1000)), "RSYN");
    assert_eq!(h.poll_ms(), Some(3000));
    assert_eq!(timer(h.at(3000)), "RSYN");
    assert_eq!(h.poll_ms(), Some(7000));
    assert_eq!(h.s.stats.timeouts, 2);
    assert_eq!(h.s.stats.retransmissions, 2);
    // t=7500: the SYN-ACK. Karn: no RTT sample (the SYN was retransmitted).
    // RFC 6298 (5.7): the initial RTO (1 s) was below 3 s, so the RTO is
    // 3 s, back-off cleared. RFC 5681 (3.1): IW falls to one segment.
    assert_eq!(syn_ack(h.at(7500), BIG_WND), "0");
    assert_eq!(h.s.srtt(), None);
    assert_eq!(h.s.rto(), Dur::from_secs(3));
    assert_eq!(h.poll_ms(), Some(10_500));
    assert_eq!(h.cwnd(), MSS);
    // The first data ACK gives the first sample: 8000 - 7500 = 500 ms.
    assert_eq!(h.at(8000).ack(1), "1 2");
    assert_eq!(h.s.srtt(), Some(Dur::from_millis(500)));
}

#[test]
fn a_duplicate_syn_ack_is_not_a_duplicate_ack() {
    let mut h = H::new(hs_cfg(4));
    app(&mut h, UNLIMITED);
    assert_eq!(timer(h.at(1000)), "RSYN");
    // The first SYN-ACK (answer to the first SYN) arrives at 1200 ...
    assert_eq!(syn_ack(h.at(1200), BIG_WND), "0");
    // ... and three more copies (e.g. answers to retransmitted SYNs) behave
    // as window updates: no duplicate ACKs, no fast retransmit.
    for t in [1300, 1301, 1302] {
        assert_eq!(syn_ack(h.at(t), BIG_WND), "");
    }
    assert_eq!(h.s.dupacks(), 0);
    assert!(!h.s.in_recovery());
    assert_eq!(h.s.stats.fast_recoveries, 0);
}

#[test]
fn the_receiver_answers_every_syn_with_a_syn_ack() {
    let mut rx = Rx::new(64_000, 3, false);
    let syn = DataSeg::syn(false, crate::engine::time::Time::ZERO);
    assert!(syn.is_syn());
    assert_eq!(rx.data(0, syn), "ack 0 wnd 64000 update");
    // A retransmitted SYN is answered again.
    assert_eq!(
        rx.data(1000, DataSeg::syn(true, crate::engine::time::Time::ZERO)),
        "ack 0 wnd 64000 update"
    );
    assert_eq!(rx.r.stats.syns_received, 2);
    assert_eq!(rx.r.stats.segments_received, 0);
    assert_eq!(rx.r.rcv_nxt(), 0);
    // Data then starts at byte 0.
    assert_eq!(rx.seg(1500, 0), "ack 1000 wnd 64000");
}

#[test]
fn sender_and_receiver_complete_the_exchange() {
    let mut h = H::new(hs_cfg(2));
    let mut rx = Rx::new(BIG_WND, 0, false);
    let mut out = Vec::new();
    h.s.add_app_data(ms(0), 3 * MSS, &mut out);
    assert_eq!(
        out,
        vec![DataSeg::syn(false, crate::engine::time::Time::ZERO)]
    );
    let acks = rx.data_acks(250, &out[0]);
    assert_eq!(acks.len(), 1);
    out.clear();
    h.s.on_ack(ms(500), &acks[0], &mut out);
    assert_eq!(show(&out), "0 1");
    assert_eq!(h.s.srtt(), Some(Dur::from_millis(500)));
}
