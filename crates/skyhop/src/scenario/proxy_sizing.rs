//! A node's `proxy` table read as what it is: a cache sized one way under
//! the `half-free` or `third` policy, or the receive and send buffers of
//! the `buffers` policy. Validation reports the first key that does not
//! fit; the plan resolves the sizes from the same reading.

use super::schema::{ProxyPolicyName, ProxySection};
use crate::pep::ProxyPolicy;

/// How a cache is sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CacheSize {
    /// `cache`, bytes (at least 1).
    Bytes(u64),
    /// `cache_packets`, of the incoming leg's MSS (at least 1).
    Packets(u64),
    /// Neither: the default.
    Default,
}

/// A `proxy` table by its policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProxySizing {
    /// No policy and no size: the profile's default.
    Unset,
    /// Policy `half-free` (given or by default) or `third`.
    Cache {
        policy: ProxyPolicy,
        size: CacheSize,
    },
    /// Policy `buffers`: receive buffer (at least 1 byte) and send buffer.
    Buffers { recv: u64, send: u64 },
}

/// Read `p`; `Err((key within the table, message))` for the first key
/// that does not fit its policy (ranges are checked before).
pub(crate) fn sizing(p: &ProxySection) -> Result<ProxySizing, (&'static str, String)> {
    if p.cache.is_some() && p.cache_packets.is_some() {
        return Err(("cache", "give cache or cache_packets, not both".into()));
    }
    for (f, zero) in [
        ("cache", p.cache.is_some_and(|c| c.0 == 0)),
        ("cache_packets", p.cache_packets == Some(0)),
    ] {
        if zero {
            return Err((f, "a proxy cache must hold at least one packet".into()));
        }
    }
    let name = p.policy.unwrap_or(ProxyPolicyName::HalfFree);
    if name != ProxyPolicyName::Buffers {
        // Keys the policy does not read are refused, not silently ignored.
        let word = match name {
            ProxyPolicyName::HalfFree => "\"half-free\"",
            _ => "\"third\"",
        };
        let default = if p.policy.is_none() {
            " (the default)"
        } else {
            ""
        };
        for (f, given) in [
            ("recv_buffer", p.recv_buffer.is_some()),
            ("send_buffer", p.send_buffer.is_some()),
        ] {
            if given {
                return Err((f, format!("policy {word}{default} uses cache or cache_packets, not {f} (a key of policy \"buffers\"): remove it, or set policy = \"buffers\"")));
            }
        }
        let size = match (p.cache, p.cache_packets) {
            (Some(c), _) => CacheSize::Bytes(c.0),
            (None, Some(n)) => CacheSize::Packets(n),
            (None, None) if p.policy.is_none() => return Ok(ProxySizing::Unset),
            (None, None) => CacheSize::Default,
        };
        return Ok(ProxySizing::Cache {
            policy: name.policy(),
            size,
        });
    }
    for (f, given) in [
        ("cache", p.cache.is_some()),
        ("cache_packets", p.cache_packets.is_some()),
    ] {
        if given {
            return Err((f, format!("policy \"buffers\" sizes the proxy with recv_buffer and send_buffer and does not use {f}: remove it, or choose policy \"half-free\" or \"third\"")));
        }
    }
    let Some(send) = p.send_buffer else {
        return Err((
            "send_buffer",
            "the buffers policy needs send_buffer (and recv_buffer)".into(),
        ));
    };
    match p.recv_buffer {
        None => Err((
            "recv_buffer",
            "the buffers policy needs recv_buffer (and send_buffer)".into(),
        )),
        Some(r) if r.0 == 0 => Err(("recv_buffer", "must hold at least one packet".into())),
        Some(r) => Ok(ProxySizing::Buffers {
            recv: r.0,
            send: send.0,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Size;

    fn table(policy: Option<ProxyPolicyName>, sizes: [Option<u64>; 4]) -> ProxySection {
        let [cache, cache_packets, recv, send] = sizes;
        ProxySection {
            policy,
            cache: cache.map(Size),
            cache_packets,
            recv_buffer: recv.map(Size),
            send_buffer: send.map(Size),
            ..ProxySection::default()
        }
    }

    #[test]
    fn each_policy_reads_its_own_keys_and_refuses_the_others() {
        use ProxyPolicyName::*;
        let half = ProxyPolicy::HalfFree;
        assert_eq!(sizing(&table(None, [None; 4])), Ok(ProxySizing::Unset));
        let third = table(Some(Third), [None; 4]);
        let size = CacheSize::Default;
        let policy = ProxyPolicy::Third;
        assert_eq!(sizing(&third), Ok(ProxySizing::Cache { policy, size }));
        let packets = table(None, [None, Some(40), None, None]);
        let size = CacheSize::Packets(40);
        assert_eq!(
            sizing(&packets),
            Ok(ProxySizing::Cache { policy: half, size })
        );
        let bytes = table(Some(HalfFree), [Some(9000), None, None, None]);
        let size = CacheSize::Bytes(9000);
        assert_eq!(
            sizing(&bytes),
            Ok(ProxySizing::Cache { policy: half, size })
        );
        let buffers = table(Some(Buffers), [None, None, Some(3000), Some(2000)]);
        let want = ProxySizing::Buffers {
            recv: 3000,
            send: 2000,
        };
        assert_eq!(sizing(&buffers), Ok(want));
        let key = |p: ProxySection| sizing(&p).unwrap_err().0;
        assert_eq!(key(table(None, [Some(1), Some(1), None, None])), "cache");
        assert_eq!(
            key(table(None, [None, Some(0), None, None])),
            "cache_packets"
        );
        let e = sizing(&table(None, [None, None, Some(1), None])).unwrap_err();
        assert_eq!(e.0, "recv_buffer");
        assert!(e
            .1
            .starts_with("policy \"half-free\" (the default) uses cache"));
        let e = sizing(&table(Some(Buffers), [None, Some(5), Some(1), Some(1)]));
        assert_eq!(e.unwrap_err().0, "cache_packets");
        assert_eq!(
            key(table(Some(Buffers), [None, None, Some(1), None])),
            "send_buffer"
        );
        assert_eq!(
            key(table(Some(Buffers), [None, None, None, Some(1)])),
            "recv_buffer"
        );
        assert_eq!(
            key(table(Some(Buffers), [None, None, Some(0), Some(1)])),
            "recv_buffer"
        );
    }
}
