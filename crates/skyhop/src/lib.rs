//! skyhop — a fast, exact, packet-level simulator of transport protocols over
//! hybrid satellite networks.
//!
//! The crate has no Python in it. Entry points: [`scenario::load_str`] /
//! [`scenario::load_path`] turn a TOML scenario into a validated
//! [`scenario::Scenario`]; [`run`] simulates it for one seed and returns a
//! [`RunResult`].

pub mod app;
pub mod channel;
pub mod csum;
pub mod engine;
pub mod error;
pub mod export;
pub mod files;
pub mod geo;
#[cfg(target_os = "linux")]
pub mod live;
pub mod mobility;
pub mod net;
pub mod observe;
pub mod pep;
pub mod quic;
pub mod result;
pub mod scenario;
pub mod sim;
pub mod suggest;
pub mod tcp;
pub mod units;

pub use error::{ScenarioError, SimError};
pub use result::{FlowResult, RunResult};
pub use sim::{run, RunOptions};
