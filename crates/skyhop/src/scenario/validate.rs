//! Range checks on a deserialised scenario, before the plan is built: every
//! quantity has a documented valid range (docs/scenario.md, "Valid ranges"),
//! and values that would make a run meaningless (an RTO of zero spins at
//! t = 0) or unbounded in memory are refused with one error naming the key.
//!
//! [`check_memory`] runs on the built plan: it estimates the dominant memory
//! of a run and refuses it if the estimate exceeds the limit
//! (`SKYHOP_MEMORY_LIMIT`, default a quarter of physical memory).

use super::plan::Plan;
use super::schema::*;
use crate::engine::time::{Dur, NS_PER_S};
use crate::error::ScenarioError;
use crate::tcp::TcpConfig;
use crate::units::{Duration, Rate, Size};

/// Longest duration anywhere (run, delays, timers, start): 10^7 s (about 116 days).
pub const MAX_DURATION: Dur = Dur(10_000_000 * NS_PER_S);
/// Highest link rate: 10 Tb/s.
pub const MAX_RATE_BPS: u64 = 10_000_000_000_000;
/// Largest buffer or cache: 1 TB (the memory check usually binds first).
pub const MAX_BUFFER: u64 = 1_000_000_000_000;
/// TCP/IP header bytes per packet.
pub const HEADER_RANGE: (u64, u64) = (20, 1000);
/// Largest initial window, in segments.
pub const MAX_INITIAL_WINDOW: u32 = 1_000_000;
/// Largest duplicate-ACK threshold.
pub const MAX_DUPTHRESH: u32 = 1000;
/// Largest number of runs in one scenario.
pub const MAX_RUNS: u32 = 1_000_000;
/// Smallest RTO bound (rto_initial, rto_max): 1 µs.
pub const MIN_RTO: Dur = Dur(1_000);

struct V<'a> {
    file: &'a str,
}

impl V<'_> {
    fn err(&self, key: impl Into<String>, msg: impl Into<String>) -> ScenarioError {
        ScenarioError::new(self.file, key, msg)
    }

    fn finite(&self, key: &str, x: Option<f64>) -> Result<(), ScenarioError> {
        match x {
            Some(v) if !v.is_finite() => Err(self.err(key, format!("{v} is not a finite number"))),
            _ => Ok(()),
        }
    }

    fn in_range(&self, key: &str, x: Option<f64>, lo: f64, hi: f64) -> Result<(), ScenarioError> {
        self.finite(key, x)?;
        match x {
            Some(v) if !(lo..=hi).contains(&v) => Err(self.err(
                key,
                format!("{v} is out of range: must be between {lo} and {hi}"),
            )),
            _ => Ok(()),
        }
    }

    fn prob(&self, key: &str, x: Option<f64>) -> Result<(), ScenarioError> {
        self.in_range(key, x, 0.0, 1.0)
    }

    fn dur(&self, key: &str, d: Option<Duration>, lo: Dur, hi: Dur) -> Result<(), ScenarioError> {
        match d {
            Some(v) if v.0 < lo || v.0 > hi => Err(self.err(
                key,
                format!(
                    "{v} is out of range: must be between {} and {}",
                    Duration(lo),
                    Duration(hi)
                ),
            )),
            _ => Ok(()),
        }
    }

    fn size(&self, key: &str, s: Option<Size>, lo: u64, hi: u64) -> Result<(), ScenarioError> {
        match s {
            Some(v) if v.0 < lo || v.0 > hi => Err(self.err(
                key,
                format!(
                    "{v} is out of range: must be between {} and {}",
                    Size(lo),
                    Size(hi)
                ),
            )),
            _ => Ok(()),
        }
    }

    fn rate(&self, key: &str, r: Option<Rate>) -> Result<(), ScenarioError> {
        match r {
            Some(v) if v.0 > MAX_RATE_BPS => Err(self.err(
                key,
                format!("{v} is out of range: must be at most {MAX_RATE_BPS} bps (10 Tbps)"),
            )),
            _ => Ok(()),
        }
    }

    fn tcp(&self, prefix: &str, o: &TcpOptions) -> Result<(), ScenarioError> {
        let k = |f: &str| format!("{prefix}.{f}");
        self.size(&k("mss"), o.mss, 1, 65_000)?;
        self.size(&k("header"), o.header, HEADER_RANGE.0, HEADER_RANGE.1)?;
        if let Some(iw) = o.initial_window {
            if iw == 0 || iw > MAX_INITIAL_WINDOW {
                return Err(self.err(
                    k("initial_window"),
                    format!(
                        "{iw} is out of range: must be between 1 and {MAX_INITIAL_WINDOW} segments"
                    ),
                ));
            }
        }
        self.size(&k("initial_ssthresh"), o.initial_ssthresh, 1, u64::MAX)?;
        self.dur(&k("rto_initial"), o.rto_initial, MIN_RTO, MAX_DURATION)?;
        self.dur(&k("rto_min"), o.rto_min, Dur::ZERO, MAX_DURATION)?;
        self.dur(&k("rto_max"), o.rto_max, MIN_RTO, MAX_DURATION)?;
        self.dur(
            &k("clock_granularity"),
            o.clock_granularity,
            Dur::ZERO,
            MAX_DURATION,
        )?;
        if let Some(d) = o.dupthresh {
            if d == 0 || d > MAX_DUPTHRESH {
                return Err(self.err(
                    k("dupthresh"),
                    format!("{d} is out of range: must be between 1 and {MAX_DUPTHRESH}"),
                ));
            }
        }
        self.size(&k("rcv_buffer"), o.rcv_buffer, 1, MAX_BUFFER)?;
        self.dur(
            &k("delayed_ack_timeout"),
            o.delayed_ack_timeout,
            Dur::ZERO,
            MAX_DURATION,
        )?;
        self.dur(&k("westwood_tau"), o.westwood_tau, Dur(1), MAX_DURATION)?;
        Ok(())
    }

    fn dir(&self, prefix: &str, d: &DirSection) -> Result<(), ScenarioError> {
        let k = |f: &str| format!("{prefix}.{f}");
        self.rate(&k("rate"), d.rate)?;
        self.dur(&k("delay"), d.delay, Dur::ZERO, MAX_DURATION)?;
        self.prob(&k("per"), d.per)?;
        self.prob(&k("ber"), d.ber)?;
        Ok(())
    }
}

/// A resolved TCP value and the key it came from (`None`: the built-in default).
fn pick<T: Copy>(
    flow: Option<T>,
    fkey: String,
    global: Option<T>,
    gkey: &str,
) -> (Option<String>, Option<T>) {
    match (flow, global) {
        (Some(v), _) => (Some(fkey), Some(v)),
        (None, Some(v)) => (Some(gkey.to_string()), Some(v)),
        _ => (None, None),
    }
}

/// Check every value's range. Runs after deserialisation, before `Plan::build`.
pub fn check(scn: &Scenario, file: &str) -> Result<(), ScenarioError> {
    let v = V { file };

    // ---- run ----
    if scn.run.event_budget == 0 {
        return Err(v.err("run.event_budget", "must be at least 1 event"));
    }
    if scn.run.runs > MAX_RUNS {
        return Err(v.err(
            "run.runs",
            format!(
                "{} is out of range: must be between 1 and {MAX_RUNS}",
                scn.run.runs
            ),
        ));
    }
    v.dur("run.duration", scn.run.duration, Dur::ZERO, MAX_DURATION)?;

    // ---- nodes ----
    for (name, n) in &scn.nodes {
        let k = |f: &str| format!("nodes.{name}.{f}");
        v.in_range(&k("lat"), n.lat, -90.0, 90.0)?;
        v.in_range(&k("lon"), n.lon, -180.0, 180.0)?;
        v.in_range(&k("geo_longitude"), n.geo_longitude, -180.0, 180.0)?;
        if let Some(p) = &n.proxy {
            let pk = |f: &str| format!("nodes.{name}.proxy.{f}");
            if let Some(c) = p.cache_packets {
                if c > MAX_BUFFER {
                    return Err(v.err(
                        pk("cache_packets"),
                        format!("{c} is out of range: must be at most {MAX_BUFFER} packets"),
                    ));
                }
            }
            v.size(&pk("cache"), p.cache, 0, MAX_BUFFER)?;
            v.size(&pk("recv_buffer"), p.recv_buffer, 0, MAX_BUFFER)?;
            v.size(&pk("send_buffer"), p.send_buffer, 0, MAX_BUFFER)?;
        }
    }

    // ---- links ----
    for (name, l) in &scn.links {
        let prefix = format!("links.{name}");
        let k = |f: &str| format!("{prefix}.{f}");
        v.rate(&k("rate"), l.rate)?;
        v.dur(&k("delay"), l.delay, Dur::ZERO, MAX_DURATION)?;
        v.prob(&k("per"), l.per)?;
        v.prob(&k("ber"), l.ber)?;
        if let Some(d) = &l.forward {
            v.dir(&k("forward"), d)?;
        }
        if let Some(d) = &l.reverse {
            v.dir(&k("reverse"), d)?;
        }
    }

    // ---- TCP ----
    v.tcp("tcp", &scn.tcp)?;
    let d = TcpConfig::default();
    for (name, f) in &scn.flows {
        let k = |f: &str| format!("flows.{name}.{f}");
        v.dur(&k("start"), Some(f.start), Dur::ZERO, MAX_DURATION)?;
        if let Some(dur) = scn.run.duration {
            if f.start.0 >= dur.0 {
                return Err(v.err(
                    k("start"),
                    format!(
                        "{} is not before the end of the run (run.duration = {dur}): the flow would never send",
                        f.start
                    ),
                ));
            }
        }
        let prefix = k("options");
        v.tcp(&prefix, &f.options)?;
        let o = &f.options;
        let g = &scn.tcp;
        let ok = |f: &str| format!("{prefix}.{f}");
        // The resolved RTO bounds (flow, then [tcp], then the default).
        let (kmin, rmin) = pick(o.rto_min, ok("rto_min"), g.rto_min, "tcp.rto_min");
        let (kmax, rmax) = pick(o.rto_max, ok("rto_max"), g.rto_max, "tcp.rto_max");
        let rmin = rmin.map_or(d.rto_min, |x| x.0);
        let rmax = rmax.map_or(d.rto_max, |x| x.0);
        if rmin > rmax {
            let desc = |key: &Option<String>, what: &str| match key {
                Some(_) => format!(
                    "{what} {}",
                    Duration(if what == "rto_min" { rmin } else { rmax })
                ),
                None => format!(
                    "the default {what} {}",
                    Duration(if what == "rto_min" { rmin } else { rmax })
                ),
            };
            // Name the key given at the most specific level (rto_min on a tie).
            let key = match (&kmin, &kmax) {
                (Some(a), Some(b)) if b.starts_with("flows.") && !a.starts_with("flows.") => b,
                (Some(a), _) => a,
                (None, Some(b)) => b,
                (None, None) => unreachable!("the defaults are ordered"),
            };
            return Err(v.err(
                key.clone(),
                format!(
                    "{} is larger than {} (rto_min must not exceed rto_max)",
                    desc(&kmin, "rto_min"),
                    desc(&kmax, "rto_max")
                ),
            ));
        }
    }
    Ok(())
}

// ---- memory ----

/// Bytes the estimate charges per packet that can be in flight or queued:
/// the packet in the event queue and the link queue, its send-buffer and
/// scoreboard entries, and a reassembly-queue range at the receiver.
pub const BYTES_PER_PACKET: u64 = 256;

/// The memory limit: `SKYHOP_MEMORY_LIMIT` (a size such as "4 GB"), else a
/// quarter of physical memory (/proc/meminfo's MemTotal), else 4 GB.
pub fn memory_limit() -> Result<u64, String> {
    if let Ok(s) = std::env::var("SKYHOP_MEMORY_LIMIT") {
        return Size::parse(&s)
            .map(|x| x.0)
            .map_err(|e| format!("SKYHOP_MEMORY_LIMIT: {e}"));
    }
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        t.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb.saturating_mul(1024))
    });
    Ok(total.map_or(4_000_000_000, |t| t / 4))
}

/// A run's dominant memory, estimated from the plan: per flow and leg, the
/// packets its window can hold in flight, bounded by the receive buffer
/// (or proxy cache) and by what the leg's initial window and the path's
/// links (bandwidth-delay product plus queues) can hold; plus every link
/// direction's queue limit. Each packet is charged [`BYTES_PER_PACKET`].
pub fn estimate_memory(plan: &Plan) -> u64 {
    estimate(plan).0
}

/// The estimate, and the key of its largest part (a flow or a link's queue).
fn estimate(plan: &Plan) -> (u64, String) {
    let mut packets: u64 = 0;
    let mut largest = (0u64, String::new());
    let mut note = |n: u64, key: &dyn Fn() -> String| {
        if n > largest.0 || largest.1.is_empty() {
            largest = (n, key());
        }
    };
    for l in &plan.links {
        packets = packets.saturating_add(l.queue as u64);
        let link = l.name.split(':').next().unwrap_or("").to_string();
        note(l.queue as u64, &|| format!("links.{link}.queue"));
    }
    for f in &plan.flows {
        let mut n: u64 = 0;
        for leg in &f.legs {
            let mss = (leg.cfg.mss as u64).max(1);
            // The path can hold at most its bandwidth-delay product plus its queues.
            let mut path_bytes: u64 = 0;
            for &li in leg.fwd.iter().chain(leg.rev.iter()) {
                let l = &plan.links[li as usize];
                let bdp = (l.rate_bps as u128 * l.delay.0 as u128 / 8 / NS_PER_S as u128)
                    .min(u64::MAX as u128) as u64;
                let q = (l.queue as u64).saturating_mul(mss + leg.cfg.header_bytes as u64);
                path_bytes = path_bytes.saturating_add(bdp).saturating_add(q);
            }
            let window = leg
                .cfg
                .rcv_buffer
                .min(path_bytes.max((leg.cfg.initial_window as u64).saturating_mul(mss)));
            n = n.saturating_add(window / mss + 1);
        }
        packets = packets.saturating_add(n);
        note(n, &|| format!("flows.{}", f.name));
    }
    (packets.saturating_mul(BYTES_PER_PACKET), largest.1)
}

/// Refuse a run whose estimated memory exceeds the limit.
pub fn check_memory(plan: &Plan, file: &str) -> Result<(), ScenarioError> {
    let limit = memory_limit().map_err(|m| ScenarioError::new(file, "", m))?;
    let (need, key) = estimate(plan);
    if need > limit {
        return Err(ScenarioError::new(
            file,
            key,
            format!(
                "the run would need about {} of memory for packets in flight and queued, above the limit of {} (set SKYHOP_MEMORY_LIMIT, e.g. \"16 GB\", to raise it; or lower tcp.rcv_buffer, tcp.initial_window or link queues)",
                Size(need),
                Size(limit)
            ),
        ));
    }
    Ok(())
}
