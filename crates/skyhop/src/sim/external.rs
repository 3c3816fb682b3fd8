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

use super::world::World;
use crate::channel::PacketKind;
use crate::engine::Time;
use crate::net::topology::Topology;
use crate::net::{Packet, Payload};
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

struct Record {
    packet: ExternalPacket,
    from: u32,
    /// The node its route ends at.
    exit: u32,
    injected_at: Time,
}

/// The world's packets from and to outside.
pub(super) struct External {
    topology: Topology,
    /// Nodes facing outside (a live host's).
    outside: Vec<bool>,
    /// Route (index in the world's routes) and exit node per (from, to).
    routes: HashMap<(u32, u32), Option<(u32, u32)>>,
    slab: Vec<Option<Record>>,
    free: Vec<u32>,
    outbound: Vec<Outbound>,
    stats: ExternalStats,
}

impl External {
    pub fn new(topology: Topology) -> External {
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
    pub fn link_view(&self, id: u32) -> (PacketKind, u64, bool) {
        let r = self.slab[id as usize]
            .as_ref()
            .expect("a live external packet");
        (r.packet.kind, r.packet.seq, r.packet.retx)
    }

    /// Packet `id` reached the end of its route at `now`.
    pub fn leave(&mut self, now: Time, id: u32) {
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
    pub fn forget(&mut self, id: u32) {
        if self.slab[id as usize].take().is_some() {
            self.free.push(id);
            self.stats.lost += 1;
        }
    }

    /// The bytes of packet `id` while it is in the world.
    pub fn data(&self, id: u32) -> Option<&[u8]> {
        self.slab
            .get(id as usize)?
            .as_ref()
            .map(|r| r.packet.data.as_slice())
    }

    fn store(&mut self, r: Record) -> u32 {
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

impl World {
    /// Mark `nodes` as facing outside: packets injected for them (or
    /// passing them) leave the world there.
    pub fn set_outside(&mut self, nodes: &[u32]) {
        for &n in nodes {
            self.ext.outside[n as usize] = true;
        }
        self.ext.routes.clear();
    }

    /// A packet arrives from outside at node `from`, for node `to`, at
    /// `now` (not before the last event run: step to `now` first).
    pub fn inject(&mut self, now: Time, from: u32, to: u32, packet: ExternalPacket) -> Injected {
        assert!(now >= self.q.now(), "a packet injected in the past");
        let route = match self.ext.routes.get(&(from, to)) {
            // A moving world forwards by destination.
            None if self.mobile.is_some() && from != to => {
                let r = self.mobile.as_deref_mut().unwrap().route(from, to);
                Some((r, to))
            }
            Some(r) => *r,
            None => {
                let r = self.external_route(from, to);
                self.ext.routes.insert((from, to), r);
                r
            }
        };
        let Some((route, exit)) = route else {
            self.ext.stats.unroutable += 1;
            return Injected::Unroutable;
        };
        let bytes = packet.data.len();
        self.ext.stats.injected += 1;
        self.ext.stats.injected_bytes += bytes as u64;
        let id = self.ext.store(Record {
            packet,
            from,
            exit,
            injected_at: now,
        });
        if from == to || (route & super::mobile::DYN_ROUTE == 0 && self.routes[route as usize].is_empty()) {
            self.ext.leave(now, id);
            return Injected::Sent;
        }
        let slot = self.alloc(Packet {
            size_bytes: bytes.min(u32::MAX as usize) as u32,
            conn: id,
            route,
            hop: 0,
            payload: Payload::External,
        });
        self.transmit(now, slot);
        Injected::Sent
    }

    /// The route of packets from `from` to `to`, cut at the first
    /// outside-facing node after `from`: (route index, exit node).
    fn external_route(&mut self, from: u32, to: u32) -> Option<(u32, u32)> {
        let path = self.ext.topology.path(from, to)?;
        let cut = path
            .iter()
            .skip(1)
            .position(|&n| self.ext.outside[n as usize])
            .map_or(path.len(), |k| k + 2);
        let path = &path[..cut];
        let dirs = self.ext.topology.dirs_of(path);
        self.routes.push(dirs);
        Some(((self.routes.len() - 1) as u32, *path.last().unwrap()))
    }

    /// Move the packets that left the world since the last call into `out`.
    pub fn take_outbound(&mut self, out: &mut Vec<Outbound>) {
        out.append(&mut self.ext.outbound);
    }

    /// Counters of the packets from outside so far.
    pub fn external_stats(&self) -> ExternalStats {
        self.ext.stats
    }

    /// The bytes of an external packet the packet log recorded by its
    /// index, while it is still in the world.
    pub fn external_data(&self, id: u32) -> Option<&[u8]> {
        self.ext.data(id)
    }
}

impl World {
    /// The packet log's events before `t` (a live run writes them out as it
    /// goes); `None` when the run keeps no log.
    pub fn take_packet_log_before(&mut self, t: Time) -> Option<crate::observe::PacketLog> {
        self.log.as_deref_mut().map(|l| l.split_before(t))
    }
}
