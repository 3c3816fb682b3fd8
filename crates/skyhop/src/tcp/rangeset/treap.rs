//! The ranges of a `RangeSet` below its tail: a treap (a balanced binary
//! search tree keyed by range start, kept in an arena) whose nodes carry
//! the count and the byte total of their subtree, so that every query and
//! change is O(log n) in the ranges. Insertion merges touching ranges,
//! `remove_below` drops a prefix; each range is created once and freed
//! once, so the merge and removal work is amortised constant per range on
//! top of the descent.

use super::counts;

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

/// The ranges below the tail, in a treap. Laid out in the order written
/// (`repr(C)`): the root's totals, which `RangeSet::bytes` reads on every
/// ACK, first.
#[derive(Clone)]
#[repr(C)]
pub(super) struct Treap {
    /// The root's byte total and range count, kept beside it: `bytes()` is
    /// read on every ACK, and the root's node is seldom in the cache then.
    total: u64,
    count: u32,
    root: u32,
    nodes: Vec<Node>,
    free: Vec<u32>,
    /// Deterministic priority stream (the tree's shape never affects results).
    rng: u64,
}

/// In-order iterator over a treap's ranges.
pub(super) struct TreapIter<'a> {
    set: &'a Treap,
    stack: Vec<u32>,
}

impl Iterator for TreapIter<'_> {
    type Item = (u64, u64);
    fn next(&mut self) -> Option<(u64, u64)> {
        let t = self.stack.pop()?;
        let n = *self.set.n(t);
        self.set.push_left(n.r, &mut self.stack);
        Some((n.s, n.e))
    }
}

impl Treap {
    pub(super) fn new() -> Self {
        Treap {
            nodes: Vec::new(),
            free: Vec::new(),
            root: NIL,
            total: 0,
            count: 0,
            rng: 0x9E37_79B9_7F4A_7C15,
        }
    }

    // ---- arena and treap primitives ----

    /// Read the root's totals again after a change.
    #[inline]
    fn refresh(&mut self) {
        self.total = self.sum(self.root);
        self.count = self.cnt(self.root);
        counts::holding(self.count);
    }

    /// Node `t` (every read of a node goes through here or `nm`: the
    /// count of visits `counts` keeps in tests).
    #[inline]
    fn n(&self, t: u32) -> &Node {
        counts::visit();
        &self.nodes[t as usize]
    }
    #[inline]
    fn nm(&mut self, t: u32) -> &mut Node {
        counts::visit();
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

    /// The node with the largest start `<= key` and the node with the
    /// smallest start above it (each NIL if none), in one descent.
    fn floor_and_next(&self, key: u64) -> (u32, u32) {
        let mut t = self.root;
        let (mut best, mut next) = (NIL, NIL);
        while t != NIL {
            let n = self.n(t);
            if n.s <= key {
                best = t;
                t = n.r;
            } else {
                next = t;
                t = n.l;
            }
        }
        (best, next)
    }

    /// Take node `x` out of the tree: the counts and sums on the path to it
    /// lose it, and the merge of its children takes its place.
    fn remove_node(&mut self, x: u32) {
        let Node { s: key, e, .. } = *self.n(x);
        let (mut parent, mut t) = (NIL, self.root);
        while t != x {
            let n = self.nm(t);
            n.cnt -= 1;
            n.sum -= e - key;
            parent = t;
            t = if key < n.s { n.l } else { n.r };
        }
        let (l, r) = (self.n(x).l, self.n(x).r);
        let joined = self.merge(l, r);
        if parent == NIL {
            self.root = joined;
        } else if key < self.n(parent).s {
            self.nm(parent).l = joined;
        } else {
            self.nm(parent).r = joined;
        }
        self.free.push(x);
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

    // ---- the treap's operations ----

    /// The ranges in order.
    pub(super) fn iter(&self) -> TreapIter<'_> {
        let mut stack = Vec::with_capacity(48);
        self.push_left(self.root, &mut stack);
        TreapIter { set: self, stack }
    }
    /// Call `f` on the last `k` ranges, highest first, without allocating
    /// (O(log n + k)).
    pub(super) fn for_last(&self, k: usize, mut f: impl FnMut(u64, u64)) {
        fn go(set: &Treap, t: u32, left: &mut usize, f: &mut impl FnMut(u64, u64)) {
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
    /// Number of disjoint ranges.
    pub(super) fn is_empty(&self) -> bool {
        self.root == NIL
    }
    /// Add `[start, end)` above every range (and not touching the highest).
    pub(super) fn append(&mut self, start: u64, end: u64) {
        debug_assert!(self.last().is_none_or(|(_, e)| start > e));
        let node = self.alloc(start, end);
        self.root = self.merge(self.root, node);
        self.refresh();
    }
    pub(super) fn len(&self) -> usize {
        self.count as usize
    }
    pub(super) fn clear(&mut self) {
        self.nodes.clear();
        self.free.clear();
        self.root = NIL;
        self.refresh();
    }
    pub(super) fn first(&self) -> Option<(u64, u64)> {
        let t = self.min_node(self.root);
        (t != NIL).then(|| (self.n(t).s, self.n(t).e))
    }
    pub(super) fn last(&self) -> Option<(u64, u64)> {
        let t = self.max_node(self.root);
        (t != NIL).then(|| (self.n(t).s, self.n(t).e))
    }
    /// Total bytes in the set (O(1)).
    pub(super) fn bytes(&self) -> u64 {
        debug_assert_eq!(self.total, self.sum(self.root));
        self.total
    }

    /// Insert `[start, end)` (not empty); returns how many bytes were not
    /// in the set before, and the range that now holds `[start, end)`.
    /// (Ranges at the top are the tail's business: here one descent serves
    /// every case.)
    pub(super) fn insert(&mut self, start: u64, end: u64) -> (u64, (u64, u64)) {
        let r = self.insert_tree(start, end);
        self.refresh();
        r
    }

    fn insert_tree(&mut self, start: u64, end: u64) -> (u64, (u64, u64)) {
        // Inside the set, one descent decides the common cases: a block held
        // already (an ACK repeats its SACK blocks), one that grows a range
        // without reaching the next, one that fills the gap to the next (a
        // repaired hole), or one touching no range.
        let (f, nx) = self.floor_and_next(start);
        let next = (nx != NIL).then(|| self.n(nx).s);
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
            let (ns, ne) = (self.n(nx).s, self.n(nx).e);
            if end <= ne {
                // It fills the gap between two neighbours and reaches no
                // further (ranges never touch: the one after `nx` starts
                // above `ne`): `f` takes `nx`'s end, `nx` goes.
                self.remove_node(nx);
                self.add_on_path(fs, ne - fe);
                self.nm(f).e = ne;
                return (ns - fe, (fs, ne));
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
    pub(super) fn remove_below(&mut self, seq: u64) -> u64 {
        let r = self.remove_below_tree(seq);
        self.refresh();
        r
    }

    fn remove_below_tree(&mut self, seq: u64) -> u64 {
        let m = self.min_node(self.root);
        if m == NIL || self.n(m).s >= seq {
            return 0;
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

    pub(super) fn remove_first(&mut self) {
        fn go(set: &mut Treap, t: u32) -> u32 {
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
            self.root = go(self, self.root);
        }
        self.refresh();
    }

    /// Remove and return the highest range.
    pub(super) fn pop_last(&mut self) -> Option<(u64, u64)> {
        let (s, e) = self.last()?;
        let (below, top) = self.split(self.root, s);
        self.release(top);
        self.root = below;
        self.refresh();
        Some((s, e))
    }

    /// The range containing `seq`, if any.
    pub(super) fn range_of(&self, seq: u64) -> Option<(u64, u64)> {
        self.floor(seq).filter(|&(_, b)| b > seq)
    }

    /// Bytes of the set at or above `seq` (O(log n)).
    pub(super) fn bytes_above(&self, seq: u64) -> u64 {
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
    pub(super) fn nth(&self, k: usize) -> Option<(u64, u64)> {
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
    pub(super) fn count_ranges_above(&self, seq: u64) -> usize {
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
    pub(super) fn first_gap_from(&self, from: u64) -> Option<(u64, u64)> {
        match self.range_of(from) {
            // `from` is inside a range: the gap is after it, if another range follows.
            Some((_, b)) => self.ceil(b).map(|(na, _)| (b, na)),
            None => self.ceil(from).map(|(na, _)| (from, na)),
        }
    }
}
