//! A set of disjoint, sorted, half-open byte ranges `[start, end)`.
//! Used by the receiver's reassembly queue, the sender's SACK scoreboard and
//! the byte ledger.
//!
//! A window of gigabytes under a few percent of loss holds thousands of
//! holes, so every operation is logarithmic in the number of ranges: the
//! ranges are the nodes of a treap (a balanced binary search tree keyed by
//! range start, kept in an arena) whose nodes carry the count and the byte
//! total of their subtree. Insertion merges touching ranges, `remove_below`
//! drops a prefix; each range is created once and freed once, so the merge
//! and removal work is amortised constant per range on top of the O(log n)
//! descent. Queries (`bytes`, `len`, `bytes_above`, `count_ranges_above`,
//! `range_of`, `first_gap_from`, `first`, `last`) are O(log n) or O(1).
//!
//! `as_slice` remains for callers that want the ranges as a slice: it is
//! built on demand by an in-order walk (O(n)) and cached until the next
//! change. Hot paths should prefer the queries above or `iter`.

use std::sync::OnceLock;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    s: u64,
    e: u64,
    l: u32,
    r: u32,
    pri: u32,
    /// Ranges in this subtree.
    cnt: u32,
    /// Bytes in this subtree.
    sum: u64,
}

#[derive(Clone)]
pub struct RangeSet {
    nodes: Vec<Node>,
    free: Vec<u32>,
    root: u32,
    /// Deterministic priority stream (the tree's shape never affects results).
    rng: u64,
    flat: OnceLock<Vec<(u64, u64)>>,
    /// Ranges known to lie inside the set (the latest ranges `insert`
    /// touched; an ACK repeats its SACK blocks, so most inserts are of
    /// blocks held already): a block inside one is no change, found
    /// without a descent. Empty ones are `(0, 0)`. Ranges only grow by
    /// merging, so they stay inside until something is removed.
    hints: [(u64, u64); HINTS],
    next_hint: usize,
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
    set: &'a RangeSet,
    stack: Vec<u32>,
}

impl Iterator for Iter<'_> {
    type Item = (u64, u64);
    fn next(&mut self) -> Option<(u64, u64)> {
        let t = self.stack.pop()?;
        let n = self.set.nodes[t as usize];
        self.set.push_left(n.r, &mut self.stack);
        Some((n.s, n.e))
    }
}

impl RangeSet {
    pub fn new() -> Self {
        RangeSet {
            nodes: Vec::new(),
            free: Vec::new(),
            root: NIL,
            rng: 0x9E37_79B9_7F4A_7C15,
            flat: OnceLock::new(),
            hints: [(0, 0); HINTS],
            next_hint: 0,
        }
    }

    // ---- arena and treap primitives ----

    #[inline]
    fn n(&self, t: u32) -> &Node {
        &self.nodes[t as usize]
    }
    #[inline]
    fn nm(&mut self, t: u32) -> &mut Node {
        &mut self.nodes[t as usize]
    }
    #[inline]
    fn cnt(&self, t: u32) -> u32 {
        if t == NIL {
            0
        } else {
            self.n(t).cnt
        }
    }
    #[inline]
    fn sum(&self, t: u32) -> u64 {
        if t == NIL {
            0
        } else {
            self.n(t).sum
        }
    }
    #[inline]
    fn upd(&mut self, t: u32) {
        let n = *self.n(t);
        let cnt = 1 + self.cnt(n.l) + self.cnt(n.r);
        let sum = (n.e - n.s) + self.sum(n.l) + self.sum(n.r);
        let m = self.nm(t);
        m.cnt = cnt;
        m.sum = sum;
    }

    fn alloc(&mut self, s: u64, e: u64) -> u32 {
        // splitmix64
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let node = Node {
            s,
            e,
            l: NIL,
            r: NIL,
            pri: z as u32,
            cnt: 1,
            sum: e - s,
        };
        if let Some(t) = self.free.pop() {
            self.nodes[t as usize] = node;
            t
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    /// Return every node of subtree `t` to the free list (recursion as
    /// deep as the tree: logarithmic).
    fn release(&mut self, t: u32) {
        if t == NIL {
            return;
        }
        let n = *self.n(t);
        self.release(n.l);
        self.release(n.r);
        self.free.push(t);
    }

    /// The node with the largest start `<= key` (or NIL), and the smallest
    /// start above `key`, in one descent.
    fn floor_and_next(&self, key: u64) -> (u32, Option<u64>) {
        let mut t = self.root;
        let (mut best, mut next) = (NIL, None);
        while t != NIL {
            let n = self.n(t);
            if n.s <= key {
                best = t;
                t = n.r;
            } else {
                next = Some(n.s);
                t = n.l;
            }
        }
        (best, next)
    }

    /// Add `added` bytes to the subtree sums on the path to the node starting at `key`.
    fn add_on_path(&mut self, key: u64, added: u64) {
        let mut t = self.root;
        while t != NIL {
            let n = self.nm(t);
            n.sum += added;
            t = match key.cmp(&n.s) {
                std::cmp::Ordering::Less => n.l,
                std::cmp::Ordering::Greater => n.r,
                std::cmp::Ordering::Equal => return,
            };
        }
    }

    /// Split `t` into (ranges starting below `key`, ranges starting at or above it).
    fn split(&mut self, t: u32, key: u64) -> (u32, u32) {
        if t == NIL {
            return (NIL, NIL);
        }
        if self.n(t).s < key {
            let (a, b) = self.split(self.n(t).r, key);
            self.nm(t).r = a;
            self.upd(t);
            (t, b)
        } else {
            let (a, b) = self.split(self.n(t).l, key);
            self.nm(t).l = b;
            self.upd(t);
            (a, t)
        }
    }

    /// Join two treaps, every range of `a` lying below every range of `b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.n(a).pri > self.n(b).pri {
            let r = self.merge(self.n(a).r, b);
            self.nm(a).r = r;
            self.upd(a);
            a
        } else {
            let l = self.merge(a, self.n(b).l);
            self.nm(b).l = l;
            self.upd(b);
            b
        }
    }

    fn min_node(&self, mut t: u32) -> u32 {
        if t == NIL {
            return NIL;
        }
        while self.n(t).l != NIL {
            t = self.n(t).l;
        }
        t
    }
    fn max_node(&self, mut t: u32) -> u32 {
        if t == NIL {
            return NIL;
        }
        while self.n(t).r != NIL {
            t = self.n(t).r;
        }
        t
    }

    /// The range with the largest start `<= key`.
    fn floor(&self, key: u64) -> Option<(u64, u64)> {
        let mut t = self.root;
        let mut best = None;
        while t != NIL {
            let n = self.n(t);
            if n.s <= key {
                best = Some((n.s, n.e));
                t = n.r;
            } else {
                t = n.l;
            }
        }
        best
    }

    /// The range with the smallest start `>= key`.
    fn ceil(&self, key: u64) -> Option<(u64, u64)> {
        let mut t = self.root;
        let mut best = None;
        while t != NIL {
            let n = self.n(t);
            if n.s >= key {
                best = Some((n.s, n.e));
                t = n.l;
            } else {
                t = n.r;
            }
        }
        best
    }

    fn push_left(&self, mut t: u32, stack: &mut Vec<u32>) {
        while t != NIL {
            stack.push(t);
            t = self.n(t).l;
        }
    }

    #[inline]
    fn changed(&mut self) {
        self.flat.take();
    }

    // ---- public API ----

    /// The ranges in order, as a slice (built and cached on first use after
    /// a change: O(n); prefer `iter` or the counting queries on hot paths).
    pub fn as_slice(&self) -> &[(u64, u64)] {
        self.flat.get_or_init(|| self.iter().collect())
    }
    /// The ranges in order.
    pub fn iter(&self) -> Iter<'_> {
        let mut stack = Vec::with_capacity(48);
        self.push_left(self.root, &mut stack);
        Iter { set: self, stack }
    }
    /// Call `f` on the last `k` ranges, highest first, without allocating
    /// (O(log n + k)).
    pub fn for_last(&self, k: usize, mut f: impl FnMut(u64, u64)) {
        fn go(set: &RangeSet, t: u32, left: &mut usize, f: &mut impl FnMut(u64, u64)) {
            if t == NIL || *left == 0 {
                return;
            }
            let n = *set.n(t);
            go(set, n.r, left, f);
            if *left == 0 {
                return;
            }
            f(n.s, n.e);
            *left -= 1;
            go(set, n.l, left, f);
        }
        let mut left = k;
        go(self, self.root, &mut left, &mut f);
    }
    pub fn is_empty(&self) -> bool {
        self.root == NIL
    }
    /// Number of disjoint ranges.
    pub fn len(&self) -> usize {
        self.cnt(self.root) as usize
    }
    pub fn clear(&mut self) {
        self.hints = [(0, 0); HINTS];
        self.nodes.clear();
        self.free.clear();
        self.root = NIL;
        self.changed();
    }
    pub fn first(&self) -> Option<(u64, u64)> {
        let t = self.min_node(self.root);
        (t != NIL).then(|| (self.n(t).s, self.n(t).e))
    }
    pub fn last(&self) -> Option<(u64, u64)> {
        let t = self.max_node(self.root);
        (t != NIL).then(|| (self.n(t).s, self.n(t).e))
    }
    /// Total bytes in the set (O(1)).
    pub fn bytes(&self) -> u64 {
        self.sum(self.root)
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
        let (added, held) = self.insert_range(start, end);
        self.hints[self.next_hint] = held;
        self.next_hint = (self.next_hint + 1) % HINTS;
        added
    }

    /// `insert`, also returning the range that now holds `[start, end)`.
    fn insert_range(&mut self, start: u64, end: u64) -> (u64, (u64, u64)) {
        self.changed();
        // Fast path: extend or append at the tail (in-order arrivals).
        let m = self.max_node(self.root);
        if m == NIL {
            self.root = self.alloc(start, end);
            return (end - start, (start, end));
        }
        let last = *self.n(m);
        if start >= last.s && start <= last.e {
            if end <= last.e {
                return (0, (last.s, last.e));
            }
            // Only the last range grows: add the growth along the right spine.
            let added = end - last.e;
            let mut t = self.root;
            while t != NIL {
                let n = self.nm(t);
                n.sum += added;
                t = n.r;
            }
            self.nm(m).e = end;
            return (added, (last.s, end));
        }
        if start > last.e {
            let node = self.alloc(start, end);
            self.root = self.merge(self.root, node);
            return (end - start, (start, end));
        }
        // Inside the set, one descent decides the common cases: a block held
        // already (an ACK repeats its SACK blocks), one that grows a range
        // without reaching the next, or one touching no range.
        let (f, next) = self.floor_and_next(start);
        let clear_above = next.is_none_or(|ns| ns > end);
        if f != NIL && self.n(f).e >= start {
            let (fs, fe) = (self.n(f).s, self.n(f).e);
            if end <= fe {
                return (0, (fs, fe));
            }
            if clear_above {
                let added = end - fe;
                self.add_on_path(fs, added);
                self.nm(f).e = end;
                return (added, (fs, end));
            }
        } else if clear_above {
            let node = self.alloc(start, end);
            let (left, right) = self.split(self.root, start);
            let l = self.merge(left, node);
            self.root = self.merge(l, right);
            return (end - start, (start, end));
        }
        // General case: merge every range touching [start, end).
        let lo = match self.floor(start) {
            Some((a, b)) if b >= start => a,
            _ => start,
        };
        let (left, rest) = self.split(self.root, lo);
        let (mid, right) = self.split(rest, end.saturating_add(1));
        let (mut s, mut e, mut covered) = (start, end, 0);
        if mid != NIL {
            let first = *self.n(self.min_node(mid));
            let last = *self.n(self.max_node(mid));
            covered = self.sum(mid);
            if first.s < start {
                covered -= start - first.s;
                s = first.s;
            }
            if last.e > end {
                covered -= last.e - end;
                e = last.e;
            }
            self.release(mid);
        }
        let node = self.alloc(s, e);
        let l = self.merge(left, node);
        self.root = self.merge(l, right);
        ((end - start) - covered, (s, e))
    }

    /// Remove everything below `seq`; returns the bytes removed.
    pub fn remove_below(&mut self, seq: u64) -> u64 {
        let m = self.min_node(self.root);
        if m == NIL || self.n(m).s >= seq {
            return 0;
        }
        self.changed();
        for h in self.hints.iter_mut() {
            h.0 = h.0.max(seq);
        }
        let (below, above) = self.split(self.root, seq);
        let last = *self.n(self.max_node(below));
        let mut removed = self.sum(below);
        self.release(below);
        self.root = above;
        if last.e > seq {
            removed -= last.e - seq;
            let node = self.alloc(seq, last.e);
            self.root = self.merge(node, self.root);
        }
        removed
    }

    fn remove_first(&mut self) {
        fn go(set: &mut RangeSet, t: u32) -> u32 {
            let l = set.n(t).l;
            if l == NIL {
                let r = set.n(t).r;
                set.free.push(t);
                return r;
            }
            let nl = go(set, l);
            set.nm(t).l = nl;
            set.upd(t);
            t
        }
        if self.root != NIL {
            self.changed();
            self.hints = [(0, 0); HINTS];
            self.root = go(self, self.root);
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
                    return Some(b);
                }
                Some((_, b)) if b <= seq => self.remove_first(),
                _ => return None,
            }
        }
    }

    pub fn contains(&self, seq: u64) -> bool {
        self.range_of(seq).is_some()
    }

    /// The range containing `seq`, if any.
    pub fn range_of(&self, seq: u64) -> Option<(u64, u64)> {
        self.floor(seq).filter(|&(_, b)| b > seq)
    }

    /// Bytes of the set at or above `seq` (O(log n)).
    pub fn bytes_above(&self, seq: u64) -> u64 {
        let mut t = self.root;
        let mut acc = 0;
        while t != NIL {
            let n = self.n(t);
            if n.s >= seq {
                acc += (n.e - n.s) + self.sum(n.r);
                t = n.l;
            } else {
                if n.e > seq {
                    // The one range straddling `seq`: nothing to its right
                    // starts below seq, so count its upper part and go right.
                    acc += n.e - seq;
                }
                t = n.r;
            }
        }
        acc
    }

    /// The `k`-th range in order, 0-based (O(log n)).
    pub fn nth(&self, k: usize) -> Option<(u64, u64)> {
        let mut t = self.root;
        let mut k = k as u32;
        while t != NIL {
            let n = self.n(t);
            let left = self.cnt(n.l);
            if k < left {
                t = n.l;
            } else if k == left {
                return Some((n.s, n.e));
            } else {
                k -= left + 1;
                t = n.r;
            }
        }
        None
    }

    /// Number of ranges starting strictly above `seq` (O(log n)): RFC 6675
    /// IsLost()'s count of SACKed blocks above a sequence number.
    pub fn count_ranges_above(&self, seq: u64) -> usize {
        let mut t = self.root;
        let mut acc = 0usize;
        while t != NIL {
            let n = self.n(t);
            if n.s > seq {
                acc += 1 + self.cnt(n.r) as usize;
                t = n.l;
            } else {
                t = n.r;
            }
        }
        acc
    }

    /// The first gap at or after `from` and below the highest range:
    /// returns `[gap_start, gap_end)`.
    pub fn first_gap_from(&self, from: u64) -> Option<(u64, u64)> {
        match self.range_of(from) {
            // `from` is inside a range: the gap is after it, if another range follows.
            Some((_, b)) => self.ceil(b).map(|(na, _)| (b, na)),
            None => self.ceil(from).map(|(na, _)| (from, na)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn matches_the_sorted_vec_model_on_random_operations() {
        let mut x: u64 = 12345;
        let mut rnd = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for round in 0..200 {
            let span = 50 + 200 * (round % 5);
            let mut s = RangeSet::new();
            let mut m = Model::default();
            for _ in 0..400 {
                let op = rnd(10);
                let a = rnd(span);
                let len = 1 + rnd(20);
                match op {
                    0..=5 => assert_eq!(s.insert(a, a + len), m.insert(a, a + len)),
                    6 => assert_eq!(s.remove_below(a / 4), m.remove_below(a / 4)),
                    7 => assert_eq!(s.pop_covering(a / 4), m.pop_covering(a / 4)),
                    _ => {}
                }
                assert_eq!(s.as_slice(), &m.0[..]);
                assert_eq!(s.len(), m.0.len());
                assert_eq!(s.bytes(), m.0.iter().map(|r| r.1 - r.0).sum::<u64>());
                let q = rnd(span + 30);
                assert_eq!(s.bytes_above(q), m.bytes_above(q));
                assert_eq!(
                    s.count_ranges_above(q),
                    m.0.iter().filter(|r| r.0 > q).count()
                );
                assert_eq!(s.first_gap_from(q), m.first_gap_from(q));
                assert_eq!(s.contains(q), m.0.iter().any(|r| r.0 <= q && q < r.1));
                assert_eq!(s.first(), m.0.first().copied());
                assert_eq!(s.last(), m.0.last().copied());
            }
        }
    }

    #[test]
    fn matches_the_model_with_thousands_of_ranges() {
        // Thousands of ranges, a front that advances as an ACK's does, long
        // runs that fill many holes at once; every query against the model.
        let mut x: u64 = 987654321;
        let mut rnd = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
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
                assert_eq!(s.len(), m.0.len());
                assert_eq!(s.bytes(), m.0.iter().map(|r| r.1 - r.0).sum::<u64>());
                let q = floor + rnd(span + 30);
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
                assert_eq!(s.first(), m.0.first().copied());
                assert_eq!(s.last(), m.0.last().copied());
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

    #[test]
    fn thousands_of_holes_stay_cheap() {
        // 200 000 isolated ranges, then fill every hole from the front: with
        // per-operation work linear in the ranges this would take minutes.
        let mut s = RangeSet::new();
        let n = 200_000u64;
        for i in 0..n {
            s.insert(2 * i + 1, 2 * i + 2);
        }
        assert_eq!(s.len(), n as usize);
        for i in (0..n).step_by(2) {
            assert_eq!(s.insert(2 * i + 2, 2 * i + 3), 1);
            assert_eq!(s.bytes_above(0), s.bytes());
            assert!(s.count_ranges_above(2 * i) <= s.len());
        }
        assert_eq!(s.len(), (n / 2) as usize);
        let mut pos = 0;
        while let Some(b) = s.pop_covering(pos + 1) {
            pos = b;
        }
        assert!(s.is_empty());
        assert_eq!(pos, 2 * n);
    }
}
