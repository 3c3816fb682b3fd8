//! A leg's TCP configuration: each option from the flow's `options`, else
//! `[tcp]`, else the default of the profile (`studies` or `linux`); and an
//! `aerotcp` leg's window allocation, which needs the leg's path.
//!
//! The values are known to be in range (`validate.rs`); this only resolves.

use crate::engine::time::Dur;
use crate::scenario::schema::{
    AeroAllocationSection, AeroMode, Profile, Scenario, TcpOptions, WestwoodFilter,
};
use crate::tcp::cc::{FilterInput, WestwoodParams};
use crate::tcp::config::{aero_segments, AeroAdaptive, AeroAllocation};
use crate::tcp::{CcKind, RecKind, TcpConfig, Variant};

/// Resolve a flow's TCP options: flow value, then `[tcp]`, then the default.
pub(super) fn tcp_config(scn: &Scenario, o: &TcpOptions, variant: Variant) -> TcpConfig {
    let g = &scn.tcp;
    let linux = o.profile.or(g.profile) == Some(Profile::Linux);
    let d = if linux {
        TcpConfig::linux()
    } else {
        TcpConfig::default()
    };
    macro_rules! pick {
        ($f:ident) => {
            o.$f.or(g.$f)
        };
    }
    let mut variant = variant;
    if linux {
        // A Linux host: the default variant means the host's default
        // controller, CUBIC; every window-based controller recovers with
        // SACK + PRR, as Linux does (BBR keeps RFC 6675: it sets cwnd itself).
        if Variant::parse("newreno") == Some(variant) {
            variant = d.variant;
        }
        if variant.cc != CcKind::Bbr {
            variant.recovery = RecKind::Prr;
        }
        variant.sack = true;
    }
    if let Some(r) = o.recovery.or(g.recovery) {
        // PRR is defined over the RFC 6675 scoreboard: both SACK recoveries
        // turn the SACK option on, the others off.
        variant.recovery = r.0;
        variant.sack = matches!(variant.recovery, RecKind::Sack | RecKind::Prr);
    }
    // RACK works over the RFC 6675 scoreboard: other recoveries ignore it.
    let rack = pick!(rack).unwrap_or(d.rack)
        && variant.sack
        && matches!(variant.recovery, RecKind::Sack | RecKind::Prr);
    TcpConfig {
        variant,
        rack,
        limited_transmit: pick!(limited_transmit).unwrap_or(d.limited_transmit),
        idle_restart: pick!(idle_restart).unwrap_or(d.idle_restart),
        rttvar_floor: pick!(rttvar_floor).unwrap_or(d.rttvar_floor),
        hybla_rtt0: pick!(hybla_rtt0).map_or(d.hybla_rtt0, |x| x.0),
        // Resolved per leg (it needs the leg's rate and round trip): aero_allocation.
        aero: d.aero.clone(),
        mss: pick!(mss).map_or(d.mss, |s| s.0 as u32),
        header_bytes: pick!(header).map_or(d.header_bytes, |s| s.0 as u32),
        initial_window: pick!(initial_window).unwrap_or(d.initial_window),
        initial_ssthresh: pick!(initial_ssthresh).map_or(d.initial_ssthresh, |s| s.0),
        rto_initial: pick!(rto_initial).map_or(d.rto_initial, |x| x.0),
        rto_min: pick!(rto_min).map_or(d.rto_min, |x| x.0),
        rto_max: pick!(rto_max).map_or(d.rto_max, |x| x.0),
        clock_granularity: pick!(clock_granularity).map_or(d.clock_granularity, |x| x.0),
        dupthresh: pick!(dupthresh).unwrap_or(d.dupthresh),
        rcv_buffer: pick!(rcv_buffer).map_or(d.rcv_buffer, |s| s.0),
        sack_blocks: pick!(sack_blocks).unwrap_or(d.sack_blocks),
        delayed_ack: pick!(delayed_ack).unwrap_or(d.delayed_ack),
        delayed_ack_timeout: pick!(delayed_ack_timeout).map_or(d.delayed_ack_timeout, |x| x.0),
        max_unacked: None,
        handshake: pick!(handshake).unwrap_or(d.handshake),
        cwnd_validation: d.cwnd_validation,
        timestamps: d.timestamps,
        frto: d.frto,
        hystart: d.hystart,
        byte_counting: d.byte_counting,
        pacing: d.pacing,
        delayed_ack_segments: d.delayed_ack_segments,
        rcv_autotune: d.rcv_autotune,
        send_buffer: d.send_buffer,
        westwood: WestwoodParams {
            tau: pick!(westwood_tau).map_or(d.westwood.tau, |x| x.0),
            input: match pick!(westwood_filter) {
                Some(WestwoodFilter::LatestSample) => FilterInput::LatestSample,
                Some(WestwoodFilter::IntervalMean) => FilterInput::IntervalMean,
                Some(WestwoodFilter::Trapezoid) | None => FilterInput::Trapezoid,
            },
        },
    }
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
