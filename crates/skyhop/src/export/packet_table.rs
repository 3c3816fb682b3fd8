//! The packet log as a table, with the plan's names (links, flows), and the
//! resolution of link names to the link directions a log records.

use crate::net::{LossReason, Payload};
use crate::observe::{ConnLabel, PacketEventKind, PacketLog};
use crate::scenario::Plan;
use serde::Serialize;

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
    for e in &log.events {
        let ld = e.link_dir as usize;
        // A probe datagram's `conn` is its flow index.
        let label = match e.payload {
            Payload::Datagram { .. } => Some(ConnLabel {
                flow: e.conn as usize,
                ..Default::default()
            }),
            // A packet from outside the simulated network: no flow.
            Payload::External => None,
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
                t.kind.push("ip");
                t.seq.push(None);
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
