//! The per-packet event log: an optional observer the engine calls where a
//! packet is offered to a link direction, dropped (with the reason) and
//! delivered at the far end. Off unless a run asks for it (the engine's cost
//! is then one branch on an `Option`). It is filtered by link direction and
//! time window as it records, and turned into a table ([`PacketLog::table`])
//! or pcap files ([`super::pcap`]) after the run.

use crate::engine::time::Time;
use crate::net::{LossReason, Packet, Payload};
use crate::scenario::Plan;
use serde::Serialize;

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
}

impl Default for PacketLogOptions {
    fn default() -> Self {
        PacketLogOptions {
            link_dirs: None,
            from: Time::ZERO,
            to: Time::MAX,
        }
    }
}

/// Resolve link names to link directions: `"ab"` is both directions of
/// link `ab`, `"ab:forward"` / `"ab:reverse"` one of them. The error names
/// the unknown link and lists the known ones.
pub fn link_dirs_by_name(plan: &Plan, names: &[String]) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for name in names {
        let (link, dir) = match name.rsplit_once(':') {
            Some((l, d)) if d == "forward" || d == "reverse" => (l, Some(d)),
            _ => (name.as_str(), None),
        };
        let Some(k) = plan.layers.iter().position(|l| l.name == link) else {
            let known: Vec<&str> = plan.layers.iter().map(|l| l.name.as_str()).collect();
            return Err(format!(
                "unknown link {name:?} (links: {})",
                known.join(", ")
            ));
        };
        let k = k as u32;
        match dir {
            Some("forward") => out.push(2 * k),
            Some(_) => out.push(2 * k + 1),
            None => out.extend([2 * k, 2 * k + 1]),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
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
    from: Time,
    to: Time,
    pub events: Vec<PacketEvent>,
    /// Every connection of the run, by index (as the engine opened them).
    pub conns: Vec<ConnLabel>,
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
            from: opts.from,
            to: opts.to,
            events: Vec::with_capacity(4096),
            conns: Vec::new(),
        }
    }

    // Kept out of line: the engine calls it behind an `Option` check, and
    // inlining it would weigh on the hot path of runs that log nothing.
    #[cold]
    #[inline(never)]
    pub fn record(&mut self, t: Time, link_dir: u32, kind: PacketEventKind, slot: u32, p: &Packet) {
        if t < self.from || t > self.to || !self.keep[link_dir as usize] {
            return;
        }
        self.events.push(PacketEvent {
            t,
            link_dir,
            kind,
            slot,
            conn: p.conn,
            size_bytes: p.size_bytes,
            payload: p.payload,
        });
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

    /// The log as columns (one row per event).
    pub fn table(&self, plan: &Plan) -> PacketTable {
        let mut t = PacketTable::default();
        for e in &self.events {
            let ld = e.link_dir as usize;
            // A probe datagram's `conn` is its flow index.
            let label = match e.payload {
                Payload::Datagram { .. } => ConnLabel {
                    flow: e.conn as usize,
                    ..Default::default()
                },
                _ => self.conns[e.conn as usize],
            };
            let (l, handshake) = (label.leg, label.handshake);
            let flow = &plan.flows[label.flow];
            t.t_s.push(e.t.as_secs_f64());
            t.link.push(plan.layers[ld / 2].name.clone());
            t.dir.push(if ld.is_multiple_of(2) {
                "forward"
            } else {
                "reverse"
            });
            t.event.push(match e.kind {
                PacketEventKind::Enqueue => "enqueue",
                PacketEventKind::Drop(_) => "drop",
                PacketEventKind::Arrive => "arrive",
            });
            t.reason.push(match e.kind {
                PacketEventKind::Drop(LossReason::Queue) => Some("queue"),
                PacketEventKind::Drop(LossReason::Channel) => Some("channel"),
                PacketEventKind::Drop(LossReason::LinkLayer) => Some("link"),
                _ => None,
            });
            t.flow.push(flow.name.clone());
            t.leg.push(l as u32);
            t.size_bytes.push(e.size_bytes);
            match e.payload {
                Payload::Datagram { seq, .. } => {
                    t.kind.push("datagram");
                    t.seq.push(Some(seq));
                    t.len.push(e.size_bytes);
                    t.retx.push(false);
                    t.ack.push(None);
                    t.wnd.push(None);
                    t.sack.push(String::new());
                }
                Payload::Data(d) => {
                    t.kind.push(if d.is_syn() {
                        "syn"
                    } else if d.probe {
                        "probe"
                    } else {
                        "data"
                    });
                    t.seq.push(Some(d.seq));
                    t.len.push(d.len);
                    t.retx.push(d.retx);
                    t.ack.push(None);
                    t.wnd.push(None);
                    t.sack.push(String::new());
                }
                Payload::Ack(a) => {
                    t.kind.push(if handshake && a.ack == 0 && a.window_update {
                        "syn-ack"
                    } else {
                        "ack"
                    });
                    t.seq.push(None);
                    t.len.push(0);
                    t.retx.push(false);
                    t.ack.push(Some(a.ack));
                    t.wnd.push(Some(a.wnd));
                    t.sack.push(
                        a.sack
                            .as_slice()
                            .iter()
                            .map(|(s, e)| format!("{s}-{e}"))
                            .collect::<Vec<_>>()
                            .join(" "),
                    );
                }
            }
        }
        t
    }
}

/// The packet log as columns. Sequence and acknowledgement numbers are
/// stream byte offsets (the first data byte is 0); `wnd` in bytes; `sack`
/// lists `start-end` blocks separated by spaces.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PacketTable {
    pub t_s: Vec<f64>,
    pub link: Vec<String>,
    pub dir: Vec<&'static str>,
    pub event: Vec<&'static str>,
    pub reason: Vec<Option<&'static str>>,
    pub flow: Vec<String>,
    pub leg: Vec<u32>,
    pub kind: Vec<&'static str>,
    pub seq: Vec<Option<u64>>,
    pub len: Vec<u32>,
    pub retx: Vec<bool>,
    pub ack: Vec<Option<u64>>,
    pub wnd: Vec<Option<u64>>,
    pub sack: Vec<String>,
    pub size_bytes: Vec<u32>,
}
