//! Fade traces: a recorded (or synthesised) series of loss probability
//! against time, `t_s,per` or `t_s,ber`, replayed piecewise constant: the
//! value of a row holds from its time until the next row's. Before the first
//! row the first value applies. After the last row the trace either holds
//! its last value (`after_end = "hold"`, the default) or loops with period
//! equal to the last row's time (`after_end = "loop"`; the last row then
//! marks the end of the record and its value is not used).
//!
//! A packet is judged by the value at the start of its transmission (a BER
//! applied to its length).

use super::table::{self, Loaded};
use super::{ApplyTo, ChannelCtx, ChannelModel, ChannelState, Tx};
use crate::engine::rng::RngStream;
use crate::engine::time::Time;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// CSV file; a relative path is relative to the scenario file.
    pub file: String,
    /// "hold" (default) or "loop".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_end: Option<AfterEnd>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apply_to: Option<ApplyTo>,
    #[serde(skip)]
    pub data: Loaded<TraceData>,
}

/// What a trace does after its last row (`after_end`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AfterEnd {
    Hold,
    Loop,
}

/// The parsed series.
#[derive(Debug, PartialEq)]
pub struct TraceData {
    /// Row times, nanoseconds, non-decreasing.
    pub t: Vec<Time>,
    /// Per-row value: a PER, or a BER when `ber` is set.
    pub value: Vec<f64>,
    pub ber: bool,
    pub looping: bool,
}

impl TraceSpec {
    /// Nothing to check before the file is read: `after_end` is one of its
    /// values by type, and the file's rows are checked by [`Self::load`].
    pub fn validate(&self) -> Result<(), (String, String)> {
        Ok(())
    }

    fn looping(&self) -> bool {
        self.after_end == Some(AfterEnd::Loop)
    }

    /// Read and check the file (at plan-build time).
    pub fn load(&mut self) -> Result<(), (String, String)> {
        let d = load_trace(&self.file, self.looping()).map_err(|m| ("file".to_string(), m))?;
        self.data = Loaded(Some(Arc::new(d)));
        Ok(())
    }
}

impl super::ChannelSpecOps for TraceSpec {
    type Model = Trace;
    fn build(&self, ctx: &ChannelCtx) -> Trace {
        Trace::build(self, ctx)
    }
    fn validate(&self) -> Result<(), (String, String)> {
        TraceSpec::validate(self)
    }
    fn apply_to_mut(&mut self) -> Option<&mut Option<ApplyTo>> {
        Some(&mut self.apply_to)
    }
    fn resolve_paths(&mut self, base: &std::path::Path) {
        self.file = table::resolve(base, &self.file);
    }
    fn prepare(&mut self, _geometry: Option<&super::HopGeometry>) -> Result<(), (String, String)> {
        self.load()
    }
}

pub fn load_trace(file: &str, looping: bool) -> Result<TraceData, String> {
    let tab = table::read(file, &[&["t_s", "per"], &["t_s", "ber"]])?;
    let ber = tab.header == 1;
    let what = if ber { "ber" } else { "per" };
    let mut t = Vec::new();
    let mut value = Vec::new();
    for (line, row) in &tab.rows {
        let (ts, v) = (row[0], row[1]);
        if ts < 0.0 {
            return Err(format!("{file} line {line}: t_s {ts} is negative"));
        }
        let tt = Time::from_secs_f64(ts);
        if let Some(&prev) = t.last() {
            if tt <= prev {
                return Err(format!(
                    "{file} line {line}: t_s {ts} does not increase on the previous row"
                ));
            }
        }
        if !(0.0..=1.0).contains(&v) {
            return Err(format!(
                "{file} line {line}: {what} {v} is not a probability in [0, 1]"
            ));
        }
        t.push(tt);
        value.push(v);
    }
    if looping && t.last().is_none_or(|l| l.0 == 0) {
        return Err(format!(
            "{file}: a looping trace needs a last row after t = 0 (it marks the period)"
        ));
    }
    Ok(TraceData {
        t,
        value,
        ber,
        looping,
    })
}

impl TraceData {
    /// The row index in force at `now`.
    pub fn index_at(&self, now: Time) -> usize {
        let mut t = now;
        if self.looping {
            let period = self.t.last().unwrap().0;
            t = Time(now.0 % period);
        }
        self.t.partition_point(|&x| x <= t).saturating_sub(1)
    }
    /// Loss probability of a packet of `bytes` bytes starting at `now`.
    pub fn probability(&self, now: Time, bytes: u32) -> f64 {
        let v = self.value[self.index_at(now)];
        if self.ber {
            super::loss::packet_loss_probability((-v).ln_1p(), bytes)
        } else {
            v
        }
    }
}

pub struct Trace {
    data: Arc<TraceData>,
    apply_to: ApplyTo,
    rng: RngStream,
}

impl Trace {
    pub fn build(s: &TraceSpec, ctx: &ChannelCtx) -> Trace {
        let data = match &s.data.0 {
            Some(d) => d.clone(),
            // A spec built by hand, not through a plan: read it now.
            None => Arc::new(
                load_trace(&s.file, s.looping()).unwrap_or_else(|e| panic!("fade trace: {e}")),
            ),
        };
        Trace {
            data,
            apply_to: s.apply_to.unwrap_or_default(),
            rng: ctx.own_rng("trace"),
        }
    }
}

impl ChannelModel for Trace {
    fn is_lost(&mut self, tx: &Tx) -> bool {
        if !self.apply_to.covers(tx.kind) {
            return false;
        }
        let p = self.data.probability(tx.start, tx.bytes);
        self.rng.bernoulli(p)
    }
    fn state(&mut self, now: Time) -> Option<ChannelState> {
        Some(ChannelState {
            state: self.data.index_at(now) as u32,
            loss_probability: self.data.probability(now, 1500),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("skyhop-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }

    #[test]
    fn piecewise_constant_hold_and_loop() {
        let f = write("a.csv", "t_s,per\n0,0\n1,1\n2,0.5\n");
        let hold = load_trace(&f, false).unwrap();
        let s = |x: f64| Time::from_secs_f64(x);
        assert_eq!(hold.probability(s(0.5), 1500), 0.0);
        assert_eq!(hold.probability(s(1.0), 1500), 1.0);
        assert_eq!(hold.probability(s(1.999), 1500), 1.0);
        assert_eq!(hold.probability(s(100.0), 1500), 0.5);
        let lp = load_trace(&f, true).unwrap();
        assert_eq!(lp.probability(s(2.5), 1500), 0.0);
        assert_eq!(lp.probability(s(3.5), 1500), 1.0);
    }

    #[test]
    fn bad_files_name_the_line() {
        let f = write("b.csv", "t_s,per\n0,0\n2,1\n1,0\n");
        assert!(load_trace(&f, false)
            .unwrap_err()
            .ends_with("line 4: t_s 1 does not increase on the previous row"));
        let f = write("c.csv", "t_s,per\n0,1.5\n");
        assert!(load_trace(&f, false)
            .unwrap_err()
            .contains("line 2: per 1.5 is not a probability"));
        assert!(load_trace("/nonexistent/x.csv", false)
            .unwrap_err()
            .starts_with("cannot read /nonexistent/x.csv"));
    }
}
