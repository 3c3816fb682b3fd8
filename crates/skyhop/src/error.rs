//! Errors are values: a user mistake becomes a typed error with a message
//! naming the file, the key and the problem; never a panic.

use std::fmt;

/// A problem with a scenario: where it is (file, dotted key) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The scenario file (or `<dict>` / `<string>` when not read from a file).
    pub file: String,
    /// Dotted path of the offending key, e.g. `links.wu.rate`; empty for the whole file.
    pub key: String,
    /// What is wrong, in the scenario's words.
    pub message: String,
}

impl ScenarioError {
    /// An error of `file` at the dotted `key` (empty: the whole file).
    pub fn new(file: &str, key: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            file: file.to_string(),
            key: key.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.key, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// A run that could not complete correctly.
#[derive(Clone, Debug, PartialEq)]
pub enum SimError {
    /// The scenario itself is invalid.
    Scenario(ScenarioError),
    /// The run needed more events than `run.event_budget` allows.
    EventBudgetExceeded {
        /// `run.event_budget`.
        budget: u64,
        /// Simulated seconds reached when it ran out.
        sim_time_s: f64,
    },
    /// The receiving application saw a byte twice, out of order, or missing:
    /// a simulator bug, reported rather than hidden.
    ByteConservation {
        /// The flow's name.
        flow: String,
        /// What was seen.
        detail: String,
    },
    /// A split proxy's cache overflowed: a simulator bug (backpressure must prevent it).
    CacheOverflow {
        /// The flow's name.
        flow: String,
        /// The proxy's node.
        node: String,
        /// The cache's state.
        detail: String,
    },
    /// The caller asked the run to stop (`RunOptions::cancel`), e.g. on Ctrl-C.
    Cancelled {
        /// Simulated seconds reached.
        sim_time_s: f64,
    },
    /// A live run could not set up or keep up its real hosts (namespaces,
    /// devices, commands), or was stopped by its lateness limit.
    Live {
        /// What failed.
        detail: String,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Scenario(e) => e.fmt(f),
            SimError::EventBudgetExceeded { budget, sim_time_s } => write!(
                f,
                "run stopped: event budget of {budget} events exhausted at t = {sim_time_s:.3} s (raise run.event_budget or shorten run.duration)"
            ),
            SimError::ByteConservation { flow, detail } => {
                write!(f, "flow {flow}: byte conservation violated: {detail}")
            }
            SimError::CacheOverflow { flow, node, detail } => {
                write!(f, "flow {flow}: proxy cache at {node} overflowed: {detail}")
            }
            SimError::Cancelled { sim_time_s } => {
                write!(f, "run cancelled at t = {sim_time_s:.3} s")
            }
            SimError::Live { detail } => write!(f, "live run: {detail}"),
        }
    }
}

impl std::error::Error for SimError {}

impl SimError {
    /// The error's kind, as the Python API's `SimulationError.kind` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            SimError::Scenario(_) => "scenario",
            SimError::EventBudgetExceeded { .. } => "event_budget",
            SimError::ByteConservation { .. } => "byte_conservation",
            SimError::CacheOverflow { .. } => "cache_overflow",
            SimError::Cancelled { .. } => "cancelled",
            SimError::Live { .. } => "live",
        }
    }
}

impl From<ScenarioError> for SimError {
    fn from(e: ScenarioError) -> Self {
        SimError::Scenario(e)
    }
}
