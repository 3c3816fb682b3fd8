//! Everything random a QUIC connection draws, seeded from the run's seed
//! and the flow's name, and the clock it is given.
//!
//! quinn-proto takes its randomness from the caller where asked: each
//! endpoint's generator (`EndpointConfig::rng_seed`, which also seeds each
//! connection's), the connection IDs (`cid_generator`, the client's first
//! destination ID), the stateless-reset key and the server's token key.
//! TLS draws its randoms, session tickets and X25519 key shares from its
//! `CryptoProvider` (`tls.rs`), whose sources are [`SeededSource`]s. None of
//! it is secret: these are simulated connections, made reproducible.
//!
//! Time: quinn takes `now` as a `std::time::Instant` in every call. An
//! `Instant` can only be made from the clock, so the process reads it once
//! ([`base`]) and every call gets that instant plus the virtual time. quinn
//! only ever subtracts or compares instants it was given, so the base's
//! value never shows in a result (two runs in two processes, with two
//! different bases, give identical bytes: a test checks it). Wall time, for
//! the server's validation tokens, is a fixed date ([`UNIX_TIME_S`]).

use crate::engine::rng::RngStream;
use crate::engine::time::Time;
use quinn_proto::{ConnectionId, ConnectionIdGenerator};
use rand::RngCore;
use rand_pcg::Pcg64Mcg;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The wall-clock date every QUIC endpoint believes it is (2025-01-01
/// 00:00:00 UTC): the server stamps its address-validation tokens with it,
/// and TLS reads it for session tickets.
pub const UNIX_TIME_S: u64 = 1_735_689_600;

/// The one instant read from the clock, the zero of every QUIC call's time.
pub(super) fn base() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

/// Virtual time `t` as quinn's `now`.
#[inline]
pub(super) fn instant(t: Time) -> Instant {
    base() + Duration::from_nanos(t.0)
}

/// A deadline from quinn as virtual time (an instant before the base,
/// which quinn never gives, is time zero).
#[inline]
pub(super) fn time_of(i: Instant) -> Time {
    Time(i.saturating_duration_since(base()).as_nanos() as u64)
}

/// The fixed wall time (`UNIX_TIME_S`).
pub(super) fn system_time() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(UNIX_TIME_S)
}

/// quinn's source of wall time for its server: the fixed date.
#[derive(Debug)]
pub(super) struct FixedSystemTime;

impl quinn_proto::TimeSource for FixedSystemTime {
    fn now(&self) -> SystemTime {
        system_time()
    }
}

/// The seeds of one QUIC connection (both of its endpoints), drawn in a
/// fixed order from the flow's stream `quic:<flow>`.
pub(super) struct Seeds {
    /// Each endpoint's generator (client, server).
    pub endpoint_rng: [[u8; 32]; 2],
    /// Each endpoint's stateless-reset key.
    pub reset_key: [[u8; 64]; 2],
    /// The server's key for address-validation and retry tokens.
    pub token_key: [u8; 64],
    /// Each endpoint's connection-ID generator state.
    pub cids: [u128; 2],
    /// The client's first destination connection ID's generator state.
    pub initial_dcid: u128,
    /// Each side's TLS randomness (client, server).
    pub tls: [u128; 2],
}

impl Seeds {
    pub(super) fn derive(seed: u64, flow: &str) -> Seeds {
        let mut r = RngStream::derive(seed, &format!("quic:{flow}"));
        let g = r.inner();
        let mut b32 = || {
            let mut b = [0u8; 32];
            g.fill_bytes(&mut b);
            b
        };
        let endpoint_rng = [b32(), b32()];
        let mut b64 = || {
            let mut b = [0u8; 64];
            g.fill_bytes(&mut b);
            b
        };
        let reset_key = [b64(), b64()];
        let token_key = b64();
        let mut s128 = || ((g.next_u64() as u128) << 64) | g.next_u64() as u128;
        Seeds {
            endpoint_rng,
            reset_key,
            token_key,
            cids: [s128(), s128()],
            initial_dcid: s128(),
            tls: [s128(), s128()],
        }
    }
}

/// A PCG generator from a 128-bit state (its increment is fixed; `| 1`
/// as `RngStream` does, so any state is valid).
pub(super) fn pcg(state: u128) -> Pcg64Mcg {
    Pcg64Mcg::new(state | 1)
}

/// Connection IDs of 8 bytes (quinn's default length) from a seeded
/// generator, with no lifetime (as quinn's default generator).
pub(super) struct SeededCids(Pcg64Mcg);

impl SeededCids {
    pub(super) fn new(state: u128) -> SeededCids {
        SeededCids(pcg(state))
    }
}

impl ConnectionIdGenerator for SeededCids {
    fn generate_cid(&mut self) -> ConnectionId {
        let mut b = [0u8; 8];
        self.0.fill_bytes(&mut b);
        ConnectionId::new(&b)
    }
    fn cid_len(&self) -> usize {
        8
    }
    fn cid_lifetime(&self) -> Option<Duration> {
        None
    }
}

/// A seeded byte source with a `'static` address, as rustls's
/// `CryptoProvider` requires of its randomness. Sources are made once and
/// recycled: [`SeededSource::take`] hands out a free one (a new one when
/// none is free), reseeded; [`SeededSource::give_back`] returns it when
/// the connection that used it is gone. A process holds at most as many
/// as it ever had connections open at once.
#[derive(Debug)]
pub(super) struct SeededSource {
    rng: Mutex<Pcg64Mcg>,
}

static FREE: Mutex<Vec<&'static SeededSource>> = Mutex::new(Vec::new());

impl SeededSource {
    /// A source for one connection's side, seeded with `state`.
    pub(super) fn take(state: u128) -> &'static SeededSource {
        let free = FREE.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let s = free.unwrap_or_else(|| {
            Box::leak(Box::new(SeededSource {
                rng: Mutex::new(pcg(0)),
            }))
        });
        *s.rng.lock().unwrap_or_else(|e| e.into_inner()) = pcg(state);
        s
    }

    /// Return a source once nothing uses it any more.
    pub(super) fn give_back(s: &'static SeededSource) {
        FREE.lock().unwrap_or_else(|e| e.into_inner()).push(s);
    }

    pub(super) fn fill(&self, dest: &mut [u8]) {
        self.rng
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .fill_bytes(dest);
    }
}

/// The client's first destination connection ID (20 bytes, as quinn's
/// default provider), from a seeded generator.
pub(super) fn initial_dcid_provider(state: u128) -> impl Fn() -> ConnectionId + Send + Sync {
    let rng = Mutex::new(pcg(state));
    move || {
        let mut b = [0u8; 20];
        rng.lock()
            .unwrap_or_else(|e| e.into_inner())
            .fill_bytes(&mut b);
        ConnectionId::new(&b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_depend_on_the_run_seed_and_the_flow_only() {
        let a = Seeds::derive(7, "f");
        let b = Seeds::derive(7, "f");
        assert_eq!(a.endpoint_rng, b.endpoint_rng);
        assert_eq!(a.tls, b.tls);
        assert_ne!(Seeds::derive(8, "f").endpoint_rng, a.endpoint_rng);
        assert_ne!(Seeds::derive(7, "g").cids, a.cids);
        assert_ne!(a.endpoint_rng[0], a.endpoint_rng[1]);
    }

    #[test]
    fn virtual_time_round_trips_through_instants() {
        for t in [0, 1, 999_999_999, 123_456_789_012] {
            assert_eq!(time_of(instant(Time(t))), Time(t));
        }
    }

    #[test]
    fn a_recycled_source_is_reseeded() {
        let s = SeededSource::take(42);
        let mut x = [0u8; 16];
        s.fill(&mut x);
        SeededSource::give_back(s);
        let t = SeededSource::take(42);
        let mut y = [0u8; 16];
        t.fill(&mut y);
        assert_eq!(x, y);
        SeededSource::give_back(t);
    }
}
