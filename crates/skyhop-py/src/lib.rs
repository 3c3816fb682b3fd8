//! PyO3 bindings of the skyhop engine, imported as `skyhop._core`: argument
//! marshalling only (what to observe, sample or refuse is decided in the
//! engine: `skyhop::export`, `skyhop::live::request`). The typed Python
//! facade lives in `python/skyhop/`.
//!
//! [`load_scenario`] reads and checks a scenario and returns it as a
//! [`PyLoaded`]: the engine's resolved plan, built once and shared by every
//! run, description and memory check of it, and the resolved scenario as
//! JSON text. Results go back as JSON text; errors as `skyhop.errors`
//! exceptions (`errors.rs`).

// pyo3 0.22's #[pyfunction] expansion trips this lint on `PyResult` returns.
#![allow(clippy::useless_conversion)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pyo3::prelude::*;
use skyhop::scenario::Loaded;
use skyhop::ScenarioError;

mod errors;
#[cfg(target_os = "linux")]
mod live;
mod observed;

pub(crate) use errors::{from_json, internal, released, to_json};

/// Set by `cancel()`: every run in this process stops within a few
/// thousand events (cleared by `reset_cancel()`).
static CANCEL: AtomicBool = AtomicBool::new(false);

/// The engine's cancellation check for runs started from Python: the
/// process-wide flag, or a pending signal (Ctrl-C) with a Python handler
/// that raises, checked with the GIL every 4096 events (only the main
/// thread runs Python signal handlers; other threads see the flag).
pub(crate) fn cancel_check() -> skyhop::sim::CancelFn {
    Arc::new(|| {
        CANCEL.load(Ordering::Relaxed) || Python::with_gil(|py| py.check_signals().is_err())
    })
}

/// Ask every run in this process to stop (used by the Python layer on Ctrl-C).
#[pyfunction]
fn cancel() {
    CANCEL.store(true, Ordering::Relaxed);
}

/// Clear the cancellation flag (before starting new runs).
#[pyfunction]
fn reset_cancel() {
    CANCEL.store(false, Ordering::Relaxed);
}

/// A scenario the engine has loaded: its plan (built once; every run of it
/// shares it) and the resolved scenario (defaults filled in, units as
/// strings) as JSON text (`json`), with the file its errors name (`file`).
#[pyclass(frozen, module = "skyhop._core", name = "Loaded")]
pub(crate) struct PyLoaded {
    inner: Arc<Loaded>,
    #[pyo3(get)]
    file: String,
    #[pyo3(get)]
    json: String,
}

#[pymethods]
impl PyLoaded {
    fn __repr__(&self) -> String {
        format!("Loaded({:?})", self.file)
    }
}

impl PyLoaded {
    /// The loaded scenario, to use without the GIL.
    pub(crate) fn shared(&self) -> Arc<Loaded> {
        Arc::clone(&self.inner)
    }
}

/// Read, check and resolve a scenario: a [`PyLoaded`].
///
/// `text` is TOML (`fmt="toml"`) or JSON (`fmt="json"`); `file` names it in
/// error messages; `sets` are `"dotted.path=VALUE"` overrides, VALUE read as
/// a TOML value (a bare word being a string). `base` is the directory
/// relative file paths in the scenario (fade traces, masking files) are
/// resolved against: the scenario file's; default the working directory.
#[pyfunction]
#[pyo3(signature = (text, file, sets=Vec::new(), fmt="toml", base=None))]
fn load_scenario(
    py: Python<'_>,
    text: &str,
    file: &str,
    sets: Vec<String>,
    fmt: &str,
    base: Option<&str>,
) -> PyResult<PyLoaded> {
    released(py, "loading the scenario", || {
        let cwd = std::env::current_dir().unwrap_or_default();
        let base = base.map_or(cwd, std::path::PathBuf::from);
        let loaded = match fmt {
            "toml" => skyhop::scenario::load_str_plan(text, file, &sets, &base)?,
            "json" => skyhop::scenario::load_json_str_plan(text, file, &sets, &base)?,
            other => return Err(internal(format!("load_scenario: unknown format {other:?}"))),
        };
        let json = to_json(&loaded.scenario, "the resolved scenario")?;
        let (inner, file) = (Arc::new(loaded), file.to_string());
        Ok(PyLoaded { inner, file, json })
    })
}

/// Plans built in this process so far (a loaded scenario builds one; its
/// runs, description and memory check build none).
#[pyfunction]
fn plan_builds() -> u64 {
    skyhop::scenario::plan_builds()
}

/// Simulate a loaded scenario for one seed: the `RunResult` as JSON text
/// (`observed::run_observed` with nothing observed).
#[pyfunction]
#[pyo3(signature = (scenario, seed, trace=false))]
fn run(py: Python<'_>, scenario: &PyLoaded, seed: u64, trace: bool) -> PyResult<String> {
    observed::run_observed(py, scenario, seed, trace, "{}")
}

/// The resolved network of a loaded scenario as JSON: links, flows, legs,
/// warnings (see `skyhop::scenario::describe`).
#[pyfunction]
fn describe(py: Python<'_>, scenario: &PyLoaded) -> PyResult<String> {
    let loaded = scenario.shared();
    released(py, "describing the scenario", || {
        let description = skyhop::scenario::describe::describe(&loaded.scenario, &loaded.plan);
        to_json(&description, "the description")
    })
}

/// The channel of one direction of a link of a loaded scenario sampled
/// over time, as the run with `seed` would see it
/// (`skyhop::export::sample_channel`), as JSON.
#[pyfunction]
#[pyo3(signature = (scenario, link, direction, seed, duration_s, step_s, skyline_at_s=Vec::new()))]
#[allow(clippy::too_many_arguments)]
fn sample_channel(
    py: Python<'_>,
    scenario: &PyLoaded,
    link: &str,
    direction: &str,
    seed: u64,
    duration_s: f64,
    step_s: f64,
    skyline_at_s: Vec<f64>,
) -> PyResult<String> {
    let loaded = scenario.shared();
    released(py, "sampling the channel", || {
        let sample = skyhop::export::sample_channel(
            &loaded,
            link,
            direction,
            seed,
            duration_s,
            step_s,
            &skyline_at_s,
        )?;
        to_json(&sample, "the channel sample")
    })
}

/// A duration as the engine reads it in scenario files (`"120 s"`,
/// `"500 ms"`, `"2 min"`), in seconds: Python uses this one parser wherever
/// it accepts a duration, so that an option and a scenario key accept the
/// same texts and refuse the others with the same `ScenarioError`.
#[pyfunction]
#[pyo3(signature = (text, key="duration", file="<options>"))]
fn parse_duration(py: Python<'_>, text: &str, key: &str, file: &str) -> PyResult<f64> {
    let parsed = skyhop::units::Duration::parse(text).map(|d| d.0.as_secs_f64());
    parsed.map_err(|m| errors::scenario_error(py, ScenarioError::new(file, key, m)))
}

/// The JSON Schema of the scenario format (draft-07), generated from the
/// engine's own scenario types.
#[pyfunction]
fn scenario_json_schema() -> String {
    skyhop::scenario::json_schema::scenario_json_schema().to_string()
}

/// Version of the compiled engine.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::install_panic_hook();
    m.add_class::<PyLoaded>()?;
    m.add("MAX_RUNS", skyhop::scenario::MAX_RUNS)?;
    m.add_function(wrap_pyfunction!(load_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(plan_builds, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(observed::run_observed, m)?)?;
    m.add_function(wrap_pyfunction!(observed::check_memory, m)?)?;
    m.add_function(wrap_pyfunction!(sample_channel, m)?)?;
    m.add_function(wrap_pyfunction!(cancel, m)?)?;
    m.add_function(wrap_pyfunction!(reset_cancel, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    #[cfg(target_os = "linux")]
    {
        m.add_function(wrap_pyfunction!(live::live, m)?)?;
        m.add_function(wrap_pyfunction!(live::replay, m)?)?;
    }
    Ok(())
}
