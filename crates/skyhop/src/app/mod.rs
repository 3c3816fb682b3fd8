//! Applications: the seam on each end of a flow, and the byte ledger that
//! checks every byte arrives once and in order.
//!
//! An application is a sans-IO state machine attached to a flow. The flow
//! gives it one or more byte *streams* (stream 0 runs from the flow's `from`
//! node to its `to` node over the flow's TCP legs and proxies). It is told
//! when the flow starts, when bytes arrive in order at the far end of a
//! stream, and when its own timer fires; it answers by handing bytes to a
//! stream's sender ([`AppIo::send`]) and by saying when it next needs a timer
//! ([`Application::poll_at`]) and whether it is finished
//! ([`Application::done`]). A run stops when every application is done or
//! at the stop time; a bulk source is never done.
//!
//! One file per application; registration: a variant of [`AppSpec`] and one
//! line in the [`apps!`] list.

mod bulk;
mod cbr;
mod file;
mod web;

pub use bulk::Bulk;
pub use cbr::Cbr;
pub use file::FileTransfer;
pub use web::{Http, WebSampler, WebSession, WebSpec};

use crate::engine::time::Time;
use crate::result::FlowResult;
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
    /// Forward streams whose connection is finished (nothing more will be
    /// sent on it): it no longer counts as open (AeroTCP's adaptive
    /// allocation).
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
    /// The connection of forward stream `stream` is finished.
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
    /// Add the application's own results to its flow's (at the end of the
    /// run; `end` is when the flow finished or the run stopped).
    fn report(&self, _end: Time, _result: &mut FlowResult) {}
}

/// An application built by user code (tests, extensions).
#[derive(Clone)]
pub struct CustomApp(pub Arc<dyn Fn() -> Box<dyn Application> + Send + Sync>);

impl std::fmt::Debug for CustomApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CustomApp")
    }
}

/// The application of a flow, resolved from the scenario.
#[derive(Clone, Debug)]
pub enum AppSpec {
    /// Send `size` bytes once; done when all have arrived (`flows.<id>.size`).
    File {
        size: u64,
    },
    /// Send without end until the run stops (no `size`, or "unlimited").
    Bulk,
    /// Constant-rate datagram probe until the run stops (`app = "cbr"`).
    Cbr {
        rate_bps: u64,
        packet_bytes: u32,
    },
    /// Web browsing sessions (`app = "web"`).
    Web(WebSpec),
    Custom(CustomApp),
}

impl AppSpec {
    /// Whether the application can finish (a run with only such apps stops early).
    pub fn finite(&self) -> bool {
        match self {
            AppSpec::Bulk | AppSpec::Cbr { .. } => false,
            AppSpec::Web(w) => w.pages.is_some(),
            _ => true,
        }
    }
    /// The application in words, for `skyhop describe`.
    pub fn describe(&self) -> String {
        match self {
            AppSpec::File { size } => format!("file of {size} B"),
            AppSpec::Bulk => "bulk".into(),
            AppSpec::Cbr {
                rate_bps,
                packet_bytes,
            } => format!("cbr probe, {rate_bps} bit/s in {packet_bytes} B datagrams"),
            AppSpec::Web(w) => {
                let http = match w.http {
                    Http::V10 { parallel } => format!("HTTP/1.0, {parallel} parallel"),
                    Http::V11 => "HTTP/1.1 persistent".into(),
                };
                let pages = w
                    .pages
                    .map_or("pages until the run stops".into(), |n| format!("{n} pages"));
                let objects = w
                    .object_size
                    .map_or(String::new(), |b| format!(", one {b} B object per page"));
                format!("web sessions ({http}, {pages}{objects})")
            }
            AppSpec::Custom(_) => "custom application".into(),
        }
    }
    /// Whether the flow's stream 0 (forward) exists from the start; an
    /// application without it opens its streams itself.
    pub fn opens_stream_at_start(&self) -> bool {
        !matches!(self, AppSpec::Cbr { .. } | AppSpec::Web(_))
    }
    /// Whether the flow carries datagrams rather than TCP streams.
    pub fn datagrams(&self) -> bool {
        matches!(self, AppSpec::Cbr { .. })
    }
}

macro_rules! apps {
    ($($v:ident($t:ty) => $make:expr),* $(,)?) => {
        /// A built application (static dispatch; `Custom` for user code).
        pub enum App {
            $($v($t),)*
            Custom(Box<dyn Application>),
        }
        impl App {
            /// The application of `spec` for flow `name` in the run with `seed`
            /// (random applications draw from streams derived from both).
            pub fn build(spec: &AppSpec, seed: u64, name: &str) -> App {
                match spec {
                    $(AppSpec::$v { .. } => {
                        let make: fn(&AppSpec, u64, &str) -> $t = $make;
                        App::$v(make(spec, seed, name))
                    })*
                    AppSpec::Custom(f) => App::Custom((f.0)()),
                }
            }
            // Static dispatch for the built-in applications (the per-delivery path).
            #[inline]
            pub fn start(&mut self, now: Time, io: &mut AppIo) {
                match self {
                    $(App::$v(a) => a.start(now, io),)*
                    App::Custom(a) => a.start(now, io),
                }
            }
            #[inline]
            pub fn on_delivered(&mut self, now: Time, stream: usize, bytes: u64, total: u64, io: &mut AppIo) {
                match self {
                    $(App::$v(a) => a.on_delivered(now, stream, bytes, total, io),)*
                    App::Custom(a) => a.on_delivered(now, stream, bytes, total, io),
                }
            }
            #[inline]
            pub fn on_timer(&mut self, now: Time, io: &mut AppIo) {
                match self {
                    $(App::$v(a) => a.on_timer(now, io),)*
                    App::Custom(a) => a.on_timer(now, io),
                }
            }
            #[inline]
            pub fn poll_at(&self) -> Option<Time> {
                match self {
                    $(App::$v(a) => a.poll_at(),)*
                    App::Custom(a) => a.poll_at(),
                }
            }
            #[inline]
            pub fn done(&self) -> bool {
                match self {
                    $(App::$v(a) => a.done(),)*
                    App::Custom(a) => a.done(),
                }
            }
            pub fn report(&self, end: Time, result: &mut FlowResult) {
                match self {
                    $(App::$v(a) => a.report(end, result),)*
                    App::Custom(a) => a.report(end, result),
                }
            }
        }
    };
}

apps! {
    File(FileTransfer) => |s, _, _| match s {
        AppSpec::File { size } => FileTransfer::new(*size),
        _ => unreachable!(),
    },
    Bulk(Bulk) => |_, _, _| Bulk,
    Cbr(Cbr) => |s, _, _| match s {
        AppSpec::Cbr { rate_bps, packet_bytes } => Cbr::new(*rate_bps, *packet_bytes),
        _ => unreachable!(),
    },
    Web(Box<WebSession>) => |s, seed, name| match s {
        AppSpec::Web(w) => Box::new(WebSession::new(w, seed, name)),
        _ => unreachable!(),
    },
}

use crate::tcp::rangeset::RangeSet;

/// Independent check of a receiver's deliveries: records which bytes really
/// arrived in data packets, and verifies each in-order delivery the receiver
/// claims is contiguous with the last and made only of arrived bytes.
#[derive(Clone, Debug, Default)]
pub struct ByteLedger {
    arrived: RangeSet,
    delivered: u64,
}

impl ByteLedger {
    #[inline]
    pub fn on_arrival(&mut self, seq: u64, len: u32) {
        self.arrived.insert(seq, seq + len as u64);
    }

    /// Check a delivery `[a, b)`; returns a description of the violation.
    #[inline]
    pub fn on_delivery(&mut self, a: u64, b: u64) -> Result<(), String> {
        if a != self.delivered {
            return Err(format!(
                "delivery of bytes [{a}, {b}) does not continue from byte {} (duplicate or gap)",
                self.delivered
            ));
        }
        match self.arrived.first() {
            Some((0, end)) if end >= b => {}
            _ => {
                return Err(format!(
                    "delivery of bytes [{a}, {b}) includes bytes that never arrived"
                ))
            }
        }
        self.delivered = b;
        Ok(())
    }

    pub fn delivered(&self) -> u64 {
        self.delivered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_accepts_contiguous_deliveries_of_arrived_bytes() {
        let mut l = ByteLedger::default();
        l.on_arrival(0, 100);
        l.on_arrival(200, 100);
        assert!(l.on_delivery(0, 100).is_ok());
        l.on_arrival(100, 100);
        assert!(l.on_delivery(100, 300).is_ok());
        assert_eq!(l.delivered(), 300);
    }

    #[test]
    fn ledger_rejects_duplicates_gaps_and_phantom_bytes() {
        let mut l = ByteLedger::default();
        l.on_arrival(0, 100);
        assert!(l.on_delivery(0, 100).is_ok());
        assert!(l
            .on_delivery(0, 100)
            .unwrap_err()
            .contains("duplicate or gap"));
        assert!(l.on_delivery(150, 200).is_err());
        assert!(l
            .on_delivery(100, 200)
            .unwrap_err()
            .contains("never arrived"));
    }
}
