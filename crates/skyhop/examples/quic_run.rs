//! `cargo run --release --example quic_run -- SCENARIO.toml SEED [--set k=v ...]
//! [--controller C] [--terminate NODE,...]`: run one seed with every flow
//! over QUIC (quinn's defaults, the controller `C`), QUIC-terminating
//! proxies at the NODEs of a flow's `proxies` list, and print the result as
//! JSON. A developer tool for the validation harnesses (the scenario keys
//! `flows.<id>.transport` and `quic` do the same from `skyhop run`).

use skyhop::quic::{QuicConfig, QuicController};
use skyhop::scenario::{load_path, Plan};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = &args[0];
    let seed: u64 = args[1].parse().expect("SEED");
    let mut sets = Vec::new();
    let mut cfg = QuicConfig::default();
    let mut terminate: Vec<String> = Vec::new();
    let mut i = 2;
    while i < args.len() {
        match args[i].as_str() {
            "--set" => sets.push(args[i + 1].clone()),
            "--controller" => {
                cfg.controller = QuicController::parse(&args[i + 1]).expect("newreno|cubic|bbr")
            }
            "--terminate" => terminate = args[i + 1].split(',').map(String::from).collect(),
            a => panic!("unknown argument {a}"),
        }
        i += 2;
    }
    let scn = load_path(path, &sets).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2);
    });
    let mut plan = Plan::build(&scn, path).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2);
    });
    for f in &mut plan.flows {
        f.quic = Some(cfg.clone());
        for p in &mut f.proxies {
            if terminate.contains(&plan.nodes[p.node as usize]) {
                p.quic = Some(cfg.clone());
            }
        }
    }
    let r =
        skyhop::sim::run_plan(&plan, seed, &skyhop::RunOptions::default()).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(2);
        });
    println!("{}", serde_json::to_string(&r).unwrap());
}
