//! Two facts quinn keeps private, read from its own trace: probe timeouts,
//! and the stream frames a connection receives.
//!
//! - quinn-proto keeps its PTO count private (RFC 9002 §6.2: it backs the
//!   timer off and resets on an acknowledgement) and reports each expiry
//!   only as a trace event, "PTO fired", in
//!   `Connection::on_loss_detection_timeout` (quinn-proto 0.11.19,
//!   `src/connection/mod.rs`). A loss-detection timer fires only inside
//!   `Connection::handle_timeout`, so the world runs each such call under
//!   [`count_ptos`].
//! - A QUIC-terminating proxy's memory includes the bytes its incoming
//!   connection received and the relay has not read yet (out of order, or
//!   held back); quinn reports each stream frame it processes as a trace
//!   event, "got stream frame" (`Connection::process_payload`, with the
//!   stream, offset and length, before its data is buffered). A proxy's
//!   incoming end processes each datagram under [`stream_frames`].
//!
//! One `tracing` subscriber of our own is interested in those two events
//! and in nothing else: every other trace call site of quinn's stays
//! disabled (its interest is "never", one atomic load each; ours ask the
//! thread's dispatcher at each hit). Outside the
//! two wrappers no dispatcher is set and nothing is recorded.

use std::cell::{Cell, RefCell};
use std::sync::OnceLock;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};

thread_local! {
    static FIRED: Cell<u64> = const { Cell::new(0) };
    static FRAMES: RefCell<Vec<StreamFrame>> = const { RefCell::new(Vec::new()) };
}

/// The message of quinn's PTO event.
const PTO_FIRED: &str = "PTO fired";
/// The message of quinn's event for a stream frame received.
const GOT_STREAM_FRAME: &str = "got stream frame";

/// A stream frame a connection received: its stream's index (among the
/// streams of its kind: quinn's `StreamId::index`), offset and length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamFrame {
    pub index: u64,
    pub offset: u64,
    pub len: u64,
}

fn has_fields(m: &Metadata<'_>, fields: &[&str]) -> bool {
    m.is_event()
        && m.target() == "quinn_proto::connection"
        && fields.iter().all(|f| m.fields().field(f).is_some())
}

/// The call site of quinn's PTO event (fields `in_flight`, `count`, `space`).
fn is_pto_site(m: &Metadata<'_>) -> bool {
    has_fields(m, &["in_flight", "count", "space"])
}

/// The call site of quinn's stream-frame event (`id`, `offset`, `len`, `fin`).
fn is_frame_site(m: &Metadata<'_>) -> bool {
    has_fields(m, &["id", "offset", "len", "fin"])
}

struct QuinnTrace;

/// An event's fields as read: its message, and for a stream frame the
/// frame (the stream ID is written `... stream <index>`).
#[derive(Default)]
struct Fields {
    pto: bool,
    frame: bool,
    f: StreamFrame,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "message" => {
                let m = format!("{value:?}");
                self.pto |= m == PTO_FIRED;
                self.frame |= m == GOT_STREAM_FRAME;
            }
            "id" => {
                let id = format!("{value:?}");
                if let Some(i) = id.rsplit(' ').next().and_then(|n| n.parse().ok()) {
                    self.f.index = i;
                }
            }
            _ => {}
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.pto |= value == PTO_FIRED;
            self.frame |= value == GOT_STREAM_FRAME;
        }
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "offset" => self.f.offset = value,
            "len" => self.f.len = value,
            _ => {}
        }
    }
}

impl Subscriber for QuinnTrace {
    fn register_callsite(&self, m: &'static Metadata<'static>) -> Interest {
        if is_pto_site(m) || is_frame_site(m) {
            Interest::always()
        } else {
            Interest::never()
        }
    }
    fn enabled(&self, m: &Metadata<'_>) -> bool {
        is_pto_site(m) || is_frame_site(m)
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
        let mut f = Fields::default();
        e.record(&mut f);
        if f.pto {
            FIRED.with(|c| c.set(c.get() + 1));
        }
        if f.frame {
            FRAMES.with(|v| v.borrow_mut().push(f.f));
        }
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// A second dispatcher, interested in nothing, registered beside ours and
/// never made anyone's default.
struct Nothing;

impl Subscriber for Nothing {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::never()
    }
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        false
    }
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::OFF)
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

/// Our dispatcher. `tracing` caches a call site's interest when the site is
/// first hit; while a single dispatcher is registered it asks only the
/// *current thread's* default (tracing-core 0.1.36,
/// `Dispatchers::rebuilder`, `has_just_one`), so a site first hit outside
/// our two wrappers (a stream frame at an end that relays nothing) would
/// be cached "never" for the whole process, and a later proxy's unread
/// bytes would go uncounted. With a second dispatcher registered
/// ([`Nothing`]) every site is put to both wherever it is first hit: ours
/// become "sometimes" (each hit asks the thread's dispatcher: ours inside
/// the wrappers, none outside), the rest "never".
fn dispatch() -> &'static tracing::Dispatch {
    static D: OnceLock<[tracing::Dispatch; 2]> = OnceLock::new();
    &D.get_or_init(|| {
        [
            tracing::Dispatch::new(QuinnTrace),
            tracing::Dispatch::new(Nothing),
        ]
    })[0]
}

/// Run `f` (a call that may fire quinn's loss-detection timer); returns
/// its result and the probe timeouts that fired in it.
pub(super) fn count_ptos<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = FIRED.with(|c| c.get());
    let r = tracing::dispatcher::with_default(dispatch(), f);
    (r, FIRED.with(|c| c.get()) - before)
}

/// Run `f` (a call that may process received packets); `out` gets the
/// stream frames processed in it, in order.
pub(super) fn stream_frames<R>(f: impl FnOnce() -> R, out: &mut Vec<StreamFrame>) -> R {
    FRAMES.with(|v| v.borrow_mut().clear());
    let r = tracing::dispatcher::with_default(dispatch(), f);
    FRAMES.with(|v| out.append(&mut v.borrow_mut()));
    r
}
