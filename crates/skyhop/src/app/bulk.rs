//! A bulk source: unlimited data on stream 0 until the run stops (goodput
//! over the run's duration). Never done.

use super::{AppIo, Application};
use crate::engine::time::Time;

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
