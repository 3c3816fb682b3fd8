//! A constellation's random start (`constellation.start_spread`): each run
//! advances the orbits by an offset drawn from its seed, so that seeds
//! sample different geometries of the same scenario. Exactly: the same
//! seed gives the same run; another seed another offset and other routes;
//! a run with the offset is the run whose t = 0 is that much later along
//! the orbits (the constellation's epoch moved by hand); the offset is
//! range-checked; without the key nothing changes (the golden runs).

use super::common::scenario;
use skyhop::engine::time::Dur;
use skyhop::mobility::{preset, Epoch, NodeMotion, Orbiter, Positions};
use skyhop::scenario::Plan;
use skyhop::sim::{run_plan, run_plan_with};
use skyhop::{RunOptions, RunResult};
use std::sync::Arc;

/// A 1 MB download from Frankfurt to Rome over the first Starlink shell
/// by geometry, 2 s, with runs spread over one orbit (95 min).
fn spread_plan(spread: &str) -> Plan {
    let set = format!("constellation.start_spread=\"{spread}\"");
    let scn = scenario(
        "leo_rome_geometric.toml",
        &["run.duration=\"2 s\"", "flows.download.size=\"1 MB\"", &set],
    );
    Plan::build(&scn, "leo_rome_geometric.toml").unwrap()
}

fn offset(r: &RunResult) -> f64 {
    let e: Vec<_> = r
        .network_events
        .iter()
        .filter(|e| e.kind == "start_offset")
        .collect();
    assert_eq!(e.len(), 1, "{:?}", r.network_events);
    assert_eq!(e[0].t_s, 0.0);
    e[0].delay_s.unwrap()
}

fn first_path(r: &RunResult) -> String {
    r.network_events
        .iter()
        .find(|e| e.kind == "route" && e.route == "server>Rome")
        .unwrap()
        .new
        .clone()
}

#[test]
fn seeds_draw_their_own_start_and_the_same_seed_the_same_run() {
    let plan = spread_plan("95 min");
    let opts = RunOptions::default();
    let a = run_plan(&plan, 1, &opts).unwrap();
    assert_eq!(a, run_plan(&plan, 1, &opts).unwrap());
    let runs: Vec<RunResult> = (2..=5)
        .map(|s| run_plan(&plan, s, &opts).unwrap())
        .collect();
    let mut offsets: Vec<f64> = std::iter::once(&a).chain(&runs).map(offset).collect();
    // In [0, 95 min], all different, and so are the geometries: the first
    // route down to Rome differs between at least two of five seeds.
    assert!(
        offsets.iter().all(|&o| (0.0..=5700.0).contains(&o)),
        "{offsets:?}"
    );
    offsets.sort_by(f64::total_cmp);
    offsets.dedup();
    assert_eq!(offsets.len(), 5);
    let mut paths: Vec<String> = std::iter::once(&a).chain(&runs).map(first_path).collect();
    paths.sort();
    paths.dedup();
    assert!(paths.len() >= 2, "{paths:?}");
    // Every download still finishes.
    for r in std::iter::once(&a).chain(&runs) {
        assert!(r.flows["download"].completion_time_s.is_some());
    }
}

#[test]
fn the_offset_is_the_constellations_start_moved_by_hand() {
    let plan = spread_plan("95 min");
    let opts = RunOptions::default();
    let drawn = run_plan(&plan, 3, &opts).unwrap();
    let by = offset(&drawn);
    assert!(by > 1.0, "{by}");
    // The same scenario without the spread, its orbits made by hand from
    // the shell's elements with t = 0 moved `by` seconds past the
    // constellation's start (2000-01-01T00:00:00Z).
    let base = spread_plan("0 s");
    let m = base.motion.as_ref().unwrap();
    assert_eq!(m.start_spread, Dur::ZERO);
    let elements = preset("starlink-550").unwrap().shell.elements(Epoch::Y2000);
    let first_sat = base.nodes.len();
    let mut nodes = m.positions.nodes.clone();
    for (k, e) in elements.iter().enumerate() {
        let o = Orbiter::new(e, Epoch::Y2000.plus_s(by)).unwrap();
        nodes[first_sat + k] = Some(NodeMotion::Orbit(o));
    }
    let mut moved = m.clone();
    moved.positions = Arc::new(Positions { nodes });
    let by_hand = run_plan_with(&base, Some(&moved), 3, &opts).unwrap();
    // The drawn run is the hand-moved one, event for event, but for the
    // record of its offset.
    let mut events = drawn.network_events.clone();
    events.retain(|e| e.kind != "start_offset");
    assert_eq!(events, by_hand.network_events);
    assert_eq!(drawn.flows, by_hand.flows);
    assert_eq!(drawn.engine, by_hand.engine);
    assert_eq!(drawn.links, by_hand.links);
    // And it is not the unshifted run.
    let unshifted = run_plan(&base, 3, &opts).unwrap();
    assert!(unshifted
        .network_events
        .iter()
        .all(|e| e.kind != "start_offset"));
    assert_ne!(first_path(&unshifted), first_path(&drawn));
}

#[test]
fn the_spread_is_range_checked() {
    let text = std::fs::read_to_string(format!(
        "{}/../../scenarios/leo_rome_geometric.toml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    for (v, ok) in [("43200 min", true), ("2592001 s", false), ("-1 s", false)] {
        let sets = vec![format!("constellation.start_spread=\"{v}\"")];
        let r = skyhop::scenario::load_str(&text, "s.toml", &sets);
        match (r, ok) {
            (Ok(_), true) => {}
            (Err(e), false) => {
                assert_eq!(e.key, "constellation.start_spread", "{e}");
                assert!(!e.to_string().contains('\n'));
            }
            (r, _) => panic!("{v}: {:?}", r.map(|_| ())),
        }
    }
}

#[test]
fn under_the_starlink_preset_each_run_plans_its_epochs_on_its_own_orbits() {
    // A small download across the boundary at 12 s: epochs 0 and 1.
    let sets = [
        "run.duration=\"13 s\"",
        "flows.download.size=\"200 kB\"",
        "flows.download.start=\"11.9 s\"",
        "constellation.start_spread=\"95 min\"",
    ];
    let scn = scenario("starlink_rome.toml", &sets);
    let plan = Plan::build(&scn, "starlink_rome.toml").unwrap();
    let opts = RunOptions::default();
    let epochs = |r: &RunResult| -> Vec<(f64, String)> {
        r.network_events
            .iter()
            .filter(|e| e.kind == "epoch")
            .map(|e| (e.t_s, e.new.clone()))
            .collect()
    };
    let mut seen = std::collections::BTreeSet::new();
    for seed in 1..=3 {
        let r = run_plan(&plan, seed, &opts).unwrap();
        assert_eq!(r, run_plan(&plan, seed, &opts).unwrap());
        // The epochs stay on the simulation's clock.
        let e = epochs(&r);
        assert_eq!(e.iter().map(|x| x.0).collect::<Vec<_>>(), [0.0, 12.0]);
        // The run's paths are those of an access network over its own
        // orbits: the plan's, moved by the run's offset.
        let by = offset(&r);
        let m = plan.motion.as_ref().unwrap();
        let net = m
            .access
            .as_ref()
            .unwrap()
            .with_positions(Arc::new(m.positions.orbits_shifted(by)));
        let name = |n: u32| {
            plan.nodes
                .iter()
                .chain(m.extra_nodes.iter())
                .nth(n as usize)
                .unwrap()
                .clone()
        };
        for (k, (t, path)) in e.iter().enumerate() {
            let a = net.plan(k as u64).terminals[0].clone().unwrap();
            let want: Vec<String> = a.path.iter().map(|&n| name(n)).collect();
            assert_eq!(*path, want.join(","), "seed {seed} at {t} s");
        }
        assert!(r.flows["download"].completion_time_s.is_some());
        seen.insert(e.into_iter().map(|x| x.1).collect::<Vec<String>>());
    }
    // Three seeds, three geometries.
    assert_eq!(seen.len(), 3, "{seen:?}");
}
