//! The recovery enum the sender holds: one variant per line of
//! `recoveries!` in `tcp/registry.rs` (static dispatch of every hook), its
//! constructor from a `TcpConfig`, and `Custom` for a recovery from user code.

use super::{
    AeroRecovery, NewRenoRecovery, Ns2NewRenoRecovery, Ns2Sack1Recovery, PrrRecovery, RecoveryOps,
    RenoRecovery, SackRecovery, TahoeRecovery,
};
use crate::engine::time::Time;
use crate::tcp::cc::AckSample;
use crate::tcp::config::TcpConfig;
use crate::tcp::registry::{recoveries, RecKind};
use crate::tcp::seg::DataSeg;
use crate::tcp::send_core::SendCore;

/// Generates [`Rec`] from the list.
macro_rules! recovery_enum {
    ($($v:ident($t:ty) = $name:literal => $make:expr),* $(,)?) => {
        /// The loss recoveries skyhop offers.
        pub enum Rec {
            $($v($t),)*
            Custom(Box<dyn RecoveryOps>),
        }

        impl Rec {
            pub fn build(kind: RecKind, cfg: &TcpConfig) -> Rec {
                match kind {
                    $(RecKind::$v => {
                        let make: fn(&TcpConfig) -> $t = $make;
                        Rec::$v(make(cfg))
                    })*
                }
            }
        }

        impl std::fmt::Debug for Rec {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $(Rec::$v(_) => f.write_str($name),)*
                    Rec::Custom(_) => f.write_str("custom"),
                }
            }
        }

        impl RecoveryOps for Rec {
            #[inline]
            fn in_recovery(&self) -> bool {
                match self {
                    $(Rec::$v(r) => r.in_recovery(),)*
                    Rec::Custom(r) => r.in_recovery(),
                }
            }
            #[inline]
            fn on_dupack(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) {
                match self {
                    $(Rec::$v(r) => r.on_dupack(s, now, a, out),)*
                    Rec::Custom(r) => r.on_dupack(s, now, a, out),
                }
            }
            #[inline]
            fn on_new_ack(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) -> bool {
                match self {
                    $(Rec::$v(r) => r.on_new_ack(s, now, a, out),)*
                    Rec::Custom(r) => r.on_new_ack(s, now, a, out),
                }
            }
            #[inline]
            fn transmit(&mut self, s: &mut SendCore, now: Time, out: &mut Vec<DataSeg>) -> bool {
                match self {
                    $(Rec::$v(r) => r.transmit(s, now, out),)*
                    Rec::Custom(r) => r.transmit(s, now, out),
                }
            }
            #[inline]
            fn on_cum_ack(&mut self, ack: u64) {
                match self {
                    $(Rec::$v(r) => r.on_cum_ack(ack),)*
                    Rec::Custom(r) => r.on_cum_ack(ack),
                }
            }
            fn on_timer_in_recovery(&mut self, s: &mut SendCore, now: Time, out: &mut Vec<DataSeg>) -> bool {
                match self {
                    $(Rec::$v(r) => r.on_timer_in_recovery(s, now, out),)*
                    Rec::Custom(r) => r.on_timer_in_recovery(s, now, out),
                }
            }
            fn in_rto_recovery(&self) -> bool {
                match self {
                    $(Rec::$v(r) => r.in_rto_recovery(),)*
                    Rec::Custom(r) => r.in_rto_recovery(),
                }
            }
            fn timeout_basis(&self, s: &SendCore, flight: u64) -> u64 {
                match self {
                    $(Rec::$v(r) => r.timeout_basis(s, flight),)*
                    Rec::Custom(r) => r.timeout_basis(s, flight),
                }
            }
            fn on_rto(&mut self, snd_una: u64) {
                match self {
                    $(Rec::$v(r) => r.on_rto(snd_una),)*
                    Rec::Custom(r) => r.on_rto(snd_una),
                }
            }
            fn on_rack_loss(&mut self, s: &mut SendCore, now: Time, a: &AckSample, out: &mut Vec<DataSeg>) {
                match self {
                    $(Rec::$v(r) => r.on_rack_loss(s, now, a, out),)*
                    Rec::Custom(r) => r.on_rack_loss(s, now, a, out),
                }
            }
            fn on_rto_keep_sack(&mut self, s: &mut SendCore, now: Time) -> bool {
                match self {
                    $(Rec::$v(r) => r.on_rto_keep_sack(s, now),)*
                    Rec::Custom(r) => r.on_rto_keep_sack(s, now),
                }
            }
        }
    };
}

recoveries!(recovery_enum!);
