//! LEO benchmarks (docs/leo.md): the state of a constellation over time,
//! and TCP flows between cities over it.
//!
//! ```sh
//! # B3: routing state for every pair of the 100 cities, Starlink-550, 60 s, 100 ms
//! cargo run --release --example leo -- state starlink-550 60 100
//! # B1: one NewReno flow at 10 Mb/s, 100-packet queues, 200 s, 100 ms updates
//! cargo run --release --example leo -- flows kuiper-630 200 10Mbps Rio-de-Janeiro:Saint-Petersburg
//! # B2: 100 flows between random city pairs (seeded) at a line rate
//! cargo run --release --example leo -- flows kuiper-630 200 1Gbps random:100
//! # or Hypatia's load set-up: a reciprocal pairing of the 100 cities, queues
//! # of 10 packets per Mb/s
//! LEO_QUEUE=10000 cargo run --release --example leo -- flows kuiper-630 10 1Gbps pairing
//! ```
//!
//! With `LEO_GSL=range` in the environment, ground links use Hypatia's
//! rule (a satellite within h / sin(min elevation)) instead of the
//! elevation at the ground station.
//!
//! `flows` builds its scenario from the constellation keys (`[constellation]`
//! with `cities = 100`, docs/scenario.md) and writes `leo_out/<src>_<dst>.csv` (t_s, cwnd_bytes, srtt_s, then
//! the route's propagation RTT at each update) and prints wall time,
//! events and the peak resident memory.

use skyhop::engine::time::Dur;
use skyhop::geo::geodetic_to_ecef;
use skyhop::mobility::cities::cities;
use skyhop::mobility::{preset, Epoch, NodeMotion};
use skyhop::net::mobile::{
    ConstellationPlan, LinkClass, MotionPlan, MovingNet, RoutingPolicy, RoutingState,
};
use skyhop::net::moving::WhenDown;
use skyhop::scenario::{load_str, Plan};
use skyhop::sim::run_plan;
use skyhop::RunOptions;
use std::time::Instant;

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|k| k.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// `LEO_GSL=range`: ground links by Hypatia's range rule instead of the elevation.
fn hypatia_gsl() -> bool {
    std::env::var("LEO_GSL").is_ok_and(|v| v == "range")
}

fn motion(shell_name: &str, rate_bps: u64, queue: u32, update: Dur) -> MotionPlan {
    let p = preset(shell_name).unwrap_or_else(|| panic!("no preset {shell_name}"));
    let sats = p
        .shell
        .orbiters(Epoch::Y2000)
        .unwrap()
        .into_iter()
        .enumerate()
        .map(|(k, o)| {
            let per = p.shell.per_plane as usize;
            (format!("{}-{}-{}", shell_name, k / per, k % per), o)
        })
        .collect();
    let class = |name: &str| LinkClass {
        name: name.into(),
        rate_bps,
        queue,
    };
    // Nodes in name order, as the plan numbers them.
    let mut cs = cities();
    cs.sort_by(|a, b| a.name.cmp(b.name));
    MotionPlan::build(
        cs.iter()
            .map(|c| {
                Some(NodeMotion::Fixed(geodetic_to_ecef(
                    c.lat_deg, c.lon_deg, 0.0,
                )))
            })
            .collect(),
        vec![],
        vec![ConstellationPlan {
            sats,
            isls: p.shell.plus_grid(0),
            min_elevation_deg: p.min_elevation_deg,
            // Hypatia's rule: in range h / sin(elevation).
            max_range_m: hypatia_gsl()
                .then(|| p.shell.altitude_km * 1e3 / p.min_elevation_deg.to_radians().sin()),
            isl: class("isl"),
            gsl: class("gsl"),
        }],
        (0..cs.len() as u32).collect(),
        RoutingPolicy::Interval(update),
        WhenDown::Drop,
        false,
    )
}

fn state(args: &[String]) {
    let shell = &args[0];
    let duration: f64 = args[1].parse().unwrap();
    let update_ms: u64 = args[2].parse().unwrap();
    let t0 = Instant::now();
    let m = motion(shell, 10_000_000, 100, Dur::from_millis(update_ms));
    let nodes = m.positions.nodes.len();
    let mut net = MovingNet::new(m, &[]);
    let mut rs = RoutingState::new(nodes);
    for c in 0..100u32 {
        rs.slot(c);
    }
    let steps = (duration * 1000.0 / update_ms as f64).round() as u64;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut edges = 0;
    let mut reachable = 0u64;
    for k in 0..steps {
        let t = Dur::from_millis(k * update_ms);
        let g = net.snapshot(t.as_secs_f64(), None);
        edges = edges.max(g.edges());
        rs.recompute_on_threads(&g, threads);
        // Count the reachable (source, destination) pairs.
        for s in 0..100 {
            reachable += (0..100u32)
                .filter(|&d| d != s && rs.dist[s as usize][d as usize] < u64::MAX)
                .count() as u64;
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "{shell}: {nodes} nodes, {steps} updates of {update_ms} ms over {duration} s: \
         {wall:.2} s wall on {threads} threads ({:.2} ms per update: positions, {edges} links at most, 100 Dijkstras), \
         {:.1} % of city pairs connected, peak memory {:.1} MB",
        wall * 1e3 / steps as f64,
        100.0 * reachable as f64 / (steps * 9900) as f64,
        peak_rss_mb()
    );
}

fn flows(args: &[String]) {
    let shell = &args[0];
    let duration: f64 = args[1].parse().unwrap();
    let rate = &args[2];
    let mut cs: Vec<&str> = cities().iter().map(|c| c.name).collect();
    cs.sort();
    let pairs: Vec<(String, String)> = if args[3] == "pairing" {
        // Hypatia's load experiment: a random reciprocal pairing of the
        // 100 cities (50 pairs, a flow each way), seeded.
        let mut order: Vec<usize> = (0..100).collect();
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for i in (1..order.len()).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            order.swap(i, (x % (i as u64 + 1)) as usize);
        }
        order
            .chunks(2)
            .flat_map(|p| {
                let (a, b) = (cs[p[0]].to_string(), cs[p[1]].to_string());
                [(a.clone(), b.clone()), (b, a)]
            })
            .collect()
    } else if let Some(n) = args[3].strip_prefix("random:") {
        // A seeded draw of distinct pairs (xorshift), so B2 is repeatable.
        let n: usize = n.parse().unwrap();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut out = Vec::new();
        while out.len() < n {
            let (a, b) = ((next() % 100) as usize, (next() % 100) as usize);
            let p = (cs[a].to_string(), cs[b].to_string());
            if a != b && !out.contains(&p) && !out.contains(&(p.1.clone(), p.0.clone())) {
                out.push(p);
            }
        }
        out
    } else {
        args[3..]
            .iter()
            .map(|p| {
                let (a, b) = p.split_once(':').unwrap();
                (a.to_string(), b.to_string())
            })
            .collect()
    };
    // LEO_QUEUE: packets per queue (default 100).
    let queue = std::env::var("LEO_QUEUE")
        .ok()
        .map_or(100, |q| q.parse().unwrap());
    let rule = if hypatia_gsl() { "range" } else { "elevation" };
    let mut toml = format!(
        "[run]\nduration = \"{duration} s\"\n[nodes]\n\
         [constellation]\npreset = \"{shell}\"\ncities = 100\nground_rule = \"{rule}\"\n\
         isl = {{ rate = \"{rate}\", queue = {queue} }}\n\
         gsl = {{ rate = \"{rate}\", queue = {queue} }}\n"
    );
    for (i, (a, b)) in pairs.iter().enumerate() {
        toml += &format!("[flows.f{i}]\nfrom = \"{a}\"\nto = \"{b}\"\ntcp = \"newreno\"\n");
    }
    let scn = load_str(&toml, "leo-bench.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let plan = Plan::build(&scn, "leo-bench.toml").unwrap_or_else(|e| panic!("{e}"));
    let trace = pairs.len() <= 4;
    let opts = RunOptions {
        trace,
        ..Default::default()
    };
    let t0 = Instant::now();
    let r = run_plan(&plan, 1, &opts).unwrap();
    let wall = t0.elapsed().as_secs_f64();
    let goodput: f64 = r.flows.values().map(|f| f.goodput_bps).sum();
    let net = r.network.clone().unwrap();
    println!(
        "{shell}, {} flow(s) at {rate}, {duration} s: {wall:.2} s wall ({:.3} s per simulated s), \
         {} events, {} packet hops, {} links built, {} route updates, {} unroutable, \
         aggregate goodput {:.2} Mb/s, peak memory {:.1} MB",
        pairs.len(),
        wall / duration,
        r.engine.events,
        r.engine.packet_hops,
        net.links_built,
        net.route_updates,
        net.unroutable,
        goodput / 1e6,
        peak_rss_mb()
    );
    let handovers = r
        .network_events
        .iter()
        .filter(|e| e.kind == "handover")
        .count();
    let changes = r
        .network_events
        .iter()
        .filter(|e| e.kind == "route")
        .count();
    println!("{changes} route events, {handovers} handovers");
    if trace {
        std::fs::create_dir_all("leo_out").unwrap();
        for (i, (a, b)) in pairs.iter().enumerate() {
            let f = format!("f{i}");
            let cwnd = &r.traces[&format!("{f}.0.cwnd")];
            let srtt = &r.traces[&format!("{f}.0.srtt")];
            let there = &r.traces[&format!("route.{a}>{b}.delay")];
            let back = &r.traces[&format!("route.{b}>{a}.delay")];
            let mut out = String::from("t_s,cwnd_bytes,srtt_s\n");
            for j in 0..cwnd.t_s.len() {
                out += &format!("{},{},{}\n", cwnd.t_s[j], cwnd.value[j], srtt.value[j]);
            }
            let mut rtt = String::from("t_s,propagation_rtt_s\n");
            for j in 0..there.t_s.len() {
                rtt += &format!("{},{}\n", there.t_s[j], there.value[j] + back.value[j]);
            }
            std::fs::write(format!("leo_out/{a}_{b}_tcp.csv"), out).unwrap();
            std::fs::write(format!("leo_out/{a}_{b}_rtt.csv"), rtt).unwrap();
            let fr = &r.flows[&f];
            println!(
                "{a} -> {b}: goodput {:.2} Mb/s, {} retransmissions, {} timeouts",
                fr.goodput_bps / 1e6,
                fr.retransmissions,
                fr.timeouts
            );
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("state") => state(&args[1..]),
        Some("flows") => flows(&args[1..]),
        _ => {
            eprintln!("usage: leo state SHELL DURATION_S UPDATE_MS | leo flows SHELL DURATION_S RATE PAIR...");
            std::process::exit(2);
        }
    }
}
