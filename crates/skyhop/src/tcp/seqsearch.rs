//! Searches over a sender's per-segment records (RACK's, the rate
//! sampler's): disjoint, in sequence order, and nearly all one segment
//! long. A binary search over a flight of thousands of records misses the
//! cache at every step; a guess from the first record's start and length
//! is right (or one off) whenever the records below the target are of that
//! length, and is checked before it is used, so the answer is always the
//! binary search's.

use std::collections::VecDeque;

/// A record covering `[seq, end)`.
pub(super) trait SeqRecord {
    fn seq(&self) -> u64;
    fn end(&self) -> u64;
}

/// The index a predicate `below` (true on a prefix of `v`, false after)
/// first fails at, trying `guess`, its neighbours, then a binary search.
#[inline]
fn boundary<T>(v: &VecDeque<T>, guess: usize, below: impl Fn(&T) -> bool) -> usize {
    let n = v.len();
    let is_boundary = |i: usize| (i == 0 || below(&v[i - 1])) && (i == n || !below(&v[i]));
    let g = guess.min(n);
    for i in [g, g + 1, g.wrapping_sub(1)] {
        if i <= n && is_boundary(i) {
            return i;
        }
    }
    v.partition_point(below)
}

/// The guessed index of the record holding byte `x`.
#[inline]
fn guess<T: SeqRecord>(v: &VecDeque<T>, x: u64) -> usize {
    match v.front() {
        Some(f) if x > f.seq() && f.end() > f.seq() => {
            ((x - f.seq()) / (f.end() - f.seq())).min(usize::MAX as u64) as usize
        }
        _ => 0,
    }
}

/// The index of the first record ending above `x` (`v.len()` if none).
#[inline]
pub(super) fn first_ending_above<T: SeqRecord>(v: &VecDeque<T>, x: u64) -> usize {
    boundary(v, guess(v, x), |r| r.end() <= x)
}

/// The index of the first record starting at or above `x` (`v.len()` if none).
#[inline]
pub(super) fn first_starting_at_or_above<T: SeqRecord>(v: &VecDeque<T>, x: u64) -> usize {
    boundary(v, guess(v, x), |r| r.seq() < x)
}

#[cfg(test)]
mod tests {
    use super::*;

    impl SeqRecord for (u64, u64) {
        fn seq(&self) -> u64 {
            self.0
        }
        fn end(&self) -> u64 {
            self.1
        }
    }

    #[test]
    fn the_answers_are_the_binary_searches_on_any_records() {
        let mut rng = crate::engine::rng::RngStream::derive(5, "seqsearch");
        for _ in 0..500 {
            let mut v: VecDeque<(u64, u64)> = VecDeque::new();
            let mut at = (rng.uniform() * 5000.0) as u64;
            for _ in 0..(rng.uniform() * 60.0) as usize {
                // Mostly 1000-byte records, some shorter, some gaps.
                let len = if rng.bernoulli(0.8) {
                    1000
                } else {
                    1 + (rng.uniform() * 1500.0) as u64
                };
                if rng.bernoulli(0.1) {
                    at += (rng.uniform() * 3000.0) as u64;
                }
                v.push_back((at, at + len));
                at += len;
            }
            for x in 0..at + 2000 {
                if x % 97 != 0 && rng.uniform() > 0.01 {
                    continue;
                }
                assert_eq!(first_ending_above(&v, x), v.partition_point(|r| r.1 <= x));
                assert_eq!(
                    first_starting_at_or_above(&v, x),
                    v.partition_point(|r| r.0 < x)
                );
            }
        }
    }
}
