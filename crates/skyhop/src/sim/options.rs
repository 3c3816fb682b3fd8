//! What a run records beyond its results, and how it may be stopped.

use crate::observe::{PacketLogOptions, TraceOptions};
use std::sync::Arc;

/// A cancellation check, polled every few thousand events.
pub type CancelFn = Arc<dyn Fn() -> bool + Send + Sync>;

/// What a run should record beyond the results, and how it may be stopped.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Record time series (cwnd, ssthresh, srtt, flight, rwnd per leg; proxy
    /// occupancy; queue occupancy per link direction).
    pub trace: bool,
    /// With `trace`: which series, and how densely (default: every change
    /// of every series).
    pub trace_options: TraceOptions,
    /// Record a per-packet event log (returned in `RunResult::packet_log`).
    pub packet_log: Option<PacketLogOptions>,
    /// Polled every few thousand events; when it returns true the run ends
    /// with [`SimError::Cancelled`].
    pub cancel: Option<CancelFn>,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("trace", &self.trace)
            .field("trace_options", &self.trace_options)
            .field("packet_log", &self.packet_log)
            .field("cancel", &self.cancel.is_some())
            .finish()
    }
}
