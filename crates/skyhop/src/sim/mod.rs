//! The simulator: a [`World`] built from a [`Plan`] (the state of one run
//! and the routing between the seams) and a [`Driver`] that advances it.
//! [`run`] and [`run_plan`] drive it in virtual time.
//!
//! - `world.rs`: the world's state, its event dispatch and routing, and the
//!   driver interface (next deadline, step, inject, take outbound).
//! - `build.rs`: building the world; opening a flow's streams.
//! - `apps.rs`: the application I/O; AeroTCP's open-connection count.
//! - `relay.rs`: split proxies between their two legs.
//! - `external.rs`: packets from and to outside the simulated network.
//! - `mobile.rs`: moving worlds: forwarding by destination, links built on
//!   first use, routes recomputed on a schedule, handovers and route changes.
//! - `assemble.rs`: the results when the run stops.
//! - `driver.rs`: the [`Driver`] trait and the virtual-time driver.

mod apps;
mod assemble;
mod build;
mod driver;
mod external;
mod mobile;
mod relay;
mod world;

pub use driver::{Driver, VirtualTime};
pub use external::{ExternalPacket, ExternalStats, Injected, Outbound};
pub use world::{Step, World};

use crate::engine::Time;
use crate::error::SimError;
use crate::observe::PacketLogOptions;
use crate::result::RunResult;
use crate::scenario::{Plan, Scenario};
use std::sync::Arc;

/// A cancellation check, polled every few thousand events.
pub type CancelFn = Arc<dyn Fn() -> bool + Send + Sync>;

/// What a run should record beyond the results, and how it may be stopped.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Record time series (cwnd, ssthresh, srtt, flight, rwnd per leg; proxy
    /// occupancy; queue occupancy per link direction).
    pub trace: bool,
    /// Record a per-packet event log (returned in `RunResult::packet_log`).
    pub packet_log: Option<PacketLogOptions>,
    /// Polled every few thousand events; when it returns true the run ends
    /// with [`SimError::Cancelled`].
    pub cancel: Option<CancelFn>,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("trace", &self.trace)
            .field("packet_log", &self.packet_log)
            .field("cancel", &self.cancel.is_some())
            .finish()
    }
}

/// Simulate `scn` once with `seed`.
pub fn run(scn: &Scenario, seed: u64, opts: &RunOptions) -> Result<RunResult, SimError> {
    let plan = Plan::build(scn, "<scenario>")?;
    run_plan(&plan, seed, opts)
}

/// Simulate a resolved plan once with `seed`, in virtual time.
pub fn run_plan(plan: &Plan, seed: u64, opts: &RunOptions) -> Result<RunResult, SimError> {
    run_plan_with(plan, None, seed, opts)
}

/// Simulate a resolved plan with the motion of its nodes once with `seed`,
/// in virtual time.
pub fn run_plan_with(
    plan: &Plan,
    motion: Option<&crate::net::mobile::MotionPlan>,
    seed: u64,
    opts: &RunOptions,
) -> Result<RunResult, SimError> {
    let mut world = World::build_with(plan, motion, seed, opts);
    let mut driver = VirtualTime {
        end: Time(plan.duration.0),
        cancel: opts.cancel.clone(),
    };
    let stop = driver.drive(&mut world)?;
    Ok(world.finish(plan, seed, stop))
}
