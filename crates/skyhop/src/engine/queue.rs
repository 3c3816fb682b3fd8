//! The event queue: a binary heap ordered by (time, insertion sequence), so
//! events at the same instant run in the order they were scheduled. Popping
//! asserts that time never runs backwards.

use super::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    at: Time,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap; we want the earliest first.
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Time,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
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
        self.heap.push(Entry {
            at,
            seq: self.seq,
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
        self.heap.push(Entry { at, seq, ev });
    }

    /// Time of the next event, if any.
    #[inline(always)]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.at)
    }

    /// Pop the earliest event and advance `now` to its time.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        assert!(e.at >= self.now, "time ran backwards");
        self.now = e.at;
        self.popped += 1;
        Some((e.at, e.ev))
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
