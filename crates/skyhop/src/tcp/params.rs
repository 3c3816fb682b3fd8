//! The one table of TCP parameters: every key of `[tcp]` and of a flow's
//! `options`, declared once.
//!
//! [`tcp_params!`] is a list in the style of `tcp/registry.rs`: it hands its
//! rows to a generator (`tcp_params!(gen! args)` expands to
//! `gen! { args <the rows> }`). A plain row is
//!
//! ```text
//! /// meaning (the doc comment of the scenario key)
//! key: ScenarioType => config_field: ConfigType { Profile patterns => default, ... } range;
//! ```
//!
//! and from the rows come: the scenario table `TcpOptions` (serde, doc
//! comments, JSON Schema: `scenario/schema/tcp.rs`), each profile's
//! defaults in `TcpConfig` ([`TcpConfig::table_defaults`], `tcp/config.rs`),
//! the range checks (`scenario/validate.rs`, with the messages of
//! [`Range`]), the resolution flow > `[tcp]` > profile default
//! (`scenario/plan/tcp.rs`), and the defaults and ranges that the JSON
//! Schema and the generated tables of docs/scenario.md show
//! (`scenario/schema/tcp.rs`, `param_docs`).
//!
//! The default column is a `match` over [`Profile`]: each row says what
//! every profile uses (`_ =>` for a value they share), and a new profile is
//! one more variant of `Profile` plus, on the rows where it differs, a
//! pattern (`Studies | Ns2 => ...`); rows written with `_` need no edit.
//!
//! A special row (`key: ScenarioType = |profile| default as shown;`) is a key
//! whose resolution is not a plain pick: `profile` (chooses the defaults),
//! `recovery` (rewrites the variant) and `aero_allocation` (needs the
//! leg's path). They, and the resolutions that tie keys together
//! (`TcpConfig::finish`, `tcp/config.rs`: timestamps take 12 bytes of the
//! MSS into the header, RACK only with the SACK recoveries, F-RTO only with
//! RACK, a Linux host's SACK + PRR), are written out beside the table's
//! generators.

use super::cc::FilterInput;
use super::registry::{Era, VariantDef, VARIANTS};
use super::seg::MAX_SACK_BLOCKS;
use crate::engine::time::Dur;
use crate::units::{Duration, Size, MAX_BUFFER, MAX_DURATION};
use serde::{Deserialize, Serialize};

/// Smallest RTO bound (`rto_initial`, `rto_max`): 1 µs.
pub const MIN_RTO: Dur = Dur(1_000);
/// Largest initial window, in segments.
pub const MAX_INITIAL_WINDOW: u32 = 1_000_000;
/// Largest duplicate-ACK threshold, and of `delayed_ack_segments`.
pub const MAX_DUPTHRESH: u32 = 1000;
/// Bytes of the RFC 7323 timestamp option in every segment (10, padded to 12).
pub const TIMESTAMP_OPTION_BYTES: u32 = 12;

/// The names the rows use: each generator's file imports them
/// (`use crate::tcp::params::row::*;`), so a row resolves the same wherever
/// it is expanded. A row needing another name adds it here.
pub mod row {
    pub use super::UNLIMITED_SSTHRESH;
    pub use super::{Profile, Range, WestwoodFilter, MAX_DUPTHRESH, MAX_INITIAL_WINDOW, MIN_RTO};
    pub use crate::engine::time::Dur;
    pub use crate::tcp::cc::{FilterInput, WestwoodParams};
    pub use crate::tcp::seg::MAX_SACK_BLOCKS;
    pub use crate::units::{Duration, Size, MAX_BUFFER, MAX_DURATION};
}

/// Every TCP parameter: `tcp_params!(gen! args)` expands to
/// `gen! { args plain { <rows> } special { <rows> } }`. The names of the
/// plain rows are those of [`row`]; a special row's type is the scenario
/// table's (`scenario/schema/tcp.rs`).
macro_rules! tcp_params {
    ($then:ident ! $($args:tt)*) => {
        $then! { $($args)*
        plain {
            /// Maximum segment size: payload bytes of a full segment without
            /// TCP options. With timestamps 12 bytes of each segment carry
            /// the option: the payload is 12 B less and the header 12 B more.
            mss: Size => mss: u32 { _ => 1460 } Range::size(1, 65_000);
            /// TCP/IP header bytes per packet (an ACK is this, plus 2 + 8 per
            /// SACK block).
            header: Size => header_bytes: u32 { _ => 40 } Range::size(20, 1000);
            /// Initial window in segments (RFC 5681: 1 in the studies' era;
            /// RFC 6928, Linux since 2.6.39: 10).
            initial_window: u32 => initial_window: u32 {
                Studies => 1,
                // ns-2's windowInit_ 2 from 2001-05-26, after the first
                // segment's ACK (syn_, delay_growth_: the handshake).
                Ns2 => 2,
                Linux => 10,
            } Range::count(1, MAX_INITIAL_WINDOW, " segments");
            /// Initial ssthresh (under "ns2": the receive window unless set,
            /// as ns-2's ssthresh_ starts at window_).
            initial_ssthresh: Size => initial_ssthresh: u64 { _ => UNLIMITED_SSTHRESH }
                Range::size(1, u64::MAX);
            /// Initial retransmission timeout (RFC 6298 2.1).
            rto_initial: Duration => rto_initial: Dur {
                // ns-2's rtxcur_init_: 6 s until 2006-01-21.
                Ns2 => Dur::from_secs(6),
                _ => Dur::from_secs(1),
            }
                Range::dur(MIN_RTO, MAX_DURATION);
            /// Lower bound of the retransmission timeout (RFC 6298 2.4;
            /// Linux's TCP_RTO_MIN).
            rto_min: Duration => rto_min: Dur {
                Studies | Ns2 => Dur::from_secs(1),
                Linux => Dur::from_millis(200),
            } Range::dur(Dur::ZERO, MAX_DURATION);
            /// Upper bound of the retransmission timeout (RFC 6298 2.5;
            /// Linux's TCP_RTO_MAX).
            rto_max: Duration => rto_max: Dur {
                Studies => Dur::from_secs(60),
                // ns-2's maxrto_: 64 s (as BSD) until 2007-03-28.
                Ns2 => Dur::from_secs(64),
                Linux => Dur::from_secs(120),
            } Range::dur(MIN_RTO, MAX_DURATION);
            /// Clock granularity G of RFC 6298.
            clock_granularity: Duration => clock_granularity: Dur { _ => Dur::from_millis(1) }
                Range::dur(Dur::ZERO, MAX_DURATION);
            /// Duplicate ACKs that trigger a fast retransmit.
            dupthresh: u32 => dupthresh: u32 { _ => 3 } Range::count(1, MAX_DUPTHRESH, "");
            /// Receive buffer of end hosts (the advertised window, window
            /// scaling assumed); below the path's bandwidth-delay product it
            /// caps goodput, and the plan warns.
            rcv_buffer: Size => rcv_buffer: u64 { _ => 4_000_000 } Range::size(1, MAX_BUFFER);
            /// SACK blocks per ACK (RFC 2018 with timestamps).
            sack_blocks: u32 => sack_blocks: u32 { _ => 3 }
                Range::at_most(MAX_SACK_BLOCKS as u32, "an ACK can carry");
            /// Delayed ACKs (RFC 5681 4.2); off: every segment is
            /// acknowledged.
            delayed_ack: bool => delayed_ack: bool {
                Studies | Ns2 => false,
                Linux => true,
            } Range::ANY;
            /// Delayed-ACK timer: an ACK every second segment or after this
            /// (Linux's TCP_DELACK_MIN; quick-ACK mode is not modelled).
            delayed_ack_timeout: Duration => delayed_ack_timeout: Dur {
                Studies => Dur::from_millis(200),
                // ns-2's Agent/TCPSink/DelAck interval_.
                Ns2 => Dur::from_millis(100),
                Linux => Dur::from_millis(40),
            } Range::dur(Dur::ZERO, MAX_DURATION);
            /// Westwood ABSE filter constant tau.
            westwood_tau: Duration => westwood_tau: Dur { _ => WestwoodParams::default().tau }
                Range::dur(Dur(1), MAX_DURATION);
            /// Westwood ABSE filter input: "trapezoid" (the papers'
            /// (s_k + s_k-1)/2), "latest-sample" (the latest sample alone, as
            /// the studies' formula reads literally) or "interval-mean".
            westwood_filter: WestwoodFilter => westwood_filter: FilterInput {
                _ => WestwoodParams::default().input,
            } Range::ANY;
            /// Open each connection (each leg) with a three-way handshake,
            /// counted in the completion time; off: data at once, as in the
            /// studies.
            handshake: bool => handshake: bool {
                // ns-2's syn_ (from 2001-05-17): a 40-byte first segment
                // whose ACK starts the data.
                Ns2 => true,
                _ => false,
            } Range::ANY;
            /// RFC 3042 Limited Transmit (always on in Linux; ns-2's
            /// singledup_ from 2001-11-28).
            limited_transmit: bool => limited_transmit: bool {
                Studies => false,
                Ns2 => true,
                Linux => true,
            } Range::ANY;
            /// RFC 5681 (4.1) restart after idle: cwnd back to at most the
            /// initial window after more than one RTO without sending (Linux's
            /// tcp_slow_start_after_idle).
            idle_restart: bool => idle_restart: bool {
                Studies | Ns2 => false,
                Linux => true,
            } Range::ANY;
            /// The RTO as Linux computes it: SRTT + max(4·RTTVAR, rto_min)
            /// (RFC 6298: max(SRTT + 4·RTTVAR, rto_min)).
            rttvar_floor: bool => rttvar_floor: bool {
                Studies | Ns2 => false,
                Linux => true,
            } Range::ANY;
            /// RACK-TLP loss detection (RFC 8985, Linux's since 4.18), with
            /// the SACK scoreboard kept across a timeout; legs with recovery
            /// "sack" or "prr" only.
            rack: bool => rack: bool {
                Studies | Ns2 => false,
                Linux => true,
            } Range::ANY;
            /// RFC 7323 timestamps: every ACK of new data is an RTT sample
            /// (retransmitted data too), 12 bytes of option per segment.
            timestamps: bool => timestamps: bool {
                Studies | Ns2 => false,
                Linux => true,
            } Range::ANY;
            /// Spurious-timeout detection and undo: F-RTO (RFC 5682) and,
            /// with timestamps, the Eifel test (RFC 3522); with RACK only.
            frto: bool => frto: bool {
                Studies | Ns2 => false,
                Linux => true,
            } Range::ANY;
            /// HyStart++ (RFC 9406) in CUBIC's initial slow start (needs
            /// timestamps).
            hystart: bool => hystart: bool {
                Studies | Ns2 => false,
                Linux => true,
            } Range::ANY;
            /// Byte counting (RFC 3465, as Linux): slow start grows by the
            /// bytes each ACK delivers.
            byte_counting: bool => byte_counting: bool {
                Studies | Ns2 => false,
                Linux => true,
            } Range::ANY;
            /// Grow cwnd only while the sender uses it, and reduce from cwnd
            /// (Linux's tcp_is_cwnd_limited).
            cwnd_validation: bool => cwnd_validation: bool {
                Studies | Ns2 => false,
                Linux => true,
            } Range::ANY;
            /// Pace window-based controllers at Linux's sk_pacing_rate (200 %
            /// of cwnd/SRTT in slow start, 120 % after; what the fq qdisc
            /// enforces). BBR always paces.
            pacing: bool => pacing: bool { _ => false } Range::ANY;
            /// With delayed ACKs, an ACK at least every this many segments
            /// (OPNET's "Maximum ACK Segments").
            delayed_ack_segments: u32 => delayed_ack_segments: u32 { _ => 2 }
                Range::count(1, MAX_DUPTHRESH, " segments");
            /// Linux's receive-buffer autotuning: the window starts at ten
            /// segments and grows with what arrives, up to `rcv_buffer`; off:
            /// the whole buffer is advertised.
            rcv_autotune: bool => rcv_autotune: bool {
                Studies | Ns2 => false,
                Linux => true,
            } Range::ANY;
            /// Send buffer: at most this many bytes sent and not acknowledged
            /// (Linux's tcp_wmem[2]).
            send_buffer: Size => send_buffer: u64 {
                Studies | Ns2 => u64::MAX,
                Linux => 4_194_304,
            } Range::size(1, MAX_BUFFER);
            /// Hybla's reference RTT0 (Caini & Firrincieli 2004).
            hybla_rtt0: Duration => hybla_rtt0: Dur { _ => Dur::from_millis(25) }
                Range::POSITIVE;
            /// ns-2's clock tick (`tcpTick_`, 0.1 s until 2002-03-08): RTT
            /// samples, SRTT, RTTVAR and the RTO in whole ticks, as ns-2's
            /// TCP keeps them (docs/ns2.md); 0 s: RFC 6298's estimator.
            rtt_tick: Duration => rtt_tick: Dur {
                Ns2 => Dur::from_millis(10),
                _ => Dur::ZERO,
            } Range::dur(Dur::ZERO, MAX_DURATION);
            /// With `rtt_tick`: the minimum RTO applies before the back-off
            /// multiplies (RFC 2988; ns-2's rfc2988_ from 2002-03-08), or
            /// after it.
            rto_min_before_backoff: bool => rto_min_before_backoff: bool { _ => true }
                Range::ANY;
            /// ns-2's NewReno ("ns2-newreno", "ns2-newreno-sbs", and
            /// "newreno"/"newreno-sbs" under "ns2"): partial window deflation
            /// on a partial ACK (RFC 2582; ns-2's default from 2003-05-05);
            /// off: a partial ACK ends the inflation.
            partial_window_deflation: bool => partial_window_deflation: bool {
                Ns2 => false,
                _ => true,
            } Range::ANY;
            /// ns-2's NewReno: `exitFastRetrans_` (ns-2's default from
            /// 2003-07-28). Off, as ns-2 before: duplicate ACKs inflate the
            /// window (3 segments at the third, one at each after) even when
            /// the fast retransmit is refused, within the window of a timeout
            /// or an earlier recovery, until the next new ACK.
            exit_fast_retrans: bool => exit_fast_retrans: bool { _ => true } Range::ANY;
            /// At most this many segments per transmission opportunity
            /// outside a recovery (ns-2's maxburst_); 0: no limit.
            maxburst: u32 => maxburst: u32 { _ => 0 } Range::count(0, MAX_INITIAL_WINDOW, " segments");
        }
        special {
            /// Defaults of a kind of host: "linux" (what a current Linux host
            /// does), "studies" (the era of the published studies, TCP as
            /// the RFCs of the time describe it) or "ns2" (the studies' own
            /// simulator: ns-2's TCP of 2002-2003, docs/ns2.md); every other
            /// key still overrides them.
            profile: Profile = |p: Profile| format!("\"{}\"", p.name());
            /// Loss recovery, overriding the variant's: "tahoe", "reno",
            /// "newreno", "newreno-sbs", "sack" (RFC 6675), "prr" (RFC 6937
            /// over RFC 6675), "aero" (AeroTCP's fast error control), or ns-2's
            /// agents "ns2-newreno", "ns2-newreno-sbs", "ns2-sack1" (what
            /// "newreno", "newreno-sbs" and "sack" are under profile "ns2").
            /// The SACK recoveries turn the SACK option on, the others off.
            recovery: Recovery = |_| "the variant's".into();
            /// AeroTCP's window allocation (legs with `aerotcp` only).
            aero_allocation: AeroAllocationSection = |_| "mode \"static\" over the leg".into();
        }
        }
    };
}
pub(crate) use tcp_params;

/// The defaults of a kind of host (`tcp.profile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    // The studies' era (what E1-E6 ran).
    Studies,
    // What a current Linux host does (the default; docs/scenario.md).
    Linux,
    // The studies' simulator, ns-2 (docs/ns2.md).
    Ns2,
}

impl Profile {
    /// Every profile, the default first (the order of the docs' columns).
    pub const ALL: &'static [Profile] = &[Profile::Linux, Profile::Studies, Profile::Ns2];

    /// The profile a flow runs under: its own, else `[tcp]`'s, else Linux.
    pub fn of(flow: Option<Profile>, global: Option<Profile>) -> Profile {
        flow.or(global).unwrap_or(Profile::Linux)
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Studies => "studies",
            Profile::Linux => "linux",
            Profile::Ns2 => "ns2",
        }
    }

    /// The variant a flow that names none runs: the host's default
    /// controller (CUBIC on Linux), or NewReno in the studies.
    pub fn default_variant(self) -> &'static VariantDef {
        let name = match self {
            Profile::Studies | Profile::Ns2 => "newreno",
            Profile::Linux => "cubic",
        };
        VARIANTS
            .iter()
            .find(|v| v.name == name)
            .expect("a profile's default variant is registered")
    }

    pub fn era(self) -> Era {
        match self {
            Profile::Studies | Profile::Ns2 => Era::Studies,
            Profile::Linux => Era::Today,
        }
    }

    /// The host recovers with what it pairs with each controller
    /// (`CcTraits::host_recovery`, `tcp/registry.rs`) whatever the
    /// variant's name says (Linux: SACK + PRR).
    pub fn host_recovery(self) -> bool {
        match self {
            Profile::Studies | Profile::Ns2 => false,
            Profile::Linux => true,
        }
    }

    /// The recoveries are ns-2's agents: a variant's (or `tcp.recovery`'s)
    /// NewReno is ns-2's `Agent/TCP/Newreno`, its RFC 6675 SACK ns-2's
    /// `Agent/TCP/Sack1` (`RecKind::ns2`).
    pub fn ns2_agents(self) -> bool {
        self == Profile::Ns2
    }

    /// A split proxy given no policy and no size is a relay process on
    /// such a host (its receive and send buffers), else the studies'
    /// half-free cache.
    pub fn relay_proxies(self) -> bool {
        match self {
            Profile::Studies | Profile::Ns2 => false,
            Profile::Linux => true,
        }
    }
}

/// A scenario value as the configuration holds it, and a configuration
/// value in the scenario's words (for the defaults the docs show).
pub trait Param<C>: Copy {
    fn to_config(self) -> C;
    fn show(c: &C) -> String;
}

impl Param<bool> for bool {
    fn to_config(self) -> bool {
        self
    }
    fn show(c: &bool) -> String {
        c.to_string()
    }
}

impl Param<u32> for u32 {
    fn to_config(self) -> u32 {
        self
    }
    fn show(c: &u32) -> String {
        c.to_string()
    }
}

impl Param<u32> for Size {
    fn to_config(self) -> u32 {
        // In range (at most 65 000 B: `Range::size`).
        self.0 as u32
    }
    fn show(c: &u32) -> String {
        show_size(*c as u64)
    }
}

impl Param<u64> for Size {
    fn to_config(self) -> u64 {
        self.0
    }
    fn show(c: &u64) -> String {
        show_size(*c)
    }
}

impl Param<Dur> for Duration {
    fn to_config(self) -> Dur {
        self.0
    }
    fn show(c: &Dur) -> String {
        show_dur(*c)
    }
}

mod range;
pub use range::{show_dur, show_size, InRange, Range, UNLIMITED_SSTHRESH};

/// Each plain row's range, by key: `Ranges::mss`, ...
pub struct Ranges;

macro_rules! ranges {
    (plain { $(
        $(#[doc = $doc:literal])*
        $key:ident : $sty:ty => $field:ident : $cty:ty { $($p:pat => $v:expr),+ $(,)? } $range:expr;
    )* } special { $($special:tt)* }) => {
        #[allow(non_upper_case_globals)]
        impl Ranges {
            $(pub const $key: Range = $range;)*
        }
    };
}
tcp_params!(ranges!);

/// The scenario's Westwood filter input (`tcp.westwood_filter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WestwoodFilter {
    Trapezoid,
    LatestSample,
    IntervalMean,
}

impl InRange for WestwoodFilter {
    fn in_range(&self, _: &Range) -> Result<(), String> {
        Ok(())
    }
}

impl Param<FilterInput> for WestwoodFilter {
    fn to_config(self) -> FilterInput {
        match self {
            WestwoodFilter::Trapezoid => FilterInput::Trapezoid,
            WestwoodFilter::LatestSample => FilterInput::LatestSample,
            WestwoodFilter::IntervalMean => FilterInput::IntervalMean,
        }
    }
    fn show(c: &FilterInput) -> String {
        match c {
            FilterInput::Trapezoid => "\"trapezoid\"",
            FilterInput::LatestSample => "\"latest-sample\"",
            FilterInput::IntervalMean => "\"interval-mean\"",
        }
        .into()
    }
}

#[cfg(test)]
mod tests;
