//! TCP endpoints as sans-IO state machines.
pub mod autotune;
pub mod cc;
pub mod config;
mod handshake;
pub mod params;
pub mod rack;
pub mod rangeset;
pub mod rate_sample;
pub mod receiver;
pub mod recovery;
pub mod registry;
pub mod rtt;
pub mod seg;
pub mod send_core;
pub mod sender;
mod seqsearch;
mod tlp;

#[cfg(test)]
mod tests;

pub use config::{CcKind, RecKind, TcpConfig, Variant};
pub use params::Profile;
pub use receiver::{new_receiver, TcpReceiver, WindowPolicy};
pub use seg::{AckSeg, DataSeg, SackBlocks, MAX_SACK_BLOCKS};
pub use send_core::SendCore;
pub use sender::{new_sender, TcpSender};
