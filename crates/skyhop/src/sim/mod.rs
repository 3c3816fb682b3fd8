//! The simulator: a [`World`] built from a [`Plan`] (the state of one run
//! and the routing between the seams) and a [`Driver`] that advances it.
//! [`run`] and [`run_plan`] drive it in virtual time.
//!
//! - `world.rs`: the world's state, its event dispatch and routing, and the
//!   driver interface (next deadline, step, inject, take outbound).
//! - `state.rs`: the world's state types (events, connections, flows).
//! - `options.rs`: what a run records, and its cancellation.
//! - `build.rs`: building the world; opening a flow's streams.
//! - `apps.rs`: the application I/O; AeroTCP's open-connection count.
//! - `relay.rs`: split proxies between their two legs.
//! - `media.rs`: shared media (a beam): their members' packets and wake-ups,
//!   and the call into a link layer with its I/O record.
//! - `quic.rs`: QUIC flows (a `quic::QuicConn` per connection);
//!   `quic_relay.rs` the QUIC-terminating proxies' relays between two
//!   connections; `quic_result.rs` a QUIC flow's results.
//! - `external.rs`: packets from and to outside the simulated network (the
//!   world's side of them is in `world.rs`, with the driver interface).
//! - `mobile.rs`, `network.rs`: moving worlds: forwarding by destination,
//!   links built on first use, routes recomputed on a schedule, handovers
//!   and route changes.
//! - `assemble.rs`: the results when the run stops.
//! - `driver.rs`: the [`Driver`] trait and the virtual-time driver.
//! - `cycles.rs` (feature `event-cycles`): processor cycles by kind of event.

mod apps;
mod assemble;
mod build;
#[cfg(feature = "event-cycles")]
pub mod cycles;
mod driver;
mod external;
mod media;
mod mobile;
mod network;
mod options;
mod quic;
mod quic_relay;
mod quic_result;
mod relay;
mod state;
mod world;

pub use driver::{Driver, VirtualTime};
pub use external::{ExternalPacket, ExternalStats, Injected, Outbound};
pub use options::{CancelFn, RunOptions};
pub use world::{Step, World};

use crate::engine::Time;
use crate::error::SimError;
use crate::result::RunResult;
use crate::scenario::{Plan, Scenario};

/// Simulate `scn` once with `seed`.
pub fn run(scn: &Scenario, seed: u64, opts: &RunOptions) -> Result<RunResult, SimError> {
    let plan = Plan::build(scn, "<scenario>")?;
    run_plan(&plan, seed, opts)
}

/// Simulate a resolved plan once with `seed`, in virtual time.
pub fn run_plan(plan: &Plan, seed: u64, opts: &RunOptions) -> Result<RunResult, SimError> {
    run_plan_with(plan, plan.motion.as_ref(), seed, opts)
}

/// Simulate a resolved plan once with `seed`, in virtual time, with the
/// motion of its nodes given here (`None`: a static world, whatever the
/// plan says).
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
    let mut result = world.finish(stop);
    if plan.flows.is_empty() {
        result.warnings.push(
            "no flows: a simulation of this scenario carries nothing (its live nodes are for skyhop live)"
                .into(),
        );
    }
    Ok(result)
}
