//! The memory a run would need, estimated from its plan before it starts,
//! and the limit it must stay under (`SKYHOP_MEMORY_LIMIT`, default a
//! quarter of physical memory).
//!
//! Every part of a run that grows with its parameters is bounded here:
//!
//! - packets that can exist at once: each leg's largest window (bounded by
//!   what its path can hold), every link direction's queue, a constant-rate
//!   probe's datagrams in flight along its path;
//! - a QUIC flow's connections, datagrams with their bytes, reassembly
//!   and QUIC-terminating proxies' caches (`memory_quic.rs`);
//! - what applications keep: a web session's objects and pages, and under
//!   HTTP/1.0 a connection per object (none is closed);
//! - synthesised streets of `lms-urban` channels;
//! - what a run records when asked: traces (`--trace`: a row per
//!   acknowledgement of each leg, a point per change of each link queue and
//!   proxy occupancy) and the packet log (`--packet-log`, pcap: events per
//!   packet in the logged directions and window).
//!
//! A bound counts what the run's rates and length allow: a link direction
//! carries at most its rate over the run, a leg's acknowledgements follow
//! the data its bottleneck carries, a web session needs a round trip per
//! object. Each item is charged the bytes it takes from the engine to the
//! Python lists the command line builds from it.

use super::plan::{bytes_in, Plan};
use crate::app::RunShape;
use crate::engine::time::Dur;
use crate::error::ScenarioError;
use crate::observe::{PacketLogOptions, TraceOptions};
use crate::units::Size;

/// Bytes the estimate charges per packet that can be in flight or queued:
/// the packet in the event queue and the link queue, its send-buffer and
/// scoreboard entries, and a reassembly-queue range at the receiver.
pub const BYTES_PER_PACKET: u64 = 256;
/// Bytes per connection a web session opens, per leg: a sender and a
/// receiver, with their buffers' bookkeeping.
pub(crate) const BYTES_PER_CONNECTION: u64 = 4096;
/// Bytes per record an application reports (the engine's record, its JSON
/// and the Python dict built from it).
pub(crate) const BYTES_PER_RECORD: u64 = 1024;
/// Bytes per row of a leg's trace (six series of time and value, in the
/// engine, in JSON and in Python).
pub(crate) const BYTES_PER_TRACE_ROW: u64 = 1024;
/// Bytes per point of a link queue or proxy occupancy trace.
pub(crate) const BYTES_PER_TRACE_POINT: u64 = 192;
/// Bytes the engine holds per point of a link queue's trace while the run
/// goes, before a sampling interval thins it (`--trace-every`).
pub(crate) const ENGINE_BYTES_PER_TRACE_POINT: u64 = 16;
/// Bytes per packet-log event (the event, its table row, the Python frame).
pub(crate) const BYTES_PER_LOG_EVENT: u64 = 768;
/// Bytes per packet a pcap file holds until the end, without a log table:
/// the engine's record of it (measured: about 280 bytes a packet for
/// Starlink Rome's pcap files; twice that charged).
pub(crate) const BYTES_PER_PCAP_PACKET: u64 = 512;

/// What a run records besides its results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recording {
    /// Time series (`--trace`).
    pub trace: bool,
    /// Which of them, and how densely (`--trace-series`, `--trace-every`).
    pub trace_options: TraceOptions,
    /// The per-packet log (`--packet-log`, pcap files): its link directions
    /// and window.
    pub packet_log: Option<PacketLogOptions>,
    /// The log only feeds pcap files (`--pcap` without `--packet-log`): a
    /// packet costs [`BYTES_PER_PCAP_PACKET`], not three table rows, and a
    /// refusal names `--pcap` and its options.
    pub pcap_only: bool,
}

/// The memory limit: `SKYHOP_MEMORY_LIMIT` (a size such as "4 GB"), else a
/// quarter of physical memory (/proc/meminfo's MemTotal), else 4 GB.
pub fn memory_limit() -> Result<u64, String> {
    let env = std::env::var("SKYHOP_MEMORY_LIMIT").ok();
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    limit_from(env.as_deref(), meminfo.as_deref())
}

/// [`memory_limit`] from the variable's value and /proc/meminfo's text.
pub fn limit_from(env: Option<&str>, meminfo: Option<&str>) -> Result<u64, String> {
    if let Some(s) = env {
        return Size::parse(s)
            .map(|x| x.0)
            .map_err(|e| format!("SKYHOP_MEMORY_LIMIT: {e}"));
    }
    let total = meminfo.and_then(|t| {
        t.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb.saturating_mul(1024))
    });
    Ok(total.map_or(4_000_000_000, |t| t / 4))
}

/// One part of the estimate: its key (what to change), bytes, and advice.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub key: String,
    pub bytes: u64,
    pub what: String,
}

/// A run's estimate: what it holds while it runs (`running`) and what its
/// result carries once it is done (`recorded`, kept by whoever keeps the
/// results), by part.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimate {
    pub running: u64,
    pub recorded: u64,
    pub parts: Vec<Part>,
}

impl Estimate {
    fn add(&mut self, recorded: bool, key: String, bytes: u64, what: &str) {
        if recorded {
            self.recorded = self.recorded.saturating_add(bytes);
        } else {
            self.running = self.running.saturating_add(bytes);
        }
        match self.parts.iter_mut().find(|p| p.key == key) {
            Some(p) => p.bytes = p.bytes.saturating_add(bytes),
            None => self.parts.push(Part {
                key,
                bytes,
                what: what.to_string(),
            }),
        }
    }

    /// Everything one run needs.
    pub fn total(&self) -> u64 {
        self.running.saturating_add(self.recorded)
    }

    /// The largest part.
    pub fn largest(&self) -> Option<&Part> {
        self.parts.iter().max_by_key(|p| p.bytes)
    }
}

/// A run's dominant memory, estimated from the plan (nothing recorded).
pub fn estimate_memory(plan: &Plan) -> u64 {
    estimate(plan, &Recording::default()).total()
}

fn sat(x: f64) -> u64 {
    if x.is_finite() && x < 1.8e19 {
        x.max(0.0) as u64
    } else {
        u64::MAX
    }
}

/// A lower bound of a request's round trip over flow `f`'s path: the
/// propagation both ways and one smallest packet's transmission per hop.
fn min_rtt_s(plan: &Plan, f: usize) -> f64 {
    let mut s = 0.0;
    for leg in &plan.flows[f].legs {
        let small = leg.cfg.header_bytes as u64 + 1;
        for &d in leg.fwd.iter().chain(leg.rev.iter()) {
            let l = &plan.links[d as usize];
            s += l.delay.as_secs_f64() + (small * 8) as f64 / l.rate_bps.max(1) as f64;
        }
    }
    s.max(1e-9)
}

/// Full segments a leg's bottleneck can carry over `secs`.
fn segments(plan: &Plan, f: usize, l: usize, secs: f64) -> u64 {
    let n = &plan.flows[f].legs[l].figures;
    sat(n.bottleneck as f64 * secs / 8.0 / n.packet.max(1) as f64) + 1
}

/// A probe's (non-QUIC datagram flow's) datagrams sent over `secs`, and
/// their size; `None` for a flow of segments.
fn probe_sent(plan: &Plan, f: usize, secs: f64) -> Option<(u64, u64)> {
    let flow = &plan.flows[f];
    if !flow.app.datagrams() || flow.quic.is_some() {
        return None;
    }
    let shape = RunShape {
        duration_s: plan.duration.as_secs_f64(),
        min_rtt_s: min_rtt_s(plan, f),
    };
    let (rate, size) = flow.app.bounds(&shape).datagrams?;
    let size = (size as u64).max(1);
    Some((sat(rate as f64 * secs / 8.0 / size as f64) + 1, size))
}

/// Estimate a run of `plan` that records `rec`.
pub fn estimate(plan: &Plan, rec: &Recording) -> Estimate {
    let mut e = Estimate::default();
    let duration_s = plan.duration.as_secs_f64();
    let link_key = |d: usize| {
        let name = plan.links[d].name.split(':').next().unwrap_or("");
        format!("links.{name}")
    };
    for (d, l) in plan.links.iter().enumerate() {
        e.add(
            false,
            format!("{}.queue", link_key(d)),
            (l.queue as u64 + 1).saturating_mul(BYTES_PER_PACKET),
            "lower the queue",
        );
        for c in &l.channels {
            if let Some((bytes, hint)) = c.memory() {
                e.add(false, format!("{}.channel", link_key(d)), bytes, hint);
            }
        }
    }
    for m in &plan.media {
        let bytes = m.spec.memory(m.links.len(), duration_s);
        if bytes > 0 {
            e.add(false, format!("beams.{}", m.name), bytes, "shorten the run");
        }
    }
    // Packets per link direction over the run, for the traces and the log:
    // its rate over the run, and what the legs and probes crossing it send.
    let mut demand = vec![0u64; plan.links.len()];
    let mut smallest = vec![u64::MAX; plan.links.len()];
    for (fi, f) in plan.flows.iter().enumerate() {
        let key = format!("flows.{}", f.name);
        let shape = RunShape {
            duration_s,
            min_rtt_s: min_rtt_s(plan, fi),
        };
        let b = f.app.bounds(&shape);
        // Each leg's largest window: the receive buffer, bounded by what
        // the path holds (bandwidth-delay product plus queues) or the
        // initial window if larger.
        let mut packets: u64 = 0;
        // A probe's legs carry its datagrams (one way, no acknowledgements),
        // not a bottleneck's worth of segments.
        let probe_sent = probe_sent(plan, fi, duration_s);
        for (li, leg) in f.legs.iter().enumerate() {
            let mss = (leg.cfg.mss as u64).max(1);
            let mut path_bytes: u64 = 0;
            for &d in leg.fwd.iter().chain(leg.rev.iter()) {
                let l = &plan.links[d as usize];
                let q = (l.queue as u64).saturating_mul(mss + leg.cfg.header_bytes as u64);
                path_bytes = path_bytes
                    .saturating_add(bytes_in(l.rate_bps, l.delay))
                    .saturating_add(q);
            }
            let window = leg
                .cfg
                .rcv_buffer
                .min(path_bytes.max((leg.cfg.initial_window as u64).saturating_mul(mss)));
            if f.quic.is_none() && probe_sent.is_none() {
                packets = packets.saturating_add(window / mss + 1);
            }
            let (carried_here, small) = match probe_sent {
                Some((sent, size)) => (sent, size),
                None => (
                    segments(plan, fi, li, duration_s)
                        .saturating_add(b.small_packets)
                        .saturating_mul(2),
                    leg.cfg.header_bytes as u64,
                ),
            };
            // A leg across a moving network also crosses the plan's links
            // of its route there (a gateway's fiber), both ways.
            let routed = leg.figures.route_at_start.iter().flat_map(|r| {
                r.windows(2).flat_map(|w| {
                    plan.links.iter().enumerate().filter_map(move |(d, l)| {
                        ((l.from, l.to) == (w[0], w[1]) || (l.from, l.to) == (w[1], w[0]))
                            .then_some(d as u32)
                    })
                })
            });
            // (a probe's datagrams go one way only)
            let back = if probe_sent.is_some() {
                &[][..]
            } else {
                &leg.rev[..]
            };
            let mut crossed: Vec<u32> = leg.fwd.iter().chain(back).copied().collect();
            crossed.extend(routed);
            crossed.sort_unstable();
            crossed.dedup();
            for d in crossed {
                let d = d as usize;
                demand[d] = demand[d].saturating_add(carried_here);
                smallest[d] = smallest[d].min(small);
            }
        }
        // A QUIC flow's datagrams carry their bytes (memory_quic.rs).
        for (key, bytes, what) in super::memory_quic::charge(plan, fi, BYTES_PER_PACKET) {
            e.add(false, key, bytes, what);
        }
        // A probe's datagrams in flight: what each link of its path holds.
        if let Some((rate, size)) = b.datagrams {
            let size = (size as u64).max(1);
            for d in datagram_dirs(plan, fi) {
                let l = &plan.links[d];
                packets =
                    packets.saturating_add(bytes_in(rate.min(l.rate_bps), l.delay) / size + 1);
                if let (true, Some((sent, _))) = (f.legs.is_empty(), probe_sent) {
                    demand[d] = demand[d].saturating_add(sent);
                    smallest[d] = smallest[d].min(size);
                }
            }
        }
        e.add(
            false,
            key.clone(),
            packets.saturating_mul(BYTES_PER_PACKET),
            "lower tcp.rcv_buffer or tcp.initial_window, or the probe's rate",
        );
        let legs = f.legs.len().max(1) as u64;
        let app_bytes = b
            .connections
            .saturating_mul(legs)
            .saturating_mul(BYTES_PER_CONNECTION)
            .saturating_add(b.records.saturating_mul(BYTES_PER_RECORD));
        if app_bytes > 0 {
            e.add(
                false,
                format!("{key}.{}", app_table(f)),
                app_bytes,
                "limit the pages, or shorten run.duration",
            );
        }
    }
    let carried = |d: usize, secs: f64| -> u64 {
        let l = &plan.links[d];
        let by_rate = sat(l.rate_bps as f64 * secs / 8.0 / smallest[d].clamp(1, 65_535) as f64);
        let share = if duration_s > 0.0 {
            sat(demand[d] as f64 * (secs / duration_s).min(1.0))
        } else {
            0
        };
        by_rate.min(share).saturating_add(l.queue as u64 + 1)
    };
    if rec.trace {
        let t = &rec.trace_options;
        // A series holds every change while the run goes; a sampling
        // interval keeps at most one point per interval of it afterwards.
        // A leg's rows and a proxy's points are sampled as they come; a
        // link queue's points are kept until the end, then sampled.
        let kept = |raw: u64| match t.every {
            Some(dt) if dt.0 > 0 => raw.min(plan.duration.0 / dt.0 + 1),
            _ => raw,
        };
        let sampled = |raw: u64, each: u64| kept(raw).saturating_mul(each);
        let bytes = |raw: u64, engine: u64, kept_each: u64| match t.every {
            Some(dt) if dt.0 > 0 => raw
                .saturating_mul(engine)
                .saturating_add(kept(raw).saturating_mul(kept_each)),
            _ => raw.saturating_mul(kept_each),
        };
        let hint = "shorten run.duration, trace fewer runs, or thin the traces (--trace-every, --trace-series)";
        for (fi, f) in plan.flows.iter().enumerate() {
            // A probe keeps one point per datagram received (its one-way
            // delay), whichever series are asked: what it sends, not what
            // its path's bottleneck could carry.
            if let Some((sent, _)) = probe_sent(plan, fi, duration_s) {
                e.add(
                    true,
                    "--trace".into(),
                    sent.saturating_mul(BYTES_PER_TRACE_POINT),
                    hint,
                );
                continue;
            }
            let mut rows: u64 = 0;
            for li in 0..f.legs.len() {
                rows = rows.saturating_add(segments(plan, fi, li, duration_s).saturating_mul(2));
            }
            let legs = if t.wants_sender() { rows } else { 0 };
            let proxies = if t.wants("occupancy") {
                f.proxies.len() as u64 * rows
            } else {
                0
            };
            e.add(
                true,
                "--trace".into(),
                sampled(legs, BYTES_PER_TRACE_ROW)
                    .saturating_add(sampled(proxies, BYTES_PER_TRACE_POINT)),
                hint,
            );
        }
        for d in 0..plan.links.len() {
            if !t.wants("queue") {
                break;
            }
            e.add(
                true,
                "--trace".into(),
                bytes(
                    carried(d, duration_s).saturating_mul(2),
                    ENGINE_BYTES_PER_TRACE_POINT,
                    BYTES_PER_TRACE_POINT,
                ),
                hint,
            );
        }
    }
    if let Some(log) = &rec.packet_log {
        let per_packet = if rec.pcap_only {
            BYTES_PER_PCAP_PACKET
        } else {
            3 * BYTES_PER_LOG_EVENT
        };
        let from = log.from.0.min(plan.duration.0);
        let to = log.to.0.min(plan.duration.0);
        let secs = Dur(to.saturating_sub(from)).as_secs_f64();
        for d in 0..plan.links.len() {
            let logged = log
                .link_dirs
                .as_ref()
                .is_none_or(|ds| ds.contains(&(d as u32)));
            if logged {
                let (key, hint) = if rec.pcap_only {
                    ("--pcap", "narrow it with --pcap-links")
                } else {
                    (
                        "--packet-log",
                        "narrow it with --packet-log-links or --packet-log-window",
                    )
                };
                e.add(
                    true,
                    key.into(),
                    carried(d, secs).saturating_mul(per_packet),
                    hint,
                );
            }
        }
        // The links a moving network builds (pcap files): every segment
        // and ACK of a leg on each built hop of its route at the start (at
        // least the two ground links).
        if plan.motion.is_some() && (log.link_dirs.is_none() || log.built_links) {
            for (fi, f) in plan.flows.iter().enumerate() {
                for (li, leg) in f.legs.iter().enumerate() {
                    let Some(route) = &leg.figures.route_at_start else {
                        continue;
                    };
                    let built = route
                        .windows(2)
                        .filter(|w| !plan.links.iter().any(|l| (l.from, l.to) == (w[0], w[1])))
                        .count();
                    let packets = match probe_sent(plan, fi, secs) {
                        Some((sent, _)) => sent,
                        None => segments(plan, fi, li, secs).saturating_mul(2),
                    };
                    e.add(
                        true,
                        "--packet-log".into(),
                        packets
                            .saturating_mul(built.max(2) as u64)
                            .saturating_mul(per_packet),
                        "narrow it with --packet-log-links or --packet-log-window",
                    );
                }
            }
        }
    }
    e
}

/// The link directions a datagram flow crosses (its path, forward).
fn datagram_dirs(plan: &Plan, f: usize) -> Vec<usize> {
    let path = &plan.flows[f].path;
    path.windows(2)
        .filter_map(|w| {
            plan.links
                .iter()
                .position(|l| l.from == w[0] && l.to == w[1])
        })
        .collect()
}

/// The flow's application table, as the scenario names it.
fn app_table(f: &super::plan::PlanFlow) -> &'static str {
    if f.app.datagrams() {
        "cbr"
    } else {
        "web"
    }
}

/// Bytes for a reader: "51.2 GB", "820 kB", "512 B".
pub(crate) fn human_bytes(b: u64) -> String {
    const UNITS: [(f64, &str); 5] = [
        (1e15, "PB"),
        (1e12, "TB"),
        (1e9, "GB"),
        (1e6, "MB"),
        (1e3, "kB"),
    ];
    for (scale, unit) in UNITS {
        if b as f64 >= scale {
            let x = b as f64 / scale;
            return if x >= 100.0 {
                format!("{x:.0} {unit}")
            } else {
                format!("{x:.1} {unit}")
            };
        }
    }
    format!("{b} B")
}

/// The refusal of an estimate above `limit`: the number, the largest part
/// and what to change.
fn refusal(file: &str, e: &Estimate, need: u64, limit: u64, scope: &str) -> ScenarioError {
    let (key, part) = match e.largest() {
        Some(p) => (
            p.key.clone(),
            format!(
                "; the largest part, {}, about {} ({})",
                p.key,
                human_bytes(p.bytes),
                p.what
            ),
        ),
        None => (String::new(), String::new()),
    };
    ScenarioError::new(
        file,
        key,
        format!(
            "{scope} would need about {} of memory, above the limit of {} ({limit} B){part}; or set SKYHOP_MEMORY_LIMIT, e.g. \"16 GB\", to raise the limit",
            human_bytes(need),
            human_bytes(limit)
        ),
    )
}

/// Refuse a run whose estimated memory (nothing recorded) exceeds the limit.
pub(crate) fn check_memory(plan: &Plan, file: &str) -> Result<(), ScenarioError> {
    check_with(plan, file, &Recording::default(), 1, 1)
}

/// Refuse `runs` runs of `plan` recording `rec`, `jobs` at once, whose
/// memory would exceed the limit: each run in flight holds its running
/// part, and every run's recorded part is kept until the end.
pub fn check_with(
    plan: &Plan,
    file: &str,
    rec: &Recording,
    runs: u64,
    jobs: u64,
) -> Result<(), ScenarioError> {
    let limit = memory_limit().map_err(|m| ScenarioError::new(file, "", m))?;
    check_against(plan, file, rec, runs, jobs, limit)
}

/// [`check_with`] against an explicit limit.
pub fn check_against(
    plan: &Plan,
    file: &str,
    rec: &Recording,
    runs: u64,
    jobs: u64,
    limit: u64,
) -> Result<(), ScenarioError> {
    check_motion(plan, file, limit)?;
    let e = estimate(plan, rec);
    if e.total() > limit {
        return Err(refusal(file, &e, e.total(), limit, "the run"));
    }
    let need = e
        .running
        .saturating_mul(jobs.clamp(1, runs.max(1)))
        .saturating_add(e.recorded.saturating_mul(runs.max(1)));
    if need > limit {
        return Err(refusal(
            file,
            &e,
            need,
            limit,
            &format!("{runs} runs ({} at once)", jobs.clamp(1, runs.max(1))),
        ));
    }
    Ok(())
}

/// Refuse a moving network whose positions, propagators, graph snapshot
/// and routing state (every node towards every flow's destination) would
/// exceed the limit.
fn check_motion(plan: &Plan, file: &str, limit: u64) -> Result<(), ScenarioError> {
    let Some(m) = &plan.motion else {
        return Ok(());
    };
    let dests = plan.flows.len() * 2;
    let need = m.memory_bytes(dests);
    let sats: usize = m.gsls.iter().map(|r| r.sats.len()).sum();
    if need > limit {
        return Err(ScenarioError::new(
            file,
            "constellation",
            format!(
                "{sats} satellites and {} nodes would need about {} for positions and routing state, above the limit of {} ({limit} B); set SKYHOP_MEMORY_LIMIT to raise it, or use a smaller shell",
                m.positions.nodes.len(),
                human_bytes(need),
                human_bytes(limit)
            ),
        ));
    }
    Ok(())
}

/// Refuse a run whose channels and link layers would change state (each a
/// drawn event, e.g. a Gilbert–Elliott chain's switches), or whose media's
/// clocks would tick, more often over `duration` than its event budget
/// allows (and a moving network's route recomputations): a chain of nanosecond sojourns would keep a run busy for hours
/// before its first packet. Each model says its rate (`state_changes`,
/// `clock_events_per_second`).
pub fn check_chains(
    plan: &Plan,
    file: &str,
    duration: Dur,
    budget: u64,
) -> Result<(), ScenarioError> {
    check_chains_over(plan, file, duration, budget, "shorten the run")
}

/// [`check_chains`] over a span other than a run's (a channel plot's):
/// the message ends with `lengthen t_good and t_bad, or <shorten>`.
pub fn check_chains_over(
    plan: &Plan,
    file: &str,
    duration: Dur,
    budget: u64,
    shorten: &str,
) -> Result<(), ScenarioError> {
    let secs = duration.as_secs_f64();
    // (key, state changes per second, what to change to draw fewer).
    let mut chains: Vec<(String, f64, &str)> = Vec::new();
    for (d, l) in plan.links.iter().enumerate() {
        let name = l.name.split(':').next().unwrap_or("");
        let dir = if d % 2 == 0 { "forward" } else { "reverse" };
        for c in &l.channels {
            if let Some((rate, hint)) = c.state_changes() {
                chains.push((format!("links.{name}.channel ({dir})"), rate, hint));
            }
        }
    }
    for layer in &plan.layers {
        if let Some((rate, hint)) = layer.spec.state_changes() {
            chains.push((format!("links.{}.link_layer", layer.name), rate, hint));
        }
    }
    // A moving network's route recomputations, one event each.
    if let Some(m) = &plan.motion {
        use crate::net::mobile::RoutingPolicy;
        let (key, period) = match m.routing {
            RoutingPolicy::Interval(d) => ("routing.update", d),
            RoutingPolicy::Epochs { period, .. } => ("routing.epoch", period),
        };
        let updates = duration.0 / period.0.max(1);
        if updates > budget {
            return Err(ScenarioError::new(
                file,
                key,
                format!(
                    "{} would recompute the routes {updates} times over {}, more than run.event_budget = {budget}: lengthen {key}, or shorten the run",
                    crate::units::Duration(period),
                    crate::units::Duration(duration),
                ),
            ));
        }
    }
    for m in &plan.media {
        let rate = m.spec.clock_events_per_second();
        if rate > 0.0 {
            chains.push((format!("beams.{}", m.name), rate, "lengthen the superframe"));
        }
    }
    for (key, rate, hint) in chains {
        let switches = rate * secs;
        if switches > budget as f64 {
            let key_only = key.split(' ').next().unwrap_or(&key).to_string();
            return Err(ScenarioError::new(
                file,
                key_only,
                format!(
                    "the channel would change state about {switches:.2e} times over {} ({rate:.3e} per second), more than run.event_budget = {budget}: {hint}, or {shorten}",
                    crate::units::Duration(duration),
                ),
            ));
        }
    }
    Ok(())
}
