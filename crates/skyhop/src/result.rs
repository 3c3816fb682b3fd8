//! What a run returns: per-flow results, per-proxy statistics, engine
//! counters and (when asked) time series. All serialisable to JSON.

use crate::app::AppReport;
pub use crate::observe::Series;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Results of one flow (end to end, across all of its legs).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FlowResult {
    /// Seconds from the flow's start to the last byte reaching the destination
    /// application; `None` for a bulk flow or a transfer that did not finish.
    pub completion_time_s: Option<f64>,
    /// Bytes delivered in order to the destination application / active time (bit/s).
    pub goodput_bps: f64,
    /// Bytes sent by the source's sender, retransmissions included / active time (bit/s).
    pub throughput_bps: f64,
    /// Bytes delivered in order to the destination application.
    pub bytes_delivered: u64,
    /// Bytes the source's sender put on the wire (first leg), retransmissions included.
    pub bytes_sent: u64,
    /// Retransmitted segments, summed over the flow's legs.
    pub retransmissions: u64,
    /// Retransmission timeouts, summed over the flow's legs.
    pub timeouts: u64,
    /// Loss recoveries entered via duplicate ACKs / SACK, summed over legs.
    pub fast_recoveries: u64,
    /// Seconds the flow was active (start to completion, or start to end of run).
    pub active_time_s: f64,
    /// Seconds the flow's first connection took to open, at its client:
    /// TCP, from its SYN to the SYN-ACK (0 without a handshake); QUIC,
    /// from the client's first packet until quinn reports the connection
    /// established (the server's Finished processed). `None`: the
    /// handshake did not finish, or a datagram probe (no connection).
    #[serde(default)]
    pub handshake_s: Option<f64>,
    /// A QUIC flow whose connection the stack closed with an error: its
    /// words (the flow's outcome; the run goes on and warns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection_error: Option<String>,
    /// Per-leg detail (one entry without proxies; none for a datagram probe).
    pub legs: Vec<LegResult>,
    /// Datagram probe (`app = "cbr"`): datagrams sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets_sent: Option<u64>,
    /// Datagram probe: datagrams received at the destination.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets_received: Option<u64>,
    /// Datagram probe: datagrams lost (sent, not received, not in flight at the end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets_lost: Option<u64>,
    /// Datagram probe: packets_lost / (packets_received + packets_lost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_rate: Option<f64>,
    /// Datagram probe: one-way delay of received datagrams, mean and max (s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_mean_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_max_s: Option<f64>,
    /// The application's own results (e.g. a web session's response-time
    /// summaries and its `objects` and `pages`), flattened into the flow's:
    /// each scalar a key, each table a list of records (`app/report.rs`).
    #[serde(flatten)]
    pub app: AppReport,
}

/// One TCP connection of a (possibly split) flow.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LegResult {
    pub from: String,
    pub to: String,
    pub tcp: String,
    pub bytes_sent: u64,
    pub bytes_acked: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub segments_sent: u64,
    pub acks_received: u64,
    pub window_probes: u64,
    /// Pure window updates sent by this leg's receiver.
    pub window_updates_sent: u64,
}

impl LegResult {
    /// Add another connection's counters on the same leg (same ends and variant).
    pub fn add(&mut self, o: &LegResult) {
        self.bytes_sent += o.bytes_sent;
        self.bytes_acked += o.bytes_acked;
        self.retransmissions += o.retransmissions;
        self.timeouts += o.timeouts;
        self.fast_recoveries += o.fast_recoveries;
        self.segments_sent += o.segments_sent;
        self.acks_received += o.acks_received;
        self.window_probes += o.window_probes;
        self.window_updates_sent += o.window_updates_sent;
    }
}

/// One end of a QUIC flow's connection, from quinn's own statistics
/// (`quinn_proto::ConnectionStats`) at the end of the run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct QuicResult {
    pub flow: String,
    /// The connection's place along the flow's path: 0 from the flow's
    /// `from`; a QUIC-terminating proxy ends one connection and opens the next.
    #[serde(default)]
    pub leg: u32,
    /// `client` (the end that opened the connection) or `server`.
    pub end: String,
    pub node: String,
    /// The congestion controller (`newreno`, `cubic`, `bbr`).
    pub controller: String,
    /// From the client's first packet until the handshake completed at
    /// this end (the server completes it when the client's Finished arrives).
    pub handshake_s: Option<f64>,
    /// Smoothed RTT and the smallest RTT sample, seconds.
    pub rtt_s: f64,
    pub min_rtt_s: f64,
    /// Congestion window at the end of the run, bytes.
    pub cwnd_bytes: u64,
    /// Window reductions (losses or ECN), RFC 9002 §7.3.2.
    pub congestion_events: u64,
    /// Packets (and their bytes) declared lost by quinn's loss detection.
    pub lost_packets: u64,
    pub lost_bytes: u64,
    /// QUIC packets sent (several may share a datagram during the handshake).
    pub packets_sent: u64,
    /// UDP datagrams and their payload bytes, sent and received.
    pub datagrams_sent: u64,
    pub datagrams_received: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// Probe timeouts that fired (RFC 9002 §6.2).
    pub ptos: u64,
    /// The path's UDP payload size at the end (after MTU discovery), bytes.
    pub mtu: u64,
    pub stream_frames_sent: u64,
    pub ack_frames_sent: u64,
}

/// Statistics of one split proxy.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ProxyResult {
    pub flow: String,
    pub node: String,
    pub cache_bytes: u64,
    /// A QUIC-terminating proxy (a relay between two QUIC connections)
    /// rather than a split-TCP one (written only when true: a split-TCP
    /// proxy's row is as before).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quic: bool,
    pub max_occupancy_bytes: u64,
    /// Time-weighted mean occupancy over the flow's active time.
    pub mean_occupancy_bytes: f64,
    pub window_updates: u64,
    /// Always zero: an overflow stops the run with an error.
    pub drops: u64,
    /// The ack-after-forward integrity rule was on.
    #[serde(default)]
    pub ack_after_forward: bool,
    /// ACKs the proxy sent on its incoming leg that acknowledged bytes its
    /// outgoing leg had not yet transmitted (zero with `ack_after_forward`).
    #[serde(default)]
    pub acks_ahead_of_forwarding: u64,
    /// The most bytes one such ACK acknowledged beyond what was transmitted.
    #[serde(default)]
    pub max_acked_unforwarded_bytes: u64,
    /// ACKs the rule held back (sent later, once the bytes were transmitted).
    #[serde(default)]
    pub deferred_acks: u64,
}

/// Engine counters, for benchmarks and sanity.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct EngineStats {
    pub events: u64,
    /// One packet crossing one link direction (lost packets included).
    pub packet_hops: u64,
    pub sim_time_s: f64,
    pub queue_drops: u64,
    pub channel_drops: u64,
    /// The most packets on the move at once (in flight or queued; the
    /// packet store's high-water mark), for measuring the memory a packet
    /// costs. Not part of the written results (the engine examples print it).
    #[serde(skip)]
    pub peak_packets: u64,
}

/// A change of a moving network's routes: `kind` "route" (the node path
/// of the route `route` = "<from>><to>" changed; `old` and `new` are the
/// paths as node names joined by commas, `delay_s` the new path's one-way
/// propagation delay at `t_s`) or "handover" (ground node `node` moved
/// from satellite `old` to `new`). The first routes of a run are "route"
/// events at t = 0 with an empty `old`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct NetworkEvent {
    pub t_s: f64,
    pub kind: String,
    pub node: String,
    pub route: String,
    pub old: String,
    pub new: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_s: Option<f64>,
}

/// Counters of a moving network's routing.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct NetworkStats {
    /// Recomputations of the routes (the first included).
    pub route_updates: u64,
    /// Links between moving nodes built because traffic crossed them.
    pub links_built: u64,
    /// Packets dropped at a node with no route to their destination.
    pub unroutable: u64,
}

/// One direction of a link over a run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LinkResult {
    /// The link's key in the scenario (`links.<link>`).
    pub link: String,
    /// `forward` (from `between[0]` to `between[1]`) or `reverse`.
    pub dir: String,
    pub from: String,
    pub to: String,
    /// Transmission rate, bit/s.
    pub rate_bps: u64,
    /// Packets accepted for transmission (queue drops not counted; packets
    /// the channel corrupts counted: they occupy the link).
    pub packets: u64,
    /// Bytes on the wire of those packets (IP packets, headers included).
    pub bytes: u64,
    /// Packets that reached the far end.
    pub delivered: u64,
    /// Fraction of the run's time the transmitter was busy, in [0, 1].
    pub utilisation: f64,
    /// Packets refused by the full drop-tail queue.
    pub queue_drops: u64,
    /// Packets lost to the channel model.
    pub channel_drops: u64,
    /// Packets the link layer itself gave up on.
    pub link_drops: u64,
    /// Time-weighted mean number of packets waiting or in service.
    pub mean_queue_packets: f64,
    /// Largest number of packets waiting or in service.
    pub max_queue_packets: u32,
    /// The link layer's own counters of this direction, as keys of its own
    /// (a DVB-S forward link: `frames_sent`, `frames_lost`,
    /// `frames_retransmitted`, `frames_misaligned`, `mode_switches`,
    /// `arq_acks_sent`, `arq_acks_lost`, `reports_sent`, `asto_expiries`,
    /// `give_ups`); none for a FIFO link.
    #[serde(flatten)]
    pub layer: BTreeMap<String, u64>,
}

/// Jain's fairness index of `xs`: (Σx)² / (n·Σx²); `None` for fewer than
/// two values or all zero.
pub fn jain_index(xs: &[f64]) -> Option<f64> {
    if xs.len() < 2 {
        return None;
    }
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    (sq > 0.0).then(|| sum * sum / (xs.len() as f64 * sq))
}

/// Everything one run produced.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunResult {
    pub seed: u64,
    pub flows: BTreeMap<String, FlowResult>,
    pub proxies: Vec<ProxyResult>,
    /// Each end of each QUIC flow's connection (absent without QUIC flows).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quic: Vec<QuicResult>,
    pub engine: EngineStats,
    /// Time series keyed `"<flow>.<leg index>.<quantity>"` (cwnd, ssthresh,
    /// flight, rwnd in bytes; srtt in seconds; rate_estimate in bit/s),
    /// `"<flow>.proxy.<node>.occupancy"` (bytes) or
    /// `"link.<link>.<forward|reverse>.queue"` (packets waiting or in service).
    /// Empty unless tracing was requested.
    pub traces: BTreeMap<String, Series>,
    /// Non-fatal observations about the scenario (e.g. a receive window below the BDP).
    pub warnings: Vec<String>,
    /// Jain's fairness index of the flows' goodputs, (Σx)² / (n·Σx²), in
    /// [1/n, 1]; `None` with fewer than two flows (or no goodput at all).
    pub jain_fairness: Option<f64>,
    /// Per link direction, in scenario order (link key, then forward, reverse).
    #[serde(default)]
    pub links: Vec<LinkResult>,
    /// Route changes and handovers of a moving network, in time order
    /// (absent for a static network).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub network_events: Vec<NetworkEvent>,
    /// A moving network's routing counters (absent for a static network).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkStats>,
    /// Per shared medium (a beam), its own results: scalars, and tables
    /// as lists of records whose `member` column names the member link.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub media: BTreeMap<String, MediumResult>,
    /// The per-packet event log, when a run asked for one (not serialised
    /// with the result: see [`crate::observe::PacketLog`]).
    #[serde(skip)]
    pub packet_log: Option<crate::observe::PacketLog>,
}

/// A shared medium's results: each scalar a key, each table a list of
/// records (one object per row), a `member` column as the member link's
/// name.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct MediumResult {
    #[serde(flatten)]
    pub values: BTreeMap<String, serde_json::Value>,
}

impl MediumResult {
    pub fn from_report(r: crate::net::MediumReport) -> MediumResult {
        let mut values = BTreeMap::new();
        for (k, v) in r.scalars {
            values.insert(k, serde_json::json!(v));
        }
        for t in r.tables {
            let rows: Vec<serde_json::Value> = t
                .rows
                .iter()
                .map(|row| {
                    let mut o = serde_json::Map::new();
                    for (c, &x) in t.columns.iter().zip(row) {
                        let v = match (c.as_str(), r.members.get(x as usize)) {
                            ("member", Some(name)) => serde_json::json!(name),
                            _ => serde_json::json!(x),
                        };
                        o.insert(c.clone(), v);
                    }
                    serde_json::Value::Object(o)
                })
                .collect();
            values.insert(t.name, serde_json::Value::Array(rows));
        }
        MediumResult { values }
    }
}

#[cfg(test)]
mod tests {
    use super::jain_index;

    #[test]
    fn jain_index_is_one_for_equal_shares_and_one_over_n_for_a_monopoly() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(jain_index(&[8.0, 0.0, 0.0, 0.0]), Some(0.25));
        // (1+3)^2 / (2 * (1+9)) = 0.8
        assert!((jain_index(&[1.0, 3.0]).unwrap() - 0.8).abs() < 1e-12);
        assert_eq!(jain_index(&[1.0]), None);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
    }
}
