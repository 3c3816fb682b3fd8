//! A flow's split proxies: each node's `proxy` table resolved against the
//! leg it receives (sizes given in packets are of that leg's MSS, and the
//! window policy needs room for full segments of it).

use super::PlanProxy;
use crate::error::ScenarioError;
use crate::pep::ProxyPolicy;
use crate::scenario::proxy_sizing::{sizing, CacheSize, ProxySizing};
use crate::scenario::schema::ProxySection;

const DEFAULT_CACHE_PACKETS: u64 = 200;

/// The proxy at node `node` (index `id`), receiving a leg of segment size
/// `mss`. `relay`: the (receive, send) buffers of a relay process on a
/// Linux host, the default when the section gives no policy and no size
/// (flows under the linux profile); otherwise the studies' default, a
/// half-free cache of 200 segments.
pub(super) fn resolve(
    file: &str,
    node: &str,
    id: u32,
    sec: &ProxySection,
    mss: u64,
    relay: Option<(u64, u64)>,
) -> Result<PlanProxy, ScenarioError> {
    let pkey = |k: &str| format!("nodes.{node}.proxy.{k}");
    let sizing = sizing(sec).map_err(|(k, m)| ScenarioError::new(file, pkey(k), m))?;
    let ack_after_forward = sec.ack_after_forward.unwrap_or(false);
    // (policy, cache bytes and the key giving them, send buffer)
    let (policy, (cache_bytes, key), send_buffer) = match (sizing, relay) {
        (ProxySizing::Unset, Some((recv, send))) => {
            // A socket-style relay: the window is the free receive buffer,
            // the outgoing leg holds at most its send buffer unacknowledged.
            return Ok(PlanProxy {
                node: id,
                policy: ProxyPolicy::Buffers,
                cache_bytes: recv.max(mss),
                send_buffer: send.max(mss),
                ack_after_forward,
                quic: None,
            });
        }
        (ProxySizing::Unset, None) => (
            ProxyPolicy::HalfFree,
            (DEFAULT_CACHE_PACKETS * mss, "cache_packets"),
            0,
        ),
        (ProxySizing::Cache { policy, size }, _) => {
            // Given in bytes, in packets of the incoming leg, or by default.
            let cache = match size {
                CacheSize::Bytes(b) => (b, "cache"),
                CacheSize::Packets(n) => (n * mss, "cache_packets"),
                CacheSize::Default => (DEFAULT_CACHE_PACKETS * mss, "cache_packets"),
            };
            (policy, cache, 0)
        }
        (ProxySizing::Buffers { recv, send }, _) => {
            (ProxyPolicy::Buffers, (recv, "recv_buffer"), send)
        }
    };
    // The policy must be able to advertise one full segment on an empty
    // cache, or the incoming leg could only crawl on probes.
    let min_segments = match policy {
        ProxyPolicy::HalfFree => 2,
        ProxyPolicy::Third => 3,
        ProxyPolicy::Buffers => 1,
    };
    if cache_bytes < min_segments * mss {
        return Err(ScenarioError::new(
            file,
            pkey(key),
            format!(
                "{cache_bytes} B is too small: the {} policy needs at least {min_segments} segments ({} B) to advertise one full segment",
                policy_word(policy),
                min_segments * mss
            ),
        ));
    }
    if policy == ProxyPolicy::Buffers && send_buffer < mss {
        return Err(ScenarioError::new(
            file,
            pkey("send_buffer"),
            "must hold at least one segment",
        ));
    }
    Ok(PlanProxy {
        node: id,
        policy,
        cache_bytes,
        send_buffer,
        ack_after_forward,
        quic: None,
    })
}

/// A policy as the scenario writes it.
fn policy_word(p: ProxyPolicy) -> &'static str {
    match p {
        ProxyPolicy::HalfFree => "half-free",
        ProxyPolicy::Third => "third",
        ProxyPolicy::Buffers => "buffers",
    }
}
