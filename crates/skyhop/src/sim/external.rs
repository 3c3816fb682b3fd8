//! Packets from and to outside the simulated network: what a driver that
//! joins the world to real hosts (or a test) injects at a node and takes
//! where it leaves.
//!
//! A packet injected at node `from` for node `to` follows the fewest-hops
//! route between them through the same link layers, queues and channels as
//! simulated traffic, carried whole: its simulated size is its length. It
//! leaves the world at `to`, or earlier at the first node on the way that
//! is itself outside-facing (a live host there, e.g. a real proxy, gets it
//! and may send it on). A packet with no route is counted and dropped.
//!
//! The same table holds the datagrams of the world's QUIC flows, whole
//! IPv4/UDP packets too (`quic.rs`): marked with the connection end they are for,
//! they are handed to it on arrival and are not counted here.

use crate::channel::PacketKind;
use crate::engine::Time;
use crate::net::topology::Topology;
use std::collections::HashMap;

/// A packet from outside, carried whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalPacket {
    /// Its bytes (for a live host: the IP packet, headers included).
    pub data: Vec<u8>,
    /// How channel models and link layers see it: data (with its first
    /// byte's stream offset `seq`, 0 if none), an ACK or a SYN.
    pub kind: PacketKind,
    pub seq: u64,
    /// A retransmission, as far as the injector can tell.
    pub retx: bool,
}

/// A packet leaving the world towards outside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outbound {
    /// The node it leaves at.
    pub node: u32,
    /// When it arrived there (its scheduled release).
    pub at: Time,
    /// Where and when it entered the world.
    pub from: u32,
    pub injected_at: Time,
    pub packet: ExternalPacket,
}

/// What became of an injected packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Injected {
    /// On its way (or, for a zero-hop route, already outbound).
    Sent,
    /// No route from its node to its destination: dropped.
    Unroutable,
}

/// Counters of the packets from outside.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExternalStats {
    pub injected: u64,
    pub injected_bytes: u64,
    pub delivered: u64,
    pub delivered_bytes: u64,
    /// Lost on the way (queue, channel, link layer).
    pub lost: u64,
    pub unroutable: u64,
}

pub(super) struct Record {
    pub(super) packet: ExternalPacket,
    pub(super) from: u32,
    /// The node its route ends at.
    pub(super) exit: u32,
    pub(super) injected_at: Time,
    /// A QUIC datagram: the timer slot of the connection end it is for
    /// (flow << 8 | leg << 1 | end, `quic.rs`), instead of leaving the world.
    pub(super) quic: Option<u32>,
}

/// The world's packets from and to outside.
pub(super) struct External {
    pub(super) topology: Topology,
    /// Nodes facing outside (a live host's).
    pub(super) outside: Vec<bool>,
    /// Route (index in the world's routes) and exit node per (from, to).
    pub(super) routes: HashMap<(u32, u32), Option<(u32, u32)>>,
    slab: Vec<Option<Record>>,
    free: Vec<u32>,
    pub(super) outbound: Vec<Outbound>,
    pub(super) stats: ExternalStats,
}

impl External {
    pub(super) fn new(topology: Topology) -> External {
        External {
            outside: vec![false; topology.nodes()],
            topology,
            routes: HashMap::new(),
            slab: Vec::new(),
            free: Vec::new(),
            outbound: Vec::new(),
            stats: ExternalStats::default(),
        }
    }

    /// How the link layers see packet `id`: (kind, seq, retx).
    #[inline]
    pub(super) fn link_view(&self, id: u32) -> (PacketKind, u64, bool) {
        let r = self.slab[id as usize]
            .as_ref()
            .expect("a live external packet");
        (r.packet.kind, r.packet.seq, r.packet.retx)
    }

    /// Packet `id` reached the end of its route at `now`.
    pub(super) fn leave(&mut self, now: Time, id: u32) {
        let r = self.slab[id as usize]
            .take()
            .expect("a live external packet");
        self.free.push(id);
        self.stats.delivered += 1;
        self.stats.delivered_bytes += r.packet.data.len() as u64;
        self.outbound.push(Outbound {
            node: r.exit,
            at: now,
            from: r.from,
            injected_at: r.injected_at,
            packet: r.packet,
        });
    }

    /// Packet `id` was lost on the way.
    #[inline]
    pub(super) fn forget(&mut self, id: u32) {
        if let Some(r) = self.slab[id as usize].take() {
            self.free.push(id);
            if r.quic.is_none() {
                self.stats.lost += 1;
            }
        }
    }

    /// Packet `id`, if it is a QUIC datagram that reached its end: the
    /// connection end it is for and its bytes.
    #[inline]
    pub(super) fn take_quic(&mut self, id: u32) -> Option<(u32, Vec<u8>)> {
        let r = self.slab[id as usize].as_ref()?;
        let slot = r.quic?;
        let r = self.slab[id as usize].take().unwrap();
        self.free.push(id);
        Some((slot, r.packet.data))
    }

    /// The bytes of packet `id` while it is in the world.
    pub(super) fn data(&self, id: u32) -> Option<&[u8]> {
        self.slab
            .get(id as usize)?
            .as_ref()
            .map(|r| r.packet.data.as_slice())
    }

    pub(super) fn store(&mut self, r: Record) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slab[i as usize] = Some(r);
                i
            }
            None => {
                self.slab.push(Some(r));
                (self.slab.len() - 1) as u32
            }
        }
    }
}
