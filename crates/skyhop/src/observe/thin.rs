//! Time series ([`Series`]), and which of them a traced run keeps, and
//! how densely.
//!
//! A traced run records every change of every series: a leg's window and
//! round-trip estimate at each acknowledgement, each link queue at each
//! packet. A long run of a fast network makes millions of points (a
//! minute of a Starlink download, about twelve million), far more than a
//! figure shows. Two thinnings, both deterministic:
//!
//! - a selection of quantities ([`TraceOptions::quantities`]): a series
//!   whose quantity (the last part of its name) is not selected is not
//!   recorded at all;
//! - a sampling interval ([`TraceOptions::every`]): each series keeps the
//!   value it has at every multiple of the interval (the value in force
//!   at that instant, set at or before it), as a point only where it
//!   differs from the one at the previous multiple. A step plot of the
//!   thinned series is the full series seen at those instants; what
//!   changes and changes back between two of them is not in it.

use crate::engine::time::{Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A named time series: `t_s` and `value` columns of equal length.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Series {
    pub t_s: Vec<f64>,
    pub value: Vec<f64>,
}

/// The quantities of a leg's sender trace.
pub const SENDER_QUANTITIES: &[&str] = &[
    "cwnd",
    "ssthresh",
    "srtt",
    "flight",
    "rwnd",
    "rate_estimate",
];
/// Every traced quantity: the sender's, a proxy's occupancy, a link
/// direction's queue, a moving network's route delay.
pub const QUANTITIES: &[&str] = &[
    "cwnd",
    "ssthresh",
    "srtt",
    "flight",
    "rwnd",
    "rate_estimate",
    "occupancy",
    "queue",
    "delay",
];

/// Which time series a traced run records, and how densely.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceOptions {
    /// Keep each series' value at every multiple of this interval (see the
    /// module doc); `None`: every change.
    pub every: Option<Dur>,
    /// Record only these quantities (of [`QUANTITIES`]); `None`: all.
    pub quantities: Option<Vec<String>>,
}

impl TraceOptions {
    /// Whether series of `quantity` are recorded.
    pub fn wants(&self, quantity: &str) -> bool {
        self.quantities
            .as_ref()
            .is_none_or(|q| q.iter().any(|x| x == quantity))
    }

    /// Whether a leg's sender trace is recorded (any of its quantities).
    pub fn wants_sender(&self) -> bool {
        SENDER_QUANTITIES.iter().any(|q| self.wants(q))
    }

    /// An unknown quantity or a zero interval, in words.
    pub fn check(&self) -> Result<(), String> {
        if self.every == Some(Dur::ZERO) {
            return Err("the sampling interval must be positive".into());
        }
        for q in self.quantities.iter().flatten() {
            if !QUANTITIES.contains(&q.as_str()) {
                return Err(format!(
                    "unknown quantity {q:?} (quantities: {})",
                    QUANTITIES.join(", ")
                ));
            }
        }
        if self.quantities.as_ref().is_some_and(|q| q.is_empty()) {
            return Err("name at least one quantity".into());
        }
        Ok(())
    }

    /// The traces of a run that stopped at `stop`, thinned: series of
    /// quantities not selected removed, each other one sampled.
    pub fn apply(&self, traces: &mut BTreeMap<String, Series>, stop: Time) {
        traces.retain(|name, _| self.wants(name.rsplit('.').next().unwrap_or(name)));
        if let Some(every) = self.every {
            for s in traces.values_mut() {
                *s = thin(s, every, stop);
            }
        }
    }
}

/// `s`, a step function (each value in force from its time to the next
/// one's), sampled at every multiple of `every` up to `stop`: the value in
/// force at each multiple, as a point where it differs from the previous
/// multiple's. Times are seconds; the multiples are exact in nanoseconds.
pub fn thin(s: &Series, every: Dur, stop: Time) -> Series {
    let every = every.0.max(1);
    let ns = |t: f64| (t * 1e9).round().max(0.0) as u64;
    let mut out = Series::default();
    let n = s.t_s.len().min(s.value.len());
    for i in 0..n {
        // In force over [t_i, t_{i+1}) (the last one up to `stop`): the
        // first multiple of `every` there, if any, samples it.
        let from = ns(s.t_s[i]);
        let first = from.div_ceil(every).saturating_mul(every);
        let within = match s.t_s.get(i + 1) {
            Some(&next) if i + 1 < n => first < ns(next),
            _ => first <= stop.0,
        };
        if !within {
            continue;
        }
        let v = s.value[i];
        if out.value.last().is_some_and(|&last| same(last, v)) {
            continue;
        }
        out.t_s.push(first as f64 / 1e9);
        out.value.push(v);
    }
    out
}

/// Equal values, NaN equal to NaN (an undefined ssthresh, a route down).
fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(points: &[(f64, f64)]) -> Series {
        Series {
            t_s: points.iter().map(|p| p.0).collect(),
            value: points.iter().map(|p| p.1).collect(),
        }
    }

    fn points(s: &Series) -> Vec<(f64, f64)> {
        s.t_s.iter().copied().zip(s.value.iter().copied()).collect()
    }

    #[test]
    fn a_step_function_sampled_every_100_ms() {
        // 0 from 0 s, 5 from 0.05 s, 7 from 0.12 s, 3 from 0.13 s, 3 again
        // from 0.31 s: at 0.0 it is 0, at 0.1 it is 5, at 0.2 and 0.3 it
        // is 3 (7 lasted 10 ms between two multiples: not seen), and 3
        // stays 3 through 0.5 s.
        let s = series(&[
            (0.0, 0.0),
            (0.05, 5.0),
            (0.12, 7.0),
            (0.13, 3.0),
            (0.31, 3.0),
        ]);
        let t = thin(&s, Dur::from_millis(100), Time(500_000_000));
        assert_eq!(points(&t), vec![(0.0, 0.0), (0.1, 5.0), (0.2, 3.0)]);
    }

    #[test]
    fn a_change_at_a_multiple_is_the_value_there() {
        let s = series(&[(0.0, 1.0), (0.1, 2.0), (0.1, 4.0), (0.25, 9.0)]);
        let t = thin(&s, Dur::from_millis(100), Time(300_000_000));
        assert_eq!(points(&t), vec![(0.0, 1.0), (0.1, 4.0), (0.3, 9.0)]);
        // the last value in force at no multiple before the stop: not kept
        let t = thin(&s, Dur::from_millis(100), Time(290_000_000));
        assert_eq!(points(&t), vec![(0.0, 1.0), (0.1, 4.0)]);
    }

    #[test]
    fn nan_runs_are_one_point_and_a_dense_series_keeps_every_change() {
        let nan = f64::NAN;
        let s = series(&[(0.0, nan), (0.002, nan), (0.004, 2.0)]);
        let t = thin(&s, Dur::from_millis(1), Time(5_000_000));
        assert_eq!(t.t_s, vec![0.0, 0.004]);
        assert!(t.value[0].is_nan() && t.value[1] == 2.0);
    }

    #[test]
    fn options_select_quantities_and_name_an_unknown_one() {
        let opts = TraceOptions {
            every: None,
            quantities: Some(vec!["srtt".into(), "queue".into()]),
        };
        assert!(opts.wants("srtt") && opts.wants_sender() && !opts.wants("cwnd"));
        let mut traces = BTreeMap::new();
        for name in [
            "f.0.cwnd",
            "f.0.srtt",
            "link.ab.forward.queue",
            "f.proxy.P.occupancy",
        ] {
            traces.insert(name.to_string(), series(&[(0.0, 1.0)]));
        }
        opts.apply(&mut traces, Time(1_000_000));
        assert_eq!(
            traces.keys().collect::<Vec<_>>(),
            ["f.0.srtt", "link.ab.forward.queue"]
        );
        let bad = TraceOptions {
            every: None,
            quantities: Some(vec!["rtt".into()]),
        };
        assert!(bad
            .check()
            .unwrap_err()
            .contains("unknown quantity \"rtt\""));
        let zero = TraceOptions {
            every: Some(Dur::ZERO),
            quantities: None,
        };
        assert!(zero.check().is_err());
    }
}
