//! `RunOptions::cancel` stops a run within a few thousand events, and a
//! check that never fires changes nothing.

use skyhop::scenario::load_str;
use skyhop::{run, RunOptions, SimError};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const BULK: &str = r#"
[run]
duration = "600 s"
[nodes.A]
[nodes.B]
[links.ab]
between = ["A", "B"]
rate = "100 Mbps"
delay = "125 ms"
queue = 1000
[tcp]
rcv_buffer = "10 MB"
[flows.f]
from = "A"
to = "B"
"#;

#[test]
fn a_cancel_check_that_fires_ends_the_run_with_cancelled_within_one_poll() {
    let scn = load_str(BULK, "bulk.toml", &[]).unwrap();
    let polls = Arc::new(AtomicU64::new(0));
    let p2 = polls.clone();
    let opts = RunOptions {
        cancel: Some(Arc::new(move || p2.fetch_add(1, Ordering::Relaxed) >= 2)),
        ..Default::default()
    };
    match run(&scn, 1, &opts) {
        Err(SimError::Cancelled { sim_time_s }) => assert!(sim_time_s > 0.0 && sim_time_s < 600.0),
        other => panic!("expected a cancelled run, got {other:?}"),
    }
    // Polled every 4096 events: the third poll (at event 12288) cancels.
    assert_eq!(polls.load(Ordering::Relaxed), 3);
}

#[test]
fn a_cancel_check_that_never_fires_changes_nothing() {
    let scn = load_str(BULK, "bulk.toml", &["run.duration=\"20 s\"".to_string()]).unwrap();
    let plain = run(&scn, 3, &RunOptions::default()).unwrap();
    let opts = RunOptions {
        cancel: Some(Arc::new(|| false)),
        ..Default::default()
    };
    assert_eq!(run(&scn, 3, &opts).unwrap(), plain);
}
