//! A flow's proxies: each node's `proxy` table resolved against the leg it
//! receives (sizes given in packets are of that leg's MSS, and the window
//! policy needs room for full segments of it), or, for a QUIC-terminating
//! proxy, against the flow's QUIC settings (packets are its largest
//! datagrams).

use super::PlanProxy;
use crate::error::ScenarioError;
use crate::pep::ProxyPolicy;
use crate::quic::QuicConfig;
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
    sized(file, node, id, sec, (mss, "segment"), relay)
}

/// The QUIC-terminating proxy at node `node` (index `id`) of a QUIC flow
/// with settings `q`, which its onward connection also runs with. Sizes in
/// packets are of the flow's largest UDP payload (its MTU discovery's upper
/// bound, else its first datagrams'). Given no policy and no size, it is a
/// relay process running quinn with the flow's settings: the `buffers`
/// policy with the stream window as receive buffer and the send window as
/// send buffer (whatever the TCP profile: it describes TCP hosts).
pub(super) fn resolve_quic(
    file: &str,
    node: &str,
    id: u32,
    sec: &ProxySection,
    q: &QuicConfig,
) -> Result<PlanProxy, ScenarioError> {
    if sec.ack_after_forward == Some(true) {
        return Err(ScenarioError::new(
            file,
            format!("nodes.{node}.proxy.ack_after_forward"),
            "a QUIC-terminating proxy cannot hold its acknowledgements back (QUIC acknowledges packets, not stream bytes): remove it, or list the node in the flow's proxies (passed through)",
        ));
    }
    let datagram = q.mtu_discovery_upper_bound.unwrap_or(q.initial_mtu) as u64;
    let windows = (q.stream_receive_window, q.send_window);
    let mut p = sized(file, node, id, sec, (datagram, "datagram"), Some(windows))?;
    p.quic = Some(q.clone());
    Ok(p)
}

/// A proxy sized by its table, `unit` the bytes (and name) of a packet of
/// the incoming leg, `relay` the buffers when the table sizes nothing.
fn sized(
    file: &str,
    node: &str,
    id: u32,
    sec: &ProxySection,
    (mss, unit): (u64, &str),
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
                "{cache_bytes} B is too small: the {} policy needs at least {min_segments} {unit}s ({} B) to advertise one full {unit}",
                policy_word(policy),
                min_segments * mss
            ),
        ));
    }
    if policy == ProxyPolicy::Buffers && send_buffer < mss {
        return Err(ScenarioError::new(
            file,
            pkey("send_buffer"),
            format!("must hold at least one {unit}"),
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
pub(crate) fn policy_word(p: ProxyPolicy) -> &'static str {
    match p {
        ProxyPolicy::HalfFree => "half-free",
        ProxyPolicy::Third => "third",
        ProxyPolicy::Buffers => "buffers",
    }
}

/// A QUIC connection of a flow: the plan legs it spans and the stream
/// window its receiver offers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuicStretch {
    /// Its first and last plan leg (legs are joined at split proxies,
    /// which pass it through).
    pub legs: (usize, usize),
    /// The receiving end's stream window: the flow's at its `to`, a
    /// terminating proxy's relay receive window before it.
    pub receive_window: u64,
}

/// The QUIC connections of flow `f` (`None` for a TCP flow): one per
/// stretch of its path between QUIC-terminating proxies, in path order.
pub fn quic_stretches(f: &super::PlanFlow) -> Option<Vec<QuicStretch>> {
    let q = f.quic.as_ref()?;
    let mut out = Vec::new();
    let mut first = 0;
    // Proxy i sits between legs i and i + 1.
    for (i, p) in f.proxies.iter().enumerate() {
        if p.quic.is_some() {
            let w = crate::pep::RelayWindows::of(p.policy, p.cache_bytes, p.send_buffer);
            out.push(QuicStretch {
                legs: (first, i),
                receive_window: w.receive,
            });
            first = i + 1;
        }
    }
    out.push(QuicStretch {
        legs: (first, f.legs.len().saturating_sub(1)),
        receive_window: q.stream_receive_window,
    });
    Some(out)
}
