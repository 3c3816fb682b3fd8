//! The resolved network as data: per link direction its rate, delay (and
//! where the delay came from), queue (in packets and as a fraction of the
//! bandwidth-delay product of the legs that cross it) and channel models;
//! per flow its path and legs with their round-trip times, BDPs and the
//! window that serves them; and every warning. `skyhop describe` prints it,
//! `skyhop run --json` includes it as `network`.
//!
//! Units: rates in bit/s, times in seconds, sizes in bytes (`_packets`:
//! packets of the leg's full segment size, headers included).
//!
//! The warnings are the plan's (receive windows, proxy caches and queues
//! below the bandwidth-delay product: `plan/warnings.rs`), which
//! `skyhop run` shows too.

use super::plan::Plan;
use super::schema::{FlowSize, Scenario};
use crate::engine::time::Dur;
use crate::net::addr::node_ip;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Description {
    pub duration_s: f64,
    pub nodes: Vec<NodeDesc>,
    pub links: Vec<LinkDesc>,
    pub flows: Vec<FlowDesc>,
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeDesc {
    pub node: String,
    /// The node's address in pcap exports.
    pub address: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkDesc {
    pub link: String,
    pub dir: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay_s: f64,
    /// `given` (the scenario's delay), `slant range` (ground station to GEO
    /// satellite, from positions) or `inter-satellite` (GEO to GEO).
    pub delay_source: String,
    pub elevation_deg: Option<f64>,
    pub azimuth_deg: Option<f64>,
    pub slant_range_m: Option<f64>,
    /// Drop-tail limit: packets waiting, not counting the one in service.
    pub queue_packets: u32,
    /// This direction's rate times the longest round-trip time of the legs
    /// whose data cross it (`None` if none does).
    pub bdp_bytes: Option<u64>,
    /// The queue in bytes (full segments) over `bdp_bytes`.
    pub queue_bdp_fraction: Option<f64>,
    /// Channel models in evaluation order, as the scenario writes them.
    pub channels: Vec<serde_json::Value>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowDesc {
    pub flow: String,
    pub from: String,
    pub to: String,
    pub path: Vec<String>,
    /// `None`: bulk (for the run's duration).
    pub size_bytes: Option<u64>,
    /// The application, in words ("file", "bulk", "cbr probe …", "web sessions …").
    pub app: String,
    pub start_s: f64,
    pub legs: Vec<LegDesc>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LegDesc {
    pub from: String,
    pub to: String,
    pub path: Vec<String>,
    pub tcp: String,
    /// The profile whose defaults the leg runs with (`linux`, `studies`).
    pub profile: String,
    /// The congestion controller and the loss recovery that run.
    pub controller: String,
    pub recovery: String,
    /// SACK, RACK-TLP and RFC 7323 timestamps on the connection.
    pub sack: bool,
    pub rack: bool,
    pub timestamps: bool,
    /// The slowest link direction of the leg's data path.
    pub bottleneck_bps: u64,
    /// Propagation there and back plus the transmission of one full segment
    /// and of its ACK on every hop.
    pub rtt_s: f64,
    pub bdp_bytes: u64,
    pub bdp_packets: f64,
    /// What bounds the leg's window at its receiver: `tcp.rcv_buffer` or
    /// `nodes.<P>.proxy` (the cache of the proxy that receives the leg).
    pub window_limit: String,
    pub window_limit_bytes: u64,
    pub mss: u32,
    pub header_bytes: u32,
    pub initial_window: u32,
    pub handshake: bool,
    pub delayed_ack: bool,
    pub sack_blocks: u32,
}

/// Describe a plan built from `scn`.
pub fn describe(scn: &Scenario, plan: &Plan) -> Description {
    let nodes = plan
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let ip = node_ip(i as u32);
            NodeDesc {
                node: n.clone(),
                address: format!("{}.{}.{}.{}", ip[0], ip[1], ip[2], ip[3]),
            }
        })
        .collect();
    // Longest leg RTT (and a full packet) whose data cross each direction.
    let mut longest: Vec<Option<(Dur, u64)>> = vec![None; plan.links.len()];
    let mut flows = Vec::new();
    for (fi, f) in plan.flows.iter().enumerate() {
        let mut legs = Vec::new();
        for (li, leg) in f.legs.iter().enumerate() {
            let n = plan.leg_numbers(fi, li);
            for &d in &leg.fwd {
                let w = &mut longest[d as usize];
                if w.is_none_or(|(r, _)| n.rtt > r) {
                    *w = Some((n.rtt, n.packet));
                }
            }
            let (window_limit, window_limit_bytes) = if li + 1 < f.legs.len() {
                let p = &f.proxies[li];
                (
                    format!("nodes.{}.proxy", plan.nodes[p.node as usize]),
                    p.cache_bytes,
                )
            } else {
                ("tcp.rcv_buffer".to_string(), leg.cfg.rcv_buffer)
            };
            legs.push(LegDesc {
                from: plan.nodes[*leg.path.first().unwrap() as usize].clone(),
                to: plan.nodes[*leg.path.last().unwrap() as usize].clone(),
                path: leg
                    .path
                    .iter()
                    .map(|&i| plan.nodes[i as usize].clone())
                    .collect(),
                tcp: leg.variant_name.clone(),
                profile: leg.profile.name().to_string(),
                controller: leg.cfg.variant.cc.name().to_string(),
                recovery: leg.cfg.variant.recovery.name().to_string(),
                sack: leg.cfg.variant.sack,
                rack: leg.cfg.rack,
                timestamps: leg.cfg.timestamps,
                bottleneck_bps: n.bottleneck,
                rtt_s: n.rtt.as_secs_f64(),
                bdp_bytes: n.bdp,
                bdp_packets: n.bdp as f64 / n.packet as f64,
                window_limit,
                window_limit_bytes,
                mss: leg.cfg.mss,
                header_bytes: leg.cfg.header_bytes,
                initial_window: leg.cfg.initial_window,
                handshake: leg.cfg.handshake,
                delayed_ack: leg.cfg.delayed_ack,
                sack_blocks: leg.cfg.sack_blocks,
            });
        }
        flows.push(FlowDesc {
            flow: f.name.clone(),
            from: plan.nodes[*f.path.first().unwrap() as usize].clone(),
            to: plan.nodes[*f.path.last().unwrap() as usize].clone(),
            path: f
                .path
                .iter()
                .map(|&i| plan.nodes[i as usize].clone())
                .collect(),
            size_bytes: match f.size {
                FlowSize::Bytes(b) => Some(b),
                FlowSize::Unlimited => None,
            },
            app: f.app.describe(),
            start_s: f.start.as_secs_f64(),
            legs,
        });
    }
    let links = plan
        .links
        .iter()
        .enumerate()
        .map(|(d, ld)| {
            let (link, dir) = ld.name.split_once(':').unwrap_or((&ld.name, ""));
            let sec = &scn.links[link];
            let dsec = if dir == "forward" {
                &sec.forward
            } else {
                &sec.reverse
            };
            let given = sec.delay.is_some() || dsec.as_ref().is_some_and(|x| x.delay.is_some());
            let delay_source = if given {
                "given"
            } else if ld.geometry.is_some() {
                "slant range"
            } else {
                "inter-satellite"
            };
            let bdp = longest[d].map(|(rtt, packet)| {
                let b = (ld.rate_bps as f64 / 8.0 * rtt.as_secs_f64()).round() as u64;
                (b, packet)
            });
            LinkDesc {
                link: link.to_string(),
                dir: dir.to_string(),
                from: plan.nodes[ld.from as usize].clone(),
                to: plan.nodes[ld.to as usize].clone(),
                rate_bps: ld.rate_bps,
                delay_s: ld.delay.as_secs_f64(),
                delay_source: delay_source.to_string(),
                elevation_deg: ld.geometry.map(|g| g.elevation_deg),
                azimuth_deg: ld.geometry.map(|g| g.azimuth_deg),
                slant_range_m: ld.geometry.map(|g| g.slant_range_m),
                queue_packets: ld.queue,
                bdp_bytes: bdp.map(|b| b.0),
                queue_bdp_fraction: bdp
                    .filter(|b| b.0 > 0)
                    .map(|(b, packet)| (ld.queue as u64 * packet) as f64 / b as f64),
                channels: ld
                    .channels
                    .iter()
                    .map(|c| serde_json::to_value(c).unwrap_or(serde_json::Value::Null))
                    .collect(),
            }
        })
        .collect();
    Description {
        duration_s: plan.duration.as_secs_f64(),
        nodes,
        links,
        flows,
        warnings: plan.warnings.clone(),
    }
}
