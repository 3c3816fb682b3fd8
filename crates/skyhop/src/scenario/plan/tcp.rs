//! A leg's TCP configuration: each key of the table (`tcp/params.rs`)
//! from the flow's `options`, else `[tcp]`, else the default of the
//! profile (`linux`, the default, or `studies`), tied together by
//! `TcpConfig::finish`; and an `aerotcp` leg's window allocation, which
//! needs the leg's path.
//!
//! The values are known to be in range (`validate.rs`); this only resolves.

use crate::engine::time::Dur;
use crate::scenario::schema::{AeroAllocationSection, AeroMode, Scenario, TcpOptions, VariantName};
use crate::tcp::config::{aero_segments, AeroAdaptive, AeroAllocation};
use crate::tcp::params::{tcp_params, Param};
use crate::tcp::TcpConfig;

/// `picked`: every plain row of the table, flow > `[tcp]` > `d`.
macro_rules! picks {
    (plain { $(
        $(#[doc = $doc:literal])*
        $key:ident : $sty:ty => $field:ident : $cty:ty { $($p:pat => $v:expr),+ $(,)? } $range:expr;
    )* } special { $($special:tt)* }) => {
        /// The plain keys: the flow's value, else `[tcp]`'s, else `d`'s.
        fn picked(o: &TcpOptions, g: &TcpOptions, d: TcpConfig) -> TcpConfig {
            #[allow(unused_imports)]
            use crate::tcp::params::row::*;
            TcpConfig {
                $($field: o.$key.or(g.$key).map_or(d.$field, <$sty as Param<$cty>>::to_config),)*
                ..d
            }
        }
    };
}
tcp_params!(picks!);

/// Resolve a flow's TCP options: flow value, then `[tcp]`, then the
/// default of the flow's profile. `variant` is the one the flow names, or
/// the profile's default (`Profile::default_variant`).
pub(super) fn tcp_config(scn: &Scenario, o: &TcpOptions, variant: VariantName) -> TcpConfig {
    let g = &scn.tcp;
    let profile = o.profile_under(g);
    let mut cfg = picked(o, g, TcpConfig::table_defaults(profile));
    cfg.variant = variant.variant();
    // `aero`: resolved per leg (it needs the leg's rate and round trip).
    cfg.finish(profile, o.recovery.or(g.recovery).map(|r| r.0));
    cfg
}

/// The minimum RTO of a flow that sets no option (`[tcp]`, else its
/// profile's default).
pub(super) fn default_rto_min(scn: &Scenario) -> Dur {
    let none = TcpOptions::default();
    let profile = none.profile_under(&scn.tcp);
    picked(&none, &scn.tcp, TcpConfig::table_defaults(profile)).rto_min
}

/// The allocation section an `aerotcp` leg of a flow uses (the flow's, else
/// `[tcp]`'s, else the defaults) and its key.
pub(super) fn aero_section<'a>(
    scn: &'a Scenario,
    flow: &str,
    o: &'a TcpOptions,
) -> (std::borrow::Cow<'a, AeroAllocationSection>, String) {
    use std::borrow::Cow;
    match (&o.aero_allocation, &scn.tcp.aero_allocation) {
        (Some(a), _) => (
            Cow::Borrowed(a),
            format!("flows.{flow}.options.aero_allocation"),
        ),
        (None, Some(a)) => (Cow::Borrowed(a), "tcp.aero_allocation".to_string()),
        (None, None) => (
            Cow::Owned(AeroAllocationSection::default()),
            "tcp.aero_allocation".to_string(),
        ),
    }
}

/// Resolve an `aerotcp` leg's allocation into a window (or an adaptive
/// rule). `bottleneck_bps` and `rtt` are the leg's defaults for SatBW and
/// SatRTT; `Err((key within the section, message))` when a default leaves
/// the allocation empty (a path without delay).
pub(super) fn aero_allocation(
    a: &AeroAllocationSection,
    bottleneck_bps: u64,
    rtt: Dur,
    cfg: &TcpConfig,
) -> Result<AeroAllocation, (&'static str, String)> {
    let packet = cfg.mss as u64 + cfg.header_bytes as u64;
    let sat_rtt = a.sat_rtt.map_or(rtt, |d| d.0);
    if sat_rtt == Dur::ZERO {
        return Err((
            "sat_rtt",
            "the satellite round trip must be positive (the leg's path has no delay: give sat_rtt)"
                .into(),
        ));
    }
    let sat_bw = a.sat_bw.map_or(bottleneck_bps, |r| r.0);
    let n = a.n.unwrap_or(1);
    let mut out = AeroAllocation::default();
    match a.mode.unwrap_or(AeroMode::Static) {
        AeroMode::Prdp => {
            let pr = a.peak_rate.expect("checked: prdp has a peak rate");
            out.cwnd_segments = aero_segments(pr.0, sat_rtt, packet);
        }
        AeroMode::Window => out.cwnd_segments = a.window.expect("checked: window has a window"),
        mode @ (AeroMode::Adaptive | AeroMode::Table) => {
            let table: Vec<u64> = match (mode, &a.rates) {
                (AeroMode::Table, Some(r)) => r.iter().map(|x| x.0).collect(),
                _ => Vec::new(),
            };
            let ad = AeroAdaptive {
                sat_rtt,
                sat_bw_bps: sat_bw,
                table,
            };
            // The first window, before the connection's first ACK: as if
            // `n` (the maximum) connections were open.
            out.cwnd_segments = ad.segments(n, packet);
            out.adaptive = Some(ad);
        }
        AeroMode::Static => out.cwnd_segments = aero_segments(sat_bw / n as u64, sat_rtt, packet),
    }
    Ok(out)
}
