//! `[tcp]` and `flows.<id>.options`: TCP parameters, and the choices among
//! them as enums (the JSON Schema lists their values; an unknown one is an
//! error naming them).

use crate::tcp::RecKind;
use crate::units::{Duration, Rate, Size};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// TCP parameters. All optional: a flow's value overrides `[tcp]`, which
/// overrides the built-in default.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpOptions {
    /// Maximum segment size (payload bytes). Default 1460 B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mss: Option<Size>,
    /// TCP/IP header bytes per packet. Default 40 B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<Size>,
    /// Initial window in segments. Default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// Initial ssthresh. Default: unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<Size>,
    /// Initial retransmission timeout (RFC 6298 2.1). Default 1 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_initial: Option<Duration>,
    /// Lower bound of the retransmission timeout (RFC 6298 2.4). Default 1 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_min: Option<Duration>,
    /// Upper bound of the retransmission timeout (RFC 6298 2.5). Default 60 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_max: Option<Duration>,
    /// Clock granularity G of RFC 6298. Default 1 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_granularity: Option<Duration>,
    /// Duplicate ACKs that trigger a fast retransmit. Default 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dupthresh: Option<u32>,
    /// Receive buffer of end hosts (the advertised window). Default 4 MB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcv_buffer: Option<Size>,
    /// SACK blocks per ACK (RFC 2018 with timestamps). Default 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack_blocks: Option<u32>,
    /// Delayed ACKs (RFC 5681 4.2). Default false: every segment is acknowledged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    /// Delayed-ACK timer: an ACK every second segment or after this. Default 200 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack_timeout: Option<Duration>,
    /// Westwood ABSE filter constant tau. Default 1 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub westwood_tau: Option<Duration>,
    /// Westwood ABSE filter input: "trapezoid" (default, the papers'
    /// (s_k + s_k-1)/2), "latest-sample" (the latest sample alone, as the studies' formula reads literally) or "interval-mean".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub westwood_filter: Option<WestwoodFilter>,
    /// Open each connection (each leg) with a three-way handshake, counted
    /// in the completion time. Default false (data at once, as in the studies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshake: Option<bool>,
    /// Defaults of a kind of host: "studies" (the default: the studies'
    /// era) or "linux" (what a current Linux host does; docs/scenario.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// Loss recovery, overriding the variant's: "tahoe", "reno", "newreno",
    /// "newreno-sbs", "sack" (RFC 6675), "prr" (RFC 6937 over RFC 6675) or
    /// "aero" (AeroTCP's fast error control).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<Recovery>,
    /// RFC 3042 Limited Transmit. Default false (true with profile "linux").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_transmit: Option<bool>,
    /// RFC 5681 (4.1) restart after idle: cwnd back to at most the initial
    /// window after more than one RTO without sending. Default false (true
    /// with profile "linux").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_restart: Option<bool>,
    /// The RTO as Linux computes it: SRTT + max(4·RTTVAR, rto_min) (RFC
    /// 6298: max(SRTT + 4·RTTVAR, rto_min)). Default false (true with
    /// profile "linux").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rttvar_floor: Option<bool>,
    /// RACK-TLP loss detection (RFC 8985), with the SACK scoreboard kept
    /// across a timeout; legs with recovery "sack" or "prr" only. Default
    /// false (true with profile "linux").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack: Option<bool>,
    /// Hybla's reference RTT0. Default 25 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hybla_rtt0: Option<Duration>,
    /// AeroTCP's window allocation (legs with `aerotcp` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aero_allocation: Option<AeroAllocationSection>,
}

/// How an `aerotcp` leg sets its window (docs/scenario.md, "AeroTCP").
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AeroAllocationSection {
    /// "static" (SatBW/N x SatRTT, default), "prdp" (peak_rate x SatRTT),
    /// "adaptive" (SatBW/n x SatRTT, n = connections open now), "table"
    /// (rates[n-1] x SatRTT) or "window" (`window` segments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<AeroMode>,
    /// Satellite link capacity. Default: the leg's bottleneck rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sat_bw: Option<Rate>,
    /// static: number of connections sharing it. Default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    /// prdp: per-connection peak rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rate: Option<Rate>,
    /// Round trip of the satellite leg. Default: the leg's propagation round trip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sat_rtt: Option<Duration>,
    /// table: target rate per connection with 1, 2, ... connections open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rates: Option<Vec<Rate>>,
    /// window: the window in segments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
}

/// The defaults of a kind of host (`tcp.profile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    // The studies' era (the default).
    Studies,
    // What a current Linux host does (docs/scenario.md).
    Linux,
}

/// The input of Westwood's bandwidth filter (`tcp.westwood_filter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WestwoodFilter {
    Trapezoid,
    LatestSample,
    IntervalMean,
}

/// How an `aerotcp` leg sets its window (`aero_allocation.mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AeroMode {
    Static,
    Prdp,
    Adaptive,
    Table,
    Window,
}

/// A loss recovery by its registered name (`tcp.recovery`): any name of
/// `tcp/registry.rs`'s `recoveries!` list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recovery(pub RecKind);

impl Serialize for Recovery {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name())
    }
}

impl<'de> Deserialize<'de> for Recovery {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        RecKind::parse(&name).map(Recovery).ok_or_else(|| {
            let known: Vec<String> = RecKind::NAMES.iter().map(|n| format!("{n:?}")).collect();
            de::Error::custom(format!("{name:?} is not one of {}", known.join(", ")))
        })
    }
}

impl schemars::JsonSchema for Recovery {
    fn schema_name() -> String {
        "Recovery".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        schemars::schema::SchemaObject {
            instance_type: Some(schemars::schema::InstanceType::String.into()),
            enum_values: Some(RecKind::NAMES.iter().map(|n| (*n).into()).collect()),
            ..Default::default()
        }
        .into()
    }
}
