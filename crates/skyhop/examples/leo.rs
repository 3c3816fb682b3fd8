//! LEO benchmark B3 (docs/leo.md): the routing state of a constellation
//! over time.
//!
//! ```sh
//! # routing state for every pair of the 100 cities, Starlink-550, 60 s, 100 ms
//! cargo run --release --example leo -- state starlink-550 60 100
//! ```
//!
//! The flow benchmarks B1 and B2 are scenarios (`benches/leo_b1_*.toml`,
//! `benches/leo_b2_kuiper_1g.toml`), run by `skyhop bench` like the others.

use skyhop::engine::time::Dur;
use skyhop::geo::geodetic_to_ecef;
use skyhop::mobility::cities::cities;
use skyhop::mobility::{preset, Epoch, NodeMotion};
use skyhop::net::mobile::{
    ConstellationPlan, LinkClass, MotionPlan, MovingNet, RoutingPolicy, RoutingState,
};
use skyhop::net::moving::WhenDown;
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
            max_range_m: None,
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("state") => state(&args[1..]),
        _ => {
            eprintln!("usage: leo state SHELL DURATION_S UPDATE_MS");
            std::process::exit(2);
        }
    }
}
