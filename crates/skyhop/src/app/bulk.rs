//! A bulk source: unlimited data on stream 0 until the run stops (goodput
//! over the run's duration). Never done. A flow without `app` whose `size`
//! is absent or "unlimited".

use super::{AppIo, AppSpecOps, Application};
use crate::engine::time::Time;

/// Send without end until the run stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BulkSpec;

impl AppSpecOps for BulkSpec {
    type Built = Bulk;
    fn build(&self, _seed: u64, _flow: &str) -> Bulk {
        Bulk
    }
    fn finite(&self) -> bool {
        false
    }
    fn describe(&self) -> String {
        "bulk".into()
    }
}

pub struct Bulk;

impl Application for Bulk {
    fn start(&mut self, _now: Time, io: &mut AppIo) {
        io.send(0, u64::MAX);
    }
    fn on_delivered(&mut self, _now: Time, _s: usize, _b: u64, _t: u64, _io: &mut AppIo) {}
    fn done(&self) -> bool {
        false
    }
}
