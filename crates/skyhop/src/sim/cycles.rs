//! Where the engine's time goes, by kind of event (built only with the
//! `event-cycles` feature; without it nothing here exists and the event
//! loop is unchanged). Each event's processor cycles, from before its pop
//! to the end of its dispatch, are added to its kind's total; `take` hands
//! the totals of the runs on this thread so far over and clears them.
//! `cargo run --release --features event-cycles --example bench -- FILE`
//! prints the table after each case.
//!
//! The time stamp counter costs some 20–40 cycles a read; the totals
//! include two per event, so compare kinds and variants, not absolute costs.

use super::state::Ev;
use crate::net::Payload;
use std::cell::RefCell;

/// The kinds events are counted by (in `KINDS`'s order: a kind's number
/// is its place there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A packet reached the end of a link and was forwarded (or lost).
    Hop,
    /// A data segment (or SYN) reached its receiver.
    DataArrival,
    /// An ACK reached its sender.
    AckArrival,
    /// A datagram or an external packet left the network.
    OtherArrival,
    /// A sender's timer (pacing, retransmission, loss probe, RACK).
    SenderTimer,
    /// A receiver's delayed-ACK timer.
    ReceiverTimer,
    /// Application timers, flow starts, route recomputations.
    Other,
}

const KINDS: [Kind; 7] = [
    Kind::Hop,
    Kind::DataArrival,
    Kind::AckArrival,
    Kind::OtherArrival,
    Kind::SenderTimer,
    Kind::ReceiverTimer,
    Kind::Other,
];

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Hop => "link hop",
            Kind::DataArrival => "data at receiver",
            Kind::AckArrival => "ACK at sender",
            Kind::OtherArrival => "other arrival",
            Kind::SenderTimer => "sender timer",
            Kind::ReceiverTimer => "receiver timer",
            Kind::Other => "other",
        }
    }
}

/// Events and cycles of one kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KindCycles {
    pub events: u64,
    pub cycles: u64,
}

struct Acc {
    by_kind: [KindCycles; KINDS.len()],
    current: Kind,
    start: u64,
}

thread_local! {
    static ACC: RefCell<Acc> = const {
        RefCell::new(Acc {
            by_kind: [KindCycles { events: 0, cycles: 0 }; KINDS.len()],
            current: Kind::Other,
            start: 0,
        })
    };
}

#[inline(always)]
fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: reading the time stamp counter has no preconditions.
    unsafe {
        std::arch::x86_64::_rdtsc()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::time::Instant;
        thread_local!(static T0: Instant = Instant::now());
        T0.with(|t| t.elapsed().as_nanos() as u64)
    }
}

/// An event is about to be popped.
#[inline(always)]
pub(super) fn begin() {
    ACC.with_borrow_mut(|a| a.start = now());
}

#[inline(always)]
fn set_kind(k: Kind) {
    ACC.with_borrow_mut(|a| a.current = k);
}

/// The event `ev` was popped (a link arrival that ends a route is refined
/// by `arrived`).
#[inline(always)]
pub(super) fn popped(ev: &Ev) {
    set_kind(match ev {
        Ev::Link { .. } => Kind::Hop,
        Ev::SenderTimer { .. } => Kind::SenderTimer,
        Ev::ReceiverTimer { .. } => Kind::ReceiverTimer,
        _ => Kind::Other,
    });
}

/// A packet carrying `p` reached its destination.
#[inline(always)]
pub(super) fn arrived(p: &Payload) {
    set_kind(match p {
        Payload::Data(_) => Kind::DataArrival,
        Payload::Ack(_) => Kind::AckArrival,
        _ => Kind::OtherArrival,
    });
}

/// The event's dispatch ended.
#[inline(always)]
pub(super) fn end() {
    let t = now();
    ACC.with_borrow_mut(|a| {
        let c = &mut a.by_kind[a.current as usize];
        c.events += 1;
        c.cycles += t.wrapping_sub(a.start);
    });
}

/// The totals by kind (kinds with no event left out) since the last call,
/// and clear them.
pub fn take() -> Vec<(Kind, KindCycles)> {
    ACC.with_borrow_mut(|a| {
        let out = KINDS
            .iter()
            .zip(a.by_kind.iter())
            .filter(|(_, c)| c.events > 0)
            .map(|(&k, &c)| (k, c))
            .collect();
        a.by_kind = [KindCycles::default(); KINDS.len()];
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_counts_every_event_under_its_kind() {
        // A single GEO bulk transfer: every event is counted once, ACKs
        // reach the sender and data the receiver.
        for (i, &k) in KINDS.iter().enumerate() {
            assert_eq!(k as usize, i, "{k:?} counted in another kind's place");
        }
        take();
        let scn = crate::scenario::load_str(
            r#"
            [run]
            duration = "3 s"
            [nodes.a]
            [nodes.b]
            [links.ab]
            between = ["a", "b"]
            rate = "10 Mbps"
            delay = "250 ms"
            [flows.bulk]
            from = "a"
            to = "b"
            "#,
            "cycles.toml",
            &[],
        )
        .unwrap();
        let r = crate::run(&scn, 1, &crate::RunOptions::default()).unwrap();
        let t = take();
        let total: u64 = t.iter().map(|(_, c)| c.events).sum();
        assert_eq!(total, r.engine.events);
        let of = |k| t.iter().find(|(x, _)| *x == k).map_or(0, |(_, c)| c.events);
        assert!(of(Kind::DataArrival) > 100 && of(Kind::AckArrival) > 100);
        assert!(take().is_empty());
    }
}
