//! A live run and a replay as the command line asks for them (nodes and
//! links by name, times in seconds; JSON from Python), resolved against a
//! plan, with errors naming the option (`--run`, `--daemon`,
//! `--pcap-links`, `record`).

use std::path::PathBuf;

use serde::Deserialize;

use super::{CommandSpec, LiveOptions, LiveOutcome};
use crate::engine::{Dur, Time};
use crate::error::{ScenarioError, SimError};
use crate::export::{link_dirs_by_name, observe, option_error, ObservedRun};
use crate::observe::PacketLogOptions;
use crate::scenario::Plan;
use crate::sim::{CancelFn, RunOptions};

/// A command on a node, by name.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandRequest {
    pub node: String,
    pub command: String,
    /// A daemon (`--daemon`): stopped at the end rather than waited for.
    #[serde(default)]
    pub background: bool,
}

/// A live run (`skyhop live`); see [`LiveOptions`] for each field.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiveRequest {
    pub commands: Vec<CommandRequest>,
    #[serde(default)]
    pub live_nodes: Vec<String>,
    pub duration_s: Option<f64>,
    pub grace_s: f64,
    pub lateness_warn_s: f64,
    pub lateness_abort_s: Option<f64>,
    pub realtime: bool,
    #[serde(default)]
    pub wake_window_s: f64,
    pub record: Option<PathBuf>,
    #[serde(default)]
    pub trace: bool,
    pub pcap_dir: Option<PathBuf>,
    /// Links of the pcap files; all if absent.
    pub pcap_links: Option<Vec<String>>,
    #[serde(default)]
    pub stdout_to_stderr: bool,
}

/// Seconds as a duration; a negative, infinite or NaN value (which the
/// command line never passes) is refused, not coerced.
fn dur(s: f64, key: &str) -> Result<Dur, ScenarioError> {
    let ns = (s * 1e9).round();
    if !(0.0..=u64::MAX as f64).contains(&ns) {
        return Err(option_error(key, format!("{s} s is not a duration")));
    }
    Ok(Dur(ns as u64))
}

fn node_index(plan: &Plan, name: &str, key: &str) -> Result<u32, ScenarioError> {
    let i = plan.nodes.iter().position(|n| n == name).ok_or_else(|| {
        let nodes = plan.nodes.join(", ");
        option_error(key, format!("unknown node {name:?} (nodes: {nodes})"))
    })?;
    Ok(i as u32)
}

impl LiveRequest {
    /// The live run's options on `plan`.
    pub fn options(
        &self,
        plan: &Plan,
        cancel: Option<CancelFn>,
    ) -> Result<LiveOptions, ScenarioError> {
        let mut commands = Vec::new();
        for c in &self.commands {
            let key = if c.background { "--daemon" } else { "--run" };
            commands.push(CommandSpec {
                node: node_index(plan, &c.node, key)?,
                node_name: c.node.clone(),
                command: c.command.clone(),
                background: c.background,
            });
        }
        let live_nodes = (self.live_nodes.iter())
            .map(|n| node_index(plan, n, "live"))
            .collect::<Result<Vec<_>, _>>()?;
        let pcap = match (&self.pcap_dir, &self.pcap_links) {
            (None, _) => None,
            (Some(d), None) => Some((d.clone(), (0..plan.links.len() as u32).collect())),
            (Some(d), Some(n)) => Some((
                d.clone(),
                link_dirs_by_name(plan, n).map_err(|m| option_error("--pcap-links", m))?,
            )),
        };
        Ok(LiveOptions {
            commands,
            live_nodes,
            duration: self.duration_s.map(|s| dur(s, "duration")).transpose()?,
            grace: dur(self.grace_s, "--grace")?,
            lateness_warn: dur(self.lateness_warn_s, "--lateness-warn")?,
            lateness_abort: (self.lateness_abort_s)
                .map(|s| dur(s, "--lateness-abort"))
                .transpose()?,
            realtime: self.realtime,
            wake_window: dur(self.wake_window_s, "--wake-window")?,
            record: self.record.clone(),
            trace: self.trace,
            pcap,
            stdout_to_stderr: self.stdout_to_stderr,
            cancel,
        })
    }

    /// Run `plan` live with `seed`.
    pub fn run(
        &self,
        plan: &Plan,
        seed: u64,
        cancel: Option<CancelFn>,
    ) -> Result<LiveOutcome, SimError> {
        super::run_live(plan, seed, &self.options(plan, cancel)?)
    }
}

/// The replay of a live run's record (`skyhop replay`).
#[derive(Clone, Debug)]
pub struct ReplayRequest {
    /// The record's `arrivals.pcapng`.
    pub arrivals: PathBuf,
    /// The live nodes, by name.
    pub live_nodes: Vec<String>,
    /// Where the live run stopped.
    pub stop: Time,
    pub trace: bool,
    /// Write pcap files of every link direction here.
    pub pcap_dir: Option<PathBuf>,
}

impl ReplayRequest {
    /// Replay the record into `plan` with `seed`; a bad record is an error
    /// of `record`.
    pub fn run(
        &self,
        plan: &Plan,
        seed: u64,
        cancel: Option<CancelFn>,
    ) -> Result<ObservedRun, SimError> {
        let recorded = super::record::read(&self.arrivals, super::record::MAX_RECORD_BYTES)
            .map_err(|m| option_error("record", format!("{}: {m}", self.arrivals.display())))?;
        let all: Vec<u32> = (0..plan.links.len() as u32).collect();
        let opts = RunOptions {
            trace: self.trace,
            trace_options: Default::default(),
            packet_log: self.pcap_dir.as_ref().map(|_| PacketLogOptions {
                link_dirs: Some(all.clone()),
                from: Time::ZERO,
                to: Time::MAX,
                built_links: true,
            }),
            cancel,
        };
        let mut result =
            super::replay::run_replay(plan, seed, recorded, &self.live_nodes, self.stop, &opts)
                .map_err(|e| match e {
                    SimError::Live { detail } => option_error("record", detail).into(),
                    e => e,
                })?;
        let pcap_files = match (&self.pcap_dir, result.packet_log.take()) {
            (Some(dir), Some(log)) => Some(observe::write_pcaps(plan, &log, dir, &all, "")?),
            _ => None,
        };
        Ok(ObservedRun {
            result,
            packet_log: None,
            pcap_files,
        })
    }
}
