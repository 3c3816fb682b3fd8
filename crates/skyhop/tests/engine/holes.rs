//! `benches/holes.toml` (thousands of out-of-order holes in a 1 GB window)
//! runs to its end, and the cost of a run is bounded by its events, not by
//! the number of holes times the number of segments.
//!
//! The cost is counted, not timed: the treap nodes the range sets (the
//! receiver's reassembly queue, the sender's SACK scoreboard) visit, per
//! event (`tcp::rangeset::counts`, built with the `op-counts` feature, as
//! `make test` builds the tests; alone: `cargo test --release -p skyhop
//! --features op-counts --test engine holes::`). The
//! benchmark's initial window sets how many holes the first round trip
//! leaves; at a tenth and a hundredth of it the same run has a tenth and a
//! hundredth of the holes. Per event, an O(log n) structure visits a few
//! nodes more per tenfold; one that scans its ranges visits ten times more.

/// Loads the benchmark with `sets` applied and runs it with seed 1; returns
/// the result, the treap node visits per event and the most ranges one
/// treap held.
#[cfg(feature = "op-counts")]
fn holes_run(sets: &[String]) -> (skyhop::RunResult, f64, u64) {
    use skyhop::tcp::rangeset::counts;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/holes.toml");
    let scn = skyhop::scenario::load_path(path, sets).expect("benches/holes.toml loads");
    counts::reset();
    let r = skyhop::run(&scn, 1, &skyhop::RunOptions::default()).expect("the run completes");
    let per_event = counts::nodes_visited() as f64 / r.engine.events as f64;
    (r, per_event, counts::largest_treap())
}

#[cfg(feature = "op-counts")]
#[test]
fn the_holes_benchmark_runs_to_completion_at_a_cost_bounded_by_its_events() {
    // NewReno (the benchmark): the holes are in the receiver's reassembly
    // queue. SACK: in the sender's scoreboard too, queried on every ACK.
    for tcp in ["newreno", "sack"] {
        let mut at = Vec::new();
        for iw in [1_000u64, 10_000, 100_000] {
            let sets = [
                format!("tcp.initial_window={iw}"),
                format!("flows.bulk.tcp=\"{tcp}\""),
            ];
            let (r, v, ranges) = holes_run(&sets);
            eprintln!(
                "{tcp}, initial window {iw}: {} events, {} losses, at most {ranges} ranges \
                 in a treap, {v:.2} node visits per event",
                r.engine.events, r.engine.channel_drops
            );
            assert!(r.flows["bulk"].bytes_delivered > 0);
            at.push((iw, v, ranges));
            if iw == 100_000 {
                // The benchmark's window: thousands of holes, hundreds of
                // thousands of events, a few node visits per event.
                assert!(r.engine.events > 400_000, "{} events", r.engine.events);
                let drops = r.engine.channel_drops;
                assert!(drops > 1000, "{drops} losses");
                assert!(ranges > 2_000, "{ranges} ranges");
                assert!(v < 20.0, "{tcp}: {v:.2} node visits per event");
            }
        }
        for w in at.windows(2) {
            let ((iw0, v0, n0), (iw1, v1, n1)) = (w[0], w[1]);
            // Each tenfold of the window holds several times the holes...
            assert!(n1 > 5 * n0, "{tcp}: {n0} ranges at {iw0}, {n1} at {iw1}");
            // ...and costs each event at most a few more node visits.
            assert!(
                v1 - v0 <= 5.0,
                "{tcp}: {v0:.2} node visits per event at an initial window of {iw0}, \
                 {v1:.2} at {iw1}"
            );
        }
    }
}

#[cfg(not(feature = "op-counts"))]
#[test]
#[ignore = "counts the range sets' work: needs `--features op-counts` (make test runs it)"]
fn the_holes_benchmark_runs_to_completion_at_a_cost_bounded_by_its_events() {
    panic!("build with --features op-counts: the node counters are compiled out");
}
