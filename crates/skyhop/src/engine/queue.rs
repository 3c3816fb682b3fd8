//! The event queue: a binary min-heap ordered by (time, insertion sequence), so
//! events at the same instant run in the order they were scheduled. Popping
//! asserts that time never runs backwards.

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

/// Children per node. A 4-ary heap executes fewer instructions on small
/// heaps but was slower on the 100-flow dumbbell bench; 2 was the faster on both.
const ARITY: usize = 2;

pub struct EventQueue<E: Copy> {
    heap: Vec<Entry<E>>,
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
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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

    /// Time of the next event, if any.
    #[inline(always)]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.first().map(|e| Time((e.key >> 64) as u64))
    }

    /// Pop the earliest event and advance `now` to its time.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().unwrap();
        if !self.heap.is_empty() {
            self.sift_down(last);
        }
        let at = Time((top.key >> 64) as u64);
        assert!(at >= self.now, "time ran backwards");
        self.now = at;
        self.popped += 1;
        Some((at, top.ev))
    }

    #[inline(always)]
    fn insert(&mut self, e: Entry<E>) {
        let h = &mut self.heap;
        h.push(e);
        let mut i = h.len() - 1;
        while i > 0 {
            let p = (i - 1) / ARITY;
            if h[p].key <= e.key {
                break;
            }
            h[i] = h[p];
            i = p;
        }
        h[i] = e;
    }

    /// Put `e` (the former last entry) in the root's place and sift it down.
    #[inline(always)]
    fn sift_down(&mut self, e: Entry<E>) {
        let h = &mut self.heap;
        let n = h.len();
        let mut i = 0;
        loop {
            let c = ARITY * i + 1;
            if c >= n {
                break;
            }
            let mut m = c;
            let end = (c + ARITY).min(n);
            for j in c + 1..end {
                if h[j].key < h[m].key {
                    m = j;
                }
            }
            if h[m].key >= e.key {
                break;
            }
            h[i] = h[m];
            i = m;
        }
        h[i] = e;
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
    #[should_panic(expected = "in the past")]
    fn scheduling_in_the_past_is_refused() {
        let mut q = EventQueue::new();
        q.push(Time(10), 1);
        q.pop();
        q.push(Time(5), 2);
    }
}
