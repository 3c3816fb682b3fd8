//! The event queue: a binary min-heap ordered by (time, insertion sequence), so
//! events at the same instant run in the order they were scheduled. Popping
//! asserts that time never runs backwards.
//!
//! Beside it, keyed timers: at most one pending event per key (a
//! connection's sender timer, its receiver's delayed-ACK timer), replaced
//! in place when the key is set again.
//! A timer moved earlier would otherwise leave its former event behind, to
//! be popped later and ignored (a paced sender moves its timer earlier on
//! most transmissions, and thousands of such leftovers made the heap deep).
//! The timers sit in a winner tree over the keys (a tournament: each inner
//! node holds the key of the earlier of its two children), so setting,
//! moving or popping one is a fixed walk from its leaf to the root with one
//! comparison per level and no entries moved; a paced sender pops and sets
//! its timer once per transmission. The heap and the tree share the
//! sequence counter and pop in one (time, sequence) order.

use super::time::Time;

/// A heap entry: the key packs (time, sequence) into one integer, so an
/// ordering step is a single 128-bit comparison; keys are unique.
#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    ev: E,
}

#[inline(always)]
fn key(at: Time, seq: u64) -> u128 {
    ((at.0 as u128) << 64) | seq as u128
}

/// The key of a timer with no pending event (above every real key: times
/// are below `Time::MAX`'s 2⁶⁴ − 1 or the sequence is).
const VACANT: u128 = u128::MAX;

/// Children per node. A 4-ary heap executes fewer instructions on small
/// heaps but was slower on the 100-flow dumbbell bench; 2 was the faster on both.
const ARITY: usize = 2;

/// Bits of a winner-tree node that name its timer (the low ones, below
/// the sequence number): a node is one 16-byte integer, (time, sequence,
/// timer), ordered as (time, sequence) since sequence numbers are unique.
const ID_BITS: u32 = 24;
const ID_MASK: u128 = (1 << ID_BITS) - 1;

/// A heap key (time, sequence) and timer `k` packed into a tree node.
#[inline(always)]
fn pack(key: u128, k: usize) -> u128 {
    let seq = key as u64;
    assert!(
        seq < 1 << (64 - ID_BITS),
        "more than 2^40 events scheduled in one run"
    );
    ((key >> 64) << 64) | ((seq as u128) << ID_BITS) | k as u128
}

/// A tree node's (time, sequence) key, as the heap's keys are.
#[inline(always)]
fn unpack(node: u128) -> u128 {
    ((node >> 64) << 64) | ((node as u64) >> ID_BITS) as u128
}

/// The keyed timers: a winner tree over `cap` leaves (a power of two of at
/// least 2, or 0). Node `cap + k` is timer `k`: its packed key (`VACANT`:
/// none pending); inner node `i` (`1 <= i < cap`, children `2i` and
/// `2i + 1`) holds the smallest packed key below it, which names its timer.
/// A match whose result did not change leaves every match above it as it
/// was, so a replay stops there. Siblings are stored side by side
/// (`pairs[i]` holds nodes `2i` and `2i + 1`, the root is `pairs[0][1]`),
/// so a match reads its two players with one load.
struct Timers<E> {
    cap: usize,
    pairs: Vec<[u128; 2]>,
    evs: Vec<Option<E>>,
    pending: usize,
}

impl<E: Copy> Timers<E> {
    fn new() -> Self {
        Timers {
            cap: 0,
            pairs: Vec::new(),
            evs: Vec::new(),
            pending: 0,
        }
    }

    /// Node `i` of the tree.
    #[inline(always)]
    fn node(&self, i: usize) -> u128 {
        self.pairs[i / 2][i % 2]
    }

    /// Set leaf `k`'s node and replay the matches above it.
    #[inline(always)]
    fn replay(&mut self, k: usize, node: u128) {
        let mut i = self.cap + k;
        self.pairs[i / 2][i % 2] = node;
        i /= 2;
        while i >= 1 {
            let [a, b] = self.pairs[i];
            let w = a.min(b);
            let up = &mut self.pairs[i / 2][i % 2];
            if *up == w {
                break;
            }
            *up = w;
            i /= 2;
        }
    }

    /// Room for timer `k`: the tree doubles and is rebuilt (rare).
    fn grow(&mut self, k: usize) {
        assert!(k < 1 << ID_BITS, "more than 2^24 keyed timers");
        let cap = (k + 1).next_power_of_two().max(2);
        let mut nodes = vec![VACANT; 2 * cap];
        for (j, n) in nodes[cap..].iter_mut().enumerate() {
            if j < self.cap {
                *n = self.node(self.cap + j);
            }
        }
        for i in (1..cap).rev() {
            nodes[i] = nodes[2 * i].min(nodes[2 * i + 1]);
        }
        self.pairs = nodes.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
        self.evs.resize(cap, None);
        self.cap = cap;
    }

    #[inline]
    fn set(&mut self, k: usize, e: Entry<E>) {
        if k >= self.cap {
            self.grow(k);
        }
        if self.node(self.cap + k) == VACANT {
            self.pending += 1;
        }
        self.evs[k] = Some(e.ev);
        self.replay(k, pack(e.key, k));
    }

    /// Remove and return the earliest timer's event (one must be pending).
    #[inline]
    fn pop(&mut self) -> Entry<E> {
        let node = self.node(1);
        let k = (node & ID_MASK) as usize;
        let e = Entry {
            key: unpack(node),
            ev: self.evs[k].take().expect("a pending timer's event"),
        };
        self.pending -= 1;
        self.replay(k, VACANT);
        e
    }

    #[inline(always)]
    fn first_key(&self) -> Option<u128> {
        (self.pending > 0).then(|| unpack(self.node(1)))
    }

    /// The earliest timer's event (one must be pending).
    #[inline(always)]
    fn first_ev(&self) -> Option<&E> {
        self.evs[(self.node(1) & ID_MASK) as usize].as_ref()
    }
}

pub struct EventQueue<E: Copy> {
    heap: Vec<Entry<E>>,
    /// The keyed timers.
    timers: Timers<E>,
    seq: u64,
    now: Time,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: Vec::with_capacity(1024),
            timers: Timers::new(),
            seq: 0,
            now: Time::ZERO,
            popped: 0,
        }
    }

    /// The time of the last popped event.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events popped so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.timers.pending
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.timers.pending == 0
    }

    /// Schedule `ev` at `at` (never in the past).
    #[inline(always)]
    pub fn push(&mut self, at: Time, ev: E) {
        assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        self.seq += 1;
        self.insert(Entry {
            key: key(at, self.seq),
            ev,
        });
    }

    /// Reserve the next insertion sequence number, for an event that will be
    /// pushed later with [`push_seq`](Self::push_seq) (used by per-link FIFOs:
    /// only a link's head arrival sits in the heap, keeping its place in the
    /// global (time, sequence) order).
    #[inline(always)]
    pub fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// The last insertion sequence number handed out (for components that
    /// take numbers through a record of their own, e.g. `net::LinkIo`).
    #[inline(always)]
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Hand the counter back after a component took numbers from a copy.
    #[inline(always)]
    pub fn set_seq(&mut self, seq: u64) {
        debug_assert!(seq >= self.seq, "sequence numbers never go back");
        self.seq = seq;
    }

    /// Schedule `ev` at `at` with a sequence number from [`next_seq`](Self::next_seq).
    #[inline(always)]
    pub fn push_seq(&mut self, at: Time, seq: u64, ev: E) {
        assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        self.insert(Entry {
            key: key(at, seq),
            ev,
        });
    }

    /// Schedule `ev` at `at` as the one pending event of timer `id`,
    /// replacing the one it had (which will not be popped).
    #[inline]
    pub fn set_timer(&mut self, id: u32, at: Time, ev: E) {
        assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        self.seq += 1;
        let e = Entry {
            key: key(at, self.seq),
            ev,
        };
        self.timers.set(id as usize, e);
    }

    /// Time of the next event, if any.
    #[inline(always)]
    pub fn peek_time(&self) -> Option<Time> {
        let k = match (self.heap.first(), self.timers.first_key()) {
            (Some(a), Some(b)) => a.key.min(b),
            (Some(a), None) => a.key,
            (None, Some(b)) => b,
            (None, None) => return None,
        };
        Some(Time((k >> 64) as u64))
    }

    /// The event [`pop`](Self::pop) would return next, left in place (for
    /// bringing in what it will read while the current event runs).
    #[inline(always)]
    pub fn peek(&self) -> Option<&E> {
        match (self.heap.first(), self.timers.first_key()) {
            (Some(a), Some(b)) if b < a.key => self.timers.first_ev(),
            (None, Some(_)) => self.timers.first_ev(),
            (Some(a), _) => Some(&a.ev),
            (None, None) => None,
        }
    }

    /// A hint: the one-off event due after the one [`pop`](Self::pop)
    /// would return, as far as the heap shows it (a timer, or what the
    /// next event schedules, may come between).
    #[inline(always)]
    pub fn peek_after_next(&self) -> Option<&E> {
        let h = &self.heap;
        if let (Some(a), Some(b)) = (h.first(), self.timers.first_key()) {
            if b < a.key {
                return Some(&a.ev);
            }
        }
        match h.len() {
            0 | 1 => None,
            2 => Some(&h[1].ev),
            _ => Some(if h[2].key < h[1].key {
                &h[2].ev
            } else {
                &h[1].ev
            }),
        }
    }

    /// Pop the earliest event and advance `now` to its time.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let top = match (self.heap.first(), self.timers.first_key()) {
            (Some(a), Some(b)) if b < a.key => self.timers.pop(),
            (None, Some(_)) => self.timers.pop(),
            (Some(&top), _) => {
                let last = self.heap.pop().unwrap();
                if !self.heap.is_empty() {
                    self.sift_down(last);
                }
                top
            }
            (None, None) => return None,
        };
        let at = Time((top.key >> 64) as u64);
        assert!(at >= self.now, "time ran backwards");
        self.now = at;
        self.popped += 1;
        Some((at, top.ev))
    }

    #[inline(always)]
    fn insert(&mut self, e: Entry<E>) {
        self.heap.push(e);
        self.sift_up(self.heap.len() - 1, e);
    }

    /// Put `e` in the empty place `i` (below the heap's length), moving it
    /// up past every parent due after it.
    #[inline(always)]
    fn sift_up(&mut self, mut i: usize, e: Entry<E>) {
        let h = &mut self.heap[..];
        assert!(i < h.len());
        while i > 0 {
            let p = (i - 1) / ARITY;
            // SAFETY: p < i < h.len().
            unsafe {
                if h.get_unchecked(p).key <= e.key {
                    break;
                }
                *h.get_unchecked_mut(i) = *h.get_unchecked(p);
            }
            i = p;
        }
        // SAFETY: i is the place given or a parent of it.
        unsafe { *h.get_unchecked_mut(i) = e };
    }

    /// Put `e` (the former last entry) in the root's place, bottom-up: the
    /// empty place moves down along the smaller children to a leaf (one
    /// comparison a level, between the two children), and `e` rises from
    /// there to where it belongs. A heap's last entry is seldom due before
    /// much else, so it rises a level or two, where sifting it down from
    /// the root compares it with a child at every level on the way. Keys
    /// are unique, so the pop order is the same either way.
    #[inline(always)]
    fn sift_down(&mut self, e: Entry<E>) {
        const {
            assert!(
                ARITY == 2,
                "the bottom-up walk is written for a binary heap"
            )
        };
        let h = &mut self.heap[..];
        let n = h.len();
        let mut i = 0;
        // The walk's indices are all below `n` (`i` is 0 or a child found
        // below `n`; `c` and `c + 1` are tested against it): it reads and
        // writes without bounds checks, which were a third of its
        // instructions.
        loop {
            let c = ARITY * i + 1;
            // The smaller child, chosen without a branch (which way the
            // keys go is a coin toss the predictor loses half the time).
            let m = if c + 1 < n {
                // SAFETY: c < c + 1 < n.
                c + usize::from(unsafe { h.get_unchecked(c + 1).key < h.get_unchecked(c).key })
            } else if c < n {
                c
            } else {
                break;
            };
            // SAFETY: i < m < n.
            unsafe { *h.get_unchecked_mut(i) = *h.get_unchecked(m) };
            i = m;
        }
        self.sift_up(i, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn events_pop_in_time_order_and_ties_in_insertion_order() {
        let mut q = EventQueue::new();
        q.push(Time(20), "c");
        q.push(Time(10), "a");
        q.push(Time(10), "b");
        q.push(Time(5), "first");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!["first", "a", "b", "c"]);
        assert_eq!(q.now(), Time(20));
    }
    #[test]
    fn a_timer_set_again_replaces_its_event_and_keeps_the_common_order() {
        let mut q = EventQueue::new();
        q.push(Time(10), "a");
        q.set_timer(3, Time(30), "t3 late");
        q.set_timer(1, Time(10), "t1");
        q.set_timer(3, Time(10), "t3");
        q.push(Time(10), "b");
        q.set_timer(2, Time(5), "t2 early");
        q.set_timer(2, Time(40), "t2");
        assert_eq!(q.len(), 5);
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!["a", "t1", "t3", "b", "t2"]);
        q.set_timer(1, Time(50), "again");
        assert_eq!(q.pop(), Some((Time(50), "again")));
        assert!(q.is_empty());
    }
    #[test]
    fn timers_and_events_pop_as_a_naive_queue_would() {
        // Random pushes, timer sets (earlier, later, new keys, growing the
        // tree) and pops against a list searched for its minimum.
        let mut rng = crate::engine::rng::RngStream::derive(3, "queue");
        let mut q = EventQueue::new();
        let mut naive: Vec<(u64, u64, Option<u32>, u32)> = Vec::new();
        let (mut seq, mut now, mut tag) = (0u64, 0u64, 0u32);
        for _ in 0..20_000 {
            let x = rng.uniform();
            let at = now + (rng.uniform() * 50.0) as u64;
            tag += 1;
            if x < 0.3 {
                q.push(Time(at), tag);
                seq += 1;
                naive.push((at, seq, None, tag));
            } else if x < 0.65 {
                let id = (rng.uniform() * 300.0) as u32;
                q.set_timer(id, Time(at), tag);
                seq += 1;
                naive.retain(|e| e.2 != Some(id));
                naive.push((at, seq, Some(id), tag));
            } else if let Some(i) = (0..naive.len()).min_by_key(|&i| (naive[i].0, naive[i].1)) {
                let e = naive.remove(i);
                now = e.0;
                assert_eq!(q.pop(), Some((Time(e.0), e.3)));
            }
            assert_eq!(q.len(), naive.len());
        }
    }

    #[test]
    fn reserved_sequence_numbers_keep_their_place_in_a_deep_heap() {
        // Pushes with fresh numbers, numbers reserved earlier and pushed
        // later (`next_seq` + `push_seq`, as a link's head arrival), numbers
        // taken through a copy and handed back (`seq` + `set_seq`), timers,
        // and pops, against a sorted reference; the heap grows to thousands
        // of entries (a dozen levels), drains to empty and grows again.
        let mut rng = crate::engine::rng::RngStream::derive(7, "queue deep");
        let mut q = EventQueue::new();
        // (time, seq, timer, tag), kept sorted by (time, seq).
        type Naive = Vec<(u64, u64, Option<u32>, u32)>;
        fn add(naive: &mut Naive, e: (u64, u64, Option<u32>, u32)) {
            let i = naive.partition_point(|x| (x.0, x.1) < (e.0, e.1));
            naive.insert(i, e);
        }
        let mut naive: Naive = Vec::new();
        let mut reserved: Vec<u64> = Vec::new();
        let (mut now, mut tag, mut peak, mut emptied) = (0u64, 0u32, 0usize, 0);
        for round in 0..60_000u32 {
            // Fill for 6 000 steps, drain for 4 000, and so on, so the heap
            // is often deep and now and then empty.
            let filling = round % 10_000 < 6_000;
            let x = rng.uniform();
            let at = now + (rng.uniform() * 200.0) as u64 % 40;
            tag += 1;
            if filling && x < 0.35 {
                q.push(Time(at), tag);
                add(&mut naive, (at, q.seq(), None, tag));
            } else if filling && x < 0.45 {
                reserved.push(q.next_seq());
            } else if filling && x < 0.6 && !reserved.is_empty() {
                let seq = reserved.swap_remove((rng.uniform() * reserved.len() as f64) as usize);
                q.push_seq(Time(at), seq, tag);
                add(&mut naive, (at, seq, None, tag));
            } else if filling && x < 0.65 {
                // A component takes three numbers from a copy of the
                // counter, schedules the second, and hands the counter back.
                let mut seq = q.seq();
                seq += 2;
                q.push_seq(Time(at), seq, tag);
                add(&mut naive, (at, seq, None, tag));
                q.set_seq(seq + 1);
            } else if filling && x < 0.75 {
                let id = (rng.uniform() * 40.0) as u32;
                q.set_timer(id, Time(at), tag);
                naive.retain(|e| e.2 != Some(id));
                add(&mut naive, (at, q.seq(), Some(id), tag));
            } else if filling && x < 0.85 {
                q.push(Time(at), tag);
                add(&mut naive, (at, q.seq(), None, tag));
            } else if !naive.is_empty() {
                let e = naive.remove(0);
                assert_eq!(q.peek_time(), Some(Time(e.0)));
                assert_eq!(q.peek(), Some(&e.3));
                now = e.0;
                assert_eq!(q.pop(), Some((Time(e.0), e.3)));
            } else {
                assert_eq!(q.pop(), None);
                assert!(q.is_empty());
                emptied += 1;
            }
            assert_eq!(q.len(), naive.len());
            peak = peak.max(naive.len());
        }
        assert!(peak > 2000, "the heap was only {peak} deep");
        assert!(emptied > 100, "the heap was emptied {emptied} times");
    }

    #[test]
    fn every_small_heap_drains_in_order() {
        // Each size up to three levels of four, the keys in every rotation
        // of a fixed shuffle, ties in time broken by the sequence number:
        // the last group's unused slots never take part.
        let keys = [
            5u64, 1, 4, 1, 3, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6,
        ];
        for n in 0..=keys.len() {
            for r in 0..n.max(1) {
                let mut q = EventQueue::new();
                let mut want = Vec::new();
                for j in 0..n {
                    let t = keys[(j + r) % n];
                    q.push(Time(t), j);
                    want.push((t, j));
                }
                want.sort();
                let got: Vec<_> = std::iter::from_fn(|| q.pop().map(|(t, j)| (t.0, j))).collect();
                assert_eq!(got, want, "{n} entries, rotation {r}");
            }
        }
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn scheduling_in_the_past_is_refused() {
        let mut q = EventQueue::new();
        q.push(Time(10), 1);
        q.pop();
        q.push(Time(5), 2);
    }
}
