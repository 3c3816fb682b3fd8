//! Reproducibility and byte conservation through whole scenarios.

use crate::common;
use common::*;
use skyhop::tcp::Variant;

#[test]
fn the_same_scenario_and_seed_give_an_identical_serialised_result() {
    // Lossy on every link, both directions, with a split proxy: every
    // random stream and timer is exercised.
    let scn = scenario(
        "e1_haps.toml",
        &["flows.ftp.proxies=[\"T\"]", "links.ts.per=0.01"],
    );
    let a = serde_json::to_string(&run_ok(&scn, 7)).unwrap();
    // Another seed in between must not disturb the streams of seed 7.
    let _ = run_ok(&scn, 8);
    let b = serde_json::to_string(&run_ok(&scn, 7)).unwrap();
    assert_eq!(a, b);
    // Also from threads running other seeds at the same time.
    let seeds = [7u64, 9, 7, 10];
    let jsons = par_map(&seeds, |&s| {
        serde_json::to_string(&run_ok(&scn, s)).unwrap()
    });
    assert_eq!(jsons[0], a);
    assert_eq!(jsons[2], a);
}

#[test]
fn different_seeds_lose_different_packets() {
    let scn = scenario("e1_haps.toml", &[]);
    let runs: Vec<_> = (1..=5).map(|s| run_ok(&scn, s)).collect();
    let outcome = |r: &skyhop::RunResult| {
        let f = &r.flows["ftp"];
        (
            f.completion_time_s.unwrap().to_bits(),
            f.retransmissions,
            r.engine.channel_drops,
        )
    };
    for i in 0..runs.len() {
        for j in i + 1..runs.len() {
            assert_ne!(
                outcome(&runs[i]),
                outcome(&runs[j]),
                "seeds {} and {} ran alike",
                i + 1,
                j + 1
            );
        }
    }
    // PER 1 % on W-U and 0.1 % on T-S and S-G, both directions: the
    // ~3400 data packets of 5 MB lose ~1.2 % on the way, ACKs alike.
    for r in &runs {
        assert!(r.engine.channel_drops > 20, "{}", r.engine.channel_drops);
    }
}

#[test]
fn lossy_transfers_deliver_every_byte_exactly_once_with_every_variant_and_proxy_layout() {
    // The simulator's ByteLedger stops a run with an error on any duplicate,
    // gap or phantom byte, and a proxy cache overflow is an error too; here
    // every variant must finish a 1 MB transfer through 3 % PER on data and
    // ACKs on three links, end to end and split once or twice.
    let mut jobs = Vec::new();
    for v in Variant::names() {
        for proxies in ["[]", "[\"T\"]", "[\"T\",\"S\"]"] {
            for seed in 1..=2u64 {
                jobs.push((v, proxies, seed));
            }
        }
    }
    let size = 1_000_000u64;
    let outcomes = par_map(&jobs, |&(v, proxies, seed)| {
        let tcp = format!("flows.ftp.tcp={v}");
        let px = format!("flows.ftp.proxies={proxies}");
        let scn = scenario(
            "e1_haps.toml",
            &[
                &tcp,
                &px,
                "flows.ftp.size=1 MB",
                "links.wu.per=0.03",
                "links.ts.per=0.03",
                "links.sg.per=0.03",
                "nodes.T.proxy.cache_packets=40",
                "nodes.S.proxy.cache_packets=40",
                "run.duration=3600 s",
            ],
        );
        skyhop::run(&scn, seed, &skyhop::RunOptions::default())
            .map(|r| (r.flows["ftp"].clone(), r.engine.channel_drops))
            .map_err(|e| e.to_string())
    });
    for ((v, proxies, seed), out) in jobs.iter().zip(outcomes) {
        let (f, drops) = out.unwrap_or_else(|e| panic!("{v} {proxies} seed {seed}: {e}"));
        assert_eq!(f.bytes_delivered, size, "{v} {proxies} seed {seed}");
        assert!(f.completion_time_s.is_some(), "{v} {proxies} seed {seed}");
        assert!(
            drops > 0 && f.retransmissions > 0,
            "{v} {proxies}: no losses?"
        );
        // The run stops when the application has the last byte; the last
        // ACKs may still be on their way back.
        for leg in &f.legs {
            assert!(
                leg.bytes_acked <= size,
                "{v} {proxies} seed {seed}: {leg:?}"
            );
        }
    }
}
