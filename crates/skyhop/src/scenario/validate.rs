//! Every value of a deserialised scenario checked in one pass, before the
//! plan is built: each quantity in its documented range (docs/scenario.md,
//! "Valid ranges"), each table consistent in itself (one loss model of
//! `per`, `ber` or `channel`, `link_loss.rs`; a proxy cache in bytes or in
//! packets; an allocation mode with what it needs), and the tables a seam owns (channel models, applications)
//! checked by their own `validate`. Values that would make a run
//! meaningless (an RTO of zero spins at t = 0) or unbounded in memory are
//! refused with one error naming the full dotted key.
//!
//! Values are checked even where nothing uses them (yet): a `--set` or a
//! sweep may make them used. What needs the network resolved (nodes named
//! by links and flows, paths, legs, sizes in segments of a leg) is
//! checked by [`Plan::build`](super::Plan::build).

use super::schema::*;
use crate::engine::time::Dur;
use crate::error::ScenarioError;
use crate::tcp::params::{tcp_params, InRange, Ranges};
use crate::tcp::TcpConfig;
use crate::units::{Duration, Rate, Size, MAX_BUFFER, MAX_DURATION, MAX_RATE_BPS};

/// Largest number of runs in one scenario.
pub const MAX_RUNS: u32 = 1_000_000;

/// `V::tcp_ranges`: every plain row of the table (`tcp/params.rs`) in its
/// range.
macro_rules! range_checks {
    (plain { $(
        $(#[doc = $doc:literal])*
        $key:ident : $sty:ty => $field:ident : $cty:ty { $($p:pat => $v:expr),+ $(,)? } $range:expr;
    )* } special { $($special:tt)* }) => {
        impl V<'_> {
            fn tcp_ranges(&self, prefix: &str, o: &TcpOptions) -> Result<(), ScenarioError> {
                #[allow(unused_imports)]
                use crate::tcp::params::row::*;
                $(
                    if let Some(x) = &o.$key {
                        x.in_range(&Ranges::$key).map_err(|m| {
                            self.err(format!("{prefix}.{}", stringify!($key)), m)
                        })?;
                    }
                )*
                Ok(())
            }
        }
    };
}
tcp_params!(range_checks!);

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

    /// A loss probability of a link: below 1 (a link that loses every
    /// packet carries nothing).
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

    fn positive(&self, key: &str, d: Option<Duration>) -> Result<(), ScenarioError> {
        match d {
            Some(v) if v.0 == Dur::ZERO => Err(self.err(key, "must be positive")),
            _ => self.dur(key, d, Dur::ZERO, MAX_DURATION),
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
                format!("{v} is out of range: must be at most {MAX_RATE_BPS} bps (10000 Gbps)"),
            )),
            _ => Ok(()),
        }
    }

    /// `[quic]` or a flow's `quic` table: every key in its range.
    fn quic(&self, prefix: &str, o: &QuicOptions) -> Result<(), ScenarioError> {
        o.check()
            .map_err(|(key, m)| self.err(format!("{prefix}.{key}"), m))
    }

    /// A flow's keys agree with its transport: `quic` keys on a QUIC flow
    /// only, TCP's (`tcp`, `legs`, `options`) on a TCP flow only.
    fn transport(&self, name: &str, f: &FlowSection) -> Result<(), ScenarioError> {
        let k = |x: &str| format!("flows.{name}.{x}");
        if f.transport.is_tcp() {
            if !f.quic.is_empty() {
                return Err(self.err(
                    k("quic"),
                    "QUIC keys on a TCP flow: set transport = \"quic\" or remove them",
                ));
            }
            if !f.quic_proxies.is_empty() {
                return Err(self.err(
                    k("quic_proxies"),
                    format!(
                        "QUIC-terminating proxies on a TCP flow: list split-TCP proxies in flows.{name}.proxies, or set transport = \"quic\""
                    ),
                ));
            }
            return Ok(());
        }
        self.quic(&k("quic"), &f.quic)?;
        let quic_flow = "on a QUIC flow (transport = \"quic\"), whose settings are its quic table";
        if let Some(t) = f.tcp {
            return Err(self.err(
                k("tcp"),
                format!(
                    "\"{}\" is a TCP variant {quic_flow} (quic.controller)",
                    t.name()
                ),
            ));
        }
        if let Some(l) = &f.legs {
            return Err(self.err(k("legs"), format!("{} TCP legs {quic_flow}", l.len())));
        }
        if let Ok(serde_json::Value::Object(o)) = serde_json::to_value(&f.options) {
            if let Some((key, value)) = o.iter().next() {
                return Err(self.err(
                    k(&format!("options.{key}")),
                    format!("{value} is a TCP option {quic_flow}"),
                ));
            }
        }
        Ok(())
    }

    fn tcp(&self, prefix: &str, o: &TcpOptions) -> Result<(), ScenarioError> {
        self.tcp_ranges(prefix, o)?;
        if let Some(a) = &o.aero_allocation {
            self.aero(&format!("{prefix}.aero_allocation"), a)?;
        }
        Ok(())
    }

    /// An AeroTCP allocation: each mode with the values it needs, and no
    /// allocation of nothing.
    fn aero(&self, prefix: &str, a: &AeroAllocationSection) -> Result<(), ScenarioError> {
        let k = |f: &str| format!("{prefix}.{f}");
        self.rate(&k("sat_bw"), a.sat_bw)?;
        self.rate(&k("peak_rate"), a.peak_rate)?;
        if a.sat_rtt.is_some_and(|d| d.0 == Dur::ZERO) {
            return Err(self.err(k("sat_rtt"), "the satellite round trip must be positive"));
        }
        self.dur(&k("sat_rtt"), a.sat_rtt, Dur::ZERO, MAX_DURATION)?;
        if a.n == Some(0) {
            return Err(self.err(k("n"), "N = 0 connections: must be at least 1"));
        }
        match a.rule().map_err(|(f, m)| self.err(k(f), m))? {
            AeroRule::Table { rates } => (rates.iter().enumerate())
                .try_for_each(|(i, x)| self.rate(&format!("{}[{i}]", k("rates")), Some(*x))),
            _ => Ok(()),
        }
    }

    fn proxy(&self, prefix: &str, p: &ProxySection) -> Result<(), ScenarioError> {
        let k = |f: &str| format!("{prefix}.{f}");
        if let Some(c) = p.cache_packets {
            if c > MAX_BUFFER {
                return Err(self.err(
                    k("cache_packets"),
                    format!("{c} is out of range: must be at most {MAX_BUFFER} packets"),
                ));
            }
        }
        self.size(&k("cache"), p.cache, 0, MAX_BUFFER)?;
        self.size(&k("recv_buffer"), p.recv_buffer, 0, MAX_BUFFER)?;
        self.size(&k("send_buffer"), p.send_buffer, 0, MAX_BUFFER)?;
        super::proxy_sizing::sizing(p).map_err(|(f, m)| self.err(k(f), m))?;
        Ok(())
    }

    /// The loss model of a link's table or a direction's (`link_loss.rs`).
    fn losses(
        &self,
        prefix: &str,
        read: Result<Option<super::link_loss::LossModel<'_>>, (String, String)>,
    ) -> Result<(), ScenarioError> {
        read.map(|_| ())
            .map_err(|(f, m)| self.err(format!("{prefix}.{f}"), m))
    }

    fn dir(&self, prefix: &str, d: &DirSection) -> Result<(), ScenarioError> {
        let k = |f: &str| format!("{prefix}.{f}");
        self.rate(&k("rate"), d.rate)?;
        self.dur(&k("delay"), d.delay, Dur::ZERO, MAX_DURATION)?;
        self.losses(prefix, d.loss())
    }

    fn flow(&self, name: &str, f: &FlowSection) -> Result<(), ScenarioError> {
        let k = |x: &str| format!("flows.{name}.{x}");
        if f.size == Some(FlowSize::Bytes(0)) {
            return Err(self.err(k("size"), "must be positive (or \"unlimited\")"));
        }
        if f.headers.is_some() {
            let file = f.app.is_none() && matches!(f.size, Some(FlowSize::Bytes(_)));
            if !file || !f.transport.is_tcp() {
                return Err(self.err(
                    k("headers"),
                    "applies to a TCP file transfer only (a flow with a size in bytes and no app)",
                ));
            }
        }
        // The application's table: its own checks (app/).
        f.tables
            .validate(f.app)
            .map_err(|(x, m)| self.err(k(&x), m))
    }
}

impl V<'_> {
    /// A node's altitude and route.
    fn motion(
        &self,
        name: &str,
        n: &crate::scenario::schema::NodeSection,
    ) -> Result<(), ScenarioError> {
        let k = |f: &str| format!("nodes.{name}.{f}");
        if let Some(a) = n.altitude {
            self.in_range(&k("altitude"), Some(a.0), 0.0, 1e9)?;
            if n.geo_longitude.is_some() {
                return Err(self.err(
                    k("altitude"),
                    "a GEO by geo_longitude is at the geostationary radius: give no altitude",
                ));
            }
            if n.lat.is_none() {
                return Err(self.err(k("altitude"), "an altitude needs lat and lon"));
            }
        }
        if let Some(r) = &n.route {
            if n.lat.is_some() || n.geo_longitude.is_some() || n.altitude.is_some() {
                return Err(self.err(
                    k("route"),
                    "a node on a route takes its place from the waypoints: give no lat, lon, altitude or geo_longitude",
                ));
            }
            if r.waypoints.is_empty() {
                return Err(self.err(k("route.waypoints"), "a route needs at least one waypoint"));
            }
            for (i, w) in r.waypoints.iter().enumerate() {
                let wk = |f: &str| format!("nodes.{name}.route.waypoints[{i}].{f}");
                self.in_range(&wk("lat"), Some(w.lat), -90.0, 90.0)?;
                self.in_range(&wk("lon"), Some(w.lon), -180.0, 180.0)?;
                self.in_range(&wk("altitude"), w.altitude.map(|a| a.0), 0.0, 1e9)?;
            }
        }
        Ok(())
    }

    /// The constellation's ranges (the shell's own checks run when it is built).
    fn constellation(&self, scn: &Scenario) -> Result<(), ScenarioError> {
        let Some(c) = &scn.constellation else {
            return Ok(());
        };
        self.in_range("constellation.min_elevation", c.min_elevation, 0.0, 90.0)?;
        self.in_range("constellation.inclination", c.inclination, 0.0, 180.0)?;
        if let Some(n) = c.cities {
            if !(1..=100).contains(&n) {
                return Err(self.err(
                    "constellation.cities",
                    format!("{n} is out of range: must be between 1 and 100 (the cities shipped)"),
                ));
            }
        }
        // A node of the scenario named like one of the cities added would
        // silently take its place.
        let added = crate::mobility::cities::cities();
        let added = &added[..(c.cities.unwrap_or(0) as usize).min(added.len())];
        if let Some((rank, city)) = added
            .iter()
            .enumerate()
            .find(|(_, city)| scn.nodes.contains_key(city.name))
        {
            return Err(self.err(
                format!("nodes.{}", city.name),
                format!(
                    "{:?} is also city {} of the {} constellation.cities adds: rename the node (or lower constellation.cities)",
                    city.name,
                    rank + 1,
                    added.len()
                ),
            ));
        }
        if c.gsl.as_ref().is_some_and(|g| g.shift.is_some()) {
            return Err(self.err(
                "constellation.gsl.shift",
                "only inter-satellite links have a slot shift (constellation.isl.shift)",
            ));
        }
        if c.tle.is_some() && (c.preset.is_some() || c.planes.is_some() || c.altitude.is_some()) {
            return Err(self.err(
                "constellation.tle",
                "give either a TLE file or a shell (preset, planes, per_plane, altitude, inclination), not both",
            ));
        }
        for (k, cl) in [("isl", &c.isl), ("gsl", &c.gsl)] {
            if let Some(cl) = cl {
                if cl.queue == Some(0) {
                    return Err(self.err(
                        format!("constellation.{k}.queue"),
                        "must be at least 1 packet",
                    ));
                }
            }
        }
        if let Some(r) = &scn.routing {
            self.positive("routing.update", r.update)?;
            self.positive("routing.epoch", r.epoch)?;
        }
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

/// Check every value. Runs first in [`Plan::build`](super::Plan::build).
pub(crate) fn check(scn: &Scenario, file: &str) -> Result<(), ScenarioError> {
    let v = V { file };

    // ---- run ----
    if scn.run.event_budget == 0 {
        return Err(v.err("run.event_budget", "must be at least 1 event"));
    }
    if scn.run.runs == 0 || scn.run.runs > MAX_RUNS {
        return Err(v.err(
            "run.runs",
            format!(
                "{} is out of range: must be between 1 and {MAX_RUNS}",
                scn.run.runs
            ),
        ));
    }
    v.positive("run.duration", scn.run.duration)?;

    // ---- nodes ----
    for (name, n) in &scn.nodes {
        let k = |f: &str| format!("nodes.{name}.{f}");
        v.in_range(&k("lat"), n.lat, -90.0, 90.0)?;
        v.in_range(&k("lon"), n.lon, -180.0, 180.0)?;
        v.in_range(&k("geo_longitude"), n.geo_longitude, -180.0, 180.0)?;
        let key = format!("nodes.{name}");
        if n.lat.is_some() != n.lon.is_some() {
            return Err(v.err(key, "give both lat and lon, or neither"));
        }
        if n.lat.is_some() && n.geo_longitude.is_some() {
            return Err(v.err(key, "a node is either on the ground (lat, lon) or a GEO satellite (geo_longitude), not both"));
        }
        if let Some(p) = &n.proxy {
            v.proxy(&k("proxy"), p)?;
        }
        v.motion(name, n)?;
    }
    v.constellation(scn)?;

    // ---- links ----
    for (name, l) in &scn.links {
        let prefix = format!("links.{name}");
        let k = |f: &str| format!("{prefix}.{f}");
        v.rate(&k("rate"), l.rate)?;
        v.dur(&k("delay"), l.delay, Dur::ZERO, MAX_DURATION)?;
        v.losses(&prefix, l.loss())?;
        if let Some(d) = &l.forward {
            v.dir(&k("forward"), d)?;
        }
        if let Some(d) = &l.reverse {
            v.dir(&k("reverse"), d)?;
        }
        v.in_range(&k("min_elevation"), l.min_elevation, 0.0, 90.0)?;
    }

    // ---- TCP, QUIC ----
    v.tcp("tcp", &scn.tcp)?;
    v.quic("quic", &scn.quic)?;
    for (name, f) in &scn.flows {
        // The defaults of the flow's profile.
        let d = TcpConfig::table_defaults(f.options.profile_under(&scn.tcp));
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
        // With timestamps the option takes 12 bytes of every segment.
        let ts = o.timestamps.or(g.timestamps).unwrap_or(d.timestamps);
        let (kmss, mss) = pick(o.mss, ok("mss"), g.mss, "tcp.mss");
        if let (true, Some(k), Some(m)) = (ts, kmss, mss) {
            if m.0 <= 12 {
                return Err(v.err(
                    k,
                    format!("{m} leaves no payload beside the 12-byte timestamp option (tcp.timestamps)"),
                ));
            }
        }
        v.flow(name, f)?;
        v.transport(name, f)?;
    }
    Ok(())
}
