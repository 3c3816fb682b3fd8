//! A live run replayed as a simulation: the recorded packets from the
//! hosts are injected into the same scenario and seed at the simulated
//! times they entered the live run's world. A live run's world changes
//! only through its events and those injections (stepped to each
//! injection's time first, as the wall-clock driver does), so the replay
//! is that world again, deterministically: the same per-link counts, the
//! same simulated flows' results.

use super::ip;
use super::record::Arrival;
use crate::engine::Time;
use crate::error::SimError;
use crate::net::addr::node_of_ip;
use crate::result::RunResult;
use crate::scenario::Plan;
use crate::sim::{Driver, ExternalPacket, RunOptions, World};

/// Injects recorded arrivals at their times, then runs to `stop`.
pub struct Replay {
    /// (time, node, destination node, packet), in the recorded order.
    pub arrivals: Vec<(Time, u32, u32, ExternalPacket)>,
    pub live_nodes: Vec<u32>,
    pub stop: Time,
}

impl Driver for Replay {
    fn drive(&mut self, world: &mut World) -> Result<Time, SimError> {
        world.set_outside(&self.live_nodes);
        let mut out = Vec::new();
        let mut last = None;
        for (t, from, to, p) in self.arrivals.drain(..) {
            world.step(t, u64::MAX, false)?;
            world.inject(t, from, to, p);
            world.take_outbound(&mut out);
            out.clear();
            last = Some(t);
        }
        if last.is_none_or(|t| t < self.stop) {
            world.step(self.stop, u64::MAX, false)?;
        }
        Ok(self.stop)
    }
}

fn replay_error(detail: String) -> SimError {
    SimError::Live { detail }
}

/// Replay `arrivals` (a live run's record) into `plan` with `seed`; the
/// live nodes by name, the live run's stop time.
pub fn run_replay(
    plan: &Plan,
    seed: u64,
    arrivals: Vec<Arrival>,
    live_nodes: &[String],
    stop: Time,
    opts: &RunOptions,
) -> Result<RunResult, SimError> {
    let index = |name: &str| -> Result<u32, SimError> {
        plan.nodes
            .iter()
            .position(|n| n == name)
            .map(|i| i as u32)
            .ok_or_else(|| {
                replay_error(format!(
                    "the record names node {name:?}, which the scenario does not have"
                ))
            })
    };
    let live: Vec<u32> = live_nodes
        .iter()
        .map(|n| index(n))
        .collect::<Result<_, _>>()?;
    let mut list = Vec::with_capacity(arrivals.len());
    for a in arrivals {
        let from = index(&a.node)?;
        let hd = ip::parse(&a.data)
            .ok_or_else(|| replay_error("the record holds a packet that is not IPv4".into()))?;
        let to = node_of_ip(hd.dst, plan.nodes.len()).ok_or_else(|| {
            replay_error("the record holds a packet for no node's address".into())
        })?;
        if a.t > stop {
            return Err(replay_error(format!(
                "the record holds a packet at t = {:.6} s, after the run's stop",
                a.t.as_secs_f64()
            )));
        }
        list.push((
            a.t,
            from,
            to,
            ExternalPacket {
                data: a.data,
                kind: hd.kind,
                seq: hd.seq,
                retx: false,
            },
        ));
    }
    let mut world = World::build(plan, seed, opts);
    let mut driver = Replay {
        arrivals: list,
        live_nodes: live,
        stop,
    };
    let stop = driver.drive(&mut world)?;
    Ok(world.finish(stop))
}
