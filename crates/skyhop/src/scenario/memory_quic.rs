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

use super::plan::{bytes_in, quic_stretches, Plan};

/// Bytes charged per QUIC connection for both ends' quinn and rustls state
/// (connection, streams, packet spaces, TLS session), beside its data.
/// Measured: 57 KB a connection (peak resident memory of 101 and 401 bulk
/// QUIC flows sharing a 10 Mb/s, 5 ms link for 3 s: 15.0 and 32.0 MB, the
/// engine's per-flow state and report included); a little over twice that
/// is charged, as for pcap packets.
pub const BYTES_PER_QUIC_CONNECTION: u64 = 128 * 1024;
/// IPv4 and UDP headers of a datagram.
const UDP_HEADERS: u64 = 28;

/// The parts of flow `fi`'s charge (none for a TCP flow): (key, bytes,
/// advice), a packet record costing `bytes_per_packet` beside its bytes.
/// (Tested in `tests/engine/memory_limit.rs`.)
pub(super) fn charge(
    plan: &Plan,
    fi: usize,
    bytes_per_packet: u64,
) -> Vec<(String, u64, &'static str)> {
    let f = &plan.flows[fi];
    let (Some(q), Some(stretches)) = (&f.quic, quic_stretches(f)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
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
            .saturating_add(packets.saturating_mul(bytes_per_packet + datagram))
            .saturating_add(window);
    }
    out.push((
        format!("flows.{}", f.name),
        bytes,
        "lower quic.stream_window, or the queues",
    ));
    for p in f.proxies.iter().filter(|p| p.quic.is_some()) {
        let w = crate::pep::RelayWindows::of(p.policy, p.cache_bytes, p.send_buffer);
        out.push((
            format!("nodes.{}.proxy", plan.nodes[p.node as usize]),
            w.receive.saturating_add(w.hold),
            "lower the QUIC-terminating proxy's cache",
        ));
    }
    out
}
