//! Bindings of live runs (`skyhop live`) and their replay (`skyhop replay`).

use super::observed::options_error;
use super::{cancel_check, guarded, python_error, to_json, Failure, PyLoaded};
use pyo3::prelude::*;
use serde::Deserialize;
use skyhop::engine::{Dur, Time};
use skyhop::error::SimError;
use skyhop::export::{link_dirs_by_name, pcap};
use skyhop::live::{CommandSpec, LiveOptions};
use skyhop::observe::PacketLogOptions;
use skyhop::scenario::Plan;
use skyhop::RunOptions;

/// A command as the Python layer passes it.
#[derive(Deserialize)]
struct Cmd {
    node: String,
    command: String,
    #[serde(default)]
    background: bool,
}

#[derive(Deserialize)]
struct LiveArgs {
    commands: Vec<Cmd>,
    #[serde(default)]
    live_nodes: Vec<String>,
    duration_s: Option<f64>,
    grace_s: f64,
    lateness_warn_s: f64,
    lateness_abort_s: Option<f64>,
    realtime: bool,
    record: Option<String>,
    #[serde(default)]
    trace: bool,
    pcap_dir: Option<String>,
    pcap_links: Option<Vec<String>>,
    #[serde(default)]
    stdout_to_stderr: bool,
}

fn dur(s: f64) -> Dur {
    Dur((s.max(0.0) * 1e9).round().min(u64::MAX as f64) as u64)
}

fn node_index(plan: &Plan, name: &str, key: &str) -> Result<u32, Failure> {
    plan.nodes
        .iter()
        .position(|n| n == name)
        .map(|i| i as u32)
        .ok_or_else(|| {
            options_error(
                key,
                format!("unknown node {name:?} (nodes: {})", plan.nodes.join(", ")),
            )
        })
}

/// Write the pcap files of `log` for `links` into `dir`; `[[path, packets], ...]`.
fn pcaps(
    plan: &Plan,
    log: &skyhop::observe::PacketLog,
    dir: &str,
    dirs: &[u32],
) -> Result<serde_json::Value, Failure> {
    let files = pcap::write_pcaps(plan, log, std::path::Path::new(dir), dirs, "")
        .map_err(|e| options_error("--pcap", format!("cannot write {e}")))?;
    let files: Vec<(String, u64)> = files
        .into_iter()
        .map(|(p, n)| (p.to_string_lossy().into_owned(), n))
        .collect();
    Ok(serde_json::json!(files))
}

/// Run a loaded scenario live with `seed`: returns JSON
/// `{"result": RunResult, "live": LiveReport, "pcap_files": ...}`.
#[pyfunction]
pub(crate) fn live(
    py: Python<'_>,
    scenario: &PyLoaded,
    seed: u64,
    args_json: &str,
) -> PyResult<String> {
    let (loaded, _) = scenario.shared();
    let result = py.allow_threads(|| {
        guarded("the live run", || {
            let a: LiveArgs = serde_json::from_str(args_json)
                .map_err(|e| Failure::Internal(format!("live: bad options: {e}")))?;
            let plan = &loaded.plan;
            let mut commands = Vec::new();
            for c in &a.commands {
                let key = if c.background { "--daemon" } else { "--run" };
                commands.push(CommandSpec {
                    node: node_index(plan, &c.node, key)?,
                    node_name: c.node.clone(),
                    command: c.command.clone(),
                    background: c.background,
                });
            }
            let live_nodes = a
                .live_nodes
                .iter()
                .map(|n| node_index(plan, n, "live"))
                .collect::<Result<Vec<_>, _>>()?;
            let pcap_dirs = match (&a.pcap_dir, &a.pcap_links) {
                (None, _) => None,
                (Some(_), None) => Some((0..plan.links.len() as u32).collect::<Vec<_>>()),
                (Some(_), Some(n)) => {
                    Some(link_dirs_by_name(plan, n).map_err(|m| options_error("--pcap-links", m))?)
                }
            };
            let opts = LiveOptions {
                commands,
                live_nodes,
                duration: a.duration_s.map(dur),
                grace: dur(a.grace_s),
                lateness_warn: dur(a.lateness_warn_s),
                lateness_abort: a.lateness_abort_s.map(dur),
                realtime: a.realtime,
                record: a.record.as_ref().map(Into::into),
                trace: a.trace,
                pcap: a
                    .pcap_dir
                    .as_ref()
                    .zip(pcap_dirs)
                    .map(|(d, dirs)| (d.into(), dirs)),
                stdout_to_stderr: a.stdout_to_stderr,
                cancel: Some(cancel_check()),
            };
            let mut out = skyhop::live::run_live(plan, seed, &opts).map_err(|e| match e {
                SimError::Live { detail } => Failure::Sim {
                    kind: "live",
                    message: detail,
                },
                e => Failure::from(e),
            })?;
            out.result.packet_log = None;
            let doc = serde_json::json!({
                "result": out.result,
                "live": out.report,
            });
            to_json(&doc, "the live run's result")
        })
    });
    result.map_err(|f| python_error(py, f))
}

/// Replay a live run's record (`arrivals`, pcapng) into a loaded
/// scenario with `seed`, the live nodes by name, up to `stop_ns`: returns
/// the `RunResult` JSON (with `pcap_files` when asked).
#[pyfunction]
#[pyo3(signature = (scenario, seed, arrivals, live_nodes, stop_ns, trace, pcap_dir=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn replay(
    py: Python<'_>,
    scenario: &PyLoaded,
    seed: u64,
    arrivals: &str,
    live_nodes: Vec<String>,
    stop_ns: u64,
    trace: bool,
    pcap_dir: Option<String>,
) -> PyResult<String> {
    let (loaded, _) = scenario.shared();
    let result = py.allow_threads(|| {
        guarded("the replay", || {
            let plan = &loaded.plan;
            let max_bytes = 1u64 << 36;
            let recorded = skyhop::live::record::read(std::path::Path::new(arrivals), max_bytes)
                .map_err(|m| options_error("record", format!("{arrivals}: {m}")))?;
            let all: Vec<u32> = (0..plan.links.len() as u32).collect();
            let opts = RunOptions {
                trace,
                trace_options: Default::default(),
                packet_log: pcap_dir.as_ref().map(|_| PacketLogOptions {
                    link_dirs: Some(all.clone()),
                    from: Time::ZERO,
                    to: Time::MAX,
                    built_links: true,
                }),
                cancel: Some(cancel_check()),
            };
            let mut result = skyhop::live::replay::run_replay(
                plan,
                seed,
                recorded,
                &live_nodes,
                Time(stop_ns),
                &opts,
            )
            .map_err(|e| match e {
                SimError::Live { detail } => options_error("record", detail),
                e => Failure::from(e),
            })?;
            let log = result.packet_log.take();
            let mut doc = serde_json::to_value(&result)
                .map_err(|e| Failure::Internal(format!("cannot serialise the result: {e}")))?;
            if let (Some(dir), Some(log)) = (&pcap_dir, &log) {
                doc["pcap_files"] = pcaps(plan, log, dir, &all)?;
            }
            to_json(&doc, "the replay's result")
        })
    });
    result.map_err(|f| python_error(py, f))
}
