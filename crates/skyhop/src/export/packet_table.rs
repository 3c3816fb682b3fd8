//! The packet log as a table, with the plan's names (links, flows), and the
//! resolution of link names to the link directions a log records.
//!
//! A QUIC datagram is a packet with bytes (its headers and encrypted
//! payload); its flow and connection are read from its IPv4 and UDP
//! headers as tshark would: the ends' node addresses and the client's port
//! (50000 + the flow's index; the server's is 443). Its events after the
//! enqueue on a link (the drop or arrival, which keep no bytes) take the
//! label of that enqueue (the same packet slot).

use crate::net::addr::node_ip;
use crate::net::{LossReason, Payload};
use crate::observe::{ConnLabel, PacketEventKind, PacketLog};
use crate::scenario::Plan;
use serde::Serialize;
use std::collections::HashMap;

/// The UDP port of a QUIC flow's server end.
const QUIC_SERVER_PORT: u16 = 443;

/// QUIC connections by (client port, the two ends' addresses in order):
/// each one's flow and its place along the flow's path.
type QuicConns = HashMap<(u16, [u8; 4], [u8; 4]), (usize, u32)>;

/// Every QUIC connection of the plan.
fn quic_connections(plan: &Plan) -> QuicConns {
    let mut out = HashMap::new();
    for (fi, f) in plan.flows.iter().enumerate() {
        let Some(stretches) = crate::scenario::quic_stretches(f) else {
            continue;
        };
        let port = 50_000 + (fi % 10_000) as u16;
        for (k, s) in stretches.iter().enumerate() {
            let a = node_ip(f.legs[s.legs.0].path[0]);
            let b = node_ip(*f.legs[s.legs.1].path.last().unwrap());
            out.insert((port, a.min(b), a.max(b)), (fi, k as u32));
        }
    }
    out
}

/// A QUIC datagram's flow, connection and number (its IPv4
/// identification: its number among the datagrams its end sent), from
/// its headers; `None` for any other packet with bytes.
fn quic_label(conns: &QuicConns, data: &[u8]) -> Option<(usize, u32, u64)> {
    if data.len() < 28 || data[0] != 0x45 || data[9] != 17 {
        return None;
    }
    let ip = |o: usize| [data[o], data[o + 1], data[o + 2], data[o + 3]];
    let (src, dst) = (ip(12), ip(16));
    let port = |o: usize| u16::from_be_bytes([data[o], data[o + 1]]);
    let (sport, dport) = (port(20), port(22));
    let client = match (sport, dport) {
        (QUIC_SERVER_PORT, p) | (p, QUIC_SERVER_PORT) => p,
        _ => return None,
    };
    let &(flow, leg) = conns.get(&(client, src.min(dst), src.max(dst)))?;
    Some((flow, leg, u16::from_be_bytes([data[4], data[5]]) as u64))
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

/// The log as columns (one row per event), with the plan's names.
pub fn packet_table(log: &PacketLog, plan: &Plan) -> PacketTable {
    let mut t = PacketTable::default();
    let conns = quic_connections(plan);
    // The QUIC label of the packet each slot last carried onto a link.
    let mut by_slot: HashMap<u32, (usize, u32, u64)> = HashMap::new();
    for e in &log.events {
        let ld = e.link_dir as usize;
        // A packet with bytes: a QUIC datagram (its flow and connection),
        // or a packet from outside the simulated network (no flow).
        let quic = match e.payload {
            Payload::External if conns.is_empty() => None,
            Payload::External => match log.blobs.get(e.conn as usize) {
                Some(data) => {
                    let q = quic_label(&conns, data);
                    match q {
                        Some(q) => by_slot.insert(e.slot, q),
                        None => by_slot.remove(&e.slot),
                    };
                    q
                }
                None => by_slot.get(&e.slot).copied(),
            },
            _ => None,
        };
        // A probe datagram's `conn` is its flow index.
        let label = match e.payload {
            Payload::Datagram { .. } => Some(ConnLabel {
                flow: e.conn as usize,
                ..Default::default()
            }),
            Payload::External => quic.map(|(flow, leg, _)| ConnLabel {
                flow,
                leg: leg as usize,
                ..Default::default()
            }),
            _ => Some(log.conns[e.conn as usize]),
        };
        let (l, handshake) = label.map_or((0, false), |c| (c.leg, c.handshake));
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
            PacketEventKind::Drop(LossReason::LinkDown) => Some("down"),
            _ => None,
        });
        t.flow
            .push(label.map_or(String::new(), |c| plan.flows[c.flow].name.clone()));
        t.leg.push(l as u32);
        t.size_bytes.push(e.size_bytes);
        match e.payload {
            Payload::External => {
                t.kind.push(if quic.is_some() { "quic" } else { "ip" });
                t.seq.push(quic.map(|q| q.2));
                t.len.push(e.size_bytes);
                t.retx.push(false);
                t.ack.push(None);
                t.wnd.push(None);
                t.sack.push(String::new());
            }
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

/// The packet log as columns. Sequence and acknowledgement numbers are
/// stream byte offsets (the first data byte is 0); `wnd` in bytes; `sack`
/// lists `start-end` blocks separated by spaces. A QUIC datagram (`kind`
/// "quic") has its flow, its connection as `leg` (0 from the flow's
/// `from`; more only with QUIC-terminating proxies) and as `seq` its
/// number among the datagrams its end sent (its IPv4 identification,
/// so modulo 65 536).
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
