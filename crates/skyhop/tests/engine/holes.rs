//! `benches/holes.toml` (thousands of out-of-order holes in a 1 GB window)
//! runs to its end: the cost of a run is bounded by its events, not by the
//! number of holes times the number of segments. No wall time is asserted.

#[test]
fn the_holes_benchmark_runs_to_completion() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/holes.toml");
    let scn = skyhop::scenario::load_path(path, &[]).expect("benches/holes.toml loads");
    let r = skyhop::run(&scn, 1, &skyhop::RunOptions::default()).expect("the run completes");
    assert!(r.engine.events > 400_000, "{} events", r.engine.events);
    assert!(
        r.engine.channel_drops > 1000,
        "{} losses",
        r.engine.channel_drops
    );
    let f = &r.flows["bulk"];
    assert!(f.bytes_delivered > 0);
}
