//! skyhop — a fast, exact, packet-level simulator of transport protocols over
//! hybrid satellite networks.
//!
//! The crate has no Python in it. Entry points: [`scenario::load_str`] /
//! [`scenario::load_path`] turn a TOML scenario into a validated
//! [`scenario::Scenario`]; [`run`] simulates it for one seed and returns a
//! [`RunResult`].

//!
//! The public API is what the bindings (`skyhop-py`), the examples, the
//! integration tests and the benches use (docs/ARCHITECTURE.md, "The
//! public Rust API"); the rest is `pub(crate)`. `unreachable_pub` holds
//! every module to that (`pub` only on what the crate exports), and
//! `missing_docs` the crate root and the modules documented in full; the
//! modules still allowed either are listed here, each with its debt.

#![warn(missing_docs)]
// (test modules share helpers with `pub` among themselves)
#![cfg_attr(not(test), warn(unreachable_pub))]

#[allow(missing_docs)] // 60 items
pub mod app;
#[allow(missing_docs)] // 96 items
pub mod channel;
pub(crate) mod csum;
#[allow(missing_docs)] // 17 items
pub mod engine;
mod error;
#[allow(missing_docs)] // 27 items
pub mod export;
pub(crate) mod files;
#[allow(missing_docs)] // 26 items
pub mod geo;
#[cfg(target_os = "linux")]
#[allow(missing_docs)] // 48 items
pub mod live;
#[allow(missing_docs)] // 23 items
pub mod mobility;
#[allow(missing_docs)] // 327 items
pub mod net;
#[allow(missing_docs)] // 22 items
pub mod observe;
#[allow(missing_docs)] // 20 items
pub mod pep;
#[allow(missing_docs)] // 12 items
pub mod quic;
#[allow(missing_docs)] // 45 items
pub mod result;
#[allow(missing_docs)] // 152 items
pub mod scenario;
#[allow(missing_docs)] // 10 items
pub mod sim;
pub(crate) mod suggest;
#[allow(missing_docs)] // 175 items
pub mod tcp;
pub mod units;

pub use error::{ScenarioError, SimError};
pub use result::{FlowResult, RunResult};
pub use sim::{run, RunOptions};
