//! Observed runs (the per-packet log and pcap files) and the memory check
//! made before runs start: `skyhop::export::observe`, marshalled
//! (`observe_json`: the fields of `skyhop::export::Observe`).

use pyo3::prelude::*;
use skyhop::export::Observe;

use crate::{cancel_check, from_json, released, to_json, PyLoaded};

/// Simulate like `run`, with the per-packet observer on: the `RunResult`
/// JSON with, when asked, `packet_log` (columns) and `pcap_files`
/// (`[[path, packets], ...]`).
#[pyfunction]
#[pyo3(signature = (scenario, seed, trace, observe_json))]
pub(crate) fn run_observed(
    py: Python<'_>,
    scenario: &PyLoaded,
    seed: u64,
    trace: bool,
    observe_json: &str,
) -> PyResult<String> {
    let loaded = scenario.shared();
    released(py, "running the simulation", || {
        let observe: Observe = from_json(observe_json, "run_observed")?;
        let observer = observe.resolve(&loaded.plan)?;
        let run = observer.run(&loaded.plan, seed, trace, Some(cancel_check()))?;
        to_json(&run, "the run result")
    })
}

/// Refuse, before any starts, `runs` runs of a loaded scenario (`jobs` at
/// once) whose estimated memory would exceed the limit
/// (`skyhop::export::check_memory`): a `ScenarioError` naming the
/// scenario's file, the largest part's key and what to change.
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
    let (loaded, file) = (scenario.shared(), scenario.file.as_str());
    released(py, "estimating the memory of the runs", || {
        let observe: Option<Observe> = observe_json
            .map(|j| from_json(j, "check_memory"))
            .transpose()?;
        let plan = &loaded.plan;
        Ok(skyhop::export::check_memory(
            plan,
            file,
            trace,
            observe.as_ref(),
            runs,
            jobs,
        )?)
    })
}
