//! Parameters of one TCP connection (one leg of a flow). Scenario files
//! set them through `[tcp]` and `flows.<id>.options`; each profile's
//! defaults come from the table of `tcp/params.rs`
//! ([`TcpConfig::table_defaults`]), tied together by [`TcpConfig::finish`].

use super::params::{tcp_params, Profile, TIMESTAMP_OPTION_BYTES, UNLIMITED_SSTHRESH};
use crate::engine::time::Dur;
use crate::tcp::cc::FilterInput;

pub use super::registry::{CcKind, RecKind, VariantDef, VARIANTS};

/// A TCP variant as named in scenarios: controller + recovery + SACK option.
/// The names are registered in `tcp/registry.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    pub cc: CcKind,
    pub recovery: RecKind,
    /// The connection uses the SACK option (RFC 2018): the receiver reports
    /// blocks, the sender keeps a scoreboard.
    pub sack: bool,
}

impl Variant {
    /// Names accepted in scenario files, in registration order.
    pub fn names() -> Vec<&'static str> {
        VARIANTS.iter().map(|d| d.name).collect()
    }

    pub fn parse(name: &str) -> Option<Variant> {
        VARIANTS.iter().find(|d| d.name == name).map(Variant::of)
    }

    /// The (controller, recovery, SACK option) a registered name stands for.
    pub fn of(d: &VariantDef) -> Variant {
        Variant {
            cc: d.cc,
            recovery: d.recovery,
            sack: d.sack,
        }
    }

    pub fn uses_sack(&self) -> bool {
        self.sack
    }
}

/// Per-connection settings. Sizes in bytes.
///
/// Laid out in the order written (`repr(C)`): the fields a sender reads on
/// every ACK or transmission first, so that they share one cache line of
/// the sender (`SendCore`), the set-up parameters after.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct TcpConfig {
    /// Payload bytes per full segment (SMSS). Default 1460.
    pub mss: u32,
    /// TCP/IP header bytes on every packet. Default 40.
    pub header_bytes: u32,
    pub dupthresh: u32,
    /// At most this many segments per transmission opportunity outside a
    /// recovery (ns-2's `maxburst_`; 0: no limit).
    pub maxburst: u32,
    /// Send buffer: at most this many bytes sent and not acknowledged
    /// (Linux: `tcp_wmem[2]`). Default unlimited.
    pub send_buffer: u64,
    /// Cap on unacknowledged bytes (set by a split proxy's `third` policy).
    pub max_unacked: Option<u64>,
    pub variant: Variant,
    /// RFC 7323 timestamps: every segment carries its send time, the
    /// receiver echoes it, and every ACK of new data gives an RTT sample
    /// (retransmitted data too, so the back-off of a timeout ends with the
    /// first ACK of a retransmission). Default off; on in the Linux profile.
    pub timestamps: bool,
    /// Pace window-based controllers as Linux sets `sk_pacing_rate`:
    /// 200 % of cwnd/SRTT in slow start (below half of ssthresh), 120 %
    /// otherwise (`tcp_pacing_ss_ratio`, `tcp_pacing_ca_ratio`). A
    /// controller with its own rate (BBR) keeps it. Default off.
    pub pacing: bool,
    /// Grow cwnd only while the window is in use (Linux's
    /// `tcp_is_cwnd_limited`), and take a reduction's ssthresh from cwnd
    /// (Linux's `ssthresh` hook) rather than from FlightSize. Default off;
    /// on in the Linux profile.
    pub cwnd_validation: bool,
    /// RFC 3042 Limited Transmit: a new segment on each of the first two
    /// duplicate ACKs. Default off (the studies' era).
    pub limited_transmit: bool,
    /// RFC 5681 (4.1) restart after idle: before sending after more than one
    /// RTO without sending, cwnd = min(IW, cwnd). Default off (the studies'
    /// era; a file transfer or bulk source never idles); on in the "linux"
    /// profile (Linux's tcp_slow_start_after_idle).
    pub idle_restart: bool,
    /// Spurious-timeout detection and undo: F-RTO (RFC 5682, the SACK
    /// variant, as Linux's `tcp_frto = 2`) and, with timestamps, the Eifel
    /// test (RFC 3522: the ACK echoes a transmission older than the
    /// timeout's retransmission). Needs RACK. Default off; on in the Linux profile.
    pub frto: bool,
    /// RACK-TLP loss detection (RFC 8985) with the SACK scoreboard kept
    /// across a timeout; used by legs with RFC 6675 recovery (`sack`,
    /// `prr`) only. Default off (the studies' era); on in the Linux profile.
    pub rack: bool,
    /// Open the connection with a three-way handshake (SYN, SYN-ACK; the
    /// final ACK rides on the first data segment). Default off: the studies'
    /// simulator started data at once.
    pub handshake: bool,
    /// Byte counting (RFC 3465): slow start grows cwnd by the bytes each
    /// ACK newly delivers, congestion avoidance by one SMSS per cwnd of
    /// delivered bytes (Linux's `tcp_slow_start`, `tcp_cong_avoid_ai`),
    /// instead of one SMSS (or SMSS²/cwnd) per ACK. Default off; on in the
    /// Linux profile.
    pub byte_counting: bool,
    /// HyStart++ (RFC 9406) in CUBIC's slow start. Needs per-ACK RTT
    /// samples (timestamps). Default off; on in the Linux profile.
    pub hystart: bool,
    /// ns-2's NewReno deflates the window on a partial ACK
    /// (`partial_window_deflation_`).
    pub partial_window_deflation: bool,
    /// ns-2's NewReno inflates the window only in a fast recovery
    /// (`exitFastRetrans_`).
    pub exit_fast_retrans: bool,
    /// Initial slow-start threshold in bytes (default: effectively infinite).
    pub initial_ssthresh: u64,
    pub rto_initial: Dur,
    pub rto_min: Dur,
    pub rto_max: Dur,
    pub clock_granularity: Dur,
    /// Receive buffer of the receiving end host, bytes (its advertised window).
    pub rcv_buffer: u64,
    pub delayed_ack_timeout: Dur,
    /// Westwood (ABSE) estimator: the filter constant τ.
    pub westwood_tau: Dur,
    /// Hybla's reference round-trip time RTT0 (Caini & Firrincieli 2004: 25 ms).
    pub hybla_rtt0: Dur,
    /// ns-2's clock tick (`tcpTick_`): RTT samples and the RTO in whole
    /// ticks (`tcp/rtt/ns2.rs`); zero: RFC 6298's estimator.
    pub rtt_tick: Dur,
    /// AeroTCP's window allocation (used only by the `aerotcp` controller).
    pub aero: AeroAllocation,
    /// Initial window in segments (RFC 5681: 1 in the studies' era; 3 per RFC 3390, 10 per RFC 6928).
    pub initial_window: u32,
    /// SACK blocks per ACK (RFC 2018; 3 when timestamps are on, as in the studies).
    pub sack_blocks: u32,
    /// The receiver ACKs at least every this many full-sized segments with
    /// delayed ACKs (RFC 5681 (4.2): 2; OPNET's "Maximum ACK Segments").
    pub delayed_ack_segments: u32,
    pub delayed_ack: bool,
    /// Westwood (ABSE) estimator: what its filter takes as input.
    pub westwood_filter: FilterInput,
    /// Linux's RTO: SRTT + max(4·RTTVAR, rto_min) instead of RFC 6298's
    /// max(SRTT + 4·RTTVAR, rto_min). Default off; on in the "linux" profile.
    pub rttvar_floor: bool,
    /// With `rtt_tick`: `rto_min` before the back-off multiplies (RFC 2988,
    /// ns-2's `rfc2988_`), else after.
    pub rto_min_before_backoff: bool,
    /// Linux's receive-buffer autotuning (`tcp_rcv_space_adjust`,
    /// `tcp_grow_window`): the advertised window starts at
    /// `RCV_INITIAL_WINDOW` and grows with what arrives, up to `rcv_buffer`.
    /// Default off (the buffer is advertised whole); on in the Linux profile.
    pub rcv_autotune: bool,
}

/// How AeroTCP sets its congestion window (Shang 2007, chapter on flow
/// control): there is no slow start and no AIMD; the window is an
/// allocation of the satellite link's capacity, in whole packets of
/// `mss + header` bytes on the wire.
#[derive(Clone, Debug, Default)]
pub struct AeroAllocation {
    /// The fixed window in segments (static SatBW/N x SatRTT, one PRDP per
    /// connection, or given directly); with `adaptive`, the first window
    /// before the connection's first ACK.
    pub cwnd_segments: u32,
    /// Recompute the window from the connections currently open on the
    /// same satellite leg.
    pub adaptive: Option<AeroAdaptive>,
}

/// Adaptive allocation: per-connection rate from the number `n` of
/// connections open on the leg, times SatRTT.
#[derive(Clone, Debug)]
pub struct AeroAdaptive {
    pub sat_rtt: Dur,
    /// SatBW / n (bit/s), when `table` is empty.
    pub sat_bw_bps: u64,
    /// Target rate per connection (bit/s) with `n` connections open:
    /// `table[n - 1]`, the last entry beyond the end.
    pub table: Vec<u64>,
}

impl AeroAdaptive {
    /// The window in segments of `packet` wire bytes with `n` connections open.
    pub fn segments(&self, n: u32, packet: u64) -> u32 {
        let n = n.max(1);
        let rate = if self.table.is_empty() {
            self.sat_bw_bps / n as u64
        } else {
            self.table[(n as usize - 1).min(self.table.len() - 1)]
        };
        aero_segments(rate, self.sat_rtt, packet)
    }
}

/// Whole packets of `packet` bytes in `rate_bps` x `rtt` (rounded, at least 1).
pub fn aero_segments(rate_bps: u64, rtt: Dur, packet: u64) -> u32 {
    let bytes = rate_bps as f64 * rtt.as_secs_f64() / 8.0;
    ((bytes / packet.max(1) as f64).round() as u64).clamp(1, u32::MAX as u64) as u32
}

/// [`TcpConfig::table_defaults`] from the rows of `tcp/params.rs`: each
/// field the `match` of its row over the profile.
macro_rules! config_defaults {
    (plain { $(
        $(#[doc = $doc:literal])*
        $key:ident : $sty:ty => $field:ident : $cty:ty { $($p:pat => $v:expr),+ $(,)? } $range:expr;
    )* } special { $($special:tt)* }) => {
        impl TcpConfig {
            /// The defaults of `profile` as the table of `tcp/params.rs`
            /// gives them, before [`TcpConfig::finish`] ties them together
            /// (`mss` and `header_bytes` those of a segment without
            /// options), with the profile's default variant.
            pub fn table_defaults(profile: Profile) -> TcpConfig {
                #[allow(unused_imports)]
                use crate::tcp::params::row::*;
                #[allow(unused_imports)]
                use Profile::*;
                TcpConfig {
                    variant: Variant::of(profile.default_variant()),
                    max_unacked: None,
                    aero: AeroAllocation::default(),
                    $($field: match profile { $($p => $v,)+ },)*
                }
            }
        }
    };
}
tcp_params!(config_defaults!);

impl TcpConfig {
    /// What a connection of `profile` that sets nothing runs with: the
    /// table's defaults, tied together ([`TcpConfig::finish`]).
    pub fn for_profile(profile: Profile) -> TcpConfig {
        let mut c = TcpConfig::table_defaults(profile);
        c.finish(profile, None);
        c
    }

    /// What a current Linux host does (`tcp.profile = "linux"`): IW 10
    /// (RFC 6928), minimum RTO 200 ms (TCP_RTO_MIN) and maximum 120 s
    /// (TCP_RTO_MAX), delayed ACKs with the 40 ms minimum delayed-ACK
    /// timeout (TCP_DELACK_MIN), Limited Transmit (RFC 3042), timestamps,
    /// SACK with PRR recovery (RFC 6675, RFC 6937) for window-based
    /// controllers, and RACK-TLP loss detection (RFC 8985, Linux's default
    /// since 4.18) with the scoreboard kept across timeouts. The controller
    /// is CUBIC, the profile's default variant.
    pub fn linux() -> TcpConfig {
        TcpConfig::for_profile(Profile::Linux)
    }

    /// The resolutions that tie keys together, after the plain picks (and, by
    /// [`TcpConfig::for_profile`], on a profile's defaults): `recovery` (a
    /// `tcp.recovery` given, else `None`) and the host's pairing rewrite the
    /// variant; under "ns2" the recoveries are ns-2's agents and ssthresh
    /// starts at the receive window unless set; RACK runs only over the RFC
    /// 6675 scoreboard; F-RTO undoes a
    /// timeout's recovery that RACK runs; with timestamps the option takes 12
    /// bytes of every segment (`mss` and `header` are those of a segment
    /// without options).
    pub fn finish(&mut self, profile: Profile, recovery: Option<RecKind>) {
        let v = &mut self.variant;
        if profile.host_recovery() {
            // A Linux host recovers with SACK + PRR whatever the controller
            // (BBR keeps RFC 6675: it sets cwnd itself; AeroTCP its own
            // recovery). The controller is the one named: `reno`, `newreno`,
            // `sack` and `tahoe` are Reno AIMD, as Linux's "reno".
            if let Some(r) = v.cc.traits().host_recovery {
                v.recovery = r;
                v.sack = true;
            }
        }
        if let Some(r) = recovery {
            // PRR is defined over the RFC 6675 scoreboard: the SACK recoveries
            // turn the SACK option on, the others off.
            v.recovery = r;
            v.sack = r.sack_option();
        }
        if profile.ns2_agents() {
            // ns-2's Agent/TCP/Newreno and Agent/TCP/Sack1 (docs/ns2.md);
            // its ssthresh_ starts at window_, the receive window, unless set.
            v.recovery = v.recovery.ns2();
            if self.initial_ssthresh == UNLIMITED_SSTHRESH {
                self.initial_ssthresh = self.rcv_buffer;
            }
        }
        self.rack &= self.variant.sack && self.variant.recovery.scoreboard();
        self.frto &= self.rack;
        if self.timestamps {
            self.mss -= TIMESTAMP_OPTION_BYTES;
            self.header_bytes += TIMESTAMP_OPTION_BYTES;
        }
    }
}

/// The studies' era (`tcp.profile = "studies"`): NewReno, IW 1, a 1 s
/// minimum RTO, every segment acknowledged, none of Linux's mechanisms.
impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig::for_profile(Profile::Studies)
    }
}
