//! Applications: the seam on each end of a flow.
//!
//! An application is a sans-IO state machine attached to a flow. The flow
//! gives it one or more byte *streams* (stream 0 runs from the flow's `from`
//! node to its `to` node over the flow's TCP legs and proxies). It is told
//! when the flow starts, when bytes arrive in order at the far end of a
//! stream, and when its own timer fires; it answers by handing bytes to a
//! stream's sender ([`AppIo::send`]) and by saying when it next needs a timer
//! ([`Application::poll_at`]) and whether it is finished
//! ([`Application::done`]). A run stops when every application is done or
//! at the stop time; a bulk source is never done. At the end it reports its
//! own results ([`Application::report`]: scalars and tables, `report.rs`).
//!
//! Each application is one file (or folder) holding its resolved spec
//! ([`AppSpecOps`]: what the engine asks of it, and how to build it), its
//! scenario table if it has one ([`AppSection`]: `flows.<id>.<name>`,
//! checked and resolved against its flow) and the application itself.
//! `registry.rs` is the one place applications are registered; this file
//! knows none of them.

mod bulk;
mod cbr;
mod file;
mod ledger;
mod registry;
mod report;
mod web;

pub use bulk::{Bulk, BulkSpec};
pub use cbr::{Cbr, CbrSection, CbrSpec};
pub use file::{FileSpec, FileTransfer, WireCut};
pub use ledger::ByteLedger;
pub use registry::{App, AppName, AppSpec, AppTables};
pub use report::{AppReport, Cell, Table};
pub use web::{Http, HttpVersion, WebSampler, WebSection, WebSession, WebSpec};

use crate::engine::time::Time;
use std::sync::Arc;

/// What an application asks of the engine during one call.
#[derive(Debug, Default)]
pub struct AppIo {
    /// Bytes handed to stream senders: (stream, bytes). `u64::MAX` is an
    /// unlimited source.
    pub sends: Vec<(usize, u64)>,
    /// A violation the application detected (ends the run with an error).
    pub error: Option<String>,
    /// Datagrams handed to the flow's datagram path: (stream, bytes on the wire).
    pub datagrams: Vec<(usize, u32)>,
    /// Streams to open before the sends are handed over, in order; the
    /// engine numbers them from `streams`.
    pub opens: Vec<StreamOpen>,
    /// Streams the flow has (set by the engine before each call).
    pub streams: usize,
    /// Streams whose connection is finished (nothing more will be sent on
    /// them): a forward stream no longer counts as open (AeroTCP's adaptive
    /// allocation); over QUIC, a stream is finished (its FIN follows its
    /// last byte) and stops counting against the peer's stream limit.
    pub closes: Vec<usize>,
}

/// Which way a stream runs along the flow's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamDir {
    /// From the flow's `from` node to its `to` node (stream 0 of a file
    /// transfer; the replies of a web session).
    Forward,
    /// From `to` back to `from` (the requests of a web session), over the
    /// same legs and proxies in reverse order.
    Reverse,
}

/// A stream an application asks the engine to open: one new TCP connection
/// per leg (and one relay per proxy) along the path in direction `dir`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamOpen {
    pub dir: StreamDir,
    /// Open with a three-way handshake (SYN, SYN-ACK) before data flows;
    /// false: the connection is already established (the reverse half of a
    /// connection opened by the other stream).
    pub handshake: bool,
}

impl AppIo {
    #[inline]
    pub fn send(&mut self, stream: usize, bytes: u64) {
        self.sends.push((stream, bytes));
    }
    /// Send one datagram (no congestion control, no retransmission).
    #[inline]
    pub fn send_datagram(&mut self, stream: usize, bytes: u32) {
        self.datagrams.push((stream, bytes));
    }
    pub fn fail(&mut self, msg: impl Into<String>) {
        self.error.get_or_insert(msg.into());
    }
    /// The connection of stream `stream` is finished.
    pub fn close(&mut self, stream: usize) {
        self.closes.push(stream);
    }
    /// Open a new stream; returns its number (usable in `send` at once).
    pub fn open(&mut self, dir: StreamDir, handshake: bool) -> usize {
        self.opens.push(StreamOpen { dir, handshake });
        self.streams + self.opens.len() - 1
    }
}

/// The hooks an application implements.
pub trait Application: Send {
    /// The flow starts (at its start time).
    fn start(&mut self, now: Time, io: &mut AppIo);
    /// `bytes` more bytes arrived in order at the receiving end of `stream`;
    /// `total` bytes have arrived on it so far.
    fn on_delivered(&mut self, now: Time, stream: usize, bytes: u64, total: u64, io: &mut AppIo);
    /// The timer asked for by `poll_at` fired.
    fn on_timer(&mut self, _now: Time, _io: &mut AppIo) {}
    /// When the application next needs `on_timer`.
    fn poll_at(&self) -> Option<Time> {
        None
    }
    /// Finished: nothing more will be sent or awaited.
    fn done(&self) -> bool;
    /// The application's own results, added to its flow's (at the end of
    /// the run; `end` is when the flow finished or the run stopped).
    fn report(&self, _end: Time) -> AppReport {
        AppReport::default()
    }
}

/// An application built by user code (tests, extensions).
#[derive(Clone)]
pub struct CustomApp(pub Arc<dyn Fn() -> Box<dyn Application> + Send + Sync>);

impl std::fmt::Debug for CustomApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CustomApp")
    }
}

/// A resolved application spec: what the engine asks of it, and the
/// application it builds.
pub trait AppSpecOps {
    /// The built application: an [`Application`], boxed if large (the
    /// registry's enum of built applications is as large as its largest).
    type Built;
    /// The application for flow `flow` in the run with `seed` (random
    /// applications draw from streams derived from both).
    fn build(&self, seed: u64, flow: &str) -> Self::Built;
    /// Whether the application can finish (a run with only such applications
    /// stops when they are done).
    fn finite(&self) -> bool;
    /// The application in words, for `skyhop describe`.
    fn describe(&self) -> String;
    /// Whether the flow's stream 0 (forward) exists from the start; an
    /// application without it opens its streams itself.
    fn opens_stream_at_start(&self) -> bool {
        true
    }
    /// Whether the flow carries datagrams rather than TCP streams.
    fn datagrams(&self) -> bool {
        false
    }
    /// Upper bounds of what the application holds over a run, for the
    /// memory estimate (`scenario/memory.rs`).
    fn bounds(&self, _run: &RunShape) -> AppBounds {
        AppBounds::default()
    }
}

/// What an application's bounds are computed from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunShape {
    /// The run's length, seconds.
    pub duration_s: f64,
    /// A lower bound of one exchange's round trip on the flow's path
    /// (propagation and the smallest packet's transmission, both ways), > 0.
    pub min_rtt_s: f64,
}

impl RunShape {
    /// Round trips the run can hold, at most (at least 1).
    pub fn rounds(&self) -> u64 {
        let r = (self.duration_s / self.min_rtt_s.max(1e-9)).ceil();
        if r.is_finite() && r < 1e18 {
            r as u64 + 1
        } else {
            u64::MAX / 4
        }
    }
}

/// Upper bounds of what an application holds over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AppBounds {
    /// Records its report can list (e.g. a web session's objects and pages).
    pub records: u64,
    /// Connections it opens besides the flow's own (each a sender and a
    /// receiver per leg, for each of its streams).
    pub connections: u64,
    /// Packets smaller than a full segment it can cause (requests, the last
    /// segment of each reply).
    pub small_packets: u64,
    /// A datagram flow: its rate (bit/s) and datagram size (bytes).
    pub datagrams: Option<(u64, u32)>,
}

/// What an application's table is resolved against: its flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowShape {
    /// The flow's `size` when it gives a number of bytes (`None`: absent or
    /// "unlimited").
    pub size: Option<u64>,
    /// Split proxies on the flow's path.
    pub proxies: usize,
    /// Every TCP leg restarts its window after an idle period (RFC 5681 4.1).
    pub idle_restart: bool,
}

/// An application's scenario table, `flows.<id>.<name>` (every key
/// optional: an absent table is its `Default`).
pub trait AppSection: Default {
    type Spec: AppSpecOps;
    /// Check the table's values (ranges, and keys that go together);
    /// `Err((key within the table, message))`.
    fn validate(&self) -> Result<(), (String, String)>;
    /// The spec of a checked table on its flow, and warnings about it;
    /// `Err((key of the flow, message))` when the flow does not suit the
    /// application (e.g. a `size` for one that draws its own).
    fn resolve(&self, flow: &FlowShape) -> Result<(Self::Spec, Vec<String>), (String, String)>;
}
