//! Observed runs with the command line's semantics: which link directions
//! the per-packet log and the pcap files record and over which window, how
//! the pcap files are named, the trace's thinning, the memory check of
//! runs that record, and the errors of a bad option, each naming its
//! option (`--packet-log-links`, `--pcap`, `--trace-every`, ...). The CLI,
//! the Python API and a Rust program (`examples/`) all go through here.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{link_dirs_by_name, packet_table, pcap, PacketTable};
use crate::engine::time::{Dur, Time};
use crate::error::{ScenarioError, SimError};
use crate::observe::{PacketLog, PacketLogOptions, TraceOptions};
use crate::result::RunResult;
use crate::scenario::{Plan, Recording};
use crate::sim::{CancelFn, RunOptions};

/// What a run records and writes besides its results (the command line's
/// `--packet-log*`, `--pcap*` and `--trace-*` options; JSON from Python).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Observe {
    /// Return the per-packet log as a table (`--packet-log`).
    #[serde(default)]
    pub log: bool,
    /// Links of the log (names, `name:forward`, `name:reverse`); all if absent.
    pub log_links: Option<Vec<String>>,
    /// Time window of the log, seconds, both ends included; all if absent.
    pub log_window: Option<(f64, f64)>,
    /// Write one pcap file per link direction into this folder (`--pcap`).
    pub pcap_dir: Option<PathBuf>,
    /// Links of the pcap files; all if absent.
    pub pcap_links: Option<Vec<String>>,
    /// Name each pcap file after its run's seed (`--pcap-per-seed`):
    /// `<link>.<direction>.seed<N>.pcap` instead of `<link>.<direction>.pcap`.
    #[serde(default)]
    pub pcap_per_seed: bool,
    /// With a trace: one row per this many seconds at most (`--trace-every`).
    pub trace_every_s: Option<f64>,
    /// With a trace: only these quantities (`--trace-series`).
    pub trace_series: Option<Vec<String>>,
}

/// An error of an option (not of the scenario file): `<options>: KEY: message`.
pub fn option_error(key: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError::new("<options>", key, message)
}

impl Observe {
    /// The trace's thinning, checked.
    pub fn trace_options(&self) -> Result<TraceOptions, ScenarioError> {
        let every = match self.trace_every_s {
            Some(s) if !(s.is_finite() && s > 0.0) => {
                return Err(option_error(
                    "--trace-every",
                    format!("must be a positive duration, got {s} s"),
                ))
            }
            Some(s) => Some(Dur(((s * 1e9).round() as u64).max(1))),
            None => None,
        };
        let t = TraceOptions {
            every,
            quantities: self.trace_series.clone(),
        };
        t.check().map_err(|m| option_error("--trace-series", m))?;
        Ok(t)
    }

    /// Whether the per-packet observer is on (a log or pcap files).
    pub fn packets(&self) -> bool {
        self.log || self.pcap_dir.is_some()
    }

    /// The suffix of the pcap files of the run with `seed`.
    pub fn pcap_suffix(&self, seed: u64) -> String {
        if self.pcap_per_seed {
            format!(".seed{seed}")
        } else {
            String::new()
        }
    }

    /// These options resolved against `plan` (link names checked).
    pub fn resolve(&self, plan: &Plan) -> Result<Observer, ScenarioError> {
        let pick = |names: &Option<Vec<String>>, key: &str| match names {
            None => Ok((0..plan.links.len() as u32).collect()),
            Some(n) => link_dirs_by_name(plan, n).map_err(|m| option_error(key, m)),
        };
        let log_dirs: Vec<u32> = pick(&self.log_links, "--packet-log-links")?;
        let pcap_dirs: Vec<u32> = pick(&self.pcap_links, "--pcap-links")?;
        let secs = |s: f64| Time((s.max(0.0) * 1e9).round().min(u64::MAX as f64) as u64);
        let (from, to) = self
            .log_window
            .map_or((Time::ZERO, Time::MAX), |(a, b)| (secs(a), secs(b)));
        let pcap = self.pcap_dir.is_some();
        let mut dirs: Vec<u32> = Vec::new();
        if self.log {
            dirs.extend(&log_dirs);
        }
        if pcap {
            dirs.extend(&pcap_dirs);
        }
        dirs.sort_unstable();
        dirs.dedup();
        // pcap files hold the whole run, and the links a moving network builds.
        let (w0, w1) = if pcap {
            (Time::ZERO, Time::MAX)
        } else {
            (from, to)
        };
        Ok(Observer {
            observe: self.clone(),
            trace_options: self.trace_options()?,
            log_dirs,
            pcap_dirs,
            from,
            to,
            recorded: self.packets().then_some(PacketLogOptions {
                link_dirs: Some(dirs),
                from: w0,
                to: w1,
                built_links: pcap,
            }),
        })
    }
}

/// [`Observe`] resolved against a plan.
#[derive(Clone, Debug)]
pub struct Observer {
    observe: Observe,
    trace_options: TraceOptions,
    log_dirs: Vec<u32>,
    pcap_dirs: Vec<u32>,
    from: Time,
    to: Time,
    /// What the engine records: the union of the log's and the pcap
    /// files' link directions; the log's window only without pcap files.
    recorded: Option<PacketLogOptions>,
}

/// An observed run's result: the run's, with the packet log's table and
/// the pcap files written (`[path, packets]`) when asked for.
#[derive(Clone, Debug, Serialize)]
pub struct ObservedRun {
    #[serde(flatten)]
    pub result: RunResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packet_log: Option<PacketTable>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pcap_files: Option<Vec<(String, u64)>>,
}

impl Observer {
    /// What the runs record, for the memory check.
    pub fn recording(&self, trace: bool) -> Recording {
        Recording {
            trace,
            trace_options: self.trace_options.clone(),
            packet_log: self.recorded.clone(),
            pcap_only: !self.observe.log && self.observe.pcap_dir.is_some(),
        }
    }

    /// The options of a run with `trace` (and `cancel`).
    pub fn run_options(&self, trace: bool, cancel: Option<CancelFn>) -> RunOptions {
        RunOptions {
            trace,
            trace_options: self.trace_options.clone(),
            packet_log: self.recorded.clone(),
            cancel,
        }
    }

    /// Simulate `plan` with `seed` and observe it: the pcap files written,
    /// the log kept to its links and window.
    pub fn run(
        &self,
        plan: &Plan,
        seed: u64,
        trace: bool,
        cancel: Option<CancelFn>,
    ) -> Result<ObservedRun, SimError> {
        let mut result = crate::sim::run_plan(plan, seed, &self.run_options(trace, cancel))?;
        let log = result.packet_log.take().unwrap_or_default();
        let pcap_files = match &self.observe.pcap_dir {
            Some(dir) => {
                let suffix = self.observe.pcap_suffix(seed);
                Some(write_pcaps(plan, &log, dir, &self.pcap_dirs, &suffix)?)
            }
            None => None,
        };
        let packet_log = self.observe.log.then(|| {
            let mut kept = PacketLog::default();
            kept.conns = log.conns;
            kept.events = (log.events.into_iter())
                .filter(|e| {
                    self.log_dirs.binary_search(&e.link_dir).is_ok()
                        && e.t >= self.from
                        && e.t <= self.to
                })
                .collect();
            packet_table(&kept, plan)
        });
        Ok(ObservedRun {
            result,
            packet_log,
            pcap_files,
        })
    }
}

/// [`pcap::write_pcaps`] with an error naming `--pcap` and the file.
pub fn write_pcaps(
    plan: &Plan,
    log: &PacketLog,
    dir: &Path,
    link_dirs: &[u32],
    suffix: &str,
) -> Result<Vec<(String, u64)>, ScenarioError> {
    let files = pcap::write_pcaps(plan, log, dir, link_dirs, suffix)
        .map_err(|e| option_error("--pcap", format!("cannot write {e}")))?;
    Ok(files
        .into_iter()
        .map(|(p, n)| (p.to_string_lossy().into_owned(), n))
        .collect())
}

/// Refuse, before any starts, `runs` runs of `plan` (`jobs` at once)
/// recording `trace` and what `observe` asks for, whose estimated memory
/// would exceed the limit (see [`crate::scenario::check_with`]).
pub fn check_memory(
    plan: &Plan,
    file: &str,
    trace: bool,
    observe: Option<&Observe>,
    runs: u64,
    jobs: u64,
) -> Result<(), ScenarioError> {
    let rec = match observe {
        Some(o) => o.resolve(plan)?.recording(trace),
        None => Recording {
            trace,
            ..Recording::default()
        },
    };
    crate::scenario::check_with(plan, file, &rec, runs, jobs)
}
