//! Bindings of live runs (`skyhop live`) and their replay (`skyhop
//! replay`): `skyhop::live::request`, marshalled.

use super::{cancel_check, from_json, released, to_json, PyLoaded};
use pyo3::prelude::*;
use skyhop::live::request::{LiveRequest, ReplayRequest};

/// Run a loaded scenario live with `seed` (`args_json`: the fields of
/// `skyhop::live::request::LiveRequest`): returns JSON
/// `{"result": RunResult, "live": LiveReport}`.
#[pyfunction]
pub(crate) fn live(
    py: Python<'_>,
    scenario: &PyLoaded,
    seed: u64,
    args_json: &str,
) -> PyResult<String> {
    let loaded = scenario.shared();
    released(py, "the live run", || {
        let request: LiveRequest = from_json(args_json, "live")?;
        let out = request.run(&loaded.plan, seed, Some(cancel_check()))?;
        let doc = serde_json::json!({"result": out.result, "live": out.report});
        to_json(&doc, "the live run's result")
    })
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
    let loaded = scenario.shared();
    let request = ReplayRequest {
        arrivals: arrivals.into(),
        live_nodes,
        stop: skyhop::engine::Time(stop_ns),
        trace,
        pcap_dir: pcap_dir.map(Into::into),
    };
    released(py, "the replay", || {
        let run = request.run(&loaded.plan, seed, Some(cancel_check()))?;
        to_json(&run, "the replay's result")
    })
}
