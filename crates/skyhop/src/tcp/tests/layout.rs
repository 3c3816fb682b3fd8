//! The sender's layout. With many connections interleaved (BBR's pacing
//! sends one segment per timer event, flow after flow) each event brings
//! its connection's state into the first-level cache line by line, so the
//! fields every ACK and every transmission read lie in one run of lines:
//! the handshake's `established`, the timeout episode's flags, the
//! recovery, the persist timer, the counters, `SendCore`'s sequence space,
//! window, timers and pointers, and the configuration's per-event fields.
//! These tests pin that run, so that a field added later does not
//! silently spill it onto another line: a change here is a layout change
//! to measure (cache misses per event on the BBR + RACK dumbbell), not a
//! number to update. The receiver, RACK, the rate sampler, BBR and the
//! range set pin theirs in their own files.

use crate::tcp::{TcpConfig, TcpSender};
use std::mem::{align_of, offset_of, size_of};

const LINE: usize = 64;

#[test]
fn the_sender_starts_on_a_line() {
    assert_eq!(align_of::<TcpSender>(), LINE);
    assert_eq!(size_of::<TcpSender>(), 24 * LINE);
}

#[test]
fn the_senders_per_event_fields_lie_in_its_first_nine_lines() {
    // Cold head: the handshake's and the episode's rarely read fields
    // (32 + 32 bytes) fill most of line 0; the run starts there.
    assert_eq!(offset_of!(TcpSender, hs), 0);
    assert_eq!(offset_of!(TcpSender, undo), 40);
    assert_eq!(offset_of!(TcpSender, rec), 128);
    assert_eq!(offset_of!(TcpSender, persist_at), 200);
    assert_eq!(offset_of!(TcpSender, stats), 224);
    assert_eq!(offset_of!(TcpSender, core), 280);
    assert_eq!(offset_of!(TcpSender, core.snd_una), 280);
    assert_eq!(offset_of!(TcpSender, core.maxburst), 484);
    assert_eq!(offset_of!(TcpSender, core.cfg), 488);
    // The configuration's per-event fields end the run, in line 8.
    let cfg_hot_end = offset_of!(TcpConfig, exit_fast_retrans) + 1;
    assert!(cfg_hot_end <= 56, "{cfg_hot_end}");
    assert!(offset_of!(TcpSender, core.cfg) + cfg_hot_end <= 9 * LINE);
    // The per-ACK state after it: RTT estimator, controller, scoreboard.
    assert!(offset_of!(TcpSender, core.rtt) >= 9 * LINE);
    // The scoreboard 48 bytes into a line, as `RangeSet`'s layout expects:
    // its last line holds only the treap's free list and priority stream.
    assert_eq!(offset_of!(TcpSender, core.sb), 18 * LINE + 48);
}

#[test]
fn the_configurations_per_event_fields_come_first() {
    let hot = [
        offset_of!(TcpConfig, mss),
        offset_of!(TcpConfig, header_bytes),
        offset_of!(TcpConfig, dupthresh),
        offset_of!(TcpConfig, send_buffer),
        offset_of!(TcpConfig, max_unacked),
        offset_of!(TcpConfig, variant),
        offset_of!(TcpConfig, timestamps),
        offset_of!(TcpConfig, pacing),
        offset_of!(TcpConfig, cwnd_validation),
        offset_of!(TcpConfig, limited_transmit),
        offset_of!(TcpConfig, idle_restart),
        offset_of!(TcpConfig, frto),
        offset_of!(TcpConfig, exit_fast_retrans),
    ];
    assert!(hot.iter().all(|&o| o < 56), "{hot:?}");
    // The set-up parameters after.
    assert_eq!(offset_of!(TcpConfig, initial_ssthresh), 56);
}
