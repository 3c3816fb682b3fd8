//! Warnings about a built plan: capacities below the bandwidth-delay
//! product they serve. Not errors (a study may want exactly that), but each
//! says what limits and what would not.
//!
//! - A receive buffer below the path's BDP caps a flow's goodput (a known
//!   trap of satellite TCP): [`receive_windows`].
//! - Proxy caches and bottleneck queues below the BDP of the legs they
//!   serve: [`capacity`].
//! - Today's controllers run with the studies' era defaults: [`profiles`].

use super::Plan;
use crate::pep::ProxyPolicy;
use crate::scenario::schema::Profile;
use crate::tcp::registry::Era;
use std::collections::BTreeMap;

/// Legs that run today's controllers (CUBIC, Hybla, BBR: their era in
/// `tcp/registry.rs`) under the `studies` profile: defaults
/// of the studies' era (IW 1, a 1 s minimum RTO, no RACK, the scoreboard
/// dropped at a timeout, go-back-N, no timestamps) that no host running
/// these controllers has, and under which they can collapse (a lost
/// retransmission waits for the timeout, which goes back N). One warning
/// per flow.
pub(super) fn profiles(plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    for f in plan.flows.iter().filter(|f| f.quic.is_none()) {
        let mut names: Vec<&str> = f
            .legs
            .iter()
            .filter(|l| {
                l.profile == Profile::Studies && l.cfg.variant.cc.traits().era == Era::Today
            })
            .map(|l| l.cfg.variant.cc.name())
            .collect();
        names.dedup();
        if !names.is_empty() {
            out.push(format!(
                "flows.{}: {} under tcp.profile \"studies\", the studies' era defaults (initial window 1, minimum RTO 1 s, no RACK, the SACK scoreboard dropped and go-back-N at a timeout, no timestamps), which no host running {} has; profile \"linux\" (the default) is what today's hosts do",
                f.name,
                names.join(", "),
                if names.len() == 1 { "it" } else { "them" }
            ));
        }
    }
    out
}

/// Flows whose end host's receive buffer is below the bandwidth-delay
/// product of the last leg's path over its propagation round trip
/// (`LegFigures::propagation_bdp`): one warning per
/// distinct (buffer, BDP), naming the flows it concerns. A proxy's incoming
/// window is its cache policy's business; a datagram flow has no window.
pub(super) fn receive_windows(plan: &Plan) -> Vec<String> {
    let mut groups: BTreeMap<(u64, u64), (Vec<&str>, f64)> = BTreeMap::new();
    for f in &plan.flows {
        if f.app.datagrams() || f.quic.is_some() {
            continue;
        }
        let Some(leg) = f.legs.last() else { continue };
        let (bdp, rtt) = (leg.figures.propagation_bdp, leg.figures.propagation);
        let rwnd = leg.cfg.rcv_buffer;
        if rwnd < bdp {
            let cap = rwnd as f64 * 8.0 / rtt.as_secs_f64().max(1e-9);
            groups
                .entry((rwnd, bdp))
                .or_insert((Vec::new(), cap))
                .0
                .push(&f.name);
        }
    }
    groups
        .into_iter()
        .map(|((rwnd, bdp), (names, cap))| {
            let who = if names.len() <= 3 {
                names
                    .iter()
                    .map(|n| format!("flows.{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            } else {
                format!(
                    "flows.{}, flows.{} and {} more flows",
                    names[0],
                    names[1],
                    names.len() - 2
                )
            };
            format!(
                "{who}: receive buffer {rwnd} B is below the path's bandwidth-delay product {bdp} B; one flow's goodput is capped near {cap:.0} bit/s (raise tcp.rcv_buffer)"
            )
        })
        .collect()
}

/// A QUIC connection whose receiver's stream window is below its stretch
/// of the path's bandwidth-delay product (end to end but for
/// QUIC-terminating proxies: split proxies pass it through): one stream's
/// goodput is capped near window / RTT (quinn's default 1.25 MB gives
/// 13.6 Mb/s on a 100 Mb/s GEO path).
pub(super) fn quic_windows(plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    for f in &plan.flows {
        let Some(stretches) = super::quic_stretches(f) else {
            continue;
        };
        if f.app.datagrams() || f.legs.is_empty() {
            continue;
        }
        for (k, s) in stretches.iter().enumerate() {
            let legs = &f.legs[s.legs.0..=s.legs.1];
            let bottleneck = legs.iter().map(|l| l.figures.bottleneck).min().unwrap_or(0);
            let prop: f64 = legs
                .iter()
                .map(|l| l.figures.propagation.as_secs_f64())
                .sum();
            let bdp = (bottleneck as f64 * prop / 8.0) as u64;
            let w = s.receive_window;
            if let Some(m) = quic_gaps(plan, f, legs, w, q_payload(f), bdp) {
                out.push(m);
            }
            if w >= bdp {
                continue;
            }
            let cap = format!("{:.0} bit/s", w as f64 * 8.0 / prop.max(1e-9));
            let bps = rate(bottleneck);
            if k + 1 == stretches.len() {
                let stretch = match k {
                    0 => "the path's".to_string(),
                    _ => format!(
                        "the stretch from {}'s",
                        node_of(plan, f.legs[s.legs.0].path[0])
                    ),
                };
                out.push(format!(
                    "flows.{}: QUIC stream window {w} B is below {stretch} bandwidth-delay product {bdp} B ({bps} x {prop:.3} s); one stream's goodput is capped near {cap} (raise flows.{}.quic.stream_window or quic.stream_window)",
                    f.name, f.name
                ));
            } else {
                let node = node_of(plan, f.proxies[s.legs.1].node);
                out.push(format!(
                    "flows.{}: the QUIC-terminating proxy at {node} offers a {w} B stream window, below its incoming connection's bandwidth-delay product {bdp} B ({bps} x {prop:.3} s); one stream's goodput is capped near {cap} (enlarge nodes.{node}.proxy)",
                    f.name
                ));
            }
        }
    }
    out
}

/// quinn's bound on a stream's separate runs of received bytes (its
/// assembler's `MAX_CHUNKS`, quinn-proto 0.11.19).
const QUINN_MAX_CHUNKS: u64 = 1024;

/// The largest UDP payload of a QUIC flow's datagrams.
fn q_payload(f: &super::PlanFlow) -> u64 {
    let q = f.quic.as_ref().expect("a QUIC flow");
    q.mtu_discovery_upper_bound.unwrap_or(q.initial_mtu) as u64
}

/// The risk of quinn's "too many gaps in stream buffer" on a QUIC
/// connection over `legs` whose receiver offers stream window `w`.
///
/// quinn keeps a stream's out-of-order data as separate runs and closes
/// the connection with INTERNAL_ERROR once more than 1024 remain after
/// merging contiguous ones (`connection/assembler.rs`, `MAX_CHUNKS`).
/// Runs are separated by holes, so that takes more than 1024 holes within
/// the window: a window of at least 2 × 1025 full datagrams, and a burst
/// of more than 1024 lost datagrams interleaved with delivered ones — what
/// a drop-tail queue overflowing in a paced slow start does when the path
/// holds more than 1024 datagrams (its bandwidth-delay product and its
/// bottleneck queue): the round after the overflow sends up to twice that
/// and loses up to half of it. Both together: the run may abort.
fn quic_gaps(
    plan: &Plan,
    f: &super::PlanFlow,
    legs: &[super::PlanLeg],
    w: u64,
    payload: u64,
    bdp: u64,
) -> Option<String> {
    let limit = QUINN_MAX_CHUNKS + 1;
    if w < 2 * limit * payload {
        return None;
    }
    // The bottleneck direction's queue (the slowest forward direction).
    let (_, queue) = legs
        .iter()
        .flat_map(|l| l.fwd.iter())
        .map(|&d| &plan.links[d as usize])
        .map(|l| (l.rate_bps, l.queue as u64))
        .min_by_key(|x| x.0)?;
    let held = bdp / payload + queue;
    if held < limit {
        return None;
    }
    Some(format!(
        "flows.{}: quinn may close the connection (\"too many gaps in stream buffer\"): its {w} B stream window spans more than 2 x 1024 datagrams of {payload} B and the path holds {held} ({bdp} B in flight and a {queue}-packet bottleneck queue), so a slow start overflowing the queue can leave more than 1024 holes, quinn's limit; a stream window below {} B cannot (docs/quic.md)",
        f.name,
        2 * limit * payload
    ))
}

fn node_of(plan: &Plan, n: u32) -> &str {
    &plan.nodes[n as usize]
}

fn kb(bytes: f64) -> String {
    if bytes >= 1e6 {
        format!("{:.2} MB", bytes / 1e6)
    } else {
        format!("{:.1} kB", bytes / 1e3)
    }
}

fn rate(bps: u64) -> String {
    let b = bps as f64;
    if b >= 1e9 {
        format!("{} Gb/s", b / 1e9)
    } else if b >= 1e6 {
        format!("{} Mb/s", b / 1e6)
    } else if b >= 1e3 {
        format!("{} kb/s", b / 1e3)
    } else {
        format!("{bps} bit/s")
    }
}

/// Proxy caches and bottleneck queues smaller than the bandwidth-delay
/// product they serve, each with the size that would not limit.
///
/// - A proxy cache: the `half-free` policy advertises at most half of the
///   cache and `third` a third (its outgoing leg also keeps at most a third
///   unacknowledged), so the cache needs 2x (3x) the larger BDP of its two
///   legs; `buffers` needs its receive buffer above the incoming leg's BDP
///   and its send buffer above the outgoing leg's.
/// - A queue: at a leg's bottleneck (the slowest link direction of its
///   data path), a drop-tail queue below the leg's BDP lets the link idle
///   after a window halving (the rule of thumb for one Reno flow).
pub(super) fn capacity(plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    // A QUIC flow's proxies: passed through, or terminating it with
    // windows of their own (`quic_windows`).
    for f in plan.flows.iter().filter(|f| f.quic.is_none()) {
        for (pi, p) in f.proxies.iter().enumerate() {
            let node = &plan.nodes[p.node as usize];
            let inc = &f.legs[pi].figures;
            let outg = &f.legs[pi + 1].figures;
            let mss = f.legs[pi].cfg.mss as u64;
            let leg_name = |l: usize| {
                let leg = &f.legs[l];
                format!(
                    "{}-{}",
                    plan.nodes[*leg.path.first().unwrap() as usize],
                    plan.nodes[*leg.path.last().unwrap() as usize]
                )
            };
            let mut check = |what: &str, have: u64, factor: u64, bdp: u64, leg: usize| {
                let need = factor * bdp;
                if have < need {
                    let pk = need.div_ceil(mss);
                    let times = if factor > 1 {
                        format!("{factor}x ")
                    } else {
                        String::new()
                    };
                    out.push(format!(
                        "nodes.{node}.proxy {what} {} packets ({}) is below {times}the bandwidth-delay product of the leg {} ({}) of flows.{}; {pk} packets ({}) would not limit",
                        have / mss,
                        kb(have as f64),
                        leg_name(leg),
                        kb(bdp as f64),
                        f.name,
                        kb((pk * mss) as f64)
                    ));
                }
            };
            let (big, big_leg) = if outg.bdp > inc.bdp {
                (outg.bdp, pi + 1)
            } else {
                (inc.bdp, pi)
            };
            match p.policy {
                ProxyPolicy::HalfFree => check("cache", p.cache_bytes, 2, big, big_leg),
                ProxyPolicy::Third => check("cache", p.cache_bytes, 3, big, big_leg),
                ProxyPolicy::Buffers => {
                    check("recv_buffer", p.cache_bytes, 1, inc.bdp, pi);
                    check("send_buffer", p.send_buffer, 1, outg.bdp, pi + 1);
                }
            }
        }
    }
    // Queues at bottlenecks: per link direction, the leg with the largest
    // BDP among those whose bottleneck it is.
    let mut worst: Vec<Option<(u64, u64, String)>> = vec![None; plan.links.len()];
    for f in &plan.flows {
        for (li, leg) in f.legs.iter().enumerate() {
            let n = &leg.figures;
            for &d in &leg.fwd {
                if plan.links[d as usize].rate_bps == n.bottleneck {
                    let w = &mut worst[d as usize];
                    if w.as_ref().is_none_or(|(b, _, _)| n.bdp > *b) {
                        let who = if f.legs.len() > 1 {
                            format!("flows.{} leg {li}", f.name)
                        } else {
                            format!("flows.{}", f.name)
                        };
                        *w = Some((n.bdp, n.packet, who));
                    }
                }
            }
        }
    }
    for (d, w) in worst.into_iter().enumerate() {
        let Some((bdp, packet, who)) = w else {
            continue;
        };
        let ld = &plan.links[d];
        let need = bdp.div_ceil(packet);
        if (ld.queue as u64) < need {
            let (link, dir) = ld.name.split_once(':').unwrap_or((&ld.name, ""));
            out.push(format!(
                "links.{link} ({dir}, {} -> {}): queue {} packets is below the bandwidth-delay product of {who}, whose bottleneck it is ({} x {:.3} s = {}); {need} packets would not limit",
                plan.nodes[ld.from as usize],
                plan.nodes[ld.to as usize],
                ld.queue,
                rate(ld.rate_bps),
                bdp as f64 * 8.0 / ld.rate_bps as f64,
                kb(bdp as f64),
            ));
        }
    }
    out
}
