//! `cargo run --release --example bench -- [SCENARIO.toml...] [--repeat N]`:
//! engine-only speed (no Python): runs each scenario for its `run.runs`
//! seeds (or N), one after the other on one thread, N times over, and prints
//! the best events/s and packet-hops/s of the repetitions. Without a
//! scenario it runs the list `skyhop bench` runs by default (from the
//! repository root). A developer tool for comparing engine builds; users
//! have `skyhop bench`.

/// `skyhop bench`'s default list (`python/skyhop/bench.py`): the E1 chain,
/// the 1 Gb/s dumbbell and B2 of docs/leo.md.
const DEFAULT_BENCHES: [&str; 3] = [
    "benches/e1_chain.toml",
    "benches/dumbbell_1g.toml",
    "benches/leo_b2_kuiper_1g.toml",
];

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 5;
    if let Some(i) = args.iter().position(|a| a == "--repeat") {
        repeat = args[i + 1].parse().expect("--repeat N");
        args.drain(i..i + 2);
    }
    if args.is_empty() {
        args = DEFAULT_BENCHES.iter().map(|s| s.to_string()).collect();
    }
    for path in &args {
        let scn = skyhop::scenario::load_path(path, &[]).unwrap_or_else(|e| panic!("{e}"));
        let mut best = (0.0f64, 0.0f64);
        let mut total = 0u64;
        for _ in 0..repeat {
            let (mut events, mut hops) = (0u64, 0u64);
            let t0 = std::time::Instant::now();
            for i in 0..scn.run.runs as u64 {
                let r = skyhop::run(&scn, scn.run.seed + i, &skyhop::RunOptions::default())
                    .unwrap_or_else(|e| panic!("{e}"));
                events += r.engine.events;
                hops += r.engine.packet_hops;
            }
            let wall = t0.elapsed().as_secs_f64();
            total = events;
            let eps = events as f64 / wall;
            if eps > best.0 {
                best = (eps, hops as f64 / wall);
            }
        }
        println!(
            "{path}: {total} events, {:.2} M events/s, {:.2} M packet-hops/s (best of {repeat})",
            best.0 / 1e6,
            best.1 / 1e6
        );
        #[cfg(feature = "event-cycles")]
        print_cycles();
    }
}

/// Cycles by kind of event over every run of the case (feature `event-cycles`).
#[cfg(feature = "event-cycles")]
fn print_cycles() {
    let t = skyhop::sim::cycles::take();
    let events: u64 = t.iter().map(|(_, c)| c.events).sum();
    let cycles: u64 = t.iter().map(|(_, c)| c.cycles).sum();
    println!(
        "  {:<18} {:>12} {:>10} {:>8} {:>14}",
        "event kind", "events", "cycles/ev", "share", "per any event"
    );
    for (k, c) in &t {
        println!(
            "  {:<18} {:>12} {:>10.0} {:>7.1}% {:>14.1}",
            k.name(),
            c.events,
            c.cycles as f64 / c.events as f64,
            100.0 * c.cycles as f64 / cycles as f64,
            c.cycles as f64 / events as f64
        );
    }
    println!(
        "  {:<18} {:>12} {:>10.0}",
        "all",
        events,
        cycles as f64 / events as f64
    );
}
