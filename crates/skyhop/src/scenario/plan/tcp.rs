//! A leg's TCP configuration: each option from the flow's `options`, else
//! `[tcp]`, else the default of the profile (`linux`, the default, or
//! `studies`); and an
//! `aerotcp` leg's window allocation, which needs the leg's path.
//!
//! The values are known to be in range (`validate.rs`); this only resolves.

use crate::engine::time::Dur;
use crate::scenario::schema::{
    AeroAllocationSection, AeroMode, Profile, Scenario, TcpOptions, WestwoodFilter,
};
use crate::tcp::cc::{FilterInput, WestwoodParams};
use crate::tcp::config::{aero_segments, AeroAdaptive, AeroAllocation};
use crate::tcp::{TcpConfig, Variant};

/// Bytes of the RFC 7323 timestamp option in every segment (10, padded to 12).
pub const TIMESTAMP_OPTION_BYTES: u32 = 12;

/// Resolve a flow's TCP options: flow value, then `[tcp]`, then the
/// default of the flow's profile (`Profile::of`). `variant` is the one the
/// flow names, or the profile's default (`Profile::default_variant`).
pub(super) fn tcp_config(scn: &Scenario, o: &TcpOptions, variant: Variant) -> TcpConfig {
    let g = &scn.tcp;
    let linux = Profile::of(o, g) == Profile::Linux;
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
        // A Linux host recovers with what it pairs with each controller
        // (its `host_recovery` in `tcp/registry.rs`): SACK + PRR, BBR plain
        // RFC 6675 (it sets cwnd itself), AeroTCP its own recovery. The
        // controller is the one named: `reno`, `newreno`, `sack` and
        // `tahoe` are Reno AIMD, as Linux's "reno".
        if let Some(r) = variant.cc.traits().host_recovery {
            variant.recovery = r;
            variant.sack = true;
        }
    }
    if let Some(r) = o.recovery.or(g.recovery) {
        // PRR is defined over the RFC 6675 scoreboard: both SACK recoveries
        // turn the SACK option on, the others off.
        variant.recovery = r.0;
        variant.sack = variant.recovery.scoreboard();
    }
    // RACK works over the RFC 6675 scoreboard: other recoveries ignore it.
    let rack = pick!(rack).unwrap_or(d.rack) && variant.sack && variant.recovery.scoreboard();
    // `mss` and `header` are those of a segment without options; RFC 7323
    // timestamps take 12 bytes of each (payload 12 B less, header 12 B more).
    let timestamps = pick!(timestamps).unwrap_or(d.timestamps);
    let base = TcpConfig::default();
    let mss = pick!(mss).map_or(base.mss, |s| s.0 as u32);
    let header = pick!(header).map_or(base.header_bytes, |s| s.0 as u32);
    let (mss, header) = if timestamps {
        (
            mss - TIMESTAMP_OPTION_BYTES,
            header + TIMESTAMP_OPTION_BYTES,
        )
    } else {
        (mss, header)
    };
    TcpConfig {
        variant,
        rack,
        limited_transmit: pick!(limited_transmit).unwrap_or(d.limited_transmit),
        idle_restart: pick!(idle_restart).unwrap_or(d.idle_restart),
        rttvar_floor: pick!(rttvar_floor).unwrap_or(d.rttvar_floor),
        hybla_rtt0: pick!(hybla_rtt0).map_or(d.hybla_rtt0, |x| x.0),
        // Resolved per leg (it needs the leg's rate and round trip): aero_allocation.
        aero: d.aero.clone(),
        mss,
        header_bytes: header,
        timestamps,
        // F-RTO undoes a timeout's recovery that RACK runs.
        frto: pick!(frto).unwrap_or(d.frto) && rack,
        hystart: pick!(hystart).unwrap_or(d.hystart),
        byte_counting: pick!(byte_counting).unwrap_or(d.byte_counting),
        cwnd_validation: pick!(cwnd_validation).unwrap_or(d.cwnd_validation),
        pacing: pick!(pacing).unwrap_or(d.pacing),
        delayed_ack_segments: pick!(delayed_ack_segments).unwrap_or(d.delayed_ack_segments),
        rcv_autotune: pick!(rcv_autotune).unwrap_or(d.rcv_autotune),
        send_buffer: pick!(send_buffer).map_or(d.send_buffer, |s| s.0),
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
