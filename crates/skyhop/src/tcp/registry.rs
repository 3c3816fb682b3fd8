//! The one place a congestion controller, a loss recovery or a TCP variant
//! name is registered. Adding a controller: its file in `tcp/cc/`, one line
//! in `controllers!`, and the variant names that use it in [`VARIANTS`].
//! Adding a recovery: its file in `tcp/recovery/`, one line in `recoveries!`.
//!
//! Each list is a macro that hands its lines to a generator: here `kinds!`
//! makes the name enums ([`CcKind`], [`RecKind`]) that `TcpConfig` names;
//! `tcp/cc/dispatch.rs` and `tcp/recovery/dispatch.rs` make the enums the
//! sender holds (`Cc`, `Rec`, static dispatch) and build them from a
//! `TcpConfig`. A line's type and constructor are resolved where the
//! dispatch enum is generated, so this file depends on no implementation,
//! and `tcp/config.rs` can name the kinds without depending on the
//! controllers (some of which read a `TcpConfig`).

/// Every congestion controller: `Variant(Type) = "name" => constructor`,
/// the constructor a `fn(&TcpConfig) -> Type`. `controllers!(gen! args)`
/// expands to `gen! { args <the lines> }`.
macro_rules! controllers {
    ($then:ident ! $($args:tt)*) => {
        $then! { $($args)*
            Reno(RenoCc) = "reno" => RenoCc::new,
            Westwood(Westwood) = "westwood" => |cfg| Westwood::new(cfg.westwood),
            // Casetti et al., MobiCom 2001, as UCLA's ns-2 agent (2001).
            Westwood2001(Westwood2001) = "westwood-2001" => |_| Westwood2001::default(),
            WestwoodPlus(WestwoodPlus) = "westwood+" => |_| WestwoodPlus::default(),
            // RFC 9438.
            Cubic(Cubic) = "cubic" => Cubic::new,
            // Caini & Firrincieli 2004, as Linux's tcp_hybla.c.
            Hybla(Hybla) = "hybla" => |cfg| Hybla::new(cfg.hybla_rtt0),
            // Cardwell et al. 2016; draft-cardwell-iccrg-bbr-congestion-control.
            Bbr(Bbr) = "bbr" => Bbr::new,
            // Shang 2007: the window is an allocation (no slow start, no AIMD).
            AeroTcp(AeroTcp) = "aerotcp" => AeroTcp::new,
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
            // until 2003-05-05), with partial window deflation (ns-2's
            // default from 2003-05-05).
            Ns2NewReno(Ns2NewRenoRecovery) = "ns2-newreno" => |_| Ns2NewRenoRecovery::new(true, true),
            Ns2NewRenoSbs(Ns2NewRenoRecovery) = "ns2-newreno-sbs" => |_| Ns2NewRenoRecovery::new(false, true),
            // ns-2's Agent/TCP/Sack1 (Fall and Floyd's pipe counting; needs SACK).
            Ns2Sack1(Ns2Sack1Recovery) = "ns2-sack1" => |_| Ns2Sack1Recovery::default(),
        }
    };
}
pub(crate) use recoveries;

/// A name enum from a list: one variant per line, its name, and parsing.
macro_rules! kinds {
    ($(#[$m:meta])* $kind:ident; $($v:ident($t:ty) = $name:literal => $make:expr),* $(,)?) => {
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

controllers!(kinds! /// Which built-in controller (by name in scenario files).
    CcKind;);
recoveries!(kinds! /// Which built-in recovery (by name).
    RecKind;);

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
