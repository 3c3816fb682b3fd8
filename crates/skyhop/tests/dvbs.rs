//! The DVB-S link layer (ACM, SR-ARQ, return path) end to end through scenarios.

use skyhop::scenario::{load_str, Plan};
use skyhop::sim::run_plan;
use skyhop::{RunOptions, RunResult};

const E6: &str = include_str!("../../../scenarios/e6_geo_3g.toml");

fn plan(text: &str, sets: &[&str]) -> Plan {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scn = load_str(text, "e6.toml", &sets).expect("scenario loads");
    Plan::build(&scn, "e6.toml").expect("plan builds")
}

fn run(text: &str, sets: &[&str], seed: u64) -> RunResult {
    run_plan(&plan(text, sets), seed, &RunOptions::default()).expect("run")
}

#[test]
fn smoke() {
    for sets in [
        vec![],
        vec!["links.sat.link_layer.asto=false"],
        vec!["links.sat.link_layer.arq=false"],
        vec!["links.sat.link_layer.acm=fixed-lbw", "links.sat.link_layer.arq=false"],
        vec!["links.sat.link_layer.acm=fixed-hbw"],
    ] {
        let t = std::time::Instant::now();
        let r = run(E6, &sets, 1);
        let f = &r.flows["ftp"];
        eprintln!(
            "{sets:?}: goodput {:.0} kB/s to {} rtx {} ev {} {:?} links {:?}",
            f.goodput_bps / 8000.0,
            f.timeouts,
            f.retransmissions,
            r.engine.events,
            t.elapsed(),
            r.links.iter().map(|l| (l.delivered, l.channel_drops, l.link_drops, l.queue_drops)).collect::<Vec<_>>()
        );
    }
}
