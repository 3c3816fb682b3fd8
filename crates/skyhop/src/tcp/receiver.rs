//! The receiving side of a TCP connection, as a sans-IO state machine.
//!
//! It reassembles segments, delivers in-order bytes, and answers each data
//! segment with an ACK (or, with delayed ACKs, every second full segment or on
//! a timer, RFC 5681 section 4.2). SACK blocks follow RFC 2018 section 4.
//!
//! Buffer accounting: the receive buffer (or a proxy's cache) holds bytes
//! delivered in order but not yet released by their consumer (`held`) and
//! out-of-order bytes waiting for a hole. An end-host application consumes
//! at once (`auto_release`); a split proxy releases bytes only when the next
//! leg has them acknowledged. A segment is accepted if it ends within
//! `rcv_nxt + (buffer - held)`; the advertised window never lets a sender
//! go past that edge, so an accepted-window sender never loses data here.
//!
//! ACK limit (a proxy's ack-after-forward rule, Luglio et al., IEEE JSAC 2004): with
//! `set_ack_limit`, the cumulative ACK is `min(rcv_nxt, limit)`, the limit
//! being how far the proxy's outgoing leg has transmitted. An ACK owed for
//! an in-order arrival (or by the delayed-ACK timer) that the limit holds
//! back is *deferred*, never sent as a duplicate ACK: it goes out from
//! `flush_deferred_ack` once the limit lets it advance. Out-of-order and
//! duplicate segments are still answered at once (their ACK value capped).
//! The window field is relative to the ACK number, so it is advertised as
//! the policy's window plus the received bytes the cap leaves unacknowledged:
//! the right edge the sender sees is the one it would see without the rule,
//! and it never moves left while the ACK is held.

use super::autotune::Autotune;
use super::config::TcpConfig;
use super::rangeset::RangeSet;
use super::seg::{AckSeg, DataSeg, SackBlocks};
use crate::engine::time::{Dur, Time};

/// The receiver matching a sender configured by `cfg`.
pub fn new_receiver(cfg: &TcpConfig) -> TcpReceiver {
    let sack = if cfg.variant.uses_sack() {
        cfg.sack_blocks
    } else {
        0
    };
    let mut r = TcpReceiver::new(
        cfg.rcv_buffer,
        cfg.mss,
        sack,
        cfg.delayed_ack,
        cfg.delayed_ack_timeout,
    );
    r.timestamps = cfg.timestamps;
    r.delack_segments = cfg.delayed_ack_segments.max(1);
    if cfg.rcv_autotune {
        r.set_autotune(true);
    }
    r
}

/// How the advertised window is derived from the buffer (Luglio et al., IEEE JSAC 2004).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowPolicy {
    /// End host: the free receive buffer (out-of-order data not subtracted, as in BSD).
    Free,
    /// HAPS study proxy: half of the free cache.
    HalfFree,
    /// On-board proxy: at most one third of the cache, and never more than the
    /// free cache minus one third (a window of slack for data already in flight).
    Third,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    pub segments_received: u64,
    pub bytes_received: u64,
    pub duplicate_segments: u64,
    pub out_of_order_segments: u64,
    pub acks_sent: u64,
    pub window_updates: u64,
    /// Segments that did not fit in the buffer (zero-window probes excluded).
    pub beyond_buffer: u64,
    pub max_occupancy: u64,
    /// Times an owed ACK was held back (wholly or in part) by the ACK limit.
    pub deferred_acks: u64,
    /// SYNs received (each answered with a SYN-ACK; not in `segments_received`).
    pub syns_received: u64,
}

/// Laid out in the order written (`repr(C)`, aligned to a cache line):
/// what every arriving segment reads and writes (the sequence state, the
/// delayed-ACK and window state, the counters) in the first four lines,
/// the out-of-order set after (its emptiness test in the fourth). With
/// many connections interleaved each arrival brings its receiver into the
/// cache line by line. A test below pins the offsets.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct TcpReceiver {
    rcv_nxt: u64,
    buffer: u64,
    held: u64,
    /// The policy window last advertised (before the ACK-limit adjustment).
    last_adv: u64,
    /// The cumulative ACK value last sent.
    last_ack: u64,
    mss: u64,
    sack_blocks: usize,
    delack_timeout: Dur,
    delack_at: Option<Time>,
    /// Cap on the cumulative ACK (the ack-after-forward rule); `None`: no cap.
    ack_limit: Option<u64>,
    /// RFC 7323 TS.Recent: the TSval to echo.
    ts_recent: Option<Time>,
    /// Linux's receive-buffer autotuning (an end host's receiver only).
    autotune: Option<Box<Autotune>>,
    /// SACK blocks in the order to report them (RFC 2018: most recent first).
    recent: Vec<(u64, u64)>,
    unacked_segments: u32,
    /// With delayed ACKs, ACK at least every this many full-sized segments.
    delack_segments: u32,
    auto_release: bool,
    policy: WindowPolicy,
    delayed_ack: bool,
    /// An ACK is owed for bytes up to `rcv_nxt` that the limit held back.
    ack_deferred: bool,
    /// RFC 7323 timestamps: ACKs echo `ts_recent`.
    timestamps: bool,
    pub stats: ReceiverStats,
    ooo: RangeSet,
}

/// What one arriving segment did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arrival {
    /// Bytes `[start, end)` newly delivered in order, if any.
    pub delivered: Option<(u64, u64)>,
    /// The segment did not fit in the buffer and was discarded.
    pub discarded: bool,
}

impl TcpReceiver {
    /// A hint that a segment will reach this receiver soon (the engine
    /// knows a hop ahead): bring its state into the cache. No effect on results.
    #[inline]
    pub fn prefetch_for_segment(&self) {
        crate::engine::prefetch_all(self);
    }

    /// `sack_blocks` = 0 disables SACK.
    pub fn new(
        buffer: u64,
        mss: u32,
        sack_blocks: u32,
        delayed_ack: bool,
        delack_timeout: Dur,
    ) -> TcpReceiver {
        TcpReceiver {
            rcv_nxt: 0,
            ooo: RangeSet::new(),
            recent: Vec::new(),
            buffer,
            held: 0,
            auto_release: true,
            policy: WindowPolicy::Free,
            sack_blocks: sack_blocks as usize,
            mss: mss as u64,
            delayed_ack,
            delack_timeout,
            unacked_segments: 0,
            delack_at: None,
            last_adv: buffer,
            ack_limit: None,
            last_ack: 0,
            ack_deferred: false,
            timestamps: false,
            ts_recent: None,
            delack_segments: 2,
            autotune: None,
            stats: ReceiverStats::default(),
        }
    }

    /// Linux's receive-buffer autotuning (`tcp/autotune.rs`): the window
    /// starts small and grows with what arrives, up to the buffer. Only an
    /// end host's receiver uses it (a proxy's window follows its policy).
    pub fn set_autotune(&mut self, on: bool) {
        self.autotune = on.then(|| Box::new(Autotune::new(self.mss as u32, self.buffer)));
        self.last_adv = self.advertised_window();
    }

    /// Echo timestamps (RFC 7323) in the ACKs.
    pub fn set_timestamps(&mut self, on: bool) {
        self.timestamps = on;
    }

    /// With delayed ACKs, ACK at least every `n` full-sized segments
    /// (RFC 5681 (4.2): 2; OPNET's "Maximum ACK Segments").
    pub fn set_delayed_ack_segments(&mut self, n: u32) {
        self.delack_segments = n.max(1);
    }

    /// Make this receiver the incoming side of a proxy: bytes stay in the
    /// buffer until `release`d, and the window follows `policy`.
    pub fn set_proxy_mode(&mut self, policy: WindowPolicy) {
        self.auto_release = false;
        self.autotune = None;
        self.policy = policy;
        self.last_adv = self.advertised_window();
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    pub fn buffer(&self) -> u64 {
        self.buffer
    }
    /// Bytes occupying the buffer: held in-order bytes plus out-of-order bytes.
    pub fn occupancy(&self) -> u64 {
        self.held + self.ooo.bytes()
    }
    pub fn held(&self) -> u64 {
        self.held
    }
    pub fn poll_at(&self) -> Option<Time> {
        self.delack_at
    }

    /// The cumulative ACK value to send now: `rcv_nxt`, capped by the ACK limit.
    #[inline]
    pub fn ack_value(&self) -> u64 {
        match self.ack_limit {
            Some(l) => self.rcv_nxt.min(l),
            None => self.rcv_nxt,
        }
    }

    /// The cumulative ACK value last sent.
    pub fn last_ack(&self) -> u64 {
        self.last_ack
    }

    /// An ACK held back by the limit is waiting for `flush_deferred_ack`.
    pub fn ack_deferred(&self) -> bool {
        self.ack_deferred
    }

    /// Cap the cumulative ACK at `limit` (ack-after-forward: one past the
    /// highest byte the outgoing leg has transmitted). The limit only moves
    /// forward; a lower value is ignored. Call `flush_deferred_ack` after
    /// raising it (and after every arrival: an in-order segment whose ACK is
    /// capped is deferred, so that it goes out once with the best value after
    /// the proxy has forwarded what it could).
    pub fn set_ack_limit(&mut self, limit: u64) {
        let l = self.ack_limit.map_or(limit, |old| old.max(limit));
        debug_assert!(
            self.rcv_nxt.min(l) >= self.last_ack,
            "an ACK limit below an ACK already sent"
        );
        self.ack_limit = Some(l);
    }

    /// Send the deferred ACK if the limit now lets it acknowledge more than
    /// the last ACK did (never a duplicate ACK).
    pub fn flush_deferred_ack(&mut self, acks: &mut Vec<AckSeg>) {
        if self.ack_deferred && self.ack_value() > self.last_ack {
            acks.push(self.make_ack(false));
            if !self.ack_deferred {
                // Everything received is acknowledged: no delayed ACK pending.
                self.cancel_delack();
            }
        }
    }

    /// The window to advertise now.
    pub fn advertised_window(&self) -> u64 {
        let free_in_order = self.buffer.saturating_sub(self.held);
        match self.policy {
            WindowPolicy::Free => match self.autotune.as_deref() {
                Some(a) => free_in_order.min(a.window()),
                None => free_in_order,
            },
            WindowPolicy::HalfFree => self.buffer.saturating_sub(self.occupancy()) / 2,
            WindowPolicy::Third => {
                let third = self.buffer / 3;
                let free = self.buffer.saturating_sub(self.occupancy());
                third.min(free.saturating_sub(third))
            }
        }
        // Never advertise past the acceptance edge.
        .min(free_in_order)
    }

    fn make_ack(&mut self, window_update: bool) -> AckSeg {
        let wnd = self.advertised_window();
        self.last_adv = wnd;
        let ack = self.ack_value();
        // Owed: received bytes the cap leaves unacknowledged.
        let held_back = self.rcv_nxt - ack;
        self.ack_deferred = held_back > 0;
        self.last_ack = ack;
        self.stats.acks_sent += 1;
        let mut sack = SackBlocks::default();
        if self.sack_blocks > 0 {
            for &(s, e) in self.recent.iter().take(self.sack_blocks) {
                sack.push(s, e);
            }
        }
        AckSeg {
            ack,
            // Relative to `ack`: the right edge is rcv_nxt + wnd either way.
            wnd: wnd + held_back,
            sack,
            window_update,
            tsecr: if self.timestamps {
                self.ts_recent
            } else {
                None
            },
        }
    }

    /// RFC 2018 section 4: the first block reports the range holding the most
    /// recently received segment; the others repeat the most recently
    /// reported ranges still outstanding.
    ///
    /// Every reported range is a range of the reassembly queue, and an
    /// arrival changes the queue in one place only: an out-of-order segment
    /// merges into the range now holding it every range it touches (each
    /// inside that range), an in-order one delivers every range starting at
    /// or below the new `rcv_nxt` and leaves the others as they were. So the
    /// list needs one lookup per arrival, not one per reported range.
    fn note_sack(&mut self, seg_start: u64) {
        if self.sack_blocks == 0 {
            return;
        }
        match self.ooo.range_of(seg_start) {
            Some(cur) => {
                self.recent.retain(|&r| !(r.0 >= cur.0 && r.1 <= cur.1));
                self.recent.insert(0, cur);
            }
            None => {
                let rcv_nxt = self.rcv_nxt;
                self.recent.retain(|&(s, _)| s > rcv_nxt);
            }
        }
        self.recent.truncate(8);
        debug_assert!(self
            .recent
            .iter()
            .all(|&r| self.ooo.range_of(r.0) == Some(r)));
    }

    /// A data segment arrived. ACKs to send go into `acks`.
    pub fn on_segment(&mut self, now: Time, seg: &DataSeg, acks: &mut Vec<AckSeg>) -> Arrival {
        if seg.is_syn() {
            // The handshake: answer every SYN (a retransmitted one too) with a
            // SYN-ACK advertising the window.
            self.stats.syns_received += 1;
            let wnd = self.advertised_window();
            self.last_adv = wnd;
            self.stats.acks_sent += 1;
            let tsecr = self.timestamps.then_some(seg.ts);
            acks.push(AckSeg::syn_ack(wnd, tsecr));
            return Arrival::default();
        }
        self.stats.segments_received += 1;
        // RFC 7323 section 4.3 (2): TS.Recent takes SEG.TSval when
        // SEG.TSval >= TS.Recent and SEG.SEQ <= Last.ACK.sent: the segment
        // at the left edge of the window. With delayed ACKs the ACK echoes
        // the earliest of the segments it acknowledges; an out-of-order
        // segment does not move it; a retransmission that fills the hole
        // at the left edge does.
        if self.timestamps && seg.seq <= self.last_ack && self.ts_recent.is_none_or(|t| seg.ts >= t)
        {
            self.ts_recent = Some(seg.ts);
        }
        let (s, e) = (seg.seq, seg.end());
        let mut arrival = Arrival::default();
        let edge = self.rcv_nxt + self.buffer.saturating_sub(self.held);
        if e <= self.rcv_nxt {
            // Entirely old: a duplicate. ACK at once (RFC 5681 section 4.2).
            self.stats.duplicate_segments += 1;
            acks.push(self.make_ack(false));
            self.cancel_delack();
            return arrival;
        }
        if e > edge {
            // Beyond the buffer: discard and re-advertise the window.
            if !seg.probe {
                self.stats.beyond_buffer += 1;
            }
            arrival.discarded = true;
            acks.push(self.make_ack(false));
            self.cancel_delack();
            return arrival;
        }
        self.stats.bytes_received += seg.len as u64;
        let had_gap = !self.ooo.is_empty();
        if s > self.rcv_nxt {
            // Out of order: hold it, ACK at once (duplicate ACK with SACK).
            self.stats.out_of_order_segments += 1;
            self.ooo.insert(s, e);
            if self.sack_blocks > 0 {
                if let Some(a) = self.autotune.as_deref_mut() {
                    a.on_out_of_order(seg.len as u64);
                }
            }
            self.note_sack(s);
            self.track_occupancy();
            acks.push(self.make_ack(false));
            self.cancel_delack();
            return arrival;
        }
        // In order (possibly overlapping what we have).
        let start = self.rcv_nxt;
        let mut end = e;
        self.ooo.remove_below(end);
        while let Some(b) = self.ooo.pop_covering(end) {
            end = end.max(b);
        }
        self.rcv_nxt = end;
        if !self.auto_release {
            self.held += end - start;
        }
        if let Some(a) = self.autotune.as_deref_mut() {
            a.on_data(now, seg.len as u64, end);
        }
        arrival.delivered = Some((start, end));
        self.note_sack(s);
        self.track_occupancy();
        if !self.delayed_ack || had_gap || !self.ooo.is_empty() {
            // Immediate ACK; also when filling a hole (RFC 5681 section 4.2).
            self.ack_or_defer(acks);
        } else {
            // RFC 5681 (4.2): ACK at least every second full-sized segment
            // (`delack_segments`), and within the delayed-ACK timeout.
            self.unacked_segments += 1;
            if self.unacked_segments >= self.delack_segments {
                self.ack_or_defer(acks);
            } else if self.delack_at.is_none() {
                self.delack_at = Some(now + self.delack_timeout);
            }
        }
        arrival
    }

    /// An ACK is owed for in-order data: send it, or, when the limit caps it,
    /// defer it to `flush_deferred_ack` (the caller forwards first, so the
    /// ACK goes out once, with the best value, and a capped ACK that would
    /// not advance is never sent as a duplicate).
    fn ack_or_defer(&mut self, acks: &mut Vec<AckSeg>) {
        self.cancel_delack();
        if self.ack_value() < self.rcv_nxt {
            self.ack_deferred = true;
            self.stats.deferred_acks += 1;
        } else {
            acks.push(self.make_ack(false));
        }
    }

    fn cancel_delack(&mut self) {
        self.unacked_segments = 0;
        self.delack_at = None;
    }

    fn track_occupancy(&mut self) {
        let occ = self.occupancy();
        if occ > self.stats.max_occupancy {
            self.stats.max_occupancy = occ;
        }
    }

    /// The delayed-ACK timer.
    pub fn on_timer(&mut self, now: Time, acks: &mut Vec<AckSeg>) {
        if let Some(t) = self.delack_at {
            if now >= t {
                // Nothing is forwarded at a timer: send what the limit allows now.
                self.ack_or_defer(acks);
                self.flush_deferred_ack(acks);
            }
        }
    }

    /// The consumer (a proxy's next leg) is done with `bytes` held bytes. A
    /// window update goes out when the window grew by two segments or half the
    /// buffer since last advertised, or reopened from below one segment
    /// (BSD tcp_output's rule; the on-board proxy of Luglio et al., IEEE JSAC
    /// 2004, sends a window update at once when its full cache drains).
    pub fn release(&mut self, bytes: u64, acks: &mut Vec<AckSeg>) {
        debug_assert!(bytes <= self.held, "released more than held");
        self.held -= bytes.min(self.held);
        let adv = self.advertised_window();
        let grew = adv.saturating_sub(self.last_adv);
        if grew > 0
            && (grew >= 2 * self.mss
                || grew >= self.buffer / 2
                || (self.last_adv < self.mss && adv >= self.mss))
        {
            self.stats.window_updates += 1;
            acks.push(self.make_ack(true));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// The layout (see the struct): what every arrival reads and writes in
    /// the first four lines, the out-of-order set's emptiness test
    /// (`RangeSet`'s first fields) at the end of the fourth. A change here
    /// is a layout change to measure, not a number to update.
    #[test]
    fn the_per_arrival_fields_lie_in_the_first_four_lines() {
        assert_eq!(align_of::<TcpReceiver>(), 64);
        assert_eq!(offset_of!(TcpReceiver, stats), 160);
        assert_eq!(
            offset_of!(TcpReceiver, ooo),
            160 + size_of::<ReceiverStats>()
        );
        assert!(offset_of!(TcpReceiver, ooo) + 16 <= 4 * 64);
        assert_eq!(size_of::<TcpReceiver>(), 9 * 64);
    }
}
