//! RACK-TLP loss detection, RFC 8985 (Y. Cheng, N. Cardwell, N. Dukkipati,
//! P. Jha, 2021). Section numbers below are the RFC's.
//!
//! RACK ("recent ACK") marks a segment lost when a segment sent *after* it
//! has been delivered (cumulatively or selectively acknowledged) and one
//! RTT plus a reordering window has passed since it was sent. Time, not
//! sequence, orders the judgement, so a retransmission that is lost again
//! is detected the same way as an original (when something sent after the
//! retransmission is delivered), which RFC 6675's duplicate-ACK counting
//! cannot do. TLP ("tail loss probe") sends one segment two SRTTs after the
//! last transmission when nothing is SACKed, so that a loss at the tail of
//! a flight produces the SACK that RACK needs instead of waiting for the RTO.
//!
//! The sender keeps one of these only when `TcpConfig::rack` is on and its
//! recovery is RFC 6675's (`sack` or `prr`); the recovery then takes its
//! "lost" from here instead of IsLost(), and other senders pay nothing.
//!
//! Per-segment state (section 5.2) is one record per transmitted segment in
//! sequence order. The records in flight (sent, neither acknowledged nor
//! SACKed, and not waiting for a retransmission after being marked lost)
//! are also chained in transmission-time order, as RFC 8985 section 6.2
//! suggests and Linux's `tsorted_sent_queue` does, so loss detection walks
//! only the records sent before the most recently delivered one.
//!
//! Not modelled: DSACK (the receiver sends none), so the reordering window
//! is never widened by DSACK rounds (`RACK.reo_wnd_mult` stays 1, section
//! 6.2 step 4) and a loss probe's repair is always taken as a real loss
//! (section 7.4). TCP timestamps are off, so a retransmitted segment's
//! delivery is ambiguous and counts for RACK only if its RTT is at least
//! RACK.min_RTT (section 6.2 step 2).

use super::rangeset::RangeSet;
use super::seqsearch::{self, SeqRecord};
use crate::engine::time::{Dur, Time};
use std::collections::{BTreeSet, VecDeque};

const NIL: u64 = u64::MAX;

/// Section 5.2: per-segment variables, plus the sender's bookkeeping, in
/// 32 bytes (a flight of thousands of segments per connection is walked on
/// every ACK: the records are kept small so that they stay in the cache).
#[derive(Clone, Copy, Debug)]
struct Seg {
    seq: u64,
    /// Segment.xmit_ts: the latest (re)transmission.
    xmit_ts: Time,
    /// Segment.end_seq − seq.
    len: u32,
    /// Neighbours in the transmission-time chain: the low 32 bits of their
    /// absolute indices (`Rack::abs` restores them; the chain holds records
    /// not yet acknowledged, fewer than 2³² of them). Meaningless at the
    /// chain's ends: the head has no predecessor, the tail no successor.
    prev: u32,
    next: u32,
    flags: u8,
}

const _: () = assert!(std::mem::size_of::<Seg>() == 32);

impl SeqRecord for Seg {
    #[inline]
    fn seq(&self) -> u64 {
        self.seq
    }
    #[inline]
    fn end(&self) -> u64 {
        Seg::end(self)
    }
}

/// Segment.retransmitted.
const RETRANSMITTED: u8 = 1;
/// Segment.lost (kept until delivered, as Linux's TCPCB_LOST).
const LOST: u8 = 2;
const SACKED: u8 = 4;
/// A retransmission of it is in flight and has not been marked lost.
const RETX_OUT: u8 = 8;
/// In the transmission-time chain.
const LINKED: u8 = 16;

impl Seg {
    #[inline]
    fn len(&self) -> u64 {
        self.len as u64
    }
    /// Segment.end_seq.
    #[inline]
    fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
    #[inline]
    fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
    #[inline]
    fn set(&mut self, f: u8, on: bool) {
        if on {
            self.flags |= f;
        } else {
            self.flags &= !f;
        }
    }
}

/// Which of RACK-TLP's timers is armed (section 8: they are mutually
/// exclusive, one timer with a type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossTimer {
    /// The RACK reordering timer (section 6.3).
    Reorder,
    /// The TLP probe timeout, PTO (section 7.2).
    Probe,
}

/// Counters of one RACK-TLP instance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RackStats {
    /// Segments marked lost by RACK (or by a timeout).
    pub marked_lost: u64,
    /// Their bytes.
    pub marked_lost_bytes: u64,
    /// Of them, retransmissions found lost again.
    pub lost_retransmissions: u64,
    /// RACK reordering timer expirations.
    pub reorder_timeouts: u64,
    /// Loss probes sent.
    pub probes: u64,
    /// Probes whose acknowledgement shows they repaired a loss (section 7.4.2).
    pub probe_repairs: u64,
}

/// Laid out in the order written (`repr(C)`, aligned to a cache line):
/// what a transmission and the sender's `poll_at` read (the records, the
/// chain's ends, the timer) in the first two lines, the per-ACK state after.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Rack {
    /// Records of segments sent and not cumulatively acknowledged, by sequence.
    segs: VecDeque<Seg>,
    /// Absolute index of `segs[0]` (records are never inserted in the middle).
    base: u64,
    /// The end of the last record while there is one (a transmission
    /// compares with it without reading that record, out of the cache
    /// since the previous transmission).
    top: u64,
    /// The transmission-time chain (absolute indices), oldest first.
    head: u64,
    tail: u64,
    /// The armed loss timer, if any.
    pub(super) timer: Option<(Time, LossTimer)>,
    /// TLP.end_seq: one past the highest byte sent when the probe went out.
    pub(super) tlp_end_seq: Option<u64>,
    /// TLP.is_retrans.
    pub(super) tlp_is_retrans: bool,
    /// RACK.reordering_seen.
    reordering_seen: bool,
    /// Bytes of unSACKed records marked lost.
    lost_bytes: u64,
    /// Bytes of unSACKed records with a retransmission in flight.
    retx_bytes: u64,
    /// RACK.segs_sacked.
    segs_sacked: u64,
    /// RACK.xmit_ts and RACK.end_seq of the most recently sent delivered segment.
    xmit_ts: Option<Time>,
    end_seq: u64,
    /// RACK.rtt.
    rtt: Dur,
    /// RACK.min_RTT.
    min_rtt: Option<Dur>,
    /// RACK.fack.
    fack: u64,
    /// RACK.reo_wnd.
    reo_wnd: Dur,
    dupthresh: u64,
    /// SACKed ranges new on the ACK being processed.
    newly: Vec<(u64, u64)>,
    /// The lowest end of a never-retransmitted segment the last ACK
    /// delivered (F-RTO's "original data acknowledged").
    orig_delivered_end: Option<u64>,
    /// Starts of records marked lost and not yet retransmitted.
    pending: BTreeSet<u64>,
    pub stats: RackStats,
}

#[inline]
fn sent_after(t1: Time, seq1: u64, t2: Time, seq2: u64) -> bool {
    // Section 6.2: RACK_sent_after(t1, seq1, t2, seq2).
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// A hint: an ACK comes soon; bring this and the oldest record in.
    pub fn prefetch(&self) {
        crate::engine::prefetch_all(self);
        crate::engine::prefetch_first(&self.segs);
    }

    pub fn new(dupthresh: u32) -> Rack {
        Rack {
            segs: VecDeque::new(),
            base: 0,
            top: 0,
            head: NIL,
            tail: NIL,
            pending: BTreeSet::new(),
            lost_bytes: 0,
            retx_bytes: 0,
            segs_sacked: 0,
            xmit_ts: None,
            end_seq: 0,
            rtt: Dur::ZERO,
            min_rtt: None,
            fack: 0,
            reordering_seen: false,
            reo_wnd: Dur::ZERO,
            dupthresh: dupthresh as u64,
            tlp_end_seq: None,
            tlp_is_retrans: false,
            timer: None,
            newly: Vec::new(),
            orig_delivered_end: None,
            stats: RackStats::default(),
        }
    }

    // ---- observers -------------------------------------------------------

    /// RACK.reo_wnd as last computed.
    pub fn reo_wnd(&self) -> Dur {
        self.reo_wnd
    }
    /// RACK.rtt.
    pub fn rtt(&self) -> Dur {
        self.rtt
    }
    /// RACK.min_RTT.
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }
    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }
    /// The armed loss timer.
    pub fn timer(&self) -> Option<(Time, LossTimer)> {
        self.timer
    }
    #[inline]
    pub fn timer_at(&self) -> Option<Time> {
        self.timer.map(|t| t.0)
    }
    /// The segment containing `seq` is marked lost.
    pub fn is_lost(&self, seq: u64) -> bool {
        self.find(seq).is_some_and(|i| self.segs[i].has(LOST))
    }
    /// The first segment marked lost and not retransmitted since: `[seq, end)`.
    pub fn first_lost(&self) -> Option<(u64, u64)> {
        let &seq = self.pending.first()?;
        let i = self.find(seq)?;
        Some((seq, self.segs[i].end()))
    }
    /// The lowest end of a segment never retransmitted that the last ACK
    /// delivered (cumulatively or by SACK), if any.
    pub fn orig_delivered_end(&self) -> Option<u64> {
        self.orig_delivered_end
    }

    /// The highest-sequence segment sent: `[seq, end)`.
    pub fn last_seg(&self) -> Option<(u64, u64)> {
        self.segs.back().map(|r| (r.seq, r.end()))
    }

    /// Bytes in flight, as Linux counts them (packets_out − sacked_out −
    /// lost_out + retrans_out) and RFC 6675 SetPipe() does with RACK's
    /// "lost": an unSACKed segment counts once unless marked lost, and once
    /// more while a retransmission of it is in flight.
    pub fn pipe(&self, una: u64, max: u64, sacked: u64) -> u64 {
        (max.saturating_sub(una) + self.retx_bytes).saturating_sub(sacked + self.lost_bytes)
    }

    // ---- the time-ordered chain -------------------------------------------

    #[inline]
    fn idx(&self, id: u64) -> usize {
        (id - self.base) as usize
    }

    fn find(&self, seq: u64) -> Option<usize> {
        let i = seqsearch::first_ending_above(&self.segs, seq);
        (i < self.segs.len() && self.segs[i].seq <= seq).then_some(i)
    }

    /// The absolute index whose low 32 bits are `x` (a record not yet
    /// acknowledged: at or after `base`, fewer than 2³² after it).
    #[inline]
    fn abs(&self, x: u32) -> u64 {
        self.base + x.wrapping_sub(self.base as u32) as u64
    }

    /// The record after `id` in the transmission-time chain, or NIL.
    #[inline]
    fn next_of(&self, id: u64) -> u64 {
        if id == self.tail {
            NIL
        } else {
            self.abs(self.segs[self.idx(id)].next)
        }
    }

    fn unlink(&mut self, id: u64) {
        let i = self.idx(id);
        let r = self.segs[i];
        if !r.has(LINKED) {
            return;
        }
        let prev = if id == self.head {
            NIL
        } else {
            self.abs(r.prev)
        };
        let next = if id == self.tail {
            NIL
        } else {
            self.abs(r.next)
        };
        if prev == NIL {
            self.head = next;
        } else {
            let p = self.idx(prev);
            self.segs[p].next = next as u32;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            let n = self.idx(next);
            self.segs[n].prev = prev as u32;
        }
        self.segs[i].set(LINKED, false);
    }

    fn link_tail(&mut self, id: u64) {
        let i = self.idx(id);
        debug_assert!(!self.segs[i].has(LINKED));
        self.segs[i].prev = self.tail as u32;
        self.segs[i].set(LINKED, true);
        if self.tail == NIL {
            self.head = id;
        } else {
            let t = self.idx(self.tail);
            self.segs[t].next = id as u32;
        }
        self.tail = id;
    }

    // ---- inputs ----------------------------------------------------------

    /// Section 6.1: a segment `[seq, seq + len)` was (re)transmitted now:
    /// Segment.xmit_ts = Now, and it moves to the end of the time chain.
    pub fn on_send(&mut self, now: Time, seq: u64, len: u32) {
        let end = seq + len as u64;
        debug_assert!(self.segs.back().is_none_or(|r| r.end() == self.top));
        let top = self.top;
        if self.segs.is_empty() || seq >= top {
            self.push(now, seq, end);
            return;
        }
        // A retransmission: every record it covers.
        let mut i = seqsearch::first_ending_above(&self.segs, seq);
        while i < self.segs.len() && self.segs[i].seq < end {
            let id = self.base + i as u64;
            let r = self.segs[i];
            if !r.has(SACKED) {
                if r.has(LOST) && !r.has(RETX_OUT) {
                    self.pending.remove(&r.seq);
                }
                if !r.has(RETX_OUT) {
                    self.retx_bytes += r.len();
                }
                self.unlink(id);
                let r = &mut self.segs[i];
                r.set(RETX_OUT, true);
                r.set(RETRANSMITTED, true);
                r.xmit_ts = now;
                self.link_tail(id);
            }
            i += 1;
        }
        if end > top {
            // Reaches past the highest byte sent (after a one-byte window probe).
            self.push(now, top, end);
        }
    }

    fn push(&mut self, now: Time, seq: u64, end: u64) {
        let id = self.base + self.segs.len() as u64;
        let len = u32::try_from(end - seq).expect("a segment is shorter than 4 GiB");
        self.top = end;
        self.segs.push_back(Seg {
            seq,
            xmit_ts: now,
            len,
            prev: 0,
            next: 0,
            flags: 0,
        });
        self.link_tail(id);
    }

    /// A SACK block `[s, e)` of the ACK being processed: add it to the
    /// sender's scoreboard `sb` and remember the bytes it newly covers.
    /// Returns the bytes added (as `RangeSet::insert`).
    pub fn sack_block(&mut self, sb: &mut RangeSet, s: u64, e: u64) -> u64 {
        sb.insert_noting(s, e, &mut self.newly)
    }

    /// Section 6.2, upon receiving an ACK: the cumulative ACK `ack`, the
    /// SACK blocks noted (`sack_block`) and the scoreboard `sb` after
    /// them. `est_min_rtt`: the sender's RFC 6298 minimum RTT. Returns the
    /// number of segments newly marked lost.
    pub fn on_ack(
        &mut self,
        now: Time,
        ack: u64,
        sb: &RangeSet,
        in_recovery: bool,
        srtt: Option<Dur>,
        est_min_rtt: Option<Dur>,
    ) -> u64 {
        let before = self.stats.marked_lost;
        self.orig_delivered_end = None;
        // Step 1: update RACK.min_RTT from the RTT measurements.
        if let Some(m) = est_min_rtt {
            self.min_rtt = Some(self.min_rtt.map_or(m, |x| x.min(m)));
        }
        // Steps 2 and 3 for every segment newly acknowledged, in ascending
        // order of end_seq: cumulatively acknowledged ones first...
        while let Some(r) = self.segs.front().copied() {
            if r.end() > ack {
                break;
            }
            let id = self.base;
            if r.has(SACKED) {
                self.segs_sacked -= 1;
            } else {
                self.delivered(now, id);
            }
            self.segs.pop_front();
            self.base += 1;
        }
        // ...then the newly SACKed ones.
        if !self.newly.is_empty() {
            self.newly.sort_unstable();
            for k in 0..self.newly.len() {
                let (g0, g1) = self.newly[k];
                let mut i = seqsearch::first_ending_above(&self.segs, g0);
                while i < self.segs.len() && self.segs[i].seq < g1 {
                    let r = self.segs[i];
                    // A record inside the gap is SACKed now (the gap went
                    // into `sb`, above the cumulative ACK); one across its
                    // edge is looked up.
                    let inside = g0 <= r.seq && r.end() <= g1;
                    if !r.has(SACKED)
                        && (inside || sb.range_of(r.seq).is_some_and(|(_, b)| b >= r.end()))
                    {
                        self.delivered(now, self.base + i as u64);
                        self.segs[i].set(SACKED, true);
                        self.segs_sacked += 1;
                    }
                    i += 1;
                }
            }
            self.newly.clear();
        }
        // Steps 4 and 5.
        self.detect_loss_and_arm_timer(now, in_recovery, srtt);
        self.stats.marked_lost - before
    }

    /// Steps 2 (RACK_update) and 3 (RACK_detect_reordering) for one newly
    /// delivered segment, and its removal from the flight.
    fn delivered(&mut self, now: Time, id: u64) {
        let i = self.idx(id);
        let r = self.segs[i];
        let rtt = now.since(r.xmit_ts);
        // Step 2. Without timestamps a retransmitted segment's ACK may be
        // for the original transmission: it counts only if its RTT is not
        // below RACK.min_RTT.
        let ambiguous = r.has(RETRANSMITTED) && self.min_rtt.is_some_and(|m| rtt < m);
        if !ambiguous {
            self.rtt = rtt;
            if self
                .xmit_ts
                .is_none_or(|t| sent_after(r.xmit_ts, r.end(), t, self.end_seq))
            {
                self.xmit_ts = Some(r.xmit_ts);
                self.end_seq = r.end();
            }
        }
        if !r.has(RETRANSMITTED) {
            self.orig_delivered_end =
                Some(self.orig_delivered_end.map_or(r.end(), |e| e.min(r.end())));
        }
        // Step 3.
        if r.end() > self.fack {
            self.fack = r.end();
        } else if r.end() < self.fack && !r.has(RETRANSMITTED) {
            self.reordering_seen = true;
        }
        if r.has(LOST) {
            self.lost_bytes -= r.len();
            if !r.has(RETX_OUT) {
                self.pending.remove(&r.seq);
            }
        }
        if r.has(RETX_OUT) {
            self.retx_bytes -= r.len();
        }
        self.unlink(id);
        let r = &mut self.segs[i];
        r.set(LOST, false);
        r.set(RETX_OUT, false);
    }

    /// Step 4, RACK_update_reo_wnd (DSACK-based growth not modelled:
    /// RACK.reo_wnd_mult = 1).
    fn update_reo_wnd(&self, in_recovery: bool, srtt: Option<Dur>) -> Dur {
        if !self.reordering_seen && (in_recovery || self.segs_sacked >= self.dupthresh) {
            // No reordering seen: in recovery, or once DupThresh segments
            // are SACKed, detect losses at once.
            return Dur::ZERO;
        }
        let q = self.min_rtt.map_or(Dur::ZERO, |m| Dur(m.0 / 4));
        match srtt {
            Some(s) => q.min(s),
            None => q,
        }
    }

    /// Step 5, RACK_detect_loss, and RACK_detect_loss_and_arm_timer
    /// (section 6.2): mark lost every segment in flight sent before the most
    /// recently delivered one that has waited RACK.rtt + RACK.reo_wnd;
    /// arm the reordering timer for the longest wait still to go.
    fn detect_loss_and_arm_timer(&mut self, now: Time, in_recovery: bool, srtt: Option<Dur>) {
        self.reo_wnd = self.update_reo_wnd(in_recovery, srtt);
        let Some(rack_ts) = self.xmit_ts else {
            return;
        };
        let mut timeout = Dur::ZERO;
        let mut id = self.head;
        while id != NIL {
            let r = self.segs[self.idx(id)];
            let next = self.next_of(id);
            if !sent_after(rack_ts, self.end_seq, r.xmit_ts, r.end()) {
                // The chain is in transmission order: nothing later qualifies.
                break;
            }
            let deadline = r.xmit_ts + self.rtt + self.reo_wnd;
            if deadline <= now {
                self.mark_lost(id);
            } else {
                timeout = timeout.max(deadline - now);
            }
            id = next;
        }
        if timeout > Dur::ZERO {
            self.timer = Some((now + timeout, LossTimer::Reorder));
        } else if self.timer.is_some_and(|t| t.1 == LossTimer::Reorder) {
            self.timer = None;
        }
    }

    fn mark_lost(&mut self, id: u64) {
        let i = self.idx(id);
        let r = self.segs[i];
        if r.has(SACKED) || (r.has(LOST) && !r.has(RETX_OUT)) {
            return;
        }
        if !r.has(LOST) {
            self.lost_bytes += r.len();
        }
        if r.has(RETX_OUT) {
            self.retx_bytes -= r.len();
            self.stats.lost_retransmissions += 1;
        }
        self.unlink(id);
        let r = &mut self.segs[i];
        r.set(LOST, true);
        r.set(RETX_OUT, false);
        self.pending.insert(r.seq);
        self.stats.marked_lost += 1;
        self.stats.marked_lost_bytes += r.len();
    }

    /// A timeout turned out spurious: no segment is lost any more (Linux's
    /// `tcp_undo_cwnd_reduction` with `unmark_loss`); every unSACKed segment
    /// is in flight again, in transmission order.
    pub fn unmark_lost(&mut self) {
        for i in 0..self.segs.len() {
            let r = self.segs[i];
            if r.has(LOST) && !r.has(SACKED) {
                self.lost_bytes -= r.len();
                if !r.has(RETX_OUT) {
                    self.pending.remove(&r.seq);
                }
                self.segs[i].set(LOST, false);
            }
        }
        // Relink the flight in (xmit_ts, end) order.
        let mut ids: Vec<u64> = (0..self.segs.len())
            .filter(|&i| !self.segs[i].has(SACKED))
            .map(|i| self.base + i as u64)
            .collect();
        ids.sort_by_key(|&id| {
            let r = self.segs[self.idx(id)];
            (r.xmit_ts, r.end())
        });
        for r in self.segs.iter_mut() {
            r.set(LINKED, false);
        }
        self.head = NIL;
        self.tail = NIL;
        for id in ids {
            self.link_tail(id);
        }
    }

    /// Section 6.3: the reordering timer expired. Returns the number of
    /// segments newly marked lost.
    pub fn on_reorder_timer(&mut self, now: Time, in_recovery: bool, srtt: Option<Dur>) -> u64 {
        let before = self.stats.marked_lost;
        self.timer = None;
        self.stats.reorder_timeouts += 1;
        self.detect_loss_and_arm_timer(now, in_recovery, srtt);
        self.stats.marked_lost - before
    }

    /// A retransmission timeout with the scoreboard kept: mark every
    /// unSACKed segment lost, except (as Linux's `tcp_timeout_mark_lost`
    /// does with RACK) those after the first sent less than RACK.rtt ago,
    /// which RACK will judge when ACKs return. The loss probe and the
    /// reordering timer are cancelled.
    pub fn on_rto(&mut self, now: Time) {
        for i in 0..self.segs.len() {
            let r = self.segs[i];
            if r.has(SACKED) {
                continue;
            }
            let recent = i > 0 && self.xmit_ts.is_some() && r.xmit_ts + self.rtt > now;
            if !recent {
                self.mark_lost(self.base + i as u64);
            }
        }
        self.tlp_end_seq = None;
        self.timer = None;
    }

    /// Check the bookkeeping against a recount (tests).
    #[cfg(test)]
    pub(crate) fn check(&self) {
        let (mut lost, mut retx, mut sacked) = (0, 0, 0);
        for r in &self.segs {
            if r.has(SACKED) {
                sacked += 1;
                continue;
            }
            if r.has(LOST) {
                lost += r.len();
                assert_eq!(
                    self.pending.contains(&r.seq),
                    !r.has(RETX_OUT),
                    "pending {r:?}"
                );
            }
            if r.has(RETX_OUT) {
                retx += r.len();
            }
            assert_eq!(
                r.has(LINKED),
                !r.has(LOST) || r.has(RETX_OUT),
                "linked {r:?}"
            );
        }
        assert_eq!(
            (lost, retx, sacked),
            (self.lost_bytes, self.retx_bytes, self.segs_sacked)
        );
        // The chain is in non-decreasing xmit_ts order.
        let mut id = self.head;
        let mut t = Time::ZERO;
        while id != NIL {
            let r = self.segs[self.idx(id)];
            assert!(r.xmit_ts >= t);
            t = r.xmit_ts;
            id = self.next_of(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// The layout (see the struct): what a transmission and `poll_at` read
    /// in the first two lines. A change here is a layout change to
    /// measure, not a number to update.
    #[test]
    fn the_per_transmission_fields_lie_in_the_first_two_lines() {
        assert_eq!(align_of::<Rack>(), 64);
        assert_eq!(offset_of!(Rack, segs), 0);
        assert!(offset_of!(Rack, timer) + size_of::<Option<(Time, LossTimer)>>() <= 128);
        assert!(offset_of!(Rack, reordering_seen) < 128);
        assert_eq!(size_of::<Rack>(), 5 * 64);
    }
}
