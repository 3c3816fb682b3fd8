//! `cargo run --release --example run -- SCENARIO.toml [SEED] [--set k=v ...]`:
//! run one seed and print the result as JSON (a developer tool; users have the
//! `skyhop` command).
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = &args[0];
    let mut seed = 1;
    let mut sets = Vec::new();
    let mut trace = false;
    let mut i = 1;
    while i < args.len() {
        if args[i] == "--trace" {
            trace = true;
            i += 1;
        } else if args[i] == "--set" {
            sets.push(args[i + 1].clone());
            i += 2;
        } else {
            seed = args[i].parse().unwrap();
            i += 1;
        }
    }
    let scn = match skyhop::scenario::load_path(path, &sets) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let t0 = std::time::Instant::now();
    match skyhop::run(
        &scn,
        seed,
        &skyhop::RunOptions {
            trace,
            ..Default::default()
        },
    ) {
        Ok(r) => {
            let wall = t0.elapsed().as_secs_f64();
            let mut v = serde_json::to_value(&r).unwrap();
            v["wall_s"] = serde_json::json!(wall);
            v["events_per_s"] = serde_json::json!(r.engine.events as f64 / wall);
            v["hops_per_s"] = serde_json::json!(r.engine.packet_hops as f64 / wall);
            v["peak_packets"] = serde_json::json!(r.engine.peak_packets);
            println!("{}", serde_json::to_string_pretty(&v).unwrap());
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
