//! The engine's integration tests, in one binary: one build and one link
//! for all of them (`cargo test --release --test engine [FILTER]`; a file
//! here is a module, e.g. `--test engine golden::`).

mod access;
mod aero;
mod aero_alloc;
mod beams;
mod cancel;
mod channels;
mod common;
mod determinism;
mod drivers;
mod dvbs;
mod geo_bulk;
mod golden;
mod handshake;
mod holes;
mod layering;
mod leo;
mod leo_scenarios;
mod leo_start;
mod loader_props;
mod mathis;
mod media;
mod memory_limit;
mod modern_tcp;
mod moving;
mod multi_flow;
mod observe;
mod quic;
mod quic_mathis;
mod quic_proxy;
mod rate_units;
mod rbdc_trace;
mod seams;
mod split_proxy;
mod validation;
mod web;
