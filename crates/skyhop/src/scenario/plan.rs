//! From a deserialised [`Scenario`] to a resolved, validated [`Plan`]:
//! node indices, link directions with their parameters, routes, TCP legs and
//! proxies. Every semantic check lives here, so a scenario that loads will build.

use super::schema::*;
use crate::app::{AppSpec, Http, WebSpec};
use crate::channel::{ApplyTo, ChannelSpec, HopGeometry};
use crate::engine::time::Dur;
use crate::error::ScenarioError;
use crate::net::{LinkDirSpec, LinkLayerSpec};
use crate::pep::ProxyPolicy;
use crate::tcp::cc::{FilterInput, WestwoodParams};
use crate::tcp::{RecKind, TcpConfig, Variant};
use crate::units::Size;
use std::collections::{BTreeMap, VecDeque};

/// One link: its two directions are `links[2k]` (forward) and `links[2k+1]`.
pub struct PlanLayer {
    pub name: String,
    pub spec: LinkLayerSpec,
}

/// A sender built by user code for a leg (tests of the controller and
/// recovery seams, extensions).
#[derive(Clone)]
pub struct SenderFactory(
    pub std::sync::Arc<dyn Fn(TcpConfig) -> crate::tcp::TcpSender + Send + Sync>,
);

pub struct PlanLeg {
    /// Node indices of the leg's path.
    pub path: Vec<u32>,
    /// Build the leg's sender with this instead of the variant's registry entry.
    pub make_sender: Option<SenderFactory>,
    pub variant_name: String,
    pub cfg: TcpConfig,
    /// Link directions from the leg's sender to its receiver, and back.
    pub fwd: Vec<u32>,
    pub rev: Vec<u32>,
}

#[derive(Clone)]
pub struct PlanProxy {
    pub node: u32,
    pub policy: ProxyPolicy,
    /// Cache (half-free, third) or receive buffer (buffers), bytes.
    pub cache_bytes: u64,
    /// `buffers` policy: send buffer of the outgoing leg.
    pub send_buffer: u64,
    pub ack_after_forward: bool,
}

pub struct PlanFlow {
    pub name: String,
    pub start: Dur,
    pub size: FlowSize,
    /// The application driving the flow.
    pub app: AppSpec,
    pub path: Vec<u32>,
    pub legs: Vec<PlanLeg>,
    pub proxies: Vec<PlanProxy>,
}

pub struct Plan {
    pub nodes: Vec<String>,
    /// Link directions; link `k` is `links[2k]` (forward) and `links[2k+1]` (reverse).
    pub links: Vec<LinkDirSpec>,
    /// Link layers, one per link (both directions).
    pub layers: Vec<PlanLayer>,
    pub flows: Vec<PlanFlow>,
    pub duration: Dur,
    pub event_budget: u64,
    pub warnings: Vec<String>,
}

/// Resolve a web table: the spec and its warnings, or the offending key
/// (within the table) and why.
fn web_spec(sec: &WebSection) -> Result<(WebSpec, Vec<String>), (&'static str, String)> {
    let d = WebSpec::default();
    let mut warns = Vec::new();
    let http = match sec.http.as_ref().map(|h| h.text()).as_deref() {
        None | Some("1.1") => {
            if let Some(k) = sec.parallel {
                // Not an error: a sweep over `http` keeps one table.
                warns.push(format!(
                    "parallel = {k} applies to HTTP/1.0 only; HTTP/1.1 uses one persistent connection"
                ));
            }
            Http::V11
        }
        Some("1.0") => match sec.parallel.unwrap_or(4) {
            0 => return Err(("parallel", "must be at least 1".into())),
            k => Http::V10 { parallel: k },
        },
        Some(o) => return Err(("http", format!("{o:?} is not one of \"1.0\", \"1.1\""))),
    };
    let positive = |k: &'static str, v: Option<f64>, dflt: f64| match v {
        Some(x) if !(x.is_finite() && x > 0.0) => {
            Err((k, format!("{x} must be a positive number")))
        }
        Some(x) => Ok(x),
        None => Ok(dflt),
    };
    let bytes = |k: &'static str, v: Option<Size>| match v {
        Some(Size(0)) => Err((k, "must be at least 1 B".to_string())),
        v => Ok(v.map(|s| s.0)),
    };
    if sec.pages == Some(0) {
        return Err(("pages", "must be at least 1".into()));
    }
    let reply_alpha = positive("reply_alpha", sec.reply_alpha, d.reply_alpha)?;
    let think_alpha = positive("think_alpha", sec.think_alpha, d.think_alpha)?;
    let think_k_s = match sec.think_k {
        Some(t) if t.0 == Dur::ZERO => return Err(("think_k", "must be positive".into())),
        Some(t) => t.0.as_secs_f64(),
        None => d.think_k_s,
    };
    let request_p_large = match sec.request_p_large {
        Some(p) if !(0.0..=1.0).contains(&p) => {
            return Err((
                "request_p_large",
                format!("{p} is not a probability in [0, 1]"),
            ))
        }
        Some(p) => p,
        None => d.request_p_large,
    };
    let request_spread = match sec.request_spread {
        Some(x) if !(x.is_finite() && x >= 0.0) => {
            return Err(("request_spread", format!("{x} must be zero or positive")))
        }
        Some(x) => x,
        None => d.request_spread,
    };
    let inline_mean = match sec.inline_mean {
        Some(x) if !(x.is_finite() && x >= 0.0) => {
            return Err(("inline_mean", format!("{x} must be zero or positive")))
        }
        Some(x) => x,
        None => d.inline_mean,
    };
    let inline_sd = positive("inline_sd", sec.inline_sd, d.inline_sd)?;
    let spec = WebSpec {
        http,
        pages: sec.pages,
        object_size: bytes("object_size", sec.object_size)?,
        request_size: bytes("request_size", sec.request_size)?,
        request_small: bytes("request_small", sec.request_small)?
            .map_or(d.request_small, |b| b as f64),
        request_large: bytes("request_large", sec.request_large)?
            .map_or(d.request_large, |b| b as f64),
        request_p_large,
        request_spread,
        reply_alpha,
        reply_k: bytes("reply_k", sec.reply_k)?.map_or(d.reply_k, |b| b as f64),
        reply_max: bytes("reply_max", sec.reply_max)?,
        inline_mean,
        inline_sd,
        think_alpha,
        think_k_s,
        handshake: sec.handshake.unwrap_or(d.handshake),
    };
    if let (Some(m), k) = (spec.reply_max, spec.reply_k) {
        if (m as f64) < k {
            return Err(("reply_max", format!("{m} B is below reply_k ({k} B)")));
        }
    }
    if spec.object_size.is_none() && spec.reply_alpha <= 1.0 && spec.reply_max.is_none() {
        warns.push(format!(
            "reply_alpha = {} gives reply sizes of infinite mean; mean goodput and page times will not converge (set reply_max to cap them)",
            spec.reply_alpha
        ));
    }
    if spec.pages != Some(1) && spec.think_alpha <= 1.0 {
        warns.push(format!(
            "think_alpha = {} gives think times of infinite mean",
            spec.think_alpha
        ));
    }
    Ok((spec, warns))
}

const DEFAULT_QUEUE: u32 = 50;
const DEFAULT_CACHE_PACKETS: u64 = 200;

fn err(file: &str, key: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
    ScenarioError::new(file, key, msg)
}

fn check_prob(file: &str, key: &str, v: Option<f64>) -> Result<(), ScenarioError> {
    if let Some(p) = v {
        if !(0.0..1.0).contains(&p) || p.is_nan() {
            return Err(err(
                file,
                key,
                format!("{p} is not a probability in [0, 1)"),
            ));
        }
    }
    Ok(())
}

/// Resolve a flow's TCP options: flow value, then `[tcp]`, then the default.
fn tcp_config(scn: &Scenario, o: &TcpOptions, variant: Variant) -> TcpConfig {
    let g = &scn.tcp;
    let linux = o.profile.as_deref().or(g.profile.as_deref()) == Some("linux");
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
        if variant.cc != crate::tcp::CcKind::Bbr {
            variant.recovery = RecKind::Prr;
        }
        variant.sack = true;
    }
    if let Some(r) = o.recovery.as_deref().or(g.recovery.as_deref()) {
        // Checked by check_tcp. PRR is defined over the RFC 6675 scoreboard:
        // both SACK recoveries turn the SACK option on, the others off.
        variant.recovery = RecKind::parse(r).expect("checked recovery name");
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
        // Resolved per leg (it needs the leg's rate and round trip): resolve_aero.
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
        westwood: WestwoodParams {
            tau: pick!(westwood_tau).map_or(d.westwood.tau, |x| x.0),
            input: match o
                .westwood_filter
                .as_deref()
                .or(g.westwood_filter.as_deref())
            {
                Some("latest-sample") => FilterInput::LatestSample,
                Some("interval-mean") => FilterInput::IntervalMean,
                _ => FilterInput::Trapezoid,
            },
        },
    }
}

fn check_tcp(file: &str, prefix: &str, o: &TcpOptions) -> Result<(), ScenarioError> {
    let k = |f: &str| format!("{prefix}.{f}");
    if let Some(m) = o.mss {
        if m.0 == 0 || m.0 > 65_000 {
            return Err(err(
                file,
                k("mss"),
                format!("{m} must be between 1 B and 65000 B"),
            ));
        }
    }
    if o.initial_window == Some(0) {
        return Err(err(file, k("initial_window"), "must be at least 1 segment"));
    }
    if o.dupthresh == Some(0) {
        return Err(err(file, k("dupthresh"), "must be at least 1"));
    }
    if let Some(b) = o.sack_blocks {
        if b > crate::tcp::seg::MAX_SACK_BLOCKS as u32 {
            return Err(err(
                file,
                k("sack_blocks"),
                format!("{b} is more than the 4 an ACK can carry"),
            ));
        }
    }
    if let Some(r) = o.rcv_buffer {
        if r.0 == 0 {
            return Err(err(file, k("rcv_buffer"), "must be positive"));
        }
    }
    if let Some(f) = &o.westwood_filter {
        if !["trapezoid", "latest-sample", "interval-mean"].contains(&f.as_str()) {
            return Err(err(
                file,
                k("westwood_filter"),
                format!("{f:?} is not one of \"trapezoid\", \"latest-sample\", \"interval-mean\""),
            ));
        }
    }
    if let Some(p) = &o.profile {
        if !["studies", "linux"].contains(&p.as_str()) {
            return Err(err(
                file,
                k("profile"),
                format!("{p:?} is not one of \"studies\", \"linux\""),
            ));
        }
    }
    if let Some(r) = &o.recovery {
        if RecKind::parse(r).is_none() {
            return Err(err(
                file,
                k("recovery"),
                format!(
                    "unknown recovery {r:?} (known: {})",
                    RecKind::NAMES.join(", ")
                ),
            ));
        }
    }
    if o.hybla_rtt0.is_some_and(|t| t.0 == Dur::ZERO) {
        return Err(err(file, k("hybla_rtt0"), "must be positive"));
    }
    if o.westwood_tau.is_some_and(|t| t.0 == Dur::ZERO) {
        return Err(err(file, k("westwood_tau"), "must be positive"));
    }
    if let (Some(a), Some(b)) = (o.rto_min, o.rto_max) {
        if a > b {
            return Err(err(file, k("rto_min"), "is larger than rto_max"));
        }
    }
    Ok(())
}

/// Resolve an `aerotcp` leg's allocation into a window (or an adaptive
/// rule). `bottleneck_bps` and `rtt` are the leg's defaults for SatBW and SatRTT.
fn resolve_aero(
    file: &str,
    key: &str,
    a: &AeroAllocationSection,
    bottleneck_bps: u64,
    rtt: Dur,
    cfg: &TcpConfig,
) -> Result<crate::tcp::config::AeroAllocation, ScenarioError> {
    use crate::tcp::config::{aero_segments, AeroAdaptive, AeroAllocation};
    let k = |f: &str| format!("{key}.{f}");
    let packet = cfg.mss as u64 + cfg.header_bytes as u64;
    let sat_rtt = a.sat_rtt.map_or(rtt, |d| d.0);
    if sat_rtt == Dur::ZERO {
        return Err(err(
            file,
            k("sat_rtt"),
            "the satellite round trip must be positive",
        ));
    }
    let sat_bw = a.sat_bw.map_or(bottleneck_bps, |r| r.0);
    if sat_bw == 0 {
        return Err(err(
            file,
            k("sat_bw"),
            "a zero allocation: the satellite bandwidth must be positive",
        ));
    }
    let n = a.n.unwrap_or(1);
    if n == 0 {
        return Err(err(file, k("n"), "N = 0 connections: must be at least 1"));
    }
    let mode = a.mode.as_deref().unwrap_or("static");
    let mut out = AeroAllocation::default();
    match mode {
        "static" => out.cwnd_segments = aero_segments(sat_bw / n as u64, sat_rtt, packet),
        "prdp" => {
            let pr = a
                .peak_rate
                .ok_or_else(|| err(file, k("peak_rate"), "mode \"prdp\" needs peak_rate"))?;
            if pr.0 == 0 {
                return Err(err(
                    file,
                    k("peak_rate"),
                    "a zero allocation: the peak rate must be positive",
                ));
            }
            out.cwnd_segments = aero_segments(pr.0, sat_rtt, packet);
        }
        "window" => {
            let w = a
                .window
                .ok_or_else(|| err(file, k("window"), "mode \"window\" needs window (segments)"))?;
            if w == 0 {
                return Err(err(
                    file,
                    k("window"),
                    "a zero allocation: the window must be at least 1 segment",
                ));
            }
            out.cwnd_segments = w;
        }
        "adaptive" | "table" => {
            let table: Vec<u64> = if mode == "table" {
                let r = a
                    .rates
                    .as_ref()
                    .ok_or_else(|| err(file, k("rates"), "mode \"table\" needs rates"))?;
                if r.is_empty() || r.iter().any(|x| x.0 == 0) {
                    return Err(err(file, k("rates"), "a zero allocation: every target rate must be positive (and at least one given)"));
                }
                r.iter().map(|x| x.0).collect()
            } else {
                Vec::new()
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
        other => {
            return Err(err(
                file,
                k("mode"),
                format!(
                "unknown allocation mode {other:?} (known: static, prdp, adaptive, table, window)"
            ),
            ))
        }
    }
    Ok(out)
}

impl Plan {
    pub fn build(scn: &Scenario, file: &str) -> Result<Plan, ScenarioError> {
        let mut warnings = Vec::new();
        if scn.nodes.is_empty() {
            return Err(err(file, "nodes", "no nodes defined"));
        }
        let nodes: Vec<String> = scn.nodes.keys().cloned().collect();
        let index: BTreeMap<&str, u32> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i as u32))
            .collect();
        for (name, n) in &scn.nodes {
            let key = format!("nodes.{name}");
            if n.lat.is_some() != n.lon.is_some() {
                return Err(err(file, key, "give both lat and lon, or neither"));
            }
            if let Some(policy) = n.proxy.as_ref().and_then(|p| p.policy.as_deref()) {
                // Checked even where no flow uses the node as a proxy (yet).
                if !["half-free", "third", "buffers"].contains(&policy) {
                    return Err(err(
                        file,
                        format!("{key}.proxy.policy"),
                        format!("unknown policy {policy:?} (known: half-free, third, buffers)"),
                    ));
                }
            }
            if n.lat.is_some() && n.geo_longitude.is_some() {
                return Err(err(file, key, "a node is either on the ground (lat, lon) or a GEO satellite (geo_longitude), not both"));
            }
            // A position is checked at the node's own key, before any link uses it.
            for (k, v, range) in [
                ("lat", n.lat, Some(90.0)),
                ("lon", n.lon, None),
                ("geo_longitude", n.geo_longitude, None),
            ] {
                let Some(v) = v else { continue };
                if !v.is_finite() || range.is_some_and(|r: f64| v.abs() > r) {
                    let within = if k == "lat" {
                        " (within [-90, 90])"
                    } else {
                        ""
                    };
                    return Err(err(
                        file,
                        format!("{key}.{k}"),
                        format!("{v} is not a valid angle in degrees{within}"),
                    ));
                }
            }
        }
        check_tcp(file, "tcp", &scn.tcp)?;

        // ---- links ----
        let mut links = Vec::new();
        let mut layers = Vec::new();
        let mut adjacency: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for (name, l) in &scn.links {
            let key = |f: &str| format!("links.{name}.{f}");
            if l.between.len() != 2 {
                return Err(err(file, key("between"), "must name exactly two nodes"));
            }
            let mut ends = [0u32; 2];
            for (i, n) in l.between.iter().enumerate() {
                ends[i] = *index.get(n.as_str()).ok_or_else(|| {
                    err(
                        file,
                        key("between"),
                        format!("node {n:?} does not exist (nodes: {})", nodes.join(", ")),
                    )
                })?;
            }
            if ends[0] == ends[1] {
                return Err(err(
                    file,
                    key("between"),
                    "a link needs two different nodes",
                ));
            }
            if adjacency.contains_key(&(ends[0], ends[1])) {
                return Err(err(
                    file,
                    key("between"),
                    "another link already joins these nodes",
                ));
            }
            check_prob(file, &key("per"), l.per)?;
            check_prob(file, &key("ber"), l.ber)?;
            if l.per.is_some() && l.ber.is_some() {
                return Err(err(file, key("ber"), "give per or ber, not both"));
            }
            if l.channel.is_some() && (l.per.is_some() || l.ber.is_some()) {
                let k = if l.per.is_some() { "per" } else { "ber" };
                return Err(err(
                    file,
                    key(k),
                    "give a channel table or the per/ber shorthand, not both",
                ));
            }
            if let Some(c) = &l.channel {
                c.validate()
                    .map_err(|(k, m)| err(file, key(&format!("channel.{k}")), m))?;
            }
            let (geometric, geometry) = geometric_delay(scn, &index, &l.between[0], &l.between[1])
                .map_err(|(k, m)| err(file, k.unwrap_or_else(|| key("delay")), m))?;
            for (dir_name, dir, from, to) in [
                ("forward", &l.forward, ends[0], ends[1]),
                ("reverse", &l.reverse, ends[1], ends[0]),
            ] {
                let d = dir.clone().unwrap_or_default();
                let dkey = |f: &str| format!("links.{name}.{dir_name}.{f}");
                let rate = d.rate.or(l.rate).ok_or_else(|| {
                    err(
                        file,
                        key("rate"),
                        "missing: every link needs a rate, e.g. rate = \"1 Mbps\"",
                    )
                })?;
                let delay = match d.delay.or(l.delay) {
                    Some(x) => x.0,
                    None => geometric.ok_or_else(|| {
                        err(file, key("delay"), "missing: give delay = \"125 ms\", or positions (lat/lon, geo_longitude) on both nodes")
                    })?,
                };
                let queue = d.queue.or(l.queue).unwrap_or(DEFAULT_QUEUE);
                check_prob(file, &dkey("per"), d.per)?;
                check_prob(file, &dkey("ber"), d.ber)?;
                if d.per.is_some() && d.ber.is_some() {
                    return Err(err(file, dkey("ber"), "give per or ber, not both"));
                }
                if d.channel.is_some() && (d.per.is_some() || d.ber.is_some()) {
                    let k = if d.per.is_some() { "per" } else { "ber" };
                    return Err(err(
                        file,
                        dkey(k),
                        "give a channel table or the per/ber shorthand, not both",
                    ));
                }
                if let Some(c) = &d.channel {
                    c.validate()
                        .map_err(|(k, m)| err(file, dkey(&format!("channel.{k}")), m))?;
                }
                let apply_name = d.errors_apply_to.as_ref().or(l.errors_apply_to.as_ref());
                let apply_to = match apply_name {
                    None => None,
                    Some(s) => Some(ApplyTo::parse(s).ok_or_else(|| {
                        let k = if d.errors_apply_to.is_some() {
                            dkey("errors_apply_to")
                        } else {
                            key("errors_apply_to")
                        };
                        err(
                            file,
                            k,
                            format!("{s:?} is not one of \"data\", \"acks\", \"both\""),
                        )
                    })?),
                };
                // The direction's stack: the exact drop list first (it draws
                // nothing), then the channel model; a direction's own setting
                // wins over the link's, and `per`/`ber` are shorthands.
                let mut channels = Vec::new();
                if !d.drop_segments.is_empty() {
                    channels.push(ChannelSpec::DropList(crate::channel::drop_list_spec(
                        d.drop_segments.clone(),
                    )));
                }
                let shorthand = |per: Option<f64>, ber: Option<f64>| match (per, ber) {
                    (Some(p), _) => Some(ChannelSpec::Per(crate::channel::per_spec(p, None))),
                    (_, Some(b)) => Some(ChannelSpec::Ber(crate::channel::ber_spec(b, None))),
                    _ => None,
                };
                let model = d
                    .channel
                    .clone()
                    .map(|c| (c, dkey("channel")))
                    .or_else(|| shorthand(d.per, d.ber).map(|c| (c, String::new())))
                    .or_else(|| l.channel.clone().map(|c| (c, key("channel"))))
                    .or_else(|| shorthand(l.per, l.ber).map(|c| (c, String::new())));
                if let Some((mut m, src)) = model {
                    m.default_apply_to(apply_to);
                    // Files are read here, once per plan (errors name file and line).
                    m.prepare(geometry.as_ref())
                        .map_err(|(k, msg)| err(file, format!("{src}.{k}"), msg))?;
                    channels.push(m);
                }
                adjacency.insert((from, to), links.len() as u32);
                links.push(LinkDirSpec {
                    name: format!("{name}:{dir_name}"),
                    from,
                    to,
                    rate_bps: rate.0,
                    delay,
                    queue,
                    channels,
                    geometry,
                });
            }
            let spec = l.link_layer.clone().unwrap_or_default();
            {
                // The link layer checks itself against its link (and may fix
                // the directions it defines, e.g. a return path).
                let n = links.len();
                let (f, r) = links.split_at_mut(n - 1);
                let rto_min = scn.tcp.rto_min.map_or(Dur::from_secs(1), |d| d.0);
                let w = spec
                    .resolve(&mut f[n - 2], &mut r[0], rto_min)
                    .map_err(|(k, m)| err(file, key(&format!("link_layer.{k}")), m))?;
                warnings.extend(
                    w.into_iter()
                        .map(|m| format!("links.{name}.link_layer: {m}")),
                );
            }
            layers.push(PlanLayer {
                name: name.clone(),
                spec,
            });
        }

        // ---- flows ----
        if scn.flows.is_empty() {
            return Err(err(file, "flows", "no flows defined"));
        }
        let mut flows = Vec::new();
        let mut any_bulk = false;
        let mut low_windows: Vec<(String, u64, u64, f64)> = Vec::new();
        for (name, f) in &scn.flows {
            let key = |k: &str| format!("flows.{name}.{k}");
            let node = |k: &str, n: &str| -> Result<u32, ScenarioError> {
                index.get(n).copied().ok_or_else(|| {
                    err(
                        file,
                        key(k),
                        format!("node {n:?} does not exist (nodes: {})", nodes.join(", ")),
                    )
                })
            };
            let src = node("from", &f.from)?;
            let dst = node("to", &f.to)?;
            if src == dst {
                return Err(err(file, key("to"), "a flow needs two different end nodes"));
            }
            let path: Vec<u32> = match &f.path {
                Some(p) => {
                    let ids = p
                        .iter()
                        .map(|n| node("path", n))
                        .collect::<Result<Vec<_>, _>>()?;
                    if ids.first() != Some(&src) || ids.last() != Some(&dst) {
                        return Err(err(
                            file,
                            key("path"),
                            "must start at `from` and end at `to`",
                        ));
                    }
                    for w in ids.windows(2) {
                        if !adjacency.contains_key(&(w[0], w[1])) {
                            return Err(err(
                                file,
                                key("path"),
                                format!(
                                    "no link between {} and {}",
                                    nodes[w[0] as usize], nodes[w[1] as usize]
                                ),
                            ));
                        }
                    }
                    let mut seen = std::collections::BTreeSet::new();
                    if !ids.iter().all(|i| seen.insert(*i)) {
                        return Err(err(file, key("path"), "visits a node twice"));
                    }
                    ids
                }
                None => shortest_path(&adjacency, nodes.len(), src, dst).ok_or_else(|| {
                    err(
                        file,
                        key("to"),
                        format!("no path from {} to {} over the links", f.from, f.to),
                    )
                })?,
            };
            check_tcp(file, &format!("flows.{name}.options"), &f.options)?;
            // Proxies, in path order.
            let mut cut = vec![0usize];
            for (i, p) in f.proxies.iter().enumerate() {
                let pk = format!("flows.{name}.proxies[{i}]");
                let id = *index
                    .get(p.as_str())
                    .ok_or_else(|| err(file, &pk, format!("node {p:?} does not exist")))?;
                let pos = path.iter().position(|&n| n == id).ok_or_else(|| {
                    err(
                        file,
                        &pk,
                        format!(
                            "node {p:?} is not on the flow's path ({})",
                            path.iter()
                                .map(|&n| nodes[n as usize].as_str())
                                .collect::<Vec<_>>()
                                .join("-")
                        ),
                    )
                })?;
                if pos == 0 || pos == path.len() - 1 {
                    return Err(err(
                        file,
                        &pk,
                        format!("node {p:?} is an end of the flow; a proxy sits between them"),
                    ));
                }
                if pos <= *cut.last().unwrap() {
                    return Err(err(
                        file,
                        &pk,
                        "proxies must be distinct and listed in path order",
                    ));
                }
                cut.push(pos);
            }
            cut.push(path.len() - 1);
            let nlegs = cut.len() - 1;
            let leg_names: Vec<String> = match &f.legs {
                Some(l) => {
                    if l.len() != nlegs {
                        return Err(err(
                            file,
                            key("legs"),
                            format!(
                                "lists {} variants but the flow has {} legs ({} proxies + 1)",
                                l.len(),
                                nlegs,
                                f.proxies.len()
                            ),
                        ));
                    }
                    l.clone()
                }
                None => vec![f.tcp.clone(); nlegs],
            };
            let mut legs = Vec::new();
            for (i, vname) in leg_names.iter().enumerate() {
                let vkey = if f.legs.is_some() {
                    format!("flows.{name}.legs[{i}]")
                } else {
                    key("tcp")
                };
                let variant = Variant::parse(vname).ok_or_else(|| {
                    err(
                        file,
                        vkey,
                        format!(
                            "unknown TCP variant {vname:?} (known: {})",
                            Variant::names().join(", ")
                        ),
                    )
                })?;
                let lp: Vec<u32> = path[cut[i]..=cut[i + 1]].to_vec();
                let fwd = lp
                    .windows(2)
                    .map(|w| adjacency[&(w[0], w[1])])
                    .collect::<Vec<_>>();
                let rev = lp
                    .windows(2)
                    .rev()
                    .map(|w| adjacency[&(w[1], w[0])])
                    .collect::<Vec<_>>();
                let mut cfg = tcp_config(scn, &f.options, variant);
                if variant.cc == crate::tcp::CcKind::AeroTcp {
                    let (sec, akey) = match (&f.options.aero_allocation, &scn.tcp.aero_allocation) {
                        (Some(a), _) => {
                            (a.clone(), format!("flows.{name}.options.aero_allocation"))
                        }
                        (None, Some(a)) => (a.clone(), "tcp.aero_allocation".to_string()),
                        (None, None) => (
                            AeroAllocationSection::default(),
                            "tcp.aero_allocation".to_string(),
                        ),
                    };
                    let bottleneck = fwd
                        .iter()
                        .map(|&l| links[l as usize].rate_bps)
                        .min()
                        .unwrap_or(0);
                    let rtt = fwd
                        .iter()
                        .chain(rev.iter())
                        .map(|&l| links[l as usize].delay)
                        .fold(Dur::ZERO, |a, b| a + b);
                    cfg.aero = resolve_aero(file, &akey, &sec, bottleneck, rtt, &cfg)?;
                    // No slow start: the first window is the allocation.
                    cfg.initial_window = cfg.aero.cwnd_segments;
                }
                legs.push(PlanLeg {
                    path: lp,
                    make_sender: None,
                    variant_name: vname.clone(),
                    cfg,
                    fwd,
                    rev,
                });
            }
            let mut proxies = Vec::new();
            for (i, p) in f.proxies.iter().enumerate() {
                let id = index[p.as_str()];
                let sec = scn.nodes[p].proxy.clone().unwrap_or_default();
                let pkey = |k: &str| format!("nodes.{p}.proxy.{k}");
                let policy = match sec.policy.as_deref().unwrap_or("half-free") {
                    "half-free" => ProxyPolicy::HalfFree,
                    "third" => ProxyPolicy::Third,
                    "buffers" => ProxyPolicy::Buffers,
                    other => {
                        return Err(err(
                            file,
                            pkey("policy"),
                            format!("unknown policy {other:?} (known: half-free, third, buffers)"),
                        ))
                    }
                };
                let in_leg = &legs[i];
                let mss = in_leg.cfg.mss as u64;
                let cache_bytes = match (sec.cache, sec.cache_packets, sec.recv_buffer) {
                    (Some(_), Some(_), _) => {
                        return Err(err(
                            file,
                            pkey("cache"),
                            "give cache or cache_packets, not both",
                        ))
                    }
                    (_, _, Some(r)) if policy == ProxyPolicy::Buffers => r.0,
                    (Some(c), None, _) => c.0,
                    (None, Some(n), _) => n * mss,
                    (None, None, _) => DEFAULT_CACHE_PACKETS * mss,
                };
                if cache_bytes == 0 {
                    let k = if sec.cache.is_some() {
                        pkey("cache")
                    } else {
                        pkey("cache_packets")
                    };
                    return Err(err(file, k, "a proxy cache must hold at least one packet"));
                }
                // The policy must be able to advertise one full segment on an
                // empty cache, or the incoming leg could only crawl on probes.
                let min_segments = match policy {
                    ProxyPolicy::HalfFree => 2,
                    ProxyPolicy::Third => 3,
                    ProxyPolicy::Buffers => 1,
                };
                if cache_bytes < min_segments * mss {
                    let k = if policy == ProxyPolicy::Buffers {
                        pkey("recv_buffer")
                    } else if sec.cache.is_some() {
                        pkey("cache")
                    } else {
                        pkey("cache_packets")
                    };
                    let name = sec.policy.as_deref().unwrap_or("half-free");
                    return Err(err(
                        file,
                        k,
                        format!(
                            "{cache_bytes} B is too small: the {name} policy needs at least {min_segments} segments ({} B) to advertise one full segment",
                            min_segments * mss
                        ),
                    ));
                }
                let send_buffer = match policy {
                    ProxyPolicy::Buffers => sec.send_buffer.map(|s| s.0).ok_or_else(|| {
                        err(
                            file,
                            pkey("send_buffer"),
                            "the buffers policy needs send_buffer (and recv_buffer)",
                        )
                    })?,
                    _ => 0,
                };
                if policy == ProxyPolicy::Buffers && sec.recv_buffer.is_none() {
                    return Err(err(
                        file,
                        pkey("recv_buffer"),
                        "the buffers policy needs recv_buffer (and send_buffer)",
                    ));
                }
                if policy == ProxyPolicy::Buffers && send_buffer < mss {
                    return Err(err(
                        file,
                        pkey("send_buffer"),
                        "must hold at least one segment",
                    ));
                }
                proxies.push(PlanProxy {
                    node: id,
                    policy,
                    cache_bytes,
                    send_buffer,
                    ack_after_forward: sec.ack_after_forward.unwrap_or(false),
                });
            }
            let size = f.size.unwrap_or(FlowSize::Unlimited);
            if size == FlowSize::Bytes(0) {
                return Err(err(
                    file,
                    key("size"),
                    "must be positive (or \"unlimited\")",
                ));
            }
            // A known trap of satellite TCP: a receive window below the BDP caps
            // goodput. Checked on the last leg (the end host's buffer); a
            // proxy's incoming window is its cache policy's business.
            if let Some(leg) = legs.last() {
                let rate = leg
                    .fwd
                    .iter()
                    .map(|&l| links[l as usize].rate_bps)
                    .min()
                    .unwrap_or(1);
                let rtt: Dur = leg
                    .fwd
                    .iter()
                    .chain(leg.rev.iter())
                    .map(|&l| links[l as usize].delay)
                    .fold(Dur::ZERO, |a, b| a + b);
                let bdp = (rate as f64 / 8.0 * rtt.as_secs_f64()) as u64;
                let rwnd = leg.cfg.rcv_buffer;
                if rwnd < bdp {
                    let cap = rwnd as f64 * 8.0 / rtt.as_secs_f64().max(1e-9);
                    low_windows.push((name.clone(), rwnd, bdp, cap));
                }
            }
            let app = match f.app.as_deref() {
                None => match size {
                    FlowSize::Bytes(b) => AppSpec::File { size: b },
                    FlowSize::Unlimited => AppSpec::Bulk,
                },
                Some("cbr") => {
                    if f.size.is_some_and(|s| s != FlowSize::Unlimited) {
                        return Err(err(
                            file,
                            key("size"),
                            "a cbr probe sends until the run stops; leave size out",
                        ));
                    }
                    if !f.proxies.is_empty() {
                        return Err(err(
                            file,
                            key("proxies"),
                            "a cbr probe carries datagrams end to end; it takes no split proxies",
                        ));
                    }
                    let rate = f.rate.ok_or_else(|| {
                        err(
                            file,
                            key("rate"),
                            "missing: a cbr probe needs a rate, e.g. rate = \"1 Mbps\"",
                        )
                    })?;
                    let packet = f.packet.map_or(1500, |p| p.0);
                    if packet == 0 || packet > 65_535 {
                        return Err(err(
                            file,
                            key("packet"),
                            format!("{packet} B must be between 1 B and 65535 B"),
                        ));
                    }
                    // Not a TCP flow: no receive-window warning.
                    low_windows.retain(|w| &w.0 != name);
                    AppSpec::Cbr {
                        rate_bps: rate.0,
                        packet_bytes: packet as u32,
                    }
                }
                Some("web") => {
                    if f.size.is_some_and(|s| s != FlowSize::Unlimited) {
                        return Err(err(
                            file,
                            key("size"),
                            "a web session's sizes come from its page model (the web table); leave size out",
                        ));
                    }
                    let sec = f.web.clone().unwrap_or_default();
                    let (spec, warns) = web_spec(&sec)
                        .map_err(|(k, msg)| err(file, key(&format!("web.{k}")), msg))?;
                    warnings.extend(warns.into_iter().map(|w| format!("{}: {w}", key("web"))));
                    if spec.http == Http::V11 && legs.iter().any(|l| !l.cfg.idle_restart) {
                        // A default that shapes what HTTP/1.1 measures: say so.
                        warnings.push(format!(
                            "{}: HTTP/1.1 keeps its connection across think times and tcp.idle_restart is off, so each page starts with the window the previous one ended with; RFC 5681 (4.1) restarts it from the initial window (tcp.idle_restart = true, or tcp.profile = \"linux\")",
                            key("web")
                        ));
                    }
                    AppSpec::Web(spec)
                }
                Some(other) => {
                    return Err(err(file, key("app"), format!("unknown application {other:?} (known: \"cbr\", \"web\"; leave it out for a file transfer or bulk flow)")));
                }
            };
            if f.web.is_some() && f.app.as_deref() != Some("web") {
                return Err(err(
                    file,
                    key("web"),
                    "only a web session (app = \"web\") takes a web table",
                ));
            }
            if !app.finite() {
                any_bulk = true;
            }
            if f.app.is_none() && (f.rate.is_some() || f.packet.is_some()) {
                let k = if f.rate.is_some() { "rate" } else { "packet" };
                return Err(err(
                    file,
                    key(k),
                    "only a cbr probe (app = \"cbr\") takes rate and packet",
                ));
            }
            flows.push(PlanFlow {
                name: name.clone(),
                start: f.start.0,
                size,
                app,
                path,
                legs,
                proxies,
            });
        }
        // One warning per distinct (buffer, BDP), naming the flows it concerns.
        let mut groups: BTreeMap<(u64, u64), (Vec<String>, f64)> = BTreeMap::new();
        for (name, rwnd, bdp, cap) in low_windows {
            groups
                .entry((rwnd, bdp))
                .or_insert((Vec::new(), cap))
                .0
                .push(name);
        }
        for ((rwnd, bdp), (names, cap)) in groups {
            let who = if names.len() <= 3 {
                names
                    .iter()
                    .map(|n| format!("flows.{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            } else {
                format!(
                    "flows.{}, flows.{} and {} more flows",
                    names[0],
                    names[1],
                    names.len() - 2
                )
            };
            warnings.push(format!(
                "{who}: receive buffer {rwnd} B is below the path's bandwidth-delay product {bdp} B; one flow's goodput is capped near {cap:.0} bit/s (raise tcp.rcv_buffer)"
            ));
        }
        let duration = match scn.run.duration {
            Some(d) => {
                if d.0 == Dur::ZERO {
                    return Err(err(file, "run.duration", "must be positive"));
                }
                d.0
            }
            None if any_bulk => Dur::from_secs(230),
            None => Dur::from_secs(3600),
        };
        if scn.run.runs == 0 {
            return Err(err(file, "run.runs", "must be at least 1"));
        }
        let mut plan = Plan {
            nodes,
            links,
            layers,
            flows,
            duration,
            event_budget: scn.run.event_budget,
            warnings,
        };
        let more = super::describe::capacity_warnings(&plan);
        plan.warnings.extend(more);
        Ok(plan)
    }
}

/// An error with the key it belongs to, if not the caller's default.
type KeyedError = (Option<String>, String);

/// Delay from positions: ground-GEO slant range (with the station's view of
/// the satellite) or GEO-GEO inter-satellite link.
fn geometric_delay(
    scn: &Scenario,
    index: &BTreeMap<&str, u32>,
    a: &str,
    b: &str,
) -> Result<(Option<Dur>, Option<HopGeometry>), KeyedError> {
    let (Some(na), Some(nb)) = (scn.nodes.get(a), scn.nodes.get(b)) else {
        return Ok((None, None));
    };
    let ground = |n: &NodeSection| n.lat.zip(n.lon);
    let station = match (ground(na), na.geo_longitude, ground(nb), nb.geo_longitude) {
        (Some((lat, lon)), _, _, Some(sat)) => Some((a, lat, lon, sat)),
        (_, Some(sat), Some((lat, lon)), _) => Some((b, lat, lon, sat)),
        _ => None,
    };
    if let Some((node, lat, lon, sat)) = station {
        // Named at the ground node's key: its position is what puts the
        // satellite below its horizon.
        let g = crate::geo::geo_link(lat, lon, sat)
            .map_err(|e| (Some(format!("nodes.{node}")), e.to_string()))?;
        let geometry = HopGeometry {
            ground_node: index[node],
            lat_deg: lat,
            lon_deg: lon,
            sat_lon_deg: sat,
            elevation_deg: g.elevation_deg,
            azimuth_deg: g.azimuth_deg,
            slant_range_m: g.slant_range_m,
        };
        return Ok((Some(g.delay), Some(geometry)));
    }
    match (na.geo_longitude, nb.geo_longitude) {
        (Some(s1), Some(s2)) => crate::geo::geo_isl(s1, s2)
            .map(|(_, d)| (Some(d), None))
            .map_err(|e| (None, e.to_string())),
        _ => Ok((None, None)),
    }
}

/// Fewest hops; ties broken by the lowest node index, so the choice is deterministic.
fn shortest_path(
    adj: &BTreeMap<(u32, u32), u32>,
    n: usize,
    src: u32,
    dst: u32,
) -> Option<Vec<u32>> {
    let mut prev = vec![u32::MAX; n];
    let mut seen = vec![false; n];
    let mut q = VecDeque::new();
    seen[src as usize] = true;
    q.push_back(src);
    while let Some(u) = q.pop_front() {
        if u == dst {
            let mut p = vec![dst];
            let mut c = dst;
            while c != src {
                c = prev[c as usize];
                p.push(c);
            }
            p.reverse();
            return Some(p);
        }
        for (&(a, b), _) in adj.range((u, 0)..=(u, u32::MAX)) {
            debug_assert_eq!(a, u);
            if !seen[b as usize] {
                seen[b as usize] = true;
                prev[b as usize] = u;
                q.push_back(b);
            }
        }
    }
    None
}
