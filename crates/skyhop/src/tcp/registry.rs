//! The one place a congestion controller, a loss recovery or a TCP variant
//! name is registered (the TCP parameters have theirs: `tcp/params.rs`). Adding a controller: its file in `tcp/cc/`, one line
//! in `controllers!`, and the variant names that use it in [`VARIANTS`].
//! Adding a recovery: its file in `tcp/recovery/`, one line in `recoveries!`.
//!
//! Each list is a macro that hands its lines to a generator: here `kinds!`
//! makes the name enums ([`CcKind`], [`RecKind`]) that `TcpConfig` names,
//! and `traits_of!` [`CcKind::traits`] (a controller's [`CcTraits`]);
//! `tcp/cc/dispatch.rs` and `tcp/recovery/dispatch.rs` make the enums the
//! sender holds (`Cc`, `Rec`, static dispatch) and build them from a
//! `TcpConfig`. A line's type and constructor are resolved where the
//! dispatch enum is generated, so this file depends on no implementation,
//! and `tcp/config.rs` can name the kinds without depending on the
//! controllers (some of which read a `TcpConfig`).

/// Every congestion controller: `Variant(Type) = "name" => constructor;
/// traits`, the constructor a `fn(&TcpConfig) -> Type` and the traits a
/// [`CcTraits`] (what the plan and its warnings decide by controller).
/// `controllers!(gen! args)` expands to `gen! { args <the lines> }`.
macro_rules! controllers {
    ($then:ident ! $($args:tt)*) => {
        $then! { $($args)*
            Reno(RenoCc) = "reno" => RenoCc::new; CcTraits::STUDIES,
            Westwood(Westwood) = "westwood" => |cfg| Westwood::new(WestwoodParams {
                tau: cfg.westwood_tau,
                input: cfg.westwood_filter,
            }); CcTraits::STUDIES,
            // Casetti et al., MobiCom 2001, as UCLA's ns-2 agent (2001).
            Westwood2001(Westwood2001) = "westwood-2001" => |_| Westwood2001::default();
                CcTraits::STUDIES,
            WestwoodPlus(WestwoodPlus) = "westwood+" => |_| WestwoodPlus::default();
                CcTraits::STUDIES,
            // RFC 9438.
            Cubic(Cubic) = "cubic" => Cubic::new; CcTraits::TODAY,
            // Caini & Firrincieli 2004, as Linux's tcp_hybla.c.
            Hybla(Hybla) = "hybla" => |cfg| Hybla::new(cfg.hybla_rtt0); CcTraits::TODAY,
            // Cardwell et al. 2016; draft-cardwell-iccrg-bbr-congestion-control.
            // It sets cwnd itself on every ACK (Linux's cong_control hook
            // bypasses PRR): a Linux host runs it with plain RFC 6675.
            Bbr(Bbr) = "bbr" => Bbr::new; CcTraits {
                host_recovery: Some(RecKind::Sack),
                ..CcTraits::TODAY
            },
            // Shang 2007: the window is an allocation (no slow start, no
            // AIMD), with its own recovery on any host.
            AeroTcp(AeroTcp) = "aerotcp" => AeroTcp::new; CcTraits {
                host_recovery: None,
                allocation: true,
                ..CcTraits::STUDIES
            },
        }
    };
}
pub(crate) use controllers;

/// Every loss recovery, in the same form as [`controllers!`].
macro_rules! recoveries {
    ($then:ident ! $($args:tt)*) => {
        $then! { $($args)*
            Tahoe(TahoeRecovery) = "tahoe" => |_| TahoeRecovery,
            Reno(RenoRecovery) = "reno" => |_| RenoRecovery::default(),
            // RFC 6582 recommends Impatient; it is also the studies' default.
            NewReno(NewRenoRecovery) = "newreno" => |_| NewRenoRecovery::new(true),
            NewRenoSbs(NewRenoRecovery) = "newreno-sbs" => |_| NewRenoRecovery::new(false),
            Sack(SackRecovery) = "sack" => |_| SackRecovery::default(),
            // RFC 6937 PRR-SSRB over RFC 6675 (needs the SACK option).
            Prr(PrrRecovery) = "prr" => |_| PrrRecovery::default(),
            // Shang 2007: super fast error control on the first duplicate ACK.
            Aero(AeroRecovery) = "aero" => |_| AeroRecovery::default(),
            // ns-2's Agent/TCP/Newreno (the studies' simulator): Impatient
            // (newreno_changes1_ 1) or Slow-but-Steady (0, ns-2's default
            // until 2003-05-05), partial window deflation as
            // `tcp.partial_window_deflation` says (ns-2's default from
            // 2003-05-05).
            Ns2NewReno(Ns2NewRenoRecovery) = "ns2-newreno" =>
                |cfg| Ns2NewRenoRecovery::new(true, cfg.partial_window_deflation)
                    .exit_fast_retrans(cfg.exit_fast_retrans),
            Ns2NewRenoSbs(Ns2NewRenoRecovery) = "ns2-newreno-sbs" =>
                |cfg| Ns2NewRenoRecovery::new(false, cfg.partial_window_deflation)
                    .exit_fast_retrans(cfg.exit_fast_retrans),
            // ns-2's Agent/TCP/Sack1 (Fall and Floyd's pipe counting; needs SACK).
            Ns2Sack1(Ns2Sack1Recovery) = "ns2-sack1" => |_| Ns2Sack1Recovery::default(),
        }
    };
}
pub(crate) use recoveries;

/// A name enum from a list: one variant per line, its name, and parsing.
macro_rules! kinds {
    ($(#[$m:meta])* $kind:ident;
     $($v:ident($t:ty) = $name:literal => $make:expr $(; $traits:expr)?),* $(,)?) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $kind {
            $($v,)*
        }

        impl $kind {
            /// Every name, in registration order.
            pub const NAMES: &'static [&'static str] = &[$($name),*];
            pub fn name(self) -> &'static str {
                match self {
                    $($kind::$v => $name,)*
                }
            }
            pub fn parse(name: &str) -> Option<$kind> {
                match name {
                    $($name => Some($kind::$v),)*
                    _ => None,
                }
            }
        }
    };
}

/// When a controller, or a profile's defaults, come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// The published studies' (RFC 2581/6582/6675 hosts, ns-2, OPNET).
    Studies,
    /// A current host's (Linux).
    Today,
}

/// A controller's traits (the plan, its warnings and the host's pairing
/// read them; no `match` on the controller elsewhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcTraits {
    /// Whose controller: the studies' era's, or today's hosts'. Today's
    /// under the studies' defaults draw a warning (`plan/warnings.rs`).
    pub era: Era,
    /// The recovery a host that pairs recoveries with controllers (a
    /// profile with `host_recovery`: Linux) runs it with, the SACK option
    /// on; `None`: the variant's own.
    pub host_recovery: Option<RecKind>,
    /// The window is an allocation of the leg's capacity
    /// (`tcp.aero_allocation`), resolved against the leg's path.
    pub allocation: bool,
}

impl CcTraits {
    /// A controller of the studies' era (Reno, Westwood): Linux runs it
    /// with SACK + PRR.
    pub const STUDIES: CcTraits = CcTraits {
        era: Era::Studies,
        host_recovery: Some(RecKind::Prr),
        allocation: false,
    };
    /// Today's window-based controller (CUBIC, Hybla): SACK + PRR on Linux.
    pub const TODAY: CcTraits = CcTraits {
        era: Era::Today,
        ..CcTraits::STUDIES
    };
}

/// [`CcKind::traits`] from the list.
macro_rules! traits_of {
    ($($v:ident($t:ty) = $name:literal => $make:expr; $traits:expr),* $(,)?) => {
        impl CcKind {
            /// The controller's traits, from its line in [`controllers!`].
            pub fn traits(self) -> CcTraits {
                match self {
                    $(CcKind::$v => $traits,)*
                }
            }
        }
    };
}

controllers!(kinds! /// Which built-in controller (by name in scenario files).
    CcKind;);
recoveries!(kinds! /// Which built-in recovery (by name).
    RecKind;);
controllers!(traits_of!);

impl RecKind {
    /// The recovery works over the RFC 6675 SACK scoreboard (the SACK
    /// option on; RACK may run beside it).
    pub fn scoreboard(self) -> bool {
        matches!(self, RecKind::Sack | RecKind::Prr)
    }

    /// The recovery reads SACK blocks (the option on): the RFC 6675 ones
    /// and ns-2's Sack1.
    pub fn sack_option(self) -> bool {
        self.scoreboard() || self == RecKind::Ns2Sack1
    }

    /// The recovery as ns-2's agents run it (profile "ns2"): NewReno is
    /// `Agent/TCP/Newreno` (Impatient or Slow-but-Steady), RFC 6675 SACK
    /// is `Agent/TCP/Sack1`; the others stay.
    pub fn ns2(self) -> RecKind {
        match self {
            RecKind::NewReno => RecKind::Ns2NewReno,
            RecKind::NewRenoSbs => RecKind::Ns2NewRenoSbs,
            RecKind::Sack => RecKind::Ns2Sack1,
            other => other,
        }
    }
}

/// A TCP variant as scenarios name it: a controller, a recovery, and
/// whether the connection uses the SACK option (RFC 2018).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VariantDef {
    pub name: &'static str,
    pub cc: CcKind,
    pub recovery: RecKind,
    pub sack: bool,
}

const fn v(name: &'static str, cc: CcKind, recovery: RecKind, sack: bool) -> VariantDef {
    VariantDef {
        name,
        cc,
        recovery,
        sack,
    }
}

/// Every variant name accepted in scenario files.
pub const VARIANTS: &[VariantDef] = &[
    v("tahoe", CcKind::Reno, RecKind::Tahoe, false),
    v("reno", CcKind::Reno, RecKind::Reno, false),
    v("newreno", CcKind::Reno, RecKind::NewReno, false),
    v("newreno-impatient", CcKind::Reno, RecKind::NewReno, false),
    v("newreno-sbs", CcKind::Reno, RecKind::NewRenoSbs, false),
    v("sack", CcKind::Reno, RecKind::Sack, true),
    // The studies run Westwood with NewReno recovery.
    v("westwood", CcKind::Westwood, RecKind::NewReno, false),
    v("westwood+", CcKind::WestwoodPlus, RecKind::NewReno, false),
    // The Westwood the on-board split-proxy study cites (MobiCom 2001).
    v(
        "westwood-2001",
        CcKind::Westwood2001,
        RecKind::NewReno,
        false,
    ),
    v("westwood-sack", CcKind::Westwood, RecKind::Sack, true),
    v("westwood+-sack", CcKind::WestwoodPlus, RecKind::Sack, true),
    // Today's controllers, with the recovery a Linux host runs them with:
    // SACK + PRR for the window-based ones; BBR sets cwnd itself on every
    // ACK (Linux's cong_control hook bypasses PRR), so with plain RFC 6675.
    v("cubic", CcKind::Cubic, RecKind::Prr, true),
    v("hybla", CcKind::Hybla, RecKind::Prr, true),
    v("bbr", CcKind::Bbr, RecKind::Sack, true),
    // The satellite leg between two gateways (Shang 2007).
    v("aerotcp", CcKind::AeroTcp, RecKind::Aero, true),
];
