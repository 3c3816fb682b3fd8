//! A QUIC flow's settings: the knobs of quinn's transport configuration
//! that a satellite study turns, with quinn's own defaults.
//!
//! [`QuicConfig::default`] is quinn-proto 0.11.19's `TransportConfig::default()`
//! field for field (a test compares the two); [`QuicConfig::transport`]
//! builds the quinn configuration a connection runs with.

use crate::engine::time::Dur;
use quinn_proto::congestion::{BbrConfig, CubicConfig, NewRenoConfig};
use quinn_proto::{AckFrequencyConfig, IdleTimeout, MtuDiscoveryConfig, TransportConfig, VarInt};
use std::sync::Arc;
use std::time::Duration;

/// The congestion controllers quinn offers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QuicController {
    /// RFC 9002's NewReno (quinn's `NewRenoConfig`).
    NewReno,
    /// CUBIC, RFC 9438 (quinn's default).
    #[default]
    Cubic,
    /// quinn's BBR (its own experimental port of BBRv1).
    Bbr,
}

impl QuicController {
    pub fn name(self) -> &'static str {
        match self {
            QuicController::NewReno => "newreno",
            QuicController::Cubic => "cubic",
            QuicController::Bbr => "bbr",
        }
    }

    pub fn parse(s: &str) -> Option<QuicController> {
        match s {
            "newreno" => Some(QuicController::NewReno),
            "cubic" => Some(QuicController::Cubic),
            "bbr" => Some(QuicController::Bbr),
            _ => None,
        }
    }
}

/// The ACK frequency extension (draft-ietf-quic-ack-frequency), which quinn
/// implements and leaves off by default: what the sender asks its peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckFrequency {
    /// Ack-eliciting packets the peer may receive before it must ACK (quinn: 1).
    pub ack_eliciting_threshold: u64,
    /// The largest delay the peer may wait before an ACK (`None`: the
    /// sender's own `max_ack_delay` transport parameter, 25 ms).
    pub max_ack_delay: Option<Dur>,
    /// Out-of-order packets that trigger an immediate ACK (quinn: 2).
    pub reordering_threshold: u64,
}

impl Default for AckFrequency {
    fn default() -> Self {
        AckFrequency {
            ack_eliciting_threshold: 1,
            max_ack_delay: None,
            reordering_threshold: 2,
        }
    }
}

/// A QUIC connection's settings (both ends run with the same).
#[derive(Clone, Debug, PartialEq)]
pub struct QuicConfig {
    pub controller: QuicController,
    /// Bytes the peer may send on one stream beyond what the application
    /// has read (quinn: 1.25 MB, for 100 Mb/s at 100 ms).
    pub stream_receive_window: u64,
    /// Bytes the peer may send on the whole connection beyond what has been
    /// read (quinn: unlimited, 2⁶² − 1).
    pub receive_window: u64,
    /// Bytes the sender keeps unacknowledged in its buffers, all streams
    /// together (quinn: 10 MB = 8 × the stream window).
    pub send_window: u64,
    /// The RTT assumed before the first sample (quinn: 333 ms, RFC 9002 §6.2.2).
    pub initial_rtt: Dur,
    /// UDP payload of the first packets (quinn: 1200 B, RFC 9000 §14).
    pub initial_mtu: u16,
    /// The smallest UDP payload the path is assumed to carry (quinn: 1200 B).
    pub min_mtu: u16,
    /// Path MTU discovery (RFC 8899 DPLPMTUD) up to this UDP payload
    /// (quinn: on, up to 1452 B); `None`: off, packets stay at `initial_mtu`.
    pub mtu_discovery_upper_bound: Option<u16>,
    /// The ACK frequency extension (quinn: off).
    pub ack_frequency: Option<AckFrequency>,
    /// Close after this long without a packet from the peer (quinn: 30 s,
    /// RFC 9308 §3.2); `None`: never.
    pub max_idle_timeout: Option<Dur>,
    /// The controller's initial window, bytes (`None`: quinn's, which is
    /// min(10 × MTU, max(2 × MTU, 14 720 B)), RFC 9002 §7.2).
    pub initial_window: Option<u64>,
    /// Send a PING after this long without sending (quinn: off). A
    /// QUIC-terminating proxy's ends use half the idle timeout, so a
    /// connection whose bytes wait at the proxy is not closed idle.
    pub keep_alive: Option<Dur>,
}

/// quinn's stream receive window: 12.5 MB/s × 100 ms.
const STREAM_RWND: u64 = 12_500 * 100;

impl Default for QuicConfig {
    fn default() -> Self {
        QuicConfig {
            controller: QuicController::Cubic,
            stream_receive_window: STREAM_RWND,
            receive_window: VarInt::MAX.into_inner(),
            send_window: 8 * STREAM_RWND,
            initial_rtt: Dur::from_millis(333),
            initial_mtu: 1200,
            min_mtu: 1200,
            mtu_discovery_upper_bound: Some(1452),
            ack_frequency: None,
            max_idle_timeout: Some(Dur::from_secs(30)),
            initial_window: None,
            keep_alive: None,
        }
    }
}

fn std_dur(d: Dur) -> Duration {
    Duration::from_nanos(d.0)
}

impl QuicConfig {
    /// The quinn transport configuration of a connection with these settings.
    ///
    /// Panics on values quinn cannot encode (windows above 2⁶² − 1, an MTU
    /// below 1200 B): the scenario's checks keep them out.
    pub fn transport(&self) -> TransportConfig {
        let mut t = TransportConfig::default();
        let varint = |v: u64| VarInt::from_u64(v).expect("a window below 2^62");
        t.stream_receive_window(varint(self.stream_receive_window))
            .receive_window(varint(self.receive_window))
            .send_window(self.send_window)
            .initial_rtt(std_dur(self.initial_rtt))
            .initial_mtu(self.initial_mtu)
            .min_mtu(self.min_mtu)
            .max_idle_timeout(
                self.max_idle_timeout.map(|d| {
                    IdleTimeout::try_from(std_dur(d)).expect("an idle timeout below 2^62 ms")
                }),
            )
            .mtu_discovery_config(self.mtu_discovery_upper_bound.map(|b| {
                let mut m = MtuDiscoveryConfig::default();
                m.upper_bound(b);
                m
            }))
            .keep_alive_interval(self.keep_alive.map(std_dur))
            .ack_frequency_config(self.ack_frequency.map(|a| {
                let mut c = AckFrequencyConfig::default();
                c.ack_eliciting_threshold(varint(a.ack_eliciting_threshold))
                    .max_ack_delay(a.max_ack_delay.map(std_dur))
                    .reordering_threshold(varint(a.reordering_threshold));
                c
            }))
            // One datagram per transmission: the world carries each as a packet.
            .enable_segmentation_offload(false);
        match self.controller {
            QuicController::NewReno => {
                let mut c = NewRenoConfig::default();
                if let Some(w) = self.initial_window {
                    c.initial_window(w);
                }
                t.congestion_controller_factory(Arc::new(c))
            }
            QuicController::Cubic => {
                let mut c = CubicConfig::default();
                if let Some(w) = self.initial_window {
                    c.initial_window(w);
                }
                t.congestion_controller_factory(Arc::new(c))
            }
            QuicController::Bbr => {
                let mut c = BbrConfig::default();
                if let Some(w) = self.initial_window {
                    c.initial_window(w);
                }
                t.congestion_controller_factory(Arc::new(c))
            }
        };
        t
    }

    /// The settings in words (for describe and a run's table line).
    pub fn describe(&self) -> String {
        let mtud = self
            .mtu_discovery_upper_bound
            .map_or("off".to_string(), |b| format!("up to {b} B"));
        format!(
            "QUIC (quinn-proto 0.11.19, {}): stream window {} B, connection window {}, \
             send window {} B, initial RTT {} ms, UDP payload {} B (MTU discovery {mtud}){}",
            self.controller.name(),
            self.stream_receive_window,
            if self.receive_window == VarInt::MAX.into_inner() {
                "unlimited".to_string()
            } else {
                format!("{} B", self.receive_window)
            },
            self.send_window,
            self.initial_rtt.0 / 1_000_000,
            self.initial_mtu,
            if self.ack_frequency.is_some() {
                ", ACK frequency extension on"
            } else {
                ""
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_quinns_own() {
        // quinn's configuration prints every field but the controller
        // (whose default, CUBIC, is ours); segmentation offload is the one
        // field we change (each datagram is its own packet in the world).
        let mut quinn = TransportConfig::default();
        quinn.enable_segmentation_offload(false);
        let ours = QuicConfig::default().transport();
        assert_eq!(format!("{ours:?}"), format!("{quinn:?}"));
        assert_eq!(QuicConfig::default().controller, QuicController::Cubic);
    }

    #[test]
    fn every_setting_reaches_quinns_configuration() {
        let c = QuicConfig {
            controller: QuicController::NewReno,
            stream_receive_window: 4_000_000,
            receive_window: 9_000_000,
            send_window: 7_000_000,
            initial_rtt: Dur::from_millis(600),
            initial_mtu: 1300,
            min_mtu: 1250,
            mtu_discovery_upper_bound: None,
            ack_frequency: Some(AckFrequency {
                ack_eliciting_threshold: 10,
                max_ack_delay: Some(Dur::from_millis(40)),
                reordering_threshold: 3,
            }),
            max_idle_timeout: None,
            initial_window: Some(30_000),
            keep_alive: Some(Dur::from_secs(5)),
        };
        let s = format!("{:?}", c.transport());
        for want in [
            "stream_receive_window: 4000000",
            "receive_window: 9000000",
            "send_window: 7000000",
            "initial_rtt: 600ms",
            "initial_mtu: 1300",
            "min_mtu: 1250",
            "mtu_discovery_config: None",
            "ack_eliciting_threshold: 10",
            "max_ack_delay: Some(40ms)",
            "reordering_threshold: 3",
            "max_idle_timeout: None",
            "keep_alive_interval: Some(5s)",
        ] {
            assert!(s.contains(want), "{want} not in {s}");
        }
        for name in ["newreno", "cubic", "bbr"] {
            assert_eq!(QuicController::parse(name).unwrap().name(), name);
        }
        assert_eq!(QuicController::parse("reno"), None);
    }
}
