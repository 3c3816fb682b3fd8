//! The one table of QUIC parameters: every key of `[quic]` and of a flow's
//! `quic` table, declared once (the sibling of `tcp/params.rs`).
//!
//! A row is
//!
//! ```text
//! /// meaning (the doc comment of the scenario key)
//! key: ScenarioType => |cfg, v| how it sets QuicConfig, |cfg| the default in the docs' words, range;
//! ```
//!
//! and from the rows come the scenario table [`QuicOptions`] (serde, doc
//! comments, JSON Schema), its range checks ([`QuicOptions::check`], with
//! the messages of [`Range`]), the resolution flow > `[quic]` > quinn's
//! default ([`QuicOptions::apply`]) and the defaults and ranges the JSON
//! Schema and docs/scenario.md show ([`quic_param_docs`]). The defaults
//! are quinn's own ([`QuicConfig::default`]), so the table shows them from
//! there rather than restating them.

use super::config::{AckFrequency, QuicConfig, QuicController};
use crate::engine::time::Dur;
use crate::tcp::params::{show_dur, show_size, InRange, Range};
use crate::units::{Duration, Size, MAX_BUFFER, MAX_DURATION};
use serde::{Deserialize, Serialize};

/// The smallest UDP payload QUIC allows (RFC 9000 §14).
pub const MIN_UDP_PAYLOAD: u64 = 1200;
/// The largest UDP payload of an IPv4 packet.
pub const MAX_UDP_PAYLOAD: u64 = 65_527;

/// A QUIC controller by name (`quic.controller`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QuicControllerName {
    Newreno,
    Cubic,
    Bbr,
}

impl QuicControllerName {
    pub fn controller(self) -> QuicController {
        match self {
            QuicControllerName::Newreno => QuicController::NewReno,
            QuicControllerName::Cubic => QuicController::Cubic,
            QuicControllerName::Bbr => QuicController::Bbr,
        }
    }
}

impl InRange for QuicControllerName {
    fn in_range(&self, _: &Range) -> Result<(), String> {
        Ok(())
    }
}

/// A key of the table as the docs show it.
#[derive(Clone, Debug)]
pub struct QuicParamDoc {
    pub key: &'static str,
    /// quinn's default, in the scenario's words.
    pub default: String,
    /// The valid range (empty: any value of the type).
    pub range: String,
}

macro_rules! quic_params {
    ($(
        $(#[doc = $doc:literal])*
        $key:ident : $sty:ty => |$c:ident, $v:ident| $apply:expr, |$d:ident| $show:expr, $range:expr;
    )*) => {
        /// QUIC parameters of a flow with `transport = "quic"`. All
        /// optional: a flow's value overrides `[quic]`, which overrides
        /// quinn's own default.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct QuicOptions {
            $(
                $(#[doc = $doc])*
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $key: Option<$sty>,
            )*
        }

        impl QuicOptions {
            /// Every key given, in its range: `Err((key, message))`.
            pub fn check(&self) -> Result<(), (&'static str, String)> {
                $(
                    if let Some(x) = &self.$key {
                        x.in_range(&$range).map_err(|m| (stringify!($key), m))?;
                    }
                )*
                Ok(())
            }

            /// Set on `cfg` every key given, in the table's order.
            pub fn apply(&self, cfg: &mut QuicConfig) {
                $(
                    if let Some($v) = self.$key {
                        let $c = &mut *cfg;
                        $apply;
                    }
                )*
            }

            /// Whether no key is given.
            pub fn is_empty(&self) -> bool {
                *self == QuicOptions::default()
            }
        }

        /// Each key's default (quinn's) and range, in the table's order.
        pub fn quic_param_docs() -> Vec<QuicParamDoc> {
            vec![$(QuicParamDoc {
                key: stringify!($key),
                default: {
                    let $d = QuicConfig::default();
                    $show
                },
                range: $range.describe(),
            }),*]
        }
    };
}

quic_params! {
    /// Congestion controller: "newreno" (RFC 9002), "cubic" (RFC 9438) or
    /// "bbr" (quinn's experimental BBRv1).
    controller: QuicControllerName => |c, v| c.controller = v.controller(),
        |d| format!("\"{}\"", d.controller.name()), Range::ANY;
    /// Stream flow-control window: bytes the peer may send on one stream
    /// beyond what the application has read. Below the path's
    /// bandwidth-delay product it caps goodput near window / RTT, and the
    /// plan warns.
    stream_window: Size => |c, v| c.stream_receive_window = v.0,
        |d| show_size(d.stream_receive_window), Range::size(1, MAX_BUFFER);
    /// Connection flow-control window: bytes the peer may send on all
    /// streams together beyond what has been read.
    connection_window: Size => |c, v| c.receive_window = v.0,
        |d| if d.receive_window >= (1 << 62) - 1 { "unlimited".into() } else { show_size(d.receive_window) },
        Range::size(1, MAX_BUFFER);
    /// Bytes the sender keeps unacknowledged in its buffers, all streams
    /// together.
    send_window: Size => |c, v| c.send_window = v.0,
        |d| show_size(d.send_window), Range::size(1, MAX_BUFFER);
    /// The round trip assumed before the first sample (RFC 9002 §6.2.2).
    initial_rtt: Duration => |c, v| c.initial_rtt = v.0,
        |d| show_dur(d.initial_rtt), Range::dur(Dur(1_000), MAX_DURATION);
    /// Largest UDP payload: path MTU discovery (RFC 8899) probes up to it
    /// from 1200 B.
    max_udp_payload: Size => |c, v| c.mtu_discovery_upper_bound = Some(v.0 as u16),
        |d| d.mtu_discovery_upper_bound.map_or("off".into(), |b| show_size(b as u64)),
        Range::size(MIN_UDP_PAYLOAD, MAX_UDP_PAYLOAD);
    /// Path MTU discovery; off: every packet stays at 1200 B of UDP payload.
    mtu_discovery: bool => |c, v| if !v { c.mtu_discovery_upper_bound = None },
        |d| d.mtu_discovery_upper_bound.is_some().to_string(), Range::ANY;
    /// The controller's initial window.
    initial_window: Size => |c, v| c.initial_window = Some(v.0),
        |d| d.initial_window.map_or("quinn's: min(10 × MTU, max(2 × MTU, 14 720 B))".into(), show_size),
        Range::size(MIN_UDP_PAYLOAD, MAX_BUFFER);
    /// ACK frequency extension (draft-ietf-quic-ack-frequency, which quinn
    /// implements; any of the three `ack_` keys turns it on): the
    /// ack-eliciting packets the peer may receive before it must send an
    /// ACK. Without the extension a receiver acknowledges every second
    /// one (RFC 9000 §13.2.2), as with 1 here.
    ack_eliciting_threshold: u32 => |c, v| c.ack_frequency = Some(AckFrequency {
            ack_eliciting_threshold: v as u64,
            ..c.ack_frequency.unwrap_or_default()
        }),
        |d| d.ack_frequency.map_or("off".into(), |a| a.ack_eliciting_threshold.to_string()),
        Range::count(0, 100_000, " packets");
    /// ACK frequency extension: the longest the peer may delay an ACK.
    /// Default (with the extension on): the sender's own max_ack_delay
    /// transport parameter, 25 ms. At most 16 383 ms (RFC 9000 §18.2).
    ack_max_delay: Duration => |c, v| c.ack_frequency = Some(AckFrequency {
            max_ack_delay: Some(v.0),
            ..c.ack_frequency.unwrap_or_default()
        }),
        |d| d.ack_frequency.and_then(|a| a.max_ack_delay).map_or("off".into(), show_dur),
        Range::dur(Dur::from_millis(1), Dur::from_millis(16_383));
    /// ACK frequency extension: out-of-order packets that make the peer
    /// acknowledge at once (0: never for reordering). Default (with the
    /// extension on): 2, quinn's.
    ack_reordering_threshold: u32 => |c, v| c.ack_frequency = Some(AckFrequency {
            reordering_threshold: v as u64,
            ..c.ack_frequency.unwrap_or_default()
        }),
        |d| d.ack_frequency.map_or("off".into(), |a| a.reordering_threshold.to_string()),
        Range::count(0, 100_000, " packets");
    /// Close the connection after this long without a packet from the peer
    /// (RFC 9308 §3.2).
    idle_timeout: Duration => |c, v| c.max_idle_timeout = Some(v.0),
        |d| d.max_idle_timeout.map_or("never".into(), show_dur),
        Range::dur(Dur::from_millis(1), Dur::from_secs(1 << 30));
}

/// A flow's transport (`flows.<id>.transport`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// skyhop's TCP (the flow's `tcp`, `legs`, `options`).
    #[default]
    Tcp,
    /// QUIC, quinn-proto 0.11.19 (the flow's `quic` table).
    Quic,
}

impl Transport {
    pub fn is_tcp(&self) -> bool {
        *self == Transport::Tcp
    }
}

/// A flow's QUIC settings: quinn's defaults, then `[quic]`, then the
/// flow's own.
pub fn resolve(global: &QuicOptions, flow: &QuicOptions) -> QuicConfig {
    let mut cfg = QuicConfig::default();
    global.apply(&mut cfg);
    flow.apply(&mut cfg);
    cfg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flows_key_overrides_the_global_one_which_overrides_quinns() {
        let global = QuicOptions {
            controller: Some(QuicControllerName::Newreno),
            stream_window: Some(Size(4_000_000)),
            ..Default::default()
        };
        let flow = QuicOptions {
            stream_window: Some(Size(8_000_000)),
            mtu_discovery: Some(false),
            ..Default::default()
        };
        let c = resolve(&global, &flow);
        assert_eq!(c.controller, QuicController::NewReno);
        assert_eq!(c.stream_receive_window, 8_000_000);
        assert_eq!(c.mtu_discovery_upper_bound, None);
        assert_eq!(c.send_window, QuicConfig::default().send_window);
        assert_eq!(
            resolve(&QuicOptions::default(), &QuicOptions::default()),
            QuicConfig::default()
        );
    }

    #[test]
    fn out_of_range_values_name_their_key() {
        let o = QuicOptions {
            stream_window: Some(Size(0)),
            ..Default::default()
        };
        assert_eq!(o.check().unwrap_err().0, "stream_window");
        let o = QuicOptions {
            max_udp_payload: Some(Size(1000)),
            ..Default::default()
        };
        let (k, m) = o.check().unwrap_err();
        assert_eq!(k, "max_udp_payload");
        assert!(m.contains("out of range"), "{m}");
        assert!(QuicOptions::default().check().is_ok());
    }

    #[test]
    fn the_docs_show_quinns_defaults() {
        let docs = quic_param_docs();
        let get = |k: &str| docs.iter().find(|d| d.key == k).unwrap().default.clone();
        assert_eq!(get("controller"), "\"cubic\"");
        assert_eq!(get("stream_window"), show_size(1_250_000));
        assert_eq!(get("connection_window"), "unlimited");
        assert_eq!(get("idle_timeout"), show_dur(Dur::from_secs(30)));
        assert_eq!(get("mtu_discovery"), "true");
    }
}
