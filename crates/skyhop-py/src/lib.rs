//! Thin PyO3 bindings of the skyhop engine, imported as `skyhop._core`.
//!
//! [`load_scenario`] reads and checks a scenario and returns it as a
//! [`PyLoaded`]: the engine's resolved plan, built once and shared by every
//! run, description and memory check of it (no JSON is parsed again), and
//! the resolved scenario as JSON text. [`run`] simulates it for one seed
//! and returns the `RunResult` as JSON. The typed Python facade lives in
//! `python/skyhop/`.
//!
//! Errors are raised as the exception classes of `skyhop.errors` (the one
//! place that defines the hierarchy): `ScenarioError(file, key, message)` for
//! a bad scenario, `SimulationError(message, kind)` for a run that could not
//! complete, `SkyhopError` otherwise. A Rust panic never crosses into Python:
//! it is caught and raised as a `SimulationError` of kind `"internal"`.

// pyo3 0.22's #[pyfunction] expansion trips this lint on `PyResult` returns.
#![allow(clippy::useless_conversion)]

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

#[cfg(target_os = "linux")]
mod live;
mod observed;

use std::sync::Arc;

use skyhop::scenario::Loaded;
use skyhop::{RunOptions, ScenarioError, SimError};

/// Set by `cancel()`: every run in this process stops within a few
/// thousand events (cleared by `reset_cancel()`).
static CANCEL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The engine's cancellation check for runs started from Python: the
/// process-wide flag, or a pending signal (Ctrl-C) with a Python handler
/// that raises, checked with the GIL every 4096 events (only the main
/// thread runs Python signal handlers; other threads see the flag).
pub(crate) fn cancel_check() -> skyhop::sim::CancelFn {
    std::sync::Arc::new(|| {
        CANCEL.load(std::sync::atomic::Ordering::Relaxed)
            || Python::with_gil(|py| py.check_signals().is_err())
    })
}

/// Ask every run in this process to stop (used by the Python layer on Ctrl-C).
#[pyfunction]
fn cancel() {
    CANCEL.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Clear the cancellation flag (before starting new runs).
#[pyfunction]
fn reset_cancel() {
    CANCEL.store(false, std::sync::atomic::Ordering::Relaxed);
}

/// What went wrong, before it becomes a Python exception (built without the GIL).
pub(crate) enum Failure {
    Scenario(ScenarioError),
    Sim {
        kind: &'static str,
        message: String,
    },
    Internal(String),
    /// The run was cancelled (Ctrl-C): raised as `KeyboardInterrupt`.
    Interrupted,
}

impl From<ScenarioError> for Failure {
    fn from(e: ScenarioError) -> Self {
        Failure::Scenario(e)
    }
}

impl From<SimError> for Failure {
    fn from(e: SimError) -> Self {
        let kind = match &e {
            SimError::Scenario(s) => return Failure::Scenario(s.clone()),
            SimError::EventBudgetExceeded { .. } => "event_budget",
            SimError::ByteConservation { .. } => "byte_conservation",
            SimError::CacheOverflow { .. } => "cache_overflow",
            SimError::Cancelled { .. } => return Failure::Interrupted,
            #[allow(unreachable_patterns)]
            _ => "simulation",
        };
        Failure::Sim {
            kind,
            message: e.to_string(),
        }
    }
}

/// Raise `skyhop.errors.<class_name>(*args)`; falls back to a builtin
/// exception if the facade module cannot be imported.
pub(crate) fn python_error(py: Python<'_>, failure: Failure) -> PyErr {
    if let Failure::Interrupted = failure {
        return pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted");
    }
    let built = (|| -> PyResult<PyErr> {
        let errors = py.import_bound("skyhop.errors")?;
        let instance = match &failure {
            Failure::Scenario(e) => errors.getattr("ScenarioError")?.call1((
                e.file.as_str(),
                e.key.as_str(),
                e.message.as_str(),
            ))?,
            Failure::Sim { kind, message } => errors
                .getattr("SimulationError")?
                .call1((message.as_str(), *kind))?,
            Failure::Internal(message) => errors
                .getattr("SimulationError")?
                .call1((message.as_str(), "internal"))?,
            Failure::Interrupted => unreachable!("handled above"),
        };
        Ok(PyErr::from_value_bound(instance))
    })();
    built.unwrap_or_else(|_| match failure {
        Failure::Scenario(e) => PyValueError::new_err(e.to_string()),
        Failure::Sim { message, .. } | Failure::Internal(message) => {
            PyRuntimeError::new_err(message)
        }
        Failure::Interrupted => pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted"),
    })
}

thread_local! {
    /// Message and location of the last panic on this thread (see [`guarded`]).
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static QUIET_PANICS: Once = Once::new();

/// Install (once) a panic hook that records the panic instead of printing
/// it, so that a user sees one error line, not a Rust panic report. Set
/// `SKYHOP_PANIC_REPORT=1` to keep the default report as well.
fn install_panic_hook() {
    QUIET_PANICS.call_once(|| {
        let default_hook = panic::take_hook();
        let report = std::env::var_os("SKYHOP_PANIC_REPORT").is_some();
        panic::set_hook(Box::new(move |info| {
            let location = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{location}")));
            if report {
                default_hook(info);
            }
        }));
    });
}

/// Run `f`, turning a panic into `Failure::Internal`.
pub(crate) fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(_) => {
            let detail = LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(Failure::Internal(format!(
                "internal error while {what} (a skyhop bug, please report it): {detail}"
            )))
        }
    }
}

pub(crate) fn to_json<T: serde::Serialize>(value: &T, what: &str) -> Result<String, Failure> {
    serde_json::to_string(value)
        .map_err(|e| Failure::Internal(format!("internal error: cannot serialise {what}: {e}")))
}

/// A scenario the engine has loaded: its plan (built once; every run of it
/// shares it) and the resolved scenario (defaults filled in, units as
/// strings) as JSON text (`json`), with the file its errors name (`file`).
#[pyclass(frozen, module = "skyhop._core", name = "Loaded")]
pub(crate) struct PyLoaded {
    pub(crate) inner: Arc<Loaded>,
    file: String,
    json: String,
}

#[pymethods]
impl PyLoaded {
    /// The resolved scenario as JSON text.
    #[getter]
    fn json(&self) -> &str {
        &self.json
    }

    /// The file it was read from (as errors name it).
    #[getter]
    fn file(&self) -> &str {
        &self.file
    }

    fn __repr__(&self) -> String {
        format!("Loaded({:?})", self.file)
    }
}

impl PyLoaded {
    /// The loaded scenario, to use without the GIL.
    pub(crate) fn shared(&self) -> (Arc<Loaded>, String) {
        (Arc::clone(&self.inner), self.file.clone())
    }
}

/// Read, check and resolve a scenario: a [`PyLoaded`] (its plan and the
/// resolved scenario as JSON).
///
/// `text` is TOML (`fmt="toml"`) or JSON (`fmt="json"`); `file` names it in
/// error messages; `sets` are `"dotted.path=VALUE"` overrides, VALUE read as
/// a TOML value (a bare word being a string).
///
/// `base` is the directory relative file paths in the scenario (fade
/// traces, masking files) are resolved against: the scenario file's
/// directory; default the working directory.
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
    let result = py.allow_threads(|| {
        guarded("loading the scenario", || {
            let cwd = std::env::current_dir().unwrap_or_default();
            let base = base.map_or(cwd, std::path::PathBuf::from);
            let loaded = match fmt {
                "toml" => skyhop::scenario::load_str_plan(text, file, &sets, &base)?,
                "json" => skyhop::scenario::load_json_str_plan(text, file, &sets, &base)?,
                other => {
                    return Err(Failure::Internal(format!(
                        "load_scenario: unknown format {other:?} (expected \"toml\" or \"json\")"
                    )))
                }
            };
            let json = to_json(&loaded.scenario, "the resolved scenario")?;
            Ok(PyLoaded {
                inner: Arc::new(loaded),
                file: file.to_string(),
                json,
            })
        })
    });
    result.map_err(|f| python_error(py, f))
}

/// Plans built in this process so far (a loaded scenario builds one; its
/// runs, description and memory check build none).
#[pyfunction]
fn plan_builds() -> u64 {
    skyhop::scenario::plan_builds()
}

/// Simulate a loaded scenario for one seed and return the `RunResult` as
/// JSON text. The GIL is released meanwhile, so runs in several Python
/// threads proceed in parallel (on the one plan).
#[pyfunction]
#[pyo3(signature = (scenario, seed, trace=false))]
fn run(py: Python<'_>, scenario: &PyLoaded, seed: u64, trace: bool) -> PyResult<String> {
    let (loaded, _) = scenario.shared();
    let result = py.allow_threads(|| {
        guarded("running the simulation", || {
            #[allow(clippy::needless_update)]
            let opts = RunOptions {
                trace,
                cancel: Some(cancel_check()),
                ..RunOptions::default()
            };
            let result = skyhop::sim::run_plan(&loaded.plan, seed, &opts)?;
            to_json(&result, "the run result")
        })
    });
    result.map_err(|f| python_error(py, f))
}

/// The resolved network of a loaded scenario as JSON: links, flows, legs,
/// warnings (see `skyhop::scenario::describe`).
#[pyfunction]
fn describe(py: Python<'_>, scenario: &PyLoaded) -> PyResult<String> {
    let (loaded, _) = scenario.shared();
    let result = py.allow_threads(|| {
        guarded("describing the scenario", || {
            to_json(
                &skyhop::scenario::describe::describe(&loaded.scenario, &loaded.plan),
                "the description",
            )
        })
    });
    result.map_err(|f| python_error(py, f))
}

/// Sample the channel model of one direction of a link of a loaded
/// scenario over time, as the run with `seed` would see it: JSON `{model, t_s, state, loss_probability}`
/// plus, for `lms-urban`, `masking_deg` (towards the satellite),
/// `elevation_deg`, `azimuth_deg` and `skylines` (the full skyline, one
/// masking angle per degree of azimuth, at each of `skyline_at_s`).
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
    let (loaded, _) = scenario.shared();
    let result = py.allow_threads(|| {
        guarded("sampling the channel", || {
            use skyhop::channel::{Channel, ChannelCtx, ChannelSpec};
            use skyhop::engine::Time;
            let (scn, plan) = (&loaded.scenario, &loaded.plan);
            // A chain switching more often than a run may over the span
            // would take hours to draw: refused as a run of that length is.
            let span = skyhop::engine::Dur((duration_s.max(0.0) * 1e9).min(u64::MAX as f64) as u64);
            skyhop::scenario::check_chains(plan, "<options>", span, plan.event_budget).map_err(
                |e| {
                    let m = e.message.replace("or shorten the run", "or plot a shorter span");
                    ScenarioError::new("<options>", "--duration", format!("{}: {m}", e.key))
                },
            )?;
            let name = format!("{link}:{direction}");
            let bad = |m: String| Failure::Scenario(ScenarioError::new("<resolved>", format!("links.{link}"), m));
            let dir = plan.links.iter().find(|d| d.name == name).ok_or_else(|| {
                let links: Vec<&str> = scn.links.keys().map(|k| k.as_str()).collect();
                bad(format!("no such link (links: {})", links.join(", ")))
            })?;
            let has_model = dir.channels.iter().any(|c| !matches!(c, ChannelSpec::DropList(_)));
            let dvbs = plan.layers.iter().find_map(|l| match &l.spec {
                skyhop::net::LinkLayerSpec::Dvbs(s) if l.name == link => s.params().ok(),
                _ => None,
            });
            if let (false, Some(p)) = (has_model, dvbs) {
                if direction != "forward" {
                    return Err(bad(
                        "the reverse direction of a DVB-S link has no channel model (its fade process is on the forward direction)".into(),
                    ));
                }
                // The DVB-S link's fade process, as its frames see it.
                let mut chain = p.fade_chain(seed, link);
                let n = (duration_s / step_s).floor().max(0.0) as u64 + 1;
                let (mut t_s, mut state, mut loss) = (vec![], vec![], vec![]);
                for k in 0..n {
                    let t = k as f64 * step_s;
                    let b = chain.state_at(Time::from_secs_f64(t));
                    t_s.push(t);
                    state.push(Some(b as u8 as f64));
                    loss.push(Some(p.frame_loss(b)));
                }
                return Ok(serde_json::json!({
                    "model": "dvbs",
                    "link": name,
                    "seed": seed,
                    "t_s": t_s,
                    "state": state,
                    "loss_probability": loss,
                })
                .to_string());
            }
            let (index, spec) = dir
                .channels
                .iter()
                .enumerate()
                .rfind(|(_, c)| !matches!(c, ChannelSpec::DropList(_)))
                .ok_or_else(|| bad(format!("the {direction} direction has no channel model")))?;
            let ctx = ChannelCtx {
                seed,
                link: &dir.name,
                index,
                geometry: dir.geometry,
            };
            let mut ch = Channel::build(spec, &ctx);
            let model = serde_json::to_value(spec)
                .ok()
                .and_then(|v| v.get("model").cloned())
                .unwrap_or(serde_json::Value::Null);
            let n = (duration_s / step_s).floor().max(0.0) as u64 + 1;
            let (mut t_s, mut state, mut loss, mut masking) = (vec![], vec![], vec![], vec![]);
            for k in 0..n {
                let t = k as f64 * step_s;
                let now = Time::from_secs_f64(t);
                let st = ch.state(now);
                t_s.push(t);
                state.push(st.map(|s| s.state));
                loss.push(st.map(|s| s.loss_probability));
                if let Channel::LmsUrban(m) = &ch {
                    masking.push(m.masking_at(now));
                }
            }
            let mut out = serde_json::json!({
                "model": model,
                "link": name,
                "seed": seed,
                "t_s": t_s,
                "state": state,
                "loss_probability": loss,
            });
            if let Channel::LmsUrban(m) = &ch {
                out["masking_deg"] = serde_json::json!(masking);
                out["elevation_deg"] = serde_json::json!(m.elevation_deg);
                out["azimuth_deg"] = serde_json::json!(m.azimuth_deg);
                let sk: Vec<_> = skyline_at_s
                    .iter()
                    .map(|&t| serde_json::json!({"t_s": t, "masking_deg": m.skyline_at(Time::from_secs_f64(t))}))
                    .collect();
                out["skylines"] = serde_json::json!(sk);
            }
            Ok(out.to_string())
        })
    });
    result.map_err(|f| python_error(py, f))
}

/// A duration as the engine reads it in scenario files (`"120 s"`,
/// `"120s"`, `"500 ms"`, `"2 min"`), in seconds. Python uses this one
/// parser wherever it accepts a duration, so that a command-line option and
/// a scenario key accept the same texts and refuse the others with the same
/// words: a `ScenarioError(file, key, message)` with the engine's message.
#[pyfunction]
#[pyo3(signature = (text, key="duration", file="<options>"))]
fn parse_duration(py: Python<'_>, text: &str, key: &str, file: &str) -> PyResult<f64> {
    skyhop::units::Duration::parse(text)
        .map(|d| d.0.as_secs_f64())
        .map_err(|message| {
            python_error(
                py,
                Failure::Scenario(ScenarioError::new(file, key, message)),
            )
        })
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
    install_panic_hook();
    m.add_class::<PyLoaded>()?;
    m.add_function(wrap_pyfunction!(load_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(plan_builds, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(observed::run_observed, m)?)?;
    m.add_function(wrap_pyfunction!(observed::check_memory, m)?)?;
    m.add("MAX_RUNS", skyhop::scenario::MAX_RUNS)?;
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
