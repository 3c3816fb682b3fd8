//! Split-TCP performance-enhancing proxy (Luglio et al., IEEE JSAC 2004).
//!
//! A proxy joins the receiver of its incoming leg to the sender of its
//! outgoing leg. Bytes the incoming receiver delivers in order enter the
//! cache and are handed to the outgoing sender; they leave the cache when the
//! outgoing leg's receiver acknowledges them. Out-of-order bytes waiting for
//! a hole also occupy the cache. Backpressure is the advertised window of the
//! incoming leg, computed by the receiver's [`WindowPolicy`]:
//!
//! - `half-free`: half of the free cache;
//! - `third`: at most a third of the cache, reduced as it fills, while the
//!   outgoing leg keeps at most a third of the cache unacknowledged;
//! - `buffers`: a receive buffer on the incoming leg and a send buffer on the
//!   outgoing leg; bytes move from one to the other as space allows (the
//!   blocking write of a socket-based relay).
//!
//! A full cache that drains sends a window update at once (receiver `release`).
//!
//! With `ack_after_forward` (the on-board integrity rule) the incoming
//! receiver acknowledges a byte only once the outgoing sender has transmitted
//! it: its cumulative ACK is capped at the outgoing sender's `snd_max` (byte
//! offsets are the same on both legs). The receiver defers an ACK the cap
//! holds back rather than send it as a duplicate; the simulator raises the
//! cap whenever the outgoing sender may have transmitted. Whatever the rule,
//! each proxy counts the ACKs it sent that covered bytes not yet transmitted
//! on the outgoing leg (`acks_ahead`), the check that the rule holds.

mod occupancy;
mod quic_relay;

pub use occupancy::Occupancy;
pub use quic_relay::{QuicRelay, RelayWindows};

use crate::engine::time::Time;
use crate::tcp::receiver::WindowPolicy;
use crate::tcp::{AckSeg, DataSeg, TcpReceiver, TcpSender};

/// A proxy's window policy (`nodes.<id>.proxy.policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProxyPolicy {
    HalfFree,
    Third,
    Buffers,
}

/// What a relay call asks the world to put on the wire: ACKs of the
/// incoming leg first, then data of the outgoing leg.
#[derive(Debug, Default)]
pub struct RelayOut {
    pub acks: Vec<AckSeg>,
    pub data: Vec<DataSeg>,
    /// The outgoing sender was handed data (its timer and trace need a look).
    pub out_touched: bool,
}

pub struct ProxyRt {
    pub node: u32,
    pub policy: ProxyPolicy,
    pub cache_bytes: u64,
    pub send_buffer: u64,
    /// Connections (global indices) of the incoming and outgoing legs.
    pub in_conn: usize,
    pub out_conn: usize,
    /// `buffers`: bytes delivered by the incoming leg not yet moved to the send buffer.
    pub pending: u64,
    /// The ack-after-forward integrity rule is on.
    pub ack_after_forward: bool,
    /// ACKs sent on the incoming leg that acknowledged bytes the outgoing leg
    /// had not transmitted yet (always zero with `ack_after_forward`).
    pub acks_ahead: u64,
    /// The most bytes such an ACK covered beyond what was transmitted.
    pub max_acked_unforwarded: u64,
    /// Occupancy statistics (largest, time-weighted mean).
    pub occupancy: Occupancy,
}

impl ProxyRt {
    pub fn new(
        node: u32,
        policy: ProxyPolicy,
        cache_bytes: u64,
        send_buffer: u64,
        in_conn: usize,
        out_conn: usize,
    ) -> Self {
        ProxyRt {
            node,
            policy,
            cache_bytes,
            send_buffer,
            in_conn,
            out_conn,
            pending: 0,
            ack_after_forward: false,
            acks_ahead: 0,
            max_acked_unforwarded: 0,
            occupancy: Occupancy::default(),
        }
    }

    /// The incoming receiver's window policy.
    pub fn window_policy(&self) -> WindowPolicy {
        Self::policy_of(self.policy)
    }

    /// The receiver window policy a proxy policy uses.
    pub fn policy_of(policy: ProxyPolicy) -> WindowPolicy {
        match policy {
            ProxyPolicy::HalfFree => WindowPolicy::HalfFree,
            ProxyPolicy::Third => WindowPolicy::Third,
            ProxyPolicy::Buffers => WindowPolicy::Free,
        }
    }

    /// The outgoing sender's cap on unacknowledged bytes.
    pub fn out_max_unacked(&self) -> Option<u64> {
        match self.policy {
            ProxyPolicy::Third => Some((self.cache_bytes / 3).max(1)),
            _ => None,
        }
    }

    /// The incoming receiver sent a cumulative ACK `ack` while the outgoing
    /// sender had transmitted bytes below `sent`.
    #[inline]
    pub fn note_ack(&mut self, ack: u64, sent: u64) {
        if ack > sent {
            self.acks_ahead += 1;
            self.max_acked_unforwarded = self.max_acked_unforwarded.max(ack - sent);
        }
    }

    pub fn set_start(&mut self, t: Time) {
        self.occupancy.set_start(t);
    }

    /// Record the occupancy after an event at `now`.
    pub fn observe(&mut self, now: Time, occupancy: u64) {
        self.occupancy.observe(now, occupancy);
    }

    // ---- the relay: incoming bytes held, forwarded, released ------------

    /// The incoming leg delivered `bytes` in order: with `buffers`, they wait
    /// for room in the send buffer (a blocking write); otherwise they stay in
    /// the cache and go to the outgoing sender at once.
    pub fn on_incoming_delivered(
        &mut self,
        now: Time,
        bytes: u64,
        inc: &mut TcpReceiver,
        out: &mut TcpSender,
        io: &mut RelayOut,
    ) {
        match self.policy {
            ProxyPolicy::Buffers => {
                self.pending += bytes;
                self.move_to_send_buffer(now, inc, out, io);
            }
            _ => {
                out.add_app_data(now, bytes, &mut io.data);
                io.out_touched = true;
            }
        }
    }

    /// The outgoing leg's receiver acknowledged `acked` new bytes: they leave
    /// the cache (or, with `buffers`, the send buffer frees room).
    pub fn on_outgoing_acked(
        &mut self,
        now: Time,
        acked: u64,
        inc: &mut TcpReceiver,
        out: &mut TcpSender,
        io: &mut RelayOut,
    ) {
        match self.policy {
            ProxyPolicy::Buffers => self.move_to_send_buffer(now, inc, out, io),
            _ => inc.release(acked, &mut io.acks),
        }
    }

    /// `buffers` policy: move what fits from the incoming receive buffer to
    /// the outgoing send buffer, releasing receive-buffer space.
    fn move_to_send_buffer(
        &mut self,
        now: Time,
        inc: &mut TcpReceiver,
        out: &mut TcpSender,
        io: &mut RelayOut,
    ) {
        let used = out.app_end() - out.snd_una();
        let room = self.send_buffer.saturating_sub(used);
        let n = room.min(self.pending);
        if n == 0 {
            return;
        }
        self.pending -= n;
        inc.release(n, &mut io.acks);
        out.add_app_data(now, n, &mut io.data);
        io.out_touched = true;
    }

    /// Bytes the proxy holds: the receive side's bytes not yet acknowledged
    /// onward (half-free, third) or not yet moved to the send buffer
    /// (buffers), plus out-of-order bytes; with `buffers` the send buffer too.
    pub fn occupancy(&self, inc: &TcpReceiver, out: &TcpSender) -> u64 {
        let mut occ = inc.occupancy();
        if self.policy == ProxyPolicy::Buffers {
            occ += out.app_end() - out.snd_una();
        }
        occ
    }

    /// Ack-after-forward: raise the incoming receiver's ACK cap to what the
    /// outgoing sender has transmitted and flush the deferred ACK it allows.
    pub fn sync_ack_limit(inc: &mut TcpReceiver, out: &TcpSender, acks: &mut Vec<AckSeg>) {
        inc.set_ack_limit(out.snd_max());
        if inc.ack_deferred() {
            inc.flush_deferred_ack(acks);
        }
    }
}
