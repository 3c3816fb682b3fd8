//! The range sets' work, counted: every read or write of a treap node, and
//! the most ranges a treap has held, per thread. Tests use them to check
//! that an operation costs O(log n) node visits — a deterministic count,
//! where wall time is neither repeatable nor able to tell O(log n) from
//! O(n) on a busy machine.
//!
//! Compiled in the crate's own tests and with the `op-counts` feature (the
//! engine's integration tests that measure a whole run:
//! `cargo test --features op-counts --test engine holes`); in every other
//! build `visit` and `holding` are empty and the counters do not exist.

#[cfg(any(test, feature = "op-counts"))]
use std::cell::Cell;

#[cfg(any(test, feature = "op-counts"))]
thread_local! {
    static NODES: Cell<u64> = const { Cell::new(0) };
    static LARGEST: Cell<u64> = const { Cell::new(0) };
}

/// A treap node is read or written.
#[inline(always)]
pub(super) fn visit() {
    #[cfg(any(test, feature = "op-counts"))]
    NODES.with(|c| c.set(c.get() + 1));
}

/// A treap holds `ranges` ranges after a change.
#[inline(always)]
pub(super) fn holding(ranges: u32) {
    #[cfg(any(test, feature = "op-counts"))]
    LARGEST.with(|c| c.set(c.get().max(ranges as u64)));
    #[cfg(not(any(test, feature = "op-counts")))]
    let _ = ranges;
}

/// Treap nodes read or written on this thread so far.
#[cfg(any(test, feature = "op-counts"))]
pub fn nodes_visited() -> u64 {
    NODES.with(Cell::get)
}

/// The most ranges one treap on this thread has held (the ranges of a set
/// below its few top ones) since the last `reset`.
#[cfg(any(test, feature = "op-counts"))]
pub fn largest_treap() -> u64 {
    LARGEST.with(Cell::get)
}

/// Start both counters again from zero on this thread.
#[cfg(any(test, feature = "op-counts"))]
pub fn reset() {
    NODES.with(|c| c.set(0));
    LARGEST.with(|c| c.set(0));
}
