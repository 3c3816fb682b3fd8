//! Observed runs (the per-packet log and pcap files) and the memory check
//! made before runs start, of a loaded scenario's plan.

use pyo3::prelude::*;
use skyhop::engine::Dur;
use skyhop::engine::Time;
use skyhop::observe::{PacketLogOptions, TraceOptions};
use skyhop::scenario::{Plan, Recording};
use skyhop::{RunOptions, ScenarioError};

use crate::{cancel_check, guarded, python_error, to_json, Failure, PyLoaded};

/// What an observed run records and writes (JSON from Python).
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Observe {
    /// Return the per-packet log as columns (`packet_log` in the result).
    #[serde(default)]
    log: bool,
    /// Links of the log (names, `name:forward`, `name:reverse`); all if absent.
    log_links: Option<Vec<String>>,
    /// Time window of the log, seconds (both ends included).
    log_window: Option<(f64, f64)>,
    /// Write one pcap file per link direction into this folder.
    pcap_dir: Option<String>,
    pcap_links: Option<Vec<String>>,
    /// Appended to each pcap file's stem (e.g. `.seed3`).
    #[serde(default)]
    pcap_suffix: String,
    /// With a trace: sample each series every this many seconds.
    trace_every_s: Option<f64>,
    /// With a trace: only these quantities (`cwnd`, `srtt`, `queue`, ...).
    trace_series: Option<Vec<String>>,
}

impl Observe {
    /// The trace's thinning, checked (a bad one names its option).
    fn trace_options(&self) -> Result<TraceOptions, Failure> {
        let every = match self.trace_every_s {
            Some(s) if !(s.is_finite() && s > 0.0) => {
                return Err(options_error(
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
        t.check().map_err(|m| options_error("--trace-series", m))?;
        Ok(t)
    }

    /// Whether the per-packet observer is on (a log or pcap files).
    fn packets(&self) -> bool {
        self.log || self.pcap_dir.is_some()
    }
}

pub(crate) fn options_error(key: &str, message: String) -> Failure {
    Failure::Scenario(ScenarioError::new("<options>", key, message))
}

/// The observer's settings resolved against a plan.
struct Observer {
    obs: Observe,
    log_dirs: Vec<u32>,
    pcap_dirs: Vec<u32>,
    /// The log's window.
    from: Time,
    to: Time,
    /// What the engine records: the union of the log's and the pcap's
    /// links; the window only when no pcap is written.
    options: PacketLogOptions,
}

fn observer(plan: &Plan, observe_json: &str) -> Result<Observer, Failure> {
    use skyhop::export::link_dirs_by_name;
    let obs: Observe = serde_json::from_str(observe_json)
        .map_err(|e| Failure::Internal(format!("run_observed: bad options: {e}")))?;
    let all: Vec<u32> = (0..plan.links.len() as u32).collect();
    let pick = |names: &Option<Vec<String>>, key: &str| -> Result<Vec<u32>, Failure> {
        match names {
            None => Ok(all.clone()),
            Some(n) => link_dirs_by_name(plan, n).map_err(|m| options_error(key, m)),
        }
    };
    let log_dirs = pick(&obs.log_links, "packet_log_links")?;
    let pcap_dirs = pick(&obs.pcap_links, "pcap_links")?;
    let secs = |s: f64| Time((s.max(0.0) * 1e9).round().min(u64::MAX as f64) as u64);
    let (from, to) = obs
        .log_window
        .map_or((Time::ZERO, Time::MAX), |(a, b)| (secs(a), secs(b)));
    let mut dirs: Vec<u32> = Vec::new();
    if obs.log {
        dirs.extend(&log_dirs);
    }
    if obs.pcap_dir.is_some() {
        dirs.extend(&pcap_dirs);
    }
    dirs.sort_unstable();
    dirs.dedup();
    let window = if obs.pcap_dir.is_some() {
        (Time::ZERO, Time::MAX)
    } else {
        (from, to)
    };
    let built_links = obs.pcap_dir.is_some();
    Ok(Observer {
        obs,
        log_dirs,
        pcap_dirs,
        from,
        to,
        options: PacketLogOptions {
            link_dirs: Some(dirs),
            from: window.0,
            to: window.1,
            // pcap files of the links a moving network builds too
            built_links,
        },
    })
}

/// Simulate like `run`, with the per-packet observer on: returns the
/// `RunResult` JSON with, when asked, `packet_log` (columns) and
/// `pcap_files` (`[[path, packets], ...]`) added.
#[pyfunction]
#[pyo3(signature = (scenario, seed, trace, observe_json))]
pub(crate) fn run_observed(
    py: Python<'_>,
    scenario: &PyLoaded,
    seed: u64,
    trace: bool,
    observe_json: &str,
) -> PyResult<String> {
    use skyhop::export::{packet_table, pcap};
    let (loaded, _) = scenario.shared();
    let result = py.allow_threads(|| {
        guarded("running the simulation", || {
            let plan = &loaded.plan;
            let o = observer(plan, observe_json)?;
            let opts = RunOptions {
                trace,
                trace_options: o.obs.trace_options()?,
                packet_log: o.obs.packets().then(|| o.options.clone()),
                cancel: Some(cancel_check()),
            };
            let mut result = skyhop::sim::run_plan(plan, seed, &opts)?;
            let log = result.packet_log.take().unwrap_or_default();
            let mut doc = serde_json::to_value(&result)
                .map_err(|e| Failure::Internal(format!("cannot serialise the result: {e}")))?;
            if let Some(dir) = &o.obs.pcap_dir {
                let files = pcap::write_pcaps(
                    plan,
                    &log,
                    std::path::Path::new(dir),
                    &o.pcap_dirs,
                    &o.obs.pcap_suffix,
                )
                .map_err(|e| options_error("--pcap", format!("cannot write {e}")))?;
                let files: Vec<(String, u64)> = files
                    .into_iter()
                    .map(|(p, n)| (p.to_string_lossy().into_owned(), n))
                    .collect();
                doc["pcap_files"] = serde_json::json!(files);
            }
            if o.obs.log {
                let mut kept = skyhop::observe::PacketLog::default();
                kept.conns = log.conns;
                kept.events = log
                    .events
                    .into_iter()
                    .filter(|e| {
                        o.log_dirs.binary_search(&e.link_dir).is_ok()
                            && e.t >= o.from
                            && e.t <= o.to
                    })
                    .collect();
                doc["packet_log"] = serde_json::to_value(packet_table(&kept, plan))
                    .map_err(|e| Failure::Internal(format!("cannot serialise the log: {e}")))?;
            }
            to_json(&doc, "the run result")
        })
    });
    result.map_err(|f| python_error(py, f))
}

/// Refuse, before any starts, `runs` runs of a loaded scenario (`jobs` at
/// once) whose estimated memory would exceed the limit
/// (`SKYHOP_MEMORY_LIMIT`, default a quarter of physical memory): what each
/// run holds while it runs, and what it records (`trace`; the packet log
/// and pcap files of `observe_json`, the options of `run_observed`) kept
/// until the end. Raises a `ScenarioError` naming the scenario's file, the
/// largest part's key and what to change.
#[pyfunction]
#[pyo3(signature = (scenario, trace, observe_json, runs, jobs))]
pub(crate) fn check_memory(
    py: Python<'_>,
    scenario: &PyLoaded,
    trace: bool,
    observe_json: Option<&str>,
    runs: u64,
    jobs: u64,
) -> PyResult<()> {
    let (loaded, file) = scenario.shared();
    let result = py.allow_threads(|| {
        guarded("estimating the memory of the runs", || {
            let plan = &loaded.plan;
            let file = file.as_str();
            let observer = observe_json.map(|j| observer(plan, j)).transpose()?;
            let pcap_only = observer
                .as_ref()
                .is_some_and(|o| !o.obs.log && o.obs.pcap_dir.is_some());
            let trace_options = match &observer {
                Some(o) => o.obs.trace_options()?,
                None => TraceOptions::default(),
            };
            let rec = Recording {
                trace,
                trace_options,
                packet_log: observer.filter(|o| o.obs.packets()).map(|o| o.options),
            };
            skyhop::scenario::check_with(plan, file, &rec, runs, jobs).map_err(|mut e| {
                if pcap_only && e.key == "--packet-log" {
                    e.key = "--pcap".into();
                    e.message = e.message.replace(
                        "narrow it with --packet-log-links or --packet-log-window",
                        "narrow it with --pcap-links",
                    );
                }
                Failure::Scenario(e)
            })
        })
    });
    result.map_err(|f| python_error(py, f))
}
