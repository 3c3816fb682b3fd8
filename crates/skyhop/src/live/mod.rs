//! Live runs: the engine in wall-clock time between real hosts, so real TCP
//! stacks and real applications run over a scenario's network.
//!
//! Every live node becomes a real host (`host.rs`: its own network
//! namespace with a TUN device carrying the node's address); the users'
//! commands run inside them (`commands.rs`); the same world a simulation
//! builds — links, channels, link layers, queues, proxies, simulated flows
//! — carries the hosts' packets whole, under the wall-clock driver
//! (`driver.rs`), which measures how late each released packet is
//! (`lateness.rs`). Every packet from the hosts can be recorded
//! (`record.rs`) and the run replayed as a deterministic simulation
//! (`replay.rs`).
//!
//! Clean-up: the namespaces and devices exist only through descriptors this
//! module holds and the processes inside them; at the end (or on an error,
//! or when the run is interrupted) the commands are stopped (SIGTERM, then
//! SIGKILL after a grace period), every process left in the namespaces is
//! killed, and the descriptors are closed. Nothing is configured outside
//! the namespaces.

mod commands;
mod driver;
mod gro;
mod gso;
mod host;
mod ip;
mod lateness;
pub mod record;
pub mod replay;
pub mod request;
mod sys;

pub use commands::{addr_var, CommandResult, CommandSpec};
pub use driver::{LiveCounters, StopReason};
pub use host::HostInfo;
pub use lateness::LatenessSummary;
pub use sys::Realtime;

use crate::engine::{Dur, Time};
use crate::error::{ScenarioError, SimError};
use crate::net::addr::node_ip;
use crate::observe::PacketLogOptions;
use crate::result::RunResult;
use crate::scenario::Plan;
use crate::sim::{CancelFn, Driver, RunOptions, World};
use crate::units::MAX_DURATION;
use commands::Running;
use host::Host;
use serde::Serialize;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How to run live.
#[derive(Clone, Default)]
pub struct LiveOptions {
    /// The commands, each on its node (foreground: the run waits for them).
    pub commands: Vec<CommandSpec>,
    /// Nodes that are live hosts without a command of their own (marked
    /// `live = true`, e.g. a router or a host the user enters by hand).
    pub live_nodes: Vec<u32>,
    /// Stop after this long (default: the scenario's `run.duration`).
    pub duration: Option<Dur>,
    /// How long stopped commands get between SIGTERM and SIGKILL.
    pub grace: Dur,
    /// Warn when the 99th percentile of the lateness is above this.
    pub lateness_warn: Dur,
    /// Stop the run (an error) when the 99th percentile goes above this.
    pub lateness_abort: Option<Dur>,
    /// Ask for SCHED_FIFO and a pinned CPU for the engine's thread.
    pub realtime: bool,
    /// How long past its next event the engine's thread sleeps: the events
    /// due within this window are handled at one wake-up (each packet up
    /// to this much later), so fewer timers are armed. Zero: every wait
    /// ends at the next event.
    pub wake_window: Dur,
    /// Record every packet from the hosts here (pcapng), for a replay.
    pub record: Option<PathBuf>,
    pub trace: bool,
    /// pcap files of these link directions, written into this folder as
    /// the run goes (real packets whole, simulated ones as headers).
    pub pcap: Option<(PathBuf, Vec<u32>)>,
    /// The commands' standard output goes to skyhop's standard error.
    pub stdout_to_stderr: bool,
    /// Asked every few milliseconds; true stops the run (Ctrl-C).
    pub cancel: Option<CancelFn>,
}

/// What a live run reports beside the simulation's results.
#[derive(Clone, Debug, Serialize)]
pub struct LiveReport {
    pub hosts: Vec<HostInfo>,
    pub commands: Vec<CommandResult>,
    pub stop_reason: StopReason,
    /// Seconds from the start to the stop (the results are cut there).
    pub duration_s: f64,
    /// The same in nanoseconds (what a replay stops at).
    pub stop_ns: u64,
    pub lateness: LatenessSummary,
    /// The lateness above which a warning is given (s).
    pub lateness_warn_s: f64,
    /// The wake-up window asked for (s).
    pub wake_window_s: f64,
    pub packets: LiveCounters,
    pub realtime: Realtime,
    /// CPU seconds the engine's thread used during the run (user + system).
    pub engine_cpu_s: f64,
    /// The largest share of one second the engine's thread spent running,
    /// over the run's whole seconds (0 for a run under a second).
    pub engine_busiest_second: f64,
    /// Each command ran in a PID namespace of its own (`unshare` found).
    pub pid_namespaces: bool,
    /// The record of the hosts' packets, if one was written.
    pub record: Option<String>,
    pub record_packets: Option<u64>,
    /// Why the record could not be written whole (it cannot be replayed).
    pub record_error: Option<String>,
    /// The pcap files written, with their number of packets.
    pub pcap_files: Option<Vec<(String, u64)>>,
    pub warnings: Vec<String>,
    /// The run's exit status: the first failing command's, else 0.
    pub exit_code: i32,
}

/// A live run's results.
pub struct LiveOutcome {
    pub result: RunResult,
    pub report: LiveReport,
}

/// The longest time stopped commands get between SIGTERM and SIGKILL.
pub const MAX_GRACE: Dur = Dur(60_000_000_000);

/// The widest wake-up window: the lateness it may add to every packet.
pub const MAX_WAKE_WINDOW: Dur = Dur(1_000_000);

fn option_error(key: &str, msg: impl Into<String>) -> SimError {
    SimError::Scenario(ScenarioError::new("<options>", key, msg))
}

/// Check what a live run of `plan` asks before anything is created: every
/// live node exists and is an endpoint of a link; no link between live
/// hosts names simulated segments (drop lists).
pub fn check(plan: &Plan, opts: &LiveOptions) -> Result<Vec<u32>, SimError> {
    if opts.grace > MAX_GRACE {
        return Err(option_error(
            "--grace",
            format!(
                "{} s is longer than the {} s a stopped command may be given",
                opts.grace.as_secs_f64(),
                MAX_GRACE.as_secs_f64()
            ),
        ));
    }
    if opts.wake_window > MAX_WAKE_WINDOW {
        return Err(option_error(
            "--wake-window",
            format!(
                "{} s is wider than {} s (each packet may be that much later)",
                opts.wake_window.as_secs_f64(),
                MAX_WAKE_WINDOW.as_secs_f64()
            ),
        ));
    }
    if let Some(d) = opts.duration.filter(|d| *d > MAX_DURATION || d.0 == 0) {
        return Err(option_error(
            "--duration",
            format!(
                "{} s is out of range: must be above 0 and at most {} s (as run.duration)",
                d.as_secs_f64(),
                MAX_DURATION.as_secs_f64()
            ),
        ));
    }
    let mut live: Vec<u32> = opts.live_nodes.clone();
    for c in &opts.commands {
        if c.node as usize >= plan.nodes.len() {
            return Err(option_error(
                "--run",
                format!(
                    "unknown node {:?} (nodes: {})",
                    c.node_name,
                    plan.nodes.join(", ")
                ),
            ));
        }
        if c.command.trim().is_empty() {
            return Err(option_error(
                "--run",
                format!("node {}: an empty command", c.node_name),
            ));
        }
        live.push(c.node);
    }
    live.sort_unstable();
    live.dedup();
    if live.is_empty() {
        return Err(option_error(
            "--run",
            "no live node: give --run NODE:COMMAND (or mark a node live = true)",
        ));
    }
    for &n in &live {
        let grounded = plan
            .motion
            .as_ref()
            .is_some_and(|m| m.gsls.iter().any(|r| r.grounds.contains(&n)));
        if !grounded && !plan.links.iter().any(|d| d.from == n) {
            return Err(option_error(
                "--run",
                format!(
                    "node {} is not an endpoint of any link (nor a ground node of a constellation): a live host there could reach nothing",
                    plan.nodes[n as usize]
                ),
            ));
        }
    }
    for d in &plan.links {
        if d.channels.iter().any(|c| c.names_segments()) {
            let link = d.name.replace(':', ".");
            return Err(SimError::Scenario(ScenarioError::new(
                "<scenario>",
                format!("links.{link}.drop_segments"),
                "names segments of simulated connections; it cannot judge real packets in a live run (remove it)",
            )));
        }
    }
    Ok(live)
}

/// The warning for an engine thread under SCHED_FIFO that came within
/// five points of the kernel's real-time limit (`limit`, the share of
/// each period a real-time thread may run) in its busiest second: past
/// the limit the kernel stops the thread for the rest of the period (up
/// to 50 ms of every second), and every packet due then is that late.
fn busy_warning(busiest: f64, rt: &Realtime, window: Dur, limit: Option<f64>) -> Option<String> {
    let limit = limit?;
    if rt.fifo_priority.is_none() || busiest < limit - 0.05 {
        return None;
    }
    let help = if window.0 == 0 {
        "--wake-window 20us lets it sleep more: at 1 Gb/s, 68 % busy instead of 87-91 %, docs/live.md"
    } else {
        "a wider --wake-window, fewer hosts or lower rates"
    };
    Some(format!(
        "the engine's thread was busy {:.0} % of its busiest second, near the kernel's real-time limit of {:.0} % (sched_rt_runtime_us): past it the thread is stopped for the rest of the second, and the packets due then are that late ({help})",
        busiest * 100.0,
        limit * 100.0
    ))
}

/// The warning for a p99 lateness above `warn_s`, with what may help here:
/// real-time scheduling where it was not used (turned off, or refused),
/// else a quieter machine, fewer hosts or lower rates.
fn lateness_warning(p99_s: Option<f64>, warn_s: f64, asked: bool, rt: &Realtime) -> Option<String> {
    let p99 = p99_s.filter(|&p| p > warn_s)?;
    let help = if !asked {
        "run without --no-realtime, on a quieter machine, with fewer hosts or lower rates"
    } else if rt.fifo_priority.is_none() {
        "real-time scheduling (SCHED_FIFO) was refused: run as root outside a user namespace, or on a quieter machine, with fewer hosts or lower rates"
    } else {
        "a busy machine: keep it quieter, or use fewer hosts or lower rates"
    };
    Some(format!(
        "lateness p99 {:.3} ms is above {:.3} ms: the hosts saw the network later than the scenario says ({help})",
        p99 * 1e3,
        warn_s * 1e3
    ))
}

/// The running commands, stopped (and the namespaces swept) however the
/// run ends.
struct Commands {
    running: Vec<Running>,
    started: Instant,
    grace: Duration,
    ns_inodes: Vec<u64>,
    stopped: bool,
}

impl Commands {
    fn stop(&mut self) {
        if !self.stopped {
            self.stopped = true;
            commands::stop_all(&mut self.running, self.grace, self.started, &self.ns_inodes);
        }
    }
}

impl Drop for Commands {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Run `plan` live with `seed`.
pub fn run_live(plan: &Plan, seed: u64, opts: &LiveOptions) -> Result<LiveOutcome, SimError> {
    let live = check(plan, opts)?;
    let setup = |what: &str, e: std::io::Error| {
        SimError::Live {
        detail: match e.raw_os_error() {
            Some(libc::EPERM) | Some(libc::EACCES) => format!(
                "{what}: {e}; live runs need root, or unprivileged user namespaces (skyhop live re-runs itself in one when it can)"
            ),
            _ => format!("{what}: {e}"),
        },
    }
    };
    // The hosts: a namespace and a device each. Under real-time scheduling
    // the engine's thread is pinned to the last CPU, and the hosts' receive
    // processing is steered to the others, so a packet the engine writes
    // into a device does not run the receiving host's stack on the engine's
    // CPU (docs/live.md, "What happens").
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pin = opts.realtime && cpus > 1;
    let steer = pin.then(|| sys::cpu_mask_except(cpus, cpus - 1));
    let mut hosts = Vec::with_capacity(live.len());
    for &n in &live {
        let h = Host::create(n, &plan.nodes[n as usize], steer.as_deref()).map_err(|e| {
            setup(
                &format!("making the host of node {}", plan.nodes[n as usize]),
                e,
            )
        })?;
        hosts.push(h);
    }
    let ns_inodes: Vec<u64> = hosts.iter().filter_map(|h| h.ns_inode().ok()).collect();
    let run_opts = RunOptions {
        trace: opts.trace,
        trace_options: Default::default(),
        packet_log: opts.pcap.as_ref().map(|(_, dirs)| PacketLogOptions {
            link_dirs: Some(dirs.clone()),
            from: Time::ZERO,
            to: Time::MAX,
            built_links: true,
        }),
        cancel: None,
    };
    let pcap = match &opts.pcap {
        Some((dir, dirs)) => Some(
            crate::export::pcap::PcapStream::create(plan, dir, dirs, "")
                .map_err(|e| setup(&format!("writing pcap files into {}", dir.display()), e))?,
        ),
        None => None,
    };
    let mut world = World::build(plan, seed, &run_opts);
    // Every node's address, for every command.
    let env: Vec<(String, String)> = plan
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let [a, b, c, d] = node_ip(i as u32);
            (addr_var(n), format!("{a}.{b}.{c}.{d}"))
        })
        .collect();
    let unshare = commands::unshare_binary();
    let mut cmds = Commands {
        running: Vec::new(),
        started: Instant::now(),
        grace: Duration::from_nanos(opts.grace.0),
        ns_inodes,
        stopped: false,
    };
    // Node names resolve to addresses, other lookups fail at once.
    let names = commands::NameFiles::create(
        &plan
            .nodes
            .iter()
            .zip(&env)
            .map(|(n, (_, a))| (n.clone(), a.clone()))
            .collect::<Vec<_>>(),
    )
    .ok();
    for c in &opts.commands {
        let h = hosts
            .iter()
            .find(|h| h.node == c.node)
            .expect("a host per live node");
        let r = commands::spawn(
            c,
            h,
            &env,
            unshare.as_ref(),
            names.as_ref(),
            opts.stdout_to_stderr,
        )
        .map_err(|e| SimError::Live {
            detail: format!("node {}: cannot start {:?}: {e}", c.node_name, c.command),
        })?;
        cmds.running.push(r);
    }
    drop(names); // the commands' mounts keep the files
    cmds.started = Instant::now();
    let mut rt = if opts.realtime {
        sys::realtime(true, pin)
    } else {
        Realtime::default()
    };
    let steer_error = hosts.iter().find_map(|h| h.steer_error.clone());
    rt.receive_cpus = steer.filter(|_| steer_error.is_none());
    rt.notes.extend(steer_error);
    let end = Time(opts.duration.unwrap_or(plan.duration).0);
    let recorder = match &opts.record {
        Some(p) => {
            let names: Vec<(u32, String)> =
                hosts.iter().map(|h| (h.node, h.name.clone())).collect();
            Some(
                record::Recorder::create(p, plan.nodes.len(), &names)
                    .map_err(|e| setup(&format!("writing the record {}", p.display()), e))?,
            )
        }
        None => None,
    };
    let lateness = lateness::Lateness::new(opts.lateness_abort.map(|d| d.0));
    let cancel = opts.cancel.clone();
    let running = &mut cmds.running;
    let started = cmds.started;
    let mut should_stop = || -> Option<StopReason> {
        let mut all_done = true;
        let mut any_fg = false;
        for r in running.iter_mut() {
            let done = r.poll(started);
            if !r.spec.background {
                any_fg = true;
                all_done &= done;
            }
        }
        if any_fg && all_done {
            return Some(StopReason::CommandsDone);
        }
        if cancel.as_ref().is_some_and(|c| c()) {
            return Some(StopReason::Interrupted);
        }
        None
    };
    let mut driver = driver::WallClock::new(
        &hosts,
        plan,
        end,
        &mut should_stop,
        lateness,
        recorder,
        pcap,
    );
    driver.wake_window = opts.wake_window;
    let cpu0 = sys::thread_cpu_s();
    let driven = driver.drive(&mut world);
    let engine_cpu_s = sys::thread_cpu_s() - cpu0;
    if opts.realtime {
        sys::normal_scheduling();
    }
    let stop_reason = driver.stopped.unwrap_or(StopReason::Duration);
    let counters = driver.counters;
    let busiest_second = driver.busiest_second;
    let lateness = driver.lateness.summary();
    let mut record_error = driver.record_error.take();
    let recorder = driver.recorder.take();
    let record_packets = recorder.as_ref().map(|r| r.packets);
    let pcap_error = driver.pcap_error.take();
    let pcap_files = driver.pcap.take();
    drop(driver);
    cmds.stop();
    let stop = driven?;
    // A record that cannot be completed (a full disk) costs the record,
    // not the run's results: the report says so, and the record stays
    // without the blocks that would let it be replayed.
    if let Some(r) = recorder {
        if let Err(e) = r.finish(stop) {
            record_error = Some(e.to_string());
        }
    }
    let record_error = record_error.map(|e| {
        let path = opts.record.as_ref().map(|p| p.display().to_string());
        format!("{}: cannot write: {e}", path.unwrap_or_default())
    });
    let pcap_files = match pcap_files {
        Some(mut p) => {
            // What the log holds since the last write.
            if let Some(rest) = world.take_packet_log_before(Time::MAX) {
                p.write(plan, &rest)
                    .map_err(|e| setup("writing pcap files", e))?;
            }
            let files = p.finish().map_err(|e| setup("writing pcap files", e))?;
            Some(
                files
                    .into_iter()
                    .map(|(p, n)| (p.display().to_string(), n))
                    .collect(),
            )
        }
        None => None,
    };
    if let Some(e) = pcap_error {
        return Err(SimError::Live {
            detail: format!("writing pcap files: {e}"),
        });
    }
    if stop_reason == StopReason::Interrupted {
        return Err(SimError::Cancelled {
            sim_time_s: stop.as_secs_f64(),
        });
    }
    let mut warnings = Vec::new();
    let warn_s = opts.lateness_warn.as_secs_f64();
    if let Some(w) = lateness_warning(lateness.p99_s, warn_s, opts.realtime, &rt) {
        warnings.push(w);
    }
    if let Some(w) = busy_warning(busiest_second, &rt, opts.wake_window, sys::rt_limit()) {
        warnings.push(w);
    }
    if stop_reason == StopReason::Lateness {
        return Err(SimError::Live {
            detail: format!(
                "stopped at t = {:.3} s: more than 1 % of the packets were later than {:.3} ms (--lateness-abort)",
                stop.as_secs_f64(),
                opts.lateness_abort.unwrap_or_default().as_secs_f64() * 1e3
            ),
        });
    }
    let commands: Vec<CommandResult> = cmds
        .running
        .iter()
        .filter_map(|r| r.result.clone())
        .collect();
    let exit_code = commands
        .iter()
        .filter(|c| c.status() != 0)
        .min_by(|a, b| {
            a.ended_at_s
                .unwrap_or(f64::MAX)
                .total_cmp(&b.ended_at_s.unwrap_or(f64::MAX))
        })
        .map_or(0, |c| c.status());
    let mut result = world.finish(stop);
    result.warnings.extend(warnings.iter().cloned());
    let report = LiveReport {
        hosts: hosts.iter().map(Host::info).collect(),
        commands,
        stop_reason,
        duration_s: stop.as_secs_f64(),
        stop_ns: stop.0,
        lateness,
        lateness_warn_s: warn_s,
        wake_window_s: opts.wake_window.as_secs_f64(),
        packets: counters,
        realtime: rt,
        engine_cpu_s,
        engine_busiest_second: busiest_second,
        pid_namespaces: unshare.is_some(),
        record: opts.record.as_ref().map(|p| p.display().to_string()),
        record_packets,
        record_error,
        pcap_files,
        warnings,
        exit_code,
    };
    drop(cmds);
    drop(hosts);
    Ok(LiveOutcome { result, report })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lateness_warning_suggests_what_was_not_used() {
        let none = Realtime::default();
        let fifo = Realtime {
            fifo_priority: Some(50),
            ..Default::default()
        };
        assert_eq!(lateness_warning(Some(0.5e-3), 1e-3, true, &fifo), None);
        assert_eq!(lateness_warning(None, 1e-3, true, &fifo), None);
        let off = lateness_warning(Some(2e-3), 1e-3, false, &none).unwrap();
        assert!(off.starts_with("lateness p99 2.000 ms is above 1.000 ms"));
        assert!(off.contains("without --no-realtime"), "{off}");
        let refused = lateness_warning(Some(2e-3), 1e-3, true, &none).unwrap();
        assert!(refused.contains("SCHED_FIFO) was refused"), "{refused}");
        let busy = lateness_warning(Some(2e-3), 1e-3, true, &fifo).unwrap();
        assert!(busy.contains("a busy machine"), "{busy}");
        for w in [off, refused, busy] {
            assert!(!w.contains("--realtime"), "no such option: {w}");
        }
    }

    #[test]
    fn a_thread_near_the_real_time_limit_is_warned_of() {
        let fifo = Realtime {
            fifo_priority: Some(50),
            ..Default::default()
        };
        let none = Realtime::default();
        let w = busy_warning(0.91, &fifo, Dur::ZERO, Some(0.95)).unwrap();
        assert!(
            w.starts_with("the engine's thread was busy 91 % of its busiest second"),
            "{w}"
        );
        assert!(
            w.contains("limit of 95 %") && w.contains("--wake-window 20us"),
            "{w}"
        );
        let wide = busy_warning(0.93, &fifo, Dur(20_000), Some(0.95)).unwrap();
        assert!(wide.contains("a wider --wake-window"), "{wide}");
        // below the limit's five points, without SCHED_FIFO, or no limit: nothing
        assert_eq!(busy_warning(0.89, &fifo, Dur::ZERO, Some(0.95)), None);
        assert_eq!(busy_warning(0.99, &none, Dur::ZERO, Some(0.95)), None);
        assert_eq!(busy_warning(0.99, &fifo, Dur::ZERO, None), None);
    }
}
