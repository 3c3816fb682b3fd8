//! Exact segment-level tests of the TCP state machines.
//!
//! The sender is driven by hand-written ACKs at hand-picked instants, and
//! every call returns what went on the wire, printed compactly, so a test
//! reads like a packet trace (as smoltcp's socket tests do). Segments are
//! numbered in units of a 1000-byte MSS: `7` is bytes [7000, 8000), `R7` its
//! retransmission, `P[4000+1]` a one-byte window probe.
//!
//! Each trace is worked out by hand in the comments beside it, from the RFC
//! clause the step exercises; the code under test is not consulted.

mod harness;

mod ack_limit;
mod aero;
mod bbr;
mod cubic_hybla;
mod frto;
mod handshake;
mod hystart;
mod idle_restart;
mod layout;
mod limited_transmit;
mod maxburst;
mod newreno;
mod ns2_newreno;
mod ns2_sack1;
mod persist;
mod prr;
mod rack;
mod rack_bookkeeping;
mod receiver;
mod reno_tahoe;
mod rto;
mod sack;
mod slow_start;
mod timestamps;
mod westwood2001;
