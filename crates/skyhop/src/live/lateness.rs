//! Time fidelity of a live run, measured: each packet released to a live
//! host is late by (when it was written to the host's device) − (when the
//! simulation had it arrive). Kept whole (8 bytes a packet) so that the
//! quantiles are exact.

use serde::Serialize;

/// Lateness of the packets released so far.
#[derive(Clone, Debug, Default)]
pub(super) struct Lateness {
    ns: Vec<u64>,
    /// Packets later than the abort threshold, if one is set.
    over: u64,
    threshold_ns: Option<u64>,
}

/// The summary the run document carries (seconds).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LatenessSummary {
    pub packets: u64,
    pub p50_s: Option<f64>,
    pub p99_s: Option<f64>,
    pub max_s: Option<f64>,
    pub mean_s: Option<f64>,
}

impl Lateness {
    /// `threshold_ns`: the lateness that counts towards an abort.
    pub(super) fn new(threshold_ns: Option<u64>) -> Lateness {
        Lateness {
            threshold_ns,
            ..Default::default()
        }
    }

    #[inline]
    pub(super) fn push(&mut self, ns: u64) {
        self.ns.push(ns);
        if self.threshold_ns.is_some_and(|t| ns > t) {
            self.over += 1;
        }
    }

    /// More than 1 % of the packets (after the first 100) were later than
    /// the threshold: the run's 99th percentile is above it.
    pub(super) fn p99_above_threshold(&self) -> bool {
        let n = self.ns.len() as u64;
        self.threshold_ns.is_some() && n >= 100 && self.over * 100 > n
    }

    pub(super) fn summary(&self) -> LatenessSummary {
        let n = self.ns.len();
        if n == 0 {
            return LatenessSummary::default();
        }
        let mut v = self.ns.clone();
        v.sort_unstable();
        // Nearest rank: the smallest value with at least q·n values at or below it.
        let rank = |q: f64| v[((q * n as f64).ceil() as usize).clamp(1, n) - 1] as f64 / 1e9;
        LatenessSummary {
            packets: n as u64,
            p50_s: Some(rank(0.5)),
            p99_s: Some(rank(0.99)),
            max_s: Some(v[n - 1] as f64 / 1e9),
            mean_s: Some(v.iter().map(|&x| x as f64).sum::<f64>() / n as f64 / 1e9),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_rank_and_the_abort_needs_one_percent_late() {
        let mut l = Lateness::new(Some(1000));
        for i in 1..=200u64 {
            l.push(i * 10);
        }
        let s = l.summary();
        assert_eq!(s.packets, 200);
        assert_eq!(s.p50_s, Some(1000e-9));
        assert_eq!(s.p99_s, Some(1980e-9));
        assert_eq!(s.max_s, Some(2000e-9));
        // 100 of 200 above 1 µs.
        assert!(l.p99_above_threshold());
        let mut ok = Lateness::new(Some(1000));
        for _ in 0..199 {
            ok.push(10);
        }
        ok.push(5000);
        assert!(!ok.p99_above_threshold());
        assert_eq!(Lateness::new(None).summary(), LatenessSummary::default());
    }
}
