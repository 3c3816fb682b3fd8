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

use super::plan::{bytes_in, Plan};
use super::schema::{FlowSize, Scenario};
use crate::engine::time::Dur;
use crate::net::addr::node_ip;
use crate::pep::ProxyPolicy;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Description {
    pub duration_s: f64,
    pub nodes: Vec<NodeDesc>,
    /// A moving network's constellation and routing (absent when static).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub motion: Option<MotionDesc>,
    /// The `starlink` access preset's terminals (`describe_access.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access: Option<Vec<super::describe_access::AccessDesc>>,
    pub links: Vec<LinkDesc>,
    /// Shared media (beams): each one's parts and terminals in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub beams: Vec<BeamDesc>,
    pub flows: Vec<FlowDesc>,
    pub warnings: Vec<String>,
}

/// A beam: its member links and, in words, its forward carrier (the MODCOD
/// range), its return link (the superframe) and each terminal's capacity
/// categories.
#[derive(Clone, Debug, Serialize)]
pub struct BeamDesc {
    pub beam: String,
    pub links: Vec<String>,
    pub description: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeDesc {
    pub node: String,
    /// The node's address in pcap exports.
    pub address: String,
    /// Where it is at t = 0 (nodes with a place).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<Place>,
    /// Where a moving node is at the end of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position_end: Option<Place>,
}

/// A place on the sphere of `geo`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Place {
    pub lat_deg: f64,
    pub lon_deg: f64,
    pub altitude_m: f64,
}

/// A moving network: its satellites, ground nodes and routing.
#[derive(Clone, Debug, Serialize)]
pub struct MotionDesc {
    pub satellites: usize,
    pub inter_satellite_links: usize,
    pub ground_nodes: Vec<String>,
    pub min_elevation_deg: Option<f64>,
    /// "shortest delay every 100 ms" or "epochs of 15 s from 0 s".
    pub routing: String,
    /// "drop" or "hold".
    pub when_down: String,
    pub lose_in_flight: bool,
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
    /// Straight-line distance between the ends at t = 0 (ends with places).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance_m: Option<f64>,
    /// Between moving ends: the smallest and largest one-way delay over the
    /// run (sampled at 600 instants), and the share of them it is up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_range_s: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub up_fraction: Option<f64>,
    /// Drop-tail limit: packets waiting, not counting the one in service.
    pub queue_packets: u32,
    /// This direction's rate times the longest round-trip time of the legs
    /// whose data cross it (`None` if none does).
    pub bdp_bytes: Option<u64>,
    /// The queue in bytes (full segments) over `bdp_bytes`.
    pub queue_bdp_fraction: Option<f64>,
    /// Channel models in evaluation order, as the scenario writes them.
    pub channels: Vec<serde_json::Value>,
    /// The link layer carrying this direction, as the scenario writes it
    /// (e.g. `dvbs`, whose forward direction has its own fade process and
    /// frame errors); `None` for a plain link.
    pub link_layer: Option<serde_json::Value>,
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
    /// The application ends by itself (a file, a number of pages): a run
    /// without a completion time is then an unfinished one, not a bulk
    /// flow's or a probe's, which run until the run stops.
    pub finite: bool,
    pub start_s: f64,
    pub legs: Vec<LegDesc>,
    /// A QUIC flow's settings (absent for TCP): its legs are then the
    /// stretches of its path, their TCP fields unused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quic: Option<QuicDesc>,
}

/// A QUIC flow as it runs (`flows.<id>.transport = "quic"`).
#[derive(Clone, Debug, Serialize)]
pub struct QuicDesc {
    /// The stack: "quinn-proto 0.11.19".
    pub stack: String,
    pub controller: String,
    pub stream_window_bytes: u64,
    /// `None`: unlimited (quinn's default).
    pub connection_window_bytes: Option<u64>,
    pub send_window_bytes: u64,
    pub initial_rtt_s: f64,
    /// The largest UDP payload path MTU discovery probes (`None`: off, 1200 B).
    pub max_udp_payload_bytes: Option<u16>,
    pub idle_timeout_s: Option<f64>,
    /// The end-to-end round trip (the legs' round trips added).
    pub rtt_s: f64,
    /// stream window / RTT: the goodput flow control allows one stream.
    pub window_bound_bps: f64,
    /// Split-TCP proxies on the path, which pass the flow's packets through.
    pub passed_through: Vec<String>,
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
    /// For a leg across a moving network, the figures are its route's at
    /// the start of the run: these nodes (empty: no route then); `None` for
    /// a leg over fixed links.
    pub route_at_start: Option<Vec<String>>,
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
    let end_s = plan.duration.as_secs_f64();
    let place = |i: usize, t: f64| -> Option<Place> {
        let m = plan.motion.as_ref()?;
        m.positions.has_place(i as u32).then(|| {
            let (lat_deg, lon_deg, altitude_m) = m.positions.geodetic(i as u32, t);
            Place {
                lat_deg,
                lon_deg,
                altitude_m,
            }
        })
    };
    let nodes = plan
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let ip = node_ip(i as u32);
            let moves = plan
                .motion
                .as_ref()
                .is_some_and(|m| m.positions.moves(i as u32));
            NodeDesc {
                node: n.clone(),
                address: format!("{}.{}.{}.{}", ip[0], ip[1], ip[2], ip[3]),
                position: place(i, 0.0),
                position_end: if moves { place(i, end_s) } else { None },
            }
        })
        .collect();
    // Longest leg RTT (and a full packet) whose data cross each direction.
    let mut longest: Vec<Option<(Dur, u64)>> = vec![None; plan.links.len()];
    let mut flows = Vec::new();
    for f in &plan.flows {
        let mut legs = Vec::new();
        for (li, leg) in f.legs.iter().enumerate() {
            let n = &leg.figures;
            for &d in &leg.fwd {
                let w = &mut longest[d as usize];
                if w.is_none_or(|(r, _)| n.rtt > r) {
                    *w = Some((n.rtt, n.packet));
                }
            }
            let (window_limit, window_limit_bytes) = if li + 1 < f.legs.len() {
                // The largest window the proxy advertises: half the cache
                // (half-free: half of what is free), a third (third), the
                // receive buffer (buffers).
                let p = &f.proxies[li];
                let node = &plan.nodes[p.node as usize];
                match p.policy {
                    ProxyPolicy::HalfFree => (
                        format!("nodes.{node}.proxy (half the free cache)"),
                        p.cache_bytes / 2,
                    ),
                    ProxyPolicy::Third => (
                        format!("nodes.{node}.proxy (a third of the cache)"),
                        p.cache_bytes / 3,
                    ),
                    ProxyPolicy::Buffers => {
                        (format!("nodes.{node}.proxy.recv_buffer"), p.cache_bytes)
                    }
                }
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
                route_at_start: n
                    .route_at_start
                    .as_ref()
                    .map(|p| p.iter().map(|&i| node_name(plan, i)).collect()),
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
            finite: f.app.finite(),
            start_s: f.start.as_secs_f64(),
            quic: f.quic.as_ref().map(|q| quic_desc(plan, f, q)),
            legs,
        });
    }
    let links = plan
        .links
        .iter()
        .enumerate()
        .map(|(d, ld)| {
            let (link, dir) = ld.name.split_once(':').unwrap_or((&ld.name, ""));
            // A link the starlink access preset added has its delay given.
            let given = scn.links.get(link).is_none_or(|sec| {
                let dsec = if dir == "forward" {
                    &sec.forward
                } else {
                    &sec.reverse
                };
                sec.delay.is_some() || dsec.as_ref().is_some_and(|x| x.delay.is_some())
            });
            let link_motion = plan
                .motion
                .as_ref()
                .and_then(|m| m.links.get(d / 2).copied().flatten());
            let delay_source = if given {
                "given"
            } else if link_motion.is_some_and(|m| m.moving_delay) {
                "moving positions"
            } else if ld.geometry.is_some() && plan.motion.is_some() {
                "positions"
            } else if ld.geometry.is_some() {
                "slant range"
            } else {
                "inter-satellite"
            };
            let motion = plan.motion.as_ref();
            let distance_m = motion.and_then(|m| {
                let p = &m.positions;
                (p.has_place(ld.from) && p.has_place(ld.to))
                    .then(|| p.position(ld.from, 0.0).distance(p.position(ld.to, 0.0)))
            });
            let (delay_range_s, up_fraction) = match (motion, link_motion) {
                (Some(m), Some(lm)) => {
                    let lm = if dir == "reverse" { reversed(lm) } else { lm };
                    let (range, up) = sample_link(&m.positions, ld.from, ld.to, lm, end_s);
                    (range.filter(|_| lm.moving_delay), Some(up))
                }
                _ => (None, None),
            };
            let bdp = longest[d].map(|(rtt, packet)| (bytes_in(ld.rate_bps, rtt), packet));
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
                distance_m,
                delay_range_s,
                up_fraction,
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
                link_layer: plan
                    .layers
                    .iter()
                    .find(|l| l.name == link)
                    .filter(|l| l.spec.shown())
                    .map(|l| serde_json::to_value(&l.spec).unwrap_or(serde_json::Value::Null)),
            }
        })
        .collect();
    let motion = plan.motion.as_ref().map(|m| {
        let mut ground: Vec<u32> = m.gsls.iter().flat_map(|r| r.grounds.clone()).collect();
        ground.sort_unstable();
        ground.dedup();
        let name = |n: u32| node_name(plan, n);
        MotionDesc {
            satellites: m.extra_nodes.len(),
            inter_satellite_links: m.isls.len(),
            ground_nodes: ground.into_iter().map(name).collect(),
            min_elevation_deg: m.gsls.first().map(|r| r.min_elevation_deg),
            routing: match m.routing {
                crate::net::mobile::RoutingPolicy::Interval(d) => {
                    format!("shortest delay every {}", crate::units::Duration(d))
                }
                crate::net::mobile::RoutingPolicy::Epochs { period, offset } => format!(
                    "{} in epochs of {} from {}",
                    if m.access.is_some() {
                        "the access scheduler's paths for its terminals, shortest delay elsewhere,"
                    } else {
                        "shortest delay"
                    },
                    crate::units::Duration(period),
                    crate::units::Duration(offset)
                ),
            },
            when_down: format!("{:?}", m.when_down).to_lowercase(),
            lose_in_flight: m.lose_in_flight,
        }
    });
    let beams = plan
        .media
        .iter()
        .map(|m| {
            let names: Vec<&str> = m
                .links
                .iter()
                .map(|&k| plan.layers[k as usize].name.as_str())
                .collect();
            let shapes: Vec<crate::net::beam::MemberShape> = m
                .links
                .iter()
                .zip(&m.from_hub)
                .zip(&names)
                .map(|((&k, d), n)| crate::net::beam::MemberShape {
                    name: n,
                    fwd_delay: plan.links[2 * k as usize + d.index()].delay,
                    rtn_delay: plan.links[2 * k as usize + d.other().index()].delay,
                    has_esn0: true,
                })
                .collect();
            BeamDesc {
                beam: m.name.clone(),
                links: names.iter().map(|n| n.to_string()).collect(),
                description: m.spec.describe(&shapes),
            }
        })
        .collect();
    Description {
        duration_s: plan.duration.as_secs_f64(),
        nodes,
        motion,
        access: super::describe_access::describe_access(plan),
        links,
        beams,
        flows,
        warnings: plan.warnings.clone(),
    }
}

/// A plan link's motion as its reverse direction sees it: the visibility
/// rule is the forward direction's, so an observer that is the forward
/// direction's `from` is the reverse direction's `to` (the engine's
/// `attach_motion` mirrors it the same way).
fn reversed(mut lm: crate::net::mobile::LinkMotion) -> crate::net::mobile::LinkMotion {
    use crate::net::moving::Visibility;
    if let Visibility::MinElevation {
        observer_is_from,
        min_deg,
    } = lm.visibility
    {
        lm.visibility = Visibility::MinElevation {
            observer_is_from: !observer_is_from,
            min_deg,
        };
    }
    lm
}

/// The smallest and largest delay of a moving link over `[0, end_s]` and
/// the share of 600 sampled instants at which it is up.
fn sample_link(
    p: &crate::mobility::Positions,
    from: u32,
    to: u32,
    lm: crate::net::mobile::LinkMotion,
    end_s: f64,
) -> (Option<[f64; 2]>, f64) {
    let n = 600;
    let (mut lo, mut hi, mut up) = (f64::INFINITY, 0f64, 0usize);
    for k in 0..=n {
        let t = end_s * k as f64 / n as f64;
        let (a, b) = (p.position(from, t), p.position(to, t));
        let d = crate::geo::delay_of(a.distance(b)).as_secs_f64();
        lo = lo.min(d);
        hi = hi.max(d);
        up += lm.visibility.up(a, b) as usize;
    }
    (Some([lo, hi]), up as f64 / (n + 1) as f64)
}

/// A node's name: the plan's, or a satellite's of the moving network.
fn node_name(plan: &Plan, n: u32) -> String {
    plan.nodes
        .get(n as usize)
        .or_else(|| {
            let m = plan.motion.as_ref()?;
            m.extra_nodes.get(n as usize - plan.nodes.len())
        })
        .cloned()
        .unwrap_or_default()
}

fn quic_desc(plan: &Plan, f: &crate::scenario::PlanFlow, q: &crate::quic::QuicConfig) -> QuicDesc {
    let rtt_s: f64 = f.legs.iter().map(|l| l.figures.rtt.as_secs_f64()).sum();
    QuicDesc {
        stack: "quinn-proto 0.11.19".into(),
        controller: q.controller.name().into(),
        stream_window_bytes: q.stream_receive_window,
        connection_window_bytes: (q.receive_window < (1 << 62) - 1).then_some(q.receive_window),
        send_window_bytes: q.send_window,
        initial_rtt_s: q.initial_rtt.as_secs_f64(),
        max_udp_payload_bytes: q.mtu_discovery_upper_bound,
        idle_timeout_s: q.max_idle_timeout.map(|d| d.as_secs_f64()),
        rtt_s,
        window_bound_bps: q.stream_receive_window as f64 * 8.0 / rtt_s.max(1e-9),
        passed_through: f
            .proxies
            .iter()
            .filter(|p| p.quic.is_none())
            .map(|p| plan.nodes[p.node as usize].clone())
            .collect(),
    }
}
