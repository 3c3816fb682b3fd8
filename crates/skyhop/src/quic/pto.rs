//! Probe timeouts, counted from quinn's own trace.
//!
//! quinn-proto keeps its PTO count private (RFC 9002 §6.2: it backs the
//! timer off and resets on an acknowledgement) and reports each expiry
//! only as a trace event, "PTO fired", in `Connection::on_loss_detection_timeout`
//! (quinn-proto 0.11.19, `src/connection/mod.rs`). A loss-detection timer
//! fires only inside `Connection::handle_timeout`, so the world runs each
//! such call under a `tracing` dispatcher of our own that is interested in
//! that one event and counts it ([`count_ptos`]); every other event of
//! quinn's stays disabled (its call site's interest is "never", one atomic
//! load each).

use std::cell::Cell;
use std::sync::OnceLock;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};

thread_local! {
    static FIRED: Cell<u64> = const { Cell::new(0) };
}

/// The message of quinn's PTO event.
const PTO_FIRED: &str = "PTO fired";

/// The call site of quinn's PTO event: in `quinn_proto::connection`, with
/// the fields it carries (`in_flight`, `count`, `space`).
fn is_pto_site(m: &Metadata<'_>) -> bool {
    m.is_event()
        && m.target() == "quinn_proto::connection"
        && ["in_flight", "count", "space"]
            .iter()
            .all(|f| m.fields().field(f).is_some())
}

struct PtoCounter;

struct Message(bool);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" && format!("{value:?}") == PTO_FIRED {
            self.0 = true;
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" && value == PTO_FIRED {
            self.0 = true;
        }
    }
}

impl Subscriber for PtoCounter {
    fn register_callsite(&self, m: &'static Metadata<'static>) -> Interest {
        if is_pto_site(m) {
            Interest::always()
        } else {
            Interest::never()
        }
    }
    fn enabled(&self, m: &Metadata<'_>) -> bool {
        is_pto_site(m)
    }
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::TRACE)
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, e: &Event<'_>) {
        let mut m = Message(false);
        e.record(&mut m);
        if m.0 {
            FIRED.with(|c| c.set(c.get() + 1));
        }
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

fn dispatch() -> &'static tracing::Dispatch {
    static D: OnceLock<tracing::Dispatch> = OnceLock::new();
    D.get_or_init(|| tracing::Dispatch::new(PtoCounter))
}

/// Run `f` (a call that may fire quinn's loss-detection timer); returns
/// its result and the probe timeouts that fired in it.
pub fn count_ptos<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = FIRED.with(|c| c.get());
    let r = tracing::dispatcher::with_default(dispatch(), f);
    (r, FIRED.with(|c| c.get()) - before)
}
