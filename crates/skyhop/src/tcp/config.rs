//! Parameters of one TCP connection (one leg of a flow). Scenario files
//! set them through `[tcp]` and `flows.<id>.options`; defaults are documented
//! in docs/scenario.md and chosen to match the studies' era.

use crate::engine::time::Dur;
use crate::tcp::cc::WestwoodParams;

/// Which loss recovery the sender runs (RFC 5681 / 6582 / 6675).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryKind {
    /// Fast retransmit, then slow start from one segment with go-back-N.
    Tahoe,
    /// Fast retransmit and fast recovery; leaves recovery on any new ACK.
    Reno,
    /// RFC 6582 partial-ACK recovery. `impatient`: the RTO is reset only on
    /// the first partial ACK; otherwise (Slow-but-Steady) on every one.
    NewReno { impatient: bool },
    /// RFC 6675 SACK-based recovery (scoreboard and pipe).
    Sack,
}

/// Which congestion controller sets the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcKind {
    Reno,
    Westwood,
    WestwoodPlus,
}

/// A TCP variant as named in scenarios: controller + recovery (+ SACK option).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    pub cc: CcKind,
    pub recovery: RecoveryKind,
}

impl Variant {
    /// Names accepted in scenario files.
    pub const NAMES: &'static [&'static str] = &[
        "tahoe",
        "reno",
        "newreno",
        "newreno-impatient",
        "newreno-sbs",
        "sack",
        "westwood",
        "westwood+",
        "westwood-sack",
        "westwood+-sack",
    ];

    pub fn parse(name: &str) -> Option<Variant> {
        use RecoveryKind::{NewReno, Sack, Tahoe};
        let nr = NewReno { impatient: true };
        let reno = CcKind::Reno;
        Some(match name {
            "tahoe" => Variant {
                cc: reno,
                recovery: Tahoe,
            },
            "reno" => Variant {
                cc: reno,
                recovery: RecoveryKind::Reno,
            },
            // RFC 6582 recommends Impatient; it is also the studies' default.
            "newreno" | "newreno-impatient" => Variant {
                cc: reno,
                recovery: nr,
            },
            "newreno-sbs" => Variant {
                cc: reno,
                recovery: NewReno { impatient: false },
            },
            "sack" => Variant {
                cc: reno,
                recovery: Sack,
            },
            // The studies run Westwood with NewReno recovery.
            "westwood" => Variant {
                cc: CcKind::Westwood,
                recovery: nr,
            },
            "westwood+" => Variant {
                cc: CcKind::WestwoodPlus,
                recovery: nr,
            },
            "westwood-sack" => Variant {
                cc: CcKind::Westwood,
                recovery: Sack,
            },
            "westwood+-sack" => Variant {
                cc: CcKind::WestwoodPlus,
                recovery: Sack,
            },
            _ => return None,
        })
    }

    pub fn uses_sack(&self) -> bool {
        self.recovery == RecoveryKind::Sack
    }
}

/// Per-connection settings. Sizes in bytes.
#[derive(Clone, Debug)]
pub struct TcpConfig {
    pub variant: Variant,
    /// Payload bytes per full segment (SMSS). Default 1460.
    pub mss: u32,
    /// TCP/IP header bytes on every packet. Default 40.
    pub header_bytes: u32,
    /// Initial window in segments (RFC 5681: 1 in the studies' era; 3 per RFC 3390, 10 per RFC 6928).
    pub initial_window: u32,
    /// Initial slow-start threshold in bytes (default: effectively infinite).
    pub initial_ssthresh: u64,
    pub rto_initial: Dur,
    pub rto_min: Dur,
    pub rto_max: Dur,
    pub clock_granularity: Dur,
    pub dupthresh: u32,
    /// Receive buffer of the receiving end host, bytes (its advertised window).
    pub rcv_buffer: u64,
    /// SACK blocks per ACK (RFC 2018; 3 when timestamps are on, as in the studies).
    pub sack_blocks: u32,
    pub delayed_ack: bool,
    pub delayed_ack_timeout: Dur,
    /// Cap on unacknowledged bytes (set by a split proxy's `third` policy).
    pub max_unacked: Option<u64>,
    /// Westwood (ABSE) estimator settings.
    pub westwood: WestwoodParams,
    /// Open the connection with a three-way handshake (SYN, SYN-ACK; the
    /// final ACK rides on the first data segment). Default off: the studies'
    /// simulator started data at once.
    pub handshake: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            variant: Variant::parse("newreno").unwrap(),
            mss: 1460,
            header_bytes: 40,
            initial_window: 1,
            initial_ssthresh: u64::MAX / 4,
            rto_initial: Dur::from_secs(1),
            rto_min: Dur::from_secs(1),
            rto_max: Dur::from_secs(60),
            clock_granularity: Dur::from_millis(1),
            dupthresh: 3,
            rcv_buffer: 4_000_000,
            sack_blocks: 3,
            delayed_ack: false,
            delayed_ack_timeout: Dur::from_millis(200),
            max_unacked: None,
            westwood: WestwoodParams::default(),
            handshake: false,
        }
    }
}
