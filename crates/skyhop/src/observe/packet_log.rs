//! The per-packet event log: an optional observer the engine calls where a
//! packet is offered to a link direction, dropped (with the reason) and
//! delivered at the far end. Off unless a run asks for it (the engine's cost
//! is then one branch on an `Option`). It is filtered by link direction and
//! time window as it records; after the run, `crate::export` turns it into
//! a table or pcap files with the plan's names.

use crate::engine::time::Time;
use crate::net::{LossReason, Packet, Payload};

/// What happened to a packet at a link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketEventKind {
    /// Offered to the direction's queue (a queue drop follows at once if
    /// the queue was full).
    Enqueue,
    /// Lost: queue full, channel, or given up by the link layer.
    Drop(LossReason),
    /// Reached the far end.
    Arrive,
}

/// One logged event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PacketEvent {
    pub t: Time,
    /// Link direction index (link `k`: `2k` forward, `2k + 1` reverse).
    pub link_dir: u32,
    pub kind: PacketEventKind,
    /// The engine's packet slot (pairs an enqueue with its queue drop).
    pub slot: u32,
    /// Connection index: the legs of all flows, in flow (name) and leg order.
    pub conn: u32,
    /// Bytes on the wire.
    pub size_bytes: u32,
    pub payload: Payload,
}

/// What to record.
#[derive(Clone, Debug, PartialEq)]
pub struct PacketLogOptions {
    /// Link directions to record (`None`: all).
    pub link_dirs: Option<Vec<u32>>,
    /// Time window, both ends included.
    pub from: Time,
    pub to: Time,
    /// Also record the links a moving network builds during the run (kept
    /// anyway when `link_dirs` is `None`).
    pub built_links: bool,
}

impl Default for PacketLogOptions {
    fn default() -> Self {
        PacketLogOptions {
            link_dirs: None,
            from: Time::ZERO,
            to: Time::MAX,
            built_links: false,
        }
    }
}

/// What a connection is: its flow, the plan leg it runs on, and which way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnLabel {
    pub flow: usize,
    pub leg: usize,
    /// A reverse stream (the leg's `to` end sends; a web session's requests).
    pub reverse: bool,
    /// The connection opens with a SYN/SYN-ACK exchange.
    pub handshake: bool,
}

/// The recorded events of one run, in the order they happened.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PacketLog {
    keep: Vec<bool>,
    keep_all: bool,
    from: Time,
    to: Time,
    pub events: Vec<PacketEvent>,
    /// Every connection of the run, by index (as the engine opened them).
    pub conns: Vec<ConnLabel>,
    /// The bytes of packets from outside the simulated network, by the
    /// index their enqueue events carry in `conn` (other events of such
    /// packets carry `u32::MAX`).
    pub blobs: Vec<Vec<u8>>,
    /// Names of the links a moving network built during the run, in order
    /// (link `plan.layers.len() + i` is `built_names[i]`).
    pub built_names: Vec<String>,
}

impl PacketLog {
    pub fn new(link_dirs: usize, opts: &PacketLogOptions) -> PacketLog {
        let mut keep = vec![opts.link_dirs.is_none(); link_dirs];
        for &ld in opts.link_dirs.iter().flatten() {
            if let Some(k) = keep.get_mut(ld as usize) {
                *k = true;
            }
        }
        PacketLog {
            keep,
            keep_all: opts.link_dirs.is_none() || opts.built_links,
            from: opts.from,
            to: opts.to,
            events: Vec::with_capacity(4096),
            conns: Vec::new(),
            blobs: Vec::new(),
            built_names: Vec::new(),
        }
    }

    /// Whether events of `link_dir` are kept (directions created during a
    /// run, between moving nodes, are kept when every direction is).
    fn keeps(&self, link_dir: u32) -> bool {
        match self.keep.get(link_dir as usize) {
            Some(&k) => k,
            None => self.keep_all,
        }
    }

    // Kept out of line: the engine calls it behind an `Option` check, and
    // inlining it would weigh on the hot path of runs that log nothing.
    #[cold]
    #[inline(never)]
    pub fn record(&mut self, t: Time, link_dir: u32, kind: PacketEventKind, slot: u32, p: &Packet) {
        if t < self.from || t > self.to || !self.keeps(link_dir) {
            return;
        }
        self.events.push(PacketEvent {
            t,
            link_dir,
            kind,
            slot,
            // Only an external packet's enqueue holds its bytes (`blobs`).
            conn: if let Payload::External = p.payload {
                u32::MAX
            } else {
                p.conn
            },
            size_bytes: p.size_bytes,
            payload: p.payload,
        });
    }

    /// Record an event of a packet from outside the simulated network; an
    /// enqueue keeps a copy of its bytes (for pcap files of real traffic).
    #[cold]
    #[inline(never)]
    pub fn record_external(
        &mut self,
        t: Time,
        link_dir: u32,
        kind: PacketEventKind,
        slot: u32,
        p: &Packet,
        data: &[u8],
    ) {
        if t < self.from || t > self.to || !self.keeps(link_dir) {
            return;
        }
        let blob = if kind == PacketEventKind::Enqueue {
            self.blobs.push(data.to_vec());
            (self.blobs.len() - 1) as u32
        } else {
            u32::MAX
        };
        self.events.push(PacketEvent {
            t,
            link_dir,
            kind,
            slot,
            conn: blob,
            size_bytes: p.size_bytes,
            payload: p.payload,
        });
    }

    /// Move the events before `t` (and the bytes they hold) into a log of
    /// their own, with the same connection labels; this log keeps the rest.
    /// An enqueue and the queue drop that refuses it share an instant, so a
    /// split before `t` never separates them.
    pub fn split_before(&mut self, t: Time) -> PacketLog {
        let k = self.events.partition_point(|e| e.t < t);
        let events: Vec<PacketEvent> = self.events.drain(..k).collect();
        let nblobs = events
            .iter()
            .filter(|e| matches!(e.payload, Payload::External) && e.conn != u32::MAX)
            .map(|e| e.conn as usize + 1)
            .max()
            .unwrap_or(0);
        let blobs: Vec<Vec<u8>> = self.blobs.drain(..nblobs).collect();
        if nblobs > 0 {
            for e in &mut self.events {
                if matches!(e.payload, Payload::External) && e.conn != u32::MAX {
                    e.conn -= nblobs as u32;
                }
            }
        }
        PacketLog {
            keep: self.keep.clone(),
            keep_all: self.keep_all,
            from: self.from,
            to: self.to,
            events,
            conns: self.conns.clone(),
            blobs,
            built_names: self.built_names.clone(),
        }
    }

    /// Was the enqueue at `events[i]` accepted (not refused by a full queue)?
    pub fn accepted(&self, i: usize) -> bool {
        let e = &self.events[i];
        if e.kind != PacketEventKind::Enqueue {
            return false;
        }
        !matches!(self.events.get(i + 1), Some(n) if n.kind == PacketEventKind::Drop(LossReason::Queue)
            && n.slot == e.slot && n.link_dir == e.link_dir && n.t == e.t)
    }
}
