//! The event queue: a binary min-heap ordered by (time, insertion sequence), so
//! events at the same instant run in the order they were scheduled. Popping
//! asserts that time never runs backwards.
//!
//! Beside it, keyed timers: at most one pending event per key (a
//! connection's sender timer), replaced in place when the key is set again.
//! A timer moved earlier would otherwise leave its former event behind, to
//! be popped later and ignored (a paced sender moves its timer earlier on
//! most transmissions, and thousands of such leftovers made the heap deep).
//! Both heaps share the sequence counter and pop in one (time, sequence)
//! order.

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

/// `EventQueue::pos` of a timer with no pending event.
const NONE: u32 = u32::MAX;

/// Children per node. A 4-ary heap executes fewer instructions on small
/// heaps but was slower on the 100-flow dumbbell bench; 2 was the faster on both.
const ARITY: usize = 2;

pub struct EventQueue<E: Copy> {
    heap: Vec<Entry<E>>,
    /// The keyed timers' heap, and each key's position in it (`NONE`: none pending).
    timers: Vec<(Entry<E>, u32)>,
    pos: Vec<u32>,
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
            timers: Vec::new(),
            pos: Vec::new(),
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
        self.heap.len() + self.timers.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.timers.is_empty()
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
        let k = id as usize;
        if k >= self.pos.len() {
            self.pos.resize(k + 1, NONE);
        }
        let p = self.pos[k];
        if p == NONE {
            self.timers.push((e, id));
            self.timer_up(self.timers.len() - 1, (e, id));
        } else if e.key < self.timers[p as usize].0.key {
            self.timer_up(p as usize, (e, id));
        } else {
            self.timer_down(p as usize, (e, id));
        }
    }

    /// Time of the next event, if any.
    #[inline(always)]
    pub fn peek_time(&self) -> Option<Time> {
        let k = match (self.heap.first(), self.timers.first()) {
            (Some(a), Some(b)) => a.key.min(b.0.key),
            (Some(a), None) => a.key,
            (None, Some(b)) => b.0.key,
            (None, None) => return None,
        };
        Some(Time((k >> 64) as u64))
    }

    /// Pop the earliest event and advance `now` to its time.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let top = match (self.heap.first(), self.timers.first()) {
            (Some(a), Some(b)) if b.0.key < a.key => self.pop_timer(),
            (None, Some(_)) => self.pop_timer(),
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

    fn pop_timer(&mut self) -> Entry<E> {
        let (top, id) = self.timers[0];
        self.pos[id as usize] = NONE;
        let last = self.timers.pop().unwrap();
        if !self.timers.is_empty() {
            self.timer_down(0, last);
        }
        top
    }

    /// Place `e` at position `i` of the timers' heap or above it.
    fn timer_up(&mut self, mut i: usize, e: (Entry<E>, u32)) {
        while i > 0 {
            let p = (i - 1) / 2;
            if self.timers[p].0.key <= e.0.key {
                break;
            }
            self.timers[i] = self.timers[p];
            self.pos[self.timers[i].1 as usize] = i as u32;
            i = p;
        }
        self.timers[i] = e;
        self.pos[e.1 as usize] = i as u32;
    }

    /// Place `e` at position `i` of the timers' heap or below it.
    fn timer_down(&mut self, mut i: usize, e: (Entry<E>, u32)) {
        let n = self.timers.len();
        loop {
            let c = 2 * i + 1;
            if c >= n {
                break;
            }
            let m = if c + 1 < n && self.timers[c + 1].0.key < self.timers[c].0.key {
                c + 1
            } else {
                c
            };
            if self.timers[m].0.key >= e.0.key {
                break;
            }
            self.timers[i] = self.timers[m];
            self.pos[self.timers[i].1 as usize] = i as u32;
            i = m;
        }
        self.timers[i] = e;
        self.pos[e.1 as usize] = i as u32;
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
    #[should_panic(expected = "in the past")]
    fn scheduling_in_the_past_is_refused() {
        let mut q = EventQueue::new();
        q.push(Time(10), 1);
        q.pop();
        q.push(Time(5), 2);
    }
}
