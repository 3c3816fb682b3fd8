//! Engine errors and panics raised as `skyhop.errors` exceptions:
//! `ScenarioError(file, key, message)` for a bad scenario or option,
//! `SimulationError(message, kind)` for a run that could not complete
//! (kind: `SimError::kind`, or `"internal"` for a panic, which never
//! crosses into Python), `KeyboardInterrupt` for a cancelled run.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use skyhop::{ScenarioError, SimError};

/// What went wrong, before it becomes a Python exception (built without the GIL).
pub(crate) enum Failure {
    Scenario(ScenarioError),
    Sim(&'static str, String),
    Interrupted,
}

impl From<ScenarioError> for Failure {
    fn from(e: ScenarioError) -> Self {
        Failure::Scenario(e)
    }
}

impl From<SimError> for Failure {
    fn from(e: SimError) -> Self {
        match e {
            SimError::Scenario(s) => Failure::Scenario(s),
            SimError::Cancelled { .. } => Failure::Interrupted,
            SimError::Live { detail } => Failure::Sim("live", detail),
            e => Failure::Sim(e.kind(), e.to_string()),
        }
    }
}

/// An internal error (a skyhop bug).
pub(crate) fn internal(message: String) -> Failure {
    Failure::Sim("internal", message)
}

/// Raise `skyhop.errors.<class>(*args)`, or a builtin exception if the
/// facade module cannot be imported.
fn python_error(py: Python<'_>, failure: Failure) -> PyErr {
    let built = (|| -> PyResult<Option<PyErr>> {
        let errors = py.import_bound("skyhop.errors")?;
        let instance = match &failure {
            Failure::Scenario(e) => errors.getattr("ScenarioError")?.call1((
                e.file.as_str(),
                e.key.as_str(),
                e.message.as_str(),
            ))?,
            Failure::Sim(kind, message) => errors
                .getattr("SimulationError")?
                .call1((message.as_str(), *kind))?,
            Failure::Interrupted => return Ok(None),
        };
        Ok(Some(PyErr::from_value_bound(instance)))
    })();
    built.ok().flatten().unwrap_or_else(|| match failure {
        Failure::Scenario(e) => PyValueError::new_err(e.to_string()),
        Failure::Sim(_, message) => PyRuntimeError::new_err(message),
        Failure::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
    })
}

thread_local! {
    /// Message and location of the last panic on this thread.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static QUIET_PANICS: Once = Once::new();

/// Install (once) a panic hook that records the panic instead of printing
/// it, so that a user sees one error line, not a Rust panic report. Set
/// `SKYHOP_PANIC_REPORT=1` to keep the default report as well.
pub(crate) fn install_panic_hook() {
    QUIET_PANICS.call_once(|| {
        let default_hook = panic::take_hook();
        let report = std::env::var_os("SKYHOP_PANIC_REPORT").is_some();
        panic::set_hook(Box::new(move |info| {
            let location = (info.location())
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let payload = info.payload();
            let message = (payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{location}")));
            if report {
                default_hook(info);
            }
        }));
    });
}

/// Run `f` without the GIL (runs in several Python threads proceed in
/// parallel), a panic becoming an internal error, a failure an exception.
pub(crate) fn released<T: Send>(
    py: Python<'_>,
    what: &str,
    f: impl FnOnce() -> Result<T, Failure> + Send,
) -> PyResult<T> {
    let result = py.allow_threads(|| {
        panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
            let detail = (LAST_PANIC.with(|p| p.borrow_mut().take()))
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(internal(format!(
                "internal error while {what} (a skyhop bug, please report it): {detail}"
            )))
        })
    });
    result.map_err(|f| python_error(py, f))
}

/// `value` as JSON text.
pub(crate) fn to_json<T: serde::Serialize>(value: &T, what: &str) -> Result<String, Failure> {
    serde_json::to_string(value)
        .map_err(|e| internal(format!("internal error: cannot serialise {what}: {e}")))
}

/// `json` read as the engine's `T` (the Python layer wrote it).
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(
    json: &str,
    what: &str,
) -> Result<T, Failure> {
    serde_json::from_str(json).map_err(|e| internal(format!("{what}: bad options: {e}")))
}

/// A `ScenarioError` exception for Python code to raise.
pub(crate) fn scenario_error(py: Python<'_>, e: ScenarioError) -> PyErr {
    python_error(py, Failure::Scenario(e))
}
