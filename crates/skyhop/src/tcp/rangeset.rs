//! A set of disjoint, sorted, half-open byte ranges `[start, end)`.
//! Used by the receiver's reassembly queue, the sender's SACK scoreboard and
//! the byte ledger.
//!
//! A window of gigabytes under a few percent of loss holds thousands of
//! holes, so every operation is logarithmic in the number of ranges: all
//! but the highest few ranges are the nodes of a treap (`treap.rs`) whose
//! nodes carry the count and byte total of their subtree. The highest
//! `TAIL` ranges are kept apart, in order, in a small array: a connection's
//! activity is at the top of its sequence space (data arriving in order
//! above the holes, the newest SACK block, SetPipe()'s look at the top
//! DupThresh ranges, IsLost() of a sequence number above the treap), and
//! there it costs a few comparisons instead of a descent. A range crosses
//! between the two only when the top changes (a new range above the rest,
//! or one merged or removed), O(log n) each time.
//!
//! Queries (`bytes`, `len`, `bytes_above`, `count_ranges_above`,
//! `range_of`, `first_gap_from`, `first`, `last`, `nth`) are O(log n) or
//! O(1). `as_slice` remains for callers that want the ranges as a slice: it
//! is built on demand by an in-order walk (O(n)) and cached until the next
//! change. Hot paths should prefer the queries above or `iter`.

use std::sync::OnceLock;

pub mod counts;
mod treap;
use treap::{Treap, TreapIter};

/// Ranges kept outside the treap, at the top of the set.
const TAIL: usize = 4;

/// Laid out in the order written (`repr(C)`): what `is_empty` reads (every
/// ACK and segment arrival) first, then the low bounds and the flattened
/// copy (whose state every change clears), the tail and the hints an insert
/// reads, and the treap last, its free list and priority stream (touched
/// only when a node is added or freed) in the last 32 bytes. In a sender
/// and a receiver the set starts 48 bytes into a line, so its 304 bytes
/// span six lines and the last holds only those 32: a change that adds
/// no treap node touches five.
#[derive(Clone)]
#[repr(C)]
pub struct RangeSet {
    tail_len: usize,
    /// Bytes in the tail (`bytes()` is read on every ACK: kept, not summed).
    tail_bytes: u64,
    /// The start of `low`'s lowest range and the end of its highest
    /// (`None` when `low` is empty).
    low_start: Option<u64>,
    low_end: Option<u64>,
    flat: OnceLock<Vec<(u64, u64)>>,
    /// The highest `min(TAIL, len)` ranges, in order (one slot spare for an
    /// insert before it gives its lowest range to `low`). A flow's activity
    /// is at the top of its sequence space: data arriving in order above
    /// the holes, the newest SACK block, SetPipe()'s look at the top
    /// DupThresh ranges; these touch only the tail, without a descent.
    tail: [(u64, u64); TAIL + 1],
    /// Ranges known to lie inside the set (the latest ranges `insert`
    /// touched; an ACK repeats its SACK blocks, so most inserts are of
    /// blocks held already): a block inside one is no change, found
    /// without a search. Empty ones are `(0, 0)`. Ranges only grow by
    /// merging, so they stay inside until something is removed.
    hints: [(u64, u64); HINTS],
    next_hint: usize,
    /// Every range below the tail.
    low: Treap,
}

const HINTS: usize = 4;

impl Default for RangeSet {
    fn default() -> Self {
        RangeSet::new()
    }
}

impl PartialEq for RangeSet {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}
impl Eq for RangeSet {}

impl std::fmt::Debug for RangeSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// In-order iterator over the ranges.
pub struct Iter<'a> {
    low: TreapIter<'a>,
    tail: std::slice::Iter<'a, (u64, u64)>,
}

impl Iterator for Iter<'_> {
    type Item = (u64, u64);
    fn next(&mut self) -> Option<(u64, u64)> {
        self.low.next().or_else(|| self.tail.next().copied())
    }
}

impl RangeSet {
    pub fn new() -> Self {
        RangeSet {
            low: Treap::new(),
            low_start: None,
            low_end: None,
            tail: [(0, 0); TAIL + 1],
            tail_len: 0,
            tail_bytes: 0,
            flat: OnceLock::new(),
            hints: [(0, 0); HINTS],
            next_hint: 0,
        }
    }

    #[inline]
    fn changed(&mut self) {
        self.flat.take();
    }

    /// Read `low`'s bounds again after a change (O(log n)).
    fn low_changed(&mut self) {
        self.low_start = self.low.first().map(|r| r.0);
        self.low_end = self.low.last().map(|r| r.1);
    }

    /// Read `low`'s lower bound again after a removal from below (its
    /// highest range stays unless `low` is empty now).
    fn low_cut(&mut self) {
        if self.low.is_empty() {
            self.low_start = None;
            self.low_end = None;
        } else {
            self.low_start = self.low.first().map(|r| r.0);
        }
    }

    #[inline]
    fn tail(&self) -> &[(u64, u64)] {
        &self.tail[..self.tail_len]
    }

    /// Insert `[start, end)` into the tail, where it touches no range of
    /// `low`; returns the bytes added and the range now holding it.
    fn tail_insert(&mut self, start: u64, end: u64) -> (u64, (u64, u64)) {
        let t = &mut self.tail;
        let n = self.tail_len;
        // The usual cases first: the highest range grows, or a new one
        // starts above it.
        if n == 0 || start >= t[n - 1].0 {
            let b = if n > 0 { t[n - 1].1 } else { 0 };
            if n > 0 && start <= b {
                let added = end.saturating_sub(b);
                t[n - 1].1 = b.max(end);
                self.tail_bytes += added;
                return (added, t[n - 1]);
            }
            t[n] = (start, end);
            self.tail_len += 1;
            self.tail_bytes += end - start;
            return (end - start, (start, end));
        }
        // Ranges i..j touch [start, end) (end >= start of one, start <= its end).
        let i = t[..n].partition_point(|r| r.1 < start);
        let mut j = i;
        let (mut s, mut e, mut covered) = (start, end, 0);
        while j < n && t[j].0 <= end {
            let (a, b) = t[j];
            covered += b.min(end).saturating_sub(a.max(start));
            s = s.min(a);
            e = e.max(b);
            j += 1;
        }
        if j == i {
            t.copy_within(i..n, i + 1);
            self.tail_len += 1;
        } else {
            t.copy_within(j..n, i + 1);
            self.tail_len -= j - i - 1;
        }
        t[i] = (s, e);
        let added = (end - start) - covered;
        self.tail_bytes += added;
        (added, (s, e))
    }

    /// Restore the tail's size: its lowest ranges beyond `TAIL` go to
    /// `low`, and `low`'s highest come up while the tail has room.
    fn settle(&mut self) {
        while self.tail_len > TAIL {
            let (a, b) = self.tail[0];
            shift_down(&mut self.tail[..self.tail_len]);
            self.tail_len -= 1;
            self.tail_bytes -= b - a;
            self.low.append(a, b);
            self.low_start = self.low_start.or(Some(a));
            self.low_end = Some(b);
        }
        while self.tail_len < TAIL {
            let Some((a, b)) = self.low.pop_last() else {
                break;
            };
            self.tail.copy_within(0..self.tail_len, 1);
            self.tail[0] = (a, b);
            self.tail_len += 1;
            self.tail_bytes += b - a;
            self.low_end = self.low.last().map(|r| r.1);
            if self.low_end.is_none() {
                self.low_start = None;
            }
        }
    }

    /// The ranges in order, as a slice (built and cached on first use after
    /// a change: O(n); prefer `iter` or the counting queries on hot paths).
    pub fn as_slice(&self) -> &[(u64, u64)] {
        self.flat.get_or_init(|| self.iter().collect())
    }
    /// The ranges in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            low: self.low.iter(),
            tail: self.tail().iter(),
        }
    }
    /// Call `f` on the last `k` ranges, highest first, without allocating
    /// (O(log n + k); O(k) for k up to the tail's size).
    pub fn for_last(&self, k: usize, mut f: impl FnMut(u64, u64)) {
        for &(a, b) in self.tail().iter().rev().take(k) {
            f(a, b);
        }
        if k > self.tail_len {
            self.low.for_last(k - self.tail_len, f);
        }
    }
    pub fn is_empty(&self) -> bool {
        self.tail_len == 0
    }
    /// Number of disjoint ranges.
    pub fn len(&self) -> usize {
        self.low.len() + self.tail_len
    }
    pub fn clear(&mut self) {
        self.hints = [(0, 0); HINTS];
        self.low.clear();
        self.low_start = None;
        self.low_end = None;
        self.tail_len = 0;
        self.tail_bytes = 0;
        self.changed();
    }
    pub fn first(&self) -> Option<(u64, u64)> {
        self.low.first().or_else(|| self.tail().first().copied())
    }
    pub fn last(&self) -> Option<(u64, u64)> {
        self.tail().last().copied()
    }
    /// Total bytes in the set (O(1)).
    pub fn bytes(&self) -> u64 {
        self.low.bytes() + self.tail_bytes
    }

    /// Whether `[start, end)` lies inside one of the ranges `insert` touched
    /// lately (O(1)): then it is held already. `false` says nothing.
    #[inline]
    pub fn holds_recent(&self, start: u64, end: u64) -> bool {
        self.hints.iter().any(|&(s, e)| s <= start && end <= e)
    }

    /// Insert `[start, end)`; returns how many bytes were not in the set before.
    pub fn insert(&mut self, start: u64, end: u64) -> u64 {
        if start >= end || self.holds_recent(start, end) {
            return 0;
        }
        self.insert_unheld(start, end)
    }

    /// `insert` of a non-empty range no hint holds; the range now holding
    /// it becomes a hint.
    fn insert_unheld(&mut self, start: u64, end: u64) -> u64 {
        let (added, held) = self.insert_range(start, end);
        self.hints[self.next_hint] = held;
        self.next_hint = (self.next_hint + 1) % HINTS;
        added
    }

    /// `insert`, also appending to `gaps` the parts of `[start, end)` not
    /// in the set before, in order (each a maximal gap the insert fills).
    /// Above `low` they are read off the tail; elsewhere found by the
    /// range and gap queries, before the insert.
    pub fn insert_noting(&mut self, start: u64, end: u64, gaps: &mut Vec<(u64, u64)>) -> u64 {
        if start >= end || self.holds_recent(start, end) {
            return 0;
        }
        if self.low_end.is_none_or(|le| start > le) {
            let mut x = start;
            for &(a, b) in self.tail() {
                if b <= x {
                    continue;
                }
                if a >= end {
                    break;
                }
                if a > x {
                    gaps.push((x, a));
                }
                x = b;
                if x >= end {
                    break;
                }
            }
            if x < end {
                gaps.push((x, end));
            }
        } else {
            let mut x = start;
            while x < end {
                if let Some((_, b)) = self.range_of(x) {
                    x = b;
                    continue;
                }
                let g1 = self.first_gap_from(x).map_or(end, |(_, g1)| g1.min(end));
                gaps.push((x, g1));
                x = g1;
            }
        }
        self.insert_unheld(start, end)
    }

    /// `insert`, also returning the range that now holds `[start, end)`.
    fn insert_range(&mut self, start: u64, end: u64) -> (u64, (u64, u64)) {
        self.changed();
        if self.low_end.is_none_or(|le| start > le) {
            // Touches no range of `low`: the tail's alone.
            let r = self.tail_insert(start, end);
            if self.tail_len > TAIL {
                self.settle();
            }
            return r;
        }
        if end < self.tail[0].0 {
            // Touches no range of the tail: `low`'s alone (its bounds can
            // only widen to the range now holding the insert).
            let r = self.low.insert(start, end);
            let (s, e) = r.1;
            self.low_start = self.low_start.map(|ls| ls.min(s));
            self.low_end = self.low_end.map(|le| le.max(e));
            return r;
        }
        // Touches both: the tail joins `low` for the insert, then the top
        // ranges come back up.
        for k in 0..self.tail_len {
            let (a, b) = self.tail[k];
            self.low.append(a, b);
        }
        self.tail_len = 0;
        self.tail_bytes = 0;
        let r = self.low.insert(start, end);
        self.low_changed();
        self.settle();
        r
    }

    /// Remove everything below `seq`; returns the bytes removed.
    pub fn remove_below(&mut self, seq: u64) -> u64 {
        match self.first() {
            Some((a, _)) if a < seq => {}
            _ => return 0,
        }
        self.changed();
        for h in self.hints.iter_mut() {
            h.0 = h.0.max(seq);
        }
        let mut removed = 0;
        if self.low_end.is_some() {
            removed += self.low.remove_below(seq);
            self.low_cut();
        }
        if self.low_end.is_none() {
            // The cut may reach into the tail.
            let n = self.tail_len;
            let k = self.tail[..n].partition_point(|r| r.1 <= seq);
            removed += self.tail[..k].iter().map(|r| r.1 - r.0).sum::<u64>();
            for m in k..n {
                self.tail[m - k] = self.tail[m];
            }
            self.tail_len -= k;
            if let Some(first) = self.tail[..self.tail_len].first_mut() {
                if first.0 < seq {
                    removed += seq - first.0;
                    first.0 = seq;
                }
            }
            self.tail_bytes = self.tail().iter().map(|r| r.1 - r.0).sum();
        }
        self.settle();
        removed
    }

    /// Remove the lowest range.
    fn remove_first(&mut self) {
        self.changed();
        self.hints = [(0, 0); HINTS];
        if self.low_end.is_some() {
            self.low.remove_first();
            self.low_cut();
        } else {
            let (a, b) = self.tail[0];
            shift_down(&mut self.tail[..self.tail_len]);
            self.tail_len -= 1;
            self.tail_bytes -= b - a;
        }
    }

    /// If a range starts at or before `seq` and extends past it, remove it
    /// and return its end (used by reassembly to advance rcv_nxt). Ranges
    /// wholly below `seq` met on the way are dropped.
    pub fn pop_covering(&mut self, seq: u64) -> Option<u64> {
        loop {
            match self.first() {
                Some((a, b)) if a <= seq && b > seq => {
                    self.remove_first();
                    self.settle();
                    return Some(b);
                }
                Some((_, b)) if b <= seq => {
                    self.remove_first();
                    self.settle();
                }
                _ => return None,
            }
        }
    }

    pub fn contains(&self, seq: u64) -> bool {
        self.range_of(seq).is_some()
    }

    /// The range containing `seq`, if any.
    pub fn range_of(&self, seq: u64) -> Option<(u64, u64)> {
        match self.tail().first() {
            Some(&(a, _)) if seq >= a => {
                let t = self.tail();
                let i = t.partition_point(|r| r.0 <= seq);
                Some(t[i - 1]).filter(|r| r.1 > seq)
            }
            _ => self.low.range_of(seq),
        }
    }

    /// Bytes of the set at or above `seq` (O(log n); O(1) above `low`).
    pub fn bytes_above(&self, seq: u64) -> u64 {
        let low = match (self.low_start, self.low_end) {
            (Some(ls), _) if seq <= ls => self.low.bytes(),
            (_, Some(le)) if seq < le => self.low.bytes_above(seq),
            _ => 0,
        };
        let tail: u64 = self
            .tail()
            .iter()
            .map(|&(a, b)| b.saturating_sub(a.max(seq)))
            .sum();
        low + tail
    }

    /// The `k`-th range in order, 0-based (O(log n)).
    pub fn nth(&self, k: usize) -> Option<(u64, u64)> {
        let n = self.low.len();
        if k < n {
            self.low.nth(k)
        } else {
            self.tail().get(k - n).copied()
        }
    }

    /// Number of ranges starting strictly above `seq` (O(log n); O(1) above
    /// `low`): RFC 6675 IsLost()'s count of SACKed blocks above a sequence number.
    pub fn count_ranges_above(&self, seq: u64) -> usize {
        let low = match (self.low_start, self.low_end) {
            (Some(ls), _) if seq < ls => self.low.len(),
            (_, Some(le)) if seq < le => self.low.count_ranges_above(seq),
            _ => 0,
        };
        low + self.tail().iter().filter(|r| r.0 > seq).count()
    }

    /// The first gap at or after `from` and below the highest range:
    /// returns `[gap_start, gap_end)`.
    pub fn first_gap_from(&self, from: u64) -> Option<(u64, u64)> {
        let &(t0, _) = self.tail().first()?;
        if from >= t0 {
            let t = self.tail();
            let i = t.partition_point(|r| r.0 <= from);
            let (_, b) = t[i - 1];
            return if b > from {
                // `from` is inside a range: the gap is after it, if another follows.
                t.get(i).map(|&(na, _)| (b, na))
            } else {
                t.get(i).map(|&(na, _)| (from, na))
            };
        }
        if let Some(g) = self.low.first_gap_from(from) {
            return Some(g);
        }
        // Above every gap of `low`: the gap is below the tail.
        let g0 = self.low.range_of(from).map_or(from, |r| r.1);
        Some((g0, t0))
    }
}

/// Move every element of `v` one place down (the first is overwritten):
/// a few elements, moved without a call.
#[inline(always)]
fn shift_down(v: &mut [(u64, u64)]) {
    for k in 1..v.len() {
        v[k - 1] = v[k];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout (see the struct): what `is_empty` reads first, the
    /// flattened copy's state in the first 80 bytes, the treap last (its
    /// free list and priority stream, declared last, are the set's last 32
    /// bytes). A change here is a layout change to measure, not a number
    /// to update.
    #[test]
    fn the_treap_comes_last() {
        use std::mem::{offset_of, size_of};
        assert_eq!(offset_of!(RangeSet, tail_len), 0);
        assert_eq!(offset_of!(RangeSet, tail_bytes), 8);
        assert_eq!(offset_of!(RangeSet, flat), 48);
        assert_eq!(offset_of!(RangeSet, low), 232);
        assert_eq!(size_of::<Treap>(), 72);
        assert_eq!(size_of::<RangeSet>(), 304);
    }

    #[test]
    fn insert_merges_and_counts_only_new_bytes() {
        let mut s = RangeSet::new();
        assert_eq!(s.insert(10, 20), 10);
        assert_eq!(s.insert(30, 40), 10);
        assert_eq!(s.insert(15, 35), 10);
        assert_eq!(s.as_slice(), &[(10, 40)]);
        assert_eq!(s.insert(0, 5), 5);
        assert_eq!(s.insert(5, 10), 5);
        assert_eq!(s.as_slice(), &[(0, 40)]);
        assert_eq!(s.insert(0, 40), 0);
    }

    #[test]
    fn remove_below_trims_and_counts() {
        let mut s = RangeSet::new();
        s.insert(10, 20);
        s.insert(30, 40);
        assert_eq!(s.remove_below(15), 5);
        assert_eq!(s.as_slice(), &[(15, 20), (30, 40)]);
        assert_eq!(s.remove_below(35), 10);
        assert_eq!(s.as_slice(), &[(35, 40)]);
    }

    #[test]
    fn gaps_and_bytes_above() {
        let mut s = RangeSet::new();
        s.insert(20, 30);
        s.insert(40, 50);
        assert_eq!(s.first_gap_from(10), Some((10, 20)));
        assert_eq!(s.first_gap_from(25), Some((30, 40)));
        assert_eq!(s.first_gap_from(45), None);
        assert_eq!(s.bytes_above(25), 15);
        assert_eq!(s.bytes_above(0), 20);
        assert_eq!(s.count_ranges_above(20), 1);
        assert_eq!(s.count_ranges_above(19), 2);
        assert!(s.contains(20) && !s.contains(30));
    }

    /// The sorted-Vec implementation this replaced, kept as the reference.
    #[derive(Default)]
    struct Model(Vec<(u64, u64)>);
    impl Model {
        fn insert(&mut self, start: u64, end: u64) -> u64 {
            if start >= end {
                return 0;
            }
            let i = self.0.partition_point(|r| r.1 < start);
            let mut j = i;
            let mut covered = 0;
            let (mut s, mut e) = (start, end);
            while j < self.0.len() && self.0[j].0 <= end {
                let (a, b) = self.0[j];
                covered += b.min(end).saturating_sub(a.max(start));
                s = s.min(a);
                e = e.max(b);
                j += 1;
            }
            self.0.splice(i..j, std::iter::once((s, e)));
            (end - start) - covered
        }
        /// The maximal parts of `[start, end)` outside the set, in order,
        /// byte by byte.
        fn gaps(&self, start: u64, end: u64) -> Vec<(u64, u64)> {
            let mut g: Vec<(u64, u64)> = Vec::new();
            for x in start..end {
                if self.0.iter().any(|r| r.0 <= x && x < r.1) {
                    continue;
                }
                match g.last_mut() {
                    Some(l) if l.1 == x => l.1 = x + 1,
                    _ => g.push((x, x + 1)),
                }
            }
            g
        }
        fn remove_below(&mut self, seq: u64) -> u64 {
            let mut removed = 0;
            let mut k = 0;
            while k < self.0.len() && self.0[k].1 <= seq {
                removed += self.0[k].1 - self.0[k].0;
                k += 1;
            }
            self.0.drain(..k);
            if let Some(first) = self.0.first_mut() {
                if first.0 < seq {
                    removed += seq - first.0;
                    first.0 = seq;
                }
            }
            removed
        }
        fn pop_covering(&mut self, seq: u64) -> Option<u64> {
            loop {
                match self.0.first() {
                    Some(&(a, b)) if a <= seq && b > seq => {
                        self.0.remove(0);
                        return Some(b);
                    }
                    Some(&(_, b)) if b <= seq => {
                        self.0.remove(0);
                    }
                    _ => return None,
                }
            }
        }
        fn bytes_above(&self, seq: u64) -> u64 {
            let i = self.0.partition_point(|r| r.1 <= seq);
            self.0[i..].iter().map(|&(a, b)| b - a.max(seq)).sum()
        }
        fn first_gap_from(&self, from: u64) -> Option<(u64, u64)> {
            let i = self.0.partition_point(|r| r.1 <= from);
            if i >= self.0.len() {
                return None;
            }
            let (a, b) = self.0[i];
            if a > from {
                return Some((from, a));
            }
            self.0.get(i + 1).map(|&(na, _)| (b, na))
        }
    }

    /// A deterministic stream of numbers below `m` (xorshift64).
    fn xorshift(mut x: u64) -> impl FnMut(u64) -> u64 {
        move |m| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        }
    }

    /// Every query on `s` against the model, at `q`.
    fn check_queries(s: &RangeSet, m: &Model, q: u64) {
        assert_eq!(s.len(), m.0.len());
        assert_eq!(s.bytes(), m.0.iter().map(|r| r.1 - r.0).sum::<u64>());
        assert_eq!(s.bytes_above(q), m.bytes_above(q));
        assert_eq!(
            s.count_ranges_above(q),
            m.0.iter().filter(|r| r.0 > q).count()
        );
        assert_eq!(s.first_gap_from(q), m.first_gap_from(q));
        assert_eq!(
            s.range_of(q),
            m.0.iter().copied().find(|r| r.0 <= q && q < r.1)
        );
        assert_eq!(s.contains(q), m.0.iter().any(|r| r.0 <= q && q < r.1));
        assert_eq!(s.first(), m.0.first().copied());
        assert_eq!(s.last(), m.0.last().copied());
    }

    #[test]
    fn matches_the_sorted_vec_model_on_random_operations() {
        let mut rnd = xorshift(12345);
        for round in 0..200 {
            let span = 50 + 200 * (round % 5);
            let mut s = RangeSet::new();
            let mut m = Model::default();
            for _ in 0..400 {
                let op = rnd(10);
                let a = rnd(span);
                let len = 1 + rnd(20);
                match op {
                    0..=2 => assert_eq!(s.insert(a, a + len), m.insert(a, a + len)),
                    3..=5 => {
                        // Kept appending to what is there (RACK's list).
                        let mut gaps = vec![(0, 0)];
                        let want = m.gaps(a, a + len);
                        assert_eq!(s.insert_noting(a, a + len, &mut gaps), m.insert(a, a + len));
                        assert_eq!(gaps[0], (0, 0));
                        assert_eq!(&gaps[1..], &want[..], "gaps of [{a}, {})", a + len);
                    }
                    6 => assert_eq!(s.remove_below(a / 4), m.remove_below(a / 4)),
                    7 => assert_eq!(s.pop_covering(a / 4), m.pop_covering(a / 4)),
                    _ => {}
                }
                assert_eq!(s.as_slice(), &m.0[..]);
                check_queries(&s, &m, rnd(span + 30));
            }
        }
    }

    #[test]
    fn matches_the_model_with_thousands_of_ranges() {
        // Thousands of ranges, a front that advances as an ACK's does, long
        // runs that fill many holes at once; every query against the model.
        let mut rnd = xorshift(987654321);
        let mut largest = 0;
        for round in 0..8 {
            let span = 2_000 + 100_000 * (round % 4);
            let mut s = RangeSet::new();
            let mut m = Model::default();
            let mut floor = 0;
            for step in 0..8_000 {
                largest = largest.max(s.len());
                let a = floor + rnd(span);
                let len = 1 + rnd(12);
                match rnd(20) {
                    0..=15 => assert_eq!(s.insert(a, a + len), m.insert(a, a + len)),
                    16 => {
                        floor += rnd(span / 500);
                        assert_eq!(s.remove_below(floor), m.remove_below(floor));
                    }
                    17 => assert_eq!(s.pop_covering(floor), m.pop_covering(floor)),
                    _ => {
                        let b = a + rnd(span / 200);
                        assert_eq!(s.insert(a, b + 1), m.insert(a, b + 1));
                    }
                }
                if step % 97 == 0 {
                    assert_eq!(s.iter().collect::<Vec<_>>(), m.0);
                }
                check_queries(&s, &m, floor + rnd(span + 30));
                let k = rnd(m.0.len() as u64 + 2) as usize;
                assert_eq!(s.nth(k), m.0.get(k).copied());
                let mut top = Vec::new();
                s.for_last(k % 7, |a, b| top.push((a, b)));
                let want: Vec<_> = m.0.iter().rev().take(k % 7).copied().collect();
                assert_eq!(top, want);
            }
            // Empty it from the front, as a final cumulative ACK does.
            assert_eq!(s.remove_below(u64::MAX - 1), m.remove_below(u64::MAX - 1));
            assert!(s.is_empty());
        }
        assert!(largest >= 1_000, "the test reached only {largest} ranges");
    }

    /// Treap nodes visited per operation (`counts.rs`) in each phase of a
    /// workload of `n` isolated ranges: building them, filling every other
    /// hole from the front (with a query after each), filling half of the
    /// holes left in a random order, and delivering from the front.
    fn visits_per_op(n: u64) -> [f64; 4] {
        let mut phases = [0.0; 4];
        let mut s = RangeSet::new();
        let mut ops = 0u64;
        let mut mark = counts::nodes_visited();
        let mut end_phase = |k: usize, ops: &mut u64| {
            let now = counts::nodes_visited();
            phases[k] = (now - mark) as f64 / *ops as f64;
            mark = now;
            *ops = 0;
        };
        for i in 0..n {
            s.insert(2 * i + 1, 2 * i + 2);
            ops += 1;
        }
        assert_eq!(s.len(), n as usize);
        end_phase(0, &mut ops);
        for i in (0..n).step_by(2) {
            assert_eq!(s.insert(2 * i + 2, 2 * i + 3), 1);
            assert_eq!(s.bytes_above(0), s.bytes());
            assert_eq!(s.count_ranges_above(2 * i), (n - i - 1) as usize);
            ops += 3;
        }
        assert_eq!(s.len(), (n / 2) as usize);
        end_phase(1, &mut ops);
        // The ranges are [4k + 1, 4k + 4): fill the holes at 4k + 4 for
        // half of the k, in a random order.
        let mut holes: Vec<u64> = (0..n / 2 - 1).collect();
        let mut rnd = xorshift(n);
        for j in (1..holes.len()).rev() {
            holes.swap(j, rnd(j as u64 + 1) as usize);
        }
        holes.truncate(holes.len() / 2);
        for &k in &holes {
            assert_eq!(s.insert(4 * k + 4, 4 * k + 5), 1);
            ops += 1;
        }
        assert_eq!(s.len(), (n / 2) as usize - holes.len());
        end_phase(2, &mut ops);
        let mut pos = 0;
        while let Some(b) = s.pop_covering(pos + 1) {
            pos = b;
            ops += 1;
        }
        assert!(s.is_empty());
        assert_eq!(pos, 2 * n);
        end_phase(3, &mut ops);
        phases
    }

    #[test]
    fn thousands_of_holes_stay_cheap() {
        // The cost of an operation is the treap nodes it reads or writes.
        // Each time the ranges grow tenfold, a treap is on average
        // 2·ln(10) = 4.6 levels deeper, and an operation descends once or
        // twice, reading a node and its children's totals at each level:
        // some tens of visits more per tenfold, whatever n is. An O(n)
        // operation (a scan of the ranges) would add thousands.
        let sizes = [2_000u64, 20_000, 200_000];
        let at = sizes.map(visits_per_op);
        let names = ["build", "fill from the front", "fill at random", "deliver"];
        eprintln!("node visits per operation at {sizes:?}:");
        for (phase, name) in names.iter().enumerate() {
            eprintln!(
                "  {name}: {:?}",
                at.map(|a| (a[phase] * 10.0).round() / 10.0)
            );
        }
        for (phase, name) in names.iter().enumerate() {
            for k in 1..sizes.len() {
                let (lo, hi) = (at[k - 1][phase], at[k][phase]);
                assert!(
                    hi - lo <= 40.0,
                    "{name}: {lo:.1} node visits per operation at {} ranges, {hi:.1} at {}",
                    sizes[k - 1],
                    sizes[k],
                );
            }
        }
        // Even at 200 000 ranges, a few descents per operation.
        assert!(at[2].iter().all(|&v| v < 200.0), "{:?}", at[2]);
        // The treap held them (not the tail).
        counts::reset();
        visits_per_op(2_000);
        assert!(counts::largest_treap() >= 2_000 - TAIL as u64);
    }
}
