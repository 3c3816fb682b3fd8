//! TCP endpoints as sans-IO state machines.
pub mod cc;
pub mod config;
mod handshake;
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
mod tlp;

#[cfg(test)]
mod tests;

pub use config::{CcKind, RecKind, TcpConfig, Variant};
pub use receiver::{TcpReceiver, WindowPolicy};
pub use seg::{AckSeg, DataSeg, SackBlocks};
pub use send_core::SendCore;
pub use sender::TcpSender;

/// Build a sender with the controller and recovery its variant names.
pub fn new_sender(cfg: TcpConfig) -> TcpSender {
    let cc = cc::Cc::build(cfg.variant.cc, &cfg);
    let rec = recovery::Rec::build(cfg.variant.recovery, &cfg);
    TcpSender::new(cfg, cc, rec)
}

/// Build the matching receiver.
pub fn new_receiver(cfg: &TcpConfig) -> TcpReceiver {
    let sack = if cfg.variant.uses_sack() {
        cfg.sack_blocks
    } else {
        0
    };
    TcpReceiver::new(
        cfg.rcv_buffer,
        cfg.mss,
        sack,
        cfg.delayed_ack,
        cfg.delayed_ack_timeout,
    )
}
