//! Delivery-rate estimation, draft-cheng-iccrg-delivery-rate-estimation-02
//! (Y. Cheng, N. Cardwell, S. Hassas Yeganeh, V. Jacobson), as BBR uses it.
//!
//! The connection counts `delivered` bytes (cumulatively or selectively
//! acknowledged) and remembers when the count last grew. Each segment, when
//! sent, records the connection's `delivered`, `delivered_time` and
//! `first_sent_time` (section 3.2); when it is delivered, the rate over the
//! interval since then is a sample (section 3.3):
//! delivered bytes / max(send elapsed, ACK elapsed).
//!
//! The sender keeps one of these only when its controller asks for rate
//! samples (`CongestionOps::wants_rate_samples`): other controllers pay
//! nothing for the per-segment state.

use super::seqsearch::{self, SeqRecord};
use crate::engine::time::{Dur, Time};
use std::collections::VecDeque;

/// Per-segment send state (section 3.2: P.delivered, P.delivered_time,
/// P.first_sent_time, P.is_app_limited, plus the send time), in 48 bytes:
/// a connection keeps one per segment in flight and the ACKs walk them, so
/// they are kept small enough to stay in the cache.
#[derive(Clone, Copy, Debug)]
struct TxRecord {
    seq: u64,
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    sent_time: Time,
    /// The segment's length (below 2³⁰), with `APP_LIMITED` and `RETX`.
    len_flags: u32,
    /// 0 until the record is counted as delivered (SACKed); then the number
    /// of records from this one to one at or after the next that may not be
    /// done, so that SACK blocks repeated ACK after ACK skip the runs
    /// already counted.
    skip: u32,
}

/// `TxRecord::len_flags`: P.is_app_limited.
const APP_LIMITED: u32 = 1 << 31;
/// `TxRecord::len_flags`: the latest transmission was a retransmission.
const RETX: u32 = 1 << 30;
const LEN: u32 = RETX - 1;

const _: () = assert!(std::mem::size_of::<TxRecord>() == 48);

impl SeqRecord for TxRecord {
    #[inline]
    fn seq(&self) -> u64 {
        self.seq
    }
    #[inline]
    fn end(&self) -> u64 {
        TxRecord::end(self)
    }
}

impl TxRecord {
    #[inline]
    fn len(&self) -> u64 {
        (self.len_flags & LEN) as u64
    }
    #[inline]
    fn end(&self) -> u64 {
        self.seq + self.len()
    }
    #[inline]
    fn is_app_limited(&self) -> bool {
        self.len_flags & APP_LIMITED != 0
    }
    #[inline]
    fn retx(&self) -> bool {
        self.len_flags & RETX != 0
    }
    /// Already counted as delivered (SACKed).
    #[inline]
    fn done(&self) -> bool {
        self.skip != 0
    }
}

/// One rate sample (section 3.3).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// rs.delivery_rate, payload bytes per second (0 when no valid sample).
    pub delivery_rate: f64,
    /// Whether `delivery_rate` is a valid sample.
    pub valid: bool,
    /// rs.is_app_limited.
    pub is_app_limited: bool,
    /// rs.interval.
    pub interval: Dur,
    /// rs.delivered: bytes delivered over the interval.
    pub delivered: u64,
    /// rs.prior_delivered: C.delivered when the newest acknowledged segment was sent.
    pub prior_delivered: u64,
    /// C.delivered after this ACK (connection total).
    pub total_delivered: u64,
    /// Bytes newly delivered by this ACK.
    pub newly_delivered: u64,
    /// RTT of the newest delivered segment, if it was not retransmitted (Karn).
    pub rtt: Option<Dur>,
    /// Bytes sent and neither cumulatively nor selectively acknowledged,
    /// before and after this ACK (lost segments still count).
    pub prior_inflight: u64,
    pub inflight: u64,
    /// Bytes sent and not yet delivered (SACKed or cumulatively acknowledged).
    pub undelivered: u64,
    /// Bytes newly marked lost on this ACK (RACK; Linux's `rs->losses`).
    pub losses: u64,
    /// The ACK may have been delayed by the receiver: it delivered one
    /// segment shorter than the MSS and nothing was SACKed (Linux's
    /// `FLAG_ACK_MAYBE_DELAYED`); its RTT does not refresh an expired
    /// minimum.
    pub is_ack_delayed: bool,
}

/// Laid out in the order written (`repr(C)`, aligned to a cache line):
/// what a transmission reads and writes in the first line and a half, the
/// per-ACK walk's memory after.
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub struct RateSampler {
    /// C.delivered.
    delivered: u64,
    /// C.delivered_time.
    delivered_time: Time,
    /// C.first_sent_time.
    first_sent_time: Time,
    /// C.app_limited: 0, or the delivered mark the sender was app-limited until.
    app_limited: u64,
    /// Segments sent and not yet cumulatively acknowledged, by sequence.
    segs: VecDeque<TxRecord>,
    /// Bytes of `segs` not SACKed.
    outstanding: u64,
    /// The end of the last record (while there is one): a transmission
    /// compares with it without reading that record, which the sender last
    /// touched a pacing interval ago and is out of the cache by now.
    top: u64,
    /// Records popped from the front so far: record `i` of `segs` has the
    /// absolute index `popped + i`.
    popped: u64,
    next_walked: usize,
    /// SACK blocks walked lately, each with the absolute index (see
    /// `popped`) its walk stopped at: every record inside one is done, and
    /// no record can come to lie inside one later (records keep their
    /// bounds, new ones start at the top, above any block), so a block
    /// repeated unchanged by a later ACK has nothing left to count, and one
    /// grown from the same start has nothing below that index (the common
    /// case: the block holding the newest arrival, longer on every ACK).
    walked: [(u64, u64, u64); 4],
}

/// Per-ACK accumulator (the `rs` of the draft, before generation).
struct Pending {
    prior_delivered: u64,
    prior_time: Option<Time>,
    send_elapsed: Dur,
    ack_elapsed: Dur,
    is_app_limited: bool,
    newest_sent: Time,
    rtt: Option<Dur>,
}

impl RateSampler {
    pub fn new() -> RateSampler {
        RateSampler::default()
    }

    /// A hint: an ACK comes soon; bring this and the oldest record in.
    pub fn prefetch(&self) {
        crate::engine::prefetch_all(self);
        crate::engine::prefetch_first(&self.segs);
    }

    /// C.delivered.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Section 3.2, upon sending: `flight` is the bytes in flight before
    /// this transmission. A retransmission refreshes the segment's state.
    pub fn on_send(&mut self, now: Time, seq: u64, len: u32, retx: bool, flight: u64) {
        if flight == 0 {
            // Nothing in flight: the sending interval starts now.
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        assert!(len < LEN, "a segment is shorter than 1 GiB");
        let mut flags = if retx { RETX } else { 0 };
        if self.app_limited != 0 {
            flags |= APP_LIMITED;
        }
        let rec = TxRecord {
            seq,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            sent_time: now,
            len_flags: len | flags,
            skip: 0,
        };
        debug_assert!(self.segs.back().is_none_or(|r| r.end() == self.top));
        if self.segs.is_empty() || self.top <= seq {
            self.outstanding += len as u64;
            self.top = seq + len as u64;
            self.segs.push_back(rec);
            return;
        }
        // A retransmission: refresh the record holding `seq` (a SACKed one
        // stays delivered). A segment that extends the last record past its
        // end (after a one-byte window probe) extends it.
        let i = seqsearch::first_ending_above(&self.segs, seq);
        let last = i + 1 == self.segs.len();
        if let Some(r) = self.segs.get_mut(i) {
            if r.seq <= seq && !r.done() {
                let (s, mut e) = (r.seq, r.end());
                let rec_end = seq + len as u64;
                if last && rec_end > e {
                    self.outstanding += rec_end - e;
                    e = rec_end;
                    self.top = e;
                }
                let len = u32::try_from(e - s).ok().filter(|&l| l < LEN);
                *r = TxRecord {
                    seq: s,
                    len_flags: len.expect("a segment is shorter than 1 GiB") | flags,
                    ..rec
                };
            }
        }
    }

    /// The index of the first record at or after index `i` not yet done
    /// (or `segs.len()`), shortening the skips followed on the way.
    fn first_not_done(&mut self, i: usize) -> usize {
        let mut j = i;
        while j < self.segs.len() && self.segs[j].done() {
            j += self.segs[j].skip as usize;
        }
        let mut k = i;
        while k < j {
            let next = k + self.segs[k].skip as usize;
            self.segs[k].skip = (j - k) as u32;
            k = next;
        }
        j
    }

    /// Section 3.3 (C.app_limited): the sender has nothing to send; samples
    /// until the data now in flight is delivered are application-limited.
    pub fn set_app_limited(&mut self) {
        self.app_limited = (self.delivered + self.outstanding).max(1);
    }

    fn update(&mut self, now: Time, r: TxRecord, p: &mut Pending) {
        // UpdateRateSample(P).
        self.delivered += r.len();
        self.delivered_time = now;
        // The newest segment delivered so far on this ACK gives the sample.
        let newer = p.prior_time.is_none()
            || r.delivered > p.prior_delivered
            || (r.delivered == p.prior_delivered && r.sent_time > p.newest_sent);
        if newer {
            p.prior_delivered = r.delivered;
            p.prior_time = Some(r.delivered_time);
            p.is_app_limited = r.is_app_limited();
            p.send_elapsed = r.sent_time.since(r.first_sent_time);
            p.ack_elapsed = now.since(r.delivered_time);
            p.newest_sent = r.sent_time;
            p.rtt = (!r.retx()).then(|| now.since(r.sent_time));
            // Section 3.3: the next send interval starts at this segment's send time.
            self.first_sent_time = r.sent_time;
        }
    }

    /// An ACK: cumulative acknowledgement `ack`, and the SACK blocks it
    /// carries (already clipped to the sequence space). Returns the sample
    /// (GenerateRateSample, section 3.3). `min_rtt`: samples over an
    /// interval shorter than it are discarded.
    pub fn on_ack(
        &mut self,
        now: Time,
        ack: u64,
        sack: &[(u64, u64)],
        min_rtt: Option<Dur>,
    ) -> RateSample {
        let before = self.delivered;
        let prior_inflight = self.outstanding;
        let mut p = Pending {
            prior_delivered: 0,
            prior_time: None,
            send_elapsed: Dur::ZERO,
            ack_elapsed: Dur::ZERO,
            is_app_limited: false,
            newest_sent: Time::ZERO,
            rtt: None,
        };
        // Cumulatively acknowledged segments leave the record.
        while let Some(r) = self.segs.front().copied() {
            if r.end() > ack {
                break;
            }
            self.segs.pop_front();
            self.popped += 1;
            if !r.done() {
                self.outstanding -= r.len();
                self.update(now, r, &mut p);
            }
        }
        // Selectively acknowledged whole segments stay, marked.
        // Records are in sequence order, so past the first record ending
        // above a block none lies in it, done or not: skipping done runs
        // visits the same records in the same order.
        for &(s, e) in sack {
            // The walk starts at the first record at or above `s`, or, for
            // a block grown from a start walked before, where that walk
            // stopped (every record between is done: the same visits).
            let grown = |w: &(u64, u64, u64)| w.0 == s && w.0 < w.1 && w.1 <= e;
            let (k, mut i) = match self.walked.iter().position(grown) {
                Some(k) if self.walked[k].1 == e => continue,
                Some(k) => (k, self.walked[k].2.saturating_sub(self.popped) as usize),
                None => {
                    let k = self.next_walked;
                    self.next_walked = (k + 1) % self.walked.len();
                    (k, seqsearch::first_starting_at_or_above(&self.segs, s))
                }
            };
            loop {
                i = self.first_not_done(i);
                if i >= self.segs.len() || self.segs[i].end() > e {
                    break;
                }
                let r = self.segs[i];
                self.segs[i].skip = 1;
                self.outstanding -= r.len();
                self.update(now, r, &mut p);
                i += 1;
            }
            self.walked[k] = (s, e, self.popped + i as u64);
        }
        // GenerateRateSample.
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let mut rs = RateSample {
            total_delivered: self.delivered,
            newly_delivered: self.delivered - before,
            rtt: p.rtt,
            prior_inflight,
            inflight: self.outstanding,
            undelivered: self.outstanding,
            ..RateSample::default()
        };
        let Some(_) = p.prior_time else {
            return rs;
        };
        rs.prior_delivered = p.prior_delivered;
        rs.is_app_limited = p.is_app_limited;
        rs.delivered = self.delivered - p.prior_delivered;
        // Use the longer of the send and ACK phases (section 3.3).
        rs.interval = p.send_elapsed.max(p.ack_elapsed);
        if min_rtt.is_some_and(|m| rs.interval < m) || rs.interval == Dur::ZERO {
            // An interval shorter than the minimum RTT would overestimate
            // the rate (ACK compression): no sample.
            return rs;
        }
        rs.delivery_rate = rs.delivered as f64 / rs.interval.as_secs_f64();
        rs.valid = true;
        rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout (see the struct): what a transmission reads and writes
    /// in the first line and a half, the ACK's walk memory after. A change
    /// here is a layout change to measure, not a number to update.
    #[test]
    fn the_per_transmission_fields_come_first() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<RateSampler>(), 64);
        assert_eq!(offset_of!(RateSampler, segs), 32);
        assert_eq!(offset_of!(RateSampler, top), 72);
        assert_eq!(offset_of!(RateSampler, walked), 96);
        assert_eq!(size_of::<RateSampler>(), 3 * 64);
    }

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    #[test]
    fn a_window_sent_at_a_rate_is_measured_at_that_rate() {
        // 10 segments of 1000 bytes sent 10 ms apart (100 kB/s) from t = 0;
        // each ACK 500 ms after its segment. The first ACK: delivered 1000
        // bytes over max(send elapsed 0, ACK elapsed 500 ms): 2 kB/s; the
        // interval is not below the 500 ms minimum RTT: valid.
        let mut r = RateSampler::new();
        for k in 0..10u64 {
            r.on_send(ms(10 * k), 1000 * k, 1000, false, 1000 * k);
        }
        let s = r.on_ack(ms(500), 1000, &[], Some(Dur::from_millis(500)));
        assert!(s.valid);
        assert_eq!((s.delivered, s.interval), (1000, Dur::from_millis(500)));
        assert_eq!(s.rtt, Some(Dur::from_millis(500)));
        // The ACK of segment 9 at 590 ms: it was sent at 90 ms with
        // delivered = 0 and delivered_time = 0 (nothing delivered yet);
        // send elapsed 90 - 0, ACK elapsed 590 - 0: interval 590 ms,
        // 10 000 bytes delivered since: 16.95 kB/s.
        for k in 2..10 {
            r.on_ack(ms(490 + 10 * k), 1000 * k, &[], None);
        }
        let s = r.on_ack(ms(590), 10_000, &[], None);
        assert_eq!(s.interval, Dur::from_millis(590));
        assert_eq!(s.delivered, 10_000);
        assert_eq!(s.inflight, 0);
        // Segment 10 is sent at 600 ms on an idle connection, 11 at 610 ms;
        // ACKs at 1100 and 1110 ms.
        r.on_send(ms(600), 10_000, 1000, false, 0);
        r.on_send(ms(610), 11_000, 1000, false, 1000);
        r.on_ack(ms(1100), 11_000, &[], None);
        let s = r.on_ack(ms(1110), 12_000, &[], None);
        // on_send at 600 ms with flight 0 restarted the interval there:
        // first_sent_time = delivered_time = 600 ms. For 11: send elapsed
        // 610 - 600 = 10 ms, ACK elapsed 1110 - 600 = 510 ms, delivered
        // since: 2000 bytes.
        assert_eq!(s.interval, Dur::from_millis(510));
        assert_eq!(s.delivered, 2000);
        assert!((s.delivery_rate - 2000.0 / 0.51).abs() < 1e-6);
    }

    #[test]
    fn a_sack_block_growing_from_one_start_counts_each_segment_once() {
        // Segments 0..10 of 1000 bytes sent at 0..9 ms; 0 and 5 are lost.
        // The block holding the newest arrival grows from 1000 ACK after
        // ACK (the walk resumes where the last one stopped); 5's hole stays.
        let mut r = RateSampler::new();
        for k in 0..10u64 {
            r.on_send(ms(k), 1000 * k, 1000, false, 1000 * k);
        }
        let s = r.on_ack(ms(101), 0, &[(1000, 3000)], None);
        assert_eq!((s.newly_delivered, s.total_delivered), (2000, 2000));
        let s = r.on_ack(ms(103), 0, &[(1000, 5000)], None);
        assert_eq!((s.newly_delivered, s.total_delivered), (2000, 4000));
        // The newest arrival is above the hole at 5: a second block; the
        // first repeated unchanged counts nothing.
        let s = r.on_ack(ms(106), 0, &[(6000, 7000), (1000, 5000)], None);
        assert_eq!((s.newly_delivered, s.inflight), (1000, 5000));
        // 0 is retransmitted and arrives: the cumulative ACK covers 0..5
        // (only 0 is new) and pops those records; the grown block above
        // resumes at an index counted from the records popped.
        r.on_send(ms(107), 0, 1000, true, 10_000);
        let s = r.on_ack(ms(208), 5000, &[(6000, 9000)], None);
        assert_eq!((s.newly_delivered, s.total_delivered), (3000, 8000));
        // The sample's segment is the one sent with the most delivered
        // before it: 0's retransmission (delivered 5000 then), so no RTT.
        assert_eq!((s.prior_delivered, s.rtt), (5000, None));
        let s = r.on_ack(ms(209), 5000, &[(6000, 10_000)], None);
        assert_eq!((s.newly_delivered, s.inflight), (1000, 1000));
        let s = r.on_ack(ms(300), 10_000, &[], None);
        assert_eq!(
            (s.newly_delivered, s.total_delivered, s.inflight),
            (1000, 10_000, 0)
        );
    }

    #[test]
    fn sacked_segments_count_once_and_a_retransmission_gives_no_rtt() {
        let mut r = RateSampler::new();
        for k in 0..4u64 {
            r.on_send(ms(k), 1000 * k, 1000, false, 1000 * k);
        }
        // 0 lost; 1 and 2 SACKed at 101, 102 ms.
        let s = r.on_ack(ms(101), 0, &[(1000, 2000)], None);
        assert_eq!((s.newly_delivered, s.total_delivered), (1000, 1000));
        let s = r.on_ack(ms(102), 0, &[(1000, 3000)], None);
        assert_eq!(s.newly_delivered, 1000);
        assert_eq!(s.rtt, Some(Dur::from_millis(100)));
        // Retransmit 0 at 103 ms; its ACK covers 0-2 at 203 ms: only 0 is
        // new (1 and 2 were SACKed), sent with delivered = 2000, and it was
        // retransmitted: no RTT (Karn).
        r.on_send(ms(103), 0, 1000, true, 4000);
        let s = r.on_ack(ms(203), 3000, &[], None);
        assert_eq!(s.newly_delivered, 1000);
        assert_eq!(s.prior_delivered, 2000);
        assert_eq!(s.rtt, None);
        let s = r.on_ack(ms(204), 4000, &[], None);
        assert_eq!(s.total_delivered, 4000);
    }
}
