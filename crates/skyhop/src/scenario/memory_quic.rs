//! The memory of a QUIC flow, for the run's estimate (`memory.rs`). Unlike
//! a TCP segment, a QUIC datagram carries its bytes (encrypted, in the
//! world's table of packets with bytes), and what a receiver or a
//! QUIC-terminating proxy holds is real stream data:
//!
//! - per connection (one per stretch of the path between terminating
//!   proxies): quinn's and rustls's state at both ends, and the datagrams
//!   its window can have in flight — the receiver's stream window, bounded
//!   by what the stretch holds (bandwidth-delay product and queues, both
//!   ways) — each a packet record and its bytes, plus as many bytes again
//!   kept by the receiver out of order behind a hole;
//! - per terminating proxy: its whole cache (receive window + hold), the
//!   bytes it may hold at once (`nodes.<P>.proxy`).

use super::memory::{Estimate, BYTES_PER_PACKET};
use super::plan::{bytes_in, quic_stretches, Plan};

/// Bytes charged per QUIC connection for both ends' quinn and rustls state
/// (connection, streams, packet spaces, TLS session), beside its data.
pub const BYTES_PER_QUIC_CONNECTION: u64 = 128 * 1024;
/// IPv4 and UDP headers of a datagram.
const UDP_HEADERS: u64 = 28;

/// Charge flow `fi` (nothing for a TCP flow) to `e`.
pub(super) fn charge(plan: &Plan, fi: usize, e: &mut Estimate) {
    let f = &plan.flows[fi];
    let (Some(q), Some(stretches)) = (&f.quic, quic_stretches(f)) else {
        return;
    };
    let datagram = q.mtu_discovery_upper_bound.unwrap_or(q.initial_mtu) as u64 + UDP_HEADERS;
    let mut bytes: u64 = 0;
    for s in &stretches {
        let mut path_bytes: u64 = 0;
        for leg in &f.legs[s.legs.0..=s.legs.1] {
            for &d in leg.fwd.iter().chain(leg.rev.iter()) {
                let l = &plan.links[d as usize];
                path_bytes = path_bytes
                    .saturating_add(bytes_in(l.rate_bps, l.delay))
                    .saturating_add((l.queue as u64).saturating_mul(datagram));
            }
        }
        let window = s.receive_window.min(q.send_window).min(path_bytes);
        let packets = window / datagram + 1;
        bytes = bytes
            .saturating_add(BYTES_PER_QUIC_CONNECTION)
            .saturating_add(packets.saturating_mul(BYTES_PER_PACKET + datagram))
            .saturating_add(window);
    }
    e.add(
        false,
        format!("flows.{}", f.name),
        bytes,
        "lower quic.stream_window, or the queues",
    );
    for p in f.proxies.iter().filter(|p| p.quic.is_some()) {
        let w = crate::pep::RelayWindows::of(p.policy, p.cache_bytes, p.send_buffer);
        e.add(
            false,
            format!("nodes.{}.proxy", plan.nodes[p.node as usize]),
            w.receive.saturating_add(w.hold),
            "lower the QUIC-terminating proxy's cache",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{load_str_plan, Plan};

    fn plan_str(text: &str) -> Plan {
        load_str_plan(text, "t.toml", &[], std::path::Path::new("."))
            .unwrap()
            .plan
    }

    const GEO: &str = r#"
[nodes.S]
[nodes.G]
[nodes.C]
[links.ground]
between = ["S", "G"]
rate = "100 Mbps"
delay = "5 ms"
queue = 100
[links.sat]
between = ["G", "C"]
rate = "10 Mbps"
delay = "270 ms"
queue = 100
[flows.f]
from = "S"
to = "C"
size = "1 MB"
transport = "quic"
[run]
duration = "10 s"
"#;

    fn part(e: &Estimate, key: &str) -> Option<u64> {
        e.parts.iter().find(|p| p.key == key).map(|p| p.bytes)
    }

    #[test]
    fn a_quic_flow_is_charged_its_datagrams_bytes_and_a_terminating_proxy_its_cache() {
        let plan = plan_str(GEO);
        let e = super::super::estimate(&plan, &Default::default());
        // One connection: 1.25 MB stream window, below what the path holds
        // (10 Mb/s x 0.55 s + 100 Mb/s x 0.01 s + 400 datagrams of 1480 B).
        let d = 1452 + 28;
        let w = 1_250_000u64;
        assert!(2 * 62_500 + 2 * 337_500 + 400 * d > w);
        let one = BYTES_PER_QUIC_CONNECTION + (w / d + 1) * (BYTES_PER_PACKET + d) + w;
        assert_eq!(part(&e, "flows.f"), Some(one));
        assert_eq!(part(&e, "nodes.G.proxy"), None);
        // Terminating at G with a half-free 600 kB cache: the first
        // connection's receiver offers 300 kB, the whole cache is charged.
        let text = GEO.replace(
            "[run]",
            "quic_proxies = [\"G\"]\n[nodes.G.proxy]\npolicy = \"half-free\"\ncache = \"600 kB\"\n[run]",
        );
        let plan = plan_str(&text);
        let e = super::super::estimate(&plan, &Default::default());
        let r = 300_000u64;
        // The first stretch holds 100 Mb/s x 5 ms each way and 200
        // datagrams, more than the proxy's 300 kB; the second 10 Mb/s x
        // 270 ms each way and 200 datagrams, less than 1.25 MB.
        let held =
            |path: u64| BYTES_PER_QUIC_CONNECTION + (path / d + 1) * (BYTES_PER_PACKET + d) + path;
        let (first, second) = (2 * 62_500 + 200 * d, 2 * 337_500 + 200 * d);
        assert!(first > r && second < w);
        assert_eq!(part(&e, "flows.f"), Some(held(r) + held(second)));
        assert_eq!(part(&e, "nodes.G.proxy"), Some(600_000));
    }
}
