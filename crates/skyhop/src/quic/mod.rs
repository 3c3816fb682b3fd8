//! QUIC flows: a real QUIC stack, quinn-proto 0.11.19 (pinned exactly),
//! with rustls 0.23.46 and *ring*, driven sans-IO in the world's virtual
//! time.
//!
//! What is quinn's: the whole transport — packets and their encryption
//! (AES-GCM, header protection), the TLS 1.3 handshake, loss detection and
//! probe timeouts (RFC 9002), the congestion controllers (NewReno, CUBIC,
//! BBR), pacing, flow control, stream reassembly, ACK generation, MTU
//! discovery. What skyhop adds: the clock (virtual time as quinn's
//! `Instant`s), seeded randomness everywhere quinn and rustls draw some
//! (`seeded.rs`, `tls.rs`), the datagrams' path (each one an IPv4/UDP
//! packet carried whole through the world's links, `wire.rs`), the
//! application's streams as QUIC streams (`streams.rs`; at a
//! QUIC-terminating proxy, the relay's), and what quinn keeps private but
//! traces: probe timeouts and the stream frames an end receives
//! (`trace.rs`).
//!
//! - `config.rs`: [`QuicConfig`], quinn's knobs with quinn's defaults.
//! - `conn.rs`: [`QuicConn`], a client and a server endpoint and their
//!   connection, between a flow's two ends.

mod config;
mod conn;
pub mod params;
mod seeded;
mod streams;
mod tls;
mod trace;
mod wire;

pub use config::{AckFrequency, QuicConfig, QuicController};
pub use conn::{Datagram, QuicConn};
pub use params::{QuicOptions, Transport};
pub use seeded::UNIX_TIME_S;
pub use streams::{Delivery, RelayRead, UNLIMITED};
pub use tls::CERT;
pub use wire::{HEADER, SERVER_PORT};
