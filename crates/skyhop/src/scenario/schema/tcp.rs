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
    /// Maximum segment size (payload bytes, without TCP options). Default
    /// 1460 B. With timestamps 12 bytes of each segment carry the option:
    /// the payload is 12 B less and the header 12 B more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mss: Option<Size>,
    /// TCP/IP header bytes per packet. Default 40 B.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<Size>,
    /// Initial window in segments. Default 10 (1 with profile "studies").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<u32>,
    /// Initial ssthresh. Default: unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<Size>,
    /// Initial retransmission timeout (RFC 6298 2.1). Default 1 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_initial: Option<Duration>,
    /// Lower bound of the retransmission timeout (RFC 6298 2.4). Default
    /// 200 ms (1 s with profile "studies").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_min: Option<Duration>,
    /// Upper bound of the retransmission timeout (RFC 6298 2.5). Default
    /// 120 s (60 s with profile "studies").
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
    /// Delayed ACKs (RFC 5681 4.2). Default true (false with profile
    /// "studies": every segment is acknowledged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    /// Delayed-ACK timer: an ACK every second segment or after this.
    /// Default 40 ms (200 ms with profile "studies").
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
    /// Defaults of a kind of host: "linux" (the default: what a current
    /// Linux host does) or "studies" (the era of the published studies);
    /// docs/scenario.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// Loss recovery, overriding the variant's: "tahoe", "reno", "newreno",
    /// "newreno-sbs", "sack" (RFC 6675), "prr" (RFC 6937 over RFC 6675) or
    /// "aero" (AeroTCP's fast error control).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<Recovery>,
    /// RFC 3042 Limited Transmit. Default true (false with profile "studies").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_transmit: Option<bool>,
    /// RFC 5681 (4.1) restart after idle: cwnd back to at most the initial
    /// window after more than one RTO without sending. Default true (false
    /// with profile "studies").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_restart: Option<bool>,
    /// The RTO as Linux computes it: SRTT + max(4·RTTVAR, rto_min) (RFC
    /// 6298: max(SRTT + 4·RTTVAR, rto_min)). Default true (false with
    /// profile "studies").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rttvar_floor: Option<bool>,
    /// RACK-TLP loss detection (RFC 8985), with the SACK scoreboard kept
    /// across a timeout; legs with recovery "sack" or "prr" only. Default
    /// true (false with profile "studies").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack: Option<bool>,
    /// RFC 7323 timestamps: every ACK of new data is an RTT sample
    /// (retransmitted data too), 12 bytes of option per segment. Default
    /// true (false with profile "studies").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamps: Option<bool>,
    /// Spurious-timeout detection and undo: F-RTO (RFC 5682) and, with
    /// timestamps, the Eifel test (RFC 3522); with RACK only. Default true
    /// (false with profile "studies").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frto: Option<bool>,
    /// HyStart++ (RFC 9406) in CUBIC's initial slow start (needs
    /// timestamps). Default true (false with profile "studies").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hystart: Option<bool>,
    /// Byte counting (RFC 3465, as Linux): slow start grows by the bytes
    /// each ACK delivers. Default true (false with profile "studies").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_counting: Option<bool>,
    /// Grow cwnd only while the sender uses it, and reduce from cwnd
    /// (Linux's tcp_is_cwnd_limited). Default true (false with profile
    /// "studies").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwnd_validation: Option<bool>,
    /// Pace window-based controllers at Linux's sk_pacing_rate (200 % of
    /// cwnd/SRTT in slow start, 120 % after; what the fq qdisc enforces).
    /// BBR always paces. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<bool>,
    /// With delayed ACKs, an ACK at least every this many segments (OPNET's
    /// "Maximum ACK Segments"). Default 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack_segments: Option<u32>,
    /// Linux's receive-buffer autotuning: the window starts at ten segments
    /// and grows with what arrives, up to `rcv_buffer`. Default true (false
    /// with profile "studies": the whole buffer is advertised).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcv_autotune: Option<bool>,
    /// Send buffer: at most this many bytes sent and not acknowledged
    /// (Linux's tcp_wmem[2]). Default 4194304 B (unlimited with profile
    /// "studies").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_buffer: Option<Size>,
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
    // The studies' era (what E1-E6 ran).
    Studies,
    // What a current Linux host does (the default; docs/scenario.md).
    Linux,
}

impl Profile {
    /// The profile a flow runs under: its own, else `[tcp]`'s, else Linux.
    pub fn of(flow: &TcpOptions, global: &TcpOptions) -> Profile {
        flow.profile.or(global.profile).unwrap_or(Profile::Linux)
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Studies => "studies",
            Profile::Linux => "linux",
        }
    }

    /// The variant a flow that names none runs: the host's default
    /// controller (CUBIC on Linux), or NewReno in the studies.
    pub fn default_variant(self) -> &'static str {
        match self {
            Profile::Studies => "newreno",
            Profile::Linux => "cubic",
        }
    }
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
