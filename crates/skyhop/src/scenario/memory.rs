//! The memory a run would need, estimated from its plan, and the limit it
//! must stay under (`SKYHOP_MEMORY_LIMIT`, default a quarter of physical
//! memory).

use super::plan::Plan;
use crate::engine::time::NS_PER_S;
use crate::error::ScenarioError;
use crate::units::Size;

/// Bytes the estimate charges per packet that can be in flight or queued:
/// the packet in the event queue and the link queue, its send-buffer and
/// scoreboard entries, and a reassembly-queue range at the receiver.
pub const BYTES_PER_PACKET: u64 = 256;

/// The memory limit: `SKYHOP_MEMORY_LIMIT` (a size such as "4 GB"), else a
/// quarter of physical memory (/proc/meminfo's MemTotal), else 4 GB.
pub fn memory_limit() -> Result<u64, String> {
    if let Ok(s) = std::env::var("SKYHOP_MEMORY_LIMIT") {
        return Size::parse(&s)
            .map(|x| x.0)
            .map_err(|e| format!("SKYHOP_MEMORY_LIMIT: {e}"));
    }
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        t.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb.saturating_mul(1024))
    });
    Ok(total.map_or(4_000_000_000, |t| t / 4))
}

/// A run's dominant memory, estimated from the plan: per flow and leg, the
/// packets its window can hold in flight, bounded by the receive buffer
/// (or proxy cache) and by what the leg's initial window and the path's
/// links (bandwidth-delay product plus queues) can hold; plus every link
/// direction's queue limit. Each packet is charged [`BYTES_PER_PACKET`].
pub fn estimate_memory(plan: &Plan) -> u64 {
    estimate(plan).0
}

/// The estimate, and the key of its largest part (a flow or a link's queue).
fn estimate(plan: &Plan) -> (u64, String) {
    let mut packets: u64 = 0;
    let mut largest = (0u64, String::new());
    let mut note = |n: u64, key: &dyn Fn() -> String| {
        if n > largest.0 || largest.1.is_empty() {
            largest = (n, key());
        }
    };
    for l in &plan.links {
        packets = packets.saturating_add(l.queue as u64);
        let link = l.name.split(':').next().unwrap_or("").to_string();
        note(l.queue as u64, &|| format!("links.{link}.queue"));
    }
    for f in &plan.flows {
        let mut n: u64 = 0;
        for leg in &f.legs {
            let mss = (leg.cfg.mss as u64).max(1);
            // The path can hold at most its bandwidth-delay product plus its queues.
            let mut path_bytes: u64 = 0;
            for &li in leg.fwd.iter().chain(leg.rev.iter()) {
                let l = &plan.links[li as usize];
                let bdp = (l.rate_bps as u128 * l.delay.0 as u128 / 8 / NS_PER_S as u128)
                    .min(u64::MAX as u128) as u64;
                let q = (l.queue as u64).saturating_mul(mss + leg.cfg.header_bytes as u64);
                path_bytes = path_bytes.saturating_add(bdp).saturating_add(q);
            }
            let window = leg
                .cfg
                .rcv_buffer
                .min(path_bytes.max((leg.cfg.initial_window as u64).saturating_mul(mss)));
            n = n.saturating_add(window / mss + 1);
        }
        packets = packets.saturating_add(n);
        note(n, &|| format!("flows.{}", f.name));
    }
    (packets.saturating_mul(BYTES_PER_PACKET), largest.1)
}

/// Refuse a run whose estimated memory exceeds the limit.
pub fn check_memory(plan: &Plan, file: &str) -> Result<(), ScenarioError> {
    let limit = memory_limit().map_err(|m| ScenarioError::new(file, "", m))?;
    if let Some(m) = &plan.motion {
        // Positions, propagators, a graph snapshot and the routing state of
        // every node towards every flow's destination.
        let dests = plan.flows.len() * 2;
        let need = m.memory_bytes(dests);
        let sats: usize = m.gsls.iter().map(|r| r.sats.len()).sum();
        if need > limit {
            return Err(ScenarioError::new(
                file,
                "constellation",
                format!(
                    "{sats} satellites and {} nodes would need about {} for positions and routing state, above the limit of {} (set SKYHOP_MEMORY_LIMIT to raise it, or use a smaller shell)",
                    m.positions.nodes.len(),
                    Size(need),
                    Size(limit)
                ),
            ));
        }
    }
    let (need, key) = estimate(plan);
    if need > limit {
        return Err(ScenarioError::new(
            file,
            key,
            format!(
                "the run would need about {} of memory for packets in flight and queued, above the limit of {} (set SKYHOP_MEMORY_LIMIT, e.g. \"16 GB\", to raise it; or lower tcp.rcv_buffer, tcp.initial_window or link queues)",
                Size(need),
                Size(limit)
            ),
        ));
    }
    Ok(())
}
