//! Drivers: what advances a world's time. The world exposes a small
//! interface (`world.rs`: the next deadline, a step to a time, packets
//! injected from outside at a node, packets leaving towards outside); a
//! driver is a loop over it. [`VirtualTime`] runs a simulation as fast as
//! it can; a wall-clock driver joins the same world to real hosts.
//!
//! Adding a driver: a type implementing [`Driver`] in its own file, and a
//! `mod` line here or wherever it lives. The world needs no edit.

use super::options::CancelFn;
use super::world::{Step, World};
use crate::engine::Time;
use crate::error::SimError;

/// A loop that advances a world.
pub trait Driver {
    /// Run `world` until the driver's end; returns the time the run
    /// stopped at (its results are cut there).
    fn drive(&mut self, world: &mut World) -> Result<Time, SimError>;
}

/// How often (in events) a virtual-time run polls its cancellation check.
const CANCEL_POLL_EVENTS: u64 = 4096;

/// Simulated time: every event at once, in (time, sequence) order, until
/// every application is done or `end`.
pub struct VirtualTime {
    pub end: Time,
    pub cancel: Option<CancelFn>,
}

impl Driver for VirtualTime {
    fn drive(&mut self, world: &mut World) -> Result<Time, SimError> {
        loop {
            match world.step(self.end, CANCEL_POLL_EVENTS, true)? {
                Step::Reached => return Ok(self.end),
                Step::AppsDone => return Ok(world.now()),
                Step::Paused => {
                    if let Some(cancel) = &self.cancel {
                        if cancel() {
                            return Err(SimError::Cancelled {
                                sim_time_s: world.now().as_secs_f64(),
                            });
                        }
                    }
                }
            }
        }
    }
}
