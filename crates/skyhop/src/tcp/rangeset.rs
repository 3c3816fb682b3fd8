//! A set of disjoint, sorted, half-open byte ranges `[start, end)`.
//! Used by the receiver's reassembly queue and the sender's SACK scoreboard.
//! Sets stay small (a handful of holes), so a sorted Vec beats a tree.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    v: Vec<(u64, u64)>,
}

impl RangeSet {
    pub fn new() -> Self {
        RangeSet { v: Vec::new() }
    }
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.v
    }
    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }
    pub fn clear(&mut self) {
        self.v.clear();
    }
    pub fn first(&self) -> Option<(u64, u64)> {
        self.v.first().copied()
    }
    pub fn last(&self) -> Option<(u64, u64)> {
        self.v.last().copied()
    }
    /// Total bytes in the set.
    pub fn bytes(&self) -> u64 {
        self.v.iter().map(|(a, b)| b - a).sum()
    }

    /// Insert `[start, end)`; returns how many bytes were not in the set before.
    pub fn insert(&mut self, start: u64, end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        // Fast path: append at the tail (the common case for in-order arrivals).
        if let Some(last) = self.v.last_mut() {
            if start >= last.0 && start <= last.1 {
                if end > last.1 {
                    let added = end - last.1;
                    last.1 = end;
                    return added;
                }
                return 0;
            }
            if start > last.1 {
                self.v.push((start, end));
                return end - start;
            }
        } else {
            self.v.push((start, end));
            return end - start;
        }
        // General case: find all ranges that touch [start, end) and merge them.
        let i = self.v.partition_point(|r| r.1 < start);
        let mut j = i;
        let mut covered = 0;
        let (mut s, mut e) = (start, end);
        while j < self.v.len() && self.v[j].0 <= end {
            let (a, b) = self.v[j];
            covered += b.min(end).saturating_sub(a.max(start));
            s = s.min(a);
            e = e.max(b);
            j += 1;
        }
        self.v.splice(i..j, std::iter::once((s, e)));
        (end - start) - covered
    }

    /// Remove everything below `seq`; returns the bytes removed.
    pub fn remove_below(&mut self, seq: u64) -> u64 {
        let mut removed = 0;
        let mut k = 0;
        while k < self.v.len() && self.v[k].1 <= seq {
            removed += self.v[k].1 - self.v[k].0;
            k += 1;
        }
        self.v.drain(..k);
        if let Some(first) = self.v.first_mut() {
            if first.0 < seq {
                removed += seq - first.0;
                first.0 = seq;
            }
        }
        removed
    }

    /// If a range starts at or before `seq` and extends past it, remove it
    /// and return its end (used by reassembly to advance rcv_nxt).
    pub fn pop_covering(&mut self, seq: u64) -> Option<u64> {
        match self.v.first() {
            Some(&(a, b)) if a <= seq && b > seq => {
                self.v.remove(0);
                Some(b)
            }
            Some(&(_, b)) if b <= seq => {
                self.v.remove(0);
                self.pop_covering(seq)
            }
            _ => None,
        }
    }

    pub fn contains(&self, seq: u64) -> bool {
        let i = self.v.partition_point(|r| r.1 <= seq);
        i < self.v.len() && self.v[i].0 <= seq
    }

    /// The range containing `seq`, if any.
    pub fn range_of(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.v.partition_point(|r| r.1 <= seq);
        (i < self.v.len() && self.v[i].0 <= seq).then(|| self.v[i])
    }

    /// Bytes of the set at or above `seq`.
    pub fn bytes_above(&self, seq: u64) -> u64 {
        let i = self.v.partition_point(|r| r.1 <= seq);
        self.v[i..].iter().map(|&(a, b)| b - a.max(seq)).sum()
    }

    /// The first gap at or after `from` and below the highest range:
    /// returns `[gap_start, gap_end)`.
    pub fn first_gap_from(&self, from: u64) -> Option<(u64, u64)> {
        let i = self.v.partition_point(|r| r.1 <= from);
        if i >= self.v.len() {
            return None;
        }
        let (a, b) = self.v[i];
        if a > from {
            return Some((from, a));
        }
        // `from` is inside range i: the gap is after it, if another range follows.
        self.v.get(i + 1).map(|&(na, _)| (b, na))
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
        assert!(s.contains(20) && !s.contains(30));
    }
}
