//! A flow's split proxies: each node's `proxy` table resolved against the
//! leg it receives (sizes given in packets are of that leg's MSS, and the
//! window policy needs room for full segments of it).

use super::PlanProxy;
use crate::error::ScenarioError;
use crate::pep::ProxyPolicy;
use crate::scenario::schema::{ProxyPolicyName, ProxySection};

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
    let unset = sec.policy.is_none()
        && sec.cache.is_none()
        && sec.cache_packets.is_none()
        && sec.recv_buffer.is_none()
        && sec.send_buffer.is_none();
    if let (true, Some((recv, send))) = (unset, relay) {
        // A socket-style relay: the window is the free receive buffer, the
        // outgoing leg holds at most its send buffer unacknowledged.
        return Ok(PlanProxy {
            node: id,
            policy: ProxyPolicy::Buffers,
            cache_bytes: recv.max(mss),
            send_buffer: send.max(mss),
            ack_after_forward: sec.ack_after_forward.unwrap_or(false),
            quic: None,
        });
    }
    let name = sec.policy.unwrap_or(ProxyPolicyName::HalfFree);
    let policy = name.policy();
    // Given in bytes, in packets of the incoming leg, or by default.
    let cache_bytes = match (policy, sec.recv_buffer, sec.cache, sec.cache_packets) {
        (ProxyPolicy::Buffers, Some(r), _, _) => r.0,
        (_, _, Some(c), _) => c.0,
        (_, _, None, Some(n)) => n * mss,
        (_, _, None, None) => DEFAULT_CACHE_PACKETS * mss,
    };
    // The policy must be able to advertise one full segment on an empty
    // cache, or the incoming leg could only crawl on probes.
    let min_segments = match policy {
        ProxyPolicy::HalfFree => 2,
        ProxyPolicy::Third => 3,
        ProxyPolicy::Buffers => 1,
    };
    if cache_bytes < min_segments * mss {
        let k = if policy == ProxyPolicy::Buffers {
            pkey("recv_buffer")
        } else if sec.cache.is_some() {
            pkey("cache")
        } else {
            pkey("cache_packets")
        };
        return Err(ScenarioError::new(
            file,
            k,
            format!(
                "{cache_bytes} B is too small: the {} policy needs at least {min_segments} segments ({} B) to advertise one full segment",
                policy_word(name),
                min_segments * mss
            ),
        ));
    }
    let send_buffer = match policy {
        ProxyPolicy::Buffers => {
            sec.send_buffer
                .expect("checked: buffers has a send buffer")
                .0
        }
        _ => 0,
    };
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
        ack_after_forward: sec.ack_after_forward.unwrap_or(false),
        quic: None,
    })
}

/// A policy as the scenario writes it.
fn policy_word(p: ProxyPolicyName) -> &'static str {
    match p {
        ProxyPolicyName::HalfFree => "half-free",
        ProxyPolicyName::Third => "third",
        ProxyPolicyName::Buffers => "buffers",
    }
}
