//! Observers: time series recorded only when a run asks for traces (which
//! ones, and how densely: [`TraceOptions`]), the per-packet event log
//! ([`PacketLog`]; its table and pcap export, which need the plan's names,
//! are in `crate::export`).

mod packet_log;
mod thin;

use crate::engine::time::Time;
pub use packet_log::{ConnLabel, PacketEvent, PacketEventKind, PacketLog, PacketLogOptions};
pub use thin::{thin, Series, TraceOptions, QUANTITIES, SENDER_QUANTITIES};

/// Sampling while a run goes (a sampling interval, [`TraceOptions::every`]):
/// the row last recorded, held until the next change shows which multiple
/// of the interval, if any, it was in force at ([`thin`]'s rule, applied as
/// the rows come, so that a long run keeps one row per interval at most).
#[derive(Clone, Copy, Debug)]
pub struct Sampling<R> {
    every: u64,
    pending: Option<(u64, R)>,
}

impl<R: Copy> Sampling<R> {
    pub fn new(every: crate::engine::time::Dur) -> Self {
        Sampling {
            every: every.0.max(1),
            pending: None,
        }
    }

    /// The row held.
    pub fn held(&self) -> Option<&R> {
        self.pending.as_ref().map(|(_, r)| r)
    }

    /// A new row at `now`: the previous one, with the multiple it was in
    /// force at, if there was one before `now`.
    pub fn push(&mut self, now: Time, row: R) -> Option<(Time, R)> {
        let out = self.pending.take().and_then(|(t, r)| {
            let first = t.div_ceil(self.every).saturating_mul(self.every);
            (first < now.0).then_some((Time(first), r))
        });
        self.pending = Some((now.0, row));
        out
    }

    /// The last row, with the multiple it is in force at, if one comes at
    /// or before `stop`.
    pub fn finish(&mut self, stop: Time) -> Option<(Time, R)> {
        let (t, r) = self.pending.take()?;
        let first = t.div_ceil(self.every).saturating_mul(self.every);
        (first <= stop.0).then_some((Time(first), r))
    }
}

/// One row of a leg's sender trace: cwnd, ssthresh, srtt (s), flight, rwnd,
/// rate estimate.
type SenderRow = (u64, u64, f64, u64, u64, Option<f64>);

/// Per-leg sender trace: one row per change-worthy event (with a sampling
/// interval, one per interval at most).
#[derive(Clone, Debug, Default)]
pub struct SenderTrace {
    pub t: Vec<f64>,
    pub cwnd: Vec<f64>,
    pub ssthresh: Vec<f64>,
    pub srtt: Vec<f64>,
    pub flight: Vec<f64>,
    pub rwnd: Vec<f64>,
    /// The controller's rate estimate (Westwood ERE / BWE), bit/s; NaN if none.
    pub rate: Vec<f64>,
    sampling: Option<Sampling<SenderRow>>,
}

impl SenderTrace {
    /// A trace keeping every change, or with `every` one row per interval.
    pub fn new(every: Option<crate::engine::time::Dur>) -> Self {
        SenderTrace {
            sampling: every.map(Sampling::new),
            ..Default::default()
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        now: Time,
        cwnd: u64,
        ssthresh: u64,
        srtt_s: f64,
        flight: u64,
        rwnd: u64,
        rate: Option<f64>,
    ) {
        if let Some(s) = self.sampling.as_mut() {
            // the same row as the one held, apart from the rate estimate:
            // not a change (as `record` judges)
            let same = |h: &SenderRow| {
                (h.0, h.1, h.3, h.4) == (cwnd, ssthresh, flight, rwnd) && h.2 == srtt_s
            };
            if s.held().is_some_and(same) {
                return;
            }
            if let Some((t, r)) = s.push(now, (cwnd, ssthresh, srtt_s, flight, rwnd, rate)) {
                self.record(t, r.0, r.1, r.2, r.3, r.4, r.5);
            }
            return;
        }
        self.record(now, cwnd, ssthresh, srtt_s, flight, rwnd, rate);
    }

    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        now: Time,
        cwnd: u64,
        ssthresh: u64,
        srtt_s: f64,
        flight: u64,
        rwnd: u64,
        rate: Option<f64>,
    ) {
        // Skip rows identical to the last one apart from time.
        if let Some(&c) = self.cwnd.last() {
            let n = self.cwnd.len() - 1;
            if c == cwnd as f64
                && self.ssthresh[n] == ssthresh as f64
                && self.flight[n] == flight as f64
                && self.rwnd[n] == rwnd as f64
                && self.srtt[n] == srtt_s
            {
                return;
            }
        }
        self.t.push(now.as_secs_f64());
        self.cwnd.push(cwnd as f64);
        self.ssthresh.push(if ssthresh > u64::MAX / 8 {
            f64::NAN
        } else {
            ssthresh as f64
        });
        self.srtt.push(srtt_s);
        self.flight.push(flight as f64);
        self.rwnd.push(rwnd as f64);
        self.rate.push(rate.unwrap_or(f64::NAN));
    }

    /// Split into named series `<prefix>.<quantity>`, as of `stop`.
    pub fn into_series(mut self, prefix: &str, stop: Time) -> Vec<(String, Series)> {
        if let Some((t, r)) = self.sampling.as_mut().and_then(|s| s.finish(stop)) {
            self.record(t, r.0, r.1, r.2, r.3, r.4, r.5);
        }
        let t = self.t;
        [
            ("cwnd", self.cwnd),
            ("ssthresh", self.ssthresh),
            ("srtt", self.srtt),
            ("flight", self.flight),
            ("rwnd", self.rwnd),
            ("rate_estimate", self.rate),
        ]
        .into_iter()
        .map(|(q, v)| {
            (
                format!("{prefix}.{q}"),
                Series {
                    t_s: t.clone(),
                    value: v,
                },
            )
        })
        .collect()
    }
}

/// A single-valued series (with a sampling interval, one point per
/// interval at most).
#[derive(Clone, Debug, Default)]
pub struct ValueTrace {
    pub t: Vec<f64>,
    pub v: Vec<f64>,
    sampling: Option<Sampling<f64>>,
}

impl ValueTrace {
    /// A trace keeping every change, or with `every` one point per interval.
    pub fn new(every: Option<crate::engine::time::Dur>) -> Self {
        ValueTrace {
            sampling: every.map(Sampling::new),
            ..Default::default()
        }
    }

    pub fn push(&mut self, now: Time, v: f64) {
        if let Some(s) = self.sampling.as_mut() {
            if let Some((t, v)) = s.push(now, v) {
                self.record(t, v);
            }
            return;
        }
        self.record(now, v);
    }

    fn record(&mut self, now: Time, v: f64) {
        if self.v.last() == Some(&v) {
            return;
        }
        self.t.push(now.as_secs_f64());
        self.v.push(v);
    }

    /// The series as of `stop`.
    pub fn into_series(mut self, stop: Time) -> Series {
        if let Some((t, v)) = self.sampling.as_mut().and_then(|s| s.finish(stop)) {
            self.record(t, v);
        }
        Series {
            t_s: self.t,
            value: self.v,
        }
    }
}
