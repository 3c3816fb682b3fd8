//! A QUIC-terminating proxy's relay, one direction of it: the stream bytes
//! its incoming connection delivered, held until its outgoing connection
//! no longer needs them.
//!
//! A QUIC flow with a terminating proxy is two QUIC connections (more with
//! more proxies): the proxy is the server of the one from the flow's
//! client and the client of the one onward, and relays every stream's
//! bytes between them (each stream to the stream of the same number on
//! the other connection). Its memory is what the two QUIC stacks and the
//! relay hold of the stream:
//!
//! - bytes received on the incoming connection and not yet read (waiting
//!   behind a hole, or behind the relay's back-pressure), which the
//!   incoming connection's flow control bounds: at most its receive
//!   window beyond what was read (RFC 9000 §4.1; the proxy sets both its
//!   stream and its connection window to [`RelayWindows::receive`]);
//! - bytes read and not yet released by the outgoing stack: queued for
//!   writing, or written and kept for retransmission until the peer's
//!   acknowledgements reach the first unacknowledged byte. The relay reads
//!   only while these stay within [`RelayWindows::hold`] — back-pressure
//!   by not reading: unread bytes earn the sender no new credit. The
//!   outgoing stack's own send window ([`RelayWindows::send`]) bounds the
//!   part it keeps.
//!
//! The split-TCP proxy's window policies map onto these three numbers
//! (cache C, send buffer S; the same bounds in the two extremes: an empty
//! cache gives the incoming sender the same window, a full one holds the
//! same bytes):
//!
//! | policy | receive | hold | send |
//! |---|---|---|---|
//! | `half-free` (TCP: a window of half the free cache) | C/2 | C − C/2 | C − C/2 |
//! | `third` (TCP: at most C/3 of window, at most C/3 unacknowledged onward) | C/3 | C − C/3 | C/3 |
//! | `buffers` (TCP: a receive buffer C, a send buffer S) | C | S | S |
//!
//! so the occupancy never exceeds receive + hold (C; C + S with
//! `buffers`, as for TCP). The bytes the outgoing stack releases are
//! counted as it drops them: each piece read is handed on wrapped
//! ([`QuicRelay::track`]) so that the moment the stack lets go of its last
//! view of it (acknowledged, or the connection gone), the relay counts it
//! released — quinn's own accounting of its send buffer, to the piece.

use super::occupancy::Occupancy;
use super::ProxyPolicy;
use bytes::Bytes;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A relay direction's three limits, bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelayWindows {
    /// The incoming connection's receive windows at the proxy (stream and
    /// connection): bytes the sender may have beyond what was read.
    pub receive: u64,
    /// Bytes read and not yet released onward, at most.
    pub hold: u64,
    /// The outgoing connection's send window at the proxy.
    pub send: u64,
}

impl RelayWindows {
    /// The windows of `policy` with cache `cache` and (for `buffers`) send
    /// buffer `send_buffer` (each at least 1 B).
    pub fn of(policy: ProxyPolicy, cache: u64, send_buffer: u64) -> RelayWindows {
        let w = match policy {
            ProxyPolicy::HalfFree => RelayWindows {
                receive: cache / 2,
                hold: cache - cache / 2,
                send: cache - cache / 2,
            },
            ProxyPolicy::Third => RelayWindows {
                receive: cache / 3,
                hold: cache - cache / 3,
                send: cache / 3,
            },
            ProxyPolicy::Buffers => RelayWindows {
                receive: cache,
                hold: send_buffer,
                send: send_buffer,
            },
        };
        RelayWindows {
            receive: w.receive.max(1),
            hold: w.hold.max(1),
            send: w.send.max(1),
        }
    }

    /// The most the relay direction can hold: receive + hold.
    pub fn bound(&self) -> u64 {
        self.receive + self.hold
    }
}

/// One direction of a QUIC-terminating proxy.
pub struct QuicRelay {
    pub node: u32,
    pub policy: ProxyPolicy,
    pub cache_bytes: u64,
    pub windows: RelayWindows,
    /// Stream bytes read from the incoming connection.
    read: u64,
    /// Of those, bytes the outgoing stack has let go of.
    released: Arc<AtomicU64>,
    pub occupancy: Occupancy,
}

impl QuicRelay {
    pub fn new(node: u32, policy: ProxyPolicy, cache_bytes: u64, send_buffer: u64) -> QuicRelay {
        QuicRelay {
            node,
            policy,
            cache_bytes,
            windows: RelayWindows::of(policy, cache_bytes, send_buffer),
            read: 0,
            released: Arc::new(AtomicU64::new(0)),
            occupancy: Occupancy::default(),
        }
    }

    /// Bytes read and not yet released onward.
    pub fn held(&self) -> u64 {
        self.read - self.released.load(Ordering::Relaxed)
    }

    /// Bytes read from the incoming connection so far.
    pub fn read(&self) -> u64 {
        self.read
    }

    /// How much more the relay may read now.
    pub fn room(&self) -> u64 {
        self.windows.hold.saturating_sub(self.held())
    }

    /// A piece just read from the incoming connection, to hand to the
    /// outgoing one: the same bytes (no copy), counted released when the
    /// last view of them is dropped.
    pub fn track(&mut self, piece: Bytes) -> Bytes {
        self.read += piece.len() as u64;
        Bytes::from_owner(Tracked {
            bytes: piece,
            released: self.released.clone(),
        })
    }
}

/// A piece of stream bytes on its way through a relay.
struct Tracked {
    bytes: Bytes,
    released: Arc<AtomicU64>,
}

impl AsRef<[u8]> for Tracked {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.released
            .fetch_add(self.bytes.len() as u64, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_policy_keeps_receive_plus_hold_within_its_cache() {
        let w = RelayWindows::of(ProxyPolicy::HalfFree, 1_000_001, 0);
        assert_eq!((w.receive, w.hold, w.send), (500_000, 500_001, 500_001));
        assert_eq!(w.bound(), 1_000_001);
        let w = RelayWindows::of(ProxyPolicy::Third, 900_000, 0);
        assert_eq!((w.receive, w.hold, w.send), (300_000, 600_000, 300_000));
        assert_eq!(w.bound(), 900_000);
        let w = RelayWindows::of(ProxyPolicy::Buffers, 400_000, 100_000);
        assert_eq!((w.receive, w.hold, w.send), (400_000, 100_000, 100_000));
        assert_eq!(w.bound(), 500_000);
        // Never a window of nothing.
        let w = RelayWindows::of(ProxyPolicy::Third, 2, 0);
        assert_eq!((w.receive, w.hold, w.send), (1, 2, 1));
    }

    #[test]
    fn a_piece_is_released_when_its_last_view_is_dropped() {
        let mut r = QuicRelay::new(0, ProxyPolicy::Buffers, 10, 5_000);
        let a = r.track(Bytes::from(vec![7u8; 3_000]));
        let b = r.track(Bytes::from(vec![8u8; 1_000]));
        assert_eq!((r.read(), r.held(), r.room()), (4_000, 4_000, 1_000));
        assert_eq!(&a[..2], &[7, 7]);
        // A stack keeps views of parts (a partial write, a partly
        // acknowledged front): the piece stays held until the last goes.
        let mut front = a.clone();
        let back = front.split_off(1_000);
        drop(a);
        drop(front);
        assert_eq!(r.held(), 4_000);
        drop(back);
        assert_eq!(r.held(), 1_000);
        drop(b);
        assert_eq!((r.held(), r.room()), (0, 5_000));
    }
}
